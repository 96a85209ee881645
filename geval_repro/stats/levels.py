"""Correlation levels on (n_systems, n_inputs) score matrices, as in nlpstats and UniEval.

- ``summary`` (nlpstats' "input" level; the paper's SummEval protocol): for each input
  (column), correlate the systems' metric scores with their human scores over the systems
  where both are present; skip the input when fewer than 2 such systems remain or when
  either vector is constant (see the rule below); average the kept inputs' correlations.
- ``system``: each system's mean metric score and mean human score over the inputs where
  both are present, then one correlation over the systems.
- ``global``: every cell where both scores are present, pooled into one correlation (the
  paper's turn level for Topical-Chat and its dataset level for QAGS).

Constant-vector rule: a vector counts as constant when its present values span less than
``CONSTANT_ATOL`` = 1e-9, i.e. ``max(v) - min(v) < 1e-9`` (every ``|v - max(v)| < 1e-9``).
On exactly represented scores this is the released scripts' rule (G-Eval's
meta_eval_summeval.py and UniEval's correlation.py skip a document when
``len(set(v)) <= 1``); it also skips vectors that differ only by floating-point noise,
whose correlation would be a correlation of rounding errors. At the system and global
levels a constant vector makes the value NaN.

Near-ties: for Spearman and Kendall, values within a relative ``NEAR_TIE_RTOL`` = 1e-9 of
each other are merged into exact ties before ranking
(:func:`~geval_repro.stats.coefficients.collapse_near_ties`). Mathematically equal
scores reached along different floating-point paths (system means of averaged 1-5
ratings, summed in another order) then tie, as they do in exact arithmetic, instead of
being ranked by rounding error (scipy's exact-equality ranking, and nlpstats', would break
such ties arbitrarily). On exactly represented scores nothing changes. Pearson uses the
values as they are.

Everything is vectorized over the inputs and over any leading batch axes (resamples). At the
summary level with at most :data:`~geval_repro.stats.pairwise.PAIRWISE_MAX_LENGTH` systems,
Spearman and Kendall use the pairwise-sign kernel of :mod:`geval_repro.stats.pairwise`
(identical values); the human matrix may then keep a smaller, broadcastable batch shape, so
that its pair signs and ranks are computed once for a whole batch of metric matrices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from geval_repro.stats.coefficients import (
    _pearson_masked,
    _tau_b,
    average_ranks,
    collapse_near_ties,
    kendall_terms_from_ranks,
    row_function,
)
from geval_repro.stats.level import Level
from geval_repro.stats.matrix import as_score_pair
from geval_repro.stats.pairwise import PAIRWISE_MAX_LENGTH, rank_terms, spearman_from_ranks
from geval_repro.stats.results import LevelCorrelation

CONSTANT_ATOL = 1e-9
NEAR_TIE_RTOL = 1e-9
RANK_COEFFICIENTS = ("spearman", "kendall")
RowFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]


class BatchedCorrelation(NamedTuple):
    """Level correlations of a batch of matrices ``(..., n_systems, n_inputs)``.

    Every field has the batch shape ``(...)`` except ``per_group`` (``(..., n_inputs)`` for
    the summary level, ``None`` otherwise).
    """

    value: np.ndarray
    n_groups: np.ndarray
    n_items: np.ndarray
    per_group: np.ndarray | None


def _span(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """``max - min`` of the present values per row (``-inf`` for a row with none)."""
    high = np.where(present, values, -np.inf).max(axis=-1)
    low = np.where(present, values, np.inf).min(axis=-1)
    return high - low


def _with_near_ties_collapsed(correlate_rows: RowFunction) -> RowFunction:
    """``correlate_rows`` applied after merging near-ties (see the module docstring)."""

    def collapsed(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return correlate_rows(
            collapse_near_ties(x, NEAR_TIE_RTOL), collapse_near_ties(y, NEAR_TIE_RTOL)
        )

    return collapsed


class SummaryTerms(NamedTuple):
    """Per-input terms of the summary level, batch shape ``(..., n_inputs)``.

    ``per_input``: each input's correlation (NaN where undefined); ``kept``: inputs that
    enter the average (at least 2 complete pairs, neither vector constant);
    ``n_present``: complete (metric, human) pairs per input.
    """

    per_input: np.ndarray
    kept: np.ndarray
    n_present: np.ndarray


class TiedPairs(NamedTuple):
    """Pairs a level compares, per batch entry: ``pairs``, the complete (metric, human)
    pairs (summary level: within each input, summed over the inputs; global level: all
    pairs); ``tied``, those tied in the metric (after the near-tie collapse; equal codes
    for a coded metric)."""

    tied: np.ndarray
    pairs: np.ndarray


def _summary_terms_pairwise(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> tuple[dict[str, SummaryTerms], TiedPairs]:
    """Summary terms of ``(..., n_systems, n_inputs)`` matrices (``human`` broadcastable)
    from pair signs, shared by the rank ``coefficients`` (see
    :mod:`geval_repro.stats.pairwise`), and the metric's tied pairs from the same signs.

    ``metric`` may hold integer codes (see :func:`~geval_repro.stats.pairwise.rank_terms`):
    different codes then differ by at least ``CONSTANT_ATOL``, so an input's metric vector
    is constant exactly when none of its complete pairs is untied.
    """
    pairs = rank_terms(metric, human, NEAR_TIE_RTOL)
    coded = metric.dtype.kind in "iu"
    missing_x = metric < 0 if coded else np.isnan(metric)
    missing_y = np.isnan(human)
    spanned = (human,) if coded else (metric, human)  # a coded metric's spans: untied_x
    if missing_x.any() or missing_y.any():
        present = ~(missing_x | missing_y)
        n_present = present.sum(axis=-2)
        spans = [
            np.where(present, v, -np.inf).max(axis=-2) - np.where(present, v, np.inf).min(axis=-2)
            for v in spanned
        ]
    else:
        n_systems = metric.shape[-2]
        n_present = np.full(
            np.broadcast_shapes(metric.shape, human.shape)[:-2] + metric.shape[-1:], n_systems
        )
        spans = [v.max(axis=-2) - v.min(axis=-2) for v in spanned]
    varies_x = pairs.untied_x > 0 if coded else spans[0] >= CONSTANT_ATOL
    kept = (n_present >= 2) & varies_x & (spans[-1] >= CONSTANT_ATOL)
    terms = {}
    for coefficient in coefficients:
        if coefficient == "kendall":
            per_input = _tau_b(pairs.concordance, pairs.untied_x, pairs.untied_y)
        else:
            per_input = spearman_from_ranks(pairs.rank_x, pairs.rank_y)
        terms[coefficient] = SummaryTerms(np.broadcast_to(per_input, kept.shape), kept, n_present)
    n_pairs = (n_present * (n_present - 1) // 2).sum(axis=-1)
    ties = TiedPairs(n_pairs - pairs.untied_x.sum(axis=-1, dtype=np.int64), n_pairs)
    return terms, ties


def _summary_terms_by_rows(metric: np.ndarray, human: np.ndarray, coefficient: str) -> SummaryTerms:
    """Summary terms from the row-wise coefficient functions (any length, any coefficient)."""
    x, y = np.broadcast_arrays(np.swapaxes(metric, -1, -2), np.swapaxes(human, -1, -2))
    correlate_rows = row_function(coefficient)
    if coefficient in RANK_COEFFICIENTS:
        correlate_rows = _with_near_ties_collapsed(correlate_rows)
    present = ~(np.isnan(x) | np.isnan(y))
    n_present = present.sum(axis=-1)
    kept = (
        (n_present >= 2)
        & (_span(x, present) >= CONSTANT_ATOL)
        & (_span(y, present) >= CONSTANT_ATOL)
    )
    return SummaryTerms(correlate_rows(x, y), kept, n_present)


def summary_terms_by_coefficient(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> dict[str, SummaryTerms]:
    """Per-input correlations and kept flags of ``(..., n_systems, n_inputs)`` matrices for
    each coefficient; Spearman and Kendall share one set of pair signs.

    ``human`` may have a smaller batch shape that broadcasts against ``metric``'s.
    """
    for coefficient in coefficients:
        row_function(coefficient)  # raises on an unknown coefficient
    pairwise = tuple(
        c
        for c in coefficients
        if c in RANK_COEFFICIENTS and metric.shape[-2] <= PAIRWISE_MAX_LENGTH
    )
    terms = _summary_terms_pairwise(metric, human, pairwise)[0] if pairwise else {}
    for coefficient in coefficients:
        if coefficient not in terms:
            terms[coefficient] = _summary_terms_by_rows(metric, human, coefficient)
    return terms


def summary_terms(metric: np.ndarray, human: np.ndarray, coefficient: str) -> SummaryTerms:
    """:func:`summary_terms_by_coefficient` for one coefficient."""
    return summary_terms_by_coefficient(metric, human, (coefficient,))[coefficient]


def kept_mean(added: np.ndarray, n_kept: np.ndarray) -> np.ndarray:
    """The summary level's value: the kept inputs' correlations ``added`` ``(..., n_inputs)``
    (0 for the others) summed over the inputs, over ``n_kept``; NaN where no input is kept."""
    with np.errstate(invalid="ignore", divide="ignore"):
        value = added.sum(axis=-1) / n_kept
    return np.where(n_kept > 0, value, np.nan)


def _summary_level(terms: SummaryTerms) -> BatchedCorrelation:
    """The summary-level value: mean correlation over the kept inputs (:func:`kept_mean`)."""
    per_input, kept, n_present = terms
    n_groups = kept.sum(axis=-1)
    value = kept_mean(np.where(kept, per_input, 0.0), n_groups)
    n_items = np.where(kept, n_present, 0).sum(axis=-1)
    return BatchedCorrelation(value, n_groups, n_items, np.where(kept, per_input, np.nan))


def summary_batch(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> dict[str, BatchedCorrelation]:
    """Summary-level correlations of a batch for several coefficients at once (as
    :func:`correlate_batch` per coefficient, sharing the pair signs of the batch)."""
    return {
        coefficient: _summary_level(terms)
        for coefficient, terms in summary_terms_by_coefficient(metric, human, coefficients).items()
    }


def summary_rank_batch(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> tuple[dict[str, BatchedCorrelation], TiedPairs]:
    """:func:`summary_batch` for rank coefficients (Spearman, Kendall) on at most
    :data:`~geval_repro.stats.pairwise.PAIRWISE_MAX_LENGTH` systems, and the metric's tied
    pairs from the same pair signs (also when ``coefficients`` is empty).

    ``metric`` may hold integer codes instead of scores (see
    :func:`~geval_repro.stats.pairwise.rank_terms`; codes -1 for missing and 0..16383 that
    order like the scores, different scores at least ``CONSTANT_ATOL`` and a relative
    ``NEAR_TIE_RTOL`` apart): the values are then those of the scores the codes stand for.
    """
    unsupported = set(coefficients) - set(RANK_COEFFICIENTS)
    if unsupported or metric.shape[-2] > PAIRWISE_MAX_LENGTH:
        raise ValueError(
            f"summary_rank_batch takes {RANK_COEFFICIENTS} on at most {PAIRWISE_MAX_LENGTH} "
            f"systems, got {sorted(coefficients)} on {metric.shape[-2]}: use summary_batch"
        )
    terms, ties = _summary_terms_pairwise(metric, human, tuple(coefficients))
    return {c: _summary_level(t) for c, t in terms.items()}, ties


def global_rank_batch(
    codes: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> tuple[dict[str, BatchedCorrelation], TiedPairs]:
    """:func:`correlate_batch` at the global level for rank coefficients on a coded metric,
    and the metric's tied pairs (also when ``coefficients`` is empty).

    ``codes``: integer codes ``(..., n_systems, n_inputs)`` of the metric scores, as for
    :func:`summary_rank_batch`; ``human``: one ``(n_systems, n_inputs)`` matrix. Each
    entry's codes are counted per level (one bincount for the batch): Spearman's average
    ranks are ``(first + last) / 2 + 1`` of each level's run of positions in sorted order,
    as :func:`~geval_repro.stats.coefficients.average_ranks` computes them; Kendall's pair
    counts come from contingency tables of codes and the human scores' dense ranks. The
    human side (near-tie collapse, ranks) is computed once unless the metric has missing
    cells. Values are identical to :func:`correlate_batch`'s on the scores.
    """
    unsupported = set(coefficients) - set(RANK_COEFFICIENTS)
    if unsupported or human.ndim != 2:
        raise ValueError(
            f"global_rank_batch takes {RANK_COEFFICIENTS} and one human matrix, got "
            f"{sorted(coefficients)} and a human array of shape {human.shape}: use "
            "correlate_batch"
        )
    batch = codes.shape[:-2]
    x = codes.reshape(-1, codes.shape[-2] * codes.shape[-1]).astype(np.int64)
    y = human.reshape(-1)
    rows, n = x.shape
    present = (x >= 0) & ~np.isnan(y)
    n_items = present.sum(axis=-1)
    size = max(int(x.max()) + 1, 1)
    cell = np.where(present, x, size) + (np.arange(rows) * (size + 1))[:, None]
    counts = np.bincount(cell.ravel(), minlength=rows * (size + 1)).reshape(rows, size + 1)
    counts = counts[:, :size]  # per row and code, present cells only
    pairs = n_items * (n_items - 1) // 2
    ties = TiedPairs((counts * (counts - 1) // 2).sum(axis=-1), pairs)

    y_collapsed = collapse_near_ties(y, NEAR_TIE_RTOL)
    same_present = bool((present == present[:1]).all())
    shown = present[:1] if same_present else present
    spans_y = _span(np.broadcast_to(y, shown.shape), shown)
    defined = ((counts > 0).sum(axis=-1) >= 2) & (spans_y >= CONSTANT_ATOL)
    out = {}
    for coefficient in coefficients:
        if coefficient == "spearman":
            last = np.cumsum(counts, axis=-1) - 1  # sorted position of each code's last cell
            first = last - counts + 1
            mean_rank = (first + last) / 2.0 + 1.0
            rank_x = np.where(present, np.take_along_axis(mean_rank, np.maximum(x, 0), -1), np.nan)
            rank_y = average_ranks(np.broadcast_to(y_collapsed, shown.shape), shown)
            value = _pearson_masked(rank_x, rank_y, present)
        else:
            dense_y = np.unique(y_collapsed[~np.isnan(y_collapsed)], return_inverse=True)[1]
            rank_y = np.zeros(n, dtype=np.int64)
            rank_y[~np.isnan(y_collapsed)] = dense_y
            terms = kendall_terms_from_ranks(
                np.maximum(x, 0), np.broadcast_to(rank_y, x.shape), present
            )
            value = _tau_b(*terms)
        value = np.where(defined, value, np.nan).reshape(batch)
        out[coefficient] = BatchedCorrelation(
            value, np.ones(batch, dtype=int), n_items.reshape(batch), None
        )
    return out, TiedPairs(ties.tied.reshape(batch), ties.pairs.reshape(batch))


def correlate_batch(
    metric: np.ndarray, human: np.ndarray, level: Level | str, coefficient: str
) -> BatchedCorrelation:
    """Level correlations for every matrix of a batch (no input validation; see correlate).

    ``metric`` is a float array of shape ``(..., n_systems, n_inputs)``; ``human`` has the
    same shape or a smaller batch shape that broadcasts against it (one human matrix for a
    batch of metric matrices).
    """
    level = Level(level)
    if level.grouped:
        return _summary_level(summary_terms(metric, human, coefficient))

    if coefficient == "spearman" and level.pooled and _one_shared_human(metric, human):
        return _spearman_against_one_human(metric, human)
    correlate_rows = row_function(coefficient)
    if coefficient in RANK_COEFFICIENTS:
        correlate_rows = _with_near_ties_collapsed(correlate_rows)
    metric, human = np.broadcast_arrays(metric, human)
    batch = metric.shape[:-2]
    present = ~(np.isnan(metric) | np.isnan(human))
    if level is Level.SYSTEM:
        counts = present.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.where(present, metric, 0.0).sum(axis=-1) / counts
            y = np.where(present, human, 0.0).sum(axis=-1) / counts
    else:
        x = metric.reshape(*batch, -1)
        y = human.reshape(*batch, -1)
    row_present = ~(np.isnan(x) | np.isnan(y))
    defined = (_span(x, row_present) >= CONSTANT_ATOL) & (_span(y, row_present) >= CONSTANT_ATOL)
    value = np.where(defined, correlate_rows(x, y), np.nan)
    n_items = present.sum(axis=(-2, -1))
    return BatchedCorrelation(value, np.ones(batch, dtype=int), n_items, None)


def _one_shared_human(metric: np.ndarray, human: np.ndarray) -> bool:
    """Whether a batch of metric matrices faces one human matrix with the same missing cells
    in every batch entry (a permutation test's swaps): the human side can be ranked once."""
    if metric.ndim <= 2 or human.shape != metric.shape[-2:]:
        return False
    missing = np.isnan(metric)
    return bool((missing == missing.reshape(-1, *metric.shape[-2:])[0]).all())


def _spearman_against_one_human(metric: np.ndarray, human: np.ndarray) -> BatchedCorrelation:
    """Global-level Spearman of each metric matrix of a batch against one human matrix with
    the same cells present in every entry: the human scores are near-tie collapsed and ranked
    once, each metric matrix per entry (the same values as ranking both every time)."""
    batch = metric.shape[:-2]
    present = ~(
        np.isnan(metric.reshape(-1, metric.shape[-2] * metric.shape[-1])[0])
        | np.isnan(human.ravel())
    )
    y = human.ravel()[present]
    x = metric.reshape(*batch, -1)[..., present]
    y_ranks = average_ranks(collapse_near_ties(y, NEAR_TIE_RTOL), np.ones(y.shape, dtype=bool))
    x_ranks = average_ranks(collapse_near_ties(x, NEAR_TIE_RTOL), np.ones(x.shape, dtype=bool))
    everywhere = np.ones(x.shape, dtype=bool)
    value = _pearson_masked(x_ranks, np.broadcast_to(y_ranks, x.shape), everywhere)
    span_x = x.max(axis=-1, initial=-np.inf) - x.min(axis=-1, initial=np.inf)
    span_y = y.max(initial=-np.inf) - y.min(initial=np.inf)
    defined = (span_x >= CONSTANT_ATOL) & (span_y >= CONSTANT_ATOL)
    n_items = np.full(batch, int(present.sum()))
    return BatchedCorrelation(
        np.where(defined, value, np.nan), np.ones(batch, dtype=int), n_items, None
    )


def correlate(
    metric: np.ndarray, human: np.ndarray, level: Level | str, coefficient: str
) -> LevelCorrelation:
    """Correlation of a metric matrix with a human matrix at ``level`` (see module docstring).

    ``metric`` and ``human``: ``(n_systems, n_inputs)``, NaN = missing. ``coefficient``:
    "pearson", "spearman" or "kendall". Returns value, n_groups (inputs kept for the summary
    level, 1 otherwise), n_items (cells used) and, for the summary level, the per-input
    values (NaN for skipped inputs).
    """
    metric, human = as_score_pair(metric, human)
    result = correlate_batch(metric, human, level, coefficient)
    per_group = result.per_group
    if per_group is not None:
        per_group.setflags(write=False)
    return LevelCorrelation(
        value=float(result.value),
        n_groups=int(result.n_groups),
        n_items=int(result.n_items),
        per_group=per_group,
    )
