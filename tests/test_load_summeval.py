"""Tests of geval_repro.load.summeval on the mirrored summeval.json and on broken copies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from geval_repro.load import load_summeval
from geval_repro.registry.sources import get_source

DIMENSIONS = ["coherence", "consistency", "fluency", "relevance"]


def raw_items(mirror_dir: Path) -> list[dict]:
    with open(mirror_dir / get_source("summeval").relpath, encoding="utf-8") as handle:
        return json.load(handle)


def write(path: Path, items: object) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_summeval_has_100_documents_by_16_systems(mirror_dir: Path) -> None:
    table = load_summeval(mirror_dir / get_source("summeval").relpath)
    assert table.shape == (1600, 10)
    assert list(table.columns) == [
        "doc_id",
        "system_id",
        "source",
        "reference",
        "system_output",
        *DIMENSIONS,
        "overall",
    ]
    assert table["doc_id"].nunique() == 100
    assert table["system_id"].nunique() == 16
    assert (table.groupby("doc_id").size() == 16).all()
    assert not table.duplicated(["doc_id", "system_id"]).any()


def test_summeval_values_are_the_files(mirror_dir: Path) -> None:
    items = raw_items(mirror_dir)
    table = load_summeval(mirror_dir / get_source("summeval").relpath)
    assert table["doc_id"].tolist() == [item["doc_id"] for item in items]
    assert table["system_output"].tolist() == [item["system_output"] for item in items]
    for key in [*DIMENSIONS, "overall"]:
        assert table[key].tolist() == [item["scores"][key] for item in items]
    # Expert means of 3 ratings on 1-5 are multiples of 1/3.
    thirds = table[DIMENSIONS].to_numpy() * 3
    np.testing.assert_allclose(thirds, np.rint(thirds), atol=1e-9)


def test_duplicate_summary_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    items = raw_items(mirror_dir)
    items[1] = dict(items[0])
    path = write(tmp_path / "summeval.json", items)
    with pytest.raises(ValueError) as error:
        load_summeval(path)
    message = str(error.value)
    assert str(path) in message
    assert items[0]["doc_id"] in message and "'M11'" in message
    assert "Fix:" in message


def test_overall_that_is_not_the_mean_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    items = raw_items(mirror_dir)
    items[7]["scores"]["overall"] += 0.5
    path = write(tmp_path / "summeval.json", items)
    with pytest.raises(ValueError, match=r"item 7 \(doc_id=.*, system_id='M17'\).*overall"):
        load_summeval(path)


def test_non_numeric_score_and_missing_key_are_named(mirror_dir: Path, tmp_path: Path) -> None:
    items = raw_items(mirror_dir)
    items[3]["scores"]["fluency"] = "5"
    path = write(tmp_path / "bad_score.json", items)
    with pytest.raises(ValueError, match=r"item 3 .*'fluency'.*not a number"):
        load_summeval(path)
    items = raw_items(mirror_dir)
    del items[9]["system_output"]
    path = write(tmp_path / "missing_key.json", items)
    with pytest.raises(ValueError, match=r"missing_key\.json: item 9 lacks .*system_output"):
        load_summeval(path)


def test_invalid_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "summeval.json"
    path.write_text('[{"doc_id": ', encoding="utf-8")
    with pytest.raises(ValueError, match=r"summeval\.json: not valid UTF-8 JSON"):
        load_summeval(path)
