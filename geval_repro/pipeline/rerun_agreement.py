"""Run-to-run agreement of two runs of the same judge (e.g. MetricEval's two G-Eval re-runs).

Per dimension and coefficient, on the items both runs score:

- ``agreement``: the correlation between the two runs' per-item scores, at the global level
  (all items pooled) and at the benchmark's level when it is another (SummEval's summary
  level: per document over its systems, constant vectors skipped, averaged), i.e. how
  reproducibly a rerun ranks the same items;
- ``value_a``/``value_b``: each run's correlation with the human scores at the benchmark's
  level, ``difference`` = a - b, and ``pvalue`` of a paired permutation test of that
  difference (swapping the runs' scores per unit of the level: per document on SummEval);
- ``scale`` of the runs' numbers (``rank-normal`` when either run's is: MetricEval's
  transform) and a ``note`` saying whether that scale leaves the row's coefficient
  unchanged (:func:`geval_repro.tables.judge_rows.scale_note`; the transform is strictly
  increasing, so Spearman and Kendall are the runs' own, Pearson is not).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.table_files import write_pair
from geval_repro.scoring.pairing import paired_matrices
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.stats.registry import COEFFICIENTS
from geval_repro.tables.judge_rows import scale_note

log = logging.getLogger(__name__)


def rerun_agreement(
    pairs: Sequence[tuple[str, str]],
    specs: Mapping[str, JudgeSpec],
    scores_paths: Mapping[str, PathLike],
    benchmark_tables: Mapping[str, PathLike],
    settings: Settings,
    stem: PathLike,
) -> None:
    """The agreement table of every pair of runs -> ``<stem>.csv`` and ``<stem>.md``.

    ``specs``, ``scores_paths``, ``benchmark_tables``: each run's spec, per-item scores and
    its benchmark's tidy table, by name; the two runs of a pair are on one benchmark.
    """
    records = []
    for judge_a, judge_b in pairs:
        benchmark = specs[judge_a].benchmark
        if specs[judge_b].benchmark != benchmark:
            raise ValueError(f"rerun pair {judge_a}, {judge_b}: the runs are on two benchmarks")
        human = pd.read_parquet(benchmark_tables[judge_a])
        keys = ["dimension", *benchmark.item_keys]
        runs = {j: pd.read_parquet(scores_paths[j]) for j in (judge_a, judge_b)}
        merged = runs[judge_a].merge(
            runs[judge_b][[*keys, "score"]], on=keys, suffixes=("_a", "_b")
        )
        log.info("%s vs %s: %d items scored by both", judge_a, judge_b, len(merged))
        levels = tuple(dict.fromkeys((Level.GLOBAL, benchmark.level)))
        transformed = sorted({specs[judge_a].scale, specs[judge_b].scale} - {"raw"})
        if len(transformed) > 1:
            raise ValueError(f"rerun pair {judge_a}, {judge_b}: the runs' scores are on two scales")
        scale = transformed[0] if transformed else "raw"
        for dimension in tqdm(benchmark.dimension_names, desc=f"{judge_a} vs {judge_b}"):
            a, gold = paired_matrices(merged, human, dimension, "score_a")
            b, _ = paired_matrices(merged, human, dimension, "score_b")
            for coefficient in COEFFICIENTS:
                with_human = {
                    name: correlate(m, gold, benchmark.level, coefficient).value
                    for name, m in (("a", a), ("b", b))
                }
                test = paired_permutation_test(
                    a,
                    b,
                    gold,
                    benchmark.level,
                    coefficient,
                    n_resamples=settings.permutation_resamples,
                    seed=settings.seed,
                )
                for level in levels:
                    between = correlate(a, b, level, coefficient)
                    records.append(
                        {
                            "judge_a": judge_a,
                            "judge_b": judge_b,
                            "dimension": dimension,
                            "coefficient": coefficient,
                            "agreement_level": level.value,
                            "agreement": between.value,
                            "n_items": between.n_items,
                            "value_a": with_human["a"],
                            "value_b": with_human["b"],
                            "difference": with_human["a"] - with_human["b"],
                            "pvalue": test.pvalue,
                            "scale": scale,
                            "note": scale_note(scale, benchmark.level, coefficient),
                        }
                    )
    write_pair(pd.DataFrame.from_records(records), stem)
