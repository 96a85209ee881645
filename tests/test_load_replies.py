"""Tests of geval_repro.load.replies: the fixture judge run and broken replies files.

The released G-Eval-4 reply files are not in the mirror; these tests use the synthetic
fixture in tests/fixtures/judge_fixture/ (same format) and hand-made broken copies of it.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.load import load_released_replies, load_summeval
from geval_repro.registry.sources import get_source

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_DIR = FIXTURES / "judge_fixture"
FILES = {
    "coherence": "gpt4_coh_fixture.json",
    "consistency": "gpt4_con_fixture.json",
    "fluency": "gpt4_flu_fixture.json",
    "relevance": "gpt4_rel_fixture.json",
}


@pytest.fixture(scope="module")
def summeval(mirror_dir: Path) -> pd.DataFrame:
    return load_summeval(mirror_dir / get_source("summeval").relpath)


def fixture_items(dimension: str = "coherence") -> list[dict]:
    return json.loads((FIXTURE_DIR / FILES[dimension]).read_text(encoding="utf-8"))


def write(tmp_path: Path, items: object, name: str = "gpt4_coh_broken.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


@pytest.mark.parametrize("dimension", list(FILES))
def test_fixture_loads_and_joins(dimension: str, summeval: pd.DataFrame) -> None:
    path = FIXTURE_DIR / FILES[dimension]
    table = load_released_replies(path, "fixture", dimension, summeval, benchmark="summeval")
    assert list(table.columns) == [
        "judge",
        "benchmark",
        "dimension",
        "doc_id",
        "system_id",
        "reply_index",
        "reply",
    ]
    assert len(table) == 4 * 16 * 20
    assert table["doc_id"].nunique() == 4
    assert (table.groupby(["doc_id", "system_id"]).size() == 20).all()
    assert (table["reply_index"].to_numpy() == list(range(20)) * 64).all()
    assert set(table["judge"]) == {"fixture"} and set(table["benchmark"]) == {"summeval"}
    assert set(table["dimension"]) == {dimension}
    items = fixture_items(dimension)
    assert table["reply"].tolist() == [reply for item in items for reply in item["all_responses"]]
    awkward = {"", ".", "N/A", "\n3", "  4", "Score: 4"} if dimension != "fluency" else {"", "."}
    assert awkward <= set(table["reply"])


def test_fixture_is_reproducible_and_small(mirror_dir: Path, tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_judge_fixture", FIXTURES / "make_judge_fixture.py"
    )
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    written = generator.write_fixture(mirror_dir, tmp_path)
    assert sorted(path.name for path in written) == sorted(FILES.values())
    for path in written:
        assert path.read_bytes() == (FIXTURE_DIR / path.name).read_bytes()
        assert path.stat().st_size < 200_000
    assert "SYNTHETIC" in (FIXTURE_DIR / "README.md").read_text(encoding="utf-8")


def test_fixture_texts_are_placeholders() -> None:
    for dimension in FILES:
        for item in fixture_items(dimension):
            for key in ("source", "reference", "system_output", "prompt"):
                assert item[key].startswith("[fixture:")


def test_duplicate_item_is_named(tmp_path: Path, summeval: pd.DataFrame) -> None:
    items = fixture_items()
    items.append(copy.deepcopy(items[2]))
    path = write(tmp_path, items)
    with pytest.raises(ValueError) as error:
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")
    message = str(error.value)
    assert str(path) in message
    assert f"item 64 (doc_id={items[2]['doc_id']!r}, system_id={items[2]['system_id']!r})" in (
        message
    )
    assert "repeats item 2" in message and "Fix:" in message


def test_unknown_item_is_named(tmp_path: Path, summeval: pd.DataFrame) -> None:
    items = fixture_items()
    items[5]["system_id"] = "M99"
    path = write(tmp_path, items)
    with pytest.raises(ValueError, match=r"item 5 \(doc_id='.+', system_id='M99'\) is not a"):
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")


def test_mismatched_human_score_is_named(tmp_path: Path, summeval: pd.DataFrame) -> None:
    items = fixture_items()
    items[9]["scores"]["relevance"] += 1e-6
    path = write(tmp_path, items)
    with pytest.raises(ValueError) as error:
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")
    message = str(error.value)
    assert str(path) in message
    assert f"item 9 (doc_id={items[9]['doc_id']!r}, system_id={items[9]['system_id']!r})" in (
        message
    )
    assert "scores['relevance']" in message and "Fix:" in message


def test_score_within_tolerance_and_absent_overall_are_accepted(
    tmp_path: Path, summeval: pd.DataFrame
) -> None:
    items = fixture_items()
    items[9]["scores"]["relevance"] += 1e-12
    del items[10]["scores"]["overall"]
    table = load_released_replies(
        write(tmp_path, items), "fixture", "coherence", summeval, benchmark="summeval"
    )
    assert len(table) == 64 * 20


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (lambda item: item.update(all_responses="5"), r"has 'all_responses' '5', not a"),
        (lambda item: item.update(all_responses=[]), r"has 'all_responses' \[\], not a"),
        (lambda item: item.pop("all_responses"), r"has no 'all_responses'"),
        (lambda item: item["all_responses"].__setitem__(3, 4), r"has reply 3 = 4, not a string"),
        (lambda item: item["all_responses"].__setitem__(0, None), r"has reply 0 = None, not"),
        (lambda item: item["scores"].pop("fluency"), r"has scores\['fluency'\] = None, not a"),
        (lambda item: item.update(doc_id=17), r"has doc_id 17, not a string"),
    ],
)
def test_broken_item_is_named(tmp_path: Path, summeval: pd.DataFrame, change, pattern: str) -> None:
    items = fixture_items()
    change(items[6])
    path = write(tmp_path, items)
    with pytest.raises(ValueError, match=rf"gpt4_coh_broken\.json: item 6 \(doc_id=.*{pattern}"):
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")


def test_not_a_list_and_bad_json_name_the_file(tmp_path: Path, summeval: pd.DataFrame) -> None:
    path = write(tmp_path, {"items": []})
    with pytest.raises(ValueError, match=r"broken\.json: expected a non-empty JSON list"):
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")
    path = write(tmp_path, [])
    with pytest.raises(ValueError, match=r"broken\.json: .*found an empty list"):
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.json: not valid UTF-8 JSON"):
        load_released_replies(path, "fixture", "coherence", summeval, benchmark="summeval")
    with pytest.raises(ValueError, match="unknown SummEval dimension 'coh'"):
        load_released_replies(
            FIXTURE_DIR / FILES["coherence"], "fixture", "coh", summeval, benchmark="summeval"
        )
