"""Permuted correlations at the summary and global levels from per-item terms, without
building any swapped matrix: the generic part of the coefficients' ``swaps`` paths
(:mod:`geval_repro.stats.swapped_sums` has each coefficient's sums).

A resample swaps the A and B scores of some cells; ``s_i`` is 1 where item ``i`` is swapped,
so ``A'_i = B_i if s_i else A_i`` and ``B'_i = A_i if s_i else B_i``. Items are arranged in
groups (:func:`grouped`), the vectors a level correlates: one group of every cell at the
global level, one group per input (its systems) at the summary level. Per group, the
coefficient's path gives each resample's correlation of A' and of B'; then the level rules:

- **Constant vectors** (the tie rule, :func:`~geval_repro.stats.tie_rule.constant`): A'
  spans at least ``max_i min(A_i, B_i) - min_i max(A_i, B_i)``; when that exceeds what one
  cluster of the group's values can span no resample is constant, else the group's swapped
  vectors are tested per resample (:func:`swapped_varies`).
- **Levels**: global, the one group's value; summary, the mean over the kept inputs (at
  least 2 complete pairs, neither vector constant) in the order
  :mod:`geval_repro.stats.levels` sums them (:func:`level_value`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from geval_repro.stats.level import Level
from geval_repro.stats.levels import kept_mean
from geval_repro.stats.registry import Coefficient
from geval_repro.stats.swapped_sums import GroupScores, SwapPath
from geval_repro.stats.tie_rule import RTOL, collapse_near_ties, constant


def grouped(matrix: np.ndarray, level: Level | str) -> np.ndarray:
    """``(n_groups, group_size)``: the vectors the level correlates (global, every cell in
    row-major order; summary, each input's systems). Missing cells stay NaN."""
    return matrix.reshape(1, -1) if Level(level).pooled else np.ascontiguousarray(matrix.T)


def grouped_swaps(swap: np.ndarray, shape: tuple[int, int], level: Level | str) -> np.ndarray:
    """``(n_groups, n_resamples, group_size)`` swap indicators of the :func:`grouped`
    items, from masks broadcastable to ``(n_resamples, *shape)``."""
    swap = np.broadcast_to(swap, (swap.shape[0], *shape))
    if Level(level).pooled:
        return swap.reshape(1, swap.shape[0], -1)
    return np.ascontiguousarray(swap.transpose(2, 0, 1))


def swapped_varies(
    a: np.ndarray, b: np.ndarray, complete: np.ndarray, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether A' and B' are not constant over each group's complete items, ``(G, R)``
    each (module docstring)."""
    lower = np.where(complete, np.minimum(a, b), -np.inf).max(axis=-1)
    upper = np.where(complete, np.maximum(a, b), np.inf).min(axis=-1)
    largest = np.where(complete, np.maximum(np.abs(a), np.abs(b)), 0.0).max(axis=-1)
    count = complete.sum(axis=-1)
    apart = lower - upper >= (count - 1) * RTOL * largest * (1 + 1e-6)
    varies = [np.ones(swaps.shape[:2], dtype=bool) for _ in range(2)]
    unsure = np.flatnonzero(~apart)
    if unsure.size:
        s, present = swaps[unsure], complete[unsure][:, None, :]
        x_a, x_b = a[unsure][:, None, :], b[unsure][:, None, :]
        present = np.broadcast_to(present, s.shape)
        for flags, swapped in zip(
            varies, (np.where(s, x_b, x_a), np.where(s, x_a, x_b)), strict=True
        ):
            flags[unsure] = ~constant(np.where(present, swapped, np.nan), present)
    return varies[0], varies[1]


class GroupTerms(NamedTuple):
    """What a coefficient's path needs of each group, computed once per test: the
    :class:`~geval_repro.stats.swapped_sums.GroupScores`, the path and its ``terms``, and
    ``human_varies`` (the human vector is not constant)."""

    scores: GroupScores
    path: SwapPath
    terms: Any
    human_varies: np.ndarray


def group_terms(
    entry: Coefficient, a: np.ndarray, b: np.ndarray, human: np.ndarray
) -> GroupTerms | None:
    """:class:`GroupTerms` of grouped ``(G, m)`` scores, or None when the entry has no
    ``swaps`` path or its path none for these groups."""
    path = entry.function("swaps")
    if path is None:
        return None
    complete = ~(np.isnan(a) | np.isnan(human))
    gold = np.where(complete, human, np.nan)
    ranked = collapse_near_ties(gold) if entry.rank_based else gold
    scores = GroupScores(a, b, gold, ranked, complete, complete.sum(axis=-1))
    terms = path.terms(scores)
    if terms is None:
        return None
    return GroupTerms(scores, path, terms, ~constant(gold, complete))


def level_value(
    terms: GroupTerms, r: np.ndarray, varies: np.ndarray, level: Level | str
) -> np.ndarray:
    """The level's value per resample from its groups' values ``(G, R)``: global, the one
    group's (NaN unless both vectors vary); summary, :func:`kept_mean`."""
    kept = varies & terms.human_varies[:, None] & (terms.scores.n >= 2)[:, None]
    if Level(level).pooled:
        return np.where(kept[0], r[0], np.nan)
    kept = np.ascontiguousarray(kept.T)
    return kept_mean(np.where(kept, np.ascontiguousarray(r.T), 0.0), kept.sum(axis=-1))


def swapped_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    entry: Coefficient,
    swap: np.ndarray,
) -> np.ndarray | None:
    """``corr(A') - corr(B')`` per swap mask at the global or summary level (``swap``
    broadcastable to ``(n_resamples, n_systems, n_inputs)``), or None where the entry has
    no fast path (:func:`group_terms`). A rank coefficient's scores are compared exactly:
    pass the tie rule's codes."""
    terms = group_terms(
        entry, grouped(metric_a, level), grouped(metric_b, level), grouped(human, level)
    )
    if terms is None:
        return None
    n_resamples = swap.shape[0]
    block = max(1, terms.path.cells_per_block // metric_a.size)
    differences = np.empty(n_resamples)
    scores = terms.scores
    for start in range(0, n_resamples, block):
        swaps = grouped_swaps(swap[start : start + block], metric_a.shape, level)
        with np.errstate(invalid="ignore", divide="ignore"):
            r_a, r_b = terms.path.correlations(terms.terms, scores, swaps)
        varies_a, varies_b = swapped_varies(scores.a, scores.b, scores.complete, swaps)
        differences[start : start + block] = level_value(terms, r_a, varies_a, level) - (
            level_value(terms, r_b, varies_b, level)
        )
    return differences
