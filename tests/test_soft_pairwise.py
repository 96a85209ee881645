"""Soft pairwise accuracy (geval_repro.stats.soft_pairwise) against known answers: the
worked example in the documentation of mt-metrics-eval's pce.py (the reference
implementation; its numbers, not its code), a brute-force loop over pairs and resamples,
and the reference rows (the humans score 1, a constant scores the humans' mean p-value)."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.stats.bootstrap import shifted_pvalue
from geval_repro.stats.soft_pairwise import (
    FLIP_BLOCK,
    input_draws,
    pairwise_pvalues,
    resampled_spa,
    sign_flips,
    soft_pairwise_accuracy,
)


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
    rows = spa_rows(summeval, tidy, [judge], 100, 1, 50, scales={"j": "rank-normal"}).rows
    coherence = rows[rows["dimension"] == "coherence"].set_index("metric")
    assert coherence.loc["humans", "spa"] == 1.0 and pd.isna(coherence.loc["humans", "position"])
    assert coherence.loc["j", "position"] == 1
    assert (
        "rank-normal" in coherence.loc["j", "note"]
        and "ranked by SPA" in coherence.loc["j", "note"]
    )


def test_pvalues_over_several_flip_blocks_match_all_at_once() -> None:
    # more sign flips than one block holds, not a multiple of it: the counts of every block
    # add up to those of the (R, S, S) comparison made in one piece
    rng = np.random.default_rng(5)
    scores = rng.integers(1, 6, size=(6, 20)).astype(float)
    flips = sign_flips(2 * FLIP_BLOCK + 101, 20, 4)
    signed = flips @ scores.T
    sums = scores.sum(axis=1)
    whole = (
        signed[:, :, None] - signed[:, None, :] >= sums[:, None] - sums[None, :] - 1e-9 * 600
    ).mean(axis=0)
    upper = np.triu_indices(6, 1)
    np.testing.assert_array_equal(pairwise_pvalues(scores, flips)[upper], whole[upper])


def test_resampled_spa_is_spa_of_each_drawn_matrix() -> None:
    """Each draw's value against the pure-Python brute force on the drawn columns; the
    constant's against a constant metric's."""
    rng = np.random.default_rng(6)
    human = rng.integers(1, 6, size=(3, 5, 12)).mean(axis=0)
    metrics = np.stack([human + rng.normal(0, s, size=human.shape) for s in (0.3, 2.0)])
    draws = input_draws(12, 3, seed=8)
    result = resampled_spa(metrics, human, 150, 3, draws)
    assert result.metrics.shape == (3, 2) and result.constant.shape == (3,)
    for b, drawn in enumerate(draws):
        for m in range(2):
            expected = _brute_force(metrics[m][:, drawn], human[:, drawn], 150, 3)
            assert result.metrics[b, m] == pytest.approx(expected, abs=1e-12)
        constant = _brute_force(np.ones((5, 12)), human[:, drawn], 150, 3)
        assert result.constant[b] == pytest.approx(constant, abs=1e-12)


def test_input_draws_are_seeded_and_apart_from_the_flips() -> None:
    draws = input_draws(40, 7, seed=11)
    assert draws.shape == (7, 40) and draws.min() >= 0 and draws.max() < 40
    np.testing.assert_array_equal(draws, input_draws(40, 7, seed=11))
    same_stream = np.random.default_rng(11).integers(0, 40, size=(7, 40))
    assert not np.array_equal(draws, same_stream)


def test_bootstrap_pvalue_by_hand() -> None:
    # |d* - 0.1| = 0, 0.2, 0.2, 0.1: three reach |0.1| -> (1 + 3) / (4 + 1)
    assert shifted_pvalue(np.array([0.1, 0.3, -0.1, 0.2]), 0.1) == pytest.approx(0.8)
    # none reaches: the floor 1 / (B + 1)
    assert shifted_pvalue(np.array([0.5, 0.55, 0.6]), 0.5) == pytest.approx(0.25)
    assert shifted_pvalue(np.array([0.2, -0.3]), 0.0) == 1.0
    # undefined resamples are dropped: B counts the defined ones
    assert shifted_pvalue(np.array([0.5, np.nan, 0.6]), 0.5) == pytest.approx(1 / 3)


def _clustered_table(n_bootstrap: int):
    import pandas as pd

    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.tables.paired_tests import Scored
    from geval_repro.tables.soft_pairwise import spa_rows

    summeval = get_benchmark("summeval")
    rng = np.random.default_rng(12)
    tidy = pd.DataFrame(
        [(f"d{d}", f"M{s}") for d in range(30) for s in range(6)], columns=["doc_id", "system_id"]
    )
    quality = np.tile(np.arange(6) * 0.6, 30)
    for dimension in summeval.human_dimensions:
        tidy[dimension] = quality + rng.normal(0, 1, len(tidy))
    keys = tidy[["doc_id", "system_id"]]
    good = keys.assign(score=tidy["coherence"] + rng.normal(0, 0.05, len(tidy)))
    twin = keys.assign(score=good["score"] + 1e-3 * rng.normal(size=len(tidy)))
    reversed_ = keys.assign(score=-quality + rng.normal(0, 1, len(tidy)))
    metrics = [
        Scored("good", "v", "judge", "fixture", {"coherence": good}),
        Scored("twin", "v", "judge", "fixture", {"coherence": twin}),
        Scored("reversed", "v", "judge", "fixture", {"coherence": reversed_}),
    ]
    tables = spa_rows(summeval, tidy, metrics, 200, 1, n_bootstrap)
    rows = tables.rows[tables.rows["dimension"] == "coherence"].set_index("metric")
    pairs = tables.pairs[tables.pairs["dimension"] == "coherence"]
    return rows, pairs


def test_rows_cluster_by_the_paired_bootstrap() -> None:
    """A metric that orders the systems as the humans do and its near twin share the top
    cluster; one that reverses them falls below, significantly after Holm."""
    rows, pairs = _clustered_table(400)
    assert rows.loc["good", "cluster"] == rows.loc["twin", "cluster"] == 1
    assert rows.loc["reversed", "cluster"] == 2
    assert len(pairs) == 3 and (pairs["n_bootstrap"] == 400).all()
    versus = pairs[pairs["metric_b"] == "reversed"]
    assert (versus["pvalue_holm"] <= 0.05).all() and (versus["difference"] > 0).all()
    twins = pairs[pairs["metric_b"] != "reversed"]
    assert (twins["pvalue_holm"] > 0.05).all()
    for metric in ("good", "reversed", "constant"):
        low, high = rows.loc[metric, ["spa_low", "spa_high"]]
        assert low <= rows.loc[metric, "spa"] <= high or metric == "constant"
        assert low < high
    assert pd_isna(rows.loc["humans", "cluster"]) and pd_isna(rows.loc["humans", "spa_low"])
    assert "paired bootstrap over 30 documents, 400 resamples" in rows.loc["good", "note"]


def test_too_few_resamples_say_the_clusters_are_unresolved() -> None:
    rows, _ = _clustered_table(20)
    # 3 pairs, 20 resamples: no Holm-adjusted p-value below 3 / 21
    assert "UNRESOLVED" in rows.loc["good", "note"]
    assert "at least 59" in rows.loc["good", "note"]
    assert set(rows["cluster"].dropna()) == {1}


def pd_isna(value: object) -> bool:
    import pandas as pd

    return bool(pd.isna(value))
