"""The G-Eval paper's published correlations (Liu et al., EMNLP 2023, Tables 1-3).

``geval_repro/data/paper_tables.csv`` holds one row per printed number (see its README.md for the
transcription source): ``table, benchmark, dimension, metric, coefficient, value``, with
metric names exactly as printed and "-" cells omitted.

Benchmarks and the level at which the paper correlates them (following UniEval; the
registry :mod:`geval_repro.registry.benchmarks` holds them, with ``AVERAGES`` for qags_avg):

- ``summeval`` (Table 1, Spearman/Kendall): summary level, dimensions coherence,
  consistency, fluency, relevance and the printed AVG;
- ``topical_chat`` (Table 2, Pearson/Spearman, though the caption says Spearman/Kendall):
  turn level = global, dimensions naturalness, coherence, engagingness, groundedness, AVG;
- ``qags_cnndm``, ``qags_xsum`` (Table 3, Pearson/Spearman/Kendall): dataset level =
  global, dimension consistency; ``qags_avg`` is the printed Average of the two subsets.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from geval_repro.registry.benchmarks import (
    AVERAGES,
    PRINTED_NAMES,
    average_of,
    dimensions_of,
    printed_coefficients,
    table_of,
)
from geval_repro.registry.sources import PACKAGE_DATA

PAPER_TABLES_PATH = PACKAGE_DATA / "paper_tables.csv"
COLUMNS = ["table", "benchmark", "dimension", "metric", "coefficient", "value"]
AVERAGE = "AVG"
# Printed numbers have 3 decimals: an average of rounded columns may differ from the rounded
# average of unrounded values by up to 0.0005 + 0.0005.
PRINTED_AVERAGE_TOLERANCE = 0.001


def _averaged_across(name: str) -> bool:
    """True for a benchmark whose printed average is across benchmarks (QAGS), not dimensions."""
    return name in AVERAGES or average_of(name) is not None


def _validate(table: pd.DataFrame, path: Path) -> None:
    """Raise naming the file and the first offending row when the CSV is malformed."""
    if list(table.columns) != COLUMNS:
        raise ValueError(f"{path}: columns must be {COLUMNS}, found {list(table.columns)}")
    for row in table.itertuples(index=True):
        where = f"{path}: row {row.Index + 2} ({row.benchmark}, {row.dimension}, {row.metric})"
        if row.benchmark not in PRINTED_NAMES:
            raise ValueError(f"{where}: unknown benchmark; use one of {PRINTED_NAMES}")
        allowed = dimensions_of(row.benchmark) + (
            () if _averaged_across(row.benchmark) else (AVERAGE,)
        )
        if row.dimension not in allowed:
            raise ValueError(f"{where}: dimension must be one of {allowed}")
        printed = printed_coefficients(row.benchmark)
        if row.coefficient not in printed:
            raise ValueError(
                f"{where}: coefficient must be one of those the registry says the paper prints "
                f"for {row.benchmark}, {printed}"
            )
        if row.table != table_of(row.benchmark):
            raise ValueError(
                f"{where}: {row.benchmark} is printed in Table {table_of(row.benchmark)}"
            )
        if not -1.0 <= row.value <= 1.0:
            raise ValueError(f"{where}: value {row.value} is not a correlation")
    key = ["benchmark", "dimension", "metric", "coefficient"]
    repeated = table[table.duplicated(subset=key, keep=False)]
    if not repeated.empty:
        raise ValueError(f"{path}: cells listed twice:\n{repeated.to_string()}")


@cache
def _load(path: Path) -> pd.DataFrame:
    table = pd.read_csv(path, dtype={"metric": str, "dimension": str})
    _validate(table, path)
    return table


def paper_table(path: Path = PAPER_TABLES_PATH) -> pd.DataFrame:
    """All printed numbers, long form (a fresh copy; see the module docstring)."""
    return _load(path).copy()


@cache
def _lookup(path: Path) -> dict[tuple[str, str, str, str], float]:
    table = _load(path)
    key = zip(table.benchmark, table.dimension, table.metric, table.coefficient, strict=True)
    return dict(zip(key, table.value.astype(float), strict=True))


#: Whose numbers these are, as the ``paper`` column of a row names them.
PAPER = "G-Eval (Liu et al. 2023)"


def paper_table_name(benchmark: str) -> str:
    """How a row names the G-Eval table that prints ``benchmark`` in its ``paper`` column."""
    return f"{PAPER}, Table {table_of(benchmark)}"


def paper_value(
    benchmark: str, dimension: str, metric: str, coefficient: str, path: Path = PAPER_TABLES_PATH
) -> float | None:
    """The printed value, or None when the paper prints none (a "-" cell or no such row).

    ``metric`` is the printed name ("G-Eval-4 -Probs"); ``dimension`` "AVG" gives the printed
    AVG column; ``benchmark`` "qags_avg" with dimension "consistency" the Table 3 Average.
    """
    return _lookup(path).get((benchmark, dimension, metric, coefficient))


def printed_average_check(path: Path = PAPER_TABLES_PATH) -> pd.DataFrame:
    """Every printed average next to the mean of the printed columns it summarizes.

    Rows: benchmark (summeval, topical_chat: AVG over dimensions; qags_avg: Average over
    the two QAGS subsets), metric, coefficient, printed, column_mean, difference (printed -
    column_mean) and consistent (``|difference| <= 0.001``, the most that rounding each
    printed number to 3 decimals can explain). Only averages whose columns are all printed.
    """
    table = _load(path)
    records = []
    groups = [
        (name, table[table.benchmark == name])
        for name in PRINTED_NAMES
        if not _averaged_across(name)
    ] + [
        (name, table[table.benchmark.isin((*average.parts, name))])
        for name, average in AVERAGES.items()
    ]
    for benchmark, parts in groups:
        if benchmark in AVERAGES:
            is_average = parts.benchmark == benchmark
            n_columns = len(AVERAGES[benchmark].parts)
        else:
            is_average = parts.dimension == AVERAGE
            n_columns = len(dimensions_of(benchmark))
        averages = parts[is_average].set_index(["metric", "coefficient"]).value
        columns = parts[~is_average].groupby(["metric", "coefficient"]).value.agg(["mean", "size"])
        joined = columns[columns["size"] == n_columns].join(averages, how="inner")
        for (metric, coefficient), row in joined.iterrows():
            difference = row.value - row["mean"]
            records.append(
                {
                    "benchmark": benchmark,
                    "metric": metric,
                    "coefficient": coefficient,
                    "printed": row.value,
                    "column_mean": row["mean"],
                    "difference": difference,
                    "consistent": abs(difference) <= PRINTED_AVERAGE_TOLERANCE + 1e-12,
                }
            )
    return pd.DataFrame.from_records(records)


#: What a row of recomputed numbers is beside the paper's printed row of the same metric,
#: where the printed row does not come from the released data: (benchmark, metric) -> note.
PRINTED_ROW_NOTES: dict[tuple[str, str], str] = {
    ("topical_chat", "UniEval"): "the paper's printed UniEval r and ρ match neither (the "
    "printed row does not come from these predictions with scipy's coefficients)",
}
#: Lines under a paper table about one of its benchmarks' printed rows: benchmark -> line.
TABLE_NOTES: dict[str, str] = {
    "topical_chat": "UniEval: our Pearson, Spearman and Kendall on UniEval's released "
    "Topical-Chat predictions equal, to 6 decimals, the turn-level table of UniEval's own "
    "reproduce/README.md (maszhongming/UniEval); the paper's printed UniEval r and ρ match "
    "neither, so the printed row does not come from those predictions with scipy's "
    "coefficients.",
}
