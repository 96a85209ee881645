"""Time soft pairwise accuracy's paired bootstrap over documents (issue 48: its intervals and
significance clusters) per draw, at SummEval's size: 16 systems x 100 documents, the humans
and 7 ranked metrics, 1,000 sign flips.

Not a test: run ``python perf/time_spa.py`` (``--draws`` per timing, ``--calls``). Inputs are
SYNTHETIC, for timing only (seeded): human scores as means of 3 integer ratings 1-5 with a
system effect, metrics the humans plus normal noise. Timed, in CPU seconds of this process
(``time.process_time``, BLAS threads included; the best of ``--calls`` calls), per draw:

(a) ``resampled_spa`` as the pipeline runs it (one BLAS thread, the pairs compared in blocks
    of ``FLIP_BLOCK`` sign flips);
(b) the same with BLAS free to use every core (what ``threadpool_limits`` avoids);
(c) recomputing ``soft_pairwise_accuracy`` for the humans' and each metric's drawn matrix
    one by one (what the bootstrap's values are asserted equal to).

Printed: ms per draw and the ratios (b)/(a), (c)/(a), and the bootstrap's cost at the
pipeline's size (1,000 draws) per SummEval dimension. The machine is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from geval_repro.stats import soft_pairwise
from geval_repro.stats.soft_pairwise import input_draws, resampled_spa, soft_pairwise_accuracy

SYSTEMS, DOCUMENTS, METRICS, FLIPS, SEED = 16, 100, 7, 1000, 20231206


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    effect = np.linspace(0, 1, SYSTEMS)[:, None]
    human = rng.integers(1, 6, size=(3, SYSTEMS, DOCUMENTS)).mean(axis=0) + effect
    metrics = human[None] + rng.normal(0, 1.0, size=(METRICS, SYSTEMS, DOCUMENTS))
    return metrics, human


def _best(run: Callable[[], object], calls: int) -> float:
    times = []
    for _ in range(calls):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    metrics, human = _inputs()
    draws = input_draws(DOCUMENTS, args.draws, SEED)

    ours = resampled_spa(metrics, human, FLIPS, SEED, draws)
    for b in range(3):
        for m in range(METRICS):
            spa = soft_pairwise_accuracy(metrics[m][:, draws[b]], human[:, draws[b]], FLIPS, SEED)
            assert spa.value == ours.metrics[b, m]

    pipeline = _best(lambda: resampled_spa(metrics, human, FLIPS, SEED, draws), args.calls)
    limit = soft_pairwise.threadpool_limits
    soft_pairwise.threadpool_limits = lambda **_: threadpool_limits(limits=None)
    try:
        free = _best(lambda: resampled_spa(metrics, human, FLIPS, SEED, draws), args.calls)
    finally:
        soft_pairwise.threadpool_limits = limit

    def recompute() -> None:
        for drawn in draws:
            for m in range(METRICS):
                soft_pairwise_accuracy(metrics[m][:, drawn], human[:, drawn], FLIPS, SEED)

    with threadpool_limits(limits=1, user_api="blas"):
        recomputed = _best(recompute, 1)

    per_draw = 1000 * pipeline / args.draws
    print(f"{SYSTEMS} systems x {DOCUMENTS} documents, humans + {METRICS} metrics, {FLIPS} flips")
    print(f"(a) resampled_spa, one BLAS thread:  {per_draw:.2f} ms per draw")
    print(f"(b) BLAS on every core:              {1000 * free / args.draws:.2f} ms per draw")
    print(f"(c) SPA recomputed metric by metric: {1000 * recomputed / args.draws:.2f} ms per draw")
    print(f"ratio (b)/(a): {free / pipeline:.2f}   ratio (c)/(a): {recomputed / pipeline:.2f}")
    print(f"1,000 draws, one SummEval dimension: {per_draw:.1f} s of CPU")


if __name__ == "__main__":
    main()
