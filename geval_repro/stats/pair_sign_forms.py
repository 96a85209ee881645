"""Spearman's and Kendall's pair sums of swapped scores as quadratic forms in the swaps.

Setting: groups ``(G, m)`` of items (one group per vector a level correlates), each item
with two scores, A's and B's; swap indicators ``s`` ``(G, R, m)`` (1 = swapped) pick, for
each of ``R`` resamples, ``x'_i = B_i if s_i else A_i`` (and B' the other one). Scores are
compared through integer *labels* that order and tie like them after
:func:`~geval_repro.stats.coefficients.collapse_near_ties` (the levels' near-tie rule).

- :func:`tie_structure`: labels of the pooled A and B scores. Sorted neighbours ``u < v``
  are near-tied when ``v - u < rtol max(|u|, |v|)``; chains of near-ties merge. A *block*
  is a run of pooled values whose neighbours are closer than twice that tolerance (or
  equal). A tight block (``max - min < rtol min(|max|, |min|) / 2``) is one tie group in
  every subset; values of different blocks never merge (the factors 2 absorb rounding).
  Other blocks are *loose*: which of their values merge depends on the values a resample
  picks (a chain can lose the value that bridged it), so their values get one label per
  distinct value and :func:`chain_corrections` merges them per resample.
- :func:`sign_form`: ``F(s) = sum_{i != j} W_ij sign(x'_i - x'_j)`` for antisymmetric
  weights ``W``. A pair's sign over its four swap cases is ``g00 + s_i (g10 - g00) + s_j
  (g01 - g00) + s_i s_j (g11 - g10 - g01 + g00)`` (``g^pq_ij = sign(v^p_i - v^q_j)``, ``v^0``
  A's labels, ``v^1`` B's); summed with the weights the two linear terms are equal, so ``F =
  C + 2 s.l + s'E s`` with ``E`` symmetric, and ``2 s.l`` moves onto its diagonal
  (``s_i^2 = s_i``). :func:`evaluate_form`: one ``(R x m) @ (m x m)`` product per group;
  B' is ``F(1 - s) = C + 1'E1 - 2 s'E1 + s'E s`` from the same product.
- :func:`tie_levels`, :func:`tie_counts`: each resample's count of every label two or more
  items can share (one ``(R x m) @ (m x k)`` product).
- :func:`chain_corrections`: per resample, the near-tie chains of the loose blocks' picked
  values (the float test of ``collapse_near_ties`` on each pair of consecutive picked values)
  and what merging them changes: the forms counted ``2 W_ij`` for a merged pair ``i``
  (larger value) and ``j``, and the tie counts missed it.

Every sum is an integer, exact in float32 below 2^24 and in float64 (up to 2^53) otherwise.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats.levels import NEAR_TIE_RTOL

FLOAT32_EXACT = 2**24  # integers below this add exactly in float32
MERGE_ROWS_PER_BLOCK = 512  # loose entries whose merges are tested per numpy batch


class LooseEntries(NamedTuple):
    """The pooled values in loose blocks, flat, sorted by group then value ``(q,)``:
    ``group``; ``slot`` (0..2m-1: item ``slot % m``, B's score when ``slot >= m``);
    ``reach``, the first entry that merges with this one when it is the previous value a
    resample picks (the entries from there on all do; ``q`` if none); ``run_start``, the
    first entry of its run of equal values."""

    group: np.ndarray
    slot: np.ndarray
    reach: np.ndarray
    run_start: np.ndarray


class TieStructure(NamedTuple):
    """``labels`` ``(G, 2m)`` of the pooled values (A's then B's; NaN values get labels to
    ignore) and the :class:`LooseEntries` (None without loose blocks)."""

    labels: np.ndarray
    loose: LooseEntries | None


def _run_firsts(starts: np.ndarray) -> np.ndarray:
    """Position of the first element of each element's run (``starts`` marks run starts)."""
    position = np.broadcast_to(np.arange(starts.shape[-1]), starts.shape)
    return np.maximum.accumulate(np.where(starts, position, 0), axis=-1)


def tie_structure(values: np.ndarray) -> TieStructure | None:
    """The :class:`TieStructure` of pooled values ``(G, 2m)`` (NaN = absent), see the module
    docstring; None in the (floating-point) case :func:`_merge_reach` rules out."""
    order = np.argsort(values, axis=-1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(values, order, axis=-1)
    present = ~np.isnan(ordered)
    gap = ordered[..., 1:] - ordered[..., :-1]
    scale = np.maximum(np.abs(ordered[..., 1:]), np.abs(ordered[..., :-1]))
    block_starts = np.ones(ordered.shape, dtype=bool)
    block_starts[..., 1:] = ~((gap < 2 * NEAR_TIE_RTOL * scale) | (gap == 0))
    first = _run_firsts(block_starts)
    block_ends = np.ones(ordered.shape, dtype=bool)
    block_ends[..., :-1] = block_starts[..., 1:]
    last = np.minimum.accumulate(
        np.where(block_ends, np.arange(ordered.shape[-1]), ordered.shape[-1] - 1)[..., ::-1],
        axis=-1,
    )[..., ::-1]
    low = np.take_along_axis(ordered, first, axis=-1)
    high = np.take_along_axis(ordered, last, axis=-1)
    tight = (high == low) | (high - low < NEAR_TIE_RTOL * np.minimum(np.abs(low), np.abs(high)) / 2)
    loose = present & ~tight
    run_starts = np.ones(ordered.shape, dtype=bool)
    run_starts[..., 1:] = gap != 0  # NaN gaps start runs too
    label_starts = block_starts | (loose & run_starts)
    labels = np.empty(ordered.shape, dtype=np.int64)
    np.put_along_axis(labels, order, np.cumsum(label_starts, axis=-1) - 1, axis=-1)
    if not loose.any():
        return TieStructure(labels, None)
    group, position = np.nonzero(loose)  # row-major: by group, then value
    flat = np.full(loose.shape, -1)
    flat[group, position] = np.arange(group.size)
    reach = _merge_reach(ordered[group, position], flat[group, first[group, position]])
    if reach is None:
        return None
    return TieStructure(
        labels,
        LooseEntries(
            group=group,
            slot=order[group, position],
            reach=reach,
            run_start=flat[group, _run_firsts(run_starts)[group, position]],
        ),
    )


def _merge_reach(value: np.ndarray, block_start: np.ndarray) -> np.ndarray | None:
    """For each loose entry ``e``, the first entry ``p`` of its block such that ``p``, as the
    value picked before ``e``, merges with it (``collapse_near_ties``' float test ``v_e - v_p
    < rtol max(|v_e|, |v_p|)``, or equal values), ``q`` if none; None unless the entries that
    merge with ``e`` are exactly those from ``p`` to ``e - 1`` (true in exact arithmetic:
    a farther value is farther by more than the tolerance grows)."""
    q = value.size
    reach = np.empty(q, dtype=np.int64)
    for start in range(0, q, MERGE_ROWS_PER_BLOCK):  # bounds the (rows x q) pair tests
        e = np.arange(start, min(start + MERGE_ROWS_PER_BLOCK, q))
        p = np.arange(q)
        candidate = (p[None, :] < e[:, None]) & (p[None, :] >= block_start[e][:, None])
        gap = value[e][:, None] - value[None, :]
        scale = np.maximum(np.abs(value[e])[:, None], np.abs(value)[None, :])
        merges = candidate & ((gap < NEAR_TIE_RTOL * scale) | (gap == 0))
        first = np.where(merges.any(axis=-1), merges.argmax(axis=-1), e)
        if (merges.sum(axis=-1) != e - first).any():
            return None
        reach[e] = np.where(first < e, first, q)
    return reach


class SignForm(NamedTuple):
    """``F(s) = constant + s' matrix s`` per group, on the items ``active`` ``(m',)`` (the
    others never change a sign): ``constant`` ``(G,)``; ``matrix`` ``(G, m', m')``
    symmetric, integer-valued, float32 where its sums are exact there; ``total`` ``(G,)``
    is ``1' matrix 1``."""

    active: np.ndarray
    constant: np.ndarray
    matrix: np.ndarray
    total: np.ndarray


def _signs(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``sign(u_i - v_j)`` ``(G, m, m)`` as int8."""
    u, v = u[:, :, None], v[:, None, :]
    return (u > v).view(np.int8) - (u < v).view(np.int8)


def sign_form(labels_a: np.ndarray, labels_b: np.ndarray, weights: np.ndarray) -> SignForm:
    """The :class:`SignForm` of ``F(s) = sum_{i != j} W_ij sign(x'_i - x'_j)`` for
    antisymmetric integer ``weights`` ``(G, m, m)`` (see the module docstring)."""
    active = np.flatnonzero((labels_a != labels_b).any(axis=0) & (weights != 0).any(axis=(0, 1)))
    weights = weights.astype(np.int32)
    g00 = _signs(labels_a, labels_a)
    constant = (weights * g00).sum(axis=(-2, -1), dtype=np.int64)
    la, lb, w = labels_a[:, active], labels_b[:, active], weights[:, active]
    g00, g10 = g00[:, active], _signs(lb, labels_a)
    linear = (w * (g10 - g00)).sum(axis=-1, dtype=np.int64)
    w, g00, g10 = w[:, :, active], g00[:, :, active], g10[:, :, active]
    matrix = w * (_signs(lb, lb) - g10 - _signs(la, lb) + g00)
    diagonal = np.arange(active.size)
    matrix[:, diagonal, diagonal] = 2 * linear
    exact32 = np.abs(matrix).sum(axis=-2, dtype=np.int64).max(initial=0) < FLOAT32_EXACT
    return SignForm(
        active,
        constant.astype(float),
        matrix.astype(np.float32 if exact32 else np.float64),
        matrix.sum(axis=(-2, -1), dtype=np.int64).astype(float),
    )


def evaluate_form(form: SignForm, swaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(F(s), F(1 - s))`` ``(G, R)`` for swap indicators ``(G, R, m)`` (exact)."""
    s = swaps[..., form.active].astype(form.matrix.dtype)
    product = s @ form.matrix  # (G, R, m'): s'E per resample, exact
    quadratic = np.einsum("grm,grm->gr", product.astype(np.float64), s.astype(np.float64))
    row_sums = product.sum(axis=-1, dtype=np.float64)  # s'E1
    constant = form.constant[:, None]
    return constant + quadratic, constant + form.total[:, None] - 2 * row_sums + quadratic


class TieLevels(NamedTuple):
    """The labels two or more complete items can share, per group ``(G, k)``: ``change``
    ``(G, m, k)`` (+1 at the item's B label, -1 at its A label: a swap's effect on the
    counts), ``base`` (counts with nothing swapped), ``slots`` (A and B counts together)."""

    change: np.ndarray
    base: np.ndarray
    slots: np.ndarray


def tie_levels(labels_a: np.ndarray, labels_b: np.ndarray, complete: np.ndarray) -> TieLevels:
    """:class:`TieLevels` of the complete items (a label held by one item never ties)."""
    size = int(max(labels_a.max(initial=0), labels_b.max(initial=0))) + 1
    offsets = np.arange(labels_a.shape[0])[:, None] * size
    slots = np.bincount(
        np.concatenate([(offsets + labels_a)[complete], (offsets + labels_b)[complete]]),
        minlength=labels_a.shape[0] * size,
    ).reshape(-1, size)
    shared = slots >= 2
    column = np.cumsum(shared, axis=-1) - 1  # each shared label's column, per group
    k = int(shared.sum(axis=-1).max(initial=0))

    def one_hot(labels: np.ndarray) -> np.ndarray:
        index = np.where(
            complete & np.take_along_axis(shared, labels, axis=-1),
            np.take_along_axis(column, labels, axis=-1),
            -1,
        )
        return (index[..., None] == np.arange(k)).astype(np.int8)

    in_a, in_b = one_hot(labels_a), one_hot(labels_b)
    base = in_a.sum(axis=-2, dtype=np.int64)
    return TieLevels(in_b - in_a, base, base + in_b.sum(axis=-2, dtype=np.int64))


def tie_counts(levels: TieLevels, swaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(G, R, k)`` of each shared label in A' and in B' (exact)."""
    change = swaps.astype(np.float32) @ levels.change.astype(np.float32)
    counts_a = levels.base[:, None, :] + change.astype(np.float64)
    return counts_a, levels.slots[:, None, :] - counts_a


class ChainTerms(NamedTuple):
    """What a loose entry adds to the corrections: ``complete`` (q,) whether its item counts,
    ``kendall`` ``(q, L)`` (``sign(level - y)`` of its dense human rank ``y`` at every level,
    and ``rank`` (q,) its ``y``) or ``centred`` (q,) (its item's ``2 (rank - mean rank)``)."""

    complete: np.ndarray
    rank: np.ndarray | None
    kendall: np.ndarray | None
    centred: np.ndarray | None


def chain_corrections(
    loose: LooseEntries, terms: ChainTerms, swaps: np.ndarray, n_groups: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per resample, for A' then B': ``(form correction, tie correction)`` ``(G, R)``.

    Along the loose entries of each block, an entry picked by the resample merges with the
    previous picked one when that lies at or after its ``reach``; a chain of merged entries
    is one tie group. For a picked entry ``e`` of a complete item, with ``before`` the
    complete picked entries earlier in its chain and ``equal`` those of them with its value,
    its merged pairs with smaller values are ``before - equal`` (tied pairs the labels
    missed). Kendall's forms counted ``2 sign(y_e - y_j)`` for each of them, Spearman's ``2
    (c_e - c_j)`` (``c``: centred human ranks); Spearman's ``sum (t^3 - t)`` over tie groups
    grows by ``3 (before - equal) (before + equal + 1)`` for ``e`` (a group of ``t`` built one
    entry at a time adds ``3 k^2 + 3 k`` for its ``k``-th).
    """
    m = swaps.shape[-1]
    # A' picks A's score of an item not swapped and B's score of a swapped one: (q, R)
    picked_a = swaps[loose.group, :, loose.slot % m] == (loose.slot >= m)[:, None]
    q, n_resamples = picked_a.shape
    index = np.arange(q)[:, None]
    complete = terms.complete[:, None]
    out = []
    for picked in (picked_a, ~picked_a):
        last = np.maximum.accumulate(np.where(picked, index, -1), axis=0)
        previous = np.empty_like(last)
        previous[0], previous[1:] = -1, last[:-1]
        merged = previous >= loose.reach[:, None]
        chain_start = np.maximum.accumulate(np.where(picked & ~merged, index, 0), axis=0)
        counted = (picked & complete).astype(np.int32)
        cumulative = _prefix_sums(counted)
        before = cumulative[:-1] - np.take_along_axis(cumulative, chain_start, axis=0)
        equal = cumulative[:-1] - cumulative[loose.run_start]
        smaller = (before - equal) * counted  # merged pairs with a smaller value
        if terms.kendall is not None:
            levels = terms.kendall.shape[1]
            steps = _prefix_sums(counted[:, None, :] * terms.kendall[:, :, None])
            at_run = steps[loose.run_start, terms.rank]
            at_chain = np.take_along_axis(
                steps.reshape(-1, n_resamples), chain_start * levels + terms.rank[:, None], axis=0
            )
            form = -2 * (at_run - at_chain) * counted
            ties = smaller
        else:
            c = terms.centred[:, None]
            cumulative_c = _prefix_sums(counted * c)
            smaller_c = cumulative_c[loose.run_start] - np.take_along_axis(
                cumulative_c, chain_start, axis=0
            )
            form = -2 * (c * smaller - smaller_c * counted)
            ties = 3 * smaller * (before + equal + 1)
        out.append(tuple(_by_group(x, loose.group, n_groups) for x in (form, ties)))
    return out


def _prefix_sums(values: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums along axis 0, with a leading 0: ``out[x] = values[:x].sum(0)``."""
    sums = np.zeros((values.shape[0] + 1, *values.shape[1:]), dtype=np.int64)
    np.cumsum(values, axis=0, out=sums[1:])
    return sums


def _by_group(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``(q, R)`` per-entry values summed per group: ``(G, R)``."""
    totals = np.zeros((n_groups, values.shape[1]))
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    totals[group[starts]] = np.add.reduceat(values, starts, axis=0)
    return totals
