"""The correlation table: one row per benchmark, dimension, metric, variant, level and
coefficient, next to the paper's printed value.

Written to ``results/tables/correlations.csv`` with a Markdown twin
(:func:`geval_repro.table_files.write_pair`);
later issues append rows of the same shape. Columns (:data:`COLUMNS`):

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

AVG rows: :func:`average_rows` adds, per metric, variant, level and coefficient, one row with
the mean of our dimension values (QAGS: of our two subsets) whose ``paper_value`` is the
paper's printed AVG (Average). The paper's printed average is not always the mean of its
printed columns (Table 1's G-Eval rows, Table 3's Average), so the note states both
("printed average 0.200; mean of the printed columns 0.2005"), each to the decimals it has.
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
from geval_repro.stats.matrix import POOLED, as_score_pair, to_matrix, with_pooled_system
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
        return (
            f"matches the printed {printed_number(printed)} to rounding (|delta| <= {tolerance:g})"
        )
    return (
        f"differs from the printed {printed_number(printed)} beyond rounding (delta {delta:+.4f}, "
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


def printed_number(value: float) -> str:
    """``value`` with as many decimals as it needs (3 to 5), so a note never re-rounds it.

    A printed cell has 3 decimals; the mean of 2 or 4 printed cells has up to 4 or 5
    (0.2005 = (0.333 + 0.068) / 2 is "0.2005", not "0.201").
    """
    text = f"{value:.5f}".rstrip("0")
    decimals = len(text.partition(".")[2])
    return f"{value:.{max(decimals, 3)}f}"


def _average_row(
    template: Mapping[str, object],
    value: float,
    printed_average: float,
    printed_columns: list[float],
    what: str,
) -> dict[str, object]:
    """The AVG row of one group: ``paper_value`` is the printed average, and the note states
    both the printed average and the mean of the printed columns it summarizes."""
    empty = dict.fromkeys(
        ("ci_low", "ci_high", "n_items", "n_groups", "tie_rate", "human_tie_rate"), math.nan
    )
    return {
        **template,
        **empty,
        "value": value,
        "paper_value": printed_average,
        "delta": value - printed_average,
        "note": _join(
            what,
            printed_averages_note(printed_average, printed_columns),
            comparison_note(value, printed_average, PRINTED_AVERAGE_TOLERANCE),
        ),
    }


def printed_averages_note(printed_average: float, printed_columns: list[float]) -> str:
    """ "printed average A; mean of the printed columns M" (each part only when printed)."""
    columns_printed = bool(printed_columns) and not any(math.isnan(v) for v in printed_columns)
    parts = []
    if not math.isnan(printed_average):
        parts.append(f"printed average {printed_number(printed_average)}")
    if columns_printed:
        column_mean = float(np.mean(printed_columns))
        parts.append(f"mean of the printed columns {printed_number(column_mean)}")
    return "; ".join(parts)


def average_rows(
    rows: pd.DataFrame, paper_metrics: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """AVG rows for every complete group of dimension rows in ``rows``.

    Groups: (benchmark, metric, variant, level, coefficient) of rows with a value (status
    recomputed or fixture). A summeval/topical_chat group needs each of the benchmark's four
    dimensions exactly once; its "AVG" row (value = mean of the four values) faces the
    printed AVG. qags_cnndm + qags_xsum groups give a "qags_avg" row (dimension
    "consistency") facing the printed Average. Each note states the printed average and the
    mean of the printed columns (see the module docstring). ``paper_metrics`` maps our
    metric names to printed names where they differ. A fixture in a group makes its rows fixtures.
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
            records.append(
                _average_row(
                    template,
                    float(
                        group.value.to_numpy(dtype=float).mean()
                    ),  # a NaN dimension makes a NaN AVG
                    _printed(benchmark, AVERAGE, printed_name, coefficient, level),
                    [
                        _printed(benchmark, dimension, printed_name, coefficient, level)
                        for dimension in dimensions
                    ],
                    f"mean of our {len(dimensions)} dimension values",
                )
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
        records.append(
            _average_row(
                template,
                float(group.value.to_numpy(dtype=float).mean()),  # a NaN dimension makes a NaN AVG
                _printed(average, dimension, printed_name, coefficient, level),
                [
                    _printed(subset, dimension, printed_name, coefficient, level)
                    for subset in subsets
                ],
                f"mean of our {' and '.join(subsets)} values",
            )
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
    AVG/Average; the note of an average also states the mean of the printed columns when
    all are printed). ``status``: paper-only, not-released or not-recomputable; ``note``
    says why.
    """
    allowed = tuple(s for s in STATUSES if s not in VALUE_STATUSES)
    if status not in allowed:
        raise ValueError(f"paper-only rows need a status in {allowed}, got {status!r}")
    if benchmark not in PRINTED_NAMES:
        raise ValueError(f"unknown benchmark {benchmark!r}: use one of {PRINTED_NAMES}")
    level = level_of(benchmark)
    across_dimensions = benchmark in NAMES and len(dimensions_of(benchmark)) > 1
    if benchmark in AVERAGES:
        (average_dimension,) = dimensions_of(benchmark)
        columns = [(subset, average_dimension) for subset in AVERAGES[benchmark]]
    else:
        columns = [(benchmark, dimension) for dimension in dimensions_of(benchmark)]
        average_dimension = AVERAGE
    dimensions = list(dimensions_of(benchmark)) + ([AVERAGE] if across_dimensions else [])
    averaged = across_dimensions or benchmark in AVERAGES
    records: list[dict[str, object]] = []
    for metric in metrics:
        printed_any = False
        for coefficient in COEFFICIENTS:
            for dimension in dimensions:
                printed = _printed(benchmark, dimension, metric, coefficient, level)
                if math.isnan(printed):
                    continue
                printed_any = True
                averages_note = ""
                if averaged and dimension == average_dimension:
                    averages_note = printed_averages_note(
                        printed,
                        [_printed(b, d, metric, coefficient, level_of(b)) for b, d in columns],
                    )
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
                        "note": _join(note, averages_note),
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
OUTSIDE_CI = "†"
OUTSIDE_CI_LEGEND = (
    f"{OUTSIDE_CI} the printed value lies outside our {CONFIDENCE:.0%} CI: no number that "
    "rounds to it (printed value ± 0.0005) falls in the interval."
)


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def outside_ci(printed: object, low: object, high: object) -> bool:
    """Whether the printed value lies outside ``[low, high]`` beyond its rounding.

    True when every number that rounds to ``printed`` (``printed ± 0.0005``) is outside the
    interval; False when any of the three is missing.
    """
    if any(_missing(v) for v in (printed, low, high)):
        return False
    return float(printed) + ROUNDING_TOLERANCE < float(low) or float(
        printed
    ) - ROUNDING_TOLERANCE > float(high)


def _cell(column: str, value: object) -> str:
    if _missing(value):
        return ""
    if column in ("n_items", "n_groups"):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return format(float(value), _DECIMALS.get(column, ".4f"))
    return str(value).replace("|", "\\|").replace("\n", " ")


def with_ci(value: object, low: object, high: object, decimals: int = 4) -> str:
    """``value [low, high]`` ("0.5120 [0.470, 0.553]"; the interval to 3 decimals), or the
    value alone when there is no interval, or "" when there is no value."""
    if _missing(value):
        return ""
    text = f"{float(value):.{decimals}f}"
    if not (_missing(low) or _missing(high)):
        text += f" [{float(low):.3f}, {float(high):.3f}]"
    return text


def to_markdown(df: pd.DataFrame) -> str:
    """A Markdown table of ``df`` (values to 4 decimals, printed values and tie rates to 3).

    A table with ``value``, ``ci_low`` and ``ci_high`` shows the interval beside the value
    in one ``value [95 % CI]`` column; with a ``paper_value`` too, a printed value outside
    the interval (:func:`outside_ci`) gets a ``†`` and the table a legend line under it.
    """
    has_ci = {"value", "ci_low", "ci_high"} <= set(df.columns)
    columns = [c for c in df.columns if not (has_ci and c in ("ci_low", "ci_high"))]
    header = [f"value [{CONFIDENCE:.0%} CI]" if has_ci and c == "value" else c for c in columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    flagged = False
    for row in df.to_dict(orient="records"):
        cells = []
        for column in columns:
            if has_ci and column == "value":
                cells.append(with_ci(row["value"], row["ci_low"], row["ci_high"]))
                continue
            cell = _cell(column, row[column])
            if (
                has_ci
                and column == "paper_value"
                and outside_ci(row["paper_value"], row["ci_low"], row["ci_high"])
            ):
                cell += f" {OUTSIDE_CI}"
                flagged = True
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    if flagged:
        lines += ["", OUTSIDE_CI_LEGEND]
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
        table, systems = with_pooled_system(table), POOLED
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
