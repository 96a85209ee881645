"""Row-wise coefficients against scipy.stats (an independent reference), with ties and NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from geval_repro.stats import pairs, registry
from geval_repro.stats.coefficients import kendall_rows, pearson_rows, spearman_rows
from geval_repro.stats.ranks import average_ranks
from geval_repro.stats.registry import COEFFICIENTS

SCIPY = {
    "pearson": lambda x, y: stats.pearsonr(x, y).statistic,
    "spearman": lambda x, y: stats.spearmanr(x, y).statistic,
    "kendall": lambda x, y: stats.kendalltau(x, y, variant="b").statistic,
}
OURS = {"pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows}


def scipy_rows(coefficient: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """scipy on each row's complete pairs; NaN where scipy returns NaN or refuses (n < 2)."""
    flat_x, flat_y = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
    out = np.empty(flat_x.shape[0])
    for i, (a, b) in enumerate(zip(flat_x, flat_y, strict=True)):
        keep = ~(np.isnan(a) | np.isnan(b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out[i] = SCIPY[coefficient](a[keep], b[keep])
            except ValueError:  # scipy's pearsonr refuses fewer than 2 pairs
                out[i] = np.nan
    return out.reshape(x.shape[:-1])


def random_case(rng: np.random.Generator, n: int, batch: tuple[int, ...], missing: bool):
    """Scores with heavy ties (few levels, thirds like averaged ratings), optional noise/NaN."""
    shape = (*batch, n)
    x = rng.integers(0, int(rng.integers(1, 6)), shape) / 3.0
    y = rng.integers(1, int(rng.integers(2, 9)), shape).astype(float)
    if rng.random() < 0.4:
        x = x + rng.normal(size=shape)  # untied
    if missing:
        x[rng.random(shape) < 0.15] = np.nan
        y[rng.random(shape) < 0.1] = np.nan
    return x, y


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
@pytest.mark.parametrize("missing", [False, True])
def test_equals_scipy_on_random_tied_rows(coefficient: str, missing: bool) -> None:
    rng = np.random.default_rng(20230 + COEFFICIENTS.index(coefficient) + 10 * missing)
    for _ in range(150):
        n = int(rng.integers(2, 30))
        batch = tuple(int(b) for b in rng.integers(1, 4, size=int(rng.integers(1, 3))))
        x, y = random_case(rng, n, batch, missing)
        assert_same(OURS[coefficient](x, y), scipy_rows(coefficient, x, y))


@pytest.mark.parametrize("missing", [False, True])
def test_kendall_long_rows_equal_scipy(missing: bool) -> None:
    """Rows of >= 64 items take the contingency-table path when values are heavily tied."""
    rng = np.random.default_rng(7 + missing)
    for n in (64, 65, 130, 361):
        # few distinct x values, many, and all-distinct x and y (too many cells: offset path)
        for levels_x, continuous_y in ((3, False), (40, False), (n, True)):
            x = rng.integers(0, levels_x, (3, n)).astype(float)
            y = rng.normal(size=(3, n)) if continuous_y else rng.integers(1, 6, (3, n)) / 3.0
            if missing:
                x[rng.random(x.shape) < 0.1] = np.nan
            assert_same(kendall_rows(x, y), scipy_rows("kendall", x, y))


def test_kendall_tables_in_small_blocks_equal_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many tied rows through the contingency tables in batches of 7 rows (40 = 5 x 7 + 5;
    31 x 6 cells per row: 30 values and the rank the missing cells share, 5 levels and that
    rank): the values of one batch, and scipy's on each row."""
    rng = np.random.default_rng(17)
    x = rng.integers(0, 30, (40, 130)).astype(float)
    y = rng.integers(1, 6, (40, 130)) / 3.0
    x[rng.random(x.shape) < 0.1] = np.nan
    whole = kendall_rows(x, y)
    monkeypatch.setattr(pairs, "TABLE_CELLS_PER_BLOCK", 7 * 31 * 6)
    blocked = kendall_rows(x, y)
    np.testing.assert_array_equal(blocked, whole)
    assert_same(blocked, scipy_rows("kendall", x, y))


def test_untied_continuous_rows() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(2, 5, 40))
    for coefficient in COEFFICIENTS:
        assert_same(OURS[coefficient](x, y), scipy_rows(coefficient, x, y))


def test_constant_or_short_rows_are_nan() -> None:
    x = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0], [1.0, np.nan, np.nan], [1.0, 2.0, 2.0]])
    y = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0], [1.0, 2.0, 3.0], [3.0, 1.0, 1.0]])
    for coefficient in COEFFICIENTS:
        got = OURS[coefficient](x, y)
        assert np.isnan(got[:3]).all()
        assert got[3] == pytest.approx(-1.0, abs=1e-12)


def test_average_ranks_match_rankdata() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, 4, size=(6, 11)).astype(float)
    present = rng.random(values.shape) > 0.2
    ranks = average_ranks(values, present)
    for row, keep, got in zip(values, present, ranks, strict=True):
        np.testing.assert_array_equal(got[keep], stats.rankdata(row[keep]))
        assert np.isnan(got[~keep]).all()


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="same shape"):
        pearson_rows(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="inf"):
        spearman_rows(np.array([1.0, np.inf]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="unknown coefficient"):
        registry.coefficient("tau")


def test_near_ties_are_relative_to_the_values_size() -> None:
    from geval_repro.stats.tie_rule import collapse_near_ties

    # A few ulps apart at 3.0 (equal in exact arithmetic): merged into a tie.
    noisy = np.array([[3.0, 3.0 + 4e-16, 1.0]])
    assert collapse_near_ties(noisy, 1e-9).tolist() == [[3.0, 3.0, 1.0]]
    # Tiny but genuinely different scores (sentence BLEU of 1e-17 .. 1e-6): kept apart.
    tiny = np.array([[1e-17, 2e-17, 5e-10, 1e-6]])
    assert collapse_near_ties(tiny, 1e-9).tolist() == tiny.tolist()
