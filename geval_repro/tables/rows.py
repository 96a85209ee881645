"""Correlation rows: one row per benchmark, dimension, metric, variant, level and
coefficient, next to the paper's printed value (the shape of ``correlations.csv``).

Computation only: the pipeline writes the rows (:mod:`geval_repro.report.table_files`) and
:mod:`geval_repro.report.markdown` displays them. Columns (:data:`COLUMNS`):

- ``value``: our correlation or accuracy (NaN for numbers we cannot recompute); none
  when it rests on fewer than :data:`MIN_VALUE_UNITS` of its level's units (documents at
  the summary level, systems at the system level, items at the global level: any two
  points correlate at ±1): the note says so, and ``n_items``/``n_groups`` what it would
  rest on;
- ``ci_low``/``ci_high``: percentile bootstrap interval (the note says unit, resamples,
  seed and confidence); none when the value rests on fewer than
  :data:`MIN_BOOTSTRAP_UNITS` of the bootstrap's units (documents at SummEval's summary
  and system levels, items at the global level): the note says so;
- ``n_items``/``n_groups``/``tie_rate``/``human_tie_rate``: as in :mod:`geval_repro.stats`
  (``n_groups``: the documents kept at the summary level, the systems correlated at the
  system level, 1 at the global level; tie rates over the complete cells, at the row's
  level, by the tie rule every coefficient and accuracy of the row reads);
- ``epsilon``: a pairwise accuracy's metric tie threshold (0 for ``acc_eq``, the fitted
  one for ``acc_eq_calibrated``; empty for a correlation);
- ``share_unread``: of a judge run's reply-based rows (mean of the replies, modal reply),
  the share of the replies its parser could not read (the released parser scores them 0);
  empty elsewhere;
- ``paper_value``: the printed number of this (benchmark, dimension, metric, coefficient)
  at this level, ``paper`` whose it is: the G-Eval paper's at the paper's level (its
  Tables 1-3, :mod:`geval_repro.registry.paper`), SummEval's own Table 2 at SummEval's
  system level (:mod:`geval_repro.registry.summeval_paper`); ``delta`` = value -
  paper_value;
- ``status``: recomputed (from real released data), toolkit-run (from replies this
  toolkit's judge runner obtained from a model, e.g. its own SmolLM2-135M run: not a
  reproduction of a printed number), fixture (from a test fixture: never a result),
  paper-only / not-released / not-recomputable (printed numbers with no value);
- ``note``: how the row was made and whether it matches the printed value to rounding
  (|delta| <= 0.0005, half a unit of the printed third decimal; 0.001 for printed averages,
  which may average already-rounded cells).

AVG rows are made by :mod:`geval_repro.tables.averages`, rows of printed numbers this run
does not recompute by :mod:`geval_repro.tables.printed`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry import summeval_paper
from geval_repro.registry.benchmarks import PRINTED_NAMES, Benchmark, level_of
from geval_repro.registry.paper import paper_table_name, paper_value
from geval_repro.scoring.pairing import resampling_axes
from geval_repro.stats.accuracy import (
    bootstrap_accuracy,
    pairwise_accuracy,
    tie_calibrated_accuracy,
)
from geval_repro.stats.bootstrap import bootstrap_ci, check_unit
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import as_score_pair, to_matrix
from geval_repro.stats.registry import COEFFICIENTS, STATISTICS, Accuracy, Coefficient, statistic
from geval_repro.stats.results import BootstrapResult, PairwiseAccuracy
from geval_repro.stats.ties import tie_rate

#: The columns that identify a row.
KEY = ["benchmark", "dimension", "metric", "variant", "level", "coefficient"]
#: The columns of a row measured on its items besides its value (an AVG row has none).
MEASURED = [
    "ci_low",
    "ci_high",
    "n_items",
    "n_groups",
    "tie_rate",
    "human_tie_rate",
    "epsilon",
    "share_unread",
]
COLUMNS = [
    *KEY,
    "value",
    *MEASURED,
    "paper_value",
    "paper",
    "delta",
    "status",
    "note",
]
STATUSES = (
    "recomputed",
    "toolkit-run",
    "paper-only",
    "not-released",
    "not-recomputable",
    "fixture",
)
VALUE_STATUSES = ("recomputed", "toolkit-run", "fixture")
ROUNDING_TOLERANCE = 0.0005  # half a unit in the printed third decimal
CONFIDENCE = 0.95
#: The fewest bootstrap units (documents at the summary and system levels, items at the
#: global level) a value's interval may rest on: with fewer, a row gets no interval and a
#: paper layout no interval and no significance mark (docs/protocol.md). A percentile
#: bootstrap over a handful of documents repeats the same few values and looks far more
#: certain than it is.
MIN_BOOTSTRAP_UNITS = 10
#: The fewest units of its level a value may rest on (documents at the summary level,
#: systems at the system level, items at the global level): any two points correlate at
#: ±1, and one pair is right or wrong, so a value on fewer is no evidence; the row keeps
#: its counts and no value (docs/protocol.md).
MIN_VALUE_UNITS = 3
UNIT_OF_LEVEL = {Level.SUMMARY: "document", Level.SYSTEM: "system", Level.GLOBAL: "item"}


def printed_value(
    benchmark: str, dimension: str, metric: str, coefficient: str, level: Level
) -> float:
    """The printed value of this cell at this level (:func:`printed_cell`), else NaN."""
    return printed_cell(benchmark, dimension, metric, coefficient, level).value


class Printed(NamedTuple):
    """A printed number: its ``value`` (NaN: none), ``paper`` (whose it is, the column of
    that name) and the rounding ``tolerance`` of its decimals."""

    value: float
    paper: str = ""
    tolerance: float = ROUNDING_TOLERANCE


def printed_cell(
    benchmark: str, dimension: str, metric: str, coefficient: str, level: Level
) -> Printed:
    """The printed number of this cell: the G-Eval paper's at the paper's level for
    ``benchmark`` (3 decimals); SummEval's own Table 2 at SummEval's system level (4
    decimals); else none."""
    if benchmark in PRINTED_NAMES and level_of(benchmark) == level:
        value = paper_value(benchmark, dimension, metric, coefficient)
        return Printed(math.nan) if value is None else Printed(value, paper_table_name(benchmark))
    value = summeval_paper.system_level_value(benchmark, dimension, metric, coefficient, level)
    if math.isnan(value):
        return Printed(math.nan)
    return Printed(value, summeval_paper.paper_table(2), summeval_paper.ROUNDING_TOLERANCE)


def too_few_units(level: Level | str, n_items: object, n_groups: object) -> bool:
    """Whether a row of ``level`` with these counts rests on fewer than
    :data:`MIN_BOOTSTRAP_UNITS` bootstrap units: documents (``n_groups``) at the summary
    level, items at the global level (a system-level row's documents are not in its counts:
    :func:`correlation_rows` checks those itself). Missing counts (an AVG row): False."""
    level = Level(level)
    count = n_groups if level.grouped else n_items
    if level is Level.SYSTEM or count is None or pd.isna(count):
        return False
    return int(count) < MIN_BOOTSTRAP_UNITS


def comparison_note(value: float, printed: float, tolerance: float = ROUNDING_TOLERANCE) -> str:
    """Whether ``value`` matches the printed number to rounding ("" when either is NaN).

    ``tolerance``: 0.0005 for a printed cell; 0.001 for a printed average, which may average
    cells that were rounded before averaging.
    """
    if math.isnan(value) or math.isnan(printed):
        return ""
    delta = value - printed
    if abs(delta) <= tolerance + 1e-12:
        return (
            f"matches the printed {printed_number(printed)} to rounding (|delta| <= {tolerance:g})"
        )
    return (
        f"differs from the printed {printed_number(printed)} beyond rounding (delta {delta:+.4f}, "
        f"tolerance {tolerance:g})"
    )


def typed_counts(df: pd.DataFrame) -> pd.DataFrame:
    """Counts as nullable integers (blank, not NaN or 235.0, where absent); the other
    columns as they are (only the two are converted: ``astype`` with a mapping copies every
    column, 4-5x the time on a table of rows)."""
    typed = df.copy(deep=False)
    for column in ("n_items", "n_groups"):
        typed[column] = typed[column].astype("Int64")
    return typed


def row_key(
    benchmark: str, dimension: str, metric: str, variant: str, level: Level, coefficient: str
) -> dict[str, str]:
    """The columns that identify one row of the table (:data:`KEY`)."""
    key = (benchmark, dimension, metric, variant, Level(level).value, coefficient)
    return dict(zip(KEY, key, strict=True))


def join_notes(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


def correlation_rows(
    *,
    benchmark: str,
    dimension: str,
    metric: str,
    variant: str,
    level: Level,
    metric_scores: np.ndarray,
    human_scores: np.ndarray,
    coefficients: Iterable[str] = COEFFICIENTS,
    n_resamples: int,
    seed: int,
    unit: str | None = None,
    status: str = "recomputed",
    paper_metric: str | None = None,
    note: str = "",
) -> pd.DataFrame:
    """One row per coefficient for a metric matrix against a human matrix.

    ``metric_scores``/``human_scores``: (n_systems, n_inputs), NaN = missing.
    ``coefficients``: names of the registry (:mod:`geval_repro.stats.registry`): correlation
    coefficients (:func:`geval_repro.stats.levels.correlate`) and pairwise accuracies with
    ties (:mod:`geval_repro.stats.accuracy`: ``acc_eq`` at ``epsilon`` 0,
    ``acc_eq_calibrated`` at the fitted ``epsilon``, re-fitted in every bootstrap
    resample); the ``epsilon`` column holds an accuracy's metric tie threshold. A value
    resting on fewer than :data:`MIN_VALUE_UNITS` units of its level is left empty
    (:func:`value_units`; the note says so).
    The bootstrap uses ``unit`` (None = the level's default; the accuracies always take the
    level's default, their only one), ``n_resamples`` (0 = no CI)
    and ``seed``; the same seed for every coefficient, so their intervals share resamples;
    no interval when the value rests on fewer than :data:`MIN_BOOTSTRAP_UNITS` of the
    units the bootstrap draws (:func:`_bootstrap_units`; the note says so). The printed
    value is looked up under ``paper_metric`` (default ``metric``) (:func:`printed_cell`).
    ``note`` is prepended to the generated note; a system-level row of SummEval also says
    how its systems differ from SummEval's own
    (:data:`geval_repro.registry.summeval_paper.SYSTEM_LEVEL_NOTE`).
    """
    if status not in VALUE_STATUSES:
        raise ValueError(f"correlation rows carry values: status must be one of {VALUE_STATUSES}")
    metric_matrix, human_matrix = as_score_pair(metric_scores, human_scores)
    level = Level(level)
    given = check_unit(unit, level)
    complete = ~(np.isnan(metric_matrix) | np.isnan(human_matrix))
    metric_ties = tie_rate(np.where(complete, metric_matrix, np.nan), level)
    human_ties = tie_rate(np.where(complete, human_matrix, np.nan), level)
    records = []
    for coefficient in coefficients:
        entry = statistic(coefficient)
        # The accuracies' bootstrap draws the level's own unit only.
        unit = level.bootstrap_unit if isinstance(entry, Accuracy) else given
        ci_note = (
            f"{CONFIDENCE:.0%} percentile bootstrap CI over {unit}, {n_resamples} resamples, "
            f"seed {seed}"
            if n_resamples > 0
            else "no CI computed"
        )
        if isinstance(entry, Accuracy):
            estimate = _accuracy(metric_matrix, human_matrix, level, entry)
            value, epsilon, coefficient_note = estimate.value, estimate.epsilon, ACCURACY_NOTE
            n_items, n_groups = level.paired_cells(complete), estimate.n_groups
        else:
            result = correlate(metric_matrix, human_matrix, level, coefficient)
            value, epsilon, coefficient_note = result.value, math.nan, ""
            n_items, n_groups = result.n_items, result.n_groups
        resting = value_units(level, n_items, n_groups)
        unsupported = resting < MIN_VALUE_UNITS
        if unsupported or math.isnan(value):  # no value, no threshold of one
            value = epsilon = math.nan
        low = high = math.nan
        units = _bootstrap_units(level, unit, complete, n_items, n_groups)
        few = units < MIN_BOOTSTRAP_UNITS
        if n_resamples > 0 and not math.isnan(value) and not few:
            interval = _interval(metric_matrix, human_matrix, level, entry, unit, n_resamples, seed)
            low, high = interval.low, interval.high
        printed = printed_cell(benchmark, dimension, paper_metric or metric, coefficient, level)
        if unsupported:
            interval_note = too_few_note(resting, level)
        elif math.isnan(value):
            interval_note = UNDEFINED_NOTE
        elif few:
            interval_note = few_units_note(units, unit)
        else:
            interval_note = ci_note
        records.append(
            {
                **row_key(benchmark, dimension, metric, variant, level, coefficient),
                "value": value,
                "ci_low": low,
                "ci_high": high,
                "n_items": n_items,
                "n_groups": n_groups,
                "tie_rate": metric_ties.rate,
                "human_tie_rate": human_ties.rate,
                "epsilon": epsilon,
                "share_unread": math.nan,
                "paper_value": printed.value,
                "paper": printed.paper,
                "delta": value - printed.value,
                "status": status,
                "note": join_notes(
                    note,
                    coefficient_note,
                    interval_note,
                    comparison_note(value, printed.value, printed.tolerance),
                    system_level_note(benchmark, Level(level)),
                ),
            }
        )
    return typed_counts(pd.DataFrame.from_records(records, columns=COLUMNS))


def value_units(level: Level | str, n_items: object, n_groups: object) -> int:
    """The units of its level a value rests on: documents (``n_groups``) at the summary
    level, systems (``n_groups``) at the system level, items at the global level."""
    level = Level(level)
    return int(n_items if level.pooled else n_groups)


def too_few_note(units: int, level: Level | str) -> str:
    """The note of a row left without a value: it rests on too few units of its level."""
    name = UNIT_OF_LEVEL[Level(level)] + ("" if units == 1 else "s")
    return (
        f"no value: it would rest on {units} {name}, fewer than the {MIN_VALUE_UNITS} a value "
        "needs (any two points correlate at ±1: docs/protocol.md)"
    )


#: The note of a row without a value on enough units: what the statistic is undefined on.
UNDEFINED_NOTE = "no value: undefined on these items (a constant vector, or no complete pair)"
UNIT_NAMES = {"inputs": "document", "systems": "system", "items": "item", "both": "unit"}


def few_units_note(units: int, unit: str) -> str:
    """The note of a value with no interval because it rests on too few bootstrap units."""
    name = UNIT_NAMES[unit] + ("" if units == 1 else "s")
    return (
        f"no CI: the value rests on {units} {name}, fewer than the {MIN_BOOTSTRAP_UNITS} a "
        "bootstrap interval needs (docs/protocol.md)"
    )


def _bootstrap_units(
    level: Level, unit: str, complete: np.ndarray, n_items: int, n_groups: int
) -> int:
    """How many of the units the bootstrap draws (``unit``) the value rests on: at the
    summary level the inputs kept (``n_groups``) or the systems with a complete cell; at
    the system level the inputs or systems with a complete cell; pooled, the items
    (``n_items``); ``both``: the fewer of inputs and systems."""
    inputs = n_groups if level.grouped else int(complete.any(axis=0).sum())
    systems = int(complete.any(axis=1).sum())
    counts = {"inputs": inputs, "systems": systems, "items": n_items}
    return counts[unit] if unit in counts else min(inputs, systems)


def system_level_note(benchmark: str, level: Level) -> str:
    """What a SummEval system-level row (its AVG rows too) says beside it: 16 systems, not
    SummEval's 17 (:data:`geval_repro.registry.summeval_paper.SYSTEM_LEVEL_NOTE`)."""
    if benchmark == summeval_paper.BENCHMARK and level is summeval_paper.LEVEL:
        return summeval_paper.SYSTEM_LEVEL_NOTE
    return ""


ACCURACY_NOTE = (
    "pairwise accuracy with ties (Deutsch et al. 2023): share of pairs the metric orders as "
    "the humans do, ties included; the metric ties a pair when |difference| <= epsilon"
)


def _accuracy(
    metric: np.ndarray, human: np.ndarray, level: Level, entry: Accuracy
) -> PairwiseAccuracy:
    """``acc_eq`` (epsilon 0) or ``acc_eq_calibrated`` (the fitted epsilon)."""
    if entry.calibrated:
        return tie_calibrated_accuracy(metric, human, level)
    return pairwise_accuracy(metric, human, level)


def _interval(
    metric: np.ndarray,
    human: np.ndarray,
    level: Level,
    entry: Coefficient | Accuracy,
    unit: str,
    n_resamples: int,
    seed: int,
) -> BootstrapResult:
    """The percentile bootstrap interval of one coefficient or accuracy."""
    if isinstance(entry, Accuracy):
        return bootstrap_accuracy(
            metric,
            human,
            level,
            calibrate=entry.calibrated,
            unit=unit,
            n_resamples=n_resamples,
            confidence=CONFIDENCE,
            seed=seed,
        )
    return bootstrap_ci(
        metric,
        human,
        level,
        entry.name,
        unit=unit,
        n_resamples=n_resamples,
        confidence=CONFIDENCE,
        seed=seed,
    )


def printed_number(value: float) -> str:
    """``value`` with as many decimals as it needs (3 to 5), so a note never re-rounds it.

    A printed cell has 3 decimals; the mean of 2 or 4 printed cells has up to 4 or 5
    (0.2005 = (0.333 + 0.068) / 2 is "0.2005", not "0.201").
    """
    text = f"{value:.5f}".rstrip("0")
    decimals = len(text.partition(".")[2])
    return f"{value:.{max(decimals, 3)}f}"


def check_rows(df: pd.DataFrame) -> None:
    """Raise when ``df`` is not in the table's shape (columns, statuses, values)."""
    if list(df.columns) != COLUMNS:
        raise ValueError(f"correlation table columns must be {COLUMNS}, got {list(df.columns)}")
    bad = sorted(set(df.status) - set(STATUSES))
    if bad:
        raise ValueError(f"unknown status values {bad}: use one of {STATUSES}")
    valueless = df[df.status.isin(VALUE_STATUSES) & df.value.isna()]
    for row in valueless.itertuples():
        if not str(row.note):
            raise ValueError(
                f"row ({row.benchmark}, {row.dimension}, {row.metric}, {row.coefficient}) has "
                "no value and no note saying why"
            )


def table_rows(
    table: pd.DataFrame,
    *,
    benchmark: Benchmark,
    dimension: str,
    metric: str,
    variant: str,
    metric_column: str,
    human_column: str,
    n_resamples: int,
    seed: int,
    note: str = "",
    paper_metric: str | None = None,
    status: str = "recomputed",
    coefficients: tuple[str, ...] = STATISTICS,
) -> pd.DataFrame:
    """Rows of ``metric_column`` against ``human_column`` at the benchmark's level
    (bootstrap: ``n_resamples`` resamples seeded with ``seed``, see
    :func:`correlation_rows`), on the score matrix of the benchmark's axes
    (:attr:`~geval_repro.registry.benchmarks.Benchmark.system_key`,
    :attr:`~geval_repro.registry.benchmarks.Benchmark.input_key`).

    ``summary``: (systems x documents) matrices, per document over its systems, every
    coefficient and accuracy; then the ``system`` level on the same matrices (each system's
    mean over the documents where both scores are present, one correlation over the
    systems; SummEval's system level as Fabbri et al. 2021 report it): the correlation
    coefficients, bootstrap over the documents. ``global``: every row of ``table`` pooled
    (one pseudo-system, one input per row), every coefficient and accuracy. ``coefficients``:
    the coefficients and accuracies to give (default all; the system level gives the
    correlation coefficients among them).
    """
    level = benchmark.level
    table, systems, inputs = resampling_axes(table, benchmark)
    # A resampling key (SFRES, SFHOT: the dialogue act) makes the correlations' bootstrap
    # draw its values, the matrix's inputs; the accuracies' bootstrap draws items.
    unit = "inputs" if level.pooled and benchmark.resampling_key else None
    metric_matrix, _, _ = to_matrix(table, metric_column, systems=systems, inputs=inputs)
    human_matrix, _, _ = to_matrix(table, human_column, systems=systems, inputs=inputs)
    common = {
        "benchmark": benchmark.name,
        "dimension": dimension,
        "metric": metric,
        "variant": variant,
        "metric_scores": metric_matrix,
        "human_scores": human_matrix,
        "n_resamples": n_resamples,
        "seed": seed,
        "note": note,
        "paper_metric": paper_metric,
        "status": status,
    }
    rows = correlation_rows(level=level, coefficients=coefficients, unit=unit, **common)
    if not level.grouped:
        return rows
    at_system = tuple(c for c in coefficients if isinstance(statistic(c), Coefficient))
    system = correlation_rows(level=Level.SYSTEM, coefficients=at_system, **common)
    return pd.concat([rows, system], ignore_index=True)
