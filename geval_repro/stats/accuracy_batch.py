"""Pairwise accuracy (``acc_eq``) and tie-calibrated accuracy (``acc*_eq``, threshold fitted
per matrix) of a BATCH of score matrices against one human matrix: for each matrix the
values of :func:`~geval_repro.stats.accuracy.pairwise_accuracy` and
:func:`~geval_repro.stats.accuracy.tie_calibrated_accuracy` (same pairs, weights, grid codes,
candidate thresholds and smallest-maximizer rule; see :mod:`geval_repro.stats.accuracy`),
equal to them up to floating-point summation order. Levels: ``summary`` (pairs within each
input; the mean over the inputs with pairs of each input's share) and ``global`` (all
complete cells pooled).

Scores come as *codes*: ``codes`` ``(B, n_systems, n_inputs)`` integers, -1 for a missing
score, code ``c`` standing for ``differences.values[c]`` (strictly ascending values no two
of which the tie rule ties, e.g. every item mean a replies-per-item sweep can reach;
:func:`float_accuracies` codes float matrices, their ties merged by the rule first). A
metric difference then depends only on its two codes, so the grid code of every difference
is a table over pairs of codes (:class:`DifferenceCodes`, built once for a set of values),
and the human side of every pair (tied, ordered up, ordered down) is fixed for the whole
batch (:class:`HumanPairs`, built once). Per block of matrices:

1. the codes the block uses are renumbered 1..R in order (0: missing), so the tables below
   have ``(R + 1)**2`` cells;
2. candidate thresholds: 0 and every grid code a human-tied pair reaches in any matrix of
   the block. A candidate that is not one of a matrix's own never beats the largest of its
   own below it (the accuracy can only have fallen since), so each matrix's smallest
   maximizer is the same as over its own candidates;
3. a table over (human side, code, code) gives each pair its *bin*: a human-tied pair the
   index of the smallest candidate >= its grid code, a concordant pair (humans ordered, the
   metric orders it the same way beyond the tie tolerance) the same index shifted past the
   tied pairs' bins, any other pair a sink. Pairs are laid out one offset ``k`` between
   members at a time (strided views of the codes, pairs first and matrices last), and one
   ``bincount`` counts every matrix's bins, weighted by ``1 / (n_pairs(g) * n_groups)``
   when a matrix's inputs have unequal pair counts (summary level with missing scores),
   else unweighted. At the global level, when contingency tables cost less than the pairs
   (:func:`geval_repro.stats.pairs.tables_cheaper`: Topical-Chat's and QAGS's few distinct
   means of annotators, and a block using few codes), the pairs per bin come instead from
   counts per pair of codes: two matrix products per matrix over the items per (human
   rank, code), work ~ ranks x codes^2 instead of ~ pairs (for 360 Topical-Chat items,
   64,620 pairs per matrix);
4. cumulative sums over the bins give, at every candidate, the human-tied pairs the metric
   ties (correct) and the concordant pairs it ties (lost): the accuracy at a candidate is
   ``(concordant - lost + tied) / pairs``; ``acc_eq`` is the one at candidate 0 and
   ``acc*_eq`` the first maximum (exact counts when unweighted, else the first within
   ``SELECTION_ATOL`` of the maximum, as :mod:`geval_repro.stats.accuracy` selects).

Work is at most linear in the batch's pairs (no sort of pairs, no Python loop over matrices
or candidates); blocks of matrices bound memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from geval_repro.stats.accuracy import SELECTION_ATOL, TIE_SCALE, difference_codes
from geval_repro.stats.level import Level
from geval_repro.stats.pairs import offset_signs, tables_cheaper
from geval_repro.stats.ranks import dense_ranks
from geval_repro.stats.tie_rule import collapse_near_ties, merged_columns, stable_clusters

BATCH_LEVELS = (Level.SUMMARY, Level.GLOBAL)
PAIRS_PER_BLOCK = 2**22  # pair entries evaluated per numpy batch (bounds memory)
MAX_TABLE_VALUES = 2048  # distinct values a DifferenceCodes table may hold
TIED, UP, DOWN = 0, 1, 2  # the human side of the pair (member i, member i + k)


class BatchAccuracy(NamedTuple):
    """Per matrix of a batch, ``(B,)``: ``acc_eq``, ``acc*_eq`` and its fitted threshold
    ``epsilon`` (the accuracies NaN where a matrix has no complete pair; epsilon then 0)."""

    acc_eq: np.ndarray
    calibrated: np.ndarray
    epsilon: np.ndarray


@dataclass(frozen=True)
class DifferenceCodes:
    """The grid code of every difference of ``values`` (strictly ascending, finite, no two
    tied by the tie rule, at most :data:`MAX_TABLE_VALUES`): ``grid[a, c]`` is the code of
    ``|values[a] - values[c]|`` (:func:`geval_repro.stats.accuracy.difference_codes`: 0 for
    ``a = c``, else ``|d|`` in units of 1e-9 rounded half to even, at least 1), an
    integer-valued float."""

    values: np.ndarray
    grid: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray) -> DifferenceCodes:
        values = np.asarray(values, dtype=float)
        if values.ndim != 1 or not (np.isfinite(values).all() and np.all(np.diff(values) > 0)):
            raise ValueError("DifferenceCodes needs strictly ascending finite values")
        if values.size > MAX_TABLE_VALUES:
            raise ValueError(
                f"{values.size} values: a difference table holds at most {MAX_TABLE_VALUES}"
            )
        return cls(values, difference_codes(np.abs(values[None, :] - values[:, None]) * TIE_SCALE))


@dataclass(frozen=True)
class HumanPairs:
    """The human side of every pair of members of one human matrix at a level.

    Members lie on axis 0 of ``(n_members, n_groups)``: the systems within each input at the
    summary level, every cell (one group) at the global level, each group's ties merged by
    the tie rule. ``sides[k - 1]`` ``(n_members - k, n_groups)`` int32: the side of the pair
    (member ``i``, member ``i + k``): :data:`TIED` (equal merged scores), :data:`UP` (member
    ``i + k`` scored higher) or :data:`DOWN`; a pair with a missing human score gets any
    side (its members count as missing). ``tied_first`` / ``tied_second``: flat indices
    into the members of the members of each human-tied pair; ``present``: where the human
    score is present; ``human_ranks`` (global level): each item's dense rank of the merged
    scores (-1 missing), ``n_human_ranks`` their number.

    The ties are merged once over the human scores present, which every matrix of a batch
    faces on its own complete cells: that is the rule's merging of each matrix's cells when
    every subset of a group's scores clusters as the whole
    (:func:`~geval_repro.stats.tie_rule.stable_clusters`); scores whose ties chain otherwise
    are refused.
    """

    level: Level
    sides: tuple[np.ndarray, ...]
    tied_first: np.ndarray
    tied_second: np.ndarray
    present: np.ndarray
    human_ranks: np.ndarray | None = None
    n_human_ranks: int = 0

    @classmethod
    def of(cls, human: np.ndarray, level: Level | str) -> HumanPairs:
        """The pairs of ``human`` ``(n_systems, n_inputs)`` at ``level``."""
        level = Level(level)
        if level not in BATCH_LEVELS:
            raise ValueError(
                f"unknown level {level.value!r}: use one of {[str(b) for b in BATCH_LEVELS]}"
            )
        members = _members(np.asarray(human, dtype=float)[None], level)[0]
        for group in members.T:
            present = group[~np.isnan(group)]
            if present.size and stable_clusters(present) is None:
                raise ValueError(
                    "human scores whose ties chain (near-tied values bridging others): a "
                    "matrix's ties would depend on its missing cells; compute the accuracies "
                    "per matrix (geval_repro.stats.accuracy)"
                )
        members = merged_columns(members)
        flat = np.arange(members.size).reshape(members.shape)
        sides, firsts, seconds = [], [], []
        for k in range(1, members.shape[0]):
            signs = offset_signs(members, k)
            tied = (signs == 0) & ~np.isnan(members[k:]) & ~np.isnan(members[:-k])
            sides.append(np.where(tied, TIED, np.where(signs > 0, UP, DOWN)).astype(np.int32))
            firsts.append(flat[:-k][tied])
            seconds.append(flat[k:][tied])
        empty = np.empty(0, dtype=np.intp)
        human_ranks, n_ranks = _human_ranks(members[:, 0]) if level.pooled else (None, 0)
        return cls(
            level,
            tuple(sides),
            np.concatenate(firsts) if firsts else empty,
            np.concatenate(seconds) if seconds else empty,
            ~np.isnan(members),
            human_ranks,
            n_ranks,
        )


def _human_ranks(human: np.ndarray) -> tuple[np.ndarray, int]:
    """Each item's dense rank of the merged human scores (-1 missing) and their number."""
    present = ~np.isnan(human)
    ranks = np.where(present, dense_ranks(human, present), -1)
    return ranks, int(ranks.max(initial=-1)) + 1


def _members(matrices: np.ndarray, level: Level) -> np.ndarray:
    """``(B, n_systems, n_inputs)`` -> ``(B, n_members, n_groups)`` of the level."""
    return matrices if level.grouped else matrices.reshape(matrices.shape[0], -1, 1)


def coded_accuracies(
    codes: np.ndarray, differences: DifferenceCodes, pairs: HumanPairs
) -> BatchAccuracy:
    """``acc_eq``, ``acc*_eq`` and ``epsilon*`` of every matrix of ``codes``
    ``(B, n_systems, n_inputs)`` (-1 missing; code ``c`` stands for
    ``differences.values[c]``) against the human matrix of ``pairs`` (module docstring)."""
    codes = np.asarray(codes)
    if codes.ndim != 3 or codes.dtype.kind not in "iu":
        raise ValueError(f"codes must be an integer (B, n_systems, n_inputs) batch: {codes.shape}")
    members = _members(codes, pairs.level)
    if members.shape[1:] != pairs.present.shape:
        raise ValueError(f"codes {codes.shape} do not match the human matrix of the pairs")
    if codes.size and (codes.max() >= differences.values.size or codes.min() < -1):
        raise ValueError(f"codes must lie in -1..{differences.values.size - 1}")
    n_pairs = pairs.present.size * max(pairs.present.shape[0] - 1, 0) // 2
    per_block = max(1, PAIRS_PER_BLOCK // max(n_pairs, 1))
    parts = [
        _block(members[start : start + per_block], differences.grid, pairs)
        for start in range(0, members.shape[0], per_block)
    ] or [BatchAccuracy(np.empty(0), np.empty(0), np.empty(0))]
    return BatchAccuracy(*(np.concatenate(p) for p in zip(*parts, strict=True)))


def _merged(metric: np.ndarray, level: Level) -> np.ndarray:
    """Matrices ``(B, n_systems, n_inputs)`` with each group's ties merged by the tie rule
    (each input's systems at the summary level, every cell at the global level)."""
    if level.grouped:
        return merged_columns(metric)
    return collapse_near_ties(metric.reshape(metric.shape[0], -1)).reshape(metric.shape)


def float_accuracies(metric: np.ndarray, pairs: HumanPairs) -> BatchAccuracy:
    """:func:`coded_accuracies` of float matrices ``(B, n_systems, n_inputs)`` (NaN missing):
    each matrix's ties merged by the tie rule, the batch coded by its distinct values,
    split in halves while they are more than a :class:`DifferenceCodes` table holds (one
    matrix must fit: at most one value per cell)."""
    metric = _merged(np.asarray(metric, dtype=float), pairs.level)
    values, inverse = np.unique(metric, return_inverse=True)
    present = ~np.isnan(values)
    if np.count_nonzero(present) > MAX_TABLE_VALUES and metric.shape[0] > 1:
        half = metric.shape[0] // 2
        parts = (float_accuracies(metric[:half], pairs), float_accuracies(metric[half:], pairs))
        return BatchAccuracy(*(np.concatenate(p) for p in zip(*parts, strict=True)))
    codes = np.where(present[inverse], inverse, -1).reshape(metric.shape)
    return coded_accuracies(codes, DifferenceCodes.of(values[present]), pairs)


def _block(members: np.ndarray, grid: np.ndarray, pairs: HumanPairs) -> BatchAccuracy:
    """:func:`coded_accuracies` of one block ``(B, n_members, n_groups)`` of codes."""
    batch = members.shape[0]
    complete = (members >= 0) & pairs.present
    counted = complete.sum(axis=1)  # (B, n_groups)
    group_pairs = counted * (counted - 1) // 2
    pair_total = group_pairs.sum(axis=1)

    # 1. The codes the block uses, renumbered 1..R in order (0: missing, or no human score).
    shifted = np.where(complete, members, -1) + 1
    seen = np.zeros(grid.shape[0] + 1, dtype=bool)
    seen[shifted.ravel()] = True
    seen[0] = True
    used = np.flatnonzero(seen[1:])
    local = (np.cumsum(seen, dtype=np.int32) - 1)[shifted]  # (B, n_members, n_groups)
    width = used.size + 1
    local_grid = np.full((width, width), -1.0)  # -1: a member missing
    local_grid[1:, 1:] = grid[np.ix_(used, used)]

    # 2.-3. Candidates and each matrix's count of tied and concordant pairs per bin.
    n_items = pairs.present.shape[0]
    tables = (pairs.n_human_ranks + 2) * width * width
    if pairs.human_ranks is not None and tables_cheaper(n_items, tables):
        counts, candidates = _counts_from_tables(local[:, :, 0], local_grid, pairs)
        weights = None
    else:
        counts, candidates, weights = _counts_from_pairs(local, local_grid, group_pairs, pairs)
    norm = pair_total.astype(float) if weights is None else np.ones(batch)

    # 4. The accuracy at every candidate: acc_eq at 0, acc*_eq at the first maximum.
    n_bins = candidates.size + 1
    sink = 2 * n_bins
    tied_correct = np.cumsum(counts[:, : n_bins - 1], axis=1)
    concordant_lost = np.cumsum(counts[:, n_bins : 2 * n_bins - 1], axis=1)
    correct = counts[:, n_bins:sink].sum(axis=1, keepdims=True) - concordant_lost + tied_correct
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = correct / norm[:, None]
    if weights is None:
        pick = np.argmax(correct, axis=1)  # exact counts: the first maximum
    else:
        pick = np.argmax(accuracy >= accuracy.max(axis=1, keepdims=True) - SELECTION_ATOL, axis=1)
    defined = pair_total > 0
    return BatchAccuracy(
        np.where(defined, accuracy[:, 0], np.nan),
        np.where(defined, accuracy[np.arange(batch), pick], np.nan),
        np.where(defined, candidates[pick] / TIE_SCALE, 0.0),
    )


def _cell_bins(local_grid: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``(3, R + 1, R + 1)``: the bin of a pair by its human side and its two codes (the
    first member's, the second's): the index of the smallest candidate >= its grid code
    for a human-tied pair, that index past the tied bins for a concordant pair (humans and
    metric ordered alike, beyond the tie tolerance), else the sink ``2 * (candidates + 1)``."""
    width = local_grid.shape[0]
    n_bins = candidates.size + 1
    sink = 2 * n_bins
    bins = np.searchsorted(candidates, local_grid).astype(np.int32)
    first, second = np.indices((width, width))
    apart = local_grid >= 1  # both present, and beyond the tie tolerance
    table = np.full((3, width, width), sink, dtype=np.int32)
    table[TIED] = np.where(local_grid >= 0, bins, sink)
    table[UP] = np.where(apart & (second > first), n_bins + bins, sink)
    table[DOWN] = np.where(apart & (second < first), n_bins + bins, sink)
    return table


def _counts_from_pairs(
    local: np.ndarray, local_grid: np.ndarray, group_pairs: np.ndarray, pairs: HumanPairs
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each matrix's (weighted) pairs per bin ``(B, sink + 1)``, the candidates and the pair
    weights (None: every pair of a matrix weighs the same), counting every pair: its cell
    of the bin table, one offset between members at a time, then one ``bincount``."""
    batch, width = local.shape[0], local_grid.shape[0]
    flat = local.reshape(batch, -1)
    tied_cells = flat[:, pairs.tied_first] * width + flat[:, pairs.tied_second]
    reached = np.bincount(tied_cells.ravel(), minlength=width * width).reshape(width, width) > 0
    candidates = np.union1d(local_grid[reached & (local_grid >= 0)], [0.0])
    table = _cell_bins(local_grid, candidates)
    sink = table.max()
    n_pairs = sum(side.size for side in pairs.sides)
    cells = np.empty((n_pairs, batch), dtype=np.int32)  # pairs first: one block per offset
    by_member = np.ascontiguousarray(np.moveaxis(local, 0, -1))  # (n_members, n_groups, B)
    first_part = by_member * np.int32(width)
    start = 0
    for k, side in enumerate(pairs.sides, start=1):
        view = cells[start : start + side.size].reshape(*side.shape, batch)
        np.add(first_part[:-k], by_member[k:], out=view)
        view += (side * np.int32(width * width))[..., None]
        start += side.size
    pair_bins = table.ravel().take(cells)
    pair_bins += np.arange(batch, dtype=np.int32) * np.int32(sink + 1)

    kept = group_pairs > 0
    if bool(((group_pairs == group_pairs.max(axis=1, keepdims=True)) | ~kept).all()):
        weights = None  # equal weights within each matrix
    else:  # unequal pair counts: a pair of input g weighs 1 / (n_pairs(g) * n_groups)
        with np.errstate(divide="ignore"):
            per_pair = np.where(kept, 1.0 / group_pairs, 0.0)
        per_pair /= np.maximum(kept.sum(axis=1), 1)[:, None]
        weights = np.concatenate(
            [np.broadcast_to(per_pair.T, (*side.shape, batch)).ravel() for side in pairs.sides]
        )
    counts = np.bincount(pair_bins.ravel(), weights, minlength=batch * (sink + 1))
    return counts.reshape(batch, sink + 1), candidates, weights


def _counts_from_tables(
    codes: np.ndarray, local_grid: np.ndarray, pairs: HumanPairs
) -> tuple[np.ndarray, np.ndarray]:
    """The global level's pairs per bin ``(B, sink + 1)`` and the candidates, from counts
    per pair of codes instead of the pairs themselves.

    ``codes`` ``(B, n_items)`` renumbered (0: missing). With ``N[y, a]`` the items of human
    rank ``y`` and code ``a``: the human-tied pairs of codes ``a < c`` number
    ``sum_y N[y, a] N[y, c]`` (``a = c``: ``sum_y N[y, a] (N[y, a] - 1) / 2``), and the pairs
    whose lower-human item has code ``a`` and higher-human item code ``c`` number
    ``sum_y N[y, a] * #{items of code c above rank y}``: two matrix products per matrix;
    exact integer counts (in floats).
    """
    batch, width = codes.shape[0], local_grid.shape[0]
    n_ranks, ranks = pairs.n_human_ranks, pairs.human_ranks
    present = ranks >= 0
    cell = (np.arange(batch)[:, None] * n_ranks + ranks[present]) * width + codes[:, present]
    per_rank = np.bincount(cell.ravel(), minlength=batch * n_ranks * width)
    per_rank = per_rank.reshape(batch, n_ranks, width).astype(float)
    per_rank[:, :, 0] = 0.0  # missing scores pair with nothing
    above = np.cumsum(per_rank[:, ::-1], axis=1)[:, ::-1] - per_rank  # higher human ranks
    by_code = per_rank.transpose(0, 2, 1)
    same = by_code @ per_rank  # (B, a, c): ordered pairs of items of one human rank
    ordered = by_code @ above  # (B, a, c): lower-human item a, higher-human item c
    tied = np.triu(same, 1)
    diagonal = np.arange(width)
    tied[:, diagonal, diagonal] = (same[:, diagonal, diagonal] - per_rank.sum(axis=1)) / 2
    reached = tied.any(axis=0) & (local_grid >= 0)
    candidates = np.union1d(local_grid[reached], [0.0])
    table = _cell_bins(local_grid, candidates)
    sink = int(table.max())
    bins = np.concatenate([table[TIED].ravel(), table[UP].ravel()])  # tied a <= c; a < c up
    counted = np.concatenate([tied.reshape(batch, -1), ordered.reshape(batch, -1)], axis=1)
    order = np.argsort(bins, kind="stable")
    starts = np.flatnonzero(np.diff(bins[order], prepend=-1))
    counts = np.zeros((batch, sink + 1))
    counts[:, bins[order][starts]] = np.add.reduceat(counted[:, order], starts, axis=1)
    return counts, candidates
