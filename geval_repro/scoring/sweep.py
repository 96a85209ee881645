"""Replies-per-item sweep: correlation and pairwise accuracy against human scores vs replies
per item.

For each run (judge, benchmark, dimension), parser and coefficient, and n = 1..n_max
(n_max defaults to the run's replies per item, 20 in the release):

- ``first``: each item's score is the mean of its first n replies in released order;
- ``random``: ``draws`` draws (default 200); in each, every item independently gets a
  uniformly random n-subset of its replies (without replacement) and its score is their
  mean. ``value`` is the mean of the draws' correlations, ``band_low``/``band_high`` the
  2.5 / 97.5 percentiles over draws (NaN for ``first``). A draw whose correlation is
  undefined (no document kept) makes all three NaN rather than being dropped silently.

An item's mean follows the parser's counting rule (see :mod:`geval_repro.scoring.item_scores`):
under ``original`` all n replies count (0 for an unread one); under ``tolerant`` the mean
is over the parsed replies among the n taken, and an item none of whose n replies parsed
has no score in that draw (it is left out of its document's correlation). Means are rounded
like :func:`geval_repro.scoring.item_scores.round_mean`, so at n = n_max both modes equal the
full-mean scores of :func:`geval_repro.scoring.item_scores.item_scores` exactly.

Correlations are at the level of the run's benchmark (:mod:`geval_repro.registry.benchmarks`;
:func:`geval_repro.stats.levels.correlate_batch`): SummEval's summary level (per document,
correlate the systems' scores with the human scores, skip a constant vector, average the
kept documents), or the global level (turn level for Topical-Chat, dataset level for QAGS:
one correlation over all items), vectorized over a batch of score matrices: all draws of one
n, or all n of the first-n mode, in one call (at the summary level against the one human
matrix, whose pair signs, near-tie collapse and ranks are computed once per call).

Pairwise accuracy, coefficients ``acc_eq`` and ``acc_eq_calibrated`` (acc*_eq; Deutsch et
al., 2023, see :mod:`geval_repro.stats.accuracy`), is taken at the same level (summary: the
systems' pairs within each document, the mean over the documents of each one's share;
global: all pairs of items), for every n and every draw, with the tie threshold of acc*_eq
re-fitted on each draw's matrix. ``epsilon`` is 0 for acc_eq and the fitted threshold for
acc_eq_calibrated (``random``: the mean over the draws of each draw's threshold), empty for
the correlation coefficients.

``tie_rate`` is :func:`geval_repro.stats.ties.tie_rate` at the same level (summary: pairs of
item scores within a document; global: all pairs); for ``random`` it is pooled over the
draws (tied pairs / pairs over every document of every draw), which equals the mean of the
per-draw rates whenever each draw has the same number of pairs (always under ``original``).
``gain_share`` is ``(value_n - value_1) / (value_nmax - value_1)`` per (run, parser, mode,
coefficient), NaN when the denominator is 0 or undefined.

Draws: for each draw, one random permutation of each item's replies (argsort of uniform
keys, shape ``(draws, n_items, n_replies)``); the n-subset is its first n entries. Each
n-subset is thus uniform, the subsets of one draw are nested across n (common random
numbers, so the curve over n is smooth), and the same draws serve both parsers and all
coefficients. The generator is seeded from the caller's ``seed`` and the run's judge,
benchmark and dimension names (CRC-32), so a run's draws do not depend on which other runs
are swept in the same call.

Computation: each distinct reply text of a run is parsed once per parser. When every
counted value is a small integer (the usual ratings), every mean a prefix of replies can
reach is known in advance (:func:`mean_table`), so running sums of (count, sum) pairs look
up each item's mean as an integer *code*, its rank among those means; when the means are far
enough apart that the tie rule (:mod:`geval_repro.stats.tie_rule`) never ties two of them,
its ties and constant vectors are plain equality of codes, and the codes go straight to
the paths of the coefficients that have one (:mod:`geval_repro.stats.registry`; summary
level: the ``signs`` path, the pair signs of :mod:`geval_repro.stats.pairs`; global level:
the ``codes`` path, counts per code), which also give the tied pairs; the other
coefficients (Pearson) use the means the codes stand for. Otherwise (non-integer replies) the
means are floats and go through :func:`geval_repro.stats.levels.correlate_batch` and
:func:`geval_repro.stats.ties.tie_rate`. Both paths give identical values. Pairwise
accuracies take the codes too: a difference of two means depends only on their two codes, so
its grid code is a table over pairs of codes, built once per run and parser, and all draws
of one n are counted in one pass over their pairs
(:func:`geval_repro.stats.accuracy_batch.coded_accuracies`); float means are coded per step
by their distinct values (:func:`~geval_repro.stats.accuracy_batch.float_accuracies`), with
identical results.

Reply counts: every item of a run must have the same number of replies with
``reply_index`` 0..R-1 (the released files have 20); otherwise :func:`reply_grid` raises,
naming the items that differ.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark, get_benchmark
from geval_repro.scoring.item_scores import check_replies_table, round_mean
from geval_repro.scoring.pairing import matrix_axes, pooled
from geval_repro.scoring.parse import PARSERS, Parser, check_replies, parse
from geval_repro.stats import registry
from geval_repro.stats.accuracy_batch import (
    MAX_TABLE_VALUES,
    DifferenceCodes,
    HumanPairs,
    coded_accuracies,
    float_accuracies,
)
from geval_repro.stats.adaptive import stopped_n_targets
from geval_repro.stats.level import Level
from geval_repro.stats.levels import (
    PAIRWISE_MAX_LENGTH,
    correlate_batch,
    global_rank_batch,
    summary_batch,
    summary_rank_batch,
)
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.registry import ACCURACIES, COEFFICIENTS, PAIRWISE_ACCURACIES, STATISTICS
from geval_repro.stats.tie_rule import RTOL
from geval_repro.stats.ties import tie_rate

#: How the n replies of an item are chosen (the sweep's ``mode`` column): its first n, or
#: random n-subsets (``draws`` of them per n).
SubsetRule = Literal["first", "random"]
SUBSET_RULES: tuple[SubsetRule, ...] = ("first", "random")
DEFAULT_DRAWS = 200
BAND_PERCENTILES = (2.5, 97.5)
SWEEP_COLUMNS = (
    "judge",
    "dimension",
    "parser",
    "mode",
    "n",
    "coefficient",
    "value",
    "band_low",
    "band_high",
    "tie_rate",
    "gain_share",
    "epsilon",
    "se_target",
    "replies_used",
)
#: The adaptive rule's rows (:mod:`geval_repro.stats.adaptive`): ``adaptive_first`` replays
#: it on each item's replies in released order, ``adaptive`` on each draw's random order.
ADAPTIVE_MODES = ("adaptive_first", "adaptive")
#: The standard-error targets the sweep replays the adaptive rule for, and its batch.
DEFAULT_SE_TARGETS = (0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
DEFAULT_BATCH = 4
#: What the pipeline sweeps: the correlation coefficients and both accuracies (acc_eq and
#: the tie-calibrated acc*_eq), every statistic of the registry.
SWEEP_COEFFICIENTS = STATISTICS
RUN_KEYS = ("judge", "benchmark", "dimension")


@dataclass(frozen=True)
class ReplyGrid:
    """One run's parsed replies laid out for the sweep.

    ``values[i, r]``: the counted value of item ``i``'s reply ``r`` (released order), NaN
    when the parser leaves it out. Item ``i`` is system ``systems[rows[i]]`` on document
    ``docs[cols[i]]`` (global level: one pseudo-system, one column per item); ``human`` is
    the ``(n_systems, n_docs)`` human matrix of the run's dimension over the same labels
    (NaN where the run has no item); ``level`` the benchmark's correlation level.
    """

    values: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    systems: list
    docs: list
    human: np.ndarray
    level: Level = Level.SUMMARY

    def in_cell_order(self) -> tuple[ReplyGrid, np.ndarray]:
        """The same grid with its items sorted by matrix cell (system-major), and the item
        order taken from this one (items that fill the matrix then make it by a reshape)."""
        order = np.argsort(self.rows * len(self.docs) + self.cols, kind="stable")
        grid = replace(
            self, values=self.values[order], rows=self.rows[order], cols=self.cols[order]
        )
        return grid, order

    def matrices(self, item_scores: np.ndarray, fill: float = np.nan) -> np.ndarray:
        """Score matrices ``(..., n_systems, n_docs)`` from item scores ``(..., n_items)``
        (``fill`` where the run has no item; a reshaped view when items fill the matrix in
        its own order)."""
        batch = item_scores.shape[:-1]
        shape = (*batch, len(self.systems), len(self.docs))
        cells = self.rows * len(self.docs) + self.cols
        if cells.size == shape[-2] * shape[-1] and np.array_equal(cells, np.arange(cells.size)):
            return item_scores.reshape(shape)
        out = np.full((*batch, shape[-2] * shape[-1]), fill, dtype=item_scores.dtype)
        out[..., cells] = item_scores
        return out.reshape(shape)


def fixed_reply_count(run: pd.DataFrame) -> int:
    """The run's replies per item; raise when items differ or indices are not 0..R-1."""
    keys = list(get_benchmark(str(run["benchmark"].iloc[0])).item_keys)
    per_item = run.groupby(keys, sort=True).agg(
        n=("reply_index", "size"), low=("reply_index", "min"), high=("reply_index", "max")
    )
    count = int(per_item["n"].mode().min())
    bad = per_item[
        (per_item["n"] != count) | (per_item["low"] != 0) | (per_item["high"] != count - 1)
    ]
    if len(bad):
        first = run.iloc[0]
        listed = ", ".join(
            f"({_named(keys, item)}: {n} replies, reply_index {lo}..{hi})"
            for item, n, lo, hi in bad[["n", "low", "high"]].head(5).itertuples(name=None)
        )
        raise ValueError(
            f"sweep needs the same number of replies per item, with reply_index 0..R-1; in run "
            f"judge={first['judge']!r}, dimension={first['dimension']!r} most items have "
            f"{count} but {len(bad)} item(s) differ: {listed}. Fix: sweep only runs whose "
            "items all carry the same replies (drop or re-query the items listed)"
        )
    return count


def _named(keys: list[str], item: object) -> str:
    values = item if isinstance(item, tuple) else (item,)
    return ", ".join(f"{k}={v!r}" for k, v in zip(keys, values, strict=True))


def reply_grids(
    run: pd.DataFrame, human: pd.DataFrame, parsers: Iterable[Parser]
) -> dict[Parser, ReplyGrid]:
    """Lay out one run's replies (a single judge, benchmark and dimension) for the sweep,
    once per parser (the items, human matrix and labels are shared; only the parsed values
    differ).

    ``human`` is the benchmark's tidy table (its item keys, one column per dimension).
    Raises when the run's reply counts differ between items or an item has no human score.
    """
    check_replies_table(run)
    if len(run) == 0:
        raise ValueError("empty replies table: nothing to sweep")
    distinct = run.loc[:, list(RUN_KEYS)].drop_duplicates()
    if len(distinct) != 1:
        raise ValueError(
            f"reply_grids takes one run, got {len(distinct)}: {distinct.to_dict('records')}"
        )
    dimension = str(distinct["dimension"].iloc[0])
    if dimension not in human.columns:
        raise ValueError(f"human table has no {dimension!r} column")
    count = fixed_reply_count(run)
    benchmark = get_benchmark(str(distinct["benchmark"].iloc[0]))
    keys = list(benchmark.item_keys)

    ordered = run.sort_values([*keys, "reply_index"], kind="stable")
    items = ordered.loc[ordered["reply_index"] == 0, keys]

    axes = matrix_axes(benchmark)
    extra = [c for c in axes if c in human.columns and c not in keys]
    gold = items.merge(human[[*keys, *extra, dimension]], on=keys, how="left")
    absent = gold[dimension].isna()
    if absent.any():
        listed = ", ".join(
            f"({_named(keys, item)})"
            for item in gold.loc[absent, keys].head(5).itertuples(index=False, name=None)
        )
        raise ValueError(
            f"{int(absent.sum())} item(s) of the {dimension} run have no human score, e.g. "
            f"{listed}. Fix: pass the human table of the benchmark the replies belong to"
        )
    system_column, doc_column = axes
    gold = pooled(gold, benchmark)
    human_matrix, systems, docs = to_matrix(
        gold, dimension, systems=system_column, inputs=doc_column
    )
    rows = pd.Index(systems).get_indexer(gold[system_column])
    cols = pd.Index(docs).get_indexer(gold[doc_column])
    return {
        parser: ReplyGrid(
            values,
            rows,
            cols,
            systems,
            docs,
            human_matrix,
            benchmark.level,
        )
        for parser, values in reply_values(ordered, dimension, benchmark, parsers, count).items()
    }


def reply_values(
    ordered: pd.DataFrame,
    dimension: str,
    benchmark: Benchmark,
    parsers: Iterable[Parser],
    count: int,
) -> dict[Parser, np.ndarray]:
    """Per parser, the counted value of each reply of ``ordered`` (one run's replies sorted
    by item, then ``reply_index``; ``count`` per item) as an ``(items, count)`` array, NaN
    where the parser leaves a reply out. Each distinct reply text is parsed once per
    parser, then mapped back to its replies."""
    check_replies(ordered["reply"])
    codes, texts = pd.factorize(ordered["reply"].astype(str))
    distinct = pd.Series(texts, dtype=object)
    return {
        parser: parse(distinct, dimension, parser, benchmark.name)
        .to_numpy(dtype=float)[codes]
        .reshape(-1, count)
        for parser in parsers
    }


MEAN_TABLE_MAX_CELLS = 1 << 20  # (count, sum) lookup tables up to this size
MAX_MEANS = 1 << 14  # distinct means a table may code (the pair-sign kernel's code range)


@dataclass(frozen=True)
class MeanCodes:
    """Every rounded mean that running sums of a run's counted values can reach, coded.

    A prefix of replies with ``count`` counted values summing to ``total`` (integers) is
    the cell ``count * width + total - low`` of ``codes`` (flattened); its code is the
    rank of ``round_mean(total / count)`` among the distinct means ``values[:-1]``
    (ascending), -1 when nothing is counted. ``values[code]`` is the mean (``values[-1]``
    is NaN).
    """

    codes: np.ndarray
    values: np.ndarray
    width: int
    low: int

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Each counted value as ``width + value`` (an uncounted one as 0), int32: running
        sums of these, minus ``low``, are cells of ``codes``."""
        counted = ~np.isnan(values)
        return np.where(counted, values + self.width, 0.0).astype(np.int32)

    def distinct_apart(self) -> bool:
        """Whether any two different means differ by at least the tie rule's ``RTOL`` times
        the largest magnitude, so that the rule never ties two of them: its ties (and
        constant vectors) are then equal codes."""
        means = self.values[:-1]
        if means.size < 2:
            return True
        return float(np.diff(means).min()) >= RTOL * float(np.abs(means).max())


def _running_sums(values: np.ndarray) -> np.ndarray:
    """``np.cumsum(values, axis=0)`` (the same additions in the same order), one vectorized
    addition per step of the first axis (numpy's cumsum along a leading axis runs element by
    element)."""
    values = np.ascontiguousarray(values)  # each step then adds contiguous blocks
    sums = np.empty_like(values)
    sums[0] = values[0]
    for i in range(1, len(values)):
        np.add(sums[i - 1], values[i], out=sums[i])
    return sums


def _prefix_codes(encoded: np.ndarray, means: MeanCodes) -> np.ndarray:
    """Codes of the means of the first n values along the first axis, for every n:
    ``encoded`` ``(R, ...)`` from :meth:`MeanCodes.encode` -> ``(R, ...)`` int16."""
    cells = _running_sums(encoded)
    cells -= means.low
    return means.codes[cells]


def prefix_means(values: np.ndarray, means: MeanCodes | None) -> np.ndarray:
    """Means of the first n counted values along the first axis, for every n (NaN if none).

    ``values`` ``(R, ...)`` (replies first, so the running sums are vectorized over the rest)
    -> ``(R, ...)`` with entry ``n - 1`` the rounded mean over the first n. ``means``: the
    :func:`mean_table` of the values these are drawn from (None: none). With a table, every
    counted value is a small integer (the usual 1-5 ratings) and each mean is
    ``round_mean(sum / count)`` of an integer sum and count, looked up (computed with the same
    float operations; the float running sums of integers are exact) instead of being divided
    and rounded element by element.
    """
    if means is not None:
        return means.values[_prefix_codes(means.encode(values), means)]
    counted = ~np.isnan(values)
    sums = _running_sums(np.where(counted, values, 0.0))
    counts = _running_sums(counted.astype(np.int32))
    with np.errstate(invalid="ignore", divide="ignore"):
        return round_mean(np.where(counts > 0, sums / counts, np.nan))


def mean_table(values: np.ndarray) -> MeanCodes | None:
    """The :class:`MeanCodes` of ``round_mean(s / c)`` for every count ``c`` and sum ``s``
    that running sums of up to R values of ``values`` ``(n_items, R)`` can reach, or None
    when a counted value is not an integer (or is -0.0, whose sign a float sum could keep),
    the table would exceed :data:`MEAN_TABLE_MAX_CELLS` or the means :data:`MAX_MEANS`."""
    present = values[~np.isnan(values)]
    if present.size == 0:
        return None
    smallest, largest = float(present.min()), float(present.max())
    replies = values.shape[-1]
    low = replies * min(int(smallest), 0) if np.isfinite(smallest) else 0
    high = replies * max(int(largest), 0) if np.isfinite(largest) else 0
    if (replies + 1) * (high - low + 1) > MEAN_TABLE_MAX_CELLS:
        return None
    if not (np.all(present == np.rint(present)) and not np.any(np.signbit(present[present == 0]))):
        return None
    sums = np.arange(low, high + 1, dtype=float)
    counts = np.arange(replies + 1)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        table = round_mean(np.where(counts > 0, sums / counts, np.nan))
    means, codes = np.unique(table[1:], return_inverse=True)  # count 0: NaN, coded -1
    if means.size > MAX_MEANS:
        return None
    coded = np.full(table.shape, -1, dtype=np.int16)
    coded[1:] = codes.reshape(table[1:].shape)
    return MeanCodes(coded.ravel(), np.append(means, np.nan), table.shape[1], low)


def run_seed(seed: int, judge: str, benchmark: str, dimension: str) -> np.random.SeedSequence:
    names = [zlib.crc32(str(name).encode("utf-8")) for name in (judge, benchmark, dimension)]
    return np.random.SeedSequence([seed, *names])


def random_permutations(
    n_items: int, n_replies: int, draws: int, seed: np.random.SeedSequence | int
) -> np.ndarray:
    """``(draws, n_items, n_replies)``: an independent random permutation per draw and item."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((draws, n_items, n_replies)), axis=-1)


def _batch_values(
    batch: np.ndarray, grid: ReplyGrid, coefficients: tuple[str, ...]
) -> dict[str, np.ndarray]:
    """Correlation of every matrix of ``batch`` with the run's human matrix, per coefficient,
    at the run's level (summary level: one call sharing the pair signs of the batch)."""
    if grid.level.grouped:
        return {c: r.value for c, r in summary_batch(batch, grid.human, coefficients).items()}
    human = np.broadcast_to(grid.human, batch.shape)
    return {c: correlate_batch(batch, human, grid.level, c).value for c in coefficients}


def _coded_step(
    codes: np.ndarray, grid: ReplyGrid, coefficients: tuple[str, ...], coding: MeanCodes
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Values and (tied, all) item pairs of every entry of ``codes`` ``(batch, n_items)``
    at the run's level (pairs within documents at the summary level, from the pair signs
    of the codes; all pairs at the global level, from counts per code). The human matrix is
    present wherever the run has an item, so complete pairs are the pairs of scored items;
    means of ``coding`` are far enough apart that equal codes are exactly the tied scores."""
    matrices = grid.matrices(codes, fill=-1)
    hook = "signs" if grid.level.grouped else "codes"
    ranked = tuple(c for c in coefficients if getattr(registry.coefficient(c), hook) is not None)
    rank_batch = summary_rank_batch if grid.level.grouped else global_rank_batch
    results, ties = rank_batch(matrices, grid.human, ranked)
    values = {c: r.value for c, r in results.items()}
    rest = tuple(c for c in coefficients if c not in ranked)
    if rest:
        values |= _batch_values(coding.values[matrices], grid, rest)
    return {c: values[c] for c in coefficients}, ties.tied, ties.pairs


def _tie_counts(batch: np.ndarray, level: Level) -> tuple[int, int]:
    """(tied pairs, pairs) of :func:`~geval_repro.stats.ties.tie_rate` summed over the
    matrices of ``batch`` (entries, systems, docs), pairs within each entry: within each
    document (summary level) or among all items (global level, one row of items)."""
    if level.pooled:
        rate = tie_rate(batch[:, 0, :].T, "summary")
    else:
        rate = tie_rate(np.moveaxis(batch, 0, 1).reshape(batch.shape[1], -1), "summary")
    return rate.n_tied_pairs, rate.n_pairs


def _rate(tied: int, pairs: int) -> float:
    return int(tied) / int(pairs) if pairs else float("nan")


class AccuracyTables(NamedTuple):
    """What the accuracy coefficients of one laid-out run need, built once: the human side
    of its pairs, and the differences of the means its codes stand for (None when
    the scores are float means, coded per step)."""

    pairs: HumanPairs
    differences: DifferenceCodes | None


def accuracy_tables(grid: ReplyGrid, coding: MeanCodes | None) -> AccuracyTables:
    """The :class:`AccuracyTables` of ``grid`` whose scores are codes of ``coding`` (None:
    float means)."""
    means = None if coding is None else coding.values[:-1]
    usable = means is not None and means.size <= MAX_TABLE_VALUES
    return AccuracyTables(
        HumanPairs.of(grid.human, grid.level), DifferenceCodes.of(means) if usable else None
    )


def _accuracy_step(
    scores: np.ndarray, grid: ReplyGrid, coding: MeanCodes | None, tables: AccuracyTables
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """acc_eq and acc*_eq (values, thresholds) of every entry of ``scores``
    ``(batch, n_items)``: codes of ``coding``, or means when ``coding`` is None."""
    if tables.differences is not None:
        result = coded_accuracies(grid.matrices(scores, fill=-1), tables.differences, tables.pairs)
    else:
        means = coding.values[scores] if coding is not None else scores
        result = float_accuracies(grid.matrices(means), tables.pairs)
    values, thresholds = {}, {}
    for accuracy in PAIRWISE_ACCURACIES:
        values[accuracy.name] = result.calibrated if accuracy.calibrated else result.acc_eq
        thresholds[accuracy.name] = (
            result.epsilon if accuracy.calibrated else np.zeros_like(result.epsilon)
        )
    return values, thresholds


def _step(
    scores: np.ndarray,
    grid: ReplyGrid,
    coefficients: tuple[str, ...],
    coding: MeanCodes | None,
    coded: bool,
    pooled: bool,
    tables: AccuracyTables | None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[float]]:
    """Per-coefficient values of every entry of ``scores`` ``(batch, n_items)`` (codes of
    ``coding`` when ``coding`` is given, else means; ``coded``: the codes go to the rank
    kernels), the accuracies' thresholds, and tie rates: one pooled over the entries
    (``pooled``) or one per entry. ``tables``: needed when an accuracy is asked for."""
    correlations = tuple(c for c in coefficients if c not in ACCURACIES)
    if coded:
        values, tied, pairs = _coded_step(scores, grid, correlations, coding)
        if pooled:
            ties = [_rate(tied.sum(), pairs.sum())]
        else:
            ties = [_rate(t, p) for t, p in zip(tied, pairs, strict=True)]
    else:
        batch = grid.matrices(coding.values[scores] if coding is not None else scores)
        values = _batch_values(batch, grid, correlations)
        if pooled:
            ties = [_rate(*_tie_counts(batch, grid.level))]
        else:
            ties = [tie_rate(matrix, grid.level).rate for matrix in batch]
    thresholds: dict[str, np.ndarray] = {}
    if len(correlations) < len(coefficients):
        accuracies, thresholds = _accuracy_step(scores, grid, coding, tables)
        values |= accuracies
    return {c: values[c] for c in coefficients}, thresholds, ties


def _sweep_grid(
    grid: ReplyGrid,
    coefficients: Iterable[str],
    n_max: int,
    first: bool,
    taken: np.ndarray | None,
    targets: tuple[float, ...] = (),
    batch: int = DEFAULT_BATCH,
) -> pd.DataFrame:
    """Sweep rows (without run labels and gain share) for one laid-out run and parser.

    ``first``: include the first-n mode; ``taken``: the random mode's draws as flat
    positions in ``grid.values`` ``(n_max, draws, n_items)``, the i-th reply taken for each
    item in each draw (``None`` to skip the random mode); ``targets``: the standard-error
    targets of the adaptive rows (rule of :mod:`geval_repro.stats.adaptive`, ``batch``,
    maximum ``n_max``), in released order with the first mode and in each draw's order with
    the random mode (none when ``n_max`` < ``batch``).
    """
    coefficients = tuple(coefficients)
    rows: list[dict] = []
    ns = np.arange(1, n_max + 1)
    if n_max < batch:  # the rule cannot stop before its maximum: no adaptive rows
        targets = ()
    coding = mean_table(grid.values)
    # integer codes of the means feed the rank kernels directly (summary: pair signs;
    # global: counts per code)
    coded = (
        coding is not None
        and (grid.level.pooled or len(grid.systems) <= PAIRWISE_MAX_LENGTH)
        and coding.distinct_apart()
    )
    wanted = set(coefficients) & set(ACCURACIES)
    tables = accuracy_tables(grid, coding) if wanted else None

    def prefix(values: np.ndarray) -> np.ndarray:  # (R, ...) -> codes or means (n_max, ...)
        if coding is None:
            return prefix_means(values, None)[:n_max]
        return _prefix_codes(values, coding)[:n_max]

    encoded = grid.values if coding is None else coding.encode(grid.values)
    if first:
        scores = prefix(encoded.T)  # (n_max, n_items)
        stops = stopped_n_targets(grid.values, batch, targets, n_max) if targets else []
        for target, used in zip(targets, stops, strict=True):  # released order; (n_items,)
            chosen = np.take_along_axis(scores, used[None, :] - 1, axis=0)
            values, thresholds, ties = _step(
                chosen, grid, coefficients, coding, coded, pooled=False, tables=tables
            )
            rows += _adaptive_rows(
                "adaptive_first", values, thresholds, ties[0], target, used, n_max
            )
        values, thresholds, ties = _step(
            scores, grid, coefficients, coding, coded, pooled=False, tables=tables
        )
        for coefficient, value in values.items():
            epsilon = thresholds.get(coefficient, np.full(n_max, np.nan))
            rows += [
                {
                    "mode": "first",
                    "n": int(n),
                    "coefficient": coefficient,
                    "value": float(v),
                    "band_low": np.nan,
                    "band_high": np.nan,
                    "tie_rate": t,
                    "epsilon": float(e),
                }
                for n, v, t, e in zip(ns, value, ties, epsilon, strict=True)
            ]
    if taken is not None:
        scores = prefix(encoded.ravel()[taken])  # (n_max, draws, n_items)
        stops = []
        if targets:  # the rule on each draw's order of each item's replies
            drawn = np.moveaxis(grid.values.ravel()[taken], 0, -1)  # (draws, n_items, n_max)
            stops = stopped_n_targets(drawn, batch, targets, n_max)  # (targets, draws, items)
        for target, used in zip(targets, stops, strict=True):
            chosen = np.take_along_axis(scores, used[None] - 1, axis=0)[0]
            values, thresholds, (ties,) = _step(
                chosen, grid, coefficients, coding, coded, pooled=True, tables=tables
            )
            rows += _adaptive_rows("adaptive", values, thresholds, ties, target, used, n_max)
        for n in ns:
            values, thresholds, (ties,) = _step(
                scores[n - 1], grid, coefficients, coding, coded, pooled=True, tables=tables
            )
            for coefficient, value in values.items():
                low, high = np.percentile(value, BAND_PERCENTILES)
                epsilon = thresholds.get(coefficient)
                rows.append(
                    {
                        "mode": "random",
                        "n": int(n),
                        "coefficient": coefficient,
                        "value": float(value.mean()),
                        "band_low": float(low),
                        "band_high": float(high),
                        "tie_rate": ties,
                        "epsilon": np.nan if epsilon is None else float(epsilon.mean()),
                    }
                )
    frame = pd.DataFrame(rows)
    fixed = ~frame["mode"].isin(ADAPTIVE_MODES)
    frame.loc[fixed, "replies_used"] = frame.loc[fixed, "n"].astype(float)
    return frame


def _adaptive_rows(
    mode: str,
    values: dict[str, np.ndarray],
    thresholds: dict[str, np.ndarray],
    ties: float,
    target: float,
    used: np.ndarray,
    n_max: int,
) -> list[dict]:
    """The rows of one standard-error target: per coefficient the value (the mean over the
    draws, with the 2.5-97.5 % band, for ``adaptive``; the released order's value for
    ``adaptive_first``), the tie rate, the target and the mean replies used per item; ``n``
    is the rule's maximum ``n_max``."""
    rows = []
    for coefficient, value in values.items():
        value = np.asarray(value, dtype=float)
        band = np.percentile(value, BAND_PERCENTILES) if mode == "adaptive" else (np.nan,) * 2
        epsilon = thresholds.get(coefficient)
        rows.append(
            {
                "mode": mode,
                "n": n_max,
                "coefficient": coefficient,
                "value": float(value.mean()),
                "band_low": float(band[0]),
                "band_high": float(band[1]),
                "tie_rate": float(ties),
                "epsilon": np.nan if epsilon is None else float(np.mean(epsilon)),
                "se_target": target,
                "replies_used": float(used.mean()),
            }
        )
    return rows


def gain_share(frame: pd.DataFrame) -> pd.Series:
    """``(value_n - value_1) / (value_nmax - value_1)`` within each sweep curve of fixed n
    (NaN for the adaptive rows, and for the whole curve when its value at n = 1 or at n_max
    is undefined: the share has no start or no end; 0 is written 0.0, never -0.0)."""
    curve = ["judge", "dimension", "parser", "mode", "coefficient"]
    fixed = ~frame["mode"].isin(ADAPTIVE_MODES)
    grouped = frame[fixed].sort_values("n").groupby(curve, sort=False)["value"]
    start = grouped.transform(lambda values: values.iloc[0])  # value at n = 1, NaN kept
    span = grouped.transform(lambda values: values.iloc[-1]) - start  # at n_max minus at 1
    return ((frame["value"] - start) / span).where(span != 0) + 0.0


def sweep(
    replies: pd.DataFrame,
    human: pd.DataFrame,
    *,
    seed: int,
    parsers: Iterable[Parser] = PARSERS,
    coefficients: Iterable[str] = COEFFICIENTS,
    modes: Iterable[SubsetRule] = SUBSET_RULES,
    draws: int = DEFAULT_DRAWS,
    n_max: int | None = None,
    se_targets: Iterable[float] = DEFAULT_SE_TARGETS,
    batch: int = DEFAULT_BATCH,
) -> pd.DataFrame:
    """The replies-per-item sweep of every run in ``replies`` (see the module docstring).

    ``replies``: the long replies table (one or more runs of one benchmark); ``human``: the
    benchmark's tidy table (e.g. :func:`geval_repro.load.summeval.load_summeval`); ``seed``:
    a non-negative integer; ``coefficients``: any of :data:`SWEEP_COEFFICIENTS` (default:
    the correlation coefficients; the pipeline sweeps all of them); ``n_max``: the largest n
    (default: the run's replies per item); ``se_targets`` and ``batch``: the adaptive rule's
    rows (:data:`ADAPTIVE_MODES`; none when ``se_targets`` is empty). Returns a DataFrame
    with the columns of :data:`SWEEP_COLUMNS`, sorted by judge, dimension, parser, mode,
    coefficient, n and standard-error target (descending).
    """
    modes = tuple(modes)
    parsers = tuple(parsers)
    coefficients = tuple(coefficients)
    unknown = set(modes) - set(SUBSET_RULES)
    if unknown:
        raise ValueError(f"unknown sweep modes {sorted(unknown)}: use {SUBSET_RULES}")
    unknown = set(coefficients) - set(SWEEP_COEFFICIENTS)
    if unknown:
        raise ValueError(f"unknown coefficients {sorted(unknown)}: use {SWEEP_COEFFICIENTS}")
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    check_replies_table(replies)
    benchmarks = sorted(replies["benchmark"].unique())
    if len(benchmarks) != 1:
        raise ValueError(
            f"sweep correlates at one benchmark's level at a time; the replies table holds "
            f"{benchmarks}: pass one benchmark's replies"
        )
    frames = []
    for (judge, benchmark, dimension), run in replies.groupby(list(RUN_KEYS), sort=True):
        grids = reply_grids(run, human, parsers)
        count = next(iter(grids.values())).values.shape[1]
        top = count if n_max is None else n_max
        if not 1 <= top <= count:
            raise ValueError(
                f"n_max={top} but run judge={judge!r}, dimension={dimension!r} has {count} "
                "replies per item: choose 1 <= n_max <= replies per item"
            )
        taken = None
        for parser, grid in grids.items():
            grid, order = grid.in_cell_order()  # the same order for every parser
            if "random" in modes and taken is None:  # shared by both parsers
                seq = run_seed(seed, str(judge), str(benchmark), str(dimension))
                permutations = random_permutations(len(grid.rows), count, draws, seq)
                # each item's draws (generated in reply_grids' item order), in cell order: the
                # first n_max replies taken as flat positions in grid.values, replies first
                offsets = np.arange(len(grid.rows)) * count
                small = permutations[..., :top].astype(np.min_scalar_type(count - 1))
                taken = np.moveaxis(small, -1, 0)[:, :, order].astype(np.int32, order="C")
                taken += offsets.astype(np.int32)
                del permutations
            part = _sweep_grid(
                grid, coefficients, top, "first" in modes, taken, tuple(se_targets), batch
            )
            frames.append(part.assign(judge=judge, dimension=dimension, parser=parser))
    out = pd.concat(frames, ignore_index=True)
    out["gain_share"] = gain_share(out)
    if "se_target" not in out:
        out["se_target"] = np.nan
    out["se_target"] = out["se_target"].astype(float)
    order = ["judge", "dimension", "parser", "mode", "coefficient", "n", "se_target"]
    ascending = [True] * 6 + [False]
    return out.loc[:, list(SWEEP_COLUMNS)].sort_values(
        order, ascending=ascending, ignore_index=True
    )
