"""Time the batch sizes of three resampling paths: cache-sized batches against the sizes before.

Not a test: run ``python perf/time_batches.py``. Each path splits its resamples (or rows)
into numpy batches of a bounded number of cells; a batch's rows are computed alone, so the
size changes the time, never a value (asserted identical here, and by the tests that run
each path in small batches). The paths, their constants and the sizes before 1b3ab85:

1. Kendall's tau-b from contingency tables (``stats.pairs.TABLE_CELLS_PER_BLOCK``,
   2**22 cells before), the global-level item bootstrap of Kendall (1,000 resamples);
2. the bootstrap that recomputes every resampled matrix
   (``stats.bootstrap.RECOMPUTED_CELLS_PER_BLOCK``, ``CELLS_PER_BLOCK`` = 2**21 before),
   the summary level with systems and documents drawn (``unit="both"``, 1,000 resamples);
3. the system-level accuracy bootstrap (``stats.accuracy.SYSTEM_CELLS_PER_BLOCK``,
   ``CELLS_PER_BLOCK`` = 2**21 before), ``acc_eq`` and ``acc*_eq`` (1,000 resamples).

Data: SYNTHETIC scores of the run's shapes, for timing only (seeded): Topical-Chat's global
level (360 items: a metric with about 300 distinct values, human means on 13 levels), a
1,600-item global level with many distinct values on both sides, SummEval's 16 systems x
100 documents (human ratings 1-5, a metric of the ratings plus noise, two decimals) and a
40 x 200 system level. CPU seconds per call on this process's clock, best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from geval_repro.stats import accuracy, bootstrap, pairs
from geval_repro.stats.accuracy import bootstrap_accuracy
from geval_repro.stats.bootstrap import bootstrap_ci

#: (module, constant, the size before) of each path.
BEFORE = {
    "tables": (pairs, "TABLE_CELLS_PER_BLOCK", 2**22),
    "recomputed": (bootstrap, "RECOMPUTED_CELLS_PER_BLOCK", 2**21),
    "system accuracy": (accuracy, "SYSTEM_CELLS_PER_BLOCK", 2**21),
}


def global_scores(rng, n: int, metric_values: int, human_levels: int):
    """(1, n) metric and human rows with the given numbers of distinct values."""
    metric = rng.integers(0, metric_values, (1, n)).astype(float)
    return metric, rng.integers(0, human_levels, (1, n)) / 3.0


def matrices(rng, n_systems: int, n_inputs: int):
    """(n_systems, n_inputs) human ratings 1-5 and a metric of them plus noise."""
    human = rng.integers(1, 6, (n_systems, n_inputs)).astype(float)
    return np.round(human + rng.normal(0, 1.5, human.shape), 2), human


def best_cpu(function: Callable[[], np.ndarray], repeats: int) -> tuple[float, bytes]:
    """Least CPU seconds of ``repeats`` calls of ``function``, and its result's bytes."""
    times, result = [], b""
    for _ in range(repeats):
        start = time.process_time()
        result = function().tobytes()
        times.append(time.process_time() - start)
    return min(times), result


def compare(path: str, label: str, function: Callable[[], np.ndarray], repeats: int) -> None:
    """Time ``function`` with ``path``'s size before and now; print both and their ratio."""
    module, name, before = BEFORE[path]
    now = getattr(module, name)
    timed = {}
    for size in (before, now):
        setattr(module, name, size)
        timed[size] = best_cpu(function, repeats)
    setattr(module, name, now)
    assert timed[before][1] == timed[now][1], f"{path}, {label}: values differ"
    print(
        f"{path:16s} {label:34s} 2**{before.bit_length() - 1}: {timed[before][0] * 1e3:7.1f} ms"
        f"   2**{now.bit_length() - 1}: {timed[now][0] * 1e3:7.1f} ms"
        f"   {timed[before][0] / timed[now][0]:4.2f}x  (values identical)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for label, (metric, human) in {
        "Topical-Chat-like 360 (300, 13)": global_scores(rng, 360, 300, 13),
        "global 1,600 (1,500, 25)": global_scores(rng, 1600, 1500, 25),
        "global 1,600 (40, 25)": global_scores(rng, 1600, 40, 25),
    }.items():
        compare(
            "tables",
            label,
            lambda m=metric, h=human: (
                bootstrap_ci(m, h, "global", "kendall", n_resamples=1000, seed=3).distribution
            ),
            args.repeats,
        )
    summeval = matrices(rng, 16, 100)
    for coefficient in ("pearson", "spearman", "kendall"):
        compare(
            "recomputed",
            f"SummEval-like 16 x 100, {coefficient}",
            lambda c=coefficient: (
                bootstrap_ci(
                    *summeval, "summary", c, unit="both", n_resamples=1000, seed=3
                ).distribution
            ),
            args.repeats,
        )
    for label, (metric, human) in {
        "SummEval-like 16 x 100": summeval,
        "40 x 200": matrices(rng, 40, 200),
    }.items():
        for calibrate in (False, True):
            compare(
                "system accuracy",
                f"{label}, {'acc*_eq' if calibrate else 'acc_eq'}",
                lambda m=metric, h=human, c=calibrate: (
                    bootstrap_accuracy(
                        m, h, "system", calibrate=c, n_resamples=1000, seed=3
                    ).distribution
                ),
                args.repeats,
            )


if __name__ == "__main__":
    main()
