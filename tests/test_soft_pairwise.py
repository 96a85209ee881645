"""Soft pairwise accuracy (geval_repro.stats.soft_pairwise) against known answers: the
worked example in the documentation of mt-metrics-eval's pce.py (the reference
implementation; its numbers, not its code), a brute-force loop over pairs and resamples,
and the reference rows (the humans score 1, a constant scores the humans' mean p-value)."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.stats.soft_pairwise import pairwise_pvalues, sign_flips, soft_pairwise_accuracy


def test_pce_documentation_example() -> None:
    # pce.py's docstring: two systems on 5 segments, 10 listed sign vectors; one resample's
    # null delta reaches the observed delta of 3.0, so p = 1/10.
    scores = np.array([[0.8, 0.9, 0.7, 1.0, 0.6], [0.2, 0.3, 0.1, 0.4, 0.0]])
    flips = np.array(
        [
            [1, 1, -1, -1, -1],
            [1, -1, 1, -1, 1],
            [1, -1, 1, 1, -1],
            [-1, 1, -1, -1, 1],
            [1, 1, 1, -1, 1],
            [-1, 1, -1, 1, -1],
            [1, 1, 1, 1, 1],
            [1, -1, 1, -1, 1],
            [1, 1, -1, -1, 1],
            [-1, 1, -1, -1, -1],
        ],
        dtype=float,
    )
    assert pairwise_pvalues(scores, flips)[0, 1] == pytest.approx(0.1)


def _brute_force(metric: np.ndarray, human: np.ndarray, n: int, seed: int) -> float:
    flips = sign_flips(n, metric.shape[1], seed)
    errors = []
    for i in range(metric.shape[0]):
        for j in range(i + 1, metric.shape[0]):
            p = []
            for scores in (human, metric):
                observed = scores[i].sum() - scores[j].sum()
                hits = 0
                for r in range(n):
                    null = sum(
                        flips[r, k] * (scores[i, k] - scores[j, k]) for k in range(len(scores[i]))
                    )
                    hits += null >= observed - 1e-9
                p.append(hits / n)
            errors.append(abs(p[0] - p[1]))
    return 1.0 - sum(errors) / len(errors)


def test_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, size=(5, 12)).astype(float)
    metric = human + rng.normal(0, 1.5, size=human.shape)
    result = soft_pairwise_accuracy(metric, human, n_resamples=200, seed=3)
    assert result.value == pytest.approx(_brute_force(metric, human, 200, 3))
    assert (result.n_systems, result.n_inputs, result.n_pairs) == (5, 12, 10)


def test_reference_rows() -> None:
    rng = np.random.default_rng(1)
    human = rng.uniform(1, 5, size=(6, 30)) + np.arange(6)[:, None] * 0.2
    assert soft_pairwise_accuracy(human, human, 500, 2).value == 1.0
    # a constant metric: every delta 0, every p-value 1 -> SPA = mean of the humans' p
    flips = sign_flips(500, 30, 2)
    p_human = pairwise_pvalues(human, flips)[np.triu_indices(6, 1)]
    constant = soft_pairwise_accuracy(np.full_like(human, 3.0), human, 500, 2)
    assert constant.value == pytest.approx(p_human.mean())
    # an increasing affine map of the humans changes no p-value
    assert soft_pairwise_accuracy(2 * human + 1, human, 500, 2).value == 1.0


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        soft_pairwise_accuracy(np.full((3, 3), np.nan), np.ones((3, 3)), 10, 0)
    with pytest.raises(ValueError, match=">= 3 systems"):
        soft_pairwise_accuracy(np.ones((2, 5)), np.ones((2, 5)), 10, 0)


def test_rows_rank_and_say_the_scale() -> None:
    """spa_rows on a labelled synthetic SummEval-shaped table: the humans score 1, the
    reference rows stay out of the ranking, a transformed run's rows say so."""
    import pandas as pd

    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.tables.paired_tests import Scored
    from geval_repro.tables.soft_pairwise import spa_rows

    summeval = get_benchmark("summeval")
    rng = np.random.default_rng(3)
    tidy = pd.DataFrame(
        [(f"d{d}", f"M{s}") for d in range(8) for s in range(4)], columns=["doc_id", "system_id"]
    )
    for dimension in summeval.human_dimensions:
        tidy[dimension] = rng.integers(1, 6, size=len(tidy)).astype(float)
    scores = tidy[["doc_id", "system_id"]].assign(score=tidy["coherence"] + rng.normal(0, 1, 32))
    judge = Scored("j", "v", "judge", "fixture", {"coherence": scores})
    rows = spa_rows(summeval, tidy, [judge], 100, 1, scales={"j": "rank-normal"})
    coherence = rows[rows["dimension"] == "coherence"].set_index("metric")
    assert coherence.loc["humans", "spa"] == 1.0 and pd.isna(coherence.loc["humans", "position"])
    assert coherence.loc["j", "position"] == 1
    assert (
        "rank-normal" in coherence.loc["j", "note"]
        and "ranked by SPA" in coherence.loc["j", "note"]
    )
