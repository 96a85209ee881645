"""Time the meta-evaluation kernels on the real SummEval shape (16 systems x 100 documents).

Not a test: run ``python perf/time_stats.py`` (``--all-dimensions`` times the nlpstats
bootstrap on all four dimensions instead of coherence only; it takes ~1 minute per
dimension and coefficient).

Data: the human scores are SummEval's expert means for coherence, consistency, fluency and
relevance, read from the offline mirror (``GEVAL_REPRO_MIRROR`` or ``../shared/mirror``).
The metric scores are SYNTHETIC, for timing only: a G-Eval-like mean of 20 integer replies
per summary (reply = human score + N(0, 1.2) noise, rounded, clipped to 1-5; seeded), so
they carry G-Eval's tie pattern. No number printed here is a result about any metric.

Timing: every method is timed the same way, on the CPU clock of this process
(``time.process_time``): CPU seconds per call, averaged over the same number of calls for
ours and for each reference (``--calls``), so that a loaded machine slows all of them alike.

Timed, with values asserted identical (1e-12):

1. summary-level correlation per coefficient, four dimensions: ours
   (``geval_repro.stats.levels.correlate``) against (a) a per-document scipy loop written
   like the released meta_eval_summeval.py, (b) ``nlpstats.correlations.correlate`` and,
   for Kendall and Spearman, (c) a plain numpy pairwise-sign kernel (tau-b from the signs of
   all 120 system pairs of every document, Spearman from ranks counted by the same signs;
   no missing values, no near-tie rule);
2. the summary-level bootstrap over inputs, 1,000 resamples: ``bootstrap_ci`` against
   ``nlpstats.correlations.bootstrap`` and against our general path that recomputes every
   resampled matrix (``_recomputed``). Identity is checked by replaying nlpstats' own
   resamples (its ``np.random.choice`` draws after ``np.random.seed``) through
   ``resampled_correlations``;
3. the paired permutation test over inputs, 1,000 resamples: ``paired_permutation_test``
   against the general path (``_recomputed_differences``) on the same swaps;
4. the system-level bootstrap over inputs, 1,000 resamples, four dimensions:
   ``bootstrap_ci`` (every resample's system means from one sparse product of its draws)
   against the general path that builds and averages every resampled matrix
   (``_recomputed``, the system level's path up to commit 11d6d1a) on the same resamples,
   values asserted equal to 1e-12 (sums in another order). The sparse product took the
   baseline rows job's 108 system-level bootstraps (real SummEval, 16 x 100) from 2.15 s to
   0.32 s CPU in all; here (best of 3, 2-core machine at load 1-1.5) the general path's
   18-21 ms against 1.8-1.9 ms (Pearson) and 3.3-3.5 ms (Spearman, Kendall: ranking) per
   call, 6-10x, the bootstrap's own draws and percentiles included.
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

from geval_repro.registry.sources import REPO_ROOT, get_source
from geval_repro.stats.bootstrap import _recomputed, bootstrap_ci, resampled_correlations
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.permutation import _recomputed_differences, permuted_differences
from geval_repro.stats.registry import COEFFICIENTS

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


def cpu_time(function: Callable[[], object], calls: int) -> tuple[float, object]:
    """Mean CPU seconds per call of ``function`` over ``calls`` calls, and the last result."""
    result = None
    start = time.process_time()
    for _ in range(calls):
        result = function()
    return (time.process_time() - start) / calls, result


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


def released_script_loop(metric: np.ndarray, human: np.ndarray, coefficient: str) -> float:
    """meta_eval_summeval.py's loop: per document, skip constant vectors, call scipy."""
    correlate_pair = {"pearson": pearsonr, "spearman": spearmanr, "kendall": kendalltau}[
        coefficient
    ]
    total, kept = 0.0, 0
    for j in range(metric.shape[1]):
        predicted, gold = list(metric[:, j]), list(human[:, j])
        if len(set(gold)) <= 1 or len(set(predicted)) <= 1:
            continue
        total += correlate_pair(predicted, gold)[0]
        kept += 1
    return total / kept


def plain_pairwise(metric: np.ndarray, human: np.ndarray, coefficient: str) -> float:
    """A plain numpy pairwise-sign kernel on (docs, systems) matrices: no missing values,
    no near-tie rule, documents with a constant vector dropped by their NaN."""
    x, y = metric.T, human.T
    first, second = np.triu_indices(x.shape[1], 1)
    sx = np.sign(x[:, second] - x[:, first])
    sy = np.sign(y[:, second] - y[:, first])
    with np.errstate(invalid="ignore", divide="ignore"):
        if coefficient == "kendall":
            per_doc = (sx * sy).sum(1) / np.sqrt(np.abs(sx).sum(1) * np.abs(sy).sum(1))
        else:
            incidence = np.zeros((first.size, x.shape[1]))
            incidence[np.arange(first.size), second] = 1
            incidence[np.arange(first.size), first] = -1
            rx, ry = sx @ incidence, sy @ incidence  # centred ranks times 2
            per_doc = (rx * ry).sum(1) / np.sqrt((rx * rx).sum(1) * (ry * ry).sum(1))
    return float(np.nanmean(per_doc))


def bench_kernel(matrices, calls: int) -> None:
    print(f"1. Summary-level kernel, 16 x 100 matrices, CPU per call (mean of {calls} calls)")
    for coefficient in COEFFICIENTS:
        totals = dict.fromkeys(["ours", "scipy loop", "nlpstats", "plain numpy"], 0.0)
        for metric, human in matrices.values():
            t_ours, ours = cpu_time(
                lambda m=metric, h=human, c=coefficient: correlate(m, h, "summary", c).value, calls
            )
            t_loop, loop = cpu_time(
                lambda m=metric, h=human, c=coefficient: released_script_loop(m, h, c), calls
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy's constant-input warnings, then skipped
                t_nlp, nlp = cpu_time(
                    lambda m=metric, h=human, c=coefficient: nlpstats_correlate(m, h, "input", c),
                    calls,
                )
            for name, value in (("scipy loop", loop), ("nlpstats", nlp)):
                if abs(ours - value) > 1e-12:
                    raise AssertionError(f"{coefficient} vs {name}: {ours!r} != {value!r}")
            totals["ours"] += t_ours
            totals["scipy loop"] += t_loop
            totals["nlpstats"] += t_nlp
            if coefficient != "pearson":
                t_plain, plain = cpu_time(
                    lambda m=metric, h=human, c=coefficient: plain_pairwise(m, h, c), calls
                )
                if abs(ours - plain) > 1e-12:
                    raise AssertionError(f"{coefficient} vs plain kernel: {ours!r} != {plain!r}")
                totals["plain numpy"] += t_plain
        ours = totals.pop("ours")
        ratios = " | ".join(
            f"{name} {total / ours:5.1f}x" for name, total in totals.items() if total > 0
        )
        print(
            f"   {coefficient:<8} ours {ours / len(matrices) * 1e3:6.3f} ms per matrix | "
            f"reference / ours: {ratios} | values identical (1e-12)"
        )


def bench_bootstrap(matrices, dimensions, n_resamples: int, seed: int) -> None:
    print(f"2. Summary-level bootstrap over inputs, {n_resamples} resamples, CPU seconds")
    for dimension in dimensions:
        metric, human = matrices[dimension]
        n_systems, n_inputs = metric.shape
        replay = np.random.RandomState(seed)
        columns = np.array(
            [replay.choice(n_inputs, n_inputs, replace=True) for _ in range(n_resamples)]
        )
        rows = np.broadcast_to(np.arange(n_systems), (n_resamples, n_systems))
        for coefficient in COEFFICIENTS:
            t_ours, _ = cpu_time(
                lambda m=metric, h=human, c=coefficient: bootstrap_ci(
                    m, h, "summary", c, n_resamples=n_resamples, seed=seed
                ),
                3,
            )
            _, replayed = cpu_time(
                lambda m=metric, h=human, c=coefficient, i=columns: resampled_correlations(
                    m, h, "summary", c, input_indices=i
                ),
                1,
            )
            t_general, general = cpu_time(
                lambda m=metric, h=human, c=coefficient, r=rows, i=columns: _recomputed(
                    m, h, "summary", c, r, i
                ),
                1,
            )
            np.random.seed(seed)  # noqa: NPY002 - nlpstats only reads the legacy global state
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_nlp, theirs = cpu_time(
                    lambda m=metric, h=human, c=coefficient: nlpstats_bootstrap(
                        m, h, "input", c, "inputs", n_resamples=n_resamples
                    ),
                    1,
                )
            np.testing.assert_allclose(replayed, general, rtol=0, atol=1e-12)
            replayed = replayed[~np.isnan(replayed)]
            np.testing.assert_allclose(replayed, theirs.samples, rtol=0, atol=1e-12)
            low, high = np.percentile(replayed, [2.5, 97.5])
            assert abs(low - theirs.lower) < 1e-12 and abs(high - theirs.upper) < 1e-12
            print(
                f"   {dimension:<12} {coefficient:<8} bootstrap_ci {t_ours:7.4f} s | "
                f"general path {t_general:6.3f} s ({t_general / t_ours:6.1f}x) | "
                f"nlpstats {t_nlp:7.2f} s ({t_nlp / t_ours:7.1f}x) | identical (1e-12)"
            )


def bench_permutation(matrices, n_resamples: int, seed: int) -> None:
    print(f"3. Summary-level permutation test over inputs, {n_resamples} resamples, CPU seconds")
    (metric_a, human), (metric_b, _) = list(matrices.values())[:2]
    swap = np.random.default_rng(seed).random((n_resamples, 1, metric_a.shape[1])) < 0.5
    for coefficient in COEFFICIENTS:
        t_ours, fast = cpu_time(
            lambda c=coefficient: permuted_differences(
                metric_a, metric_b, human, "summary", c, swap
            ),
            3,
        )
        t_general, general = cpu_time(
            lambda c=coefficient: _recomputed_differences(
                metric_a, metric_b, human, "summary", c, swap
            ),
            1,
        )
        np.testing.assert_allclose(fast, general, rtol=0, atol=1e-12)
        print(
            f"   {coefficient:<8} per-document {t_ours:7.4f} s | general path {t_general:6.3f} s "
            f"({t_general / t_ours:6.1f}x) | identical (1e-12)"
        )


def best_of(function: Callable[[], object], calls: int, repeats: int = 3) -> tuple[float, object]:
    """The best of ``repeats`` :func:`cpu_time` measurements, and the last result."""
    timings = [cpu_time(function, calls) for _ in range(repeats)]
    return min(t for t, _ in timings), timings[-1][1]


def bench_system_bootstrap(matrices, n_resamples: int, seed: int) -> None:
    print(f"4. System-level bootstrap over inputs, {n_resamples} resamples, CPU (best of 3)")
    for dimension, (metric, human) in matrices.items():
        n_systems, n_inputs = metric.shape
        columns = np.random.default_rng(seed).integers(0, n_inputs, (n_resamples, n_inputs))
        rows = np.broadcast_to(np.arange(n_systems), (n_resamples, n_systems))
        cells = []
        for coefficient in COEFFICIENTS:
            t_ours, _ = best_of(
                lambda m=metric, h=human, c=coefficient: bootstrap_ci(
                    m, h, "system", c, n_resamples=n_resamples, seed=seed
                ),
                3,
            )
            t_general, general = best_of(
                lambda m=metric, h=human, c=coefficient, r=rows, i=columns: _recomputed(
                    m, h, "system", c, r, i
                ),
                1,
            )
            ours = resampled_correlations(
                metric, human, "system", coefficient, input_indices=columns
            )
            np.testing.assert_allclose(ours, general, rtol=0, atol=1e-12)
            cells.append(
                f"{coefficient} {t_ours * 1e3:5.2f} ms, general path {t_general * 1e3:5.1f} ms "
                f"({t_general / t_ours:4.1f}x)"
            )
        print(f"   {dimension:<12} " + " | ".join(cells) + " | identical (1e-12)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_mirror = os.environ.get("GEVAL_REPRO_MIRROR", str(REPO_ROOT.parent / "shared/mirror"))
    parser.add_argument("--mirror", type=Path, default=Path(default_mirror))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=20, help="calls per kernel timing")
    parser.add_argument("--all-dimensions", action="store_true", help="nlpstats bootstrap x4")
    args = parser.parse_args()
    if not (args.mirror / "MANIFEST.tsv").is_file():
        raise SystemExit(f"offline mirror not found at {args.mirror}: pass --mirror")
    matrices = load_summeval(args.mirror, args.seed)
    print("SummEval human scores (mirror) with SYNTHETIC G-Eval-like metric scores (timing only)")
    bench_kernel(matrices, args.calls)
    dimensions = DIMENSIONS if args.all_dimensions else DIMENSIONS[:1]
    bench_bootstrap(matrices, dimensions, args.resamples, args.seed)
    bench_permutation(matrices, args.resamples, args.seed)
    bench_system_bootstrap(matrices, args.resamples, args.seed)


if __name__ == "__main__":
    main()
