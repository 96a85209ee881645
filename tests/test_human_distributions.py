"""Score counts and tie rates (geval_repro.human.distributions) on hand-computed tables."""

from __future__ import annotations

import pandas as pd
import pytest

from geval_repro.human.distributions import score_counts, tie_rates

TABLE = pd.DataFrame(
    {
        "doc_id": ["a", "a", "a", "b", "b", "b"],
        "system_id": ["s1", "s2", "s3"] * 2,
        # Document a: 1, 1, 2 -> 1 tied pair of 3; document b: 5, 5, 5 -> 3 of 3.
        "x": [1.0, 1.0, 2.0, 5.0, 5.0, 5.0],
    }
)


def test_score_counts() -> None:
    counts = score_counts(TABLE, ["x"])
    assert counts["score"].tolist() == [1.0, 2.0, 5.0]
    assert counts["count"].tolist() == [2, 1, 3]
    assert counts["share"].tolist() == pytest.approx([2 / 6, 1 / 6, 3 / 6])


def test_tie_rates_summary_and_global() -> None:
    summary = tie_rates(TABLE, ["x"], "summary").iloc[0]
    # Within documents: (1 + 3) tied of (3 + 3) pairs.
    assert (summary["n_tied_pairs"], summary["n_pairs"]) == (4, 6)
    assert summary["rate"] == pytest.approx(4 / 6)
    pooled = tie_rates(TABLE, ["x"], "global").iloc[0]
    # All 6 values pooled: C(6, 2) = 15 pairs; ties: (1,1) once, (5,5,5) three times -> 4.
    assert (pooled["n_tied_pairs"], pooled["n_pairs"]) == (4, 15)
