"""Pair statistics: the five counts every pair-based statistic here reduces to (the
sufficient statistics of mt-metrics-eval's Kendall variants).

Over the complete pairs of a vector (two positions whose ``x`` and ``y`` are both present),
comparing values exactly (merge ties by :mod:`geval_repro.stats.tie_rule` first, or pass
integer codes that order and tie like the values):

- ``concordant``: ``x`` and ``y`` order the pair the same way; ``discordant``: opposite ways;
- ``tied_x``: tied in ``x`` only; ``tied_y``: tied in ``y`` only; ``tied_both``.

Reductions (:class:`PairCounts`):

- Kendall's tau-b: ``(C - D) / sqrt(untied_x * untied_y)`` with ``untied_x = C + D +
  tied_y`` and ``untied_y = C + D + tied_x`` (:func:`tau_b`);
- the tie share of ``x``: ``(tied_x + tied_both) / pairs`` (tie rates);
- ``acc_eq``, pairwise accuracy with ties at threshold 0 (Deutsch et al., 2023; ``x`` the
  metric, ``y`` the humans): ``(C + tied_both) / pairs``; ``acc*_eq`` is the largest
  ``acc_eq`` over the metric's tie thresholds, widening its ties to differences up to the
  threshold (:mod:`geval_repro.stats.accuracy`).

Backends, one result:

- *offsets* (:func:`sign_sums`): for ``n`` positions on the axis -2 of ``(..., n, m)``
  arrays (``m`` vectors side by side on the contiguous last axis), the signs ``sign(v[i +
  k] - v[i])`` one offset ``k`` at a time, as int8, summed over ``i``: ``n - 1`` vectorized
  steps of ``O(n m)`` work, for tau-b's three sums (``C - D`` and the pairs untied in each)
  and, on request, ``C + D``, which splits them into the five counts. The same signs give
  each position's ``S_i = sum_j sign(v_i - v_j)``, twice its centred average rank
  (Spearman's ranks, on request);
- *tables* (:func:`table_counts`): contingency tables of the two vectors' integer codes,
  ``O(distinct_x * distinct_y)`` work per vector, exact integers.

Cost rule (:func:`tables_cheaper`, the one rule for any contingency table of pairs): tables
for vectors of at least :data:`TABLE_MIN_LENGTH` positions whose tables hold at most half
as many cells as the vector has pairs (``2 cells <= n**2``): human ratings on a 1-5 scale,
binary judgements, a sweep's few means, as at the global level of every benchmark here.
:func:`pair_counts` chooses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats.ranks import dense_ranks

TABLE_MIN_LENGTH = 64  # shorter vectors always take the offsets
#: Contingency-table cells per numpy batch: cache-sized (512 KB of int64), so the cumulative
#: sums over a batch stay in the core's cache (1.5-2x faster than 2**22 cells on the run's
#: shapes: perf/time_batches.py).
TABLE_CELLS_PER_BLOCK = 2**16
SMALL_SUMS = 127  # per-offset sums of int8 products stay int8 up to this many terms


class PairCounts(NamedTuple):
    """The five pair counts of each vector, batch shape ``(...)`` (module docstring)."""

    concordant: np.ndarray
    discordant: np.ndarray
    tied_x: np.ndarray
    tied_y: np.ndarray
    tied_both: np.ndarray

    @classmethod
    def of_sums(
        cls,
        concordance: np.ndarray,
        agreement: np.ndarray,
        untied_x: np.ndarray,
        untied_y: np.ndarray,
        pairs: np.ndarray,
    ) -> PairCounts:
        """From the sums the offsets accumulate: ``C - D``, ``C + D``, the pairs untied in
        ``x`` and in ``y``, and all complete pairs."""
        return cls(
            (agreement + concordance) // 2,
            (agreement - concordance) // 2,
            untied_y - agreement,
            untied_x - agreement,
            pairs - untied_x - untied_y + agreement,
        )

    @property
    def pairs(self) -> np.ndarray:
        """Complete pairs."""
        return self.concordant + self.discordant + self.tied_x + self.tied_y + self.tied_both

    @property
    def untied_x(self) -> np.ndarray:
        return self.concordant + self.discordant + self.tied_y

    @property
    def untied_y(self) -> np.ndarray:
        return self.concordant + self.discordant + self.tied_x

    def tau_b(self) -> np.ndarray:
        """Kendall's tau-b (:func:`tau_b`)."""
        return tau_b(self.concordant - self.discordant, self.untied_x, self.untied_y)

    def accuracy(self) -> np.ndarray:
        """``acc_eq``: ``(C + tied_both) / pairs`` (NaN without a pair)."""
        pairs = self.pairs
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(pairs > 0, (self.concordant + self.tied_both) / pairs, np.nan)


def tau_b(concordance: np.ndarray, untied_x: np.ndarray, untied_y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b ``(C - D) / (sqrt(untied_x) sqrt(untied_y))`` from concordant minus
    discordant pairs and the pairs untied in ``x`` and in ``y``; NaN where a vector has no
    untied pair (constant)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / (np.sqrt(untied_x, dtype=float) * np.sqrt(untied_y, dtype=float))
    undefined = (untied_x == 0) | (untied_y == 0)
    return np.where(undefined, np.nan, np.minimum(np.maximum(tau, -1.0), 1.0))


def tables_cheaper(n: int, cells: int) -> bool:
    """Whether contingency tables of ``cells`` cells beat the offsets for vectors of ``n``
    positions (module docstring)."""
    return n >= TABLE_MIN_LENGTH and 2 * cells <= n * n


class SignSums(NamedTuple):
    """What the offsets give (:func:`sign_sums`), batch shape ``(..., m)``: ``concordance``
    (``C - D``), the pairs ``untied_x`` and ``untied_y``, all complete ``pairs`` (tau-b's
    sums), ``agreement`` (``C + D``; None unless the five counts were asked for) and, when
    asked for, ``rank_x``, ``rank_y`` ``(..., n, m)``: each position's ``S_i = sum_j
    sign(v_i - v_j)`` over its complete pairs (0 where not present; ``rank_y`` keeps ``y``'s
    smaller batch shape when no position is missing)."""

    concordance: np.ndarray
    untied_x: np.ndarray
    untied_y: np.ndarray
    pairs: np.ndarray
    agreement: np.ndarray | None
    rank_x: np.ndarray | None
    rank_y: np.ndarray | None

    @property
    def counts(self) -> PairCounts:
        """The five :class:`PairCounts` (needs ``agreement``: :func:`sign_sums` with
        ``counts=True``)."""
        if self.agreement is None:
            raise ValueError("these sign sums hold tau-b's sums only: ask sign_sums(counts=True)")
        return PairCounts.of_sums(
            self.concordance, self.agreement, self.untied_x, self.untied_y, self.pairs
        )

    def tau_b(self) -> np.ndarray:
        """Kendall's tau-b of each column (:func:`tau_b`)."""
        return tau_b(self.concordance, self.untied_x, self.untied_y)


def offset_signs(values: np.ndarray, k: int) -> np.ndarray:
    """``sign(v[i + k] - v[i])`` along axis -2 as int8 (0 where either value is NaN)."""
    upper = values[..., k:, :]
    lower = values[..., :-k, :]
    if values.dtype.kind in "iu":
        difference = np.subtract(upper, lower)
        return np.sign(difference, out=difference).astype(np.int8, copy=False)
    return (upper > lower).view(np.int8) - (upper < lower).view(np.int8)


def _column_sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum_i a[..., i, j] * b[..., i, j]`` per column of int8 signs."""
    if a.shape[-2] <= SMALL_SUMS:
        return np.einsum("...ij,...ij->...j", a, b)
    return np.einsum("...ij,...ij->...j", a, b, dtype=np.int64)


def sign_sums(
    x: np.ndarray,
    y: np.ndarray,
    present: np.ndarray | None,
    *,
    ranks: bool = False,
    counts: bool = False,
) -> SignSums:
    """The offsets backend on ``(..., n, m)`` arrays (``y`` broadcastable, e.g. one ``(n,
    m)`` matrix for a batch): tau-b's sums of each column and, with ``counts``, the rest of
    its five pair counts (module docstring); with ``ranks``, the rank sums.

    ``x`` and ``y`` are compared exactly, as floats or integer codes; ``present``: where
    both are present (None: everywhere). ``C + D`` costs a third more work per offset, so
    it is counted only on request.
    """
    n = x.shape[-2]
    shape = np.broadcast_shapes(x.shape, y.shape)
    batch = shape[:-2] + shape[-1:]
    masked = present is not None and not present.all()
    total = n * (n - 1) // 2
    dtype = np.int16 if 2 * total <= np.iinfo(np.int16).max else np.int64
    concordance = np.zeros(batch, dtype=dtype)
    untied_x = np.zeros_like(concordance)
    untied_y = np.zeros_like(concordance)
    agreement = np.zeros_like(concordance) if counts else None
    rank_dtype = np.int8 if n <= SMALL_SUMS else np.int64
    rank_x = np.zeros(shape, dtype=rank_dtype) if ranks else None
    rank_y = np.zeros(shape if masked else y.shape, dtype=rank_dtype) if ranks else None
    for k in range(1, n):
        signs_x = offset_signs(x, k)
        signs_y = offset_signs(y, k)
        if masked:
            complete = (present[..., k:, :] & present[..., :-k, :]).view(np.int8)
            signs_x = signs_x * complete
            signs_y = signs_y * complete
        concordance += _column_sums(signs_x, signs_y)
        untied_x += _column_sums(signs_x, signs_x)
        untied_y += _column_sums(signs_y, signs_y)
        if counts:
            agreement += _column_sums(signs_x * signs_x, signs_y * signs_y)
        if ranks:
            for sums, signs in ((rank_x, signs_x), (rank_y, signs_y)):
                sums[..., k:, :] += signs  # v[i + k] above v[i]: +1 for the upper position
                sums[..., :-k, :] -= signs  # and -1 for the lower one
    counted = present.sum(axis=-2) if masked else np.full(batch, n)
    pairs = (counted * (counted - 1) // 2).astype(dtype)
    return SignSums(concordance, untied_x, untied_y, pairs, agreement, rank_x, rank_y)


def _table_block(code_x: np.ndarray, code_y: np.ndarray, present: np.ndarray) -> PairCounts:
    """:func:`table_counts` of one block of rows. ``T[r, a, b]`` counts the complete
    positions of row ``r`` with codes ``a`` and ``b``; concordant pairs are ``sum T[a, b]
    #{a' > a, b' > b}``, discordant ``sum T[a, b] #{a' > a, b' < b}``, pairs tied in both
    ``sum C(T[a, b], 2)``, in ``x`` ``sum_a C(T[a, :].sum(), 2)`` (both included)."""
    rows = code_x.shape[0]
    size_x = int(code_x.max()) + 1
    size_y = int(code_y.max()) + 1
    cell = (np.arange(rows)[:, None] * size_x + code_x) * size_y + code_y
    table = np.bincount(cell[present], minlength=rows * size_x * size_y)
    table = table.reshape(rows, size_x, size_y)
    above_x = np.cumsum(table[:, ::-1], axis=1)[:, ::-1] - table  # positions with a' > a
    above_both = np.cumsum(above_x[:, :, ::-1], axis=2)[:, :, ::-1] - above_x  # b' > b
    above_x_below_y = np.cumsum(above_x, axis=2) - above_x  # a' > a, b' < b
    concordant = (table * above_both).sum(axis=(1, 2))
    discordant = (table * above_x_below_y).sum(axis=(1, 2))
    both = (table * (table - 1) // 2).sum(axis=(1, 2))
    count_x = table.sum(axis=2)
    count_y = table.sum(axis=1)
    in_x = (count_x * (count_x - 1) // 2).sum(axis=1)
    in_y = (count_y * (count_y - 1) // 2).sum(axis=1)
    return PairCounts(concordant, discordant, in_x - both, in_y - both, both)


def table_counts(code_x: np.ndarray, code_y: np.ndarray, present: np.ndarray) -> PairCounts:
    """The tables backend: the :class:`PairCounts` of each row of ``(rows, n)`` integer
    codes (non-negative labels that order and tie like the values wherever ``present``;
    gaps allowed; ignored elsewhere), in blocks of rows; exact."""
    cells_per_row = (int(code_x.max()) + 1) * (int(code_y.max()) + 1)
    block = max(1, TABLE_CELLS_PER_BLOCK // cells_per_row)
    parts = [
        _table_block(
            code_x[start : start + block],
            code_y[start : start + block],
            present[start : start + block],
        )
        for start in range(0, code_x.shape[0], block)
    ]
    return PairCounts(*(np.concatenate(part) for part in zip(*parts, strict=True)))


def _table_codes(
    x: np.ndarray, y: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Dense codes ``(rows, n)`` of both vectors and the mask, when contingency tables of
    them cost less than the offsets (:func:`tables_cheaper`); else None."""
    n = x.shape[-1]
    if n < TABLE_MIN_LENGTH:
        return None
    code_x = dense_ranks(x, present).reshape(-1, n)
    code_y = dense_ranks(y, present).reshape(-1, n)
    if not tables_cheaper(n, (int(code_x.max()) + 1) * (int(code_y.max()) + 1)):
        return None
    return code_x, code_y, present.reshape(-1, n)


def _offset_sums(x: np.ndarray, y: np.ndarray, present: np.ndarray, counts: bool) -> SignSums:
    """:func:`sign_sums` of the rows of ``(..., n)`` arrays (laid out as columns)."""
    n = x.shape[-1]
    columns = [np.ascontiguousarray(np.moveaxis(v.reshape(-1, n), -1, 0)) for v in (x, y)]
    mask = np.ascontiguousarray(present.reshape(-1, n).T)
    return sign_sums(columns[0], columns[1], mask, counts=counts)


def pair_counts(x: np.ndarray, y: np.ndarray, present: np.ndarray) -> PairCounts:
    """The :class:`PairCounts` of each row of ``(..., n)`` arrays over the ``present``
    positions, comparing values exactly, by whichever backend costs less
    (:func:`tables_cheaper`; dense codes of both rows for the tables)."""
    batch = x.shape[:-1]
    tables = _table_codes(x, y, present)
    if tables is not None:
        counts = table_counts(*tables)
    else:
        counts = _offset_sums(x, y, present, counts=True).counts
    return PairCounts(*(count.astype(np.int64).reshape(batch) for count in counts))


def tau_b_rows(x: np.ndarray, y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of ``(..., n)`` arrays: :func:`pair_counts` reduced, the
    offsets counting only tau-b's three sums (``C + D`` unsplit)."""
    tables = _table_codes(x, y, present)
    if tables is not None:
        return table_counts(*tables).tau_b().reshape(x.shape[:-1])
    return _offset_sums(x, y, present, counts=False).tau_b().reshape(x.shape[:-1])


def tied_pairs(values: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(tied pairs, pairs) among each row's ``present`` values ``(..., n)``, comparing
    exactly: the tie counts of one vector, ``sum C(k, 2)`` over its runs of ``k`` equal
    values (each value counts the equal values sorted before it)."""
    ordered = np.sort(np.where(present, values, np.nan), axis=-1)  # NaN sorts last
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ~(ordered[..., 1:] == ordered[..., :-1])
    position = np.broadcast_to(np.arange(ordered.shape[-1]), ordered.shape)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    tied = (position - first).sum(axis=-1)
    count = present.sum(axis=-1)
    return tied, count * (count - 1) // 2
