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

One tidy row per test (:data:`COLUMNS`); a test that cannot be made (constant or unscored
judge scores, no recomputed baseline) has an empty p-value and a note saying why. The
pipeline runs the tests of each judge run in a job of its own
(:func:`geval_repro.pipeline.significance.judge_significance`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.paper import AVERAGE
from geval_repro.scoring.pairing import matrix_axes, paired_items, pooled
from geval_repro.stats.coefficients import COEFFICIENTS
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.permutation import DEFAULT_UNIT, paired_permutation_test
from geval_repro.tables.judge_rows import UNSCORABLE, score_variants, status_of

log = logging.getLogger(__name__)

#: benchmark -> (baseline scores file stem under data/processed/baselines, its subset value)
BASELINE_SCORES: dict[str, tuple[str, str | None]] = {
    "summeval": ("summeval", None),
    "topical_chat": ("topical_chat", None),
    "qags_cnndm": ("qags", "cnndm"),
    "qags_xsum": ("qags", "xsum"),
}
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
    "n_items",
    "difference",
    "pvalue",
    "unit",
    "n_resamples",
    "seed",
    "status",
    "note",
]


def best_baselines(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, dimension, coefficient): the recomputed baseline row with the highest
    value at the benchmark's level (AVG rows and rows without a value left out)."""
    levels = rows["benchmark"].map(lambda b: get_benchmark(b).level if b in BASELINE_SCORES else "")
    usable = rows[
        (rows["status"] == "recomputed")
        & (rows["dimension"] != AVERAGE)
        & (rows["level"] == levels)
        & rows["value"].notna()
    ]
    order = usable.sort_values("value", ascending=False, kind="stable")
    best = order.drop_duplicates(["benchmark", "dimension", "coefficient"], keep="first")
    return best[["benchmark", "dimension", "coefficient", "metric", "variant", "value"]]


def baseline_item_scores(
    scores: pd.DataFrame, benchmark: str, metric: str, variant: str
) -> pd.DataFrame:
    """One baseline's per-item scores on ``benchmark``: its item keys and ``baseline``."""
    keys = list(get_benchmark(benchmark).item_keys)
    _, subset = BASELINE_SCORES[benchmark]
    chosen = (scores["metric"] == metric) & (scores["variant"] == variant)
    if subset is not None:
        chosen &= scores["subset"] == subset
    return scores.loc[chosen, [*keys, "score"]].rename(columns={"score": "baseline"})


def _matrices(
    pairs: pd.DataFrame, baseline: pd.DataFrame, benchmark: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(judge, baseline, human) matrices over the items all three score, and their count."""
    info = get_benchmark(benchmark)
    joined = pairs.merge(baseline, on=list(info.item_keys)).dropna(
        subset=["judge", "baseline", "human"]
    )
    joined = pooled(joined, info)
    systems, inputs = matrix_axes(info)
    matrices = [
        to_matrix(joined, column, systems=systems, inputs=inputs)[0]
        for column in ("judge", "baseline", "human")
    ]
    return matrices[0], matrices[1], matrices[2], len(joined)


def judge_vs_baselines(
    judge: str,
    spec: Mapping[str, Any],
    processed: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    best: pd.DataFrame,
    baseline_scores: pd.DataFrame,
    *,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """The tests of one judge run against the best baselines of its benchmark (rows of
    :data:`COLUMNS`, counts typed as nullable integers). ``processed``: the run's processed
    tables by name; ``best``: :func:`best_baselines` of the baseline rows;
    ``baseline_scores``: the per-item baseline scores of the run's benchmark."""
    benchmark = get_benchmark(spec["benchmark"])
    unit = DEFAULT_UNIT[benchmark.level]
    protocol = (
        f"two-sided paired permutation test, judge minus baseline, swapping per "
        f"{'document' if unit == 'inputs' else 'item'}, {n_resamples} resamples, seed {seed}"
    )
    records = []
    # The coefficients of a dimension often share their best baseline: pair items once.
    matrices: dict[tuple[str, str, str, str], tuple[np.ndarray, np.ndarray, np.ndarray, int]] = {}
    for variant, items, score in score_variants(spec, processed):
        for dimension in benchmark.dimension_names:
            if not (items["dimension"] == dimension).any():
                continue
            pairs = paired_items(items, human, dimension, score)
            for coefficient in COEFFICIENTS:
                record = {
                    "judge": judge,
                    "variant": variant,
                    "benchmark": benchmark.name,
                    "dimension": dimension,
                    "level": benchmark.level,
                    "coefficient": coefficient,
                    "baseline": "",
                    "baseline_variant": "",
                    "baseline_value": math.nan,
                    "n_items": 0,
                    "difference": math.nan,
                    "pvalue": math.nan,
                    "unit": unit,
                    "n_resamples": n_resamples,
                    "seed": seed,
                    "status": status_of(spec),
                    "note": protocol,
                }
                top = best[
                    (best["benchmark"] == benchmark.name)
                    & (best["dimension"] == dimension)
                    & (best["coefficient"] == coefficient)
                ]
                if top.empty:
                    record["note"] = f"{UNSCORABLE}: no recomputed baseline row"
                    records.append(record)
                    continue
                row = top.iloc[0]
                record.update(
                    baseline=row["metric"],
                    baseline_variant=row["variant"],
                    baseline_value=row["value"],
                )
                key = (variant, dimension, row["metric"], row["variant"])
                if key not in matrices:
                    base = baseline_item_scores(
                        baseline_scores, benchmark.name, row["metric"], row["variant"]
                    )
                    matrices[key] = _matrices(pairs, base, benchmark.name)
                judge_m, base_m, human_m, record["n_items"] = matrices[key]
                try:
                    result = paired_permutation_test(
                        judge_m,
                        base_m,
                        human_m,
                        benchmark.level,
                        coefficient,
                        n_resamples=n_resamples,
                        seed=seed,
                    )
                    record.update(difference=result.statistic, pvalue=result.pvalue)
                except ValueError as error:
                    record["note"] = f"{UNSCORABLE}: {error}"
                    log.warning(
                        "judge %s (%s), %s %s %s: no test against %s (%s)",
                        judge,
                        variant,
                        benchmark.name,
                        dimension,
                        coefficient,
                        row["metric"],
                        error,
                    )
                records.append(record)
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    return table.astype({"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"})
