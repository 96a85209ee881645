"""Rule functions of the combined correlation table, the paper-layout Tables 1-3 and the
layouts of the benchmarks with per-item human scores that no paper table prints.

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
from geval_repro.pipeline.judge_pairs import read_metrics
from geval_repro.pipeline.significance import read_significance
from geval_repro.registry.benchmarks import BENCHMARKS, Benchmark, table_benchmarks
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.benchmark_layout import correlation_layout, judge_notes
from geval_repro.report.paper_layout import paper_layout, table_notes
from geval_repro.report.readme import RELEASED_JUDGE
from geval_repro.report.table_files import write_layout, write_pair, write_rows
from geval_repro.tables.pairwise_accuracy import (
    REFERENCE_LEGEND,
    accuracy_blocks,
    pairwise_accuracy_table,
)
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


def beyond_paper_rows(parts: Sequence[PathLike], out: PathLike) -> None:
    """The rows of the benchmarks with per-item human scores that no paper table prints
    (DialSummEval), from the row files ``parts``, in the registry's order -> a row file."""
    names = [b.name for b in BENCHMARKS.values() if b.paper_table is None and b.has_human_scores]
    rows = pd.concat([pd.read_csv(path) for path in parts], ignore_index=True)
    rows = rows[rows["benchmark"].isin(names)]
    order = rows["benchmark"].map({name: i for i, name in enumerate(names)})
    rows = rows.iloc[order.argsort(kind="stable")]
    log.info("%d rows of %s from %d files", len(rows), ", ".join(names), len(parts))
    write_rows(rows.astype({"n_items": "Int64", "n_groups": "Int64"}), out)


def combine(parts: Sequence[PathLike], stem: PathLike) -> None:
    """The rows of Tables 1-3, in that order (the paper's), then those of the benchmarks no
    paper table prints -> ``<stem>.csv|.md``."""
    table = pd.concat([pd.read_csv(path) for path in parts], ignore_index=True)
    write_pair(table.astype({"n_items": "Int64", "n_groups": "Int64"}), stem)


def write_paper_layout(
    rows: PathLike,
    significance: Sequence[PathLike],
    number: int,
    specs: Mapping[str, JudgeSpec],
    stem: PathLike,
) -> None:
    """Paper table ``number`` laid out as printed from its rows, the tests of the judges on
    its benchmarks against the best baseline, and notes on those judges (``specs``: their
    specs by name) -> ``<stem>.csv`` (the cells) and ``<stem>.md``."""
    table = pd.read_csv(rows)
    tests = read_significance(significance) if significance else None
    notes = table_notes(number, specs, RELEASED_JUDGE)
    write_layout(*paper_layout(table, number, tests, notes), stem)


def write_benchmark_layout(
    rows: PathLike,
    significance: Sequence[PathLike],
    benchmark: Benchmark,
    specs: Mapping[str, JudgeSpec],
    stem: PathLike,
) -> None:
    """``benchmark`` (per-item human scores, in no paper table) laid out in the paper
    tables' style (:func:`geval_repro.report.benchmark_layout.correlation_layout`) from the
    rows of the benchmarks beyond the paper, the tests of its judges (``specs``: by name)
    against the best baseline -> ``<stem>.csv`` (the cells) and ``<stem>.md``."""
    table = pd.read_csv(rows)
    tests = read_significance(significance) if significance else None
    cells, markdown = correlation_layout(table, benchmark, tests, judge_notes(specs))
    log.info("%s laid out: %d rows", benchmark.name, len(cells))
    write_layout(cells, markdown, stem)


def benchmark_accuracy_blocks(
    benchmark: Benchmark,
    benchmark_table: PathLike,
    baseline_scores: Sequence[PathLike],
    specs: Mapping[str, JudgeSpec],
    processed: Mapping[str, Mapping[str, PathLike]],
    out: PathLike,
) -> None:
    """The item sets of every metric of ``benchmark`` with accuracy rows, each with its two
    reference rows (:func:`geval_repro.tables.pairwise_accuracy.accuracy_blocks`) -> a
    CSV; the inputs as in :func:`geval_repro.pipeline.judge_pairs.read_metrics`."""
    tidy, metrics = read_metrics(
        benchmark, benchmark_table, baseline_scores, specs, processed, compared_only=False
    )
    table = accuracy_blocks(benchmark, tidy, metrics)
    for (dimension, ranking), n_items in (
        table[table["reference"]].groupby(["dimension", "ranking"], sort=False)["n_items"].first()
    ).items():
        log.info("%s %s: ranking %s on %d items", benchmark.name, dimension, ranking, n_items)
    write_text(out, table.to_csv(index=False, lineterminator="\n"))


def write_pairwise_accuracy(
    correlations: PathLike, blocks: Sequence[PathLike], stem: PathLike
) -> None:
    """The pairwise-accuracy table (:mod:`geval_repro.tables.pairwise_accuracy`) of the
    correlation rows, each benchmark's rows in the rankings of its ``blocks`` file, with
    their reference rows -> ``<stem>.csv|.md`` (the Markdown says what the references
    mean)."""
    placed = pd.concat([pd.read_csv(path) for path in blocks], ignore_index=True)
    table = pairwise_accuracy_table(pd.read_csv(correlations), placed)
    write_pair(table, stem, legend=REFERENCE_LEGEND)


def reproduction_figure(rows: PathLike, number: int, png: PathLike, svg: PathLike) -> None:
    """Does it reproduce? Every recomputed cell of paper table ``number`` against its
    printed value (:func:`geval_repro.report.figures.reproduction_figure_of_table`)."""
    from geval_repro.report.figures import reproduction_figure_of_table

    reproduction_figure_of_table(rows, number, png, svg)
