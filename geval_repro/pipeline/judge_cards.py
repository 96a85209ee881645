"""Rule functions of the judge cards: the alternative annotator test of every metric on the
benchmarks with individual annotators (computed in :mod:`geval_repro.tables.alt_test`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.pipeline.judge_pairs import read_metrics
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.table_files import write_pair
from geval_repro.tables.alt_test import COLUMNS, alt_test_rows

log = logging.getLogger(__name__)

#: The legend under the alternative annotator test's Markdown table.
ALT_TEST_LEGEND = (
    "The alternative annotator test (Calderon, Reichart and Dror, ACL 2025; docs/protocol.md): "
    "omega = share of annotators the metric beats (Benjamini-Yekutieli at q = 0.05 over the "
    "annotators), rho = average advantage probability; the metric passes at omega >= 0.5 with "
    "margin epsilon (beside each row). Items are treated as independent. Reference rows: a "
    "random rating and a constant at the median rating; where the constant passes, the test "
    "cannot tell judges apart on that dimension."
)


def alt_test_table(
    benchmarks: Mapping[str, Benchmark],
    benchmark_tables: Mapping[str, PathLike],
    annotator_tables: Mapping[str, PathLike],
    baseline_scores: Mapping[str, Sequence[PathLike]],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
    settings: Settings,
    stem: PathLike,
) -> None:
    """The alternative annotator test of every metric on each of ``benchmarks`` ->
    ``<stem>.csv`` and ``<stem>.md``. Per benchmark name: its tidy table, its annotators'
    table, its baselines' per-item scores, the specs of the judges on it; ``processed``:
    each judge's processed tables by name."""
    parts = []
    for name, benchmark in benchmarks.items():
        epsilon = settings.epsilon(benchmark)
        if epsilon is None:
            continue
        _, metrics = read_metrics(
            benchmark,
            benchmark_tables[name],
            baseline_scores[name],
            specs[name],
            {judge: processed[judge] for judge in specs[name]},
            compared_only=True,
        )
        annotators = pd.read_parquet(annotator_tables[name])
        log.info(
            "%s: %d metrics against %d annotators, epsilon %g",
            name,
            len(metrics),
            annotators["expert"].nunique(),
            epsilon,
        )
        parts.append(
            alt_test_rows(benchmark, annotators, metrics, specs[name], epsilon, settings.seed)
        )
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
    write_pair(table, stem, legend=ALT_TEST_LEGEND)
