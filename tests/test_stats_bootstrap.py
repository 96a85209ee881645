"""Bootstrap CIs: determinism, coverage of the estimate, and nlpstats as the reference.

nlpstats (Deutsch et al.'s implementation) draws its resamples with ``np.random.choice`` on
numpy's global RandomState. Seeding that state and replaying the same draws from a
``RandomState`` with the same seed gives the exact indices nlpstats uses, so our batched
evaluation of those indices must reproduce its bootstrap distribution to 1e-12. A second
test compares the two through their own random draws, statistically.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from nlpstats.correlations import bootstrap as nlpstats_bootstrap
from scipy import stats

from geval_repro.stats.bootstrap import bootstrap_ci, resampled_correlations
from geval_repro.stats.levels import correlate

NLPSTATS_LEVEL = {"summary": "input", "system": "system", "global": "global"}


def tied_matrices(seed: int, n_systems: int = 8, n_inputs: int = 25):
    """Heavily tied integer scores (human: sums of three 1-5 ratings; metric: noisy copy).

    Integers keep every system mean exact whatever the summation order: with fractional
    scores (thirds), mathematically tied system means can differ by rounding error and
    nlpstats ranks them by that error, while our levels treat them as ties (see
    test_stats_levels.py::test_system_level_ties_follow_exact_arithmetic).
    """
    rng = np.random.default_rng(seed)
    human = rng.integers(3, 16, size=(n_systems, n_inputs)).astype(float)
    metric = np.round(human + rng.normal(0, 3.5, human.shape))
    return metric, human


def nlpstats_indices(seed: int, unit: str, n_resamples: int, n_systems: int, n_inputs: int):
    """The rows/columns nlpstats draws after ``np.random.seed(seed)``, in its order."""
    state = np.random.RandomState(seed)
    rows, columns = [], []
    for _ in range(n_resamples):
        if unit in ("systems", "both"):
            rows.append(state.choice(n_systems, n_systems, replace=True))
        if unit in ("inputs", "both"):
            columns.append(state.choice(n_inputs, n_inputs, replace=True))
    return (np.array(rows) if rows else None), (np.array(columns) if columns else None)


def run_nlpstats(metric, human, level, coefficient, unit, n_resamples, seed):
    """nlpstats' bootstrap (it draws from numpy's legacy global state)."""
    np.random.seed(seed)  # noqa: NPY002 - nlpstats only reads the legacy global state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's constant-input warnings in resamples
        return nlpstats_bootstrap(
            metric,
            human,
            NLPSTATS_LEVEL[level],
            coefficient,
            unit,
            confidence_level=0.95,
            n_resamples=n_resamples,
        )


@pytest.mark.parametrize(
    ("level", "unit", "coefficient"),
    [
        ("summary", "inputs", "kendall"),
        ("summary", "systems", "spearman"),
        ("summary", "both", "pearson"),
        ("system", "inputs", "kendall"),
        ("system", "both", "spearman"),
        ("global", "inputs", "pearson"),
    ],
)
@pytest.mark.slow
def test_same_resamples_give_nlpstats_distribution(level: str, unit: str, coefficient: str):
    metric, human = tied_matrices(1)
    rows, columns = nlpstats_indices(99, unit, 150, *metric.shape)
    ours = resampled_correlations(
        metric, human, level, coefficient, system_indices=rows, input_indices=columns
    )
    theirs = run_nlpstats(metric, human, level, coefficient, unit, 150, 99)
    np.testing.assert_allclose(ours[~np.isnan(ours)], theirs.samples, rtol=0, atol=1e-12)


def test_item_resampling_is_nlpstats_global_on_a_single_row() -> None:
    """With one system, resampling inputs of the global level is resampling items."""
    metric, human = tied_matrices(2, n_systems=1, n_inputs=60)
    _, columns = nlpstats_indices(5, "inputs", 100, 1, 60)
    ours = resampled_correlations(metric, human, "global", "kendall", item_indices=columns)
    theirs = run_nlpstats(metric, human, "global", "kendall", "inputs", 100, 5)
    np.testing.assert_allclose(ours, theirs.samples, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_intervals_agree_with_nlpstats_statistically() -> None:
    """Independent random draws, 1,000 resamples each.

    Monte Carlo error of a 2.5% / 97.5% percentile with R resamples is about
    2.7 sd / sqrt(R) (the normal quantile density at 1.96 is 0.058), i.e. 0.085 sd for R =
    1,000; a difference of two independent estimates has sd 0.12 sd. We allow 0.5 sd
    (about 4 standard errors) for the bounds, 0.15 sd for the means (sd of the difference
    0.045 sd) and 15% for the standard deviations.
    """
    metric, human = tied_matrices(3)
    ours = bootstrap_ci(metric, human, "summary", "pearson", n_resamples=1000, seed=17)
    theirs = run_nlpstats(metric, human, "summary", "pearson", "inputs", 1000, 17)
    sd = np.std(theirs.samples)
    assert abs(ours.low - theirs.lower) < 0.5 * sd
    assert abs(ours.high - theirs.upper) < 0.5 * sd
    assert abs(ours.distribution.mean() - np.mean(theirs.samples)) < 0.15 * sd
    assert ours.distribution.std() == pytest.approx(sd, rel=0.15)


def test_deterministic_from_seed() -> None:
    metric, human = tied_matrices(4)
    first = bootstrap_ci(metric, human, "summary", "spearman", n_resamples=300, seed=8)
    second = bootstrap_ci(metric, human, "summary", "spearman", n_resamples=300, seed=8)
    other = bootstrap_ci(metric, human, "summary", "spearman", n_resamples=300, seed=9)
    np.testing.assert_array_equal(first.distribution, second.distribution)
    assert (first.low, first.high) == (second.low, second.high)
    assert not np.array_equal(first.distribution, other.distribution)


@pytest.mark.parametrize(
    ("level", "unit"),
    [("summary", None), ("summary", "both"), ("system", None), ("global", None)],
)
def test_interval_contains_the_estimate(level: str, unit: str | None) -> None:
    metric, human = tied_matrices(6, n_systems=12, n_inputs=60)
    for coefficient in ("pearson", "spearman", "kendall"):
        point = correlate(metric, human, level, coefficient).value
        result = bootstrap_ci(metric, human, level, coefficient, unit=unit, n_resamples=500, seed=1)
        assert result.low < point < result.high
        assert result.n_resamples == 500
        assert result.n_invalid + result.distribution.size == 500


def test_default_units() -> None:
    metric, human = tied_matrices(7)
    assert bootstrap_ci(metric, human, "summary", "pearson", n_resamples=5, seed=0).unit == "inputs"
    assert bootstrap_ci(metric, human, "global", "pearson", n_resamples=5, seed=0).unit == "items"


def test_item_resampling_uses_complete_cells_only() -> None:
    metric, human = tied_matrices(8)
    metric[0, :5] = np.nan
    result = bootstrap_ci(metric, human, "global", "pearson", n_resamples=50, seed=0)
    assert not np.isnan(result.distribution).any()


def test_bad_arguments_raise() -> None:
    metric, human = tied_matrices(9)
    with pytest.raises(ValueError, match="only to the global level"):
        bootstrap_ci(metric, human, "summary", "pearson", unit="items", seed=0)
    with pytest.raises(ValueError, match="unknown resampling unit"):
        bootstrap_ci(metric, human, "summary", "pearson", unit="documents", seed=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci(metric, human, "summary", "pearson", confidence=95, seed=0)
    with pytest.raises(ValueError, match="constant"):
        bootstrap_ci(np.ones((3, 4)), human[:3, :4], "summary", "pearson", seed=0)


def _messy_matrices(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random (systems, inputs) scores with missing cells, constant inputs and ties."""
    rng = np.random.default_rng(seed)
    n_systems, n_inputs = int(rng.integers(3, 17)), int(rng.integers(5, 40))
    human = rng.integers(3, 16, (n_systems, n_inputs)) / 3.0
    metric = np.round(human + rng.normal(0, 1, human.shape), 1)
    metric[rng.random(metric.shape) < 0.15] = np.nan
    human[rng.random(human.shape) < 0.05] = np.nan
    human[:, 0] = 2.0  # constant human input: skipped
    metric[:, 1] = 4.0  # constant metric input: skipped
    return metric, human


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_document_reweighting_equals_recomputing_each_resample(coefficient, seed) -> None:
    """Summary level over inputs: weighting each input's correlation by its count in the
    resample equals recomputing the resampled matrix (a plain loop over resamples)."""
    metric, human = _messy_matrices(seed)
    columns = np.random.default_rng(seed + 100).integers(0, metric.shape[1], (200, metric.shape[1]))
    fast = resampled_correlations(metric, human, "summary", coefficient, input_indices=columns)
    loop = np.array(
        [correlate(metric[:, c], human[:, c], "summary", coefficient).value for c in columns]
    )
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(loop))
    np.testing.assert_allclose(fast, loop, rtol=0, atol=1e-12)
    result = bootstrap_ci(metric, human, "summary", coefficient, n_resamples=300, seed=seed)
    drawn = np.random.default_rng(seed).integers(0, metric.shape[1], (300, metric.shape[1]))
    expected = np.array(
        [correlate(metric[:, c], human[:, c], "summary", coefficient).value for c in drawn]
    )
    expected = expected[~np.isnan(expected)]
    low, high = np.percentile(expected, [2.5, 97.5])
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)


def _pooled_items(seed: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(1, n) item rows: tied 1-5 human ratings against metric scores of a given kind."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    human = rng.integers(1, 6, (1, n)) / 3.0
    metric = {
        "continuous": rng.random((1, n)),
        "tied": np.round(rng.random((1, n)), 1),
        "tiny": rng.random((1, n)) * 1e-6,  # sentence-BLEU-like scale: order must survive
        # 0.1 + 0.2 and 0.3 differ by one ulp: near-ties to merge in every resample
        "near_ties": rng.choice([0.1 + 0.2, 0.3, 0.5, 0.7], (1, n)),
        # a chain of near-ties whose ends are not near: a resample without the middle value
        # splits the group (the recomputing path)
        "near_tie_chain": rng.choice([1.0, 1.0 + 0.6e-9, 1.0 + 1.2e-9, 2.0, 3.0], (1, n)),
    }[kind]
    metric[rng.random(metric.shape) < 0.1] = np.nan
    return metric, human


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("kind", ["continuous", "tied", "tiny", "near_ties", "near_tie_chain"])
@pytest.mark.parametrize("seed", [0, 1])
def test_item_resampling_equals_recomputing_each_resample(coefficient, kind, seed) -> None:
    """Global level over items: ranking resamples from value codes gives, bit for bit, what
    recomputing each resampled item row gives (a plain loop), NaN where it is constant."""
    metric, human = _pooled_items(seed, kind)
    complete = ~(np.isnan(metric) | np.isnan(human))
    m, h = metric[complete], human[complete]
    rng = np.random.default_rng(seed + 7)
    items = rng.integers(0, m.size, (300, m.size))
    items[:3] = items[:3, :1]  # resamples of one repeated item: constant, undefined
    fast = resampled_correlations(metric, human, "global", coefficient, item_indices=items)
    loop = np.array(
        [correlate(m[i][None, :], h[i][None, :], "global", coefficient).value for i in items]
    )
    assert np.isnan(fast[:3]).all()
    np.testing.assert_array_equal(fast, loop)  # exact, NaN in the same places
    # Independent check of a few resamples with scipy (no near-ties to merge there).
    if not kind.startswith("near_tie"):
        reference = {"spearman": stats.spearmanr, "kendall": stats.kendalltau}[coefficient]
        for row, value in zip(items[3:8], fast[3:8], strict=True):
            assert value == pytest.approx(reference(m[row], h[row])[0], abs=1e-12)
