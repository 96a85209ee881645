"""The batched pairwise accuracy kernel against the one-matrix functions it vectorizes
(:func:`pairwise_accuracy`, :func:`tie_calibrated_accuracy`) on random matrices with many
ties, missing metric and human scores, at the summary and global levels."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from geval_repro.stats import accuracy_batch
from geval_repro.stats.accuracy import pairwise_accuracy, tie_calibrated_accuracy
from geval_repro.stats.accuracy_batch import (
    DifferenceCodes,
    HumanPairs,
    coded_accuracies,
    float_accuracies,
)

CASES = [("summary", (6, 5)), ("summary", (16, 12)), ("global", (1, 40)), ("global", (3, 7))]


def _batch(rng: np.random.Generator, shape: tuple[int, int], missing: bool):
    """Values with many near and exact ties (small fractions), codes into them, humans on a
    1/3 grid (many human ties), some scores missing."""
    values = np.unique(np.round(rng.integers(1, 40, 30) / rng.integers(1, 7, 30), 12))
    human = rng.integers(0, 4, shape) / 3
    codes = rng.integers(0, values.size, (9, *shape))
    if missing:
        human[rng.random(shape) < 0.15] = np.nan
        codes[rng.random(codes.shape) < 0.2] = -1
    return values, human, codes


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize(("level", "shape"), CASES)
def test_batch_equals_the_one_matrix_functions(level: str, shape: tuple, missing: bool) -> None:
    rng = np.random.default_rng(hash((level, shape, missing)) % 2**32)
    for _ in range(4):
        values, human, codes = _batch(rng, shape, missing)
        got = coded_accuracies(codes, DifferenceCodes.of(values), HumanPairs.of(human, level))
        for b, matrix_codes in enumerate(codes):
            metric = np.where(matrix_codes >= 0, values[np.maximum(matrix_codes, 0)], np.nan)
            plain = pairwise_accuracy(metric, human, level)
            fitted = tie_calibrated_accuracy(metric, human, level)
            assert got.acc_eq[b] == pytest.approx(plain.value, abs=1e-12, nan_ok=True)
            assert got.calibrated[b] == pytest.approx(fitted.value, abs=1e-12, nan_ok=True)
            assert got.epsilon[b] == fitted.epsilon


def test_float_matrices_are_coded_in_halves_when_a_table_would_be_too_large() -> None:
    rng = np.random.default_rng(5)
    values, human, codes = _batch(rng, (16, 12), missing=True)
    shift = 100.0 * np.arange(len(codes))[:, None, None]  # each matrix its own values
    metric = np.where(codes >= 0, values[np.maximum(codes, 0)] + shift, np.nan)
    pairs = HumanPairs.of(human, "summary")
    whole = float_accuracies(metric, pairs)
    for b, matrix_codes in enumerate(codes):
        alone = coded_accuracies(matrix_codes[None], DifferenceCodes.of(values), pairs)
        for field in range(3):
            assert whole[field][b] == pytest.approx(alone[field][0], abs=1e-12, nan_ok=True)
    with mock.patch.object(accuracy_batch, "MAX_TABLE_VALUES", values.size):  # one matrix fits
        halves = float_accuracies(metric, pairs)
    for field in range(3):
        np.testing.assert_allclose(halves[field], whole[field], rtol=0, atol=1e-12)


def test_a_matrix_without_pairs_is_nan() -> None:
    human = np.array([[1.0, 2.0], [2.0, np.nan]])
    codes = np.array([[[0, 1], [-1, 1]], [[1, 0], [0, 1]]])
    got = coded_accuracies(codes, DifferenceCodes.of([1.0, 2.0]), HumanPairs.of(human, "summary"))
    assert np.isnan(got.acc_eq[0]) and np.isnan(got.calibrated[0]) and got.epsilon[0] == 0
    assert got.acc_eq[1] == 0.0  # one pair (input 0): humans 1 < 2, metric 2 > 1: wrong


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="ascending"):
        DifferenceCodes.of([1.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="level"):
        HumanPairs.of(np.ones((2, 2)), "system")
    pairs = HumanPairs.of(np.ones((2, 3)), "summary")
    with pytest.raises(ValueError, match="match"):
        coded_accuracies(np.zeros((1, 3, 2), dtype=int), DifferenceCodes.of([0.0]), pairs)
    with pytest.raises(ValueError, match="lie in"):
        coded_accuracies(np.full((1, 2, 3), 4), DifferenceCodes.of([0.0, 1.0]), pairs)


@pytest.mark.parametrize("missing", [False, True])
def test_global_level_counts_from_tables_equal_counts_from_pairs(missing: bool) -> None:
    """The global level's two ways of counting (every pair; per-code tables of human levels)
    give identical results, equal to the one-matrix functions."""
    rng = np.random.default_rng(11 + missing)
    values, human, codes = _batch(rng, (2, 60), missing)
    pairs = HumanPairs.of(human, "global")
    assert pairs.human_ranks is not None and pairs.n_human_ranks == 4
    differences = DifferenceCodes.of(values)
    got = {}
    for tables in (True, False):
        with mock.patch.object(accuracy_batch, "tables_cheaper", lambda *args, t=tables: t):
            got[tables] = coded_accuracies(codes, differences, pairs)
    for field in range(3):
        np.testing.assert_array_equal(got[True][field], got[False][field])
    for b, matrix_codes in enumerate(codes):
        metric = np.where(matrix_codes >= 0, values[np.maximum(matrix_codes, 0)], np.nan)
        fitted = tie_calibrated_accuracy(metric, human, "global")
        assert got[True].calibrated[b] == pytest.approx(fitted.value, abs=1e-12)
        assert got[True].epsilon[b] == fitted.epsilon
        plain = pairwise_accuracy(metric, human, "global")
        assert got[True].acc_eq[b] == pytest.approx(plain.value, abs=1e-12)


def test_human_ranks_are_the_tie_rules_groups() -> None:
    levels = HumanPairs.of(np.array([[0.5, 0.1, 0.5 + 1e-12, np.nan, 0.1]]), "global")
    assert levels.human_ranks.tolist() == [1, 0, 1, -1, 0] and levels.n_human_ranks == 2
    tiny = HumanPairs.of(np.array([[0.0, 0.6e-9, 1.2e-9, 5.0]]), "global")  # apart: relative
    assert tiny.human_ranks.tolist() == [0, 1, 2, 3]
    assert HumanPairs.of(np.ones((2, 3)), "summary").human_ranks is None


def test_human_scores_whose_ties_chain_are_refused() -> None:
    """Each within the tolerance of the next, not all: a matrix missing the middle value
    would tie them otherwise than one that has it, which one merging cannot serve."""
    chain = np.array([[1.0, 1.0 + 0.6e-9, 1.0 + 1.2e-9, 5.0]])
    with pytest.raises(ValueError, match="chain"):
        HumanPairs.of(chain, "global")
