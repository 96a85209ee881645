"""The alternative annotator test (geval_repro.stats.alt_test) against known answers: a
hand-computed example, the optimal-jury result (the mean of all annotators wins against
every one), a random judge losing, scipy's t-test, and Benjamini-Yekutieli against a
hand-computed family and statsmodels' ``fdr_by`` (a test dependency)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from geval_repro.stats.alt_test import (
    alignment_wins,
    alternative_annotator_test,
    isotonic_map,
    one_sided_pvalues,
    split_groups,
)
from geval_repro.stats.multiplicity import benjamini_yekutieli


def test_hand_computed_example() -> None:
    # 4 items, 3 annotators, judge f. Worked by hand, annotator 0 left out:
    # item 0: others (3, 3): MSE(f=3) = 0, MSE(h=2) = 1 -> W^f = 1, W^h = 0
    # item 1: others (4, 5): MSE(f=4) = 0.5, MSE(h=4) = 0.5 -> tie: W^f = W^h = 1
    # item 2: others (1, 1): MSE(f=3) = 4, MSE(h=1) = 0 -> W^f = 0, W^h = 1
    # item 3: others (5, 4): MSE(f=5) = 0.5, MSE(h=2) = 6.5 -> W^f = 1, W^h = 0
    ratings = np.array([[2, 3, 3], [4, 4, 5], [1, 1, 1], [2, 5, 4]], dtype=float)
    judge = np.array([3, 4, 3, 5], dtype=float)
    wins_f, wins_h = alignment_wins(judge, ratings)
    assert wins_f[:, 0].tolist() == [1, 1, 0, 1]
    assert wins_h[:, 0].tolist() == [0, 1, 1, 0]
    # annotator 1 left out: item 0 others (2, 3): MSE(3) = 0.5, MSE(3) = 0.5 -> tie
    # item 1 others (4, 5): tie again (f = h = 4); item 2: W^h; item 3 others (2, 4):
    # MSE(5) = 5, MSE(5) = 5 -> tie
    assert wins_f[:, 1].tolist() == [1, 1, 0, 1]
    assert wins_h[:, 1].tolist() == [1, 1, 1, 1]
    result = alternative_annotator_test(judge, ratings, epsilon=0.2)
    assert result.rho_f[0] == pytest.approx(0.75)
    assert result.rho_h[0] == pytest.approx(0.5)
    # d for annotator 0: (-1, 0, 1, -1): mean -0.25, sd = sqrt(11/12)
    t = (-0.25 - 0.2) / (np.sqrt(11 / 12) / 2)
    assert result.pvalues[0] == pytest.approx(scipy_stats.t.cdf(t, df=3))


def test_pvalues_match_scipy_one_sided_ttest() -> None:
    rng = np.random.default_rng(0)
    d = rng.integers(-1, 2, size=(50, 4)).astype(float)
    expected = [scipy_stats.ttest_1samp(d[:, j], 0.15, alternative="less").pvalue for j in range(4)]
    assert one_sided_pvalues(d, 0.15) == pytest.approx(expected)


def test_flat_differences_take_the_limit() -> None:
    assert one_sided_pvalues(np.zeros((5, 1)), 0.1).tolist() == [0.0]
    assert one_sided_pvalues(np.ones((5, 1)) * 0.5, 0.1).tolist() == [1.0]


def _panel(seed: int, n: int = 300, m: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    quality = rng.integers(1, 6, size=n)
    noise = rng.integers(-1, 2, size=(n, m))
    return np.clip(quality[:, None] + noise, 1, 5).astype(float)


def test_mean_of_all_annotators_wins_against_every_annotator() -> None:
    ratings = _panel(1)
    result = alternative_annotator_test(ratings.mean(axis=1), ratings, epsilon=0.2)
    assert (result.rho_f == 1.0).all()  # never aligns worse than the left-out annotator
    assert result.rejected.all() and result.omega == 1.0 and result.passed


def test_random_judge_loses() -> None:
    ratings = _panel(2)
    judge = np.random.default_rng(3).integers(1, 6, size=ratings.shape[0]).astype(float)
    result = alternative_annotator_test(judge, ratings, epsilon=0.2)
    assert not result.rejected.any() and result.omega == 0.0 and not result.passed


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 3 annotators"):
        alternative_annotator_test(np.zeros(5), np.zeros((5, 2)), 0.2)
    with pytest.raises(ValueError, match=">= 3 items"):
        alternative_annotator_test(np.zeros(2), np.zeros((2, 3)), 0.2)
    with pytest.raises(ValueError, match="NaN"):
        alternative_annotator_test(np.array([1.0, np.nan, 2.0]), np.ones((3, 3)), 0.2)


def test_benjamini_yekutieli_hand_computed() -> None:
    # m = 3, c(3) = 11/6: sorted (0.01, 0.02, 0.04) -> (0.055, 0.055, 0.0733...) after the
    # step-up minimum: 0.01*3*c/1 = 0.055, 0.02*3*c/2 = 0.055, 0.04*3*c/3 = 0.07333
    adjusted = benjamini_yekutieli(np.array([0.04, 0.01, np.nan, 0.02]))
    assert adjusted[[1, 3, 0]] == pytest.approx([0.055, 0.055, 0.04 * 11 / 6])
    assert np.isnan(adjusted[2])


def test_benjamini_yekutieli_matches_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    pvalues = np.random.default_rng(4).uniform(0, 0.2, size=17)
    expected = multipletests(pvalues, alpha=0.05, method="fdr_by")[1]
    assert benjamini_yekutieli(pvalues) == pytest.approx(expected)


def test_isotonic_map_recovers_a_monotone_transform() -> None:
    rng = np.random.default_rng(5)
    target = rng.uniform(1, 5, size=200)
    scores = np.exp(target)  # a strictly increasing transform: the map undoes it
    fit = np.arange(200) < 100
    mapped = isotonic_map(scores, target, fit)
    inside = (scores >= scores[fit].min()) & (scores <= scores[fit].max())
    assert np.abs(mapped[~fit & inside] - target[~fit & inside]).max() < 0.2
    assert np.all(np.diff(mapped[np.argsort(scores)]) >= 0)


def test_split_groups_is_seeded_and_whole_groups() -> None:
    groups = np.repeat(np.arange(10), 4)
    fit = split_groups(groups, seed=7)
    assert (fit == split_groups(groups, seed=7)).all()
    assert fit.sum() == 20
    for g in range(10):
        assert len(set(fit[groups == g])) == 1


def test_epsilon_comes_from_the_registry_and_the_config_overrides_it() -> None:
    from geval_repro.config import ConfigError, Settings, check_config, load_config
    from geval_repro.registry.benchmarks import get_benchmark

    summeval, topical_chat = get_benchmark("summeval"), get_benchmark("topical_chat")
    config = load_config()
    assert Settings.from_config(config).epsilon(summeval) == 0.2  # experts (the paper)
    assert Settings.from_config(config).epsilon(topical_chat) is None  # no annotator table
    config["alt_test"] = {"epsilon": {"summeval": 0.15}}
    check_config(config)
    assert Settings.from_config(config).epsilon(summeval) == 0.15
    config["alt_test"] = {"epsilon": {"topical_chat": 0.1}}
    with pytest.raises(ConfigError, match="topical_chat"):
        check_config(config)
