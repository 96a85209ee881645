"""Tests of geval_repro.load.multiref: the BARTScore pickle and the restricted unpickler."""

from __future__ import annotations

import json
import os
import pickle
import pickletools
from pathlib import Path

import pytest

from geval_repro.load import load_multiref
from geval_repro.load.multiref import read_multiref_pickle
from geval_repro.registry.sources import get_source


def pickle_path(mirror_dir: Path) -> Path:
    return mirror_dir / get_source("summeval_multiref").relpath


def summeval_items(mirror_dir: Path) -> list[dict]:
    with open(mirror_dir / get_source("summeval").relpath, encoding="utf-8") as handle:
        return json.load(handle)


def test_multiref_has_11_references_for_each_of_100_documents(mirror_dir: Path) -> None:
    table = load_multiref(pickle_path(mirror_dir))
    assert table.shape == (1100, 3)
    assert list(table.columns) == ["doc_id", "ref_index", "reference"]
    assert table["doc_id"].nunique() == 100
    assert (table.groupby("doc_id")["ref_index"].apply(list) == [list(range(11))] * 100).all()


def test_first_reference_is_summeval_reference(mirror_dir: Path) -> None:
    table = load_multiref(pickle_path(mirror_dir))
    references = {item["doc_id"]: item["reference"] for item in summeval_items(mirror_dir)}
    first = table[table["ref_index"] == 0].set_index("doc_id")["reference"]
    assert first.to_dict() == references


def test_pickle_outputs_and_scores_equal_summeval_json(mirror_dir: Path) -> None:
    """The pickle's sources, system outputs and expert means are summeval.json's, exactly."""
    data = read_multiref_pickle(pickle_path(mirror_dir))
    items = summeval_items(mirror_dir)
    assert {(doc, system) for doc in data for system in data[doc]["sys_summs"]} == {
        (item["doc_id"], item["system_id"]) for item in items
    }
    for item in items:
        doc = data[item["doc_id"]]
        summary = doc["sys_summs"][item["system_id"]]
        assert doc["src"] == item["source"]
        assert doc["ref_summ"] == item["reference"]
        assert summary["sys_summ"] == item["system_output"]
        assert summary["scores"] == {
            key: value for key, value in item["scores"].items() if key != "overall"
        }


class RunsShell:
    """Unpickling this object would call os.system (the classic malicious pickle)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_without_executing(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps({"doc": {"src": RunsShell(marker)}}))
    with pytest.raises(ValueError, match=r"data\.pkl: refused to load the global \w+\.system"):
        load_multiref(path)
    assert not marker.exists()
    # The pickle is live: it imports os.system and calls it (REDUCE) when loaded normally.
    opcodes = [(op.name, arg) for op, arg, _ in pickletools.genops(path.read_bytes())]
    assert ("SHORT_BINUNICODE", "system") in opcodes
    assert ("STACK_GLOBAL", None) in opcodes and ("REDUCE", None) in opcodes


def test_any_global_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps({"doc": {"when": __import__("datetime").date(2023, 1, 1)}}))
    with pytest.raises(ValueError, match=r"refused to load the global datetime\.date"):
        read_multiref_pickle(path)


def test_wrong_structure_and_truncation_are_named(tmp_path: Path) -> None:
    path = tmp_path / "data.pkl"
    doc = {"src": "s", "ref_summ": "r", "ref_summs": ["r"] * 10, "sys_summs": {}}
    path.write_bytes(pickle.dumps({"d1": doc}))
    with pytest.raises(ValueError, match=r"data\.pkl: document 'd1' has 10 references, not 11"):
        load_multiref(path)
    path.write_bytes(pickle.dumps({"d1": {**doc, "ref_summs": ("r",) * 11}}))
    with pytest.raises(ValueError, match=r"document 'd1' ref_summs is not a list of str"):
        load_multiref(path)
    path.write_bytes(pickle.dumps({"d1": doc})[:-5])
    with pytest.raises(ValueError, match=r"data\.pkl: .*Fix:"):
        load_multiref(path)
