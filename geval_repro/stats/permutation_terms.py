"""Permuted correlations from per-item terms: the fast paths of
:func:`~geval_repro.stats.permutation.permuted_differences`.

A resample swaps the A and B scores of some cells; ``s_i`` is 1 where item ``i`` is swapped,
so ``A'_i = B_i if s_i else A_i`` and ``B'_i = A_i if s_i else B_i``. Items are arranged in
groups (:func:`grouped`), the vectors a level correlates: one group of every cell at the
global level, one group per input (its systems) at the summary level. For each group and
resample:

- **Pearson.** With ``m = (A + B) / 2``, ``d = (A - B) / 2`` and ``t = 1 - 2 s`` (so ``A' = m
  + t d``, ``B' = m - t d``), and ``mc``, ``hc`` the group's centred ``m`` and human scores:
  ``Sxx(A') = sum(mc^2 + d^2) + 2 t.(mc d) - (t.d)^2 / n``, ``Sxy(A') = sum(mc hc) + t.(d
  hc)``, and the same with ``-t`` for B'. Three sums ``t.z`` per resample: one ``(resamples x
  n) @ (n x 3)`` product per group, then ``r = Sxy / (sqrt(Sxx) sqrt(Syy))``. Equal to
  recomputing within rounding (1e-12 on scores of comparable scale, as the test's
  standardized ones; the error grows with ``(mean(A) - mean(B))^2 / var``).
- **Spearman, Kendall.** Through :mod:`geval_repro.stats.swapped_ranks`: A and B pooled
  and labelled once, so that labels order and tie like the scores after the levels'
  near-tie merging (values whose merging depends on the resample are merged per resample).
  Spearman: each resample's count of every label and sum of its items' centred human ranks
  (one sparse product) give ``Sxy`` and the tie groups' ``sum (t^3 - t)``, so ``Sxx = (n^3 -
  n - sum (t^3 - t)) / 12``. Kendall: concordant minus discordant pairs are a quadratic form
  in the swaps (one ``(R x n) @ (n x n)`` product), tied pairs ``sum c (c - 1) / 2`` from
  each resample's counts ``c`` of the labels two items can share. These sums are exact
  integers, so the coefficients are the floats :mod:`geval_repro.stats.coefficients`
  computes from the same sums (``rho = Sxy / (sqrt(Sxx) sqrt(Syy))``, ``tau = C /
  (sqrt(untied_x) sqrt(untied_y))``): bit for bit.
- **Constant vectors.** A' spans at least ``max_i min(A_i, B_i) - min_i max(A_i, B_i)``: when
  that is ``CONSTANT_ATOL`` or more no resample is constant, else the group's resampled
  spans are computed as the levels do (``max - min`` of the present values).

Levels: global, the one group's value; summary, the mean over the kept inputs (at least 2
complete pairs, neither vector constant) in the order :mod:`geval_repro.stats.levels` sums
them; system with whole systems swapped, each resample's means are the two metrics' means
(:func:`system_differences`), and with other units, for Pearson, the means are sums of the
swapped differences.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats.coefficients import collapse_near_ties, dense_ranks
from geval_repro.stats.level import Level
from geval_repro.stats.levels import CONSTANT_ATOL, NEAR_TIE_RTOL, correlate_batch, kept_mean
from geval_repro.stats.pairwise import collapsed_columns
from geval_repro.stats.swapped_ranks import (
    ChainTerms,
    LabelCounts,
    SharedLabels,
    SignForm,
    TieStructure,
    chain_corrections,
    chain_terms,
    evaluate_form,
    label_counts,
    shared_counts,
    shared_labels,
    sign_form,
    spearman_sums,
    tie_structure,
)

FORM_MAX_ITEMS = 2048  # Kendall: larger groups' n x n forms cost more than re-ranking
CELLS_PER_BLOCK = 2**21  # swapped cells per block of resamples (bounds memory)
RANK_CELLS_PER_BLOCK = 2**17  # the rank paths' many temporaries stay in cache


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


def swapped_span_flags(
    a: np.ndarray, b: np.ndarray, complete: np.ndarray, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether A' and B' span at least ``CONSTANT_ATOL`` over each group's complete items,
    ``(G, R)`` each (see the module docstring)."""
    lower = np.where(complete, np.minimum(a, b), -np.inf).max(axis=-1)
    upper = np.where(complete, np.maximum(a, b), np.inf).min(axis=-1)
    varies = [np.ones(swaps.shape[:2], dtype=bool) for _ in range(2)]
    unsure = np.flatnonzero(~(lower - upper >= CONSTANT_ATOL))
    if unsure.size:
        s, present = swaps[unsure], complete[unsure][:, None, :]
        x_a, x_b = a[unsure][:, None, :], b[unsure][:, None, :]
        for flags, swapped in zip(
            varies, (np.where(s, x_b, x_a), np.where(s, x_a, x_b)), strict=True
        ):
            high = np.where(present, swapped, -np.inf).max(axis=-1)
            low = np.where(present, swapped, np.inf).min(axis=-1)
            flags[unsure] = high - low >= CONSTANT_ATOL
    return varies[0], varies[1]


class PearsonTerms(NamedTuple):
    """Pearson's per-item terms ``z`` ``(G, m, 3)`` (``d``, ``mc d``, ``d hc``) and the
    group constants ``(G, 3)``: ``sum(mc^2 + d^2)``, ``sum(mc hc)``, ``sum(hc^2)``."""

    items: np.ndarray
    constants: np.ndarray


class RankTerms(NamedTuple):
    """A rank coefficient's labels and near-tie chains, its sums (Kendall: the sign form and
    the shared labels; Spearman: the label counts) and ``pairs`` ``(G,)``: Kendall's untied
    human pairs or Spearman's ``Syy``."""

    structure: TieStructure
    chains: ChainTerms | None
    pairs: np.ndarray
    form: SignForm | None
    ties: SharedLabels | None
    counts: LabelCounts | None


class GroupTerms(NamedTuple):
    """What a coefficient's fast path needs of each group, computed once per test: the
    grouped scores ``a``, ``b`` ``(G, m)``, ``complete`` (metric and human present), ``n``
    ``(G,)`` complete items, ``human_varies`` (the human scores span ``CONSTANT_ATOL`` or
    more), and the coefficient's terms."""

    coefficient: str
    a: np.ndarray
    b: np.ndarray
    complete: np.ndarray
    n: np.ndarray
    human_varies: np.ndarray
    terms: PearsonTerms | RankTerms


def pearson_terms(
    a: np.ndarray, b: np.ndarray, human: np.ndarray, complete: np.ndarray
) -> PearsonTerms:
    """:class:`PearsonTerms` of grouped scores (see the module docstring)."""
    n = complete.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = np.where(complete, (a + b) / 2, 0.0)
        half = np.where(complete, (a - b) / 2, 0.0)
        gold = np.where(complete, human, 0.0)
        mc = np.where(complete, mid - mid.sum(axis=-1, keepdims=True) / n, 0.0)
        hc = np.where(complete, gold - gold.sum(axis=-1, keepdims=True) / n, 0.0)
    constants = [(mc * mc + half * half).sum(-1), (mc * hc).sum(-1), (hc * hc).sum(-1)]
    return PearsonTerms(np.stack([half, mc * half, half * hc], axis=-1), np.stack(constants, -1))


def rank_terms(
    a: np.ndarray,
    b: np.ndarray,
    ranked: np.ndarray,
    complete: np.ndarray,
    chained: np.ndarray,
    coefficient: str,
) -> RankTerms | None:
    """:class:`RankTerms` of grouped scores: ``ranked``, the human scores with near-ties
    merged as the level merges them; ``chained``, the items whose scores the level's
    near-tie merging sees (its complete items or every item with a metric score). None
    when :func:`~geval_repro.stats.swapped_ranks.tie_structure` is."""
    m = a.shape[-1]
    structure = tie_structure(
        np.concatenate([np.where(chained, a, np.nan), np.where(chained, b, np.nan)], axis=-1)
    )
    if structure is None:
        return None
    labels_a, labels_b = structure.labels[:, :m], structure.labels[:, m:]
    rank = np.where(complete, dense_ranks(ranked, complete), 0)
    n_ranks = int(rank.max(initial=0)) + 1
    offsets = np.arange(rank.shape[0])[:, None] * n_ranks
    counts = np.bincount((offsets + rank)[complete], minlength=rank.shape[0] * n_ranks)
    counts = counts.reshape(rank.shape[0], n_ranks)
    lower = np.take_along_axis(np.cumsum(counts, axis=-1) - counts, rank, axis=-1)
    equal = np.take_along_axis(counts, rank, axis=-1)
    n = complete.sum(axis=-1, keepdims=True)
    centred = np.where(complete, 2 * lower + equal - n, 0)  # sum_j sign(y_i - y_j)
    loose = structure.loose
    item = None if loose is None else (loose.group, loose.slot % m)
    if coefficient == "kendall":
        chains = None
        if loose is not None:
            chains = chain_terms(loose, complete[item], rank=rank[item])
        both = complete[:, :, None] & complete[:, None, :]
        weights = np.where(
            both,
            (rank[:, :, None] > rank[:, None, :]).view(np.int8)
            - (rank[:, :, None] < rank[:, None, :]).view(np.int8),
            0,
        )
        untied = n[:, 0] * (n[:, 0] - 1) // 2 - (counts * (counts - 1) // 2).sum(axis=-1)
        return RankTerms(
            structure,
            chains,
            untied.astype(float),
            sign_form(labels_a, labels_b, weights),
            shared_labels(labels_a, labels_b, complete),
            None,
        )
    chains = None if loose is None else chain_terms(loose, complete[item], centred=centred[item])
    return RankTerms(
        structure,
        chains,
        (centred * centred).sum(axis=-1) / 4,  # Syy
        None,
        None,
        label_counts(labels_a, labels_b, complete, centred),
    )


def group_terms(
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    ranked: np.ndarray,
    coefficient: str,
    chained: str,
) -> GroupTerms | None:
    """:class:`GroupTerms` of grouped ``(G, m)`` scores, or None when a rank coefficient has
    no fast path (Kendall's groups too large for its forms, or see :func:`rank_terms`).

    ``ranked``: the human scores with near-ties merged as the level merges them;
    ``chained``: which items the level's near-tie merging of the metric sees, "complete" or
    "present" (every item with a metric score).
    """
    complete = ~(np.isnan(a) | np.isnan(human))
    span = np.where(complete, human, -np.inf).max(axis=-1) - np.where(complete, human, np.inf).min(
        axis=-1
    )
    if coefficient == "pearson":
        terms = pearson_terms(a, b, human, complete)
    elif coefficient == "kendall" and a.shape[-1] > FORM_MAX_ITEMS:
        return None
    else:
        seen = complete if chained == "complete" else ~np.isnan(a)
        terms = rank_terms(a, b, ranked, complete, seen, coefficient)
        if terms is None:
            return None
    return GroupTerms(
        coefficient, a, b, complete, complete.sum(axis=-1), span >= CONSTANT_ATOL, terms
    )


def group_correlations(
    terms: GroupTerms, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(r_a, r_b, varies_a, varies_b)`` ``(G, R)``: each group's correlation of A' and B'
    with the human scores (NaN where the coefficient is undefined) and whether A', B' span
    ``CONSTANT_ATOL`` or more, for swap indicators ``(G, R, m)``."""
    varies_a, varies_b = swapped_span_flags(terms.a, terms.b, terms.complete, swaps)
    n = terms.n[:, None].astype(float)
    values = []
    with np.errstate(invalid="ignore", divide="ignore"):
        if terms.coefficient == "pearson":
            z, constants = terms.terms
            signed = z.sum(axis=-2)[:, None, :] - 2.0 * (swaps.astype(np.float64) @ z)
            spread, cross, syy = (c[:, None] for c in constants.T)
            shift = signed[..., 0] ** 2 / n
            for sign in (1.0, -1.0):
                sxx = spread + sign * 2.0 * signed[..., 1] - shift
                sxy = cross + sign * signed[..., 2]
                values.append(np.clip(sxy / (np.sqrt(sxx) * np.sqrt(syy)), -1.0, 1.0))
            return values[0], values[1], varies_a, varies_b
        rank = terms.terms
        corrections = [(0.0, 0.0), (0.0, 0.0)]
        if rank.structure.loose is not None:
            corrections = chain_corrections(
                rank.structure.loose, rank.chains, swaps, terms.a.shape[0]
            )
        other = rank.pairs[:, None]
        if terms.coefficient == "kendall":
            forms = evaluate_form(rank.form, swaps)
            counts = shared_counts(rank.ties, swaps)
            for f, c, (df, dt) in zip(forms, counts, corrections, strict=True):
                untied = n * (n - 1) / 2 - ((c * (c - 1) / 2).sum(axis=-1) + dt)
                tau = ((f + df) / 2) / (np.sqrt(untied) * np.sqrt(other))
                undefined = (untied == 0) | (other == 0)
                values.append(np.where(undefined, np.nan, np.minimum(np.maximum(tau, -1.0), 1.0)))
        else:
            for (f, t), (df, dt) in zip(
                spearman_sums(rank.counts, swaps), corrections, strict=True
            ):
                sxx = (n**3 - n - (t + dt)) / 12
                rho = ((f + df) / 8) / (np.sqrt(sxx) * np.sqrt(other))
                undefined = (sxx == 0) | (other == 0)
                values.append(np.where(undefined, np.nan, np.clip(rho, -1.0, 1.0)))
    return values[0], values[1], varies_a, varies_b


def ranked_human(
    human: np.ndarray, metric: np.ndarray, level: Level | str, coefficient: str
) -> np.ndarray:
    """The human matrix with near-ties merged as the level's rank path merges them: global
    Kendall over every human score, global Spearman over the complete cells, summary per
    input (column)."""
    if Level(level).grouped:
        return collapsed_columns(human, NEAR_TIE_RTOL)
    flat = human.ravel()
    if coefficient == "kendall":
        return collapse_near_ties(flat, NEAR_TIE_RTOL).reshape(human.shape)
    complete = ~(np.isnan(flat) | np.isnan(metric.ravel()))
    merged = flat.copy()
    merged[complete] = collapse_near_ties(flat[complete], NEAR_TIE_RTOL)
    return merged.reshape(human.shape)


def swapped_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: str,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray | None:
    """``corr(A') - corr(B')`` per swap mask at the global or summary level (``swap``
    broadcastable to ``(n_resamples, n_systems, n_inputs)``), or None where no fast path
    applies (see :func:`group_terms`)."""
    y = human if coefficient == "pearson" else ranked_human(human, metric_a, level, coefficient)
    terms = group_terms(
        grouped(metric_a, level),
        grouped(metric_b, level),
        grouped(human, level),
        grouped(y, level),
        coefficient,
        "complete" if (level, coefficient) == ("global", "spearman") else "present",
    )
    if terms is None:
        return None
    n_resamples = swap.shape[0]
    cells = CELLS_PER_BLOCK if coefficient == "pearson" else RANK_CELLS_PER_BLOCK
    block = max(1, cells // metric_a.size)
    differences = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        swaps = grouped_swaps(swap[start : start + block], metric_a.shape, level)
        r_a, r_b, varies_a, varies_b = group_correlations(terms, swaps)
        differences[start : start + block] = level_value(terms, r_a, varies_a, level) - (
            level_value(terms, r_b, varies_b, level)
        )
    return differences


def level_value(
    terms: GroupTerms, r: np.ndarray, varies: np.ndarray, level: Level | str
) -> np.ndarray:
    """The level's value per resample from its groups' values ``(G, R)``: global, the one
    group's (NaN unless both vectors vary); summary, :func:`kept_mean`."""
    kept = varies & terms.human_varies[:, None] & (terms.n >= 2)[:, None]
    if Level(level).pooled:
        return np.where(kept[0], r[0], np.nan)
    kept = np.ascontiguousarray(kept.T)
    return kept_mean(np.where(kept, np.ascontiguousarray(r.T), 0.0), kept.sum(axis=-1))


def system_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray | None:
    """System level: ``corr(A') - corr(B')`` per swap mask from the systems' means, or None
    where no fast path applies (rank coefficients with cells or inputs swapped).

    With whole systems swapped (``swap`` ``(R, n_systems, 1)``) a swapped system's means are
    the other metric's, summed as the level sums them: the same values as recomputing.
    Otherwise, for Pearson, a system's sum over its complete cells is A's sum plus the
    swapped cells' ``B - A`` (one product; means within rounding of recomputing).
    Each resample's means then go through the level's rule as ``(n_systems, 1)`` matrices,
    whose system means are themselves.
    """
    complete = ~(np.isnan(metric_a) | np.isnan(human))
    counts = complete.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = [np.where(complete, m, 0.0).sum(axis=-1) for m in (metric_a, metric_b)]
        mean_a, mean_b = (s / counts for s in sums)
        mean_human = np.where(complete, human, 0.0).sum(axis=-1) / counts
        if swap.shape[-1] == 1:
            rows = np.broadcast_to(swap[..., 0], (swap.shape[0], metric_a.shape[0]))
            x_a, x_b = np.where(rows, mean_b, mean_a), np.where(rows, mean_a, mean_b)
        elif coefficient == "pearson":
            change = np.where(complete, metric_b - metric_a, 0.0)
            swapped = (np.broadcast_to(swap, (swap.shape[0], *metric_a.shape)) * change).sum(-1)
            x_a, x_b = (sums[0] + swapped) / counts, (sums[1] - swapped) / counts
        else:
            return None
    y = mean_human[:, None]
    return (
        correlate_batch(x_a[..., None], y, "system", coefficient).value
        - correlate_batch(x_b[..., None], y, "system", coefficient).value
    )
