"""The sweep's adaptive rows (issue 49, item 3): the stopping rule replayed offline on each
item's replies, against a recomputation written apart from the package (the rule by hand
with ``statistics.stdev``, each item's mean over its first k replies, scipy per document)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from geval_repro.scoring.sweep import sweep
from tests.test_judge_sweep import _released_parse, _scipy_summary, _synthetic, _tolerant_parse


def _used(values: list[float], batch: int, target: float, most: int) -> int:
    for k in [*range(batch, most, batch), most]:
        read = [v for v in values[:k] if not math.isnan(v)]
        if k == most or (len(read) >= 2 and statistics.stdev(read) / len(read) ** 0.5 <= target):
            return k
    raise AssertionError("unreachable")


@pytest.mark.parametrize("coefficient", ["pearson", "kendall"])
def test_adaptive_first_replays_the_rule_in_released_order(coefficient: str) -> None:
    replies, human = _synthetic(17)
    targets = (0.5, 0.3)
    got = sweep(replies, human, seed=1, coefficients=[coefficient], draws=20, se_targets=targets)
    for parser, parse in (("original", _released_parse), ("tolerant", _tolerant_parse)):
        for target in targets:
            kept, used = [], []
            for _, item in replies.groupby(["doc_id", "system_id"], sort=False):
                item = item.sort_values("reply_index")
                k = _used([parse(r) for r in item["reply"]], 4, target, 20)
                kept.append(item.iloc[:k])
                used.append(k)
            expected = _scipy_summary(pd.concat(kept), human, parse, coefficient)
            row = got[
                (got["mode"] == "adaptive_first")
                & (got["parser"] == parser)
                & (got["se_target"] == target)
            ]
            assert len(row) == 1
            assert row["value"].iloc[0] == pytest.approx(expected, abs=1e-12)
            assert row["replies_used"].iloc[0] == pytest.approx(np.mean(used))
            assert row["n"].iloc[0] == 20


def test_adaptive_rows_over_draws_lie_between_the_fixed_n_they_cost() -> None:
    """Each draw replays the rule on a random order: a band, a mean number of replies below
    the maximum, and a smaller target uses more replies."""
    replies, human = _synthetic(3)
    got = sweep(replies, human, seed=2, coefficients=["spearman"], draws=40, parsers=["tolerant"])
    rows = got[got["mode"] == "adaptive"].set_index("se_target").sort_index()
    assert (rows["band_low"] <= rows["value"]).all() and (rows["value"] <= rows["band_high"]).all()
    assert rows["replies_used"].is_monotonic_decreasing  # larger targets stop sooner
    assert (rows["replies_used"] < 20).all() and (rows["replies_used"] >= 4).all()
    fixed = got[got["mode"] == "random"].set_index("n")["replies_used"]
    assert (fixed == fixed.index).all()
