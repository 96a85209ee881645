"""Correlation levels on (n_systems, n_inputs) score matrices, as in nlpstats and UniEval.

- ``summary`` (nlpstats' "input" level; the paper's SummEval protocol): for each input
  (column), correlate the systems' metric scores with their human scores over the systems
  where both are present; skip the input when fewer than 2 such systems remain or when
  either vector is constant; average the kept inputs' correlations.
- ``system``: each system's mean metric score and mean human score over the inputs where
  both are present, then one correlation over the systems.
- ``global``: every cell where both scores are present, pooled into one correlation (the
  paper's turn level for Topical-Chat and its dataset level for QAGS).

Ties follow the one tie rule (:mod:`geval_repro.stats.tie_rule`) over each vector's complete
pairs: a vector is constant when its values form one cluster (the released scripts' ``len(
set(v)) <= 1`` on exactly represented scores; G-Eval's meta_eval_summeval.py and UniEval's
correlation.py skip such a document), and a rank coefficient ranks the values with each
cluster merged (mathematically equal scores reached along different floating-point paths
then tie, as in exact arithmetic, instead of being ranked by rounding error). At the system
and global levels a constant vector makes the value NaN.

A coefficient is a registry entry (:mod:`geval_repro.stats.registry`): its row function
computes any level (the generic path); its ``signs`` path serves the summary level on at
most :data:`PAIRWISE_MAX_LENGTH` systems (the offsets of :mod:`geval_repro.stats.pairs`,
shared by every coefficient that has one; the human matrix may keep a smaller, broadcastable
batch shape, so its signs and ranks are computed once for a batch of metric matrices), its
``codes`` path the global level against one human matrix. The paths give the generic path's
values (tests/test_stats_levels.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats import registry
from geval_repro.stats.level import Level
from geval_repro.stats.matrix import as_score_pair
from geval_repro.stats.pairs import sign_sums
from geval_repro.stats.ranks import dense_ranks
from geval_repro.stats.registry import Coefficient
from geval_repro.stats.results import LevelCorrelation
from geval_repro.stats.tie_rule import (
    collapse_near_ties,
    constant,
    has_near_ties,
    merged_columns,
    stable_clusters,
)

PAIRWISE_MAX_LENGTH = 32  # longer columns take the generic path (pairs grow as n**2)


class BatchedCorrelation(NamedTuple):
    """Level correlations of a batch of matrices ``(..., n_systems, n_inputs)``.

    Every field has the batch shape ``(...)`` except ``per_group`` (``(..., n_inputs)`` for
    the summary level, ``None`` otherwise). ``n_groups``: the inputs kept (summary), the
    systems correlated (system), 1 (global).
    """

    value: np.ndarray
    n_groups: np.ndarray
    n_items: np.ndarray
    per_group: np.ndarray | None


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
    pairs); ``tied``, those the metric ties (equal codes for a coded metric)."""

    tied: np.ndarray
    pairs: np.ndarray


class VectorTerms(NamedTuple):
    """A coefficient's value of each vector over its complete pairs (NaN where undefined),
    whether the vector enters a level (at least two complete pairs, neither vector constant:
    ``defined``) and its complete pairs ``n``."""

    value: np.ndarray
    defined: np.ndarray
    n: np.ndarray


def vector_terms(entry: Coefficient, x: np.ndarray, y: np.ndarray) -> VectorTerms:
    """``entry``'s :class:`VectorTerms` of each row of ``(..., n)`` vectors (NaN = missing)
    with the level rules: a rank coefficient's ties merged first; NaN where either vector
    is constant over the complete pairs (module docstring)."""
    complete = ~(np.isnan(x) | np.isnan(y))
    if not complete.all():
        x, y = np.where(complete, x, np.nan), np.where(complete, y, np.nan)
    if entry.rank_based:
        x, y = collapse_near_ties(x), collapse_near_ties(y)
    defined = ~constant(x, complete) & ~constant(y, complete)
    value = np.where(defined, entry.function()(x, y), np.nan)
    return VectorTerms(value, defined, complete.sum(axis=-1))


def _merged_human(human: np.ndarray, complete: np.ndarray) -> np.ndarray:
    """The human matrix ``(..., n, m)`` merged per column over the complete pairs:
    ``human`` as it is (its smaller batch shape kept) when it has nothing to merge, else
    merged per batch entry."""
    if not has_near_ties(human):
        return human
    return merged_columns(np.where(complete, human, np.nan))


def _summary_terms_by_signs(
    metric: np.ndarray, human: np.ndarray, entries: tuple[Coefficient, ...]
) -> tuple[dict[str, SummaryTerms], TiedPairs]:
    """Summary terms of ``(..., n_systems, n_inputs)`` matrices (``human`` broadcastable)
    from the offsets' pair counts and rank sums (:func:`geval_repro.stats.pairs.sign_sums`),
    shared by ``entries`` (each with a ``signs`` path), and the metric's tied pairs.

    ``metric`` may hold integer codes (see :func:`summary_rank_batch`). A vector is constant
    exactly when it has no untied complete pair.
    """
    coded = metric.dtype.kind in "iu"
    missing_x = metric < 0 if coded else np.isnan(metric)
    complete = ~(missing_x | np.isnan(human))
    masked = not complete.all()
    if coded:
        x = metric.astype(np.int16, copy=False)  # callers' codes: a few hundred levels
    else:
        x = merged_columns(np.where(complete, metric, np.nan) if masked else metric)
    y = _merged_human(human, complete) if masked else merged_columns(human)
    sums = sign_sums(x, y, complete if masked else None, ranks=True)
    shape = np.broadcast_shapes(metric.shape, human.shape)
    n_present = complete.sum(axis=-2) if masked else np.full(shape[:-2] + shape[-1:], shape[-2])
    kept = (sums.untied_x > 0) & (sums.untied_y > 0)
    terms = {
        entry.name: SummaryTerms(
            np.broadcast_to(entry.function("signs")(sums), kept.shape), kept, n_present
        )
        for entry in entries
    }
    n_pairs = (n_present * (n_present - 1) // 2).sum(axis=-1)
    tied = n_pairs - sums.untied_x.sum(axis=-1, dtype=np.int64)  # tied_x + tied_both
    return terms, TiedPairs(tied, n_pairs)


def _summary_terms_by_rows(
    metric: np.ndarray, human: np.ndarray, entry: Coefficient
) -> SummaryTerms:
    """Summary terms from the entry's row function (any length, any coefficient): each
    input's :func:`vector_terms`."""
    x, y = np.broadcast_arrays(np.swapaxes(metric, -1, -2), np.swapaxes(human, -1, -2))
    return SummaryTerms(*vector_terms(entry, x, y))


def summary_terms_by_coefficient(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> dict[str, SummaryTerms]:
    """Per-input correlations and kept flags of ``(..., n_systems, n_inputs)`` matrices for
    each coefficient; those with a ``signs`` path share one pass of pair signs.

    ``human`` may have a smaller batch shape that broadcasts against ``metric``'s.
    """
    entries = tuple(registry.coefficient(name) for name in coefficients)
    by_signs = tuple(
        e for e in entries if e.signs is not None and metric.shape[-2] <= PAIRWISE_MAX_LENGTH
    )
    terms = _summary_terms_by_signs(metric, human, by_signs)[0] if by_signs else {}
    for entry in entries:
        if entry.name not in terms:
            terms[entry.name] = _summary_terms_by_rows(metric, human, entry)
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
        name: _summary_level(terms)
        for name, terms in summary_terms_by_coefficient(metric, human, coefficients).items()
    }


def _with_paths(coefficients: tuple[str, ...], hook: str, where: str) -> tuple[Coefficient, ...]:
    """The entries of ``coefficients``, each of which must have the path ``hook``."""
    entries = tuple(registry.coefficient(name) for name in coefficients)
    missing = [e.name for e in entries if getattr(e, hook) is None]
    if missing:
        raise ValueError(
            f"{where} needs coefficients with a {hook!r} path, got {missing}: use correlate_batch"
        )
    return entries


def summary_rank_batch(
    metric: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> tuple[dict[str, BatchedCorrelation], TiedPairs]:
    """:func:`summary_batch` for coefficients with a ``signs`` path on at most
    :data:`PAIRWISE_MAX_LENGTH` systems, and the metric's tied pairs from the same pair signs
    (also when ``coefficients`` is empty).

    ``metric`` may hold integer codes instead of scores: values that order and tie like the
    scores they stand for (-1 for missing, 0..16383), different scores never tied by the
    tie rule; the values are then those of the scores the codes stand for.
    """
    entries = _with_paths(coefficients, "signs", "summary_rank_batch")
    if metric.shape[-2] > PAIRWISE_MAX_LENGTH:
        raise ValueError(
            f"summary_rank_batch takes at most {PAIRWISE_MAX_LENGTH} systems, got "
            f"{metric.shape[-2]}: use summary_batch"
        )
    terms, ties = _summary_terms_by_signs(metric, human, entries)
    return {name: _summary_level(t) for name, t in terms.items()}, ties


def _human_codes(y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Dense codes ``(rows, n)`` of one human vector ``y`` ``(n,)`` merged by the tie rule
    over each row's ``present`` positions: merged once when every subset of its values
    clusters alike (:func:`~geval_repro.stats.tie_rule.stable_clusters`), else per row."""
    seen = ~np.isnan(y)
    stable = stable_clusters(y[seen]) if seen.any() else None
    if stable is not None:
        codes = np.zeros(y.shape, dtype=np.int64)
        codes[seen] = stable.groups
        return np.broadcast_to(codes, present.shape)
    merged = collapse_near_ties(np.where(present, y, np.nan))
    return dense_ranks(merged, present)


def global_rank_batch(
    codes: np.ndarray, human: np.ndarray, coefficients: tuple[str, ...]
) -> tuple[dict[str, BatchedCorrelation], TiedPairs]:
    """:func:`correlate_batch` at the global level for coefficients with a ``codes`` path on
    a coded metric, and the metric's tied pairs (also when ``coefficients`` is empty).

    ``codes``: integer codes ``(..., n_systems, n_inputs)`` of the metric scores, as for
    :func:`summary_rank_batch`; ``human``: one ``(n_systems, n_inputs)`` matrix, coded by
    its tie groups once where it can be (:func:`_human_codes`). Values are identical to
    :func:`correlate_batch`'s on the scores.
    """
    entries = _with_paths(coefficients, "codes", "global_rank_batch")
    if human.ndim != 2:
        raise ValueError(
            f"global_rank_batch takes one human matrix, got a human array of shape "
            f"{human.shape}: use correlate_batch"
        )
    batch = codes.shape[:-2]
    x = codes.reshape(-1, codes.shape[-2] * codes.shape[-1]).astype(np.int64)
    y = human.reshape(-1)
    rows = x.shape[0]
    present = (x >= 0) & ~np.isnan(y)
    n_items = present.sum(axis=-1)
    size = max(int(x.max()) + 1, 1)
    cell = np.where(present, x, size) + (np.arange(rows) * (size + 1))[:, None]
    counts = np.bincount(cell.ravel(), minlength=rows * (size + 1)).reshape(rows, size + 1)
    counts = counts[:, :size]  # per row and code, present cells only
    ties = TiedPairs((counts * (counts - 1) // 2).sum(axis=-1), n_items * (n_items - 1) // 2)
    code_y = _human_codes(y, present)
    low = np.where(present, code_y, np.iinfo(np.int64).max).min(axis=-1)
    high = np.where(present, code_y, -1).max(axis=-1)
    defined = ((counts > 0).sum(axis=-1) >= 2) & (high > low)
    out = {}
    for entry in entries:
        value = entry.function("codes")(np.maximum(x, 0), code_y, present)
        value = np.where(defined, value, np.nan).reshape(batch)
        out[entry.name] = BatchedCorrelation(
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
    entry = registry.coefficient(coefficient)
    if level.grouped:
        return _summary_level(summary_terms(metric, human, entry.name))
    if entry.codes is not None and level.pooled and _one_shared_human(metric, human):
        return _coded_against_one_human(metric, human, entry)
    metric, human = np.broadcast_arrays(metric, human)
    batch = metric.shape[:-2]
    present = ~(np.isnan(metric) | np.isnan(human))
    n_groups = np.ones(batch, dtype=int)
    if level is Level.SYSTEM:
        counts = present.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.where(present, metric, 0.0).sum(axis=-1) / counts
            y = np.where(present, human, 0.0).sum(axis=-1) / counts
        n_groups = (counts > 0).sum(axis=-1)
    else:
        x = metric.reshape(*batch, -1)
        y = human.reshape(*batch, -1)
    n_items = present.sum(axis=(-2, -1))
    return BatchedCorrelation(vector_terms(entry, x, y).value, n_groups, n_items, None)


def _one_shared_human(metric: np.ndarray, human: np.ndarray) -> bool:
    """Whether a batch of metric matrices faces one human matrix with the same missing cells
    in every batch entry (a permutation test's swaps): the human side can be coded once."""
    if metric.ndim <= 2 or human.shape != metric.shape[-2:]:
        return False
    missing = np.isnan(metric)
    return bool((missing == missing.reshape(-1, *metric.shape[-2:])[0]).all())


def _coded_against_one_human(
    metric: np.ndarray, human: np.ndarray, entry: Coefficient
) -> BatchedCorrelation:
    """Global level of each metric matrix of a batch against one human matrix with the same
    cells present in every entry, by the entry's ``codes`` path: the complete cells' human
    scores merged and coded once, each entry's metric scores merged and coded per entry
    (the values of merging and ranking both every time)."""
    batch = metric.shape[:-2]
    present = ~(
        np.isnan(metric.reshape(-1, metric.shape[-2] * metric.shape[-1])[0])
        | np.isnan(human.ravel())
    )
    y = collapse_near_ties(human.ravel()[present])
    x = collapse_near_ties(metric.reshape(-1, metric.shape[-2] * metric.shape[-1])[:, present])
    everywhere = np.ones(x.shape, dtype=bool)
    code_x = dense_ranks(x, everywhere)
    code_y = np.broadcast_to(dense_ranks(y, everywhere[0]), x.shape)
    value = entry.function("codes")(code_x, code_y, everywhere)
    defined = (code_x.max(axis=-1, initial=0) > 0) & (code_y.max(initial=0) > 0)
    n_items = np.full(batch, int(present.sum()))
    return BatchedCorrelation(
        np.where(defined, value, np.nan).reshape(batch), np.ones(batch, dtype=int), n_items, None
    )


def correlate(
    metric: np.ndarray, human: np.ndarray, level: Level | str, coefficient: str
) -> LevelCorrelation:
    """Correlation of a metric matrix with a human matrix at ``level`` (see module docstring).

    ``metric`` and ``human``: ``(n_systems, n_inputs)``, NaN = missing. ``coefficient``: a
    name of :data:`~geval_repro.stats.registry.COEFFICIENTS`. Returns value, n_groups (inputs
    kept at the summary level, systems correlated at the system level, 1 at the global
    level), n_items (cells used) and, for the summary level, the per-input values (NaN for
    skipped inputs).
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
