"""Time the tie-calibrated pairwise accuracy kernels (acc*_eq) against their targets.

Not a test: run ``python perf/time_pairwise_accuracy.py`` (about 10 seconds).

Data: SYNTHETIC and seeded, for timing only, with G-Eval's tie pattern: a human score is
the mean of 3 integer ratings (1-5), a judge score the mean of 20 integer replies (the
human score plus N(0, 1.2) noise, rounded and clipped to 1-5). Shapes: SummEval's summary
level (16 systems x 100 documents, 12,000 pairs within documents) and QAGS-XSum's global
level (239 items, 28,441 pairs). No number printed here is a result about any metric.

Timing: CPU seconds of this process (``time.process_time``), the best of several repeats
of a batch of calls, per call. Targets:

1. ``tie_calibrated_accuracy`` (pairs, codes and the exact threshold search, from the score
   matrices) within 3x of the floor, a numpy sort of the pair differences ``np.sort(|d|)``
   (precomputed ``|d|``); the sort plus computing ``|d|`` from the scores is also shown.
   For information, no target: SummEval's shape with 5% of the judge scores missing, where
   documents have unequal pair counts and the search takes the weighted (argsort) path;
2. ``bootstrap_accuracy`` of acc*_eq, 1,000 resamples with the threshold re-fitted in each,
   under 2 s on SummEval's shape (and, for information, on QAGS-XSum's shape).

Before timing, one large array is allocated and freed: glibc then serves the kernels'
0.1-0.5 MB temporaries from its heap instead of fresh pages (its mmap threshold adapts
upward once a large block is freed, which any real session does early on). Otherwise a
process that never freed a large block may pay page faults on those temporaries, which
the floor's single output does not.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from geval_repro.stats.accuracy import bootstrap_accuracy, tie_calibrated_accuracy

KERNEL_TARGET = 3.0
BOOTSTRAP_TARGET_S = 2.0


def best_cpu_seconds(function: Callable[[], object], calls: int, repeats: int) -> float:
    """Best over ``repeats`` of the mean CPU seconds per call over ``calls`` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(calls):
            function()
        best = min(best, (time.process_time() - start) / calls)
    return best


def synthetic(shape: tuple[int, int], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(judge, human) matrices: means of 20 integer replies and of 3 integer ratings."""
    human = rng.integers(1, 6, (*shape, 3)).mean(axis=-1)
    replies = np.rint(human[..., None] + rng.normal(0, 1.2, (*shape, 20)))
    return np.clip(replies, 1, 5).mean(axis=-1), human


def pair_groups(metric: np.ndarray, level: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The members (systems within each column, or all cells pooled) and the index pairs."""
    groups = metric if level == "summary" else metric.ravel()
    first, second = np.triu_indices(groups.shape[0], 1)
    return groups, first, second


def time_kernel(name: str, metric, human, level: str, calls: int, repeats: int) -> None:
    groups, first, second = pair_groups(metric, level)
    differences = np.abs(groups[second] - groups[first]).ravel()
    floor = best_cpu_seconds(lambda: np.sort(differences), calls, repeats)
    with_differences = best_cpu_seconds(
        lambda: np.sort(np.abs(groups[second] - groups[first]).ravel()), calls, repeats
    )
    ours = best_cpu_seconds(lambda: tie_calibrated_accuracy(metric, human, level), calls, repeats)
    result = tie_calibrated_accuracy(metric, human, level)
    ratio = ours / floor
    verdict = "meets" if ratio <= KERNEL_TARGET else "MISSES"
    print(
        f"   {name:<10} {level:<7} {differences.size:>6} pairs | acc*_eq {ours * 1e6:6.1f} us | "
        f"floor np.sort(|d|) {floor * 1e6:5.1f} us -> {ratio:4.2f}x ({verdict} the "
        f"{KERNEL_TARGET:.0f}x target) | |d| + sort {with_differences * 1e6:5.1f} us -> "
        f"{ours / with_differences:4.2f}x | acc*_eq {result.value:.4f} at epsilon "
        f"{result.epsilon:.4g}"
    )


def time_bootstrap(name: str, metric, human, level: str, n_resamples: int, seed: int) -> None:
    seconds = best_cpu_seconds(
        lambda: bootstrap_accuracy(
            metric, human, level, calibrate=True, n_resamples=n_resamples, seed=seed
        ),
        1,
        3,
    )
    result = bootstrap_accuracy(
        metric, human, level, calibrate=True, n_resamples=n_resamples, seed=seed
    )
    verdict = "meets" if seconds < BOOTSTRAP_TARGET_S else "MISSES"
    target = f"({verdict} the {BOOTSTRAP_TARGET_S:.0f} s target)" if level == "summary" else ""
    print(
        f"   {name:<10} {level:<7} {seconds:6.3f} s {target} | 95% CI "
        f"[{result.low:.4f}, {result.high:.4f}], {result.n_invalid} invalid"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    parser.add_argument("--repeats", type=int, default=7, help="batches; the best is kept")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    warm_up = np.ones(2**20)  # allocate and free 8 MB: see the module docstring
    del warm_up
    rng = np.random.default_rng(args.seed)
    datasets = {
        "SummEval": (*synthetic((16, 100), rng), "summary"),
        "QAGS-XSum": (*synthetic((1, 239), rng), "global"),
    }
    print("SYNTHETIC G-Eval-like scores (timing only), CPU time per call")
    print(f"1. acc*_eq with its exact threshold search (best of {args.repeats} x {args.calls})")
    for name, (metric, human, level) in datasets.items():
        time_kernel(name, metric, human, level, args.calls, args.repeats)
    metric, human, _ = datasets["SummEval"]
    gappy = np.where(rng.random(metric.shape) < 0.05, np.nan, metric)
    seconds = best_cpu_seconds(
        lambda: tie_calibrated_accuracy(gappy, human, "summary"), args.calls, args.repeats
    )
    print(
        f"   SummEval with 5% of the judge scores missing (weighted path, no target): "
        f"{seconds * 1e6:6.1f} us"
    )
    print(f"2. bootstrap of acc*_eq, {args.resamples} resamples, threshold re-fitted (best of 3)")
    for name, (metric, human, level) in datasets.items():
        time_bootstrap(name, metric, human, level, args.resamples, args.seed)


if __name__ == "__main__":
    main()
