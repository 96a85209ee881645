"""QAGS consistency from the MTurk originals and worker agreement (geval_repro.human)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from geval_repro.human.qags_consistency import (
    compare_with_unieval,
    normalize_text,
    sentence_majority,
    summary_consistency,
    worker_agreement,
)
from geval_repro.load.qags import load_qags, load_qags_mturk
from geval_repro.registry.sources import get_source


def _mturk(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(
        rows,
        columns=["subset", "summary_index", "sentence_index", "sentence", "worker_id", "response"],
    )


def _answers(subset, summary, sentence, text, answers, workers=(1, 2, 3)) -> list[tuple]:
    return [
        (subset, summary, sentence, text, worker, answer)
        for worker, answer in zip(workers, answers, strict=True)
    ]


HAND_MADE = _mturk(
    # Summary 0: sentence 0 yes/yes/no -> consistent; 1 no/no/yes -> not; 2 yes x3 -> yes.
    _answers("cnndm", 0, 0, "Tom went home.", ["yes", "yes", "no"])
    + _answers("cnndm", 0, 1, "He ate, then slept.", ["no", "no", "yes"])
    + _answers("cnndm", 0, 2, "It rained.", ["yes", "yes", "yes"])
    # Summary 1: one sentence no/no/yes -> 0 of 1.
    + _answers("cnndm", 1, 0, "The sun rose.", ["no", "no", "yes"], workers=(4, 2, 3))
)


def test_majority_per_sentence_then_share_of_consistent_sentences() -> None:
    sentences = sentence_majority(HAND_MADE)
    assert sentences["n_yes"].tolist() == [2, 1, 3, 1]
    assert sentences["consistent"].tolist() == [True, False, True, False]
    summaries = summary_consistency(HAND_MADE)
    assert summaries["consistency"].tolist() == pytest.approx([2 / 3, 0.0])
    assert summaries["summary"].tolist() == [
        "Tom went home. He ate, then slept. It rained.",
        "The sun rose.",
    ]


def test_even_split_and_unknown_answers_raise() -> None:
    tied = _mturk(_answers("xsum", 5, 0, "x", ["yes", "no"], workers=(1, 2)))
    with pytest.raises(ValueError, match="summary 5, sentence 0"):
        sentence_majority(tied)
    odd = _mturk(_answers("xsum", 5, 0, "x", ["yes", "maybe", "no"]))
    with pytest.raises(ValueError, match="'maybe'"):
        sentence_majority(odd)


def test_compare_matches_on_normalized_text() -> None:
    unieval = pd.DataFrame(
        {
            "subset": ["cnndm", "cnndm"],
            # UniEval's re-tokenized text ("slept ." for "slept.") and a wrong score.
            "item_id": [0, 1],
            "summary": ["tom went home . he ate , then slept . it rained .", "The sun rose ."],
            "consistency": [2 / 3, 1.0],
        }
    )
    result = compare_with_unieval(summary_consistency(HAND_MADE), unieval)
    assert result["item_id"].tolist() == [0, 1]
    assert result["same_position"].tolist() == [True, True]
    assert result["match"].tolist() == [True, False]
    assert result["abs_diff"].tolist() == pytest.approx([0.0, 1.0])
    assert normalize_text("He ate , then slept .") == "heatethenslept"
    unmatched = compare_with_unieval(summary_consistency(HAND_MADE), unieval.iloc[:1])
    assert unmatched["n_candidates"].tolist() == [1, 0]
    assert unmatched["match"].tolist() == [True, False]


def test_worker_agreement_hand_computed_alpha() -> None:
    # Two workers, four sentences: A = yes yes no no, B = yes no no no.
    # Coincidences: o(no,no) = 4, o(yes,yes) = 2, o(no,yes) = o(yes,no) = 1; n = 8,
    # n_no = 5, n_yes = 3. D_o = 2/8; D_e = 2 * 5 * 3 / (8 * 7) = 30/56.
    # alpha = 1 - (2/8) / (30/56) = 1 - 7/15 = 8/15.
    a = ["yes", "yes", "no", "no"]
    b = ["yes", "no", "no", "no"]
    rows = []
    for sentence in range(4):
        rows += _answers("xsum", sentence, 0, "s", [a[sentence], b[sentence]], workers=(7, 9))
    result = worker_agreement(_mturk(rows)).iloc[0]
    assert result["alpha_nominal"] == pytest.approx(8 / 15)
    assert result["n_sentences"] == 4
    assert result["n_workers"] == 2
    assert result["unanimous_share"] == pytest.approx(3 / 4)
    assert result["yes_share"] == pytest.approx(3 / 8)


@pytest.fixture(scope="module")
def qags_real(mirror_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    mturk, unieval = [], []
    for subset in ("cnndm", "xsum"):
        mturk.append(
            load_qags_mturk(mirror_dir / get_source(f"qags_mturk_{subset}").relpath, subset)
        )
        unieval.append(
            load_qags(
                mirror_dir / get_source(f"qags_{subset}").relpath,
                mirror_dir / get_source(f"unieval_pred_qags_{subset}").relpath,
                subset,
            )
        )
    return pd.concat(mturk, ignore_index=True), pd.concat(unieval, ignore_index=True)


def test_derived_consistency_matches_unieval_item_by_item(qags_real) -> None:
    # Every one of the 235 + 239 MTurk summaries has exactly one UniEval row with the same
    # normalized text, at the same position, and the same consistency score.
    mturk, unieval = qags_real
    comparison = compare_with_unieval(summary_consistency(mturk), unieval)
    assert comparison.groupby("subset").size().to_dict() == {"cnndm": 235, "xsum": 239}
    assert comparison["match"].all()
    assert comparison["same_position"].all()
    assert (comparison["n_candidates"] == 1).all()


def test_real_worker_agreement_table(qags_real) -> None:
    mturk, _ = qags_real
    table = worker_agreement(mturk).set_index("subset")
    assert table.loc["cnndm", "n_sentences"] == 714
    assert table.loc["xsum", "n_sentences"] == 239
    assert table.loc["cnndm", "n_answers"] == 2142
    assert table.loc["xsum", "n_answers"] == 717
    assert table["alpha_nominal"].between(0, 1).all()
