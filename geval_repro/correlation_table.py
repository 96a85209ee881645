"""The correlation table: one row per benchmark, dimension, metric, variant, level and
coefficient, next to the paper's printed value.

Written to ``results/tables/correlations.csv`` with a Markdown twin
(:func:`geval_repro.table_files.write_pair`); later issues append rows of the same shape.
Columns (:data:`COLUMNS`):

- ``value``: our correlation (NaN for numbers we cannot recompute);
- ``ci_low``/``ci_high``: percentile bootstrap interval (the note says unit, resamples,
  seed and confidence);
- ``n_items``/``n_groups``/``tie_rate``/``human_tie_rate``: as in :mod:`geval_repro.stats`
  (tie rates over the complete cells, at the row's level);
- ``paper_value``: the printed number when the paper prints this (benchmark, dimension,
  metric, coefficient) at this level, ``delta`` = value - paper_value;
- ``status``: recomputed (from real released data), fixture (from a test fixture: never a
  result), paper-only / not-released / not-recomputable (printed numbers with no value);
- ``note``: how the row was made and whether it matches the printed value to rounding
  (|delta| <= 0.0005, half a unit of the printed third decimal; 0.001 for printed averages,
  which may average already-rounded cells).

AVG rows: :func:`average_rows` adds, per metric, variant, level and coefficient, the mean
of our dimension values twice: as "AVG" against the paper's printed AVG, and as
"AVG-of-printed-columns" against the mean of the paper's printed dimension columns. The
paper's printed AVG is not always that mean (Table 1's G-Eval rows, Table 3's Average), and
the pair of rows makes this visible instead of hiding it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from geval_repro.benchmarks import AVERAGES, NAMES, PRINTED_NAMES, dimensions_of, level_of
from geval_repro.paper import AVERAGE, PRINTED_AVERAGE_TOLERANCE, paper_value
from geval_repro.stats.bootstrap import bootstrap_ci, check_unit
from geval_repro.stats.coefficients import COEFFICIENTS
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import as_score_pair, to_matrix
from geval_repro.stats.ties import tie_rate

COLUMNS = [
    "benchmark",
    "dimension",
    "metric",
    "variant",
    "level",
    "coefficient",
    "value",
    "ci_low",
    "ci_high",
    "n_items",
    "n_groups",
    "tie_rate",
    "human_tie_rate",
    "paper_value",
    "delta",
    "status",
    "note",
]
STATUSES = ("recomputed", "paper-only", "not-released", "not-recomputable", "fixture")
VALUE_STATUSES = ("recomputed", "fixture")
AVG_OF_PRINTED = "AVG-of-printed-columns"
ROUNDING_TOLERANCE = 0.0005  # half a unit in the printed third decimal
CONFIDENCE = 0.95


def _printed(benchmark: str, dimension: str, metric: str, coefficient: str, level: str) -> float:
    """The printed value when the paper prints it at this level, else NaN."""
    if benchmark not in PRINTED_NAMES or level_of(benchmark) != level:
        return math.nan
    value = paper_value(benchmark, dimension, metric, coefficient)
    return math.nan if value is None else value


def comparison_note(value: float, printed: float, tolerance: float = ROUNDING_TOLERANCE) -> str:
    """Whether ``value`` matches the printed number to rounding ("" when either is NaN).

    ``tolerance``: 0.0005 for a printed cell; 0.001 for a printed average, which may average
    cells that were rounded before averaging.
    """
    if math.isnan(value) or math.isnan(printed):
        return ""
    delta = value - printed
    if abs(delta) <= tolerance + 1e-12:
        return f"matches the printed {printed:.3f} to rounding (|delta| <= {tolerance:g})"
    return (
        f"differs from the printed {printed:.3f} beyond rounding (delta {delta:+.4f}, "
        f"tolerance {tolerance:g})"
    )


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """Counts as nullable integers (blank, not NaN or 235.0, where absent)."""
    return df.astype({"n_items": "Int64", "n_groups": "Int64"})


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


def correlation_rows(
    *,
    benchmark: str,
    dimension: str,
    metric: str,
    variant: str,
    level: str,
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

    ``metric_scores``/``human_scores``: (n_systems, n_inputs), NaN = missing. The bootstrap
    uses ``unit`` (None = the level's default), ``n_resamples`` (0 = no CI) and ``seed``;
    the same seed for every coefficient, so their intervals share resamples. The paper value
    is looked up under ``paper_metric`` (default ``metric``) when ``level`` is the paper's
    level for ``benchmark``. ``note`` is prepended to the generated note.
    """
    if status not in VALUE_STATUSES:
        raise ValueError(f"correlation rows carry values: status must be one of {VALUE_STATUSES}")
    metric_matrix, human_matrix = as_score_pair(metric_scores, human_scores)
    unit = check_unit(unit, level)
    complete = ~(np.isnan(metric_matrix) | np.isnan(human_matrix))
    metric_ties = tie_rate(np.where(complete, metric_matrix, np.nan), level)
    human_ties = tie_rate(np.where(complete, human_matrix, np.nan), level)
    ci_note = (
        f"{CONFIDENCE:.0%} percentile bootstrap CI over {unit}, {n_resamples} resamples, "
        f"seed {seed}"
        if n_resamples > 0
        else "no CI computed"
    )
    records = []
    for coefficient in coefficients:
        result = correlate(metric_matrix, human_matrix, level, coefficient)
        low = high = math.nan
        if n_resamples > 0 and not math.isnan(result.value):
            interval = bootstrap_ci(
                metric_matrix,
                human_matrix,
                level,
                coefficient,
                unit=unit,
                n_resamples=n_resamples,
                confidence=CONFIDENCE,
                seed=seed,
            )
            low, high = interval.low, interval.high
        printed = _printed(benchmark, dimension, paper_metric or metric, coefficient, level)
        records.append(
            {
                "benchmark": benchmark,
                "dimension": dimension,
                "metric": metric,
                "variant": variant,
                "level": level,
                "coefficient": coefficient,
                "value": result.value,
                "ci_low": low,
                "ci_high": high,
                "n_items": result.n_items,
                "n_groups": result.n_groups,
                "tie_rate": metric_ties.rate,
                "human_tie_rate": human_ties.rate,
                "paper_value": printed,
                "delta": result.value - printed,
                "status": status,
                "note": _join(note, ci_note, comparison_note(result.value, printed)),
            }
        )
    return _typed(pd.DataFrame.from_records(records, columns=COLUMNS))


def _average_pair(
    template: Mapping[str, object],
    value: float,
    printed_average: float,
    printed_columns: list[float],
    what: str,
) -> list[dict[str, object]]:
    """The "AVG" row and the "AVG-of-printed-columns" row for one group."""
    column_mean = (
        float(np.mean(printed_columns))
        if printed_columns and not any(math.isnan(v) for v in printed_columns)
        else math.nan
    )
    empty = dict.fromkeys(
        ("ci_low", "ci_high", "n_items", "n_groups", "tie_rate", "human_tie_rate"), math.nan
    )
    printed_note = (
        f"printed average {printed_average:.3f} vs mean of printed columns {column_mean:.4f}"
        if not (math.isnan(printed_average) or math.isnan(column_mean))
        else ""
    )
    average = {
        **template,
        **empty,
        "value": value,
        "paper_value": printed_average,
        "delta": value - printed_average,
        "note": _join(what, comparison_note(value, printed_average, PRINTED_AVERAGE_TOLERANCE)),
    }
    of_columns = {
        **template,
        **empty,
        "dimension": AVG_OF_PRINTED,
        "value": value,
        "paper_value": column_mean,
        "delta": value - column_mean,
        "note": _join(
            what,
            "paper_value = mean of the printed columns",
            printed_note,
            comparison_note(value, column_mean, PRINTED_AVERAGE_TOLERANCE),
        ),
    }
    return [average, of_columns]


def average_rows(
    rows: pd.DataFrame, paper_metrics: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """AVG rows for every complete group of dimension rows in ``rows``.

    Groups: (benchmark, metric, variant, level, coefficient) of rows with a value (status
    recomputed or fixture). A summeval/topical_chat group needs each of the benchmark's four
    dimensions exactly once; its "AVG" row (value = mean of the four values) faces the
    printed AVG, its "AVG-of-printed-columns" row the mean of the printed dimension columns.
    qags_cnndm + qags_xsum groups give "qags_avg" rows (dimension "consistency" against the
    printed Average, and "AVG-of-printed-columns"). ``paper_metrics`` maps our metric names
    to printed names where they differ. A fixture in a group makes its rows fixtures.
    """
    rename = dict(paper_metrics or {})
    usable = rows[rows.status.isin(VALUE_STATUSES)]
    key = ["metric", "variant", "level", "coefficient"]
    records: list[dict[str, object]] = []
    for benchmark in (name for name in NAMES if len(dimensions_of(name)) > 1):
        dimensions = dimensions_of(benchmark)
        part = usable[(usable.benchmark == benchmark) & usable.dimension.isin(dimensions)]
        for (metric, variant, level, coefficient), group in part.groupby(key, sort=True):
            if group.dimension.duplicated().any():
                raise ValueError(
                    f"{benchmark} {metric} ({variant}, {level}, {coefficient}) has repeated "
                    f"dimension rows: {sorted(group.dimension)}; give each variant its own name"
                )
            if set(group.dimension) != set(dimensions):
                continue
            printed_name = rename.get(metric, metric)
            template = {
                "benchmark": benchmark,
                "dimension": AVERAGE,
                "metric": metric,
                "variant": variant,
                "level": level,
                "coefficient": coefficient,
                "status": "fixture" if (group.status == "fixture").any() else "recomputed",
            }
            records += _average_pair(
                template,
                float(group.value.to_numpy(dtype=float).mean()),  # a NaN dimension makes a NaN AVG
                _printed(benchmark, AVERAGE, printed_name, coefficient, level),
                [
                    _printed(benchmark, dimension, printed_name, coefficient, level)
                    for dimension in dimensions
                ],
                f"mean of our {len(dimensions)} dimension values",
            )
    for average, subsets in AVERAGES.items():
        records += _subset_averages(usable, average, subsets, rename)
    return _typed(pd.DataFrame.from_records(records, columns=COLUMNS))


def _subset_averages(
    usable: pd.DataFrame, average: str, subsets: tuple[str, ...], rename: Mapping[str, str]
) -> list[dict[str, object]]:
    """The rows of the pseudo-benchmark ``average`` over its ``subsets`` (QAGS: consistency)."""
    (dimension,) = dimensions_of(average)
    key = ["metric", "variant", "level", "coefficient"]
    records: list[dict[str, object]] = []
    part = usable[usable.benchmark.isin(subsets) & (usable.dimension == dimension)]
    for (metric, variant, level, coefficient), group in part.groupby(key, sort=True):
        if group.benchmark.duplicated().any():
            raise ValueError(
                f"{average} {metric} ({variant}, {level}, {coefficient}) has repeated subset "
                "rows; give each variant its own name"
            )
        if set(group.benchmark) != set(subsets):
            continue
        printed_name = rename.get(metric, metric)
        template = {
            "benchmark": average,
            "dimension": dimension,
            "metric": metric,
            "variant": variant,
            "level": level,
            "coefficient": coefficient,
            "status": "fixture" if (group.status == "fixture").any() else "recomputed",
        }
        records += _average_pair(
            template,
            float(group.value.to_numpy(dtype=float).mean()),  # a NaN dimension makes a NaN AVG
            _printed(average, dimension, printed_name, coefficient, level),
            [_printed(subset, dimension, printed_name, coefficient, level) for subset in subsets],
            f"mean of our {' and '.join(subsets)} values",
        )
    return records


def paper_only_rows(
    benchmark: str,
    metrics: Iterable[str],
    status: str,
    note: str,
    variant: str = "as printed",
) -> pd.DataFrame:
    """Rows for printed numbers we cannot recompute (value NaN, paper_value as printed).

    Every printed cell of each metric in ``benchmark`` (dimension columns and the printed
    AVG/Average), plus "AVG-of-printed-columns" rows (paper_value = mean of the printed
    columns) wherever all columns are printed. ``status``: paper-only, not-released or
    not-recomputable; ``note`` says why.
    """
    allowed = tuple(s for s in STATUSES if s not in VALUE_STATUSES)
    if status not in allowed:
        raise ValueError(f"paper-only rows need a status in {allowed}, got {status!r}")
    if benchmark not in PRINTED_NAMES:
        raise ValueError(f"unknown benchmark {benchmark!r}: use one of {PRINTED_NAMES}")
    level = level_of(benchmark)
    across_dimensions = benchmark in NAMES and len(dimensions_of(benchmark)) > 1
    averaged = across_dimensions or benchmark in AVERAGES
    if benchmark in AVERAGES:
        (average_dimension,) = dimensions_of(benchmark)
        columns = [(subset, average_dimension) for subset in AVERAGES[benchmark]]
    else:
        columns = [(benchmark, dimension) for dimension in dimensions_of(benchmark)]
        average_dimension = AVERAGE
    dimensions = list(dimensions_of(benchmark)) + ([AVERAGE] if across_dimensions else [])
    records: list[dict[str, object]] = []
    for metric in metrics:
        printed_any = False
        for coefficient in COEFFICIENTS:
            for dimension in dimensions:
                printed = _printed(benchmark, dimension, metric, coefficient, level)
                if math.isnan(printed):
                    continue
                printed_any = True
                records.append(
                    {
                        **dict.fromkeys(COLUMNS, math.nan),
                        "benchmark": benchmark,
                        "dimension": dimension,
                        "metric": metric,
                        "variant": variant,
                        "level": level,
                        "coefficient": coefficient,
                        "paper_value": printed,
                        "status": status,
                        "note": note,
                    }
                )
            printed_columns = [_printed(b, d, metric, coefficient, level_of(b)) for b, d in columns]
            printed_average = _printed(benchmark, average_dimension, metric, coefficient, level)
            if averaged and not any(math.isnan(v) for v in [*printed_columns, printed_average]):
                column_mean = float(np.mean(printed_columns))
                records.append(
                    {
                        **dict.fromkeys(COLUMNS, math.nan),
                        "benchmark": benchmark,
                        "dimension": AVG_OF_PRINTED,
                        "metric": metric,
                        "variant": variant,
                        "level": level,
                        "coefficient": coefficient,
                        "paper_value": column_mean,
                        "status": status,
                        "note": _join(
                            note,
                            "paper_value = mean of the printed columns",
                            f"printed average {printed_average:.3f} vs mean of printed "
                            f"columns {column_mean:.4f}",
                        ),
                    }
                )
        if not printed_any:
            raise ValueError(f"the paper prints no {benchmark} number for metric {metric!r}")
    return _typed(pd.DataFrame.from_records(records, columns=COLUMNS))


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


_DECIMALS = {"paper_value": ".3f", "tie_rate": ".3f", "human_tie_rate": ".3f", "delta": "+.4f"}


def _cell(column: str, value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if column in ("n_items", "n_groups"):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return format(float(value), _DECIMALS.get(column, ".4f"))
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame) -> str:
    """A Markdown table of ``df`` (values to 4 decimals, printed values and tie rates to 3)."""
    lines = [
        "| " + " | ".join(df.columns) + " |",
        "|" + "|".join("---" for _ in df.columns) + "|",
    ]
    for row in df.itertuples(index=False):
        cells = [_cell(column, value) for column, value in zip(df.columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def table_rows(
    table: pd.DataFrame,
    *,
    benchmark: str,
    dimension: str,
    metric: str,
    variant: str,
    level: str,
    metric_column: str,
    human_column: str,
    settings: Mapping[str, Any],
    inputs: str,
    note: str = "",
    paper_metric: str | None = None,
    status: str = "recomputed",
) -> pd.DataFrame:
    """Rows of ``metric_column`` against ``human_column`` at ``level``.

    ``summary``: (system_id x ``inputs``) matrices, per input over its systems; ``global``:
    every row of ``table`` pooled (one pseudo-system, one input per row).
    """
    systems = "system_id"
    if level == "global":
        table, systems = table.assign(_pooled="all"), "_pooled"
    metric_matrix, _, _ = to_matrix(table, metric_column, systems=systems, inputs=inputs)
    human_matrix, _, _ = to_matrix(table, human_column, systems=systems, inputs=inputs)
    return correlation_rows(
        benchmark=benchmark,
        dimension=dimension,
        metric=metric,
        variant=variant,
        level=level,
        metric_scores=metric_matrix,
        human_scores=human_matrix,
        n_resamples=settings["bootstrap"]["n_resamples"],
        seed=settings["seed"],
        note=note,
        paper_metric=paper_metric,
        status=status,
    )
