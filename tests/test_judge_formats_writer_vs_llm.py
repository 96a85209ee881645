"""Every judge format reads a run on writer vs GPT-3.5 (string ``item_id``s of 12 hex digits,
no per-item human score): a replies file (``geval-released``), a scores CSV (``scores``) and
JSON Lines (``geval-jsonl``), each on two items of the real tidy table, with the values
written by hand; an item id that is not the table's, or not a string, is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.load.judge_runs import FORMAT_LOADERS
from geval_repro.pipeline import tidy
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import get_source
from tests.conftest import spec

BENCHMARK = "writer_vs_llm"


@pytest.fixture(scope="module")
def items(mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("tidy") / f"{BENCHMARK}.parquet"
    sources = [mirror_dir / get_source(s).relpath for s in get_benchmark(BENCHMARK).sources]
    tidy.benchmark(BENCHMARK, sources, out)
    return pd.read_parquet(out)


def test_released_replies(items: pd.DataFrame, tmp_path: Path) -> None:
    first, second = items["item_id"][:2]
    path = tmp_path / "coherence.json"
    path.write_text(
        json.dumps(
            [
                {"item_id": first, "all_responses": ["4", "Coherence: 5"]},
                {"item_id": second, "all_responses": ["2"]},
            ]
        )
    )
    run = spec("r", benchmark=BENCHMARK, files={"coherence": {"path": str(path)}})
    replies = FORMAT_LOADERS["geval-released"](run, {"coherence": path}, items)["replies"]
    assert replies["item_id"].tolist() == [first, first, second]
    assert replies["reply"].tolist() == ["4", "Coherence: 5", "2"]


def test_scores_csv(items: pd.DataFrame, tmp_path: Path) -> None:
    first, second = items["item_id"][:2]
    path = tmp_path / "scores.csv"
    path.write_text(f"item_id,coherence,fluency\n{first},3.5,2\n{second},1.25,3\n")
    columns = {"item_id": "item_id", "coherence": "coherence", "fluency": "fluency"}
    run = spec("s", benchmark=BENCHMARK, format="scores", file={"path": str(path)}, columns=columns)
    scores = FORMAT_LOADERS["scores"](run, {"*": path}, items)["item_scores"]
    got = scores.set_index(["dimension", "item_id"])["score"].to_dict()
    assert got == {
        ("coherence", first): 3.5,
        ("coherence", second): 1.25,
        ("fluency", first): 2.0,
        ("fluency", second): 3.0,
    }


def test_jsonl_with_rating_probabilities(items: pd.DataFrame, tmp_path: Path) -> None:
    first, second = items["item_id"][:2]
    path = tmp_path / "fluency.jsonl"
    records = [
        {"item_id": first, "replies": ["3", "2"], "level_probs": {"1": 0.2, "2": 0.3, "3": 0.5}},
        {"item_id": second, "replies": ["1"], "level_probs": None},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = spec("j", benchmark=BENCHMARK, format="geval-jsonl", dir=str(tmp_path))
    tables = FORMAT_LOADERS["geval-jsonl"](run, {"fluency": path}, items)
    assert tables["replies"]["item_id"].tolist() == [first, first, second]
    probs = tables["rating_probs"].sort_values(["item_id", "rating"])
    assert set(probs["item_id"]) == {first}  # no rating read for the second item
    assert probs["rating"].tolist() == [1, 2, 3]
    assert probs["prob"].tolist() == pytest.approx([0.2, 0.3, 0.5])


@pytest.mark.parametrize(
    ("item", "pattern"),
    [("000000000000", "is not a Writer vs GPT-3.5"), (17, "a string")],
)
def test_unknown_or_mistyped_ids_are_named(
    items: pd.DataFrame, tmp_path: Path, item: object, pattern: str
) -> None:
    path = tmp_path / "coherence.json"
    path.write_text(json.dumps([{"item_id": item, "all_responses": ["4"]}]))
    run = spec("r", benchmark=BENCHMARK, files={"coherence": {"path": str(path)}})
    with pytest.raises(ValueError, match=pattern) as error:
        FORMAT_LOADERS["geval-released"](run, {"coherence": path}, items)
    assert str(path) in str(error.value)
