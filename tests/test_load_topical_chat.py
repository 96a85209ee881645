"""Tests of geval_repro.load.topical_chat on UniEval's mirrored files and broken copies."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.load import load_topical_chat
from geval_repro.registry.sources import get_source

# USR's six human scores: the paper's four dimensions first (their printed order), then the
# two the paper does not correlate.
DIMENSIONS = [
    "naturalness",
    "coherence",
    "engagingness",
    "groundedness",
    "understandability",
    "overall",
]
SYSTEMS = {
    "Original Ground Truth",
    "Argmax Decoding",
    "Nucleus Decoding (p = 0.3)",
    "Nucleus Decoding (p = 0.5)",
    "Nucleus Decoding (p = 0.7)",
    "New Human Generated",
}


def paths(mirror_dir: Path) -> tuple[Path, Path]:
    return (
        mirror_dir / get_source("topical_chat").relpath,
        mirror_dir / get_source("unieval_pred_topical_chat").relpath,
    )


def test_topical_chat_has_60_contexts_by_6_systems(mirror_dir: Path) -> None:
    table = load_topical_chat(*paths(mirror_dir))
    assert table.shape == (360, 6 + 2 * len(DIMENSIONS))
    assert list(table.columns) == [
        "item_id",
        "context_id",
        "system_id",
        "history",
        "fact",
        "response",
        *DIMENSIONS,
        *[f"unieval_{dim}" for dim in DIMENSIONS],
    ]
    assert table["item_id"].tolist() == list(range(360))
    counts = pd.crosstab(table["context_id"], table["system_id"])
    assert counts.shape == (60, 6) and (counts == 1).all().all()
    assert set(counts.columns) == SYSTEMS
    # In the file each context's six responses are consecutive.
    assert (table["context_id"] == table["item_id"] // 6).all()


def test_topical_chat_values_are_the_files(mirror_dir: Path) -> None:
    data_path, predictions_path = paths(mirror_dir)
    items = json.loads(data_path.read_text(encoding="utf-8"))
    predicted = json.loads(predictions_path.read_text(encoding="utf-8"))
    table = load_topical_chat(data_path, predictions_path)
    assert table["history"].tolist() == [item["source"] for item in items]
    assert table["fact"].tolist() == [item["context"] for item in items]
    assert table["response"].tolist() == [item["system_output"] for item in items]
    for dim in DIMENSIONS:
        assert table[dim].tolist() == [item["scores"][dim] for item in items]
        assert table[f"unieval_{dim}"].tolist() == [p["predict_scores"][dim] for p in predicted]


def test_predictions_that_disagree_with_the_data_are_named(
    mirror_dir: Path, tmp_path: Path
) -> None:
    data_path, predictions_path = paths(mirror_dir)
    predicted = json.loads(predictions_path.read_text(encoding="utf-8"))
    predicted[5]["scores"]["coherence"] += 1
    bad = tmp_path / "topical_chat_result.json"
    bad.write_text(json.dumps(predicted), encoding="utf-8")
    with pytest.raises(ValueError, match=r"topical_chat_result\.json: item 5 differs .*'scores'"):
        load_topical_chat(data_path, bad)
    bad.write_text(json.dumps(predicted[:-1]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"topical_chat_result\.json: 359 items, but .* 360"):
        load_topical_chat(data_path, bad)


def test_missing_prediction_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    data_path, predictions_path = paths(mirror_dir)
    predicted = json.loads(predictions_path.read_text(encoding="utf-8"))
    del predicted[12]["predict_scores"]["groundedness"]
    bad = tmp_path / "topical_chat_result.json"
    bad.write_text(json.dumps(predicted), encoding="utf-8")
    with pytest.raises(ValueError, match=r"item 12 predict_scores\['groundedness'\] = None"):
        load_topical_chat(data_path, bad)
