"""geval_repro.stats.invariance against a brute-force check: apply a strictly increasing,
non-affine map to every score of a metric and see which statistics move."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.stats.accuracy import pairwise_accuracy, tie_calibrated_accuracy
from geval_repro.stats.invariance import order_only
from geval_repro.stats.level import LEVELS, Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.registry import ACCURACIES, COEFFICIENTS


def _value(metric: np.ndarray, human: np.ndarray, level: Level, coefficient: str) -> float:
    if coefficient == "acc_eq":
        return pairwise_accuracy(metric, human, level).value
    if coefficient == "acc_eq_calibrated":
        return tie_calibrated_accuracy(metric, human, level).value
    return correlate(metric, human, level, coefficient).value


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("coefficient", [*COEFFICIENTS, *ACCURACIES])
def test_order_only_statistics_are_exactly_those_a_monotone_map_keeps(
    level: Level, coefficient: str
) -> None:
    rng = np.random.default_rng(11)
    # 8 systems x 30 inputs: 1-5 human ratings (many ties), a judge's means of replies
    # (a few ties of their own), one cell missing
    human = rng.integers(1, 6, size=(8, 30)).astype(float)
    metric = np.round(human + rng.normal(0, 0.8, size=human.shape), 1)
    metric[0, 0] = np.nan
    # strictly increasing, far from affine: what a rank-normal transform does to 1-5 scores
    transformed = np.exp(3 * metric) + metric
    before = _value(metric, human, level, coefficient)
    after = _value(transformed, human, level, coefficient)
    if order_only(level, coefficient):
        assert after == pytest.approx(before, abs=1e-12)
    else:  # a map that keeps the order still moves these (the module docstring says why)
        assert abs(after - before) > 1e-3, (level, coefficient, before, after)
