"""The statistics a row can hold, one entry each: the correlation coefficients
(:class:`Coefficient`) and the pairwise accuracies (:class:`Accuracy`); the statistics
against binary human labels (:class:`BinaryStatistic`: ROC AUC, balanced accuracy), which the
rows of a benchmark of binary ``labels`` hold instead of correlations; and the judge tests
(:class:`JudgeTest`: the alternative annotator test), which read a benchmark's individual
annotators and fill the judge cards, not the correlation rows.

Everything that handles a coefficient reads its entry: the levels, the bootstrap and the
permutation test take its functions and paths from it, the tables make a row of it for
every metric, the figures and the paper layouts print its symbol, the CLI offers its name.
Nothing else branches on a coefficient's name; an unknown name is an error
(:func:`statistic`, :func:`coefficient`).

A :class:`Coefficient` names its row function (:mod:`geval_repro.stats.coefficients`) and
the fast paths it has. Without them every level, bootstrap and permutation test takes the
generic path, which recomputes the row function on each (resampled, swapped) vector:
correct for any coefficient, and what the fast paths are tested against. The paths, by
where they serve:

============  ==============================================================  ==========
hook          serves                                                          module
============  ==============================================================  ==========
``signs``     summary level (at most 32 systems): each input's value from     coefficients
              the offsets' pair counts and rank sums (values, the bootstrap
              over inputs, the permutation test's document sides, the sweep)
``codes``     global level: values from integer codes of the tie groups       coefficients
              (a batch against one human matrix, the bootstrap over items
              or inputs, the sweep's coded means)
``swaps``     permutation tests at the summary (units other than inputs) and   swapped_sums
              global levels: every resample's value from per-item sums,
              without building a swapped matrix
============  ==============================================================  ==========

``rank_based``: the coefficient reads the order of the scores and their ties only; its
levels merge near-ties (:mod:`geval_repro.stats.tie_rule`) before its row function, and its
permutation tests compare the tie rule's integer codes. ``system_sums``: its system-level
permutation test with cells or inputs swapped may take each resample's system means from
sums of the swapped differences (within rounding of recomputing them, which a rank
coefficient's ties would not tolerate). ``swept``: the replies-per-item sweep draws a
figure of it.

Light on purpose (no numpy): the workflow reads the names when it is parsed; an entry's
functions are looked up by name on first use (:meth:`Coefficient.function`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Where each kind of function of an entry lives.
HOOK_MODULES = {
    "rows": "geval_repro.stats.coefficients",
    "signs": "geval_repro.stats.coefficients",
    "codes": "geval_repro.stats.coefficients",
    "swaps": "geval_repro.stats.swapped_sums",
}


@dataclass(frozen=True)
class Coefficient:
    """One correlation coefficient (module docstring). ``rows``: the name of its row
    function in :mod:`geval_repro.stats.coefficients` (``(x, y)`` of shape ``(..., n)`` ->
    one value per row, complete pairs only); ``signs``, ``codes``, ``swaps``: the names of
    its fast paths, or None (the generic path)."""

    name: str
    symbol: str
    label: str
    rank_based: bool
    rows: str
    signs: str | None = None
    codes: str | None = None
    swaps: str | None = None
    system_sums: bool = False
    swept: bool = False

    @property
    def order_only(self) -> bool:
        """Whether a strictly increasing map of every score leaves it unchanged (at the
        summary and global levels): a rank coefficient."""
        return self.rank_based

    def function(self, hook: str = "rows") -> Callable[..., Any] | None:
        """The function of ``hook`` (``rows``, ``signs``, ``codes`` or ``swaps``: a path
        object of :mod:`geval_repro.stats.swapped_sums`), None when the entry has none."""
        name = getattr(self, hook)
        if name is None:
            return None
        return getattr(importlib.import_module(HOOK_MODULES[hook]), name)


@dataclass(frozen=True)
class Accuracy:
    """One pairwise accuracy with ties (Deutsch et al., 2023;
    :mod:`geval_repro.stats.accuracy`): ``calibrated`` False for ``acc_eq`` (the metric ties
    only the pairs the tie rule ties), True for ``acc*_eq`` (its tie threshold fitted)."""

    name: str
    symbol: str
    label: str
    calibrated: bool

    @property
    def order_only(self) -> bool:
        """``acc_eq`` reads the order and ties alone; a fitted threshold is a difference of
        scores."""
        return not self.calibrated


#: The correlation coefficients, in the order the tables list them.
CORRELATIONS: tuple[Coefficient, ...] = (
    Coefficient(
        name="pearson",
        symbol="r",
        label="Pearson r",
        rank_based=False,
        rows="pearson_rows",
        swaps="PEARSON_SWAPS",
        system_sums=True,
    ),
    Coefficient(
        name="spearman",
        symbol="ρ",
        label="Spearman ρ",
        rank_based=True,
        rows="spearman_rows",
        signs="spearman_from_signs",
        codes="spearman_from_codes",
        swaps="SPEARMAN_SWAPS",
        swept=True,
    ),
    Coefficient(
        name="kendall",
        symbol="τ",
        label="Kendall τ",
        rank_based=True,
        rows="kendall_rows",
        signs="kendall_from_signs",
        codes="kendall_from_codes",
        swaps="KENDALL_SWAPS",
        swept=True,
    ),
)
#: The pairwise accuracies, beside the coefficients in every row.
PAIRWISE_ACCURACIES: tuple[Accuracy, ...] = (
    Accuracy(name="acc_eq", symbol="acc_eq", label="acc_eq (ε = 0)", calibrated=False),
    Accuracy(
        name="acc_eq_calibrated",
        symbol="acc*_eq",
        label="acc*_eq (ε fitted)",
        calibrated=True,
    ),
)

_ENTRIES: dict[str, Coefficient | Accuracy] = {
    entry.name: entry for entry in (*CORRELATIONS, *PAIRWISE_ACCURACIES)
}
#: Names of the correlation coefficients, of the accuracies, and of both.
COEFFICIENTS: tuple[str, ...] = tuple(c.name for c in CORRELATIONS)
ACCURACIES: tuple[str, ...] = tuple(a.name for a in PAIRWISE_ACCURACIES)
STATISTICS: tuple[str, ...] = (*COEFFICIENTS, *ACCURACIES)


@dataclass(frozen=True)
class JudgeTest:
    """A statistic of one judge against a benchmark's humans that the correlation rows do not
    hold: ``kind`` ``annotators`` (an ``(items, annotators)`` matrix of individual ratings
    and the judge's ``(items,)`` values in, numbers out; the benchmark's annotators must
    number at least ``min_annotators``), ``systems`` (the metric's and the humans'
    complete ``(systems, documents)`` matrices in, one number out) or ``difference`` (two
    metrics' and the humans' matrices in: their difference's interval and power), ``level``
    (the judge's, the humans' and the lengths' aligned ``(systems, documents)`` matrices
    and the benchmark's level in: length correlations and the partial correlation at that
    level), ``replies`` (an ``(items, replies)`` matrix in: split-half reliability) or
    ``resampled`` (a ``systems`` statistic of several metrics recomputed on resamples of
    the documents: the stacked metric matrices, the humans' and the draws in, one value per
    metric and draw).
    ``function``: its name in ``module``. Not a row of the correlation tables: the judge cards
    (:mod:`geval_repro.tables.judge_cards`) hold its numbers."""

    name: str
    symbol: str
    label: str
    kind: str
    module: str
    function: str
    min_annotators: int = 0

    def compute(self) -> Callable[..., Any]:
        """Its function, imported on first use."""
        return getattr(importlib.import_module(self.module), self.function)


#: The judge tests, in the order the judge cards list them.
JUDGE_TESTS: dict[str, JudgeTest] = {
    t.name: t
    for t in (
        JudgeTest(
            name="alt_test",
            symbol="ω",
            label="alternative annotator test (Calderon et al., 2025)",
            kind="annotators",
            module="geval_repro.stats.alt_test",
            function="alternative_annotator_test",
            min_annotators=3,
        ),
        JudgeTest(
            name="soft_pairwise_accuracy",
            symbol="SPA",
            label="soft pairwise accuracy (Thompson et al., 2024)",
            kind="systems",
            module="geval_repro.stats.soft_pairwise",
            function="soft_pairwise_accuracy",
        ),
        JudgeTest(
            name="soft_pairwise_accuracy_resampled",
            symbol="SPA*",
            label="soft pairwise accuracy recomputed on resamples of the documents",
            kind="resampled",
            module="geval_repro.stats.soft_pairwise",
            function="resampled_spa",
        ),
        JudgeTest(
            name="paired_difference",
            symbol="Δ",
            label="paired bootstrap of a difference of correlations, with its power",
            kind="difference",
            module="geval_repro.stats.power",
            function="paired_difference",
        ),
        JudgeTest(
            name="partial_spearman",
            symbol="ρ_s·len",
            label="Spearman with the humans, the text's length partialled out",
            kind="level",
            module="geval_repro.stats.biases",
            function="length_at_level",
        ),
        JudgeTest(
            name="split_half",
            symbol="SB",
            label="split-half reliability of the replies (Spearman-Brown)",
            kind="replies",
            module="geval_repro.stats.biases",
            function="split_half",
        ),
    )
}


@dataclass(frozen=True)
class BinaryStatistic:
    """A statistic of a metric's scores against binary human labels
    (:mod:`geval_repro.stats.binary`). ``function``: its name there, ``(scores, labels,
    weights, threshold) -> one value per resample`` (``weights``: ``(resamples, n)`` item
    weights, a bootstrap over documents); ``thresholded``: it reads a threshold, which the
    tables fit on the benchmark's ``threshold_split`` and apply to its ``tested_split``
    (False: the threshold is None and the value is computed on the tested split alone).
    ``rows_function``: its name there over many score vectors of the same items (the
    replies-per-item sweep), ``(scores, labels, fit_scores, fit_labels) -> one value per row
    of scores``, a thresholded one fitting each row's threshold on the same row of
    ``fit_scores``."""

    name: str
    symbol: str
    label: str
    function: str
    rows_function: str
    thresholded: bool

    def compute(self) -> Callable[..., Any]:
        """Its function, imported on first use."""
        return getattr(importlib.import_module("geval_repro.stats.binary"), self.function)

    def compute_rows(self) -> Callable[..., Any]:
        """Its function over rows of scores, imported on first use."""
        return getattr(importlib.import_module("geval_repro.stats.binary"), self.rows_function)


#: The statistics against binary labels, in the order the tables list them.
BINARY_STATISTICS: dict[str, BinaryStatistic] = {
    s.name: s
    for s in (
        BinaryStatistic(
            name="roc_auc",
            symbol="AUC",
            label="ROC AUC",
            function="roc_auc",
            rows_function="roc_auc_rows",
            thresholded=False,
        ),
        BinaryStatistic(
            name="balanced_accuracy",
            symbol="BAcc",
            label="balanced accuracy (threshold fitted on the evaluation split)",
            function="balanced_accuracy",
            rows_function="balanced_accuracy_rows",
            thresholded=True,
        ),
    )
}


def binary_statistic(name: str) -> BinaryStatistic:
    """The binary-label statistic named ``name``; an unknown name raises ValueError naming
    the known ones."""
    if name not in BINARY_STATISTICS:
        raise ValueError(
            f"unknown binary-label statistic {name!r}: use one of {tuple(BINARY_STATISTICS)}"
        )
    return BINARY_STATISTICS[name]


def judge_test(name: str) -> JudgeTest:
    """The judge test named ``name``; an unknown name raises ValueError naming the known
    ones."""
    if name not in JUDGE_TESTS:
        raise ValueError(f"unknown judge test {name!r}: use one of {tuple(JUDGE_TESTS)}")
    return JUDGE_TESTS[name]


def statistic(name: str) -> Coefficient | Accuracy:
    """The entry named ``name``; an unknown name raises ValueError naming the known ones."""
    if name not in _ENTRIES:
        raise ValueError(f"unknown coefficient {name!r}: use one of {STATISTICS}")
    return _ENTRIES[name]


def coefficient(name: str) -> Coefficient:
    """The correlation coefficient named ``name`` (an accuracy or unknown name raises)."""
    entry = statistic(name)
    if not isinstance(entry, Coefficient):
        raise ValueError(
            f"{name!r} is a pairwise accuracy, not a correlation coefficient: use one of "
            f"{COEFFICIENTS}"
        )
    return entry


def symbol(name: str) -> str:
    """The symbol tables and figures print for ``name`` (r, ρ, τ, acc*_eq, ...)."""
    return statistic(name).symbol
