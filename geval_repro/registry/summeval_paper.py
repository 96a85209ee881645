"""SummEval's own printed numbers (Fabbri et al. 2021, TACL 9: 391-409): a source of printed
numbers apart from the G-Eval paper's (:mod:`geval_repro.registry.paper`).

Two files of ``geval_repro/data/`` (their transcription: that folder's README.md):

- ``summeval_table2.csv``: Table 2, the system-level Kendall τ of each metric against the
  expert annotations (each system's mean over the 100 documents), "using 11 reference
  summaries per example"; the rows of the metrics this toolkit recomputes on SummEval
  (ROUGE-1, ROUGE-2, ROUGE-L). Columns ``table, metric, dimension, coefficient, value``.
- ``summeval_table3.csv``: Table 3, each annotated system's expert ratings averaged over
  the three experts and the 100 documents, two decimals: 17 systems (the table's first row,
  the CNN/DM reference summaries, is not transcribed: no pinned file holds their expert
  ratings). Columns ``table, system_id, system, dimension, value``.

Their Table 2 correlates 17 systems: the 16 of summeval.json and ``M23_dynamicmix``, whose
expert ratings are in MetricEval's file but whose summaries summeval.json lacks, so no
metric can be recomputed for it here. Its τ values show it: (concordant - discordant) pairs
over sqrt(n0 (n0 - t)), n0 = C(17, 2) = 136 pairs and t the pairs the experts' system
means tie (none, but one for fluency: an integer over 136, over sqrt(136 · 135) for fluency).
This toolkit's system level (:mod:`geval_repro.tables.rows`) correlates the 16 systems, and
its ROUGE is Google's ``rouge-score`` package where SummEval's toolkit ran ROUGE-1.5.5, so
a SummEval value beside one of ours is a comparison (:data:`SYSTEM_LEVEL_NOTE`), not a
reproduction.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import PACKAGE_DATA
from geval_repro.stats.level import Level

TABLE2_PATH = PACKAGE_DATA / "summeval_table2.csv"
TABLE3_PATH = PACKAGE_DATA / "summeval_table3.csv"
#: Whose numbers these are, as the ``paper`` column of a row names them.
PAPER = "SummEval (Fabbri et al. 2021)"
#: The benchmark and level its Table 2 prints.
BENCHMARK = "summeval"
LEVEL = Level.SYSTEM
#: Half a unit of Table 2's fourth decimal.
ROUNDING_TOLERANCE = 0.00005
#: The systems SummEval annotated and its Table 2 correlates, and those of summeval.json.
ANNOTATED_SYSTEMS = 17
EXTRA_SYSTEM = "M23_dynamicmix"
#: Said beside every SummEval system-level row.
SYSTEM_LEVEL_NOTE = (
    "system level over the 16 systems of summeval.json; SummEval's own Table 2 (Fabbri et al. "
    f"2021) correlates the {ANNOTATED_SYSTEMS} it annotated ({EXTRA_SYSTEM} too, whose "
    "summaries summeval.json lacks) and scores ROUGE with ROUGE-1.5.5 where this toolkit uses "
    "Google's rouge-score, so its printed value is a comparison, not a reproduction target"
)
TABLE2_COLUMNS = ["table", "metric", "dimension", "coefficient", "value"]
TABLE3_COLUMNS = ["table", "system_id", "system", "dimension", "value"]


def _check(table: pd.DataFrame, path: Path, columns: list[str], number: int) -> None:
    """Raise naming the file and the first bad row when a transcription is malformed."""
    if list(table.columns) != columns:
        raise ValueError(f"{path}: columns must be {columns}, found {list(table.columns)}")
    dimensions = get_benchmark(BENCHMARK).dimension_names
    for row in table.itertuples(index=True):
        where = f"{path}: row {row.Index + 2}"
        if row.table != number or row.dimension not in dimensions:
            raise ValueError(f"{where}: table must be {number}, dimension one of {dimensions}")
    keys = [c for c in columns if c not in ("table", "value", "system")]
    if table.duplicated(keys).any():
        raise ValueError(f"{path}: a cell is listed twice ({keys})")


@cache
def table2(path: Path = TABLE2_PATH) -> pd.DataFrame:
    """SummEval's Table 2 rows (see the module docstring), checked."""
    table = pd.read_csv(path)
    _check(table, path, TABLE2_COLUMNS, 2)
    if not table["value"].between(-1, 1).all() or set(table["coefficient"]) != {"kendall"}:
        raise ValueError(f"{path}: Table 2 holds Kendall taus in [-1, 1]")
    return table


@cache
def table3(path: Path = TABLE3_PATH) -> pd.DataFrame:
    """SummEval's Table 3 (see the module docstring), checked."""
    table = pd.read_csv(path, dtype={"system_id": str})
    _check(table, path, TABLE3_COLUMNS, 3)
    if not table["value"].between(1, 5).all():
        raise ValueError(f"{path}: Table 3 holds mean ratings on the 1-5 scale")
    return table


def system_level_value(
    benchmark: str, dimension: str, metric: str, coefficient: str, level: Level | str
) -> float:
    """SummEval's printed value of this cell (its Table 2: SummEval, system level, Kendall),
    else NaN."""
    if benchmark != BENCHMARK or Level(level) is not LEVEL:
        return math.nan
    table = table2()
    found = table[
        (table["metric"] == metric)
        & (table["dimension"] == dimension)
        & (table["coefficient"] == coefficient)
    ]
    return float(found["value"].iloc[0]) if len(found) else math.nan


def paper_table(number: int) -> str:
    """How a row names SummEval's table ``number`` in its ``paper`` column."""
    return f"{PAPER}, Table {number}"
