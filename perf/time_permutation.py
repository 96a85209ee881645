"""Time the paired permutation test per test (issue 27, target 1; issue 17's tie rule):
recomputing, the fast paths before the tie rule, ours, and nlpstats, on real-sized inputs,
1,000 resamples.

Not a test: run ``python perf/time_permutation.py`` (``--calls`` per timing, ``--dimension``
of Topical-Chat, ``--skip-nlpstats``). It needs the offline mirror (``GEVAL_REPRO_MIRROR`` or
``../shared/mirror``) and the git history (the fast paths before the tie rule are read
with ``git show``).

Inputs:

- Topical-Chat, global level (one pseudo-system row of 360 items, single items swapped; the
  paper's turn level), read from the mirror with the pipeline's loader: the human scores of
  ``--dimension`` (means of 3 annotators, 1-3 or 0-1), UniEval's released predictions
  (real), BLEU-4 and ROUGE-L of the 300 non-ground-truth responses recomputed as the
  pipeline does (sacrebleu COCO BLEU, whitespace ROUGE-L, F-beta 1.2; real, 60 ground-truth
  items missing), and a SYNTHETIC G-Eval-like judge for timing only (mean of 20 integer
  replies, reply = human score + N(0, 1) noise, rounded, clipped to the scale; seeded): its
  tie pattern is G-Eval's. BLEU-4's near-zero scores are the interesting case: after the
  test's standardization they are a few 1e-10 apart, near-ties that merge differently in
  every resample.
- SummEval, summary level (16 systems x 100 documents, whole documents swapped): the expert
  coherence means (mirror) and two synthetic judges as in ``perf/time_stats.py``.

Timed, per test (``paired_permutation_test`` with 1,000 resamples, seed 0): (a) recomputing
every swapped matrix with the tie rule (what the test did before the fast paths; the
reference the fast paths are asserted equal to), (b) the fast
paths as they were before ties were decided on each metric's own scores, commit
:data:`BEFORE_TIES` (their tie rule merged BLEU-4's near-zero scores once standardized), (c)
ours, (d) ``nlpstats.correlations.permutation_test`` on the same matrices with 1,000
resamples (permutation method "inputs": at the global level the one row's columns are the
items). CPU seconds of this process (``time.process_time``, BLAS threads included), the best
of ``--calls`` calls for (a) to (c) and one call for (d); the machine is shared, so the
ratios are the numbers to read. Ours is asserted equal to (a) (``correlate_batch`` on
:func:`~geval_repro.stats.permutation.tie_codes`, or on the standardized scores for Pearson:
bit for bit for Spearman and Kendall, 1e-12 for Pearson), and its statistic to the raw
scores' difference. (b) differs from ours where
standardized near-ties merged (BLEU-4's Spearman with engagingness: 0.316 on the raw scores,
0.359 after the merge); its p-values are printed beside ours. nlpstats draws its own
permutations (``np.random``, not our seeded generator) and ranks the standardized scores by
exact equality, so its p-value agrees with ours only statistically (and it reports k / n,
ours (1 + k) / (1 + n)). The floor line is the cost of drawing the swap masks alone
(``default_rng(seed).random(...) < 0.5``): the tests keep these draws, made once per seed
and shape (``swap_masks`` keeps them), so the repeated calls timed here, like a table's
tests, no longer pay them. nlpstats at the summary
level takes about two minutes per test (``--skip-nlpstats``).

Then, at the summary level, every pair of 8 synthetic judges as the judge-vs-judge tables
make them: each metric's part of its tests (its per-document correlations,
``document_side``) made once and shared by the pairs it is in (``document_test``), against
one ``paired_permutation_test`` per pair; the distributions asserted identical.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from nlpstats.correlations import permutation_test as nlpstats_permutation_test

from geval_repro.baselines.bleu import sentence_bleu
from geval_repro.baselines.references import GROUND_TRUTH_SYSTEM, topical_chat_references
from geval_repro.baselines.rouge import rouge_f
from geval_repro.load.summeval import load_summeval
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.registry.sources import REPO_ROOT, get_source
from geval_repro.stats import registry
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.permutation import (
    _recomputed_differences,
    _standardize,
    document_side,
    document_test,
    paired_permutation_test,
    swap_masks,
    tie_codes,
)
from geval_repro.stats.registry import COEFFICIENTS

BEFORE_TIES = "c1d198f"  # the fast paths with ties decided after standardizing
N_RESAMPLES = 1000
NLPSTATS_LEVEL = {"summary": "input", "global": "global"}
TopicalScores = dict[str, np.ndarray]


def implementation_of(commit: str) -> Callable[..., object] | None:
    """``paired_permutation_test`` of ``commit``, read with ``git show``; None when it no
    longer runs against the package (it imports internals that issue 45 replaced)."""
    source = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", f"{commit}:geval_repro/stats/permutation.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(f"permutation_{commit}", handle.name)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        print(f"(the fast paths of commit {commit} do not run against this package: {error})")
        return None
    finally:
        os.unlink(handle.name)
    return module.paired_permutation_test


def mirror_path() -> Path:
    mirror = os.environ.get("GEVAL_REPRO_MIRROR") or REPO_ROOT.parent / "shared" / "mirror"
    return Path(mirror)


def synthetic_judge(human: np.ndarray, low: float, high: float, noise: float, seed: int):
    """Mean of 20 integer replies around the human score (SYNTHETIC, for timing only)."""
    rng = np.random.default_rng(seed)
    replies = np.rint(human[..., None] + rng.normal(0, noise, (*human.shape, 20)))
    return np.clip(replies, low, high).mean(axis=-1)


def topical_chat(mirror: Path, dimension: str) -> tuple[np.ndarray, TopicalScores]:
    """(human (1, 360), {metric: (1, 360)}) in item order; baselines NaN on ground truth."""
    table = load_topical_chat(
        mirror / get_source("topical_chat").relpath,
        mirror / get_source("unieval_pred_topical_chat").relpath,
    )
    table = table.assign(reference=topical_chat_references(table))
    scored = (table["system_id"] != GROUND_TRUTH_SYSTEM).to_numpy()
    responses = table.loc[scored, "response"].tolist()
    references = table.loc[scored, "reference"].tolist()
    human = table[dimension].to_numpy(dtype=float)
    low, high = np.floor(human.min()), np.ceil(human.max())
    metrics = {
        "UniEval": table[f"unieval_{dimension}"].to_numpy(dtype=float),
        "judge (synthetic)": synthetic_judge(human, low, high, 1.0, seed=0),
    }
    for name, scores in (
        ("BLEU-4", sentence_bleu(responses, references, smooth_method="coco", tokenize="none")),
        ("ROUGE-L", rouge_f(responses, references, "rougeL", tokenizer="whitespace", beta=1.2)),
    ):
        metrics[name] = np.full(human.shape, np.nan)
        metrics[name][scored] = scores
    return human[None, :], {name: scores[None, :] for name, scores in metrics.items()}


def summeval(mirror: Path) -> tuple[np.ndarray, TopicalScores]:
    """(expert coherence (16, 100), two synthetic judges (16, 100))."""
    table = load_summeval(mirror / get_source("summeval").relpath)
    human, _, _ = to_matrix(table, "coherence")
    return human, {
        "judge A (synthetic)": synthetic_judge(human, 1, 5, 1.2, seed=1),
        "judge B (synthetic)": synthetic_judge(human, 1, 5, 1.6, seed=2),
    }


def best_cpu(function: Callable[[], object], calls: int) -> tuple[float, object]:
    """The least CPU seconds of ``calls`` calls of ``function``, and its result."""
    best, result = float("inf"), None
    for _ in range(calls):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


def masked(a: np.ndarray, b: np.ndarray, human: np.ndarray):
    """The three matrices on the items all three score (as the pipeline passes them)."""
    both = ~(np.isnan(a) | np.isnan(b) | np.isnan(human))
    return tuple(np.where(both, m, np.nan) for m in (a, b, human))


def reference(a, b, gold, level, coefficient) -> np.ndarray:
    """Every swapped matrix recomputed with the tie rule (the module docstring)."""
    level = Level(level)
    if not registry.coefficient(coefficient).rank_based or level is Level.SYSTEM:
        x_a, x_b = _standardize(a, "a"), _standardize(b, "b")
    else:
        x_a, x_b = tie_codes(a, b, gold, level)
    swap = swap_masks(0, level.permutation_unit, N_RESAMPLES, *a.shape)
    return _recomputed_differences(x_a, x_b, gold, level, coefficient, swap)


def bench(title, level, human, pairs, before, calls, nlpstats) -> list[list[float]]:
    """Print one block of timings; return the ratios recomputed / ours and before / ours."""
    print(f"\n{title}")
    print(
        f"   {'pair':<22} {'coef.':<8} {'recomp.':>9} {'before':>8} {'ours':>8}"
        f" {'rec/ours':>9} {'bef/ours':>8} {'nlpstats':>9} {'ratio':>6}"
        "   p before / ours / nlpstats"
    )
    ratios = [[], []]
    for name_a, name_b, a, b in pairs:
        a, b, gold = masked(a, b, human)
        for coefficient in COEFFICIENTS:

            def test(implementation, a=a, b=b, gold=gold, c=coefficient):
                return implementation(a, b, gold, level, c, n_resamples=N_RESAMPLES, seed=0)

            t_old, want = best_cpu(
                lambda a=a, b=b, gold=gold, c=coefficient: reference(a, b, gold, level, c),
                max(1, calls // 2),
            )
            t_before, fast = (
                (np.nan, None) if before is None else best_cpu(lambda: test(before), calls)
            )
            t_new, new = best_cpu(lambda: test(paired_permutation_test), calls)
            if coefficient == "pearson":
                np.testing.assert_allclose(new.distribution, want, rtol=0, atol=1e-12)
            else:
                np.testing.assert_array_equal(new.distribution, want)
            raw = [correlate(m, gold, level, coefficient).value for m in (a, b)]
            assert new.statistic == raw[0] - raw[1]
            ratios[0].append(t_old / t_new)
            if fast is not None:
                ratios[1].append(t_before / t_new)
            theirs = "       -      -"
            p_theirs = "-"
            if nlpstats:
                np.random.seed(0)  # noqa: NPY002 - nlpstats only reads the legacy global state
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t_nlp, result = best_cpu(
                        lambda a=a, b=b, gold=gold, c=coefficient: nlpstats_permutation_test(
                            a, b, gold, NLPSTATS_LEVEL[level], c, "inputs", n_resamples=N_RESAMPLES
                        ),
                        1,
                    )
                theirs = f"{t_nlp:8.3f}s {t_nlp / t_new:6.0f}"
                p_theirs = f"{result.pvalue:.4f}"
            print(
                f"   {name_a + ' vs ' + name_b:<22} {coefficient:<8} {t_old * 1e3:7.1f}ms"
                f" {t_before * 1e3:6.1f}ms {t_new * 1e3:6.1f}ms {t_old / t_new:9.1f}"
                f" {t_before / t_new:8.2f} {theirs}   "
                f"{'-' if fast is None else f'{fast.pvalue:.4f}'} / {new.pvalue:.4f} / {p_theirs}"
            )
    return ratios


def summarize(ratios: list[list[float]], shape: tuple[int, ...], calls: int) -> None:
    """Print the ratios' range and the floor: drawing the swap masks alone (CPU seconds)."""
    floor = best_cpu(lambda: np.random.default_rng(0).random(shape) < 0.5, calls)[0]
    print(f"   drawing the swap masks alone: {floor * 1e3:.1f} ms (once per seed and shape)")
    for name, values in zip(("recomputed", "before"), ratios, strict=True):
        if not values:
            continue
        print(
            f"   ratio {name} / ours: min {min(values):.2f}, median {np.median(values):.2f},"
            f" max {max(values):.2f}"
        )


def shared_sides(gold: np.ndarray, n_metrics: int, calls: int) -> None:
    """Print the CPU per test of every pair of ``n_metrics`` synthetic judges at the summary
    level, as the judge-vs-judge tables make them (each metric's side once,
    ``document_side`` / ``document_test``) and one ``paired_permutation_test`` per pair;
    the distributions asserted identical."""
    judges = [synthetic_judge(gold, 1, 5, 0.8 + 0.2 * k, seed=10 + k) for k in range(n_metrics)]
    pairs = [(a, b) for a in range(n_metrics) for b in range(a + 1, n_metrics)]
    print(
        f"\n3. SummEval coherence, summary level: every pair of {n_metrics} SYNTHETIC judges "
        f"({len(pairs)} tests per coefficient), as the judge-vs-judge tables make them"
    )
    print(f"   {'coef.':<8} {'per pair':>9} {'shared':>8} {'ratio':>6}")
    for coefficient in COEFFICIENTS:

        def per_pair(c=coefficient):
            return [
                paired_permutation_test(judges[a], judges[b], gold, "summary", c, seed=0)
                for a, b in pairs
            ]

        def shared(c=coefficient):
            sides = [document_side(judge, gold, c) for judge in judges]
            return [document_test(sides[a], sides[b], seed=0) for a, b in pairs]

        t_pair, alone = best_cpu(per_pair, calls)
        t_shared, together = best_cpu(shared, calls)
        for one, other in zip(alone, together, strict=True):
            np.testing.assert_array_equal(one.distribution, other.distribution)
            assert one.statistic == other.statistic
        print(
            f"   {coefficient:<8} {t_pair / len(pairs) * 1e3:7.2f}ms"
            f" {t_shared / len(pairs) * 1e3:6.2f}ms {t_pair / t_shared:6.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=7, help="calls per timing (best kept)")
    parser.add_argument("--dimension", default="engagingness", help="Topical-Chat dimension")
    parser.add_argument("--skip-nlpstats", action="store_true", help="do not time nlpstats")
    args = parser.parse_args()
    mirror = mirror_path()
    before = implementation_of(BEFORE_TIES)
    print(
        f"Paired permutation test, {N_RESAMPLES} resamples, CPU per test (best of {args.calls}; "
        f"recomputed: best of {max(1, args.calls // 2)}; before = commit {BEFORE_TIES}; "
        "nlpstats: 1 call)."
    )
    print(
        "Ours equals recomputing every swapped matrix with its tie rule (asserted). nlpstats "
        "draws its own permutations: its p-values (k/n) agree with ours ((1+k)/(1+n)) only "
        "statistically."
    )
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset: one per core")
    print(
        f"OPENBLAS_NUM_THREADS={threads} (Kendall's pair-sign form is a BLAS product; on a "
        "busy machine, threaded BLAS spends CPU waiting for its threads)."
    )

    human, scores = topical_chat(mirror, args.dimension)
    pairs = [
        ("judge", "UniEval", scores["judge (synthetic)"], scores["UniEval"]),
        ("judge", "BLEU-4", scores["judge (synthetic)"], scores["BLEU-4"]),
        ("UniEval", "ROUGE-L", scores["UniEval"], scores["ROUGE-L"]),
        ("BLEU-4", "ROUGE-L", scores["BLEU-4"], scores["ROUGE-L"]),
    ]
    gold, judges = summeval(mirror)
    (name_a, judge_a), (name_b, judge_b) = judges.items()
    blocks = [
        (
            f"1. Topical-Chat {args.dimension}, global level, 1 x 360 items, items swapped "
            "(judge: SYNTHETIC)",
            "global",
            human,
            pairs,
        ),
        (
            "2. SummEval coherence, summary level, 16 x 100, whole documents swapped "
            "(judges: SYNTHETIC)",
            "summary",
            gold,
            [(name_a.split(" (")[0], name_b.split(" (")[0], judge_a, judge_b)],
        ),
    ]
    for title, level, gold_scores, compared in blocks:
        ratios = bench(
            title, level, gold_scores, compared, before, args.calls, not args.skip_nlpstats
        )
        summarize(ratios, (N_RESAMPLES, 1, gold_scores.shape[1]), args.calls)
    shared_sides(gold, 8, max(1, args.calls // 2))


if __name__ == "__main__":
    main()
