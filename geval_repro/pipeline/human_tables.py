"""Human-data tables: agreement, the human ceiling, QAGS re-derivation, score distributions.

- Per-annotator ratings (SummEval's experts, from MetricEval; DialSummEval's annotators),
  every benchmark whose registry entry names an ``annotators`` table: Krippendorff's alpha
  per dimension, and the human ceiling: each annotator's ratings against the mean of the
  other two at the benchmark's level, per annotator and averaged over the three.
- SummEval: each annotated system's mean rating (all 17, M23_dynamicmix too) against SummEval's own
  Table 3 (:mod:`geval_repro.registry.summeval_paper`), a check of the pinned ratings.
- QAGS: per-summary consistency re-derived from the MTurk answers (majority of 3 workers
  per sentence, then the share of consistent sentences), checked item by item against
  UniEval's conversion; worker agreement (Krippendorff's alpha, nominal) per subset.
- Distributions: counts of each human score per benchmark and dimension, and tie rates at
  the level each benchmark is correlated at.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.files.paths import PathLike
from geval_repro.human.agreement import (
    ANNOTATOR,
    annotator_alpha,
    annotator_ratings,
    twins_note,
)
from geval_repro.human.ceiling import leave_one_out_ceiling
from geval_repro.human.distributions import score_counts, tie_rates
from geval_repro.human.qags_consistency import (
    compare_with_unieval,
    summary_consistency,
    worker_agreement,
)
from geval_repro.human.system_means import compare_with_printed, system_means
from geval_repro.registry import summeval_paper
from geval_repro.registry.benchmarks import BENCHMARKS, HUMAN_ROLES, Benchmark
from geval_repro.registry.outputs import HUMAN_TABLES
from geval_repro.registry.sources import get_source
from geval_repro.report.figures import distribution_figure, save_figure
from geval_repro.report.table_files import write_pair, write_rows
from geval_repro.scoring.pairing import matrix_axes, pooled
from geval_repro.tables.rows import COLUMNS

log = logging.getLogger(__name__)

CEILING_METRIC = "Human: one annotator vs mean of the other two"


def ceiling_rows(annotators: pd.DataFrame, benchmark: Benchmark) -> pd.DataFrame:
    """The human ceiling of ``benchmark`` from its annotators' ratings, at its level, in the
    correlations.csv shape (no CI; status recomputed)."""
    table = leave_one_out_ceiling(
        annotators, coefficients=("pearson", "spearman", "kendall"), level=benchmark.level
    )
    n_annotators = annotators[ANNOTATOR].nunique()
    twins = {
        dimension: twins_note(annotator_ratings(annotators, dimension))
        for dimension in annotators["dimension"].unique()
    }
    upstream = get_source(benchmark.other_tables[benchmark.human_tables["annotators"]])
    where = f"{upstream.owner}/{upstream.repo} {upstream.path}"
    source = f"{benchmark.title}'s per-annotator ratings ({where})"
    rows = pd.DataFrame(
        {
            "benchmark": benchmark.name,
            "dimension": table["dimension"],
            "metric": CEILING_METRIC,
            "variant": [
                f"mean over the {n_annotators} annotators" if e == "mean" else f"annotator {e}"
                for e in table[ANNOTATOR]
            ],
            "level": table["level"],
            "coefficient": table["coefficient"],
            "value": table["value"],
            "ci_low": np.nan,
            "ci_high": np.nan,
            "n_items": table["n_items"],
            "n_groups": table["n_groups"],
            "tie_rate": np.nan,
            "human_tie_rate": np.nan,
            "epsilon": np.nan,
            "share_unread": np.nan,
            "paper_value": np.nan,
            "paper": "",
            "delta": np.nan,
            "status": "recomputed",
            "note": [
                "; ".join(
                    filter(
                        None,
                        [
                            f"{source}; the reference is the mean of two annotators, not "
                            "three, so this is a yardstick rather than a strict upper bound",
                            twins[dimension],
                        ],
                    )
                )
                for dimension in table["dimension"]
            ],
        }
    )
    return rows[COLUMNS].astype({"n_items": "Int64", "n_groups": "Int64"})


def human_tables(
    processed: Mapping[str, PathLike], out_dir: PathLike, figure_stem: PathLike, rows: PathLike
) -> None:
    """Write the human-data tables (:data:`~geval_repro.registry.outputs.HUMAN_TABLES`) into
    ``out_dir``, the figure of the score distributions (``<figure_stem>.png|.svg``) and the
    human ceiling's rows for correlations.csv (``rows``).

    ``processed`` maps the tidy tables of every benchmark with per-item human scores and of
    their further human judgements (their registry's ``human_tables``) to parquet files.
    """
    out = Path(out_dir)
    tables = {name: pd.read_parquet(path) for name, path in processed.items()}
    log.info("read %s", ", ".join(f"{name} ({len(t)} rows)" for name, t in tables.items()))
    scored = [b for b in BENCHMARKS.values() if b.has_human_scores]
    of_role = {r: [b for b in scored if r in b.human_tables] for r in HUMAN_ROLES}
    (annotators_of, (annotated_of, *_), crowd_of) = of_role.values()
    ratings = {b.name: tables[b.human_tables["annotators"]] for b in annotators_of}
    ceiling = pd.concat(
        [ceiling_rows(ratings[b.name], b) for b in annotators_of], ignore_index=True
    )
    alpha = pd.concat(
        [annotator_alpha(ratings[b.name]).assign(benchmark=b.name) for b in annotators_of],
        ignore_index=True,
    )
    mturk = pd.concat(
        [tables[b.human_tables["crowd_answers"]] for b in crowd_of], ignore_index=True
    )
    unieval = pd.concat([tables[b.name] for b in crowd_of], ignore_index=True)
    counts, ties = [], []
    for benchmark in scored:
        table, dimensions = tables[benchmark.name], benchmark.dimension_names
        systems, inputs = matrix_axes(benchmark)
        counts.append(score_counts(table, dimensions).assign(benchmark=benchmark.name))
        rates = tie_rates(
            pooled(table, benchmark), dimensions, benchmark.level, systems=systems, inputs=inputs
        )
        ties.append(rates.assign(level=benchmark.level.value, benchmark=benchmark.name))
    counts_table = pd.concat(counts, ignore_index=True)
    annotated = system_means(tables[annotated_of.human_tables["annotated_experts"]])
    results = (
        _benchmark_first(alpha),
        ceiling,
        compare_with_printed(annotated, summeval_paper.table3()),
        compare_with_unieval(summary_consistency(mturk), unieval),
        worker_agreement(mturk),
        _benchmark_first(counts_table),
        _benchmark_first(pd.concat(ties, ignore_index=True)),
    )
    for name, table in zip(HUMAN_TABLES, results, strict=True):
        write_pair(table, out / name)
    save_figure(
        distribution_figure(counts_table),
        Path(f"{figure_stem}.png"),
        Path(f"{figure_stem}.svg"),
    )
    write_rows(ceiling, rows)


def _benchmark_first(table: pd.DataFrame) -> pd.DataFrame:
    return table[["benchmark", *[c for c in table.columns if c != "benchmark"]]]
