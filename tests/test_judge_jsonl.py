"""The geval-jsonl format: hand-computed weighted scores, per-item results and bad input."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.load import load_geval_jsonl
from geval_repro.scoring.rating_probs import rating_results, rating_scores

# A hand-built SummEval-like human table (the loader only joins on the keys).
HUMAN = pd.DataFrame(
    {
        "doc_id": ["d1", "d1", "d2", "d2"],
        "system_id": ["M1", "M2", "M1", "M2"],
        "coherence": [5.0, 4.0, 4.5, 3.0],
        "consistency": 5.0,
        "fluency": 3.0,
        "relevance": 4.0,
    }
)

# Level probabilities and their Eq. 1 scores, computed by hand:
#   A {1: 0, 2: .05, 3: .1, 4: .3, 5: .55}: (0 + .1 + .3 + 1.2 + 2.75) / 1.00 = 4.35, top 5
#   B {3: .05, 4: .60, 5: .35}:             (.15 + 2.4 + 1.75) / 1.00         = 4.30, top 4
#   C {4: .57, 5: .43}:                     (2.28 + 2.15) / 1.00              = 4.43, top 4
#   D {2: .05, 3: .6, 4: .3}, 0.05 off the scale: (.1 + 1.8 + 1.2) / .95 = 3.2631..., top 3
# Normalized to 0-1 on 1-5: (s - 1) / 4 = .8375, .825, .8575, .5658 -> pass at .75: T, T, T, F
RECORDS = [
    {
        "doc_id": "d1",
        "system_id": "M1",
        "level_probs": {"1": 0, "2": 0.05, "3": 0.1, "4": 0.3, "5": 0.55},
    },
    {"doc_id": "d1", "system_id": "M2", "level_probs": {"3": 0.05, "4": 0.60, "5": 0.35}},
    {
        "doc_id": "d2",
        "system_id": "M1",
        "level_probs": {"4": 0.57, "5": 0.43},
        "weighted_score": 4.43,
    },
    {
        "doc_id": "d2",
        "system_id": "M2",
        "level_probs": {"2": 0.05, "3": 0.6, "4": 0.3},
        "off_scale_mass": 0.05,
    },
]


def write_jsonl(tmp_path: Path, records: list[object], name: str = "coherence.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def load(path: Path, reads=("level_probs",), human: pd.DataFrame = HUMAN) -> dict:
    return load_geval_jsonl(path, "j", "coherence", human, "summeval", reads)


def test_weighted_scores_match_the_hand_computed_ones(tmp_path: Path) -> None:
    tables = load(write_jsonl(tmp_path, RECORDS))
    assert set(tables) == {"rating_probs"}
    scores = rating_scores(tables["rating_probs"])
    assert scores["probs"].tolist() == pytest.approx([4.35, 4.30, 4.43, 3.1 / 0.95])
    assert scores["top_rating"].tolist() == [5.0, 4.0, 4.0, 3.0]
    assert scores["off_scale_mass"].iloc[3] == 0.05 and math.isnan(scores["off_scale_mass"].iloc[0])
    assert scores["p_1"].tolist() == [0.0, 0.0, 0.0, 0.0]
    results = rating_results(scores, threshold=0.75)
    assert results["score_normalized"].tolist() == pytest.approx(
        [0.8375, 0.825, 0.8575, (3.1 / 0.95 - 1) / 4]
    )
    assert results["passed"].tolist() == [True, True, True, False]
    assert results["most_likely_rating"].tolist() == [5.0, 4.0, 4.0, 3.0]


def test_replies_and_level_probs_from_one_file(tmp_path: Path) -> None:
    records = [dict(r, replies=["4", "- Coherence: 5"]) for r in RECORDS]
    tables = load(write_jsonl(tmp_path, records), reads=("replies", "level_probs"))
    assert len(tables["replies"]) == 8
    assert tables["replies"]["reply"].iloc[1] == "- Coherence: 5"
    assert len(tables["rating_probs"]) == 4 * 5


def test_error_items_are_left_out_with_a_warning(tmp_path: Path, caplog) -> None:
    records = [*RECORDS[:3], {"doc_id": "d2", "system_id": "M2", "error": "unreadable reply"}]
    with caplog.at_level(logging.WARNING):
        tables = load(write_jsonl(tmp_path, records))
    assert tables["rating_probs"]["system_id"].tolist().count("M2") == 5  # d1/M2 only
    assert "1 item(s) carry an error" in caplog.text and "line 4" in caplog.text


def test_a_differing_weighted_score_is_logged(tmp_path: Path, caplog) -> None:
    records = [dict(RECORDS[0], weighted_score=4.0), *RECORDS[1:]]
    with caplog.at_level(logging.WARNING):
        load(write_jsonl(tmp_path, records))
    assert "differs from Eq. 1" in caplog.text and "line 1" in caplog.text


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (
            {"level_probs": {"6": 0.5}},
            r"line 2 \(doc_id='d1', system_id='M2'\) has level_probs key '6'",
        ),
        ({"level_probs": {"4": 0.7, "5": 0.6}}, r"line 2 .* summing to 1\.300000 > 1"),
        ({"level_probs": {"4": -0.1}}, r"line 2 .* not a probability"),
        ({"level_probs": {}}, r"line 2 .* not a non-empty object"),
        ({"off_scale_mass": 2}, r"line 2 .* has off_scale_mass 2"),
        ({"system_id": "M9"}, r"line 2 \(doc_id='d1', system_id='M9'\) is not a SummEval item"),
        ({"system_id": "M1"}, r"line 2 .* repeats item 0"),
        ({"doc_id": 3}, r"line 2 .* has doc_id 3, not a string"),
        ({"scores": {"coherence": float("nan")}}, r"line 2 .* scores\['coherence'\] = nan, not"),
        ({"scores": {"coherence": 1.0}}, r"line 2 .* scores\['coherence'\] = 1\.0 but the"),
    ],
)
def test_bad_items_are_named(tmp_path: Path, change: dict, pattern: str) -> None:
    records = [RECORDS[0], dict(RECORDS[1], **change), *RECORDS[2:]]
    with pytest.raises(ValueError, match=rf"coherence\.jsonl: {pattern}"):
        load(write_jsonl(tmp_path, records))


def test_missing_field_and_broken_lines(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"line 1 .* has no 'replies'"):
        load(write_jsonl(tmp_path, RECORDS), reads=("replies", "level_probs"))
    path = write_jsonl(tmp_path, RECORDS)
    path.write_text(path.read_text() + "{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"coherence\.jsonl: line 5 is not valid JSON"):
        load(path)
    with pytest.raises(ValueError, match=r"no items"):
        load(write_jsonl(tmp_path, []))
    with pytest.raises(ValueError, match=r"has no dimension 'naturalness'"):
        load_geval_jsonl(write_jsonl(tmp_path, RECORDS), "j", "naturalness", HUMAN, "summeval")


def test_committed_jsonl_fixture_loads(mirror_dir: Path) -> None:
    from geval_repro.load import load_summeval
    from geval_repro.registry.sources import get_source

    human = load_summeval(mirror_dir / get_source("summeval").relpath)
    folder = Path(__file__).resolve().parent / "fixtures" / "judge_fixture_jsonl"
    tables = load_geval_jsonl(folder / "fluency.jsonl", "f", "fluency", human, "summeval")
    assert len(tables["replies"]) == 64 * 20
    assert sorted(tables["rating_probs"]["rating"].unique()) == [1, 2, 3]  # fluency is 1-3
    assert json.loads((folder / "manifest.json").read_text())["fixture"] is True


def test_an_item_without_a_rating_reading_is_left_out_of_the_rating_scores(
    tmp_path: Path, caplog
) -> None:
    # the runner writes level_probs null when no generated token was a rating
    records = [dict(r, replies=["4"]) for r in RECORDS]
    records[1] = dict(records[1], level_probs=None, weighted_score=None, off_scale_mass=None)
    with caplog.at_level(logging.WARNING):
        tables = load(write_jsonl(tmp_path, records), reads=("replies", "level_probs"))
    assert len(tables["replies"]) == 4
    scores = rating_scores(tables["rating_probs"])
    assert scores["probs"].tolist() == pytest.approx([4.35, 4.43, 3.1 / 0.95])
    assert "1 item(s) have level_probs null" in caplog.text and "line 2" in caplog.text
