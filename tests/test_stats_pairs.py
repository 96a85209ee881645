"""The pair-statistics core (geval_repro.stats.pairs): the five counts against a brute force
written from their definition and against mt-metrics-eval's definitions of its Kendall
variants, both backends (offsets, contingency tables) against each other, the reductions
(tau-b against scipy, acc_eq against its definition), and the summary level's use of them
bit for bit against a per-document reference (merge ties by the rule, then the row
functions)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from geval_repro.stats.coefficients import kendall_rows, spearman_rows
from geval_repro.stats.levels import summary_batch, summary_rank_batch
from geval_repro.stats.pairs import (
    PairCounts,
    pair_counts,
    sign_sums,
    table_counts,
    tables_cheaper,
    tied_pairs,
)
from geval_repro.stats.ranks import dense_ranks
from geval_repro.stats.tie_rule import collapse_near_ties, has_near_ties

ROWS = {"spearman": spearman_rows, "kendall": kendall_rows}


def brute_counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int, int]:
    """(concordant, discordant, tied in x only, in y only, in both) over complete pairs."""
    counts = [0, 0, 0, 0, 0]
    keep = ~(np.isnan(x) | np.isnan(y))
    for (a, b), (c, d) in itertools.combinations(zip(x[keep], y[keep], strict=True), 2):
        sx, sy = np.sign(a - c), np.sign(b - d)
        if sx == 0 and sy == 0:
            counts[4] += 1
        elif sx == 0:
            counts[2] += 1
        elif sy == 0:
            counts[3] += 1
        else:
            counts[0 if sx == sy else 1] += 1
    return tuple(counts)


def mt_metrics_eval_counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int, int]:
    """mt-metrics-eval's ``_MatrixSufficientStatistics`` definition (epsilon 0), written
    from its formulas: pairwise difference matrices, each pair counted twice."""
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    x_diffs, y_diffs = x[None, :] - x[:, None], y[None, :] - y[:, None]
    x_tie, y_tie = x_diffs == 0, y_diffs == 0
    n = x.size
    con = int(((x_diffs > 0) & (y_diffs > 0) | (x_diffs < 0) & (y_diffs < 0)).sum() / 2)
    t_x = int((x_tie & ~y_tie).sum() / 2)
    t_y = int((~x_tie & y_tie).sum() / 2)
    t_xy = int(((x_tie & y_tie).sum() - n) / 2)
    dis = n * (n - 1) // 2 - (con + t_x + t_y + t_xy)
    return con, dis, t_x, t_y, t_xy


def random_rows(rng: np.random.Generator, rows: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    x = rng.integers(0, int(rng.integers(1, 8)), (rows, n)).astype(float)
    y = rng.integers(0, int(rng.integers(1, 5)), (rows, n)) / 3.0
    if rng.random() < 0.3:
        x += rng.normal(size=x.shape)
    x[rng.random(x.shape) < 0.1] = np.nan
    y[rng.random(y.shape) < 0.1] = np.nan
    return x, y


def as_tuples(counts: PairCounts) -> list[tuple[int, ...]]:
    return [tuple(int(c[i]) for c in counts) for i in range(counts.concordant.size)]


@pytest.mark.parametrize("n", [2, 5, 17, 40, 70, 130])
def test_counts_equal_brute_force_and_mt_metrics_eval(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(4):
        x, y = random_rows(rng, 6, n)
        present = ~(np.isnan(x) | np.isnan(y))
        got = as_tuples(pair_counts(x, y, present))
        want = [brute_counts(a, b) for a, b in zip(x, y, strict=True)]
        assert got == want
        assert want == [mt_metrics_eval_counts(a, b) for a, b in zip(x, y, strict=True)]


def test_offsets_and_tables_give_the_same_counts() -> None:
    """Both backends on the same rows (members on axis -2 for the offsets)."""
    rng = np.random.default_rng(3)
    x, y = random_rows(rng, 9, 90)
    present = ~(np.isnan(x) | np.isnan(y))
    tables = table_counts(dense_ranks(x, present), dense_ranks(y, present), present)
    columns = np.ascontiguousarray(x.T), np.ascontiguousarray(y.T)
    offsets = sign_sums(*columns, present.T, counts=True).counts
    assert as_tuples(tables) == as_tuples(offsets)


def test_the_cost_rule() -> None:
    assert not tables_cheaper(40, 4)  # short vectors: offsets
    assert tables_cheaper(300, 5 * 9)  # few distinct values: tables
    assert not tables_cheaper(300, 300 * 200)  # many in both: offsets


def test_reductions_against_scipy_and_the_definitions() -> None:
    rng = np.random.default_rng(8)
    x, y = random_rows(rng, 30, 25)
    present = ~(np.isnan(x) | np.isnan(y))
    counts = pair_counts(x, y, present)
    for a, b, tau, acc, c in zip(
        x, y, counts.tau_b(), counts.accuracy(), as_tuples(counts), strict=True
    ):
        keep = ~(np.isnan(a) | np.isnan(b))
        want = stats.kendalltau(a[keep], b[keep], variant="b").statistic
        np.testing.assert_allclose(tau, want, rtol=0, atol=1e-12)  # NaN where scipy's is
        concordant, _, _, _, both = brute_counts(a, b)
        pairs = sum(c)
        assert acc == pytest.approx((concordant + both) / pairs if pairs else np.nan, nan_ok=True)


def test_tied_pairs_count_runs_of_equal_values() -> None:
    values = np.array([[1.0, 2.0, 1.0, np.nan, 1.0, 2.0], [3.0, np.nan, np.nan, 4.0, 5.0, 6.0]])
    tied, pairs = tied_pairs(values, ~np.isnan(values))
    assert tied.tolist() == [3 + 1, 0] and pairs.tolist() == [10, 6]


# --- the summary level's offsets, bit for bit against a per-document reference ---


def _reference(metric: np.ndarray, human: np.ndarray, coefficient: str) -> np.ndarray:
    """Per-document values, one document of one batch entry at a time (NaN: undefined): the
    complete pairs' ties merged by the tie rule, then the row function."""
    metric, human = np.broadcast_arrays(metric, human)
    out = np.full(metric.shape[:-2] + metric.shape[-1:], np.nan)
    for index in np.ndindex(*metric.shape[:-2]):
        for doc in range(metric.shape[-1]):
            x, y = metric[index][:, doc], human[index][:, doc]
            keep = ~(np.isnan(x) | np.isnan(y))
            if keep.any():
                x, y = collapse_near_ties(x[keep]), collapse_near_ties(y[keep])
                out[(*index, doc)] = ROWS[coefficient](x[None, :], y[None, :])[0]
    return out


def _cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    cases = []
    for trial in range(6):
        n = [2, 3, 16, 16, 23, 32][trial]
        human = np.round(rng.integers(3, 16, size=(n, 9)) / 3.0, 12)
        metric = np.round(human + rng.normal(0, 1, (4, n, 9)), 1)
        metric[..., 0] = 0.0  # constant
        metric[..., 1] = np.where(rng.random((4, n)) < 0.5, -0.0, 0.0)  # signed zeros tie
        metric[..., 2] = 0.1 * 3 + rng.integers(0, 3, (4, n)) * (0.1 + 0.2)  # near-ties
        metric[..., 3] = rng.integers(-2, 3, (4, n)) * 1e-12  # tiny scale keeps its order
        if trial % 2:
            metric[rng.random(metric.shape) < 0.15] = np.nan
            human[rng.random(human.shape) < 0.1] = np.nan
        cases.append((metric, human))
        if trial == 3:
            cases.append((metric, np.broadcast_to(human, metric.shape).copy()))
    return cases


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_summary_offsets_equal_reference_bit_for_bit(coefficient: str) -> None:
    checked = 0
    for metric, human in _cases():
        got = summary_batch(metric, human, (coefficient,))[coefficient].per_group
        want = _reference(metric, human, coefficient)
        kept = ~np.isnan(got)
        np.testing.assert_array_equal(got[kept], want[kept])  # exact, not approximate
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        checked += int(kept.sum())
    assert checked > 150


def test_near_tie_check_finds_close_pairs_only() -> None:
    assert has_near_ties(np.array([[0.1 + 0.2], [0.3], [1.0]]))
    assert not has_near_ties(np.array([[0.3], [0.3], [1.0], [np.nan]]))
    assert not has_near_ties(np.array([[1e-12], [2e-12]]))  # tiny scale: a real gap
    assert not has_near_ties(np.full((3, 2), np.nan))


def test_coded_metric_equals_reference_on_its_values_bit_for_bit() -> None:
    """Integer codes (ranks of the distinct scores, -1 = missing) give the values the
    per-document reference gives on the scores themselves, and tied pairs counted pair by
    pair (complete pairs with equal scores)."""
    rng = np.random.default_rng(5)
    levels = np.unique(np.round(np.arange(1, 101)[None, :] / np.arange(1, 21)[:, None], 12))
    checked = 0
    for n, masked in [(3, False), (16, False), (16, True), (32, True)]:
        human = np.round(rng.integers(3, 16, size=(n, 9)) / 3.0, 12)
        codes = rng.integers(0, 40, (5, n, 9)) * 7 % len(levels)  # few levels: ties
        codes[..., 0] = 3  # constant
        if masked:
            codes[rng.random(codes.shape) < 0.2] = -1
            human[rng.random(human.shape) < 0.1] = np.nan
        values = np.where(codes >= 0, levels[codes], np.nan)
        results, ties = summary_rank_batch(codes.astype(np.int16), human, ("spearman", "kendall"))
        for coefficient in ("spearman", "kendall"):
            got = results[coefficient].per_group
            want = _reference(values, human, coefficient)
            kept = ~np.isnan(got)
            np.testing.assert_array_equal(got[kept], want[kept])
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want) | ~kept)
            checked += int(kept.sum())
        for entry in range(codes.shape[0]):
            tied = pairs = 0
            for doc in range(9):
                x, y = values[entry, :, doc], human[:, doc]
                for i in range(n):
                    for j in range(i + 1, n):
                        if not np.isnan([x[i], x[j], y[i], y[j]]).any():
                            pairs += 1
                            tied += int(x[i] == x[j])
            assert (ties.tied[entry], ties.pairs[entry]) == (tied, pairs)
    assert checked > 100


def test_summary_rank_batch_takes_signs_paths_on_short_columns_only() -> None:
    with pytest.raises(ValueError, match="signs"):
        summary_rank_batch(np.zeros((3, 2)), np.zeros((3, 2)), ("pearson",))
    with pytest.raises(ValueError, match="summary_rank_batch"):
        summary_rank_batch(np.zeros((40, 2)), np.zeros((40, 2)), ("kendall",))
    with pytest.raises(ValueError, match="unknown coefficient"):
        summary_rank_batch(np.zeros((3, 2)), np.zeros((3, 2)), ("tau",))
