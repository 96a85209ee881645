"""Time the replies-per-item sweep at the released files' size, on SYNTHETIC replies.

100 documents x 16 systems x 20 replies for each of the four SummEval dimensions, random
integer replies around random human scores (not model output: only the run time means
anything), swept with both parsers, Spearman and Kendall, and 200 draws. Times are CPU
seconds of this process (``time.process_time``).

Also times the kernel of one random-mode step (all draws of one n: a (draws, 16, 100) batch)
against the reference call pattern, ``correlate_batch`` once per coefficient with the human
matrix broadcast to the batch, and asserts identical values.

Usage: ``python perf/bench_sweep.py [--draws 200] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from geval_repro.benchmarks import get_benchmark
from geval_repro.judge.sweep import sweep
from geval_repro.stats.levels import correlate_batch, summary_batch
from geval_repro.stats.matrix import to_matrix

COEFFICIENTS = ("spearman", "kendall")


def synthetic_run(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """SYNTHETIC replies and human scores in the loaders' table shapes."""
    rng = np.random.default_rng(seed)
    docs = np.repeat([f"d{d:03d}" for d in range(100)], 16)
    systems = np.tile([f"M{s}" for s in range(16)], 100)
    human = pd.DataFrame({"doc_id": docs, "system_id": systems})
    frames = []
    for entry in get_benchmark("summeval").dimensions:
        dimension, (low, high) = entry.name, entry.judge_scale
        gold = rng.integers(3 * low, 3 * high + 1, len(human)) / 3
        human[dimension] = gold
        ratings = np.clip(np.rint(gold[:, None] + rng.normal(0, 1, (len(human), 20))), low, high)
        frames.append(
            pd.DataFrame(
                {
                    "judge": "synthetic",
                    "benchmark": "summeval",
                    "dimension": dimension,
                    "doc_id": np.repeat(docs, 20),
                    "system_id": np.repeat(systems, 20),
                    "reply_index": np.tile(np.arange(20), len(human)),
                    "reply": ratings.astype(int).astype(str).ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True), human


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    replies, human = synthetic_run(args.seed)
    start = time.process_time()
    table = sweep(replies, human, seed=args.seed, draws=args.draws, coefficients=COEFFICIENTS)
    elapsed = time.process_time() - start
    print(f"sweep: {len(table)} rows, {args.draws} draws, {elapsed:.1f} s CPU (synthetic replies)")

    gold, _, _ = to_matrix(human, "coherence")
    rng = np.random.default_rng(args.seed)
    batch = np.round(gold + rng.normal(0, 1, (args.draws, *gold.shape)) * 0.7, 2)
    start = time.process_time()
    ours = summary_batch(batch, gold, COEFFICIENTS)
    t_ours = time.process_time() - start
    start = time.process_time()
    reference = {
        c: correlate_batch(batch, np.broadcast_to(gold, batch.shape), "summary", c)
        for c in COEFFICIENTS
    }
    t_reference = time.process_time() - start
    for coefficient in COEFFICIENTS:
        np.testing.assert_array_equal(ours[coefficient].value, reference[coefficient].value)
    print(
        f"one step ({args.draws} x 16 x 100): shared human and pair signs {t_ours:.3f} s | "
        f"per coefficient, broadcast human {t_reference:.3f} s "
        f"({t_reference / t_ours:.1f}x) | values identical"
    )


if __name__ == "__main__":
    main()
