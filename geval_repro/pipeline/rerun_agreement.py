"""Run-to-run agreement of two runs of the same judge (e.g. MetricEval's two G-Eval re-runs).

Per dimension and coefficient:

- ``agreement``: the correlation between the two runs' per-item scores, at the global level
  (all items pooled) and at SummEval's summary level (per document over its systems,
  constant vectors skipped, averaged), i.e. how reproducibly a rerun ranks the same items;
- ``value_a``/``value_b``: each run's summary-level correlation with the expert-mean human
  scores, ``difference`` = a - b, and ``pvalue`` of a paired permutation test of that
  difference (swapping the runs' scores per document).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from geval_repro.config import Settings
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.table_files import write_pair
from geval_repro.scoring.pairing import paired_matrices
from geval_repro.stats.levels import correlate
from geval_repro.stats.permutation import paired_permutation_test

log = logging.getLogger(__name__)

COEFFICIENTS = ("pearson", "spearman", "kendall")


def rerun_agreement(
    pairs: Sequence[tuple[str, str]],
    scores_paths: Mapping[str, str | os.PathLike[str]],
    summeval_path: str | os.PathLike[str],
    settings: Settings,
    stem: str | os.PathLike[str],
) -> None:
    """The agreement table of every pair of runs -> ``<stem>.csv`` and ``<stem>.md``."""
    human = pd.read_parquet(summeval_path)
    records = []
    for judge_a, judge_b in pairs:
        runs = {j: pd.read_parquet(scores_paths[j]) for j in (judge_a, judge_b)}
        merged = runs[judge_a].merge(
            runs[judge_b][["dimension", "doc_id", "system_id", "score"]],
            on=["dimension", "doc_id", "system_id"],
            suffixes=("_a", "_b"),
        )
        log.info("%s vs %s: %d items scored by both", judge_a, judge_b, len(merged))
        dimensions = get_benchmark("summeval").dimension_names
        for dimension in tqdm(dimensions, desc=f"{judge_a} vs {judge_b}"):
            a, gold = paired_matrices(merged, human, dimension, "score_a")
            b, _ = paired_matrices(merged, human, dimension, "score_b")
            for coefficient in COEFFICIENTS:
                with_human = {
                    name: correlate(m, gold, "summary", coefficient).value
                    for name, m in (("a", a), ("b", b))
                }
                test = paired_permutation_test(
                    a,
                    b,
                    gold,
                    "summary",
                    coefficient,
                    n_resamples=settings.permutation_resamples,
                    seed=settings.seed,
                )
                for level in ("global", "summary"):
                    between = correlate(a, b, level, coefficient)
                    records.append(
                        {
                            "judge_a": judge_a,
                            "judge_b": judge_b,
                            "dimension": dimension,
                            "coefficient": coefficient,
                            "agreement_level": level,
                            "agreement": between.value,
                            "n_items": between.n_items,
                            "value_a": with_human["a"],
                            "value_b": with_human["b"],
                            "difference": with_human["a"] - with_human["b"],
                            "pvalue": test.pvalue,
                        }
                    )
    write_pair(pd.DataFrame.from_records(records), stem)
