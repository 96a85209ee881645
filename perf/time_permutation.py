"""Time the paired permutation test per test (issue 27, target 1): previous implementation,
ours, and nlpstats, on real-sized inputs, 1,000 resamples.

Not a test: run ``python perf/time_permutation.py`` (``--calls`` per timing, ``--dimension``
of Topical-Chat, ``--skip-nlpstats``). It needs the offline mirror (``GEVAL_REPRO_MIRROR`` or
``../shared/mirror``) and the git history (the previous implementation is read with ``git
show``).

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

Timed, per test (``paired_permutation_test`` with 1,000 resamples, seed 0): (a) the previous
implementation, commit :data:`PREVIOUS` (it recomputed every swapped matrix), (b) ours, (c)
``nlpstats.correlations.permutation_test`` on the same matrices with 1,000 resamples
(permutation method "inputs": at the global level the one row's columns are the items). CPU
seconds of this process (``time.process_time``, BLAS threads included), the best of
``--calls`` calls for (a) and (b) and one call for (c); the machine is shared, so the ratios
are the numbers to read. The distributions of (a) and (b) are asserted identical (bit for bit
for Spearman and Kendall, 1e-12 for Pearson) and their p-values equal. nlpstats draws its own
permutations (``np.random``, not our seeded generator), so its p-value agrees with ours only
statistically (and it reports k / n, ours (1 + k) / (1 + n)); for BLEU-4 with Spearman and
Kendall not even that: nlpstats ranks the standardized scores by exact equality, this package
merges their near-ties (BLEU-4's Spearman with engagingness: 0.316 on the raw scores and for
scipy on the standardized ones, 0.359 after the merge), a property of the test as it was,
kept unchanged here. The floor line is the cost of
drawing the swap masks alone (``default_rng(seed).random(...) < 0.5``), which the test keeps.
nlpstats at the summary level takes about two minutes per test (``--skip-nlpstats``).
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
from geval_repro.stats.coefficients import COEFFICIENTS
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.permutation import paired_permutation_test

PREVIOUS = "d2e3e70"  # the last commit whose permutation test recomputed every swapped matrix
N_RESAMPLES = 1000
NLPSTATS_LEVEL = {"summary": "input", "global": "global"}
TopicalScores = dict[str, np.ndarray]


def previous_implementation() -> Callable[..., object]:
    """``paired_permutation_test`` of commit :data:`PREVIOUS`, read with ``git show``."""
    source = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", f"{PREVIOUS}:geval_repro/stats/permutation.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("previous_permutation", handle.name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
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


def bench(title, level, human, pairs, previous, calls, nlpstats) -> list[float]:
    """Print one block of timings; return the ratios previous / ours."""
    print(f"\n{title}")
    print(
        f"   {'pair':<32} {'coef.':<8} {'previous':>9} {'ours':>8} {'ratio':>6}"
        f" {'nlpstats':>9} {'ratio':>6}   p previous / ours / nlpstats"
    )
    ratios = []
    for name_a, name_b, a, b in pairs:
        a, b, gold = masked(a, b, human)
        for coefficient in COEFFICIENTS:

            def test(implementation, a=a, b=b, gold=gold, c=coefficient):
                return implementation(a, b, gold, level, c, n_resamples=N_RESAMPLES, seed=0)

            t_old, old = best_cpu(lambda: test(previous), max(1, calls // 2))
            t_new, new = best_cpu(lambda: test(paired_permutation_test), calls)
            if coefficient == "pearson":
                np.testing.assert_allclose(new.distribution, old.distribution, rtol=0, atol=1e-12)
            else:
                np.testing.assert_array_equal(new.distribution, old.distribution)
            assert new.pvalue == old.pvalue and new.statistic == old.statistic
            ratios.append(t_old / t_new)
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
                f"   {name_a + ' vs ' + name_b:<32} {coefficient:<8} {t_old * 1e3:7.1f}ms"
                f" {t_new * 1e3:6.1f}ms {t_old / t_new:6.1f} {theirs}   "
                f"{old.pvalue:.4f} / {new.pvalue:.4f} / {p_theirs}"
            )
    return ratios


def summarize(ratios: list[float], shape: tuple[int, ...], calls: int) -> None:
    """Print the ratios' range and the floor: drawing the swap masks alone (CPU seconds)."""
    floor = best_cpu(lambda: np.random.default_rng(0).random(shape) < 0.5, calls)[0]
    print(f"   drawing the swap masks alone: {floor * 1e3:.1f} ms (the floor of every test)")
    print(f"   ratio previous / ours: min {min(ratios):.1f}, median {np.median(ratios):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=7, help="calls per timing (best kept)")
    parser.add_argument("--dimension", default="engagingness", help="Topical-Chat dimension")
    parser.add_argument("--skip-nlpstats", action="store_true", help="do not time nlpstats")
    args = parser.parse_args()
    mirror = mirror_path()
    previous = previous_implementation()
    print(
        f"Paired permutation test, {N_RESAMPLES} resamples, CPU per test (best of {args.calls}; "
        f"previous = commit {PREVIOUS}, best of {max(1, args.calls // 2)}; nlpstats: 1 call)."
    )
    print(
        "Previous and ours: identical distributions and p-values (asserted). nlpstats draws "
        "its own permutations: its p-values (k/n) agree with ours ((1+k)/(1+n)) only "
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
            title, level, gold_scores, compared, previous, args.calls, not args.skip_nlpstats
        )
        summarize(ratios, (N_RESAMPLES, 1, gold_scores.shape[1]), args.calls)


if __name__ == "__main__":
    main()
