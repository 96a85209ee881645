"""Time the meta-evaluation kernels on the real SummEval shape (16 systems x 100 documents).

Not a test: run ``python perf/bench_stats.py`` (``--all-dimensions`` times the nlpstats
bootstrap on all four dimensions instead of coherence only; it takes ~1 minute per
dimension and coefficient).

Data: the human scores are SummEval's expert means for coherence, consistency, fluency and
relevance, read from the offline mirror (``GEVAL_REPRO_MIRROR`` or ``../shared/mirror``).
The metric scores are SYNTHETIC, for timing only: a G-Eval-like mean of 20 integer replies
per summary (reply = human score + N(0, 1.2) noise, rounded, clipped to 1-5; seeded), so
they carry G-Eval's tie pattern. No number printed here is a result about any metric.

Timed, with values asserted identical (1e-12):

1. summary-level correlation, three coefficients, four dimensions: ours
   (``geval_repro.stats.levels.correlate``) against (a) a per-document scipy loop written
   like the released meta_eval_summeval.py and (b) ``nlpstats.correlations.correlate``;
2. the summary-level bootstrap over inputs, 1,000 resamples: ``bootstrap_ci`` against
   ``nlpstats.correlations.bootstrap``. Identity is checked by replaying nlpstats' own
   resamples (its ``np.random.choice`` draws after ``np.random.seed``) through
   ``resampled_correlations``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from nlpstats.correlations import bootstrap as nlpstats_bootstrap
from nlpstats.correlations import correlate as nlpstats_correlate
from scipy.stats import kendalltau, pearsonr, spearmanr

from geval_repro.sources import REPO_ROOT, get_source
from geval_repro.stats.bootstrap import bootstrap_ci, resampled_correlations
from geval_repro.stats.coefficients import COEFFICIENTS
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


def best_time(function: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Fastest of ``repeats`` runs (seconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def load_summeval(mirror: Path, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{dimension: (synthetic metric matrix, real human matrix)}, both (16, 100)."""
    path = mirror / get_source("summeval").relpath
    items = pd.DataFrame(json.loads(path.read_text(encoding="utf-8")))
    rng = np.random.default_rng(seed)
    matrices = {}
    for dimension in DIMENSIONS:
        items[dimension] = items.scores.map(lambda scores, d=dimension: scores[d])
        human, _, _ = to_matrix(items, dimension)
        replies = np.rint(human[..., None] + rng.normal(0, 1.2, (*human.shape, 20)))
        matrices[dimension] = (np.clip(replies, 1, 5).mean(axis=-1), human)
    return matrices


def released_script_loop(metric: np.ndarray, human: np.ndarray) -> dict[str, float]:
    """meta_eval_summeval.py's loop: per document, skip constant vectors, call scipy."""
    totals = {"pearson": 0.0, "spearman": 0.0, "kendall": 0.0}
    kept = 0
    for j in range(metric.shape[1]):
        predicted, gold = list(metric[:, j]), list(human[:, j])
        if len(set(gold)) <= 1 or len(set(predicted)) <= 1:
            continue
        totals["pearson"] += pearsonr(predicted, gold)[0]
        totals["spearman"] += spearmanr(predicted, gold)[0]
        totals["kendall"] += kendalltau(predicted, gold)[0]
        kept += 1
    return {name: total / kept for name, total in totals.items()}


def ours_all(metric: np.ndarray, human: np.ndarray) -> dict[str, float]:
    return {c: correlate(metric, human, "summary", c).value for c in COEFFICIENTS}


def nlpstats_all(metric: np.ndarray, human: np.ndarray) -> dict[str, float]:
    return {c: nlpstats_correlate(metric, human, "input", c) for c in COEFFICIENTS}


def assert_same(ours: dict[str, float], theirs: dict[str, float], what: str) -> None:
    for coefficient, value in ours.items():
        if abs(value - theirs[coefficient]) > 1e-12:
            raise AssertionError(f"{what} {coefficient}: {value!r} != {theirs[coefficient]!r}")


def bench_kernel(matrices, repeats: int) -> None:
    print("1. Summary-level kernel: 3 coefficients x 4 dimensions, 16 x 100 matrices")
    totals = {"ours": 0.0, "scipy loop": 0.0, "nlpstats": 0.0}
    for dimension, (metric, human) in matrices.items():
        t_ours, ours = best_time(lambda m=metric, h=human: ours_all(m, h), repeats)
        t_loop, loop = best_time(lambda m=metric, h=human: released_script_loop(m, h), 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's constant-input warnings, then skipped
            t_nlp, nlp = best_time(lambda m=metric, h=human: nlpstats_all(m, h), 3)
        assert_same(ours, loop, f"{dimension} vs released loop")
        assert_same(ours, nlp, f"{dimension} vs nlpstats")
        totals["ours"] += t_ours
        totals["scipy loop"] += t_loop
        totals["nlpstats"] += t_nlp
        print(
            f"   {dimension:<12} ours {t_ours * 1e3:7.2f} ms | scipy loop {t_loop * 1e3:7.1f} ms"
            f" ({t_loop / t_ours:5.1f}x) | nlpstats {t_nlp * 1e3:7.1f} ms"
            f" ({t_nlp / t_ours:5.1f}x) | values identical (1e-12)"
        )
    print(
        f"   {'total':<12} ours {totals['ours'] * 1e3:7.2f} ms | "
        f"scipy loop {totals['scipy loop'] / totals['ours']:.1f}x slower | "
        f"nlpstats {totals['nlpstats'] / totals['ours']:.1f}x slower"
    )


def bench_bootstrap(matrices, dimensions, n_resamples: int, seed: int) -> None:
    print(f"2. Summary-level bootstrap over inputs, {n_resamples} resamples")
    total_ours = total_nlp = 0.0
    for dimension in dimensions:
        metric, human = matrices[dimension]
        n_inputs = metric.shape[1]
        replay = np.random.RandomState(seed)
        columns = np.array(
            [replay.choice(n_inputs, n_inputs, replace=True) for _ in range(n_resamples)]
        )
        for coefficient in COEFFICIENTS:
            t_ours, _ = best_time(
                lambda m=metric, h=human, c=coefficient: bootstrap_ci(
                    m, h, "summary", c, n_resamples=n_resamples, seed=seed
                ),
                3,
            )
            t_replay, replayed = best_time(
                lambda m=metric, h=human, c=coefficient, i=columns: resampled_correlations(
                    m, h, "summary", c, input_indices=i
                ),
                3,
            )
            np.random.seed(seed)  # noqa: NPY002 - nlpstats only reads the legacy global state
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = nlpstats_bootstrap(
                    metric, human, "input", coefficient, "inputs", n_resamples=n_resamples
                )
            t_nlp = time.perf_counter() - start
            replayed = replayed[~np.isnan(replayed)]
            np.testing.assert_allclose(replayed, theirs.samples, rtol=0, atol=1e-12)
            low, high = np.percentile(replayed, [2.5, 97.5])
            assert abs(low - theirs.lower) < 1e-12 and abs(high - theirs.upper) < 1e-12
            total_ours += t_ours
            total_nlp += t_nlp
            print(
                f"   {dimension:<12} {coefficient:<8} bootstrap_ci {t_ours:6.3f} s | "
                f"same resamples as nlpstats {t_replay:6.3f} s | nlpstats {t_nlp:7.2f} s "
                f"({t_nlp / t_ours:6.1f}x) | distributions and CI identical (1e-12)"
            )
    print(f"   {'total':<21} nlpstats / bootstrap_ci = {total_nlp / total_ours:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_mirror = os.environ.get("GEVAL_REPRO_MIRROR", str(REPO_ROOT.parent / "shared/mirror"))
    parser.add_argument("--mirror", type=Path, default=Path(default_mirror))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=20, help="best-of repeats, our kernel")
    parser.add_argument("--all-dimensions", action="store_true", help="nlpstats bootstrap x4")
    args = parser.parse_args()
    if not (args.mirror / "MANIFEST.tsv").is_file():
        raise SystemExit(f"offline mirror not found at {args.mirror}: pass --mirror")
    matrices = load_summeval(args.mirror, args.seed)
    print("SummEval human scores (mirror) with SYNTHETIC G-Eval-like metric scores (timing only)")
    bench_kernel(matrices, args.repeats)
    dimensions = DIMENSIONS if args.all_dimensions else DIMENSIONS[:1]
    bench_bootstrap(matrices, dimensions, args.resamples, args.seed)


if __name__ == "__main__":
    main()
