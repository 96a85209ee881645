"""Judge rows against the best baseline: paired permutation tests on every benchmark.

For each judge run, each of its score variants (the variants of its correlation rows:
mean-of-N / first-reply / mode-reply under both parsers, the rating-probability scores, per-item
scores) and each (dimension, coefficient) of its benchmark, the test asks whether
``corr(judge, human) - corr(best baseline, human)`` differs from 0:

- best baseline: the recomputed model-free baseline row (``results/work/rows/baselines.csv``:
  ROUGE, BLEU, METEOR; every reference variant) with the highest value for that benchmark,
  dimension and coefficient at the benchmark's level (ties: the first in file order).
  UniEval and the human ceiling are not baselines here;
- items: those the judge, the baseline (its per-item scores in
  ``data/processed/baselines/<file>.parquet``) and the human table all score, so the
  Topical-Chat tests use the 300 non-ground-truth responses the baselines score;
- test: :func:`geval_repro.stats.permutation.paired_permutation_test`, two-sided, at the
  benchmark's level with its default unit: SummEval (summary level) swaps the two metrics'
  scores of whole documents, Topical-Chat and QAGS (global) swap single items; ``n_resamples``
  and ``seed`` from the config (``permutation.n_resamples``, ``seed``).

One tidy row per test (:data:`COLUMNS`): ``baseline_value`` is the baseline's correlation
on the items of the test (the same items as ``difference`` and ``pvalue``; the test's
``value_b``), ``value_judge`` the judge's on them (``difference`` = ``value_judge -
baseline_value``), ``baseline_value_full`` the baseline's value on every item it scores
(its row in the correlation table, by which it was chosen), ``n_items`` the items of the
test. A test that cannot be made (constant or unscored judge scores, no recomputed
baseline) has an empty p-value and a note saying why; a test of a run whose scores are not
on the judge's own scale (MetricEval's rank-normal scores) says in its note whether the
scale changes it. The pipeline runs the tests of each judge run in a job of its own
(:func:`geval_repro.pipeline.significance.judge_significance`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.paper import AVERAGE
from geval_repro.stats.registry import COEFFICIENTS
from geval_repro.tables.judge_rows import UNSCORABLE, scale_note
from geval_repro.tables.paired_tests import (
    Comparison,
    Scored,
    ScoreGrid,
    baseline_item_scores,
    judge_metrics,
    paired_tests,
)
from geval_repro.tables.rows import join_notes

log = logging.getLogger(__name__)

COLUMNS = [
    "judge",
    "variant",
    "benchmark",
    "dimension",
    "level",
    "coefficient",
    "baseline",
    "baseline_variant",
    "baseline_value",
    "baseline_value_full",
    "n_items",
    "value_judge",
    "difference",
    "pvalue",
    "unit",
    "n_resamples",
    "seed",
    "status",
    "note",
]


def best_baselines(rows: pd.DataFrame, benchmarks: Mapping[str, Benchmark]) -> pd.DataFrame:
    """Per (benchmark, dimension, coefficient): the recomputed baseline row with the highest
    value at the benchmark's level (AVG rows and rows without a value left out).
    ``benchmarks``: the benchmarks whose rows count, by name."""
    levels = rows["benchmark"].map(lambda b: benchmarks[b].level.value if b in benchmarks else "")
    usable = rows[
        (rows["status"] == "recomputed")
        & (rows["dimension"] != AVERAGE)
        & (rows["level"] == levels)
        & rows["value"].notna()
    ]
    order = usable.sort_values("value", ascending=False, kind="stable")
    best = order.drop_duplicates(["benchmark", "dimension", "coefficient"], keep="first")
    return best[["benchmark", "dimension", "coefficient", "metric", "variant", "value"]]


def judge_vs_baselines(
    spec: JudgeSpec,
    processed: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    best: pd.DataFrame,
    baseline_scores: pd.DataFrame,
    *,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """The tests of one judge run against the best baselines of its benchmark (rows of
    :data:`COLUMNS`, counts typed as nullable integers): a view of
    :func:`geval_repro.tables.paired_tests.paired_tests`. ``processed``: the run's processed
    tables by name; ``best``: :func:`best_baselines` of the baseline rows;
    ``baseline_scores``: the per-item scores of the run's benchmark's baseline family."""
    benchmark = spec.benchmark
    unit = benchmark.level.permutation_unit
    protocol = (
        f"two-sided paired permutation test, judge minus baseline, swapping per "
        f"{'document' if unit == 'inputs' else 'item'}, {n_resamples} resamples, seed {seed}"
    )
    baselines: dict[tuple[str, str], Scored] = {}
    slots: list[tuple[Scored, str, str, pd.Series | None]] = []
    comparisons = []
    for judge in judge_metrics(spec, processed, compared_only=False):
        for dimension in benchmark.dimension_names:
            if dimension not in judge.scores:
                continue
            for coefficient in COEFFICIENTS:
                top = best[
                    (best["benchmark"] == benchmark.name)
                    & (best["dimension"] == dimension)
                    & (best["coefficient"] == coefficient)
                ]
                row = None if top.empty else top.iloc[0]
                slots.append((judge, dimension, coefficient, row))
                if row is None:
                    continue
                key = (row["metric"], row["variant"])
                if key not in baselines:
                    items = baseline_item_scores(baseline_scores, benchmark, *key)
                    scores = dict.fromkeys(benchmark.dimension_names, items)
                    baselines[key] = Scored(*key, "baseline", "recomputed", scores)
                comparisons.append(Comparison(judge, baselines[key], dimension, coefficient))
    tests = paired_tests(
        ScoreGrid(benchmark, human), comparisons, n_resamples=n_resamples, seed=seed
    )
    records, done = [], iter(tests.to_dict("records"))
    for judge, dimension, coefficient, row in slots:
        record = {
            "judge": spec.name,
            "variant": judge.variant,
            "benchmark": benchmark.name,
            "dimension": dimension,
            "level": benchmark.level.value,
            "coefficient": coefficient,
            "baseline": "",
            "baseline_variant": "",
            "baseline_value": float("nan"),
            "baseline_value_full": float("nan"),
            "n_items": 0,
            "value_judge": float("nan"),
            "difference": float("nan"),
            "pvalue": float("nan"),
            "unit": unit,
            "n_resamples": n_resamples,
            "seed": seed,
            "status": spec.status,
            "note": f"{UNSCORABLE}: no recomputed baseline row",
        }
        if row is not None:
            test = next(done)
            record.update(
                baseline=row["metric"],
                baseline_variant=row["variant"],
                baseline_value=test["value_b"],
                baseline_value_full=row["value"],
                n_items=test["n_items"],
                value_judge=test["value_a"],
                difference=test["difference"],
                pvalue=test["pvalue"],
                status=test["status"],
                note=join_notes(
                    test["note"] or protocol, scale_note(spec.scale, benchmark.level, coefficient)
                ),
            )
        records.append(record)
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    return table.astype({"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"})
