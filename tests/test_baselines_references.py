"""Reference selection per benchmark (geval_repro.baselines.references)."""

from __future__ import annotations

import pandas as pd
import pytest

from geval_repro.baselines.references import summeval_references, topical_chat_references


def test_topical_chat_reference_is_the_ground_truth_of_the_context() -> None:
    table = pd.DataFrame(
        {
            "context_id": [0, 0, 1, 1],
            "system_id": ["Original Ground Truth", "Argmax Decoding"] * 2,
            "response": ["truth zero", "model zero", "truth one", "model one"],
        },
        index=[10, 11, 12, 13],
    )
    references = topical_chat_references(table)
    assert references.to_dict() == {
        10: "truth zero",
        11: "truth zero",
        12: "truth one",
        13: "truth one",
    }


def test_topical_chat_context_without_one_ground_truth_raises() -> None:
    table = pd.DataFrame(
        {
            "context_id": [0, 1],
            "system_id": ["Original Ground Truth", "Argmax Decoding"],
            "response": ["a", "b"],
        }
    )
    with pytest.raises(ValueError, match=r"context\(s\) \[1\]"):
        topical_chat_references(table)


def test_summeval_references_follow_rows_and_ref_index() -> None:
    summaries = pd.DataFrame({"doc_id": ["d2", "d1", "d2"]})
    multiref = pd.DataFrame(
        {
            "doc_id": ["d1", "d1", "d2", "d2"],
            "ref_index": [1, 0, 0, 1],
            "reference": ["d1 r1", "d1 r0", "d2 r0", "d2 r1"],
        }
    )
    assert summeval_references(summaries, multiref) == [
        ["d2 r0", "d2 r1"],
        ["d1 r0", "d1 r1"],
        ["d2 r0", "d2 r1"],
    ]
    with pytest.raises(KeyError, match="have no references"):
        summeval_references(pd.DataFrame({"doc_id": ["d3"]}), multiref)
