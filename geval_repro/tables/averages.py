"""AVG rows: the mean of our values over the columns the paper averages.

Per metric, variant, level and coefficient, one row with the mean of our dimension values
(SummEval, Topical-Chat: the "AVG" column over the benchmark's dimensions) or of our subset
values (QAGS: the "Average" of CNN/DM and XSum), whose ``paper_value`` is the paper's
printed average. An average is no better supported than its weakest cell: its ``n_items``
and ``n_groups`` are the smallest of the cells it averages, its ``share_unread`` the
largest; its other measured columns stay empty. The paper's printed average is not always
the mean of its printed columns (Table 1's G-Eval rows, Table 3's Average), so the note
states both ("printed average 0.200; mean of the printed columns 0.2005"), each to the
decimals it has.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import AVERAGES, NAMES, dimensions_of, level_of
from geval_repro.registry.paper import AVERAGE, PRINTED_AVERAGE_TOLERANCE, paper_table_name
from geval_repro.stats.level import Level
from geval_repro.tables.rows import (
    COLUMNS,
    MEASURED,
    VALUE_STATUSES,
    comparison_note,
    join_notes,
    printed_number,
    printed_value,
    row_key,
    system_level_note,
    typed_counts,
)

GROUP = ["metric", "variant", "level", "coefficient"]


class Averaged(NamedTuple):
    """One printed average: its (benchmark, dimension) cell, the (benchmark, dimension)
    cells it averages, what the note calls our mean, and which key tells the cells apart."""

    benchmark: str
    dimension: str
    columns: tuple[tuple[str, str], ...]
    what: str
    part: str


def printed_averages() -> Iterator[Averaged]:
    """The paper's averages, in table order: each benchmark's AVG over its dimensions, then
    each averaged pseudo-benchmark (QAGS Average) over its subsets."""
    for benchmark in NAMES:
        dimensions = dimensions_of(benchmark)
        if len(dimensions) > 1:
            columns = tuple((benchmark, d) for d in dimensions)
            what = f"mean of our {len(dimensions)} dimension values"
            yield Averaged(benchmark, AVERAGE, columns, what, "dimension")
    for average, entry in AVERAGES.items():
        subsets = entry.parts
        (dimension,) = dimensions_of(average)
        columns = tuple((subset, dimension) for subset in subsets)
        yield Averaged(
            average, dimension, columns, f"mean of our {' and '.join(subsets)} values", "benchmark"
        )


def _average_row(
    template: Mapping[str, object],
    group: pd.DataFrame,
    printed_average: float,
    printed_columns: list[float],
    what: str,
) -> dict[str, object]:
    """The AVG row of the cells ``group``: their mean value, the smallest counts and the
    largest unread share of them (module docstring); ``paper_value`` is the printed
    average, and the note states both the printed average and the mean of the printed
    columns it summarizes."""
    value = float(group.value.to_numpy(dtype=float).mean())
    weakest = {
        "n_items": group["n_items"].min(),
        "n_groups": group["n_groups"].min(),
        "share_unread": group["share_unread"].max(),
    }
    printed = not math.isnan(printed_average)
    return {
        **template,
        **dict.fromkeys(MEASURED, math.nan),
        **{column: math.nan if pd.isna(v) else v for column, v in weakest.items()},
        "value": value,
        "paper_value": printed_average,
        "paper": paper_table_name(str(template["benchmark"])) if printed else "",
        "delta": value - printed_average,
        "note": join_notes(
            what,
            printed_averages_note(printed_average, printed_columns),
            comparison_note(value, printed_average, PRINTED_AVERAGE_TOLERANCE),
            system_level_note(str(template["benchmark"]), Level(str(template["level"]))),
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
    """AVG rows for every complete group of averaged cells in ``rows``.

    Groups: (metric, variant, level, coefficient) of rows with a value (status recomputed,
    toolkit-run or fixture) in the cells of one printed average (:func:`printed_averages`); a group
    needs each cell exactly once, and its row (value = mean of the cells' values; a NaN cell
    makes a NaN mean) faces the printed average. ``paper_metrics`` maps our metric names to
    printed names where they differ. A fixture in a group makes its row a fixture, else a
    toolkit-run cell makes it a toolkit-run row.
    """
    rename = dict(paper_metrics or {})
    usable = rows[rows.status.isin(VALUE_STATUSES)]
    cells = pd.Series(
        list(zip(usable.benchmark, usable.dimension, strict=True)), index=usable.index
    )
    records: list[dict[str, object]] = []
    for averaged in printed_averages():
        part = usable[cells.isin(averaged.columns)]
        for (metric, variant, level, coefficient), group in part.groupby(GROUP, sort=True):
            if group[averaged.part].duplicated().any():
                raise ValueError(
                    f"{averaged.benchmark} {metric} ({variant}, {level}, {coefficient}) has "
                    f"repeated {averaged.part} rows: {sorted(group[averaged.part])}; give each "
                    "variant its own name"
                )
            if len(group) != len(averaged.columns):
                continue
            printed_name = rename.get(metric, metric)
            template = {
                **row_key(
                    averaged.benchmark, averaged.dimension, metric, variant, level, coefficient
                ),
                "status": next(
                    (s for s in ("fixture", "toolkit-run") if (group.status == s).any()),
                    "recomputed",
                ),
            }
            records.append(
                _average_row(
                    template,
                    group,
                    printed_value(
                        averaged.benchmark, averaged.dimension, printed_name, coefficient, level
                    ),
                    [  # the paper's columns (no other source prints an average)
                        printed_value(b, d, printed_name, coefficient, level)
                        for b, d in averaged.columns
                        if level == level_of(averaged.benchmark)
                    ],
                    averaged.what,
                )
            )
    return typed_counts(pd.DataFrame.from_records(records, columns=COLUMNS))
