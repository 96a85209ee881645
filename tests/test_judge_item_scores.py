"""Per-item aggregation on a hand-made replies table, and the worked logprob examples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from geval_repro.scoring.item_scores import item_scores
from geval_repro.stats.weighted import weighted_score, weighted_scores


def _replies(items: dict[tuple[str, str, str], list[str]]) -> pd.DataFrame:
    rows = [
        {
            "judge": "j",
            "benchmark": "summeval",
            "dimension": dim,
            "doc_id": doc,
            "system_id": system,
            "reply_index": i,
            "reply": reply,
        }
        for (dim, doc, system), replies in items.items()
        for i, reply in enumerate(replies)
    ]
    # shuffled rows: aggregation must follow reply_index, not row order
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)


TABLE = _replies(
    {
        ("coherence", "d1", "M1"): ["4", "3", "4", "N/A"],
        ("coherence", "d1", "M2"): ["x", "3", "5", "3"],
        ("coherence", "d2", "M1"): ["N/A", "-", "", "  2"],
        ("coherence", "d2", "M2"): ["2", "4", "4", "2"],
        ("fluency", "d1", "M1"): ["3", "4", " 2", "2"],
    }
)


def _row(frame: pd.DataFrame, dim: str, doc: str, system: str) -> pd.Series:
    hit = frame[(frame.dimension == dim) & (frame.doc_id == doc) & (frame.system_id == system)]
    assert len(hit) == 1
    return hit.iloc[0]


def test_original_counts_unread_replies_as_zero() -> None:
    got = item_scores(TABLE, "original")
    assert len(got) == 5
    assert set(got["parser"]) == {"original"}
    r = _row(got, "coherence", "d1", "M1")  # 4, 3, 4, 0
    assert (r["mean"], r["first"], r["mode"]) == (2.75, 4.0, 4.0)
    assert (r["n_replies"], r["n_parsed"], r["n_counted"]) == (4, 3, 4)
    r = _row(got, "coherence", "d1", "M2")  # 0, 3, 5, 3
    assert (r["mean"], r["first"], r["mode"]) == (2.75, 0.0, 3.0)
    r = _row(got, "coherence", "d2", "M1")  # all unread ("  2" has two spaces): 0, 0, 0, 0
    assert (r["mean"], r["first"], r["mode"], r["n_parsed"]) == (0.0, 0.0, 0.0, 0)
    r = _row(got, "coherence", "d2", "M2")  # 2, 4, 4, 2: mode tie goes to the smaller
    assert (r["mean"], r["first"], r["mode"]) == (3.0, 2.0, 2.0)
    r = _row(got, "fluency", "d1", "M1")  # 3, 4 (kept by original), 2, 2
    assert (r["mean"], r["first"], r["mode"]) == (2.75, 3.0, 2.0)


def test_tolerant_leaves_unparsed_replies_out() -> None:
    got = item_scores(TABLE, "tolerant")
    r = _row(got, "coherence", "d1", "M1")  # 4, 3, 4
    assert r["mean"] == pytest.approx(11 / 3, abs=1e-12)
    assert (r["first"], r["mode"], r["n_parsed"], r["n_counted"]) == (4.0, 4.0, 3, 3)
    r = _row(got, "coherence", "d1", "M2")  # first reply unparsed -> first is NaN
    assert r["mean"] == pytest.approx(11 / 3, abs=1e-12)
    assert math.isnan(r["first"])
    assert r["mode"] == 3.0
    r = _row(got, "coherence", "d2", "M1")  # only "  2" parses after stripping
    assert (r["mean"], r["first"] != r["first"], r["mode"], r["n_counted"]) == (2.0, True, 2.0, 1)
    r = _row(got, "fluency", "d1", "M1")  # "4" is out of 1-3: 3, 2, 2
    assert r["mean"] == pytest.approx(7 / 3, abs=1e-12)
    assert (r["first"], r["mode"], r["n_parsed"]) == (3.0, 2.0, 3)


def test_repeated_row_labels_are_harmless() -> None:
    halves = [TABLE.iloc[:10].reset_index(drop=True), TABLE.iloc[10:].reset_index(drop=True)]
    doubled_labels = pd.concat(halves)  # row labels 0..9 appear twice
    for parser in ("original", "tolerant"):
        pd.testing.assert_frame_equal(
            item_scores(doubled_labels, parser), item_scores(TABLE, parser)
        )


def test_item_with_no_parsed_reply_has_no_score() -> None:
    table = _replies({("coherence", "d9", "M1"): ["N/A", "x", "9"]})
    got = item_scores(table, "tolerant").iloc[0]
    assert math.isnan(got["mean"]) and math.isnan(got["first"]) and math.isnan(got["mode"])
    assert (got["n_parsed"], got["n_counted"]) == (0, 0)


def test_repeated_reply_index_is_rejected() -> None:
    table = pd.concat([TABLE, TABLE.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="reply_index"):
        item_scores(table, "original")


def test_weighted_score_worked_examples() -> None:
    assert weighted_score({"3": 0.05, "4": 0.60, "5": 0.35}, (1, 5)) == pytest.approx(4.30)
    got = weighted_score({"3": 0.6, "4": 0.3, "2": 0.05, "the": 0.05}, (1, 5))
    assert got == pytest.approx((1.8 + 1.2 + 0.1) / 0.95, abs=1e-12)
    assert round(got, 2) == 3.26
    # integer keys, whitespace tokens, out-of-scale levels dropped, same level summed
    got = weighted_score({3: 0.5, " 3": 0.25, "4": 0.25, "6": 0.4, "4.5": 0.1}, (1, 5))
    assert got == pytest.approx((0.75 * 3 + 0.25 * 4) / 1.0)
    assert math.isnan(weighted_score({"the": 1.0}, (1, 5)))
    with pytest.raises(ValueError, match="finite"):
        weighted_score({"3": -0.1}, (1, 5))


def test_weighted_scores_vectorized() -> None:
    probs = np.array(
        [
            [0.0, 0.0, 0.05, 0.60, 0.35],
            [0.0, 0.05, 0.6, 0.3, 0.0],  # the 0.05 non-score mass is simply not passed
            [0.0, 0.0, 0.0, 0.0, 0.0],
        ]
    )
    got = weighted_scores(probs, [1, 2, 3, 4, 5])
    assert got[0] == pytest.approx(4.30)
    assert got[1] == pytest.approx(3.1 / 0.95, abs=1e-12)
    assert math.isnan(got[2])
    with pytest.raises(ValueError, match="levels"):
        weighted_scores(probs, [1, 2, 3])
