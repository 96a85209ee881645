"""The correlations of swapped scores from per-item sums: the permutation test's ``swaps``
paths (:mod:`geval_repro.stats.registry`), one per coefficient that has one.

Setting: groups ``(G, m)`` of items (one group per vector a level correlates), each item
with two scores, A's and B's; swap indicators ``s`` ``(G, R, m)`` (1 = swapped) pick, for
each of ``R`` resamples, ``A'_i = B_i if s_i else A_i`` (and B' the other one). A path's
``terms`` reads the groups once (:class:`GroupScores`; None: no fast path for them, the
caller recomputes every swapped vector); its ``correlations`` gives ``(r(A'), r(B'))``
``(G, R)`` for any swaps, the floats recomputing would give (Pearson within rounding).

- **Pearson** (:data:`PEARSON_SWAPS`). With ``m = (A + B) / 2``, ``d = (A - B) / 2`` and
  ``t = 1 - 2 s`` (so ``A' = m + t d``, ``B' = m - t d``), and ``mc``, ``hc`` the group's
  centred ``m`` and human scores: ``Sxx(A') = sum(mc^2 + d^2) + 2 t.(mc d) - (t.d)^2 / n``,
  ``Sxy(A') = sum(mc hc) + t.(d hc)``, and the same with ``-t`` for B'. Three sums ``t.z``
  per resample: one ``(resamples x n) @ (n x 3)`` product per group, then ``r = Sxy /
  (sqrt(Sxx) sqrt(Syy))``. Equal to recomputing within rounding (1e-12 on scores of
  comparable scale, as the test's standardized ones; the error grows with ``(mean(A) -
  mean(B))^2 / var``).
- **Spearman** (:data:`SPEARMAN_SWAPS`) and **Kendall** (:data:`KENDALL_SWAPS`) compare A's
  and B's scores exactly (the permutation test passes the tie rule's integer codes,
  :func:`geval_repro.stats.permutation.tie_codes`): each group's pooled A and B scores get
  *labels*, their dense ranks (:func:`labels`), and the human scores their dense ranks.
  Spearman (:func:`label_counts`, :func:`spearman_sums`): with ``N_l`` the items of label
  ``l`` in a resample, ``C_l`` those of smaller labels and ``Y_l`` the sum of their centred
  human ranks ``c = 2 (rank - mean rank)``, ``8 Sxy = 2 sum_l (2 C_l + N_l) Y_l`` (a label's
  centred rank is ``(2 C_l + N_l - n) / 2``, and ``sum Y = 0``) and the ties give ``sum_l
  (N_l^3 - N_l)``, so ``Sxx = (n^3 - n - sum (t^3 - t)) / 12``. Swapping item ``i`` moves it
  from its A label to its B label, so ``N`` and ``Y`` of every resample are one sparse
  product; B' has the complements. Kendall (:func:`sign_form`): ``F(s) = sum_{i != j} W_ij
  sign(x'_i - x'_j)`` with ``W_ij = sign(y_i - y_j)`` is twice concordant minus discordant
  pairs. A pair's sign over its four swap cases is ``g00 + s_i (g10 - g00) + s_j (g01 -
  g00) + s_i s_j (g11 - g10 - g01 + g00)`` (``g^pq_ij = sign(v^p_i - v^q_j)``, ``v^0`` A's
  labels, ``v^1`` B's); summed with antisymmetric weights the two linear terms are equal,
  so ``F = C + 2 s.l + s'E s`` with ``E`` symmetric, and ``2 s.l`` moves onto its diagonal
  (``s_i^2 = s_i``). :func:`evaluate_form`: one ``(R x m) @ (m x m)`` product per group; B'
  is ``F(1 - s) = C + 1'E1 - 2 s'E1 + s'E s`` from the same product. The pairs tied in x,
  ``sum c (c - 1) / 2``, come from each resample's count ``c`` of every label two or more
  items can share (:func:`shared_labels`, :func:`shared_counts`: one ``(R x m) @ (m x k)``
  product). tau-b is then :func:`geval_repro.stats.pairs.tau_b` of these counts. These sums
  are exact integers, so both coefficients are bit for bit the floats
  :mod:`geval_repro.stats.coefficients` computes from the same counts.

Every sum is an exact integer: int32 where it cannot overflow, else int64; the forms' matrix
products in float32 where their sums stay below 2^24, else float64 (exact up to 2^53).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse

from geval_repro.stats.pairs import tau_b
from geval_repro.stats.ranks import dense_ranks

FLOAT32_EXACT = 2**24  # integers below this add exactly in float32
INT32_LIMIT = 2**31  # Spearman's label sums stay int32 while 4 n^3 is below this
FORM_MAX_ITEMS = 2048  # Kendall: larger groups' n x n forms cost more than recomputing
CELLS_PER_BLOCK = 2**21  # Pearson: swapped cells per block of resamples (bounds memory)
RANK_CELLS_PER_BLOCK = 2**17  # the rank paths' many temporaries stay in cache


class GroupScores(NamedTuple):
    """What a path reads of each group: the grouped scores ``a``, ``b`` ``(G, m)`` (NaN
    missing; the same cells in both), ``human`` ``(G, m)`` NaN outside the complete items,
    ``ranked`` the same with its ties merged by the tie rule (what a rank coefficient
    ranks), ``complete`` (both present) and ``n`` ``(G,)`` its count."""

    a: np.ndarray
    b: np.ndarray
    human: np.ndarray
    ranked: np.ndarray
    complete: np.ndarray
    n: np.ndarray


class SwapPath(NamedTuple):
    """A coefficient's permutation path: ``terms(scores)`` once per test (None: no fast
    path for these groups), ``correlations(terms, scores, swaps)`` ``(r_a, r_b)`` ``(G, R)``
    per block of swaps; ``cells_per_block`` bounds a block's swapped cells."""

    terms: Callable[[GroupScores], Any]
    correlations: Callable[[Any, GroupScores, np.ndarray], tuple[np.ndarray, np.ndarray]]
    cells_per_block: int


class PearsonTerms(NamedTuple):
    """Pearson's per-item terms ``z`` ``(G, m, 3)`` (``d``, ``mc d``, ``d hc``) and the
    group constants ``(G, 3)``: ``sum(mc^2 + d^2)``, ``sum(mc hc)``, ``sum(hc^2)``."""

    items: np.ndarray
    constants: np.ndarray


def pearson_terms(scores: GroupScores) -> PearsonTerms:
    """:class:`PearsonTerms` of the groups (module docstring)."""
    a, b, human, complete = scores.a, scores.b, scores.human, scores.complete
    n = complete.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = np.where(complete, (a + b) / 2, 0.0)
        half = np.where(complete, (a - b) / 2, 0.0)
        gold = np.where(complete, human, 0.0)
        mc = np.where(complete, mid - mid.sum(axis=-1, keepdims=True) / n, 0.0)
        hc = np.where(complete, gold - gold.sum(axis=-1, keepdims=True) / n, 0.0)
    constants = [(mc * mc + half * half).sum(-1), (mc * hc).sum(-1), (hc * hc).sum(-1)]
    return PearsonTerms(np.stack([half, mc * half, half * hc], axis=-1), np.stack(constants, -1))


def pearson_correlations(
    terms: PearsonTerms, scores: GroupScores, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pearson's r of A' and B' per group and resample from the swap-linear sums."""
    n = scores.n[:, None].astype(float)
    z, constants = terms
    values = []
    with np.errstate(invalid="ignore", divide="ignore"):
        signed = z.sum(axis=-2)[:, None, :] - 2.0 * (swaps.astype(np.float64) @ z)
        spread, cross, syy = (c[:, None] for c in constants.T)
        shift = signed[..., 0] ** 2 / n
        for sign in (1.0, -1.0):
            sxx = spread + sign * 2.0 * signed[..., 1] - shift
            sxy = cross + sign * signed[..., 2]
            values.append(np.clip(sxy / (np.sqrt(sxx) * np.sqrt(syy)), -1.0, 1.0))
    return values[0], values[1]


def labels(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each group's labels of A's and B's scores ``(G, m)`` each: the dense ranks of the
    pooled scores (compared exactly; a missing score gets the top label, never read)."""
    pooled = np.concatenate([a, b], axis=-1)
    ranks = dense_ranks(pooled, ~np.isnan(pooled))
    m = a.shape[-1]
    return ranks[:, :m], ranks[:, m:]


def _human_ranks(scores: GroupScores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The complete items' dense human ranks (0 elsewhere), the count per rank ``(G, k)``
    and the centred ranks ``c = sum_j sign(y_i - y_j)`` (0 elsewhere)."""
    complete = scores.complete
    rank = np.where(complete, dense_ranks(scores.ranked, complete), 0)
    n_ranks = int(rank.max(initial=0)) + 1
    offsets = np.arange(rank.shape[0])[:, None] * n_ranks
    counts = np.bincount((offsets + rank)[complete], minlength=rank.shape[0] * n_ranks)
    counts = counts.reshape(rank.shape[0], n_ranks)
    lower = np.take_along_axis(np.cumsum(counts, axis=-1) - counts, rank, axis=-1)
    equal = np.take_along_axis(counts, rank, axis=-1)
    n = complete.sum(axis=-1, keepdims=True)
    return rank, counts, np.where(complete, 2 * lower + equal - n, 0)


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


def _csr(
    rows: np.ndarray, columns: np.ndarray, values: np.ndarray, shape: tuple[int, int]
) -> scipy.sparse.csr_array:
    """A CSR matrix of ``values`` at (``rows``, ``columns``), built directly (no COO step)."""
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=shape[0]))])
    return scipy.sparse.csr_array((values[order], columns[order], indptr), shape=shape)


class SpearmanTerms(NamedTuple):
    """Spearman's label sums (:class:`LabelCounts`) and each group's ``Syy`` ``(G,)``."""

    counts: LabelCounts
    syy: np.ndarray


def spearman_terms(scores: GroupScores) -> SpearmanTerms:
    """:class:`SpearmanTerms` of the groups (module docstring)."""
    labels_a, labels_b = labels(scores.a, scores.b)
    _, _, centred = _human_ranks(scores)
    counts = label_counts(labels_a, labels_b, scores.complete, centred)
    return SpearmanTerms(counts, (centred * centred).sum(axis=-1) / 4)


def spearman_correlations(
    terms: SpearmanTerms, scores: GroupScores, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Spearman's rho of A' and B' per group and resample: ``Sxy / (sqrt(Sxx) sqrt(Syy))``
    with ``Sxx = (n^3 - n - sum (t^3 - t)) / 12``."""
    n = scores.n[:, None].astype(float)
    syy = terms.syy[:, None]
    values = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for f, t in spearman_sums(terms.counts, swaps):
            sxx = (n**3 - n - t) / 12
            rho = (f / 8) / (np.sqrt(sxx) * np.sqrt(syy))
            undefined = (sxx == 0) | (syy == 0)
            values.append(np.where(undefined, np.nan, np.clip(rho, -1.0, 1.0)))
    return values[0], values[1]


class KendallTerms(NamedTuple):
    """Kendall's sign form (:class:`SignForm`), the labels two items can share
    (:class:`SharedLabels`) and each group's human pairs untied ``(G,)``."""

    form: SignForm
    ties: SharedLabels
    untied_y: np.ndarray


def kendall_terms(scores: GroupScores) -> KendallTerms | None:
    """:class:`KendallTerms` of the groups, or None for groups of more than
    :data:`FORM_MAX_ITEMS` items (their ``m x m`` forms cost more than recomputing)."""
    if scores.a.shape[-1] > FORM_MAX_ITEMS:
        return None
    labels_a, labels_b = labels(scores.a, scores.b)
    rank, counts, _ = _human_ranks(scores)
    complete = scores.complete
    both = complete[:, :, None] & complete[:, None, :]
    weights = np.where(
        both,
        (rank[:, :, None] > rank[:, None, :]).view(np.int8)
        - (rank[:, :, None] < rank[:, None, :]).view(np.int8),
        0,
    )
    n = scores.n
    untied = n * (n - 1) // 2 - (counts * (counts - 1) // 2).sum(axis=-1)
    return KendallTerms(
        sign_form(labels_a, labels_b, weights),
        shared_labels(labels_a, labels_b, complete),
        untied.astype(float),
    )


def kendall_correlations(
    terms: KendallTerms, scores: GroupScores, swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b of A' and B' per group and resample: concordant minus discordant
    pairs ``F / 2`` from the sign form, the pairs untied in x from the shared labels'
    counts."""
    n = scores.n[:, None].astype(float)
    untied_y = terms.untied_y[:, None]
    forms = evaluate_form(terms.form, swaps)
    counts = shared_counts(terms.ties, swaps)
    values = []
    for f, c in zip(forms, counts, strict=True):
        untied_x = n * (n - 1) / 2 - (c * (c - 1) / 2).sum(axis=-1)
        values.append(tau_b(f / 2, untied_x, untied_y))
    return values[0], values[1]


PEARSON_SWAPS = SwapPath(pearson_terms, pearson_correlations, CELLS_PER_BLOCK)
SPEARMAN_SWAPS = SwapPath(spearman_terms, spearman_correlations, RANK_CELLS_PER_BLOCK)
KENDALL_SWAPS = SwapPath(kendall_terms, kendall_correlations, RANK_CELLS_PER_BLOCK)
