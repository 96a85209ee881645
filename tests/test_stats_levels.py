"""Correlation levels: hand-computed answers, explicit scipy loops, and nlpstats."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from nlpstats.correlations import correlate as nlpstats_correlate
from scipy import stats

from geval_repro.stats.levels import correlate
from geval_repro.stats.registry import COEFFICIENTS

SCIPY = {
    "pearson": lambda x, y: stats.pearsonr(x, y).statistic,
    "spearman": lambda x, y: stats.spearmanr(x, y).statistic,
    "kendall": lambda x, y: stats.kendalltau(x, y).statistic,
}

# 3 systems x 2 inputs, answers worked out by hand below.
METRIC = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
HUMAN = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])


def test_hand_computed_summary_level() -> None:
    # Input 0: (1, 2, 3) vs (1, 2, 3): every coefficient is 1.
    # Input 1: (2, 1, 3) vs (1, 3, 2): centred (0, -1, 1) and (-1, 1, 0), r = -1 / 2; the
    # values are their own ranks, so rho = -1/2; pairs: 1 concordant, 2 discordant, tau = -1/3.
    assert correlate(METRIC, HUMAN, "summary", "pearson").value == pytest.approx(0.25)
    assert correlate(METRIC, HUMAN, "summary", "spearman").value == pytest.approx(0.25)
    result = correlate(METRIC, HUMAN, "summary", "kendall")
    assert result.value == pytest.approx(1 / 3)
    np.testing.assert_allclose(result.per_group, [1.0, -1 / 3])
    assert (result.n_groups, result.n_items) == (2, 6)


def test_hand_computed_system_level() -> None:
    # Means: metric (1.5, 1.5, 3), human (1, 2.5, 2.5). Centred (-.5, -.5, 1) and
    # (-1, .5, .5): r = 0.75 / 1.5 = 0.5. Pairs: one concordant, one tied in x, one tied
    # in y: tau_b = 1 / sqrt(2 * 2) = 0.5. n_groups: the 3 systems correlated.
    assert correlate(METRIC, HUMAN, "system", "pearson").value == pytest.approx(0.5)
    result = correlate(METRIC, HUMAN, "system", "kendall")
    assert result.value == pytest.approx(0.5)
    assert (result.n_groups, result.n_items, result.per_group) == (3, 6, None)


def test_hand_computed_global_level() -> None:
    # Pooled x = (1, 2, 2, 1, 3, 3), y = (1, 1, 2, 3, 3, 2): centred products sum to 1,
    # both sums of squares are 4: r = 1/4.
    result = correlate(METRIC, HUMAN, "global", "pearson")
    assert result.value == pytest.approx(0.25)
    assert (result.n_groups, result.n_items) == (1, 6)


def released_script_summary(metric: np.ndarray, human: np.ndarray, coefficient: str):
    """The released meta_eval_summeval.py loop: per input, skip constant vectors, average."""
    values = []
    for j in range(metric.shape[1]):
        keep = ~(np.isnan(metric[:, j]) | np.isnan(human[:, j]))
        x, y = metric[keep, j], human[keep, j]
        if len(set(x)) <= 1 or len(set(y)) <= 1:
            continue
        values.append(SCIPY[coefficient](x, y))
    return float(np.mean(values)), len(values)


def tied_matrices(rng: np.random.Generator, n_systems: int, n_inputs: int):
    human = rng.integers(3, 16, size=(n_systems, n_inputs)) / 3.0  # means of 3 ratings
    metric = np.round(human + rng.normal(0, 1, human.shape), 1)
    human[:, 0] = 2.0  # a constant human column: skipped
    metric[:, 1] = 4.0  # a constant metric column: skipped
    return metric, human


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_summary_level_equals_released_script_loop(coefficient: str) -> None:
    rng = np.random.default_rng(11)
    metric, human = tied_matrices(rng, 16, 100)
    metric[3, 5] = human[3, 5] = np.nan  # a missing cell
    want, kept = released_script_summary(metric, human, coefficient)
    result = correlate(metric, human, "summary", coefficient)
    assert result.value == pytest.approx(want, abs=1e-12)
    assert result.n_groups == kept == 98
    assert result.n_items == 98 * 16 - 1
    assert np.isnan(result.per_group[:2]).all()


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_levels_equal_nlpstats(coefficient: str) -> None:
    rng = np.random.default_rng(12)
    metric, human = tied_matrices(rng, 16, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on the constant columns nlpstats skips
        for ours, theirs in (("summary", "input"), ("system", "system"), ("global", "global")):
            want = nlpstats_correlate(metric, human, theirs, coefficient)
            got = correlate(metric, human, ours, coefficient).value
            assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_system_and_global_levels_with_missing_cells(coefficient: str) -> None:
    rng = np.random.default_rng(13)
    metric, human = tied_matrices(rng, 8, 30)
    metric[rng.random(metric.shape) < 0.1] = np.nan
    keep = ~(np.isnan(metric) | np.isnan(human))
    pooled = SCIPY[coefficient](metric[keep], human[keep])
    assert correlate(metric, human, "global", coefficient).value == pytest.approx(pooled, abs=1e-12)
    means_x = [metric[s, keep[s]].mean() for s in range(8)]
    means_y = [human[s, keep[s]].mean() for s in range(8)]
    system = SCIPY[coefficient](means_x, means_y)
    result = correlate(metric, human, "system", coefficient)
    assert result.value == pytest.approx(system, abs=1e-12)
    assert result.n_items == int(keep.sum())


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_system_level_ties_follow_exact_arithmetic(coefficient: str) -> None:
    """System means of thirds that are equal in exact arithmetic tie, whatever the rounding.

    The reference computes each mean as an exact fraction, rounds it once to float (equal
    fractions give equal floats) and hands the means to scipy.
    """
    rng = np.random.default_rng(14)
    n_systems, n_inputs = 10, 30
    thirds = rng.integers(3, 16, size=(n_systems, n_inputs))
    tenths = rng.integers(10, 50, size=(n_systems, n_inputs))
    human, metric = thirds / 3.0, tenths / 10.0
    for _ in range(20):
        columns = rng.integers(0, n_inputs, n_inputs)  # a bootstrap-like resample
        exact_human = [float(Fraction(int(t[columns].sum()), 3 * n_inputs)) for t in thirds]
        exact_metric = [float(Fraction(int(t[columns].sum()), 10 * n_inputs)) for t in tenths]
        want = SCIPY[coefficient](exact_metric, exact_human)
        got = correlate(metric[:, columns], human[:, columns], "system", coefficient).value
        assert got == pytest.approx(want, abs=1e-12)


def test_near_constant_vector_is_skipped() -> None:
    """A vector spread over less than 1e-9 is constant (the released script would keep it)."""
    metric = np.array([[1.0, 3.0], [2.0, 3.0 + 1e-12], [3.0, 3.0]])
    human = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    result = correlate(metric, human, "summary", "pearson")
    assert result.n_groups == 1
    assert result.value == pytest.approx(1.0)
    assert np.isnan(correlate(metric[:, [1]], human[:, [1]], "global", "pearson").value)


def test_every_input_skipped_gives_nan() -> None:
    result = correlate(np.ones((4, 3)), np.arange(12.0).reshape(4, 3), "summary", "spearman")
    assert np.isnan(result.value)
    assert (result.n_groups, result.n_items) == (0, 0)


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="differ in shape"):
        correlate(np.zeros((2, 3)), np.zeros((3, 2)), "summary", "pearson")
    with pytest.raises(ValueError, match="unknown level"):
        correlate(METRIC, HUMAN, "input", "pearson")
    with pytest.raises(ValueError, match="n_systems, n_inputs"):
        correlate(np.zeros(3), np.zeros(3), "global", "pearson")


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_pairwise_kernel_per_document_equals_scipy(coefficient: str) -> None:
    """The pairwise-sign kernel of the summary level, document by document, against scipy:
    missing cells, constant documents and values a few ulps apart (which the near-tie rule
    ties) included."""
    rng = np.random.default_rng(5)
    human = rng.integers(3, 16, size=(16, 80)) / 3.0
    metric = np.round(human + rng.normal(0, 1, human.shape), 1)
    metric[:, 2] = np.array([0.1 + 0.2, 0.3] * 8)  # 0.30000000000000004 vs 0.3: tied
    metric[:8, 2] = 0.7
    metric[:, 3] = 0.1 * 3 + rng.integers(0, 3, 16) * (0.1 + 0.2)  # sums along two paths
    metric[rng.random(metric.shape) < 0.1] = np.nan
    human[rng.random(human.shape) < 0.05] = np.nan
    human[:, 0] = 2.0
    result = correlate(metric, human, "summary", coefficient)
    checked = 0
    for j in range(metric.shape[1]):
        keep = ~(np.isnan(metric[:, j]) | np.isnan(human[:, j]))
        x, y = np.round(metric[keep, j], 9), np.round(human[keep, j], 9)  # exact ties for scipy
        if len(set(x)) <= 1 or len(set(y)) <= 1:
            assert np.isnan(result.per_group[j])
            continue
        assert result.per_group[j] == pytest.approx(SCIPY[coefficient](x, y), abs=1e-12)
        checked += 1
    assert checked > 70


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_batch_with_one_human_matrix_equals_each_matrix_alone(coefficient: str) -> None:
    from geval_repro.stats.levels import correlate_batch, summary_batch

    rng = np.random.default_rng(9)
    human = rng.integers(3, 16, size=(10, 30)) / 3.0
    batch = np.round(human + rng.normal(0, 1, (7, 10, 30)), 1)
    batch[rng.random(batch.shape) < 0.1] = np.nan
    together = correlate_batch(batch, human, "summary", coefficient)
    shared = summary_batch(batch, human, ("pearson", "spearman", "kendall"))[coefficient]
    for k, matrix in enumerate(batch):
        alone = correlate(matrix, human, "summary", coefficient)
        assert together.value[k] == alone.value  # bit-identical
        assert shared.value[k] == alone.value
        np.testing.assert_array_equal(together.per_group[k], alone.per_group)
        assert together.n_items[k] == alone.n_items


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("n_items", [30, 200])
def test_global_rank_batch_on_codes_equals_correlate_batch_on_scores(
    masked: bool, n_items: int
) -> None:
    """Integer codes (ranks of the distinct scores, -1 = missing) give exactly what
    ``correlate_batch`` gives on the scores at the global level (pair offsets below 64
    items, contingency tables above), and the tied pairs of ``tie_rate``."""
    from geval_repro.stats.levels import correlate_batch, global_rank_batch
    from geval_repro.stats.ties import tie_rate

    rng = np.random.default_rng(n_items)
    levels = np.unique(np.round(np.arange(0, 61)[None, :] / np.arange(1, 21)[:, None], 12))
    codes = np.searchsorted(levels, np.round(rng.integers(0, 4, (7, 1, n_items)) / 1.0, 12))
    codes = codes + rng.integers(0, 3, codes.shape)  # a few levels more: ties and order
    codes[3] = 5  # constant entry: undefined
    human = np.round(rng.integers(3, 10, (1, n_items)) / 3.0, 12)
    human[0, :2] = np.nextafter(human[0, 2], 9.0)  # near-ties collapse in the human scores
    if masked:
        codes[rng.random(codes.shape) < 0.2] = -1
        codes[5] = -1  # nothing present
    values = np.where(codes >= 0, levels[np.maximum(codes, 0)], np.nan)
    got, ties = global_rank_batch(codes.astype(np.int16), human, ("spearman", "kendall"))
    for coefficient in ("spearman", "kendall"):
        want = correlate_batch(values, np.broadcast_to(human, values.shape), "global", coefficient)
        np.testing.assert_array_equal(got[coefficient].value, want.value)
        np.testing.assert_array_equal(got[coefficient].n_items, want.n_items)
        assert np.isfinite(got[coefficient].value).sum() >= 5
    for entry, matrix in enumerate(values):
        rate = tie_rate(matrix, "global")
        assert (ties.tied[entry], ties.pairs[entry]) == (rate.n_tied_pairs, rate.n_pairs)
