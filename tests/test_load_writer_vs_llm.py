"""Tests of geval_repro.load.writer_vs_llm: Zhang et al.'s writer vs GPT-3.5 judgements.

On the mirrored release, every count is recounted here from the raw JSON with the standard
library (not with the loader's code); bad files are small hand-made ones, each breaking one
rule, whose errors must name the file, the record and the fix.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.load.writer_vs_llm import (
    PINNED_COUNTS,
    check_pairs,
    item_id,
    load_writer_vs_llm,
    release_counts,
)
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import get_source

LLM = "text-davinci-002_summary"


def release(mirror_dir: Path) -> tuple[Path, Path]:
    return (
        mirror_dir / get_source("zhang2023_pairwise").relpath,
        mirror_dir / get_source("zhang2023_writer_summaries").relpath,
    )


@pytest.fixture(scope="module")
def raw(mirror_dir: Path) -> tuple[list[dict], list[dict]]:
    pairwise, writers = release(mirror_dir)
    return json.loads(pairwise.read_text("utf-8")), json.loads(writers.read_text("utf-8"))


@pytest.fixture(scope="module")
def loaded(mirror_dir: Path):
    return load_writer_vs_llm(*release(mirror_dir))


def test_the_release_counts_as_the_issue_says(raw, loaded) -> None:
    records, writers = raw
    overall = Counter(repr(r["overall_writer_better"]) for r in records)
    assert overall == {"True": 243, "False": 239, "'Equally Good'": 117}
    informative = Counter(repr(r["informative_writer_better"]) for r in records)
    assert informative == {"True": 217, "False": 250, "'Equally Good'": 132}
    judged = {(r["article_id"], r["writer_summary"]) for r in records}
    listed = {(w["article_id"], w["summary"]) for w in writers}
    recounted = {
        "judgements": len(records),
        "articles": len({r["article_id"] for r in records}),
        "writers": len({r["writer_id"] for r in records}),
        "evaluators": len({r["evaluator_id"] for r in records}),
        "writer summaries judged": len(judged),
        "model summaries judged": len({(r["article_id"], r[LLM]) for r in records}),
        "overall writer better": overall["True"],
        "overall model better": overall["False"],
        "overall equally good": overall["'Equally Good'"],
        "informativeness writer better": informative["True"],
        "informativeness model better": informative["False"],
        "informativeness equally good": informative["'Equally Good'"],
        "summaries in writer_summaries.json": len(writers),
        "of them judged": len(listed & judged),
        "judged writer summaries not in writer_summaries.json": len(judged - listed),
    }
    assert recounted == PINNED_COUNTS
    assert release_counts(*loaded) == PINNED_COUNTS
    assert (len(loaded.items), len(loaded.pairs), len(loaded.writer_summaries)) == (188, 599, 302)


def test_pairs_are_the_records_in_file_order(raw, loaded) -> None:
    records, _ = raw
    pairs = loaded.pairs
    assert pairs["judgement"].tolist() == list(range(599))
    answer = {True: "writer", False: "llm", "Equally Good": "tie"}
    assert pairs["overall"].tolist() == [answer[r["overall_writer_better"]] for r in records]
    assert pairs["informativeness"].tolist() == [
        answer[r["informative_writer_better"]] for r in records
    ]
    for column in ("article_id", "evaluator_id", "writer_id"):
        assert pairs[column].tolist() == [r[column] for r in records]
    items = loaded.items.set_index("item_id")
    assert items.loc[pairs["writer_item_id"], "summary"].tolist() == [
        r["writer_summary"] for r in records
    ]
    assert items.loc[pairs["llm_item_id"], "summary"].tolist() == [r[LLM] for r in records]
    assert items.loc[pairs["llm_item_id"], "article"].tolist() == [
        r["article_text"] for r in records
    ]
    check_pairs(loaded.items, pairs, "the release")


def test_items_are_unique_by_text_with_documented_ids(raw, loaded) -> None:
    records, _ = raw
    items = loaded.items
    first = records[0]
    expected = hashlib.sha256(
        (first["article_id"] + "\n" + first["writer_summary"]).encode("utf-8")
    ).hexdigest()[:12]
    assert (
        items["item_id"].iloc[0]
        == expected
        == item_id(first["article_id"], first["writer_summary"])
    )
    assert items["item_id"].is_unique and not items.duplicated(["article_id", "summary"]).any()
    assert Counter(items["author"]) == {"writer": 112, "llm": 76}
    assert len(items) == get_benchmark("writer_vs_llm").item_count  # the registry's count
    llm = items[items["author"] == "llm"]
    assert llm["writer_id"].isna().all() and llm["article_id"].is_unique
    assert items.loc[items["author"] == "writer", "writer_id"].notna().all()
    # whitespace is kept exactly as released (85 writer summaries end or start with spaces)
    assert sum(s != s.strip() for s in items["summary"]) == 85


def test_which_writer_summaries_are_judged(raw, loaded) -> None:
    records, writers = raw
    coverage = loaded.writer_summaries
    assert coverage["summary"].tolist() == [w["summary"] for w in writers]
    judged = {(r["article_id"], r["writer_summary"]) for r in records}
    assert coverage["judged"].tolist() == [
        (w["article_id"], w["summary"]) in judged for w in writers
    ]
    absent = loaded.items[
        (loaded.items["author"] == "writer") & ~loaded.items["in_writer_summaries"]
    ]
    assert len(absent) == 8
    assert set(absent["writer_id"]) == {
        "85b4d7406d144eacaede6397fafe06b9",
        "b33c38a1cc7a45358cbcd30311e78ae2",
    }
    judgements = loaded.pairs["writer_item_id"].isin(absent["item_id"]).sum()
    assert judgements == 38


# Small hand-made files --------------------------------------------------------------------

ARTICLE = "The council approved the budget on Monday after a long debate."


def judgement(article="a1", writer="w1", evaluator="e1", overall=True, informative=True):
    return {
        "article_id": article,
        "writer_id": writer,
        "evaluator_id": evaluator,
        "article_text": f"{ARTICLE} ({article})",
        "writer_summary": f"The budget passed ({article}, {writer}).",
        LLM: f"The council approved the budget ({article}).",
        "overall_writer_better": overall,
        "informative_writer_better": informative,
    }


GOOD = [
    judgement(),
    judgement(evaluator="e2", overall=False),
    judgement("a2", overall="Equally Good"),
]
WRITERS = [
    {"article_id": r["article_id"], "article": r["article_text"], "summary": r["writer_summary"]}
    for r in GOOD[::2]
]


def write(tmp_path: Path, records: object, writers: object = WRITERS) -> tuple[Path, Path]:
    pairwise, summaries = tmp_path / "pairwise.json", tmp_path / "writers.json"
    pairwise.write_text(json.dumps(records), "utf-8")
    summaries.write_text(json.dumps(writers), "utf-8")
    return pairwise, summaries


def changed(index: int, **values: object) -> list[dict]:
    records = copy.deepcopy(GOOD)
    records[index].update(values)
    return records


BAD_PAIRWISE = {
    "answer as a string": (changed(1, overall_writer_better="False"), "record 1", "JSON true"),
    "unknown answer": (changed(0, informative_writer_better=None), "record 0", "Equally Good"),
    "missing key": ([{k: v for k, v in GOOD[0].items() if k != LLM}], "item 0", LLM),
    "empty text": (changed(2, writer_summary="  "), "record 2", "not a non-empty string"),
    "two article texts": (
        changed(1, article_text="another text"),
        "records [0, 1]",
        "article texts",
    ),
    "two model summaries": (changed(1, **{LLM: "Other."}), "records [0, 1]", "model summaries"),
    "two summaries of one writer": (
        changed(1, writer_summary="Other."),
        "records [0, 1]",
        "writer summaries",
    ),
    "one summary, two writers": (
        [*GOOD, {**GOOD[0], "writer_id": "w2", "evaluator_id": "e3"}],
        "records [0, 1, 3]",
        "writers",
    ),
    "writer summary is the model's": (
        changed(2, writer_summary=GOOD[2][LLM]),
        "record 2",
        "identical to the model's",
    ),
    "a pair judged twice": ([*GOOD, GOOD[0]], "records [0, 3]", "more than once"),
    "not a list": ({"records": GOOD}, "expected a JSON list", "Fix"),
}


@pytest.mark.parametrize("case", BAD_PAIRWISE)
def test_a_bad_judgements_file_names_the_file_the_record_and_the_fix(
    tmp_path: Path, case: str
) -> None:
    records, where, what = BAD_PAIRWISE[case]
    pairwise, writers = write(tmp_path, records)
    with pytest.raises(ValueError) as info:
        load_writer_vs_llm(pairwise, writers)
    message = str(info.value)
    assert str(pairwise) in message and where in message and what in message, message
    assert "Fix:" in message


BAD_WRITERS = {
    "another article text": (
        [{**WRITERS[0], "article": "A different article."}, WRITERS[1]],
        "record 0",
        "another text for the article",
    ),
    "a summary listed twice": ([*WRITERS, WRITERS[0]], "records [0, 2]", "repeat"),
    "missing key": ([{"article_id": "a1", "summary": "x"}], "item 0", "article"),
}


@pytest.mark.parametrize("case", BAD_WRITERS)
def test_a_bad_writer_summaries_file_names_the_file_the_record_and_the_fix(
    tmp_path: Path, case: str
) -> None:
    writers_records, where, what = BAD_WRITERS[case]
    pairwise, writers = write(tmp_path, GOOD, writers_records)
    with pytest.raises(ValueError) as info:
        load_writer_vs_llm(pairwise, writers)
    message = str(info.value)
    assert str(writers) in message and where in message and what in message, message
    assert "Fix:" in message


def test_a_well_formed_file_that_is_not_the_release_is_refused_by_its_counts(
    tmp_path: Path,
) -> None:
    pairwise, writers = write(tmp_path, GOOD)
    with pytest.raises(ValueError) as info:
        load_writer_vs_llm(pairwise, writers)
    message = str(info.value)
    assert "judgements: 3 (pinned release: 599)" in message
    assert "overall equally good: 1 (pinned release: 117)" in message
    assert str(pairwise) in message and "sources.yaml" in message


def test_json_lines_are_refused_saying_so(tmp_path: Path) -> None:
    pairwise, writers = write(tmp_path, GOOD)
    pairwise.write_text("\n".join(json.dumps(r) for r in GOOD), "utf-8")
    with pytest.raises(ValueError, match="looks like JSON Lines"):
        load_writer_vs_llm(pairwise, writers)


def test_check_pairs_refuses_pairs_of_other_items(loaded) -> None:
    pairs = loaded.pairs.copy()
    pairs.loc[5, "llm_item_id"] = "0" * 12
    with pytest.raises(ValueError, match=r"judgement 5 .*'000000000000'.*same load_writer_vs_llm"):
        check_pairs(loaded.items, pairs, "t")
    swapped = loaded.pairs.copy()
    swapped.loc[7, "llm_item_id"] = swapped.loc[7, "writer_item_id"]
    with pytest.raises(ValueError, match=r"judgement 7's llm_item_id .* is not the llm summary"):
        check_pairs(loaded.items, swapped, "t")
    other = loaded.pairs.copy()
    article = other.loc[0, "article_id"]
    elsewhere = other.index[other["article_id"] != article][0]
    other.loc[0, "writer_item_id"] = other.loc[elsewhere, "writer_item_id"]
    with pytest.raises(ValueError, match=r"judgement 0's writer_item_id .* of article"):
        check_pairs(loaded.items, other, "t")
    assert isinstance(loaded.items, pd.DataFrame)
