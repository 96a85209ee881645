"""Bootstrap CIs: determinism, coverage of the estimate, and nlpstats as the reference.

nlpstats (Deutsch et al.'s implementation) draws its resamples with ``np.random.choice`` on
numpy's global RandomState. Seeding that state and replaying the same draws from a
``RandomState`` with the same seed gives the exact indices nlpstats uses, so our batched
evaluation of those indices must reproduce its bootstrap distribution to 1e-12. A second
test compares the two through their own random draws, statistically.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from nlpstats.correlations import bootstrap as nlpstats_bootstrap
from scipy import stats

from geval_repro.stats import bootstrap as bootstrap_module
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


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("kind", ["continuous", "tied", "near_ties", "near_tie_chain"])
@pytest.mark.parametrize("unit", ["inputs", "systems", "both"])
def test_global_level_over_inputs_equals_recomputing_each_resample(coefficient, kind, unit):
    """Global level with the inputs (SFRES's dialogue acts: a few utterances per act, most
    cells of the positions x acts matrix empty), systems or both drawn: the coded cells give,
    bit for bit, what recomputing each resampled matrix gives (a plain loop), NaN where a
    resample is constant (one act drawn every time, whose utterances tie)."""
    rng = np.random.default_rng(11)
    n_rows, n_inputs = 6, 40
    metric, human = _pooled_items(3, kind)
    values = np.resize(metric[0], n_rows * n_inputs).reshape(n_rows, n_inputs)
    ratings = np.resize(human[0], n_rows * n_inputs).reshape(n_rows, n_inputs)
    values[rng.random(values.shape) < 0.6] = np.nan  # acts of 1-6 utterances
    values[:, 0] = np.nan
    values[0, 0], values[1, 0] = 0.5, 0.5  # act 0: two utterances, tied on both sides
    ratings[:, 0] = 1.0
    draws = {"inputs": (None, True), "systems": (True, None), "both": (True, True)}[unit]
    rows = rng.integers(0, n_rows, (200, n_rows)) if draws[0] else None
    columns = rng.integers(0, n_inputs, (200, n_inputs)) if draws[1] else None
    if columns is not None:
        columns[:2] = 0  # act 0 only: constant, undefined
    fast = resampled_correlations(
        values, ratings, "global", coefficient, system_indices=rows, input_indices=columns
    )
    loop = recomputed_each(values, ratings, "global", coefficient, rows, columns)
    if columns is not None:
        assert np.isnan(fast[:2]).all()
    assert np.isfinite(fast).sum() > 150
    np.testing.assert_array_equal(fast, loop)  # exact, NaN in the same places


# --- System level: every resample's means from one product, against each resampled matrix ---


def system_draws(
    n_systems: int, n_inputs: int, unit: str, seed: int, n_resamples: int = 150
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Row and column draws of ``unit``, with some resamples that draw one system or one
    input many times (or only: constant means, undefined)."""
    rng = np.random.default_rng(seed)
    rows = columns = None
    if unit in ("systems", "both"):
        rows = rng.integers(0, n_systems, (n_resamples, n_systems))
        rows[0] = 1  # one system only: constant means
        rows[1, : n_systems - 2] = 0  # one system n - 2 times
    if unit in ("inputs", "both"):
        columns = rng.integers(0, n_inputs, (n_resamples, n_inputs))
        columns[2] = 3  # one input n times
        columns[3, : n_inputs // 2] = 4  # one input half the times
    return rows, columns


def recomputed_each(metric, human, level, coefficient, rows, columns) -> np.ndarray:
    """The level correlation of each resampled matrix, one by one."""
    n_resamples = (rows if rows is not None else columns).shape[0]
    all_rows, all_columns = np.arange(metric.shape[0]), np.arange(metric.shape[1])
    values = []
    for r in range(n_resamples):
        picked = np.ix_(
            rows[r] if rows is not None else all_rows,
            columns[r] if columns is not None else all_columns,
        )
        values.append(correlate(metric[picked], human[picked], level, coefficient).value)
    return np.array(values)


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("unit", ["inputs", "systems", "both"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_system_means_equal_recomputing_each_resample(coefficient, unit, seed) -> None:
    """Missing cells, constant inputs, thirds (mathematically equal means that differ in the
    last bits): the same values as recomputing each resampled matrix, NaN in the same
    places."""
    metric, human = _messy_matrices(seed)
    rows, columns = system_draws(*metric.shape, unit, seed + 200)
    fast = resampled_correlations(
        metric, human, "system", coefficient, system_indices=rows, input_indices=columns
    )
    loop = recomputed_each(metric, human, "system", coefficient, rows, columns)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(loop))
    np.testing.assert_allclose(fast, loop, rtol=0, atol=1e-12)
    if unit == "systems":
        assert np.isnan(fast[0])  # one system drawn n times: constant means
    if unit == "inputs":
        result = bootstrap_ci(metric, human, "system", coefficient, n_resamples=300, seed=seed)
        drawn = np.random.default_rng(seed).integers(0, metric.shape[1], (300, metric.shape[1]))
        expected = recomputed_each(metric, human, "system", coefficient, None, drawn)
        assert result.n_invalid == np.isnan(expected).sum()
        expected = expected[~np.isnan(expected)]
        np.testing.assert_allclose(result.distribution, expected, rtol=0, atol=1e-12)
        low, high = np.percentile(expected, [2.5, 97.5])
        assert result.low == pytest.approx(low, abs=1e-12)
        assert result.high == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
def test_system_means_against_scipy_on_exact_means(coefficient) -> None:
    """Each resample's system means as exact fractions (thirds and tenths, some cells
    missing), rounded once to float, handed to scipy: equal fractions give equal floats, so
    the resamples' mathematically tied means must tie (the near-tie collapse), whatever the
    order of the sums."""
    rng = np.random.default_rng(15)
    n_systems, n_inputs = 10, 30
    thirds = rng.integers(3, 16, (n_systems, n_inputs))
    tenths = rng.integers(10, 50, (n_systems, n_inputs))
    missing = rng.random((n_systems, n_inputs)) < 0.1
    human = np.where(missing, np.nan, thirds / 3.0)
    metric = tenths / 10.0
    columns = rng.integers(0, n_inputs, (40, n_inputs))
    columns[0] = 5  # one input n times
    columns[1, :20] = 7
    values = resampled_correlations(metric, human, "system", coefficient, input_indices=columns)
    reference = {"pearson": stats.pearsonr, "spearman": stats.spearmanr}
    reference["kendall"] = stats.kendalltau
    for row, value in zip(columns, values, strict=True):
        present = ~missing[:, row]
        kept = present.any(axis=1)  # systems with a complete cell in the resample
        counts = present[kept].sum(axis=1)
        exact_human = [
            float(Fraction(int(t[row][p].sum()), 3 * int(c)))
            for t, p, c in zip(thirds[kept], present[kept], counts, strict=True)
        ]
        exact_metric = [
            float(Fraction(int(t[row][p].sum()), 10 * int(c)))
            for t, p, c in zip(tenths[kept], present[kept], counts, strict=True)
        ]
        if len(set(exact_human)) == 1 or len(set(exact_metric)) == 1:
            assert np.isnan(value)
            continue
        assert value == pytest.approx(
            reference[coefficient](exact_metric, exact_human)[0], abs=1e-12
        )


def test_system_means_constant_resamples_are_undefined_and_counted() -> None:
    # Inputs 0 and 1: every system has the same metric score; a resample of only those has
    # constant metric means (undefined). With 4 inputs, about 1 resample in 16.
    metric = np.array([[3.0, 2.0, 1.0, 4.0], [3.0, 2.0, 2.0, 5.0], [3.0, 2.0, 4.0, 1.0]])
    human = np.array([[1.0, 2.0, 1.0, 3.0], [2.0, 1.0, 3.0, 3.0], [3.0, 3.0, 2.0, 1.0]])
    for coefficient in ("pearson", "spearman", "kendall"):
        result = bootstrap_ci(metric, human, "system", coefficient, n_resamples=400, seed=2)
        drawn = np.random.default_rng(2).integers(0, 4, (400, 4))
        expected = recomputed_each(metric, human, "system", coefficient, None, drawn)
        only_constant = np.isin(drawn, [0, 1]).all(axis=1)
        assert only_constant.any()
        assert np.isnan(expected[only_constant]).all()
        assert result.n_invalid == np.isnan(expected).sum() >= only_constant.sum()
        np.testing.assert_allclose(
            result.distribution, expected[~np.isnan(expected)], rtol=0, atol=1e-12
        )
    # Means equal in exact arithmetic but not in floating point ((0.1 + 0.2) + 0.3 and
    # (0.3 + 0.2) + 0.1 differ in the last bit): constant (a span below 1e-9), undefined.
    metric = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.2, 0.3, 0.1]])
    human = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 3.0], [3.0, 3.0, 3.0]])
    columns = np.array([[0, 1, 2], [0, 0, 1]])
    means = [sum(row) / 3 for row in metric]
    assert len(set(means)) > 1  # not exactly constant
    for coefficient in ("pearson", "spearman", "kendall"):
        values = resampled_correlations(metric, human, "system", coefficient, input_indices=columns)
        assert np.isnan(values[0]) and not np.isnan(values[1])
        loop = recomputed_each(metric, human, "system", coefficient, None, columns)
        np.testing.assert_allclose(values, loop, rtol=0, atol=1e-12)


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("unit", ["systems", "both"])
def test_recomputed_resamples_in_small_blocks_equal_each_resampled_matrix(
    unit: str, coefficient: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Summary level with systems drawn (each resampled matrix recomputed, in batches of 7
    resamples: 150 = 21 x 7 + 3): the values of one batch and of a loop over the matrices."""
    metric, human = _messy_matrices(4)
    rows, columns = system_draws(*metric.shape, unit, seed=11)
    whole = resampled_correlations(
        metric, human, "summary", coefficient, system_indices=rows, input_indices=columns
    )
    cells = metric.shape[0] * metric.shape[1]
    monkeypatch.setattr(bootstrap_module, "RECOMPUTED_CELLS_PER_BLOCK", 7 * cells)
    blocked = resampled_correlations(
        metric, human, "summary", coefficient, system_indices=rows, input_indices=columns
    )
    np.testing.assert_array_equal(blocked, whole)
    loop = recomputed_each(metric, human, "summary", coefficient, rows, columns)
    np.testing.assert_array_equal(np.isnan(blocked), np.isnan(loop))
    np.testing.assert_allclose(blocked, loop, rtol=0, atol=1e-12)


def test_system_means_in_small_blocks_give_the_same_values(monkeypatch) -> None:
    metric, human = _messy_matrices(3)
    rows, columns = system_draws(*metric.shape, "both", seed=9)
    whole = resampled_correlations(
        metric, human, "system", "spearman", system_indices=rows, input_indices=columns
    )
    monkeypatch.setattr(bootstrap_module, "CELLS_PER_BLOCK", 7 * (metric.shape[1] + 3 * 16))
    blocked = resampled_correlations(
        metric, human, "system", "spearman", system_indices=rows, input_indices=columns
    )
    np.testing.assert_array_equal(blocked, whole)
