"""Spearman's and Kendall's sums over swapped scores, without ranking any resample.

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
  picks (a chain can lose the value that bridged it). A loose block is cut into *links*:
  runs of values that any earlier value of the run merges with, so the values a resample
  picks from one link always chain together (one label per link); whether two links chain
  is decided per resample by :func:`chain_corrections`.
- Spearman, :func:`label_counts`, :func:`spearman_sums`: with ``N_l`` the items of label
  ``l`` in a resample, ``C_l`` those of smaller labels and ``Y_l`` the sum of their centred
  human ranks ``c = 2 (rank - mean rank)``, ``8 Sxy = 2 sum_l (2 C_l + N_l) Y_l`` (a label's
  centred rank is ``(2 C_l + N_l - n) / 2``, and ``sum Y = 0``) and the ties give ``sum_l
  (N_l^3 - N_l)``. Swapping item ``i`` moves it from its A label to its B label, so ``N``
  and ``Y`` of every resample are one sparse product; B' has the complements.
- Kendall, :func:`sign_form`: ``F(s) = sum_{i != j} W_ij sign(x'_i - x'_j)`` with ``W_ij =
  sign(y_i - y_j)`` is twice concordant minus discordant pairs. A pair's sign over its
  four swap cases is ``g00 + s_i (g10 - g00) + s_j (g01 - g00) + s_i s_j (g11 - g10 - g01 +
  g00)`` (``g^pq_ij = sign(v^p_i - v^q_j)``, ``v^0`` A's labels, ``v^1`` B's); summed with
  antisymmetric weights the two linear terms are equal, so ``F = C + 2 s.l + s'E s`` with
  ``E`` symmetric, and ``2 s.l`` moves onto its diagonal (``s_i^2 = s_i``).
  :func:`evaluate_form`: one ``(R x m) @ (m x m)`` product per group; B' is ``F(1 - s) = C
  + 1'E1 - 2 s'E1 + s'E s`` from the same product. :func:`shared_labels`,
  :func:`shared_counts`: each resample's count of every label two or more items can share
  (one ``(R x m) @ (m x k)`` product), for the tied pairs.
- :func:`chain_corrections`: per resample, whether each link's first picked value merges
  with the previous picked value (the float test of ``collapse_near_ties``), and what
  merging links changes: the sums above counted ``2 W_ij`` (Kendall), ``2 (c_i - c_j)``
  (Spearman's ``8 Sxy``) for each pair of merged values of two links (``i`` the larger),
  and the tie counts missed those pairs.

Every sum is an exact integer: int32 where it cannot overflow, else int64; the forms' matrix
products in float32 where their sums stay below 2^24, else float64 (exact up to 2^53).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse

from geval_repro.stats.levels import NEAR_TIE_RTOL

FLOAT32_EXACT = 2**24  # integers below this add exactly in float32
INT32_LIMIT = 2**31  # Spearman's label sums stay int32 while 4 n^3 is below this
MERGE_ROWS_PER_BLOCK = 512  # loose entries whose merges are tested per numpy batch


class LooseEntries(NamedTuple):
    """The pooled values in loose blocks, flat, sorted by group then value ``(q,)``:
    ``group``; ``slot`` (0..2m-1: item ``slot % m``, B's score when ``slot >= m``);
    ``reach``, the first entry that merges with this one when it is the previous value a
    resample picks (so do all entries from there on; ``q`` if none); ``link_start``
    ``(k,)``, the first entry of each link (links are runs of entries), ``link_group``
    ``(k,)`` its group."""

    group: np.ndarray
    slot: np.ndarray
    reach: np.ndarray
    link_start: np.ndarray
    link_group: np.ndarray


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
    labels = np.empty(ordered.shape, dtype=np.int64)
    if not loose.any():
        np.put_along_axis(labels, order, np.cumsum(block_starts, axis=-1) - 1, axis=-1)
        return TieStructure(labels, None)
    group, position = np.nonzero(loose)  # row-major: by group, then value
    flat = np.full(loose.shape, -1)
    flat[group, position] = np.arange(group.size)
    block_start = flat[group, first[group, position]]
    reach = _merge_reach(ordered[group, position], block_start)
    if reach is None:
        return None
    link_start = _link_starts(reach, block_start)
    label_starts = block_starts.copy()
    label_starts[group[link_start], position[link_start]] = True
    np.put_along_axis(labels, order, np.cumsum(label_starts, axis=-1) - 1, axis=-1)
    return TieStructure(
        labels,
        LooseEntries(group, order[group, position], reach, link_start, group[link_start]),
    )


def _link_starts(reach: np.ndarray, block_start: np.ndarray) -> np.ndarray:
    """The first entry of each link: from each block's first entry, a link grows while the
    next entry merges with the link's first (``reach <= start``), so with any entry of it."""
    starts = []
    start = -1
    for entry, (earliest, block) in enumerate(
        zip(reach.tolist(), block_start.tolist(), strict=True)
    ):
        if entry == block or earliest > start:  # setup only: one pass over loose entries
            start = entry
            starts.append(entry)
    return np.asarray(starts, dtype=np.int64)


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


class LabelCounts(NamedTuple):
    """Spearman's label sums as one sparse product: ``change`` ``(2K, G m)`` (swapping item
    ``i`` adds 1 to the count and ``c_i`` to the human sum of its B label, and takes them
    from its A label; rows: the K counts, then the K sums), ``base`` ``(2K,)`` nothing
    swapped, ``slots`` ``(2K,)`` A and B together, ``group_start`` ``(G,)`` the first label
    of each group (labels numbered across the groups), ``shared`` the labels two or more
    items can share."""

    change: scipy.sparse.csr_array
    base: np.ndarray
    slots: np.ndarray
    group_start: np.ndarray
    shared: np.ndarray


def label_counts(
    labels_a: np.ndarray, labels_b: np.ndarray, complete: np.ndarray, centred: np.ndarray
) -> LabelCounts:
    """:class:`LabelCounts` of the complete items (``centred``: ``2 (rank - mean rank)`` of
    their human scores)."""
    n_groups, m = labels_a.shape
    sizes = np.maximum(labels_a.max(axis=-1), labels_b.max(axis=-1)) + 1
    group_start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    k = int(sizes.sum())
    label_a = (labels_a + group_start[:, None])[complete]
    label_b = (labels_b + group_start[:, None])[complete]
    item = np.flatnonzero(complete)  # row-major, like the swaps' items
    c = centred[complete].astype(np.int64)
    # (2 below + N) Y is at most 2n * sum |c| <= 4 n^3: int32 when that fits
    dtype = np.int32 if 4 * item.size**3 < INT32_LIMIT else np.int64
    moves = label_a != label_b
    rows = np.concatenate([label_b, label_a, k + label_b, k + label_a])[np.tile(moves, 4)]
    values = np.concatenate([np.ones_like(c), -np.ones_like(c), c, -c])[np.tile(moves, 4)]
    columns = np.tile(item, 4)[np.tile(moves, 4)]
    change = _csr(rows, columns, values.astype(dtype), (2 * k, n_groups * m))
    base = np.concatenate(
        [np.bincount(label_a, minlength=k), np.bincount(label_a, weights=c, minlength=k)]
    ).astype(dtype)
    other = np.concatenate(
        [np.bincount(label_b, minlength=k), np.bincount(label_b, weights=c, minlength=k)]
    ).astype(dtype)
    return LabelCounts(
        change, base, base + other, group_start, np.flatnonzero((base + other)[:k] >= 2)
    )


def _weights(n: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``2 C_l + N_l`` per label (``C_l``: the items of smaller labels of its group) from
    the counts ``n`` ``(K, ...)``; ``starts``: each group's first label."""
    weight = np.cumsum(n, axis=0, dtype=n.dtype)
    if starts.size > 1:  # count from each group's first label
        first = weight[starts - 1] * (starts > 0).reshape(-1, *[1] * (n.ndim - 1))
        weight -= np.repeat(first, np.diff([*starts, n.shape[0]]), axis=0)
    weight *= 2
    weight -= n
    return weight


def spearman_sums(counts: LabelCounts, swaps: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """For A' then B': ``(8 Sxy, sum_l (N_l^3 - N_l))`` ``(G, R)`` (exact integers).

    B''s counts and sums are the slots' (``S``) less A''s, so with ``w = 2 C + N``, ``sum
    (w_S - w_A) (Y_S - Y_A) = sum w_S Y_S - sum w_S Y_A - sum w_A Y_S + sum w_A Y_A``: two
    products with fixed vectors on top of A''s sums.
    """
    n_groups, _, m = swaps.shape
    columns = swaps.transpose(0, 2, 1).reshape(n_groups * m, -1)
    columns = np.ascontiguousarray(columns, dtype=counts.change.dtype)  # scipy wants C order
    sums = counts.change @ columns  # (2K, R): what the swaps move into each label
    sums += counts.base[:, None]  # A''s counts and human sums
    k = sums.shape[0] // 2
    starts = counts.group_start
    n, y = sums[:k], sums[k:]
    slots_n, slots_y = counts.slots[:k, None], counts.slots[k:, None]
    slots_w = _weights(slots_n.astype(np.int64), starts)

    def by_group(values: np.ndarray, fixed: np.ndarray | None = None) -> np.ndarray:
        """Per group, ``sum_l fixed_l values_l`` (``fixed`` None: 1), without a temporary
        ``(K, R)`` product for one group."""
        if fixed is None:
            return np.add.reduceat(values, starts, axis=0, dtype=np.int64)
        if starts.size == 1:
            return (fixed[:, 0].astype(np.int64) @ values)[None, :]
        return by_group(values * fixed)

    weight = _weights(n, starts)
    crossed = by_group(weight, slots_y) + by_group(y, slots_w)  # sum w_A Y_S + w_S Y_A
    fixed = by_group(slots_w * slots_y)
    weight *= y
    pairs_a = by_group(weight)
    pairs_b = fixed - crossed + pairs_a
    shared_group = np.searchsorted(starts, counts.shared, side="right") - 1
    runs = np.flatnonzero(np.concatenate([[True], shared_group[1:] != shared_group[:-1]]))
    out = []
    for pairs, shared in (
        (pairs_a, n[counts.shared]),
        (pairs_b, slots_n[counts.shared] - n[counts.shared]),  # B''s counts: the slots less A's
    ):
        ties = np.zeros_like(pairs)  # labels no two items share never tie
        if counts.shared.size:
            shared = shared.astype(np.int64)
            ties[shared_group[runs]] = np.add.reduceat(shared**3 - shared, runs, axis=0)
        out.append((2 * pairs, ties))
    return out


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
    quadratic = np.einsum("grm,grm->gr", product, s, dtype=np.float64)
    row_sums = product.sum(axis=-1, dtype=np.float64)  # s'E1
    constant = form.constant[:, None]
    return constant + quadratic, constant + form.total[:, None] - 2 * row_sums + quadratic


class SharedLabels(NamedTuple):
    """The labels two or more complete items can share, per group ``(G, k)``: ``change``
    ``(G, m, k)`` (+1 at the item's B label, -1 at its A label: a swap's effect on the
    counts), ``base`` (counts with nothing swapped), ``slots`` (A and B counts together)."""

    change: np.ndarray
    base: np.ndarray
    slots: np.ndarray


def shared_labels(labels_a: np.ndarray, labels_b: np.ndarray, complete: np.ndarray) -> SharedLabels:
    """:class:`SharedLabels` of the complete items (a label held by one item never ties)."""
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
    return SharedLabels(in_b - in_a, base, base + in_b.sum(axis=-2, dtype=np.int64))


def shared_counts(labels: SharedLabels, swaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(G, R, k)`` of each shared label in A' and in B' (exact)."""
    change = swaps.astype(np.float32) @ labels.change.astype(np.float32)
    counts_a = labels.base[:, None, :] + change.astype(np.float64)
    return counts_a, labels.slots[:, None, :] - counts_a


class ChainTerms(NamedTuple):
    """What :func:`chain_corrections` needs of the loose entries, computed once per test.

    ``attached`` ``(a,)``: the links with an entry that can merge with a value picked before
    the link (the others always start a chain); ``inside`` their entries and ``offsets``
    where each one's entries start in ``inside``; ``sums`` ``(rows, q)``: per link, what a
    picked entry adds, as a sparse matrix: its count (every entry; ``k`` rows), then for each
    link ``per_link`` rows over its complete entries: Spearman's count and centred human rank
    ``2 (rank - mean rank)``, or Kendall's count per dense human rank; ``totals`` the
    sums over all entries; ``windows`` ``(len(inside), q)``: for each entry of an attached
    link, the entries from its ``reach`` to the link's start (it merges when one of them is
    picked).
    """

    attached: np.ndarray
    inside: np.ndarray
    offsets: np.ndarray
    sums: scipy.sparse.csr_array
    totals: np.ndarray
    windows: scipy.sparse.csr_array
    per_link: int
    spearman: bool


def _csr(
    rows: np.ndarray, columns: np.ndarray, values: np.ndarray, shape: tuple[int, int]
) -> scipy.sparse.csr_array:
    """A CSR matrix of ``values`` at (``rows``, ``columns``), built directly (no COO step)."""
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=shape[0]))])
    return scipy.sparse.csr_array((values[order], columns[order], indptr), shape=shape)


def chain_terms(
    loose: LooseEntries,
    complete: np.ndarray,
    *,
    rank: np.ndarray | None = None,
    centred: np.ndarray | None = None,
) -> ChainTerms:
    """:class:`ChainTerms` of the loose entries: Kendall's with ``rank`` (the items' dense
    human ranks ``(q,)``), Spearman's with ``centred`` ``(q,)``."""
    q = loose.reach.size
    links = loose.link_start
    k = links.size
    ends = np.append(links[1:], q)
    of_link = np.repeat(np.arange(k), ends - links)
    attached = np.flatnonzero(np.minimum.reduceat(loose.reach, links) < links)
    inside = np.concatenate([np.arange(links[a], ends[a]) for a in attached] + [[]]).astype(int)
    offsets = np.concatenate([[0], np.cumsum(ends[attached] - links[attached])[:-1]])
    counted = np.flatnonzero(complete)
    ones = np.ones(counted.size, dtype=np.int32)
    if rank is None:
        per_link = 2
        rows = [k + 2 * of_link[counted], k + 2 * of_link[counted] + 1]
        values, columns = [ones, centred[counted].astype(np.int32)], [counted, counted]
    else:
        per_link = int(rank.max(initial=0)) + 1  # the dense human ranks
        rows, values, columns = [k + per_link * of_link[counted] + rank[counted]], [ones], [counted]
    rows = np.concatenate([of_link, *rows])
    values = np.concatenate([np.ones(q, dtype=np.int32), *values])
    columns = np.concatenate([np.arange(q), *columns])
    sums = _csr(rows, columns, values, ((per_link + 1) * k, q))
    totals = np.bincount(rows, weights=values, minlength=(per_link + 1) * k).astype(np.int32)
    own = links[np.repeat(attached, ends[attached] - links[attached])]  # each inside's link
    reach = loose.reach[inside]
    lengths = np.maximum(own - reach, 0)  # reach == q (no merge) gives an empty window
    window_rows = np.repeat(np.arange(inside.size), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)  # each window's first position
    window_columns = np.repeat(reach, lengths) + np.arange(window_rows.size) - starts
    windows = _csr(
        window_rows, window_columns, np.ones(window_rows.size, dtype=np.int32), (inside.size, q)
    )
    return ChainTerms(attached, inside, offsets, sums, totals, windows, per_link, rank is None)


def chain_corrections(
    loose: LooseEntries, terms: ChainTerms, swaps: np.ndarray, n_groups: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per resample, for A' then B': ``(form correction, tie correction)`` ``(G, R)``.

    A link's first picked entry ``f`` merges with the previous picked entry (in an earlier
    link of its block) when some entry from ``f``'s ``reach`` to the link's start is picked;
    chained links are one tie group. With ``n`` the complete picked entries of an attached
    link and ``nb`` those of the links chained before it: Kendall's forms counted ``2
    sign(y_e - y_j)`` for each of their ``n nb`` merged pairs (tied pairs the labels
    missed), Spearman's ``2 (c_e - c_j)`` (``c``: centred human ranks), and Spearman's
    ``sum (t^3 - t)`` over tie groups grows by ``3 n nb (n + nb)`` (``(a + b)^3 - a^3 -
    b^3``). The links' sums and the merge windows are sparse products with A''s picks; B'
    picks the entries A' does not, so its sums are the totals less A''s.
    """
    n_resamples, m = swaps.shape[1:]
    attached = terms.attached
    if not attached.size:  # every link starts a chain: the labels are the tie groups
        zero = np.zeros((n_groups, n_resamples))
        return [(zero, zero), (zero, zero)]
    # A' picks A's score of an item not swapped and B's score of a swapped one: (q, R)
    picked = swaps[loose.group, :, loose.slot % m] == (loose.slot >= m)[:, None]
    q = picked.shape[0]
    as_int = picked.astype(np.int32)
    sums = terms.sums @ as_int  # ((per_link + 1) k, R): A''s, then (in place) B''s
    windows = terms.windows @ as_int  # (inside, R): picks in each entry's window
    window_sizes = np.diff(terms.windows.indptr)[:, None]
    k = loose.link_start.size
    inside = picked[terms.inside]
    link = np.arange(k)[:, None]
    columns = np.arange(n_resamples)
    running = np.zeros((k + 1, terms.per_link, n_resamples), dtype=np.int64)
    out = []
    for side in ("A'", "B'"):
        if side == "A'":
            first = np.where(inside, terms.inside[:, None], q)
        else:  # B' picks the others: the totals less A''s
            np.subtract(terms.totals[:, None], sums, out=sums)
            np.subtract(window_sizes, windows, out=windows)
            first = np.where(inside, q, terms.inside[:, None])
        first_at = np.minimum.reduceat(first, terms.offsets, axis=0)  # (a, R): first picks
        position = np.minimum(np.searchsorted(terms.inside, first_at), terms.inside.size - 1)
        merged = (first_at < q) & (windows[position, columns] > 0)
        opens = sums[:k] > 0  # a non-empty link starts a chain...
        opens[attached] &= ~merged  # ...unless it merges
        chain = np.maximum.accumulate(np.where(opens, link, 0), axis=0)[attached]  # (a, R)
        per_link = sums[k:].reshape(k, terms.per_link, n_resamples)
        np.cumsum(per_link, axis=0, out=running[1:])
        at_chain = running[chain, :, columns].transpose(0, 2, 1)  # (a, per_link, R)
        chained = running[attached] - at_chain  # the earlier links of the chain
        mine = per_link[attached]
        if terms.spearman:
            n, c, n_before, c_before = mine[:, 0], mine[:, 1], chained[:, 0], chained[:, 1]
            form = -2 * (c * n_before - n * c_before)
            ties = 3 * n * n_before * (n + n_before)
        else:  # sign(y_e - y_j) = [j of a lower rank] - [j of a higher one]
            n_before = chained.sum(axis=1)
            form, lower = np.zeros_like(n_before), np.zeros_like(n_before)
            for rank in range(terms.per_link):
                form += mine[:, rank] * (2 * lower + chained[:, rank] - n_before)
                lower += chained[:, rank]
            form *= -2
            ties = mine.sum(axis=1) * n_before
        out.append(tuple(_by_group(x, loose.link_group[attached], n_groups) for x in (form, ties)))
    return out


def _by_group(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``(a, R)`` per-link values summed per group (``group`` sorted): ``(G, R)``."""
    totals = np.zeros((n_groups, values.shape[1]))
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    totals[group[starts]] = np.add.reduceat(values, starts, axis=0)
    return totals
