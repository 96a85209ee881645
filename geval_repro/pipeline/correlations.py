"""Rule functions of the combined correlation table and the paper-layout Tables 1-3.

Each paper table has its own rows (the printed benchmarks it shows, with a row for every
printed number this run did not recompute: :func:`geval_repro.tables.printed.combined_table`),
made from the row files of the benchmarks it shows only; so Tables 2 and 3 are made without
SummEval's judge files. ``correlations.csv`` concatenates the three in the paper's order.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.files.atomic import write_text
from geval_repro.files.paths import PathLike
from geval_repro.pipeline.significance import read_significance
from geval_repro.registry.benchmarks import table_benchmarks
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.paper_layout import paper_layout, table_notes
from geval_repro.report.readme import RELEASED_JUDGE
from geval_repro.report.table_files import write_pair, write_rows
from geval_repro.tables.pairwise_accuracy import pairwise_accuracy_table
from geval_repro.tables.printed import combined_table

log = logging.getLogger(__name__)


def paper_table_rows(parts: Sequence[PathLike], number: int, out: PathLike) -> None:
    """The rows of paper table ``number`` (its printed benchmarks) from the row files
    ``parts``, with the printed numbers they do not recompute -> a row file."""
    benchmarks = list(table_benchmarks(number))
    rows = pd.concat([pd.read_csv(path) for path in parts], ignore_index=True)
    rows = rows[rows["benchmark"].isin(benchmarks)]
    table = combined_table(rows, benchmarks)
    log.info(
        "Table %d: %d computed rows from %d files, %d rows with the printed-only ones",
        number,
        len(rows),
        len(parts),
        len(table),
    )
    write_rows(table, out)


def combine(parts: Sequence[PathLike], stem: PathLike) -> None:
    """The rows of Tables 1-3, in that order (the paper's) -> ``<stem>.csv|.md``."""
    table = pd.concat([pd.read_csv(path) for path in parts], ignore_index=True)
    write_pair(table.astype({"n_items": "Int64", "n_groups": "Int64"}), stem)


def write_paper_layout(
    rows: PathLike,
    significance: Sequence[PathLike],
    number: int,
    judges: Mapping[str, JudgeSpec],
    out: PathLike,
) -> None:
    """Paper table ``number`` laid out as printed (Markdown) from its rows, the tests of the
    judge runs on its benchmarks against the best baseline, and notes on those runs
    (``judges``: their specs by name)."""
    table = pd.read_csv(rows)
    tests = read_significance(significance) if significance else None
    notes = table_notes(number, judges, RELEASED_JUDGE)
    write_text(out, paper_layout(table, number, tests, notes))


def write_pairwise_accuracy(correlations: PathLike, stem: PathLike) -> None:
    """The pairwise-accuracy table (:mod:`geval_repro.tables.pairwise_accuracy`) of the
    correlation rows -> ``<stem>.csv|.md``."""
    write_pair(pairwise_accuracy_table(pd.read_csv(correlations)), stem)


def reproduction_figure(rows: PathLike, number: int, png: PathLike, svg: PathLike) -> None:
    """Does it reproduce? Every recomputed cell of paper table ``number`` against its
    printed value (:func:`geval_repro.report.figures.reproduction_figure_of_table`)."""
    from geval_repro.report.figures import reproduction_figure_of_table

    reproduction_figure_of_table(rows, number, png, svg)
