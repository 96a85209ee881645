"""The summary level's pair-sign kernel (geval_repro.stats.pairwise) is bit-identical to a
straightforward reference: collapse near-ties per document, then scipy-style ranks and
pair counts document by document (the row functions of geval_repro.stats.coefficients)."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.stats.coefficients import collapse_near_ties, kendall_rows, spearman_rows
from geval_repro.stats.levels import NEAR_TIE_RTOL, summary_batch, summary_rank_batch
from geval_repro.stats.pairwise import has_near_ties

ROWS = {"spearman": spearman_rows, "kendall": kendall_rows}


def _reference(metric: np.ndarray, human: np.ndarray, coefficient: str) -> np.ndarray:
    """Per-document values, one document of one batch entry at a time (NaN: undefined)."""
    metric, human = np.broadcast_arrays(metric, human)
    out = np.full(metric.shape[:-2] + metric.shape[-1:], np.nan)
    for index in np.ndindex(*metric.shape[:-2]):
        for doc in range(metric.shape[-1]):
            x = collapse_near_ties(metric[index][:, doc], NEAR_TIE_RTOL)
            y = collapse_near_ties(human[index][:, doc], NEAR_TIE_RTOL)
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
def test_kernel_equals_reference_bit_for_bit(coefficient: str) -> None:
    checked = 0
    for metric, human in _cases():
        got = summary_batch(metric, human, (coefficient,))[coefficient].per_group
        want = _reference(metric, human, coefficient)
        kept = ~np.isnan(got)
        np.testing.assert_array_equal(got[kept], want[kept])  # exact, not approximate
        checked += int(kept.sum())
    assert checked > 150


def test_near_tie_check_finds_close_pairs_only() -> None:
    assert has_near_ties(np.array([[0.1 + 0.2], [0.3], [1.0]]), NEAR_TIE_RTOL)
    assert not has_near_ties(np.array([[0.3], [0.3], [1.0], [np.nan]]), NEAR_TIE_RTOL)
    assert not has_near_ties(np.array([[1e-12], [2e-12]]), NEAR_TIE_RTOL)  # tiny scale: real gap
    assert not has_near_ties(np.full((3, 2), np.nan), NEAR_TIE_RTOL)


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


def test_summary_rank_batch_takes_rank_coefficients_on_short_columns_only() -> None:
    with pytest.raises(ValueError, match="summary_rank_batch"):
        summary_rank_batch(np.zeros((3, 2)), np.zeros((3, 2)), ("pearson",))
    with pytest.raises(ValueError, match="summary_rank_batch"):
        summary_rank_batch(np.zeros((40, 2)), np.zeros((40, 2)), ("kendall",))
