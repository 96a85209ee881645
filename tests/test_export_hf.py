"""The Hugging Face export: tidy tables from the mirror plus the FIXTURE judge, written with
``geval-repro export --format hf`` and loaded back with ``datasets.load_from_disk``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.pipeline import judge_tables, tidy
from geval_repro.registry.benchmarks import NAMES, get_benchmark
from geval_repro.registry.sources import get_source
from geval_repro.report.export_hf import export_hf
from tests.conftest import FIXTURES, spec

JUDGE = "fixture-gpt4"
JSONL = "fixture-jsonl"  # format geval-jsonl: replies and level probabilities
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


@pytest.fixture(scope="module")
def processed(mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/processed as the pipeline builds it: every benchmark and the FIXTURE judge."""
    root = tmp_path_factory.mktemp("processed")

    def raw(source_id: str) -> Path:
        return mirror_dir / get_source(source_id).relpath

    for name in NAMES:
        sources = [raw(s) for s in get_benchmark(name).sources]
        tidy.benchmark(name, sources, root / f"{name}.parquet")
    judge = root / "judges" / JUDGE
    files = {d: FIXTURES / "judge_fixture" / f"gpt4_{d[:3]}_fixture.json" for d in DIMENSIONS}
    run = spec(JUDGE, files={d: {"path": str(f)} for d, f in files.items()})
    outs = {"replies": judge / "replies.parquet"}
    tidy.judge_files(run, files, root / "summeval.parquet", outs)
    judge_tables.build_item_scores(judge / "replies.parquet", judge / "item_scores.parquet")
    jsonl = root / "judges" / JSONL
    files = {d: FIXTURES / "judge_fixture_jsonl" / f"{d}.jsonl" for d in DIMENSIONS}
    run = spec(JSONL, format="geval-jsonl", files={d: {"path": str(f)} for d, f in files.items()})
    outs = {name: jsonl / f"{name}.parquet" for name in ("replies", "rating_probs")}
    tidy.judge_files(run, files, root / "summeval.parquet", outs)
    judge_tables.build_item_scores(jsonl / "replies.parquet", jsonl / "item_scores.parquet")
    return root


def test_export_round_trip(
    processed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets  # imported here, in the worker that runs these tests only (0.4 s)

    monkeypatch.chdir(tmp_path)  # no workflow/config.yaml here: labels come from --config
    out = tmp_path / "hf"
    config = FIXTURES / "config_fixture.yaml"
    argv = ["export", "--format", "hf", str(out), "--processed", str(processed)]
    assert main([*argv, "--config", str(config)]) == 0
    exported = datasets.load_from_disk(str(out))
    assert list(exported) == [
        "summeval",
        "topical_chat",
        "qags_cnndm",
        "qags_xsum",
        "dialsummeval",
        "sfres",
        "sfhot",
        "summedits",
        "writer_vs_llm",
    ]
    for name, n_items in [
        ("summeval", 1600),
        ("topical_chat", 360),
        ("qags_cnndm", 235),
        ("qags_xsum", 239),
        ("dialsummeval", 1300),
        ("sfres", 1181),
        ("sfhot", 875),
        ("summedits", 4681),
        ("writer_vs_llm", 188),
    ]:
        table = pd.read_parquet(processed / f"{name}.parquet")
        assert exported[name].num_rows == len(table) == n_items

    summeval = exported["summeval"]
    features = summeval.features
    human = pd.read_parquet(processed / "summeval.parquet")
    assert isinstance(features["system_id"], datasets.ClassLabel)
    assert (
        set(features["system_id"].names) == set(human["system_id"])
        and len(features["system_id"].names) == 16
    )
    assert features["coherence"] == datasets.Value("float64")
    assert features[f"{JUDGE}.coherence.original.mean"] == datasets.Value("float64")
    assert features[f"{JUDGE}.coherence.original.n_replies"] == datasets.Value("int64")
    replies_feature = features[f"{JUDGE}.fluency.replies"]
    assert getattr(replies_feature, "feature", None) == datasets.Value("string")

    frame = summeval.to_pandas()
    frame["system_id"] = [features["system_id"].int2str(int(i)) for i in frame["system_id"]]
    merged = frame.merge(human, on=["doc_id", "system_id"], suffixes=("", "_parquet"))
    assert len(merged) == 1600
    for dimension in DIMENSIONS:
        np.testing.assert_array_equal(merged[dimension], merged[f"{dimension}_parquet"])

    replies = pd.read_parquet(processed / "judges" / JUDGE / "replies.parquet")
    items = pd.read_parquet(processed / "judges" / JUDGE / "item_scores.parquet")
    scored = frame[frame[f"{JUDGE}.coherence.original.mean"].notna()]
    assert len(scored) == 64  # the fixture's 4 documents x 16 systems
    assert frame[f"{JUDGE}.coherence.replies"].isna().sum() == 1600 - 64
    for _, row in scored.sample(5, random_state=0).iterrows():
        key = (replies["doc_id"] == row["doc_id"]) & (replies["system_id"] == row["system_id"])
        for dimension in ("coherence", "relevance"):
            expected = (
                replies[key & (replies["dimension"] == dimension)]
                .sort_values("reply_index")["reply"]
                .tolist()
            )
            assert list(row[f"{JUDGE}.{dimension}.replies"]) == expected
            assert len(expected) == 20
            item = items[
                (items["doc_id"] == row["doc_id"])
                & (items["system_id"] == row["system_id"])
                & (items["dimension"] == dimension)
            ].set_index("parser")
            for parser in ("original", "tolerant"):
                for field in ("mean", "first", "mode"):
                    ours = row[f"{JUDGE}.{dimension}.{parser}.{field}"]
                    theirs = item.loc[parser, field]
                    assert (pd.isna(ours) and pd.isna(theirs)) or ours == theirs

    chat = exported["topical_chat"].to_pandas()
    chat_table = pd.read_parquet(processed / "topical_chat.parquet")
    np.testing.assert_array_equal(chat["item_id"], chat_table["item_id"])
    np.testing.assert_array_equal(chat["groundedness"], chat_table["groundedness"])
    assert not any(c.startswith(JUDGE) for c in chat.columns)

    card = (out / "README.md").read_text(encoding="utf-8")
    assert "FIXTURE (synthetic test data, not a result)" in card
    assert "never cite their columns" in card
    for source_id in ("summeval", "topical_chat", "qags_cnndm", "qags_xsum"):
        assert get_source(source_id).sha256 in card
    assert "MIT (UniEval repository LICENSE)" in card
    # writer vs GPT-3.5: no human score column, the card says what its humans gave
    assert "none: pairwise preferences (overall, informativeness)" in card
    assert not {"coherence", "fluency"} & set(exported["writer_vs_llm"].features)
    for key in ("liu2023geval", "fabbri2021summeval", "wang2020qags", "zhong2022unieval"):
        assert f"{{{key}," in card


def test_level_probabilities_and_unknown_items(processed: Path, tmp_path: Path) -> None:
    """A hand-built item-scores table of a Topical-Chat run with per-level probabilities."""
    import datasets

    work = tmp_path / "processed"
    work.mkdir()
    for name in NAMES:
        (work / f"{name}.parquet").symlink_to(processed / f"{name}.parquet")
    judge = work / "judges" / "probs-run"
    judge.mkdir(parents=True)
    scores = pd.DataFrame(
        {
            "judge": "probs-run",
            "benchmark": "topical_chat",
            "dimension": "naturalness",
            "item_id": [0, 5],
            "weighted": [2.3, 1.5],
            "rating_probs": [[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]],
        }
    )
    scores.to_parquet(judge / "item_scores.parquet", index=False)
    out = tmp_path / "hf"
    hand_made = spec("probs-run", benchmark="topical_chat", label="hand-made")
    scored = export_hf(work, out, {"probs-run": hand_made})
    assert scored["topical_chat"] == {"probs-run": 2} and scored["summeval"] == {}
    chat = datasets.load_from_disk(str(out))["topical_chat"]
    probs = chat.features["probs-run.naturalness.rating_probs"]
    assert getattr(probs, "feature", None) == datasets.Value("float64")
    rows = {r["item_id"]: r for r in chat}
    assert rows[5]["probs-run.naturalness.rating_probs"] == pytest.approx([0.6, 0.3, 0.1])
    assert rows[5]["probs-run.naturalness.weighted"] == 1.5
    assert rows[1]["probs-run.naturalness.rating_probs"] is None

    scores.assign(item_id=[0, 99999]).to_parquet(judge / "item_scores.parquet", index=False)
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(ValueError, match=r"probs-run.*1 items are not in the topical_chat"):
        export_hf(work, out, {"probs-run": None})
    assert sorted(p.name for p in out.iterdir()) == before  # the old export is intact
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_level_probabilities_of_a_jsonl_run_round_trip(processed: Path, tmp_path: Path) -> None:
    """The geval-jsonl FIXTURE run: level distributions and Eq. 1 scores, checked against the
    fixture's JSON Lines files themselves (their ``level_probs`` and ``weighted_score``)."""
    import datasets

    out = tmp_path / "hf"
    run = spec(JSONL, format="geval-jsonl", label="FIXTURE: jsonl", fixture=True)
    scored = export_hf(processed, out, {JSONL: run}, benchmarks=["summeval"])
    assert scored == {"summeval": {JSONL: 64}}
    summeval = datasets.load_from_disk(str(out))["summeval"]
    features = summeval.features
    for dimension in DIMENSIONS:
        sequence = features[f"{JSONL}.{dimension}.rating_probs"]
        assert getattr(sequence, "feature", None) == datasets.Value("float64")
        for field in ("weighted_score", "most_likely_rating", "rating_mass", "off_scale_mass"):
            assert features[f"{JSONL}.{dimension}.{field}"] == datasets.Value("float64")
    assert getattr(features[f"{JSONL}.coherence.replies"], "feature", None) == datasets.Value(
        "string"
    )
    frame = summeval.to_pandas()
    frame["system_id"] = [features["system_id"].int2str(int(i)) for i in frame["system_id"]]
    rows = frame.set_index(["doc_id", "system_id"])
    checked = 0
    for dimension, n_levels in (("fluency", 3), ("coherence", 5)):
        path = FIXTURES / "judge_fixture_jsonl" / f"{dimension}.jsonl"
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(records) == 64
        for record in records[:10]:
            row = rows.loc[(record["doc_id"], record["system_id"])]
            probs = record["level_probs"]
            expected = [probs[str(level)] for level in range(1, n_levels + 1)]
            assert list(row[f"{JSONL}.{dimension}.rating_probs"]) == pytest.approx(expected)
            assert row[f"{JSONL}.{dimension}.weighted_score"] == pytest.approx(
                record["weighted_score"], abs=1e-6
            )
            assert row[f"{JSONL}.{dimension}.most_likely_rating"] == 1 + int(np.argmax(expected))
            assert row[f"{JSONL}.{dimension}.off_scale_mass"] == pytest.approx(
                record["off_scale_mass"]
            )
            assert list(row[f"{JSONL}.{dimension}.replies"]) == record["replies"]
            checked += 1
    assert checked == 20
    assert frame[f"{JSONL}.coherence.rating_probs"].isna().sum() == 1600 - 64
    card = (out / "README.md").read_text(encoding="utf-8")
    assert (
        "Ratings of `rating_probs`, lowest first: coherence: 1, 2, 3, 4, 5; consistency: "
        "1, 2, 3, 4, 5; fluency: 1, 2, 3; relevance: 1, 2, 3, 4, 5." in card
    )
    assert "FIXTURE (synthetic test data, not a result)" in card
