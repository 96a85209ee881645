"""Time the tie-calibrated pairwise accuracy kernels (acc*_eq) against their targets.

Not a test: run ``python perf/time_pairwise_accuracy.py`` (about 15 seconds).

Data: SYNTHETIC and seeded, for timing only, with G-Eval's tie pattern: a human score is
the mean of 3 integer ratings (1-5), a judge score the mean of 20 integer replies (the
human score plus N(0, 1.2) noise, rounded and clipped to 1-5). Shapes: SummEval's summary
level (16 systems x 100 documents, 12,000 pairs within documents) and QAGS-XSum's global
level (239 items, 28,441 pairs). For the global bootstrap (3.) also Topical-Chat's global
level (300 items, 44,850 pairs; human scores means of 3 ratings 1-3) and QAGS-XSum's with
its human scale (means of 3 binary ratings), each with a judge (means of 20 replies) and a
baseline-like continuous metric (human score plus N(0, 0.8) noise: every pair its own
code, thousands of candidate thresholds). No number printed here is a result about any
metric.

Timing: CPU seconds of this process (``time.process_time``), the best of several repeats
of a batch of calls, per call. Targets:

1. ``tie_calibrated_accuracy`` (pairs, codes and the exact threshold search, from the score
   matrices) within 3x of the floor, a numpy sort of the pair differences ``np.sort(|d|)``
   (precomputed ``|d|``); the sort plus computing ``|d|`` from the scores is also shown.
   For information, no target: SummEval's shape with 5% of the judge scores missing, where
   documents have unequal pair counts and the search takes the weighted (argsort) path;
2. ``bootstrap_accuracy`` of acc*_eq, 1,000 resamples with the threshold re-fitted in each,
   under 2 s on SummEval's shape (and, for information, on QAGS-XSum's shape). At the
   summary level also acc_eq, and SummEval's shape with 5% of the judge scores missing
   (unequal pair counts: float weights), each against the previous path on the same
   resamples (:func:`previous_summary_path`, a float sweep of the pairs' weighted gains per
   block of resamples, values asserted equal to 1e-12). The product of draw counts took
   them (best of 3, 2-core machine at load 1-1.5) from 80-110 ms to 0.9-3.5 ms per call
   (26-106x) without missing cells (integer counts), and to 1.3-8.5 ms (10-70x) with 5%
   missing (float weights); the baseline rows job's 72 summary-level calls (real SummEval
   matrices, continuous baselines: 1,000-7,000 candidates) from 6.2 s to 0.16 s in all;
3. the global level's ``bootstrap_accuracy``, acc_eq and acc*_eq, 1,000 resamples, within
   3x of ``bootstrap_ci`` of Kendall's tau on the same data (same resamples, seed 0). Before
   the integer sweep (commit 6a8727f) these took 0.5-1.1 s each, 12-190x the Kendall
   bootstrap (best of 3 on a 2-core machine at load 8: 239 items 0.52-0.70 s, 300 items
   0.84-1.10 s); after it, 2.5-4 ms (acc_eq) and 6-52 ms (acc*_eq) there.

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

from geval_repro.stats.accuracy import (
    _grouped,
    _pair_terms,
    _sorted_pairs,
    _summary_sweep,
    bootstrap_accuracy,
    resampled_accuracies,
    tie_calibrated_accuracy,
)
from geval_repro.stats.bootstrap import CELLS_PER_BLOCK, bootstrap_ci
from geval_repro.stats.level import Level

KERNEL_TARGET = 3.0
BOOTSTRAP_TARGET_S = 2.0
GLOBAL_TARGET = 3.0  # x the Kendall bootstrap on the same data


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


def continuous(
    n_items: int, scale: tuple[int, int], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(baseline-like metric, human) rows: human means of 3 integer ratings on ``scale``, the
    metric the human score plus N(0, 0.8) noise (continuous: no two differences equal)."""
    human = rng.integers(scale[0], scale[1] + 1, (1, n_items, 3)).mean(axis=-1)
    return human + rng.normal(0, 0.8, human.shape), human


def judged(
    n_items: int, scale: tuple[int, int], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(judge, human) rows on ``scale``: means of 20 integer replies (the human score plus
    N(0, 0.8) noise, rounded and clipped) and of 3 integer ratings."""
    human = rng.integers(scale[0], scale[1] + 1, (1, n_items, 3)).mean(axis=-1)
    replies = np.rint(human[..., None] + rng.normal(0, 0.8, (1, n_items, 20)))
    return np.clip(replies, *scale).mean(axis=-1), human


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


def previous_summary_path(
    metric: np.ndarray, human: np.ndarray, indices: np.ndarray, calibrate: bool
) -> np.ndarray:
    """The summary-level bootstrap before the product of draw counts (up to commit 11d6d1a):
    the pairs argsorted by code once, then per block of resamples a float cumulative sum of
    every pair's gain times its input's draws over its pair count (``_summary_sweep``)."""
    grouped_metric, grouped_human, members = _grouped(metric, human, Level.SUMMARY)
    n_pairs = members * (members - 1) // 2
    terms = _pair_terms(grouped_metric, grouped_human)
    pairs = _sorted_pairs(terms)
    n_resamples, n_units = indices.shape[0], grouped_human.shape[-1]
    offsets = (np.arange(n_resamples) * n_units)[:, None]
    counts = np.bincount((indices + offsets).ravel(), minlength=n_resamples * n_units)
    counts = counts.reshape(n_resamples, n_units).astype(float)
    per_block = max(1, CELLS_PER_BLOCK // pairs.codes.size)
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, per_block):
        block = counts[start : start + per_block]
        value, _ = _summary_sweep(terms, n_pairs, pairs, block, calibrate)
        values[start : start + per_block] = value
    return values


def time_summary_bootstrap(name: str, metric, human, n_resamples: int, seed: int) -> None:
    """acc*_eq and acc_eq at the summary level against the previous path (same resamples)."""
    indices = np.random.default_rng(seed).integers(
        0, metric.shape[1], (n_resamples, metric.shape[1])
    )
    cells = []
    for calibrate in (True, False):
        seconds = best_cpu_seconds(
            lambda calibrate=calibrate: bootstrap_accuracy(
                metric, human, "summary", calibrate=calibrate, n_resamples=n_resamples, seed=seed
            ),
            3,
            3,
        )
        previous = best_cpu_seconds(
            lambda calibrate=calibrate: previous_summary_path(metric, human, indices, calibrate),
            1,
            3,
        )
        ours = resampled_accuracies(metric, human, "summary", indices, calibrate=calibrate)
        np.testing.assert_allclose(
            ours, previous_summary_path(metric, human, indices, calibrate), rtol=0, atol=1e-12
        )
        verdict = "meets" if seconds < BOOTSTRAP_TARGET_S else "MISSES"
        label = "acc*_eq" if calibrate else "acc_eq"
        cells.append(
            f"{label} {seconds * 1e3:6.2f} ms ({verdict} the {BOOTSTRAP_TARGET_S:.0f} s target), "
            f"previous path {previous * 1e3:6.1f} ms ({previous / seconds:5.1f}x)"
        )
    print(f"   {name:<24} summary | " + " | ".join(cells) + " | values agree (1e-12)")


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


def time_global(name: str, metric, human, n_resamples: int, repeats: int) -> None:
    def kendall() -> object:
        return bootstrap_ci(metric, human, "global", "kendall", n_resamples=n_resamples, seed=0)

    reference = best_cpu_seconds(kendall, 1, repeats)
    cells = []
    for calibrate in (False, True):
        seconds = best_cpu_seconds(
            lambda calibrate=calibrate: bootstrap_accuracy(
                metric, human, "global", calibrate=calibrate, n_resamples=n_resamples, seed=0
            ),
            1,
            repeats,
        )
        ratio = seconds / reference
        verdict = "meets" if ratio <= GLOBAL_TARGET else "MISSES"
        label = "acc*_eq" if calibrate else "acc_eq"
        cells.append(f"{label} {seconds * 1e3:5.1f} ms = {ratio:4.2f}x ({verdict})")
    print(
        f"   {name:<22} {human.size:>3} items | Kendall {reference * 1e3:5.1f} ms | "
        + " | ".join(cells)
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
    metric, human, _ = datasets["SummEval"]
    baseline = human + rng.normal(0, 0.8, human.shape)  # continuous: thousands of candidates
    gappy_baseline = np.where(rng.random(metric.shape) < 0.05, np.nan, baseline)
    for name, scores in (
        ("SummEval judge", metric),
        ("SummEval judge 5% NaN", gappy),
        ("SummEval baseline", baseline),
        ("SummEval baseline 5% NaN", gappy_baseline),
    ):
        time_summary_bootstrap(name, scores, human, args.resamples, args.seed)
    print(
        f"3. global bootstrap, {args.resamples} resamples, against the Kendall bootstrap on the "
        f"same data (target {GLOBAL_TARGET:.0f}x; best of {args.repeats})"
    )
    for benchmark, n_items, scale in (("Topical-Chat", 300, (1, 3)), ("QAGS-XSum", 239, (0, 1))):
        for kind, make in (("judge", judged), ("baseline", continuous)):
            metric, human = make(n_items, scale, rng)
            time_global(f"{benchmark} {kind}", metric, human, args.resamples, args.repeats)


if __name__ == "__main__":
    main()
