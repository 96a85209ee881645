"""Tests of geval_repro.load.qags: UniEval's QAGS conversion and the MTurk originals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from geval_repro.load import load_qags, load_qags_mturk
from geval_repro.registry.sources import get_source

ITEMS = {"cnndm": 235, "xsum": 239}
MTURK_SENTENCES = {"cnndm": 714, "xsum": 239}


def paths(mirror_dir: Path, subset: str) -> tuple[Path, Path]:
    return (
        mirror_dir / get_source(f"qags_{subset}").relpath,
        mirror_dir / get_source(f"unieval_pred_qags_{subset}").relpath,
    )


@pytest.mark.parametrize("subset", ["cnndm", "xsum"])
def test_qags_row_counts_and_values(mirror_dir: Path, subset: str) -> None:
    data_path, predictions_path = paths(mirror_dir, subset)
    table = load_qags(data_path, predictions_path, subset)
    assert table.shape == (ITEMS[subset], 9)
    assert list(table.columns) == [
        "subset",
        "item_id",
        "doc_id",
        "system_id",
        "source",
        "reference",
        "summary",
        "consistency",
        "unieval_consistency",
    ]
    assert (table["subset"] == subset).all()
    items = json.loads(data_path.read_text(encoding="utf-8"))
    predicted = json.loads(predictions_path.read_text(encoding="utf-8"))
    assert table["summary"].tolist() == [item["system_output"] for item in items]
    assert table["consistency"].tolist() == [item["scores"]["consistency"] for item in items]
    assert table["unieval_consistency"].tolist() == [
        p["predict_scores"]["consistency"] for p in predicted
    ]


@pytest.mark.parametrize("subset", ["cnndm", "xsum"])
def test_mturk_answers_in_long_form(mirror_dir: Path, subset: str) -> None:
    table = load_qags_mturk(mirror_dir / get_source(f"qags_mturk_{subset}").relpath, subset)
    assert list(table.columns) == [
        "subset",
        "summary_index",
        "sentence_index",
        "sentence",
        "worker_id",
        "response",
    ]
    assert table["summary_index"].nunique() == ITEMS[subset]
    assert (
        len(table.drop_duplicates(["summary_index", "sentence_index"])) == MTURK_SENTENCES[subset]
    )
    assert len(table) == 3 * MTURK_SENTENCES[subset]
    assert set(table["response"]) == {"yes", "no"}


@pytest.mark.parametrize("subset", ["cnndm", "xsum"])
def test_unieval_consistency_is_the_majority_vote_of_the_mturk_answers(
    mirror_dir: Path, subset: str
) -> None:
    """Line i of the MTurk file is UniEval's item i: the fraction of a summary's sentences
    that at least 2 of 3 workers judged supported equals UniEval's human consistency."""
    answers = load_qags_mturk(mirror_dir / get_source(f"qags_mturk_{subset}").relpath, subset)
    table = load_qags(*paths(mirror_dir, subset), subset)
    yes = answers.assign(yes=answers["response"] == "yes")
    majority = yes.groupby(["summary_index", "sentence_index"])["yes"].sum() >= 2
    fraction = majority.groupby(level="summary_index").mean()
    np.testing.assert_allclose(
        fraction.loc[table["doc_id"]].to_numpy(), table["consistency"].to_numpy(), atol=1e-12
    )


def test_unknown_subset_and_mismatched_item(mirror_dir: Path, tmp_path: Path) -> None:
    data_path, predictions_path = paths(mirror_dir, "xsum")
    with pytest.raises(ValueError, match="unknown QAGS subset 'frank'"):
        load_qags(data_path, predictions_path, "frank")
    predicted = json.loads(predictions_path.read_text(encoding="utf-8"))
    predicted[17]["system_output"] = "something else"
    bad = tmp_path / "qags_xsum_result.json"
    bad.write_text(json.dumps(predicted), encoding="utf-8")
    with pytest.raises(ValueError, match=r"qags_xsum_result\.json: item 17 .*'system_output'"):
        load_qags(data_path, bad, "xsum")
    with pytest.raises(
        ValueError, match=r"(?s)qags_xsum\.json: .*one subset per table.*'cnndm': 235"
    ):
        load_qags(data_path, predictions_path, "cnndm")


def test_mturk_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mturk_xsum.jsonl"
    good = {"article": "a", "summary_sentences": [{"sentence": "s", "responses": []}]}
    path.write_text(json.dumps(good) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"mturk_xsum\.jsonl: line 2 is not valid JSON"):
        load_qags_mturk(path, "xsum")
    bad = {"article": "a", "summary_sentences": [{"sentence": "s", "responses": [{"w": 1}]}]}
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1, sentence 0: a response lacks worker_id"):
        load_qags_mturk(path, "xsum")
