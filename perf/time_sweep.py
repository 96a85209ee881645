"""Time the replies-per-item sweep at the released files' size, on SYNTHETIC replies.

100 documents x 16 systems x 20 replies for each of the four SummEval dimensions, random
integer replies around random human scores (not model output: only the run time means
anything), swept with both parsers and 200 draws. Times are CPU seconds of this process
(``time.process_time``), the smallest of ``--repeats`` runs.

Prints the sweep's CPU seconds with Spearman and Kendall against the target of issue 11
(under 5 s for four dimensions, two parsers, two coefficients, 200 draws), then with every
coefficient the pipeline sweeps (Pearson, Spearman, Kendall, acc_eq, acc*_eq with its
threshold re-fitted per draw; issue 17) and what the two accuracies add to the three
correlations, against the same 5 s. The full sweep is also run through the generic path that
replies with non-integer scores take (float item means, the pair-sign kernel on floats with
its near-tie check, tie rates by sorting each matrix, accuracies coded per step;
``mean_table`` patched to find no integer table), with identical tables asserted. Also times
the kernels of one random-mode step (all draws of one n: a (draws, 16, 100) batch): the
correlations against two references (``correlate_batch`` once per coefficient with the human
matrix broadcast to the batch; the sort-based row functions with the near-tie collapse per
document), and the accuracies (the batch's means coded, its difference table built once as
the sweep builds it once a run, one pass over its pairs) against ``pairwise_accuracy`` and
``tie_calibrated_accuracy`` called per draw; equal values asserted, ratios printed.

Also times the sweep without the adaptive rule's rows (issue 49) and prints the ratio, the
fixed-n rows asserted identical.

Usage: ``python perf/time_sweep.py [--draws 200] [--seed 0] [--repeats 2]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar
from unittest import mock

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.scoring import sweep as sweep_module
from geval_repro.scoring.sweep import (
    ADAPTIVE_MODES,
    DEFAULT_SE_TARGETS,
    SWEEP_COEFFICIENTS,
    sweep,
)
from geval_repro.stats import registry
from geval_repro.stats.accuracy import pairwise_accuracy, tie_calibrated_accuracy
from geval_repro.stats.accuracy_batch import DifferenceCodes, HumanPairs, coded_accuracies
from geval_repro.stats.levels import (
    _summary_level,
    _summary_terms_by_rows,
    correlate_batch,
    summary_batch,
)
from geval_repro.stats.matrix import to_matrix

COEFFICIENTS = ("spearman", "kendall")
TARGET_SECONDS = 5.0
T = TypeVar("T")


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
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    replies, human = synthetic_run(args.seed)

    def full_sweep(coefficients: tuple[str, ...]) -> Callable[[], pd.DataFrame]:
        return lambda: sweep(
            replies, human, seed=args.seed, draws=args.draws, coefficients=coefficients
        )

    t_sweep, _ = _timed(full_sweep(COEFFICIENTS), args.repeats)
    t_correlations, _ = _timed(full_sweep(SWEEP_COEFFICIENTS[:3]), args.repeats)
    t_all, table = _timed(full_sweep(SWEEP_COEFFICIENTS), args.repeats)
    with mock.patch.object(sweep_module, "mean_table", lambda values: None):
        t_generic, generic = _timed(full_sweep(SWEEP_COEFFICIENTS), args.repeats)
    pd.testing.assert_frame_equal(table, generic, check_exact=True)
    t_fixed, fixed = _timed(
        lambda: sweep(replies, human, seed=args.seed, draws=args.draws,
                      coefficients=SWEEP_COEFFICIENTS, se_targets=()),
        args.repeats,
    )  # fmt: skip
    pd.testing.assert_frame_equal(
        fixed, table[~table["mode"].isin(ADAPTIVE_MODES)].reset_index(drop=True)
    )
    print(
        f"adaptive rule's rows ({len(DEFAULT_SE_TARGETS)} targets, both orders): every "
        f"coefficient {t_all:.1f} s with them, {t_fixed:.1f} s without "
        f"({t_all / t_fixed:.2f}x); fixed-n rows identical"
    )
    print(
        f"sweep (rho, tau): {t_sweep:.1f} s CPU (target under {TARGET_SECONDS:.0f} s at 200 "
        f"draws; synthetic replies) | every coefficient (r, rho, tau, acc_eq, acc*_eq): "
        f"{len(table)} rows, {t_all:.1f} s, of which the accuracies "
        f"{t_all - t_correlations:.1f} s (r, rho, tau alone {t_correlations:.1f} s) | generic "
        f"float path {t_generic:.1f} s ({t_generic / t_all:.1f}x) | tables identical"
    )

    gold, _, _ = to_matrix(human, "coherence")
    rng = np.random.default_rng(args.seed)
    batch = np.round(gold + rng.normal(0, 1, (args.draws, *gold.shape)) * 0.7, 2)
    t_ours, ours = _timed(lambda: summary_batch(batch, gold, COEFFICIENTS))
    t_broadcast, broadcast = _timed(
        lambda: {
            c: correlate_batch(batch, np.broadcast_to(gold, batch.shape), "summary", c)
            for c in COEFFICIENTS
        }
    )
    t_rows, rows = _timed(
        lambda: {
            c: _summary_level(_summary_terms_by_rows(batch, gold, registry.coefficient(c)))
            for c in COEFFICIENTS
        }
    )
    for coefficient in COEFFICIENTS:
        np.testing.assert_array_equal(ours[coefficient].value, broadcast[coefficient].value)
        np.testing.assert_array_equal(ours[coefficient].value, rows[coefficient].value)
    print(
        f"one step ({args.draws} x 16 x 100), CPU: shared human, offset pair signs "
        f"{t_ours:.3f} s | per coefficient, broadcast human {t_broadcast:.3f} s "
        f"({t_broadcast / t_ours:.1f}x) | sort-based row functions {t_rows:.3f} s "
        f"({t_rows / t_ours:.1f}x) | values identical"
    )

    means = np.round(np.rint(batch * 3) / 3, 12)  # ties, as item means have them
    values, codes = np.unique(means, return_inverse=True)  # as the sweep codes its means
    codes = codes.reshape(means.shape)
    pairs, differences = HumanPairs.of(gold, "summary"), DifferenceCodes.of(values)  # once a run
    t_batch, batched = _timed(lambda: coded_accuracies(codes, differences, pairs))
    t_each, each = _timed(
        lambda: [
            (pairwise_accuracy(m, gold, "summary"), tie_calibrated_accuracy(m, gold, "summary"))
            for m in means
        ]
    )
    np.testing.assert_allclose(batched.acc_eq, [p.value for p, _ in each], rtol=0, atol=1e-12)
    np.testing.assert_allclose(batched.calibrated, [c.value for _, c in each], rtol=0, atol=1e-12)
    assert np.array_equal(batched.epsilon, [c.epsilon for _, c in each])
    print(
        f"one step ({args.draws} x 16 x 100), CPU: acc_eq and acc*_eq of the coded batch in "
        f"one pass over its pairs {t_batch:.3f} s | pairwise_accuracy and tie_calibrated_accuracy "
        f"per draw {t_each:.3f} s ({t_each / t_batch:.1f}x) | values equal to 1e-12"
    )


def _timed(call: Callable[[], T], repeats: int = 3) -> tuple[float, T]:
    """Smallest CPU time (``time.process_time``) of ``repeats`` calls, and the last result."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return best, result


if __name__ == "__main__":
    main()
