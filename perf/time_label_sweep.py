"""Time the replies-per-item sweep on binary labels (issue 47) at SummEdits' full size: every
mirrored pair (4,681 in 8 domains) judged with 20 replies, one parser, 200 draws.

Not a test: run ``python perf/time_label_sweep.py`` (``--draws``, ``--replies``). The replies
are SYNTHETIC, for timing only (seeded): ratings 1-5, a consistent pair rated a little
higher. The tidy table is the mirrored run's (``data/processed/summedits.parquet``; run the
mirrored pipeline first). Timed, in CPU seconds of this process (``time.process_time``):

(a) ``label_sweep`` as the pipeline runs it (the row functions: one sort per draw);
(b) one n of the random mode recomputed draw by draw with the binary-label table's one-vector
    functions (``fit_threshold``, ``roc_auc``, ``balanced_accuracy``), scaled to every n:
    what the row functions replace (their values are asserted equal).

Printed: seconds of (a), of one n of (a)'s random mode and of (b), and the ratio (b)/(a) for
that n. The machine is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.scoring.label_sweep import domain_items, domain_means, label_sweep
from geval_repro.scoring.sweep import prefix_means, random_permutations
from geval_repro.stats.binary import MIN_ITEMS, balanced_accuracy, fit_threshold, roc_auc

TABLE = Path("data/processed/summedits.parquet")


def _replies(table: pd.DataFrame, replies: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = len(table)
    ratings = np.clip(rng.integers(1, 6, (n, replies)) + (rng.random((n, 1)) < 0.3) * table[
        "label"
    ].to_numpy()[:, None], 1, 5)  # fmt: skip
    return pd.DataFrame(
        {
            "judge": "synthetic",
            "benchmark": "summedits",
            "dimension": "consistency",
            "item_id": np.repeat(table["item_id"].to_numpy(), replies),
            "reply_index": np.tile(np.arange(replies), n),
            "reply": [f"Consistency: {r}" for r in ratings.ravel()],
        }
    )


def _one_by_one(scores: np.ndarray, domains: list) -> np.ndarray:
    """The mean over domains of balanced accuracy, draw by draw, with the table's functions."""
    out = np.empty(len(scores))
    for d, row in enumerate(scores):
        values = []
        for domain in domains:
            tested, fit = row[domain.tested], row[domain.fit]
            kept, fitted = ~np.isnan(tested), ~np.isnan(fit)
            truth, fit_truth = domain.tested_labels[kept], domain.fit_labels[fitted]
            if kept.sum() < MIN_ITEMS or truth.all() or not truth.any():
                values.append(np.nan)
                continue
            threshold = fit_threshold(fit[fitted], fit_truth).threshold
            ones = np.ones((1, kept.sum()))
            roc_auc(tested[kept], truth, ones)
            values.append(balanced_accuracy(tested[kept], truth, ones, threshold)[0])
        out[d] = np.mean(values)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--replies", type=int, default=20)
    args = parser.parse_args()
    table = pd.read_parquet(TABLE)
    replies = _replies(table, args.replies)
    start = time.process_time()
    label_sweep(replies, table, seed=1, parsers=["original"], draws=args.draws)
    whole = time.process_time() - start

    benchmark = get_benchmark("summedits")
    ordered = table.sort_values("item_id", kind="stable")
    domains = domain_items(ordered, benchmark.labels)
    values = (
        replies.sort_values(["item_id", "reply_index"])["reply"]
        .str.rsplit(" ", n=1)
        .str[1]
        .astype(float)
        .to_numpy()
        .reshape(-1, args.replies)
    )
    taken = random_permutations(len(values), args.replies, args.draws, 1)[..., :5]
    drawn = np.take_along_axis(values[None], taken, axis=2)
    scores = prefix_means(np.moveaxis(drawn, 2, 0), None)[4]  # n = 5, every draw
    start = time.process_time()
    rows = domain_means(scores, domains)[0]["balanced_accuracy"]
    batched = time.process_time() - start
    start = time.process_time()
    single = _one_by_one(scores, domains)
    looped = time.process_time() - start
    np.testing.assert_allclose(rows, single, rtol=1e-14)  # the mean over domains: ulps
    print(
        f"label sweep, {len(table)} items x {args.replies} replies, {args.draws} draws, one "
        f"parser: {whole:.1f} s CPU"
    )
    print(
        f"one n of the random mode: row functions {batched:.2f} s (both statistics), draw by "
        f"draw {looped:.2f} s (balanced accuracy and AUC): {looped / batched:.1f}x"
    )


if __name__ == "__main__":
    main()
