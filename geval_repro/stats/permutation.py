"""Paired permutation test for the difference of two metrics' correlations (Deutsch et al.,
2021; nlpstats' ``permutation_test``).

Null hypothesis: metrics A and B are exchangeable on the same items, so
``corr(A, human) - corr(B, human)`` is as likely as its negation. Each resample swaps the
A and B scores of randomly chosen units (each unit with probability 1/2), then recomputes the
difference at the same level with the same coefficient. Units (the level's default first):

- ``inputs`` (default for summary): swap whole columns (inputs/documents);
- ``systems`` (default for system): swap whole rows;
- ``items`` (default for global): swap single cells;
- ``both``: swap rows and columns independently; a cell ends up swapped when exactly one of
  its row and column is (nlpstats applies the two swaps in turn, which is the same).

Scale: A and B are first standardized, each by the mean and standard deviation of all its
present cells (as nlpstats does), so that a swapped cell is on the scale of the scores
around it. The observed statistic is not taken from the standardized scores: it is
``corr(A, human) - corr(B, human)`` computed by ``correlate_batch`` on the raw matrices, the
floats the results tables print, so a table's difference is its two values' difference.

Ties (the rank coefficients at the summary and global levels; :func:`tie_codes`): two
values of one metric tie exactly when they tie in its raw scores under the tie rule
(:mod:`geval_repro.stats.tie_rule`, over the complete cells of each vector the level ranks:
each input's systems, or the global level's cells); a value of A and a value of B are
compared on the standardized scale, and tie when their standardized values are equal
floats. Standardizing is monotone (``fl(x - mean)`` and ``fl(y / sd)`` never invert an
order, tested) but can round distinct raw values onto one float, and the tie rule applied
after centering would merge raw-distinct values (BLEU-4's scores of 1e-17 to 1e-10 sit a
few 1e-10 apart around ``-mean / sd``): so each raw cluster is replaced by its
representative's standardized value ``z``, the pooled values are ordered by ``(z, c)`` with
no second tolerance, and ``c`` breaks the ties of one metric's clusters that standardize
to the same float by their raw order (centred: ``c = i - (k - 1) / 2`` for the ``i``-th of
``k`` such clusters, 0 for a cluster alone on its float). The swapped scores are these
keys' dense ranks, integers that the tie rule leaves as they are, so with nothing swapped
each metric's ranks are those of its raw scores, and every resample's are compared
exactly. Constant vectors are then those with one key. At the system level the rank
coefficients rank the systems' means of the standardized scores (a swapped mean mixes
both metrics: no raw scale exists), with the tie rule.

P-value: ``(1 + k) / (1 + n)`` where ``n`` counts permuted differences that are defined and
``k`` those at least as extreme as the observed one (|d| >= |observed| two-sided, d >=
observed for "greater", d <= observed for "less"; differences within 1e-12 count as
ties). The +1 makes the Monte Carlo p-value valid and never zero (Phipson & Smyth, 2010);
nlpstats reports ``k / n_resamples`` instead, which ``distribution`` lets you recompute.

Evaluation (same values as recomputing each swapped matrix with ``correlate_batch``: bit
for bit for the rank coefficients, within rounding for Pearson; tested), by the
coefficient's registry entry (:mod:`geval_repro.stats.registry`):

- summary level, whole inputs swapped (any coefficient): a swap only exchanges which of an
  input's two correlations (A's or B's) enters each average, so each input's correlations
  are computed once (also for the observed statistic) and every resample averages the
  chosen ones; a metric's correlations depend on it alone (:class:`DocumentSide`), so the
  tests of one metric against several can share them (:func:`document_test`);
- global level, and summary level with other units: the entry's ``swaps`` path, from
  per-item terms without building any swapped matrix
  (:mod:`geval_repro.stats.permutation_terms`, :mod:`geval_repro.stats.swapped_sums`);
- system level (any coefficient): whole systems swapped, each resample's means are the
  two metrics' means; other units, for an entry with ``system_sums``, the means are sums
  of the swapped differences (:func:`_system_differences`);
- otherwise (no such path, or none for the groups: Kendall's forms on groups of more than
  :data:`~geval_repro.stats.swapped_sums.FORM_MAX_ITEMS` items): every swapped matrix is
  recomputed with the coefficient's row function (the generic path).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from geval_repro.stats import registry
from geval_repro.stats.level import UNITS, Level
from geval_repro.stats.levels import correlate_batch, kept_mean, summary_terms
from geval_repro.stats.matrix import as_score_matrix, as_score_pair
from geval_repro.stats.permutation_terms import grouped, swapped_differences
from geval_repro.stats.registry import Coefficient
from geval_repro.stats.results import PermutationResult
from geval_repro.stats.swapped_sums import CELLS_PER_BLOCK
from geval_repro.stats.tie_rule import collapse_near_ties

ALTERNATIVES = ("two-sided", "greater", "less")
TIE_TOLERANCE = 1e-12


def _standardize(scores: np.ndarray, name: str) -> np.ndarray:
    """``(scores - mean) / sd`` over the present cells; a metric without present cells or
    constant over them raises."""
    if np.isnan(scores).all():
        raise ValueError(f"{name} has no present cell: nothing to compare")
    sd = np.nanstd(scores)
    if not sd > 0:
        raise ValueError(f"{name} is constant over its present cells: nothing to compare")
    return (scores - np.nanmean(scores)) / sd


def _metric_keys(
    raw: np.ndarray, seen: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One metric's keys ``(z, c)`` ``(G, m)`` of its grouped ``raw`` scores (module
    docstring, Ties): the near-tie clusters of each group's ``seen`` values (present ones
    not seen keep their value), standardized by ``scores``' mean and sd like
    :func:`_standardize`; ``c`` orders the clusters of a group that standardize to one
    float by their raw values."""
    representative = raw.copy()
    collapsed = collapse_near_ties(np.where(seen, raw, np.nan))
    representative[seen] = collapsed[seen]
    z = (representative - np.nanmean(scores)) / np.nanstd(scores)
    c = np.zeros(raw.shape)
    group, item = np.nonzero(~np.isnan(raw))
    zs, rs = z[group, item], representative[group, item]
    order = np.lexsort((rs, zs, group))
    group, item, zs, rs = group[order], item[order], zs[order], rs[order]
    run = np.ones(order.size, dtype=bool)  # a new (group, z) float
    run[1:] = (group[1:] != group[:-1]) | (zs[1:] != zs[:-1])
    distinct = run.copy()  # a new cluster
    distinct[1:] |= rs[1:] != rs[:-1]
    cluster = np.cumsum(distinct)
    run_of = np.cumsum(run) - 1
    index = cluster - cluster[run][run_of]  # the cluster's place on its float
    if order.size:
        size = np.maximum.reduceat(index, np.flatnonzero(run)) + 1
        c[group, item] = index - (size[run_of] - 1) / 2
    return z, c


def _dense_codes(z: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The dense ranks of the keys ``(z, c)`` ``(G, m)`` in each row: floats from 0, NaN
    where ``z`` is."""
    group, item = np.nonzero(~np.isnan(z))
    zs, cs = z[group, item], c[group, item]
    order = np.lexsort((cs, zs, group))
    group, item, zs, cs = group[order], item[order], zs[order], cs[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = group[1:] != group[:-1]
    new = first.copy()
    new[1:] |= (zs[1:] != zs[:-1]) | (cs[1:] != cs[:-1])
    label = np.cumsum(new)
    codes = np.full(z.shape, np.nan)
    codes[group, item] = label - label[first][np.cumsum(first) - 1]  # from 0 in each vector
    return codes


def tie_codes(
    metric_a: np.ndarray, metric_b: np.ndarray, human: np.ndarray, level: Level | str
) -> tuple[np.ndarray, np.ndarray]:
    """A's and B's scores as the rank coefficients compare them in the test, at the summary
    or global level (module docstring, Ties): the dense ranks (floats, NaN where missing) of
    the keys ``(z, c)`` pooled over A and B in each vector the level ranks, each metric's
    clusters formed over the vector's complete cells."""
    level = Level(level)
    raw_a, raw_b = grouped(metric_a, level), grouped(metric_b, level)
    seen = ~(np.isnan(raw_a) | np.isnan(grouped(human, level)))
    keys_a, keys_b = _metric_keys(raw_a, seen, metric_a), _metric_keys(raw_b, seen, metric_b)
    codes = _dense_codes(
        np.concatenate([keys_a[0], keys_b[0]], axis=-1),
        np.concatenate([keys_a[1], keys_b[1]], axis=-1),
    )
    m = raw_a.shape[-1]
    shape = metric_a.shape
    if level.pooled:
        return codes[0, :m].reshape(shape), codes[0, m:].reshape(shape)
    return np.ascontiguousarray(codes[:, :m].T), np.ascontiguousarray(codes[:, m:].T)


class DocumentSide(NamedTuple):
    """One metric's part of summary-level paired tests with whole inputs swapped
    (:func:`document_side`; module docstring, Evaluation). It depends on the metric, the
    human matrix and the coefficient only: the tests of one metric against several others
    on the same items share it.

    ``observed``: the summary-level ``coefficient`` correlation of the metric's raw scores
    (:func:`~geval_repro.stats.levels.correlate_batch`; NaN when undefined); ``added``
    ``(n_inputs,)``: each input's correlation of the scores the test swaps, 0 where the input
    is not kept; ``kept``: whether it is (both read-only).
    """

    coefficient: str
    observed: float
    added: np.ndarray
    kept: np.ndarray


def document_side(
    metric: np.ndarray, human: np.ndarray, coefficient: str, name: str = "metric"
) -> DocumentSide:
    """``metric``'s :class:`DocumentSide` against ``human`` (``(n_systems, n_inputs)``
    matrices, validated as by :func:`paired_permutation_test`). The scores the test swaps:
    the standardized scores; for a rank coefficient the dense ranks of the metric's own
    keys in each input, which order and tie its values within an input as the codes
    pooled with any other metric do (:func:`tie_codes`: a metric's distinct clusters have
    distinct keys), so each input's correlation is the same. A metric without present
    cells or constant over them raises, named ``name``."""
    metric, human = as_score_pair(metric, human)
    entry = registry.coefficient(coefficient)
    scores = _standardize(metric, name)
    observed = float(correlate_batch(metric, human, Level.SUMMARY, coefficient).value)
    if entry.rank_based:
        raw = grouped(metric, Level.SUMMARY)
        seen = ~(np.isnan(raw) | np.isnan(grouped(human, Level.SUMMARY)))
        scores = np.ascontiguousarray(_dense_codes(*_metric_keys(raw, seen, metric)).T)
    corr, kept, _ = summary_terms(scores, human, coefficient)
    added, kept = np.where(kept, corr, 0.0), kept.copy()
    for shared in (added, kept):  # tests share a side: none may change it
        shared.setflags(write=False)
    return DocumentSide(coefficient, observed, added, kept)


def permuted_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray:
    """``corr(A', human) - corr(B', human)`` for each swap mask (module docstring,
    Evaluation): the test's permuted differences. ``swap``: booleans ``(n_resamples,
    n_systems or 1, n_inputs or 1)``, where True A' takes B's score and B' takes A's; NaN
    where undefined. A rank coefficient compares the scores exactly where cells (not whole
    inputs) are swapped at the summary and global levels: pass the test's tie codes there
    (:func:`tie_codes`; other scores raise)."""
    level = Level(level)
    entry = registry.coefficient(coefficient)
    swap = np.asarray(swap, dtype=bool)
    if level.grouped and swap.shape[1] == 1:
        fast = _swapped_documents(metric_a, metric_b, human, entry.name, swap[:, 0, :])
    elif level is Level.SYSTEM:
        fast = _system_differences(metric_a, metric_b, human, entry, swap)
    else:
        if entry.rank_based and not all(_integral(m) for m in (metric_a, metric_b)):
            raise ValueError(
                f"{coefficient} at the {level} level with cells swapped compares the scores' "
                "tie codes: pass tie_codes(metric_a, metric_b, human, level)"
            )
        fast = swapped_differences(metric_a, metric_b, human, level, entry, swap)
    if fast is not None:
        return fast
    return _recomputed_differences(metric_a, metric_b, human, level, entry.name, swap)


def _integral(scores: np.ndarray) -> bool:
    """Whether every present score is an integer (codes)."""
    present = scores[~np.isnan(scores)]
    return bool(np.all(present == np.rint(present)))


def _system_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    entry: Coefficient,
    swap: np.ndarray,
) -> np.ndarray | None:
    """System level: ``corr(A') - corr(B')`` per swap mask from the systems' means, or None
    where no fast path applies (cells or inputs swapped, for an entry without
    ``system_sums``).

    With whole systems swapped (``swap`` ``(R, n_systems, 1)``) a swapped system's means are
    the other metric's, summed as the level sums them: the same values as recomputing.
    Otherwise a system's sum over its complete cells is A's sum plus the swapped cells' ``B
    - A`` (one product; means within rounding of recomputing). Each resample's means then go
    through the level's rule as ``(n_systems, 1)`` matrices, whose system means are
    themselves.
    """
    if swap.shape[-1] != 1 and not entry.system_sums:
        return None
    complete = ~(np.isnan(metric_a) | np.isnan(human))
    counts = complete.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = [np.where(complete, m, 0.0).sum(axis=-1) for m in (metric_a, metric_b)]
        mean_a, mean_b = (s / counts for s in sums)
        mean_human = np.where(complete, human, 0.0).sum(axis=-1) / counts
        if swap.shape[-1] == 1:
            rows = np.broadcast_to(swap[..., 0], (swap.shape[0], metric_a.shape[0]))
            x_a, x_b = np.where(rows, mean_b, mean_a), np.where(rows, mean_a, mean_b)
        else:
            change = np.where(complete, metric_b - metric_a, 0.0)
            swapped = (np.broadcast_to(swap, (swap.shape[0], *metric_a.shape)) * change).sum(-1)
            x_a, x_b = (sums[0] + swapped) / counts, (sums[1] - swapped) / counts
    y = mean_human[:, None]
    return (
        correlate_batch(x_a[..., None], y, Level.SYSTEM, entry.name).value
        - correlate_batch(x_b[..., None], y, Level.SYSTEM, entry.name).value
    )


def _swapped_documents(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray:
    """Summary level, whole inputs swapped: each input's correlations once, then means
    (:func:`_document_differences`). ``swap``: ``(n_resamples, n_inputs)``."""
    corr_a, kept_a, _ = summary_terms(metric_a, human, coefficient)
    corr_b, kept_b, _ = summary_terms(metric_b, human, coefficient)
    return _document_differences(
        np.where(kept_a, corr_a, 0.0), kept_a, np.where(kept_b, corr_b, 0.0), kept_b, swap
    )


def _document_differences(
    added_a: np.ndarray,
    kept_a: np.ndarray,
    added_b: np.ndarray,
    kept_b: np.ndarray,
    swap: np.ndarray,
) -> np.ndarray:
    """The permuted differences of the summary level with whole inputs swapped: swapping
    input ``j`` only exchanges which of its two correlations (A's or B's) enters each
    average, together with its kept flag. ``added_*``: each input's correlation where kept,
    else 0; ``swap``: ``(n_resamples, n_inputs)`` (or broadcastable)."""
    swap = np.broadcast_to(swap, (swap.shape[0], added_a.shape[-1]))
    moved = swap @ (kept_b.astype(np.int64) - kept_a)  # kept inputs B' gives A' (A' less B')
    return kept_mean(np.where(swap, added_b, added_a), kept_a.sum() + moved) - kept_mean(
        np.where(swap, added_a, added_b), kept_b.sum() - moved
    )


def _recomputed_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: Level,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray:
    """The permuted differences recomputed on the swapped matrices (the generic path)."""
    n_resamples = swap.shape[0]
    n_cells = metric_a.size
    block = max(1, CELLS_PER_BLOCK // n_cells)
    differences = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        mask = swap[start : start + block]
        a = np.where(mask, metric_b, metric_a)
        b = np.where(mask, metric_a, metric_b)
        # one human matrix for the whole block (correlate_batch ranks it once where it can)
        differences[start : start + block] = (
            correlate_batch(a, human, level, coefficient).value
            - correlate_batch(b, human, level, coefficient).value
        )
    return differences


def permutation_pvalue(permuted: np.ndarray, observed: float, alternative: str) -> float:
    """``(1 + k) / (1 + n)``: ``n`` the defined (not NaN) ``permuted`` statistics, ``k``
    those at least as extreme as ``observed`` under ``alternative`` (module docstring)."""
    defined = permuted[~np.isnan(permuted)]
    if alternative == "two-sided":
        extreme = np.abs(defined) >= abs(observed) - TIE_TOLERANCE
    elif alternative == "greater":
        extreme = defined >= observed - TIE_TOLERANCE
    else:
        extreme = defined <= observed + TIE_TOLERANCE
    return (1 + int(extreme.sum())) / (1 + defined.size)


@functools.lru_cache(maxsize=8)
def swap_masks(seed: int, unit: str, n_resamples: int, n_systems: int, n_inputs: int) -> np.ndarray:
    """The swap masks of ``default_rng(seed)``, broadcastable to ``(n_resamples, n_systems,
    n_inputs)``: items ``rng.random((n_resamples, n_systems, n_inputs)) < 0.5``; systems
    (rows) drawn first, then inputs (columns), a cell swapped when exactly one of its row
    and column is. Read-only, and kept for the next test of the same seed and shape (a
    table's tests share them: 1 ms of every test of 1,000 resamples of 360 items)."""
    rng = np.random.default_rng(seed)
    if unit == "items":
        swap = rng.random((n_resamples, n_systems, n_inputs)) < 0.5
    else:
        swap = np.zeros((n_resamples, 1, 1), dtype=bool)
        if unit in ("systems", "both"):
            swap = swap ^ (rng.random((n_resamples, n_systems, 1)) < 0.5)
        if unit in ("inputs", "both"):
            swap = swap ^ (rng.random((n_resamples, 1, n_inputs)) < 0.5)
    swap.setflags(write=False)
    return swap


def swaps_documents(level: Level | str, unit: str) -> bool:
    """Whether a test at ``level`` with swap ``unit`` swaps whole documents at the summary
    level: then it is :func:`document_test` of the two metrics' :class:`DocumentSide`, which
    the tests of one metric against several can share."""
    return Level(level).grouped and unit == "inputs"


def _check_options(alternative: str, n_resamples: int) -> None:
    """Raise on an unknown ``alternative`` or fewer than one resample."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}: use one of {ALTERNATIVES}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")


def paired_permutation_test(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    coefficient: str,
    *,
    n_resamples: int = 1000,
    seed: int,
    alternative: str = "two-sided",
    unit: str | None = None,
) -> PermutationResult:
    """Test ``corr(metric_a) - corr(metric_b)`` against human scores (module docstring).

    ``metric_a``, ``metric_b`` and ``human`` are (n_systems, n_inputs) matrices over the same
    items; A and B must have the same missing cells. Swap masks come from
    ``numpy.random.default_rng(seed).random(...) < 0.5``.
    """
    metric_a, human = as_score_pair(metric_a, human)
    metric_b = as_score_matrix(metric_b, "metric_b")
    if metric_b.shape != metric_a.shape:
        raise ValueError(f"metric_a {metric_a.shape} and metric_b {metric_b.shape} differ")
    if not np.array_equal(np.isnan(metric_a), np.isnan(metric_b)):
        raise ValueError(
            "metric_a and metric_b must score the same items: their missing cells differ"
        )
    level = Level(level)
    entry = registry.coefficient(coefficient)
    unit = level.permutation_unit if unit is None else unit
    if unit not in UNITS:
        raise ValueError(f"unknown permutation unit {unit!r}: use one of {UNITS}")
    _check_options(alternative, n_resamples)

    if swaps_documents(level, unit):
        return document_test(
            document_side(metric_a, human, coefficient, "metric_a"),
            document_side(metric_b, human, coefficient, "metric_b"),
            n_resamples=n_resamples,
            seed=seed,
            alternative=alternative,
        )
    a = _standardize(metric_a, "metric_a")
    b = _standardize(metric_b, "metric_b")
    # the observed statistic: the floats of the results tables (raw scores, module docstring)
    observed = float(
        correlate_batch(metric_a, human, level, coefficient).value
        - correlate_batch(metric_b, human, level, coefficient).value
    )
    if np.isnan(observed):
        raise ValueError(f"the {level}-level {coefficient} correlation of A or B is undefined")
    if entry.rank_based and level is not Level.SYSTEM:
        a, b = tie_codes(metric_a, metric_b, human, level)
    swap = swap_masks(seed, unit, n_resamples, *a.shape)
    differences = permuted_differences(a, b, human, level, coefficient, swap)
    differences.setflags(write=False)
    return PermutationResult(
        statistic=observed,
        pvalue=permutation_pvalue(differences, observed, alternative),
        distribution=differences,
        unit=unit,
        alternative=alternative,
        n_resamples=n_resamples,
    )


def document_test(
    side_a: DocumentSide,
    side_b: DocumentSide,
    *,
    n_resamples: int = 1000,
    seed: int,
    alternative: str = "two-sided",
) -> PermutationResult:
    """:func:`paired_permutation_test` at the summary level with whole inputs swapped, from
    the two metrics' :class:`DocumentSide` (same human matrix and items, same coefficient):
    the same swap masks (``default_rng(seed).random((n_resamples, 1, n_inputs)) < 0.5``),
    the same statistic and permuted differences."""
    if side_a.coefficient != side_b.coefficient or side_a.kept.shape != side_b.kept.shape:
        raise ValueError("the two sides differ in coefficient or inputs: not one test")
    _check_options(alternative, n_resamples)
    observed = side_a.observed - side_b.observed
    if np.isnan(observed):
        raise ValueError(
            f"the {Level.SUMMARY}-level {side_a.coefficient} correlation of A or B is undefined"
        )
    n_inputs = side_a.kept.shape[-1]
    swap = swap_masks(seed, "inputs", n_resamples, 1, n_inputs)[:, 0, :]
    differences = _document_differences(side_a.added, side_a.kept, side_b.added, side_b.kept, swap)
    differences.setflags(write=False)
    return PermutationResult(
        statistic=observed,
        pvalue=permutation_pvalue(differences, observed, alternative),
        distribution=differences,
        unit="inputs",
        alternative=alternative,
        n_resamples=n_resamples,
    )
