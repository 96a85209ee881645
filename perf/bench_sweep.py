"""Time the replies-per-item sweep at the released files' size, on SYNTHETIC replies.

100 documents x 16 systems x 20 replies for each of the four SummEval dimensions, random
integer replies around random human scores (not model output: only the run time means
anything), swept with both parsers, all three coefficients and 200 draws.

Usage: ``python perf/bench_sweep.py [--draws 200] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from geval_repro.benchmarks import get_benchmark
from geval_repro.judge.sweep import sweep


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
    start = time.perf_counter()
    table = sweep(replies, human, seed=args.seed, draws=args.draws)
    elapsed = time.perf_counter() - start
    print(f"sweep: {len(table)} rows, {args.draws} draws, {elapsed:.1f} s (synthetic replies)")


if __name__ == "__main__":
    main()
