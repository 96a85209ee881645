"""Roll-ups and reply diagnostics on hand-made tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from geval_repro.scoring.diagnostics import reply_diagnostics
from geval_repro.scoring.rollups import normalized, rollup


def _items(dimension: str, means: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "summeval",
            "dimension": dimension,
            "doc_id": "d1",
            "system_id": [f"M{i}" for i in range(len(means))],
            "parser": "tolerant",
            "mean": means,
        }
    )


HUMAN = pd.DataFrame(
    {
        "doc_id": "d1",
        "system_id": ["M0", "M1", "M2", "M3"],
        "coherence": [5.0, 3.0, 1.0, 4.0],
        "fluency": [5.0, 3.0, 1.0, 5.0],  # SummEval's 1-5: 3, 2, 1, 3 on G-Eval's 1-3
        "consistency": 5.0,
        "relevance": 5.0,
    }
)


def test_normalized_uses_each_rows_scale() -> None:
    runs = pd.DataFrame(
        {
            "benchmark": ["summeval"] * 4 + ["topical_chat"],
            "dimension": ["coherence"] * 3 + ["fluency", "coherence"],
        }
    )
    got = normalized(pd.Series([1.0, 5.0, 3.0, 2.0, 2.0]), runs)
    assert got.tolist() == [0.0, 1.0, 0.5, 0.5, 0.5]  # Topical-Chat coherence is 1-3


def test_rollup_coherence() -> None:
    # scores 4, 2.5, NaN, 5 on 1-5: normalized 0.75, 0.375, -, 1.0
    got = rollup(_items("coherence", [4.0, 2.5, math.nan, 5.0]), HUMAN).iloc[0]
    assert (got["n_items"], got["n_unscored"]) == (4, 1)
    assert got["mean_normalized"] == pytest.approx((0.75 + 0.375 + 1.0) / 3)
    assert got["pass_rate"] == pytest.approx(2 / 3)  # 4 counts (>= 0.75), 2.5 does not
    assert got["mae"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)  # |4-5|, |2.5-3|, |5-4|
    assert got["n_gold"] == 3


def test_rollup_fluency_threshold() -> None:
    # fluency 1-3: 2.5 normalizes to 0.75 and passes the default threshold; 2.4 does not;
    # gold 5, 3, 1, 5 on 1-5 maps to 3, 2, 1, 3 on 1-3
    got = rollup(_items("fluency", [2.5, 2.4, 3.0, 1.0]), HUMAN).iloc[0]
    assert got["pass_rate"] == pytest.approx(2 / 4)
    assert got["mae"] == pytest.approx((0.5 + 0.4 + 2.0 + 2.0) / 4)
    strict = rollup(_items("fluency", [2.5, 2.4, 3.0, 1.0]), HUMAN, threshold=1.0).iloc[0]
    assert strict["pass_rate"] == pytest.approx(1 / 4)


def test_rollup_maps_each_benchmarks_human_scale() -> None:
    # Topical-Chat naturalness: human and judge scale both 1-3, so no mapping;
    # QAGS consistency: human 0-1 onto the judge's 1-5 (g -> 1 + 4 g).
    topical = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "topical_chat",
            "dimension": "naturalness",
            "item_id": [0, 1],
            "parser": "tolerant",
            "mean": [3.0, 1.5],
        }
    )
    human = pd.DataFrame({"item_id": [0, 1], "naturalness": [2.0, 1.0]})
    got = rollup(topical, human).iloc[0]
    assert got["mae"] == pytest.approx((1.0 + 0.5) / 2)
    assert got["mean_normalized"] == pytest.approx((1.0 + 0.25) / 2)
    qags = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "qags_xsum",
            "dimension": "consistency",
            "item_id": [0, 1],
            "parser": "tolerant",
            "mean": [5.0, 2.0],
        }
    )
    human = pd.DataFrame({"item_id": [0, 1], "consistency": [1.0, 0.0]})
    got = rollup(qags, human).iloc[0]
    assert got["mae"] == pytest.approx((0.0 + 1.0) / 2)  # |5 - 5|, |2 - 1|


def test_diagnostics_counts() -> None:
    replies = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "summeval",
            "dimension": "coherence",
            "doc_id": ["d1"] * 6 + ["d2"] * 3,
            "system_id": ["M1"] * 3 + ["M2"] * 3 + ["M1"] * 3,
            "reply_index": [0, 1, 2] * 3,
            # M1: 4, 4, unread; M2: 3, 3, 3; d2/M1: nothing readable by either parser
            "reply": ["4", "4", "N/A", "3", " 3", "\n3", "x", "", "9 "],
        }
    )
    got = reply_diagnostics(replies).set_index("parser")
    orig = got.loc["original"]
    # original: unread "N/A", "\n3", "x", ""  ("9 " is read as 9)
    assert (orig["n_items"], orig["n_replies"], orig["n_unread"]) == (3, 9, 4)
    # counted values: d1/M1 4,4,0 varies; d1/M2 3,3,0 varies; d2/M1 0,0,9 varies
    assert orig["share_items_varying"] == pytest.approx(1.0)
    assert (orig["n_items_no_parsed"], orig["n_items_unscored"]) == (0, 0)
    tol = got.loc["tolerant"]
    # tolerant: unread "N/A", "x", "", "9 " (out of scale)
    assert tol["n_unread"] == 4
    assert tol["share_unread"] == pytest.approx(4 / 9)
    # scored items d1/M1 (4, 4) and d1/M2 (3, 3, 3): none varies
    assert tol["share_items_varying"] == pytest.approx(0.0)
    assert (tol["n_items_no_parsed"], tol["n_items_unscored"]) == (1, 1)
