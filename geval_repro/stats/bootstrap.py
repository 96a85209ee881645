"""Percentile bootstrap confidence intervals for level correlations (Deutsch et al., 2021).

Resampling units, on (n_systems, n_inputs) matrices (nlpstats' names):

- ``inputs``: draw n_inputs columns with replacement (the same columns for the metric and
  the human matrix); the default for the summary and system levels;
- ``systems``: draw n_systems rows with replacement;
- ``both``: draw rows and columns independently (Deutsch et al.'s Boot-Both);
- ``items``: pool the cells where both scores are present and draw that many cells with
  replacement; the default for (and only valid at) the global level, where the paper's
  Topical-Chat and QAGS correlations pool items.

Each resample's correlation is computed with the level's usual rule; resamples where it is
undefined are dropped from the distribution (as nlpstats does) and counted. The interval is
the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the distribution
(``numpy.percentile``, linear interpolation, as nlpstats). All resamples are drawn first from
``numpy.random.default_rng(seed)`` and evaluated as batched matrices, so the result depends
only on the data and the seed. At the summary level with inputs as the unit, a resample only
repeats or drops inputs: each input's correlation is computed once and every resample
averages the drawn ones (same values as recomputing each resampled matrix). At the system
level (any unit but items), every resample's system means come from one sparse product of
its draws with the score matrices, for a block of resamples at once, and resampled systems
gather them (:func:`_resampled_system_means`; same values as recomputing each resampled
matrix, up to the order of the sums in each mean). At the global level with items as the
unit (or the inputs, as SFRES's dialogue acts), a coefficient with a ``codes`` path
(:mod:`geval_repro.stats.registry`: Spearman, Kendall) reads each resample's tie groups from
the complete cells' codes instead of merging and sorting each resample (:func:`_coded_cells`;
same values). Every other case recomputes
each resampled matrix with the coefficient's row function (the generic path).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from geval_repro.stats import registry
from geval_repro.stats.level import UNITS, Level
from geval_repro.stats.levels import correlate_batch, summary_terms, vector_terms
from geval_repro.stats.matrix import as_score_pair
from geval_repro.stats.registry import Coefficient
from geval_repro.stats.results import BootstrapResult
from geval_repro.stats.tie_rule import stable_clusters

CELLS_PER_BLOCK = 2**21  # resampled cells evaluated per numpy batch (bounds memory)
#: Resampled cells per batch of :func:`_recomputed`, whose level functions make many
#: temporaries of a batch's size: cache-sized (1.3-2x faster than ``CELLS_PER_BLOCK``).
RECOMPUTED_CELLS_PER_BLOCK = 2**16


def check_unit(unit: str | None, level: Level | str) -> str:
    """The resampling unit to use: ``unit``, or the level's default
    (:attr:`~geval_repro.stats.level.Level.bootstrap_unit`) when ``unit`` is None."""
    level = Level(level)
    if unit is None:
        return level.bootstrap_unit
    if unit not in UNITS:
        raise ValueError(f"unknown resampling unit {unit!r}: use one of {UNITS}")
    if unit == "items" and not level.pooled:
        raise ValueError(
            f"unit 'items' pools cells across inputs and applies only to the global level, "
            f"not {level.value!r}: use 'inputs', 'systems' or 'both'"
        )
    return unit


def resampled_correlations(
    metric: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    coefficient: str,
    *,
    system_indices: np.ndarray | None = None,
    input_indices: np.ndarray | None = None,
    item_indices: np.ndarray | None = None,
) -> np.ndarray:
    """Level correlation of each resample given by explicit index arrays.

    ``system_indices`` ``(n_resamples, n_systems)`` and/or ``input_indices``
    ``(n_resamples, n_inputs)`` select rows/columns (None keeps them all); alternatively
    ``item_indices`` ``(n_resamples, n_items)`` index the complete cells in row-major order
    (global level only). Returns one value per resample (NaN where undefined).
    """
    metric, human = as_score_pair(metric, human)
    level = Level(level)
    entry = registry.coefficient(coefficient)
    n_systems, n_inputs = metric.shape
    if item_indices is not None:
        if system_indices is not None or input_indices is not None:
            raise ValueError("give item_indices alone, or system/input indices, not both")
        check_unit("items", level)
        # The complete cells as one row: resampling items = resampling its columns.
        complete = ~(np.isnan(metric) | np.isnan(human))
        metric, human = metric[complete][None, :], human[complete][None, :]
        n_systems, n_inputs = metric.shape
        input_indices = item_indices
    if system_indices is None and input_indices is None:
        raise ValueError("give system_indices, input_indices or item_indices")
    given = input_indices if input_indices is not None else system_indices
    n_resamples = np.asarray(given).shape[0]
    rows = (
        np.broadcast_to(np.arange(n_systems), (n_resamples, n_systems))
        if system_indices is None
        else np.asarray(system_indices)
    )
    columns = (
        np.broadcast_to(np.arange(n_inputs), (n_resamples, n_inputs))
        if input_indices is None
        else np.asarray(input_indices)
    )
    if level.grouped and system_indices is None and item_indices is None:
        return _reweighted_documents(metric, human, entry.name, columns)
    if level is Level.SYSTEM:
        return _resampled_system_means(metric, human, entry, rows, columns)
    if level.pooled and entry.codes is not None:
        values = _coded_cells(metric, human, entry, rows, columns)
        if values is not None:
            return values
    return _recomputed(metric, human, level, entry.name, rows, columns)


def _coded_cells(
    metric: np.ndarray,
    human: np.ndarray,
    entry: Coefficient,
    rows: np.ndarray,
    columns: np.ndarray,
) -> np.ndarray | None:
    """Global level by the entry's ``codes`` path, without merging or sorting any resample.

    ``rows`` ``(n_resamples, n_rows)`` and ``columns`` ``(n_resamples, n_draws)`` select each
    resample's rows and columns of the ``(n_rows, n_inputs)`` matrices (items resampled: one
    row of the pooled complete items, whose columns are drawn; inputs resampled, as SFRES's
    dialogue acts: every row, drawn columns). A resample only repeats or drops cells; when
    every subset of the complete cells' values clusters as the whole
    (:func:`~geval_repro.stats.tie_rule.stable_clusters`), a drawn value's tie group is its
    group among all the complete cells, so each resample's codes are its drawn cells' groups,
    laid out as the resampled matrix flattened (the positions, and so the order of every
    sum, of recomputing it). A vector is constant when its present cells span a single
    group. Same values as recomputing each resample; None when a resample's tie groups
    could differ (the caller then recomputes).
    """
    complete = ~(np.isnan(metric) | np.isnan(human))
    coded = [stable_clusters(values[complete]) for values in (metric, human)]
    if coded[0] is None or coded[1] is None:
        return None
    # Each cell's group (0 where a pair is incomplete: masked out below).
    groups = []
    for clusters in coded:
        cells = np.zeros(metric.shape, dtype=np.int64)
        cells[complete] = clusters.groups
        groups.append(cells)
    n_resamples = rows.shape[0]
    n_cells = rows.shape[1] * columns.shape[1]
    block = max(1, CELLS_PER_BLOCK // n_cells)
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        picked = (rows[start:stop, :, None], columns[start:stop, None, :])
        present = complete[picked].reshape(stop - start, n_cells)
        drawn = [cells[picked].reshape(stop - start, n_cells) for cells in groups]
        defined = np.ones(stop - start, dtype=bool)
        for group in drawn:
            high = np.where(present, group, -1).max(axis=-1)
            low = np.where(present, group, np.iinfo(np.int64).max).min(axis=-1)
            defined &= high > low
        value = entry.function("codes")(drawn[0], drawn[1], present)
        values[start:stop] = np.where(defined, value, np.nan)
    return values


def _reweighted_documents(
    metric: np.ndarray, human: np.ndarray, coefficient: str, columns: np.ndarray
) -> np.ndarray:
    """Summary level, inputs resampled: each input's correlation once, then per-resample means.

    A resampled matrix's inputs are copies of the original inputs, each with the same
    correlation and the same kept flag, so its value is the mean of the drawn inputs' kept
    correlations: gathered by the resample's column indices and summed in the same order as
    when the resampled matrix is recomputed (a drawn input that is kept but whose
    correlation is undefined makes the resample undefined, as there).
    """
    per_input, kept, _ = summary_terms(metric, human, coefficient)
    contributions = np.where(kept, per_input, 0.0)[columns]
    n_groups = kept[columns].sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = contributions.sum(axis=-1) / n_groups
    return np.where(n_groups > 0, values, np.nan)


def _resampled_system_means(
    metric: np.ndarray,
    human: np.ndarray,
    entry: Coefficient,
    rows: np.ndarray,
    columns: np.ndarray,
) -> np.ndarray:
    """System level: each resample's system means from one sparse product, then the level's
    rule on them (no resampled matrix is built).

    A resampled matrix's system ``s`` (row ``rows[r, s]``) has the mean ``sum_j
    present[rows[r, s], c_j] x[rows[r, s], c_j] / sum_j present[rows[r, s], c_j]`` over its
    drawn columns ``c_j = columns[r, j]``. With ``D`` the resamples' draws as a sparse ``(B,
    n_inputs)`` matrix (one 1 per draw, in drawn order; a column drawn ``k`` times appears
    ``k`` times), ``D @ [present * metric, present * human, present].T`` gives, for a block
    of resamples at once, the sums of every original system over the drawn columns (the
    terms of the resampled row, added one by one in drawn order; the counts exactly), so the
    metric and human means of every system (NaN without a complete pair); resampled systems
    gather them by ``rows``. Then, as :func:`~geval_repro.stats.levels.correlate_batch` at
    the system level, the level rules of :func:`~geval_repro.stats.levels.vector_terms`
    (ties merged for a rank coefficient, NaN for a constant vector of means). Same values as
    recomputing each resampled matrix up to the order of the sums (numpy sums a row
    pairwise): the last bits of a mean, far below the tie rule's tolerance, so
    mathematically equal means still tie.
    """
    present = ~(np.isnan(metric) | np.isnan(human))
    n_systems, n_inputs = metric.shape
    # (n_inputs, 3 n_systems): per input, each system's metric and human score (0 where the
    # pair is incomplete) and whether the pair is complete.
    stacked = np.concatenate(
        (np.where(present, metric, 0.0), np.where(present, human, 0.0), present), axis=0
    ).T.copy()
    n_resamples, n_draws = columns.shape
    block = max(1, CELLS_PER_BLOCK // (n_draws + stacked.shape[1]))
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        drawn = columns[start:stop]
        draws = scipy.sparse.csr_array(
            (np.ones(drawn.size), drawn.ravel(), np.arange(stop - start + 1) * n_draws),
            shape=(stop - start, n_inputs),
        )
        sums = draws @ stacked  # (block, 3 n_systems)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (
                sums[:, : 2 * n_systems].reshape(-1, 2, n_systems) / sums[:, None, 2 * n_systems :]
            )
        means = np.take_along_axis(means, rows[start:stop, None, :], axis=-1)
        values[start:stop] = vector_terms(entry, means[:, 0], means[:, 1]).value
    return values


def _recomputed(
    metric: np.ndarray,
    human: np.ndarray,
    level: str,
    coefficient: str,
    rows: np.ndarray,
    columns: np.ndarray,
) -> np.ndarray:
    """Level correlation of each resample, recomputed on the resampled matrices."""
    n_resamples = rows.shape[0]
    block = max(1, RECOMPUTED_CELLS_PER_BLOCK // (rows.shape[1] * columns.shape[1]))
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        picked_rows = rows[start:stop, :, None]
        picked_columns = columns[start:stop, None, :]
        values[start:stop] = correlate_batch(
            metric[picked_rows, picked_columns],
            human[picked_rows, picked_columns],
            level,
            coefficient,
        ).value
    return values


def bootstrap_ci(
    metric: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    coefficient: str,
    *,
    unit: str | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int,
) -> BootstrapResult:
    """Percentile bootstrap CI of ``correlate(metric, human, level, coefficient)``.

    ``unit`` None means the level's default (its ``bootstrap_unit``: inputs for summary and
    system, items for global). Resample indices come from ``numpy.random.default_rng(seed)``:
    systems ``(n_resamples, n_systems)`` first, then inputs ``(n_resamples, n_inputs)``, or
    items ``(n_resamples, n_items)``.
    """
    metric, human = as_score_pair(metric, human)
    unit = check_unit(unit, level)
    check_resampling(n_resamples, confidence)
    rng = np.random.default_rng(seed)
    n_systems, n_inputs = metric.shape
    if unit == "items":
        n_items = int((~(np.isnan(metric) | np.isnan(human))).sum())
        if n_items < 2:
            raise ValueError(f"item resampling needs at least 2 complete cells, got {n_items}")
        values = resampled_correlations(
            metric,
            human,
            level,
            coefficient,
            item_indices=rng.integers(0, n_items, size=(n_resamples, n_items)),
        )
    else:
        system_indices = (
            rng.integers(0, n_systems, size=(n_resamples, n_systems))
            if unit in ("systems", "both")
            else None
        )
        input_indices = (
            rng.integers(0, n_inputs, size=(n_resamples, n_inputs))
            if unit in ("inputs", "both")
            else None
        )
        values = resampled_correlations(
            metric,
            human,
            level,
            coefficient,
            system_indices=system_indices,
            input_indices=input_indices,
        )
    return percentile_interval(
        values,
        unit=unit,
        confidence=confidence,
        undefined=f"every one of the {n_resamples} resamples gave an undefined {level}-level "
        f"{coefficient} correlation: the scores are (nearly) constant",
    )


def check_resampling(n_resamples: int, confidence: float) -> None:
    """Raise ValueError unless ``n_resamples`` >= 1 and 0 < ``confidence`` < 1."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def percentile_interval(
    values: np.ndarray, *, unit: str, confidence: float, undefined: str
) -> BootstrapResult:
    """The percentile interval of the resamples' statistics ``values`` (NaN = undefined).

    Undefined resamples are dropped and counted (``n_invalid``); the interval is the
    ``100 (1 - confidence) / 2`` and ``100 (1 + confidence) / 2`` percentiles of the rest
    (``numpy.percentile``, linear interpolation). ValueError(``undefined``) when no resample
    is defined.
    """
    distribution = values[~np.isnan(values)]
    if distribution.size == 0:
        raise ValueError(undefined)
    alpha = (1 - confidence) / 2
    low, high = np.percentile(distribution, [100 * alpha, 100 * (1 - alpha)])
    distribution.setflags(write=False)
    return BootstrapResult(
        low=float(low),
        high=float(high),
        distribution=distribution,
        unit=unit,
        confidence=confidence,
        n_resamples=int(values.size),
        n_invalid=int(values.size - distribution.size),
    )


def shifted_pvalue(resampled: np.ndarray, observed: float) -> float:
    """The two-sided bootstrap p-value of a difference ``observed`` from its paired bootstrap
    ``resampled`` values (both metrics on the same draws), the distribution shifted to 0
    (Efron and Tibshirani 1993, 16.4): ``p = (1 + #{b : |d*_b - d| >= |d|}) / (B + 1)``, at
    least ``1 / (B + 1)``; 1 when ``observed`` is 0. Undefined (NaN) resamples are dropped
    and ``B`` counts the rest; NaN when none is left. ``|d*_b - d| >= |d|`` is read with a
    tolerance of rounding (1e-12)."""
    resampled = np.asarray(resampled, dtype=float)
    resampled = resampled[~np.isnan(resampled)]
    if resampled.size == 0:
        return float("nan")
    reached = np.abs(resampled - observed) >= abs(observed) - 1e-12
    return float((1 + np.count_nonzero(reached)) / (resampled.size + 1))
