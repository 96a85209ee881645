"""Judge tables on awkward runs: a dimension that cannot be scored, unequal reply counts,
and released-format files of the other benchmarks (issue 12, items 2, 7, 8)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.load import load_released_replies
from geval_repro.scoring.item_scores import item_scores
from geval_repro.scoring.parse import PARSERS
from geval_repro.stats.registry import ACCURACIES, COEFFICIENTS
from geval_repro.tables.judge_rows import replies_tables
from tests.conftest import spec

SETTINGS = {
    "seed": 3,
    "n_resamples": 20,
    "permutation_resamples": 20,
    "pass_threshold": 0.75,
}
DOCS, SYSTEMS = ["d1", "d2", "d3"], ["M1", "M2", "M3"]
HUMAN = pd.DataFrame(
    {
        "doc_id": np.repeat(DOCS, 3),
        "system_id": SYSTEMS * 3,
        "coherence": [1.0, 3.0, 5.0, 2.0, 4.0, 3.0, 5.0, 1.0, 2.0],
        "consistency": [5.0, 4.0, 1.0, 2.0, 3.0, 5.0, 1.0, 2.0, 3.0],
        "fluency": 3.0,
        "relevance": 3.0,
    }
)
SPEC = spec("t", label="test", fixture=True)


def replies(by_dimension: dict[str, list[list[str]]]) -> pd.DataFrame:
    rows = []
    for dimension, per_item in by_dimension.items():
        for (doc, system), texts in zip(
            HUMAN[["doc_id", "system_id"]].values, per_item, strict=True
        ):
            rows += [
                {
                    "judge": "t",
                    "benchmark": "summeval",
                    "dimension": dimension,
                    "doc_id": doc,
                    "system_id": system,
                    "reply_index": i,
                    "reply": text,
                }
                for i, text in enumerate(texts)
            ]
    return pd.DataFrame(rows)


def tables(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    items = pd.concat([item_scores(table, p) for p in PARSERS], ignore_index=True)
    return replies_tables(SPEC, items, table, HUMAN, **SETTINGS)


GOOD = [
    ["1", "2"],
    ["3", "3"],
    ["5", "4"],
    ["2", "2"],
    ["4", "5"],
    ["3", "2"],
    ["5", "5"],
    ["1", "1"],
    ["2", "3"],
]


def test_an_unscorable_dimension_gives_empty_rows_with_a_note(caplog) -> None:
    junk = [["N/A", "none"]] * 9  # tolerant parses nothing; original scores every item 0
    with caplog.at_level(logging.WARNING):
        out = tables(replies({"coherence": GOOD, "consistency": junk}))
    rows = out["correlations"]
    bad = rows[(rows["dimension"] == "consistency") & rows["variant"].str.startswith("mean")]
    # The released parser scores every item 0: a constant judge. Its correlations are
    # undefined; its accuracies are the constant reference's, the share of pairs the humans
    # tie: none of the 9 within-document pairs here (5, 4, 1 / 2, 3, 5 / 1, 2, 3).
    constant = bad["variant"].str.endswith("original") & bad["coefficient"].isin(ACCURACIES)
    assert constant.sum() == 2
    assert (bad.loc[constant, "value"] == 0.0).all() and (bad.loc[constant, "epsilon"] == 0).all()
    assert bad.loc[constant, "note"].str.contains("same score: it ties every pair").all()
    empty = bad[~constant]
    assert empty["value"].isna().all() and empty["epsilon"].isna().all()
    at_level = empty[(empty["level"] == "summary") & empty["coefficient"].isin(COEFFICIENTS)]
    assert len(at_level) == 6
    assert empty["note"].str.contains("not scorable").all()
    tolerant = empty[empty["variant"].str.endswith("tolerant")]
    assert tolerant["note"].str.contains("no item has a score").all()
    original = empty[empty["variant"].str.endswith("original")]
    assert original["note"].str.contains("same score").all()
    good = rows[(rows["dimension"] == "coherence") & rows["variant"].str.startswith("mean")]
    assert good["value"].notna().all()
    assert "judge t, summeval consistency" in caplog.text
    parsers = out["parsers"]
    assert parsers[parsers["dimension"] == "consistency"]["tolerant"].isna().all()
    significance = out["significance"]
    failed = significance[significance["dimension"] == "consistency"]
    assert failed["pvalue"].isna().all() and failed["note"].str.contains("not scorable").all()
    assert significance[significance["dimension"] == "coherence"]["pvalue"].notna().all()


def test_mean_of_n_rows_carry_the_share_of_their_replies_the_parser_could_not_read() -> None:
    # 18 replies; 4 the released regex cannot read ("Coherence: 4" twice, "n/a", "-"), of
    # which the tolerant parser reads the two labelled ones: shares 4/18 and 2/18.
    texts = [list(t) for t in GOOD]
    texts[0][1], texts[3][0] = "Coherence: 4", "n/a"
    texts[4][1], texts[8][0] = "- Coherence: 4", "-"
    rows = tables(replies({"coherence": texts}))["correlations"]
    coherence = rows[rows["dimension"] == "coherence"]
    for variant, share, treated in (
        ("mean-of-2/original", 4 / 18, "scored 0 and still counted"),
        ("mean-of-2/tolerant", 2 / 18, "left out"),
        ("mode-reply/original", 4 / 18, "scored 0 and still counted"),
    ):
        part = coherence[coherence["variant"] == variant]
        assert part["share_unread"].to_numpy() == pytest.approx(share), variant
        assert (
            part["note"]
            .str.contains(f"{share:.0%} of the replies unread by this parser \\({treated}\\)")
            .all()
        )
    first = coherence[coherence["variant"].str.startswith("first-reply")]
    assert first["share_unread"].isna().all() and not first["note"].str.contains("unread").any()
    assert "coverage" not in " ".join(rows["note"])  # no log-probabilities in this run


def test_unequal_reply_counts_are_not_called_mean_of_n() -> None:
    uneven = [texts + ["3"] * (3 if i < 7 else 0) for i, texts in enumerate(GOOD)]
    rows = tables(replies({"coherence": uneven}))["correlations"]
    means = rows[rows["variant"].str.startswith("mean")]
    assert set(means["variant"]) == {"mean-of-available/original", "mean-of-available/tolerant"}
    dims = means[means["dimension"] == "coherence"]
    assert dims["note"].str.contains("2 of 9 items have fewer than 5 \\(as few as 2\\)").all()
    even = tables(replies({"coherence": GOOD}))["correlations"]
    assert "mean-of-2/original" in set(even["variant"])


def test_released_format_for_topical_chat_items(tmp_path: Path) -> None:
    human = pd.DataFrame(
        {
            "item_id": [0, 1, 2],
            "naturalness": [1.0, 2.0, 3.0],
            "coherence": 2.0,
            "engagingness": 2.0,
            "groundedness": 1.0,
        }
    )
    items = [
        {"item_id": 0, "all_responses": ["1", "2"]},
        {"item_id": 2, "all_responses": ["3"], "scores": {"naturalness": 3.0}},
    ]
    path = tmp_path / "naturalness.json"
    path.write_text(json.dumps(items))
    table = load_released_replies(path, "t", "naturalness", human, benchmark="topical_chat")
    assert list(table.columns) == [
        "judge",
        "benchmark",
        "dimension",
        "item_id",
        "reply_index",
        "reply",
    ]
    assert table["item_id"].tolist() == [0, 0, 2]
    items[1]["scores"]["naturalness"] = 2.0
    path.write_text(json.dumps(items))
    with pytest.raises(
        ValueError, match=r"item 1 \(item_id=2\) has scores\['naturalness'\] = 2\.0"
    ):
        load_released_replies(path, "t", "naturalness", human, benchmark="topical_chat")
    items[1]["item_id"] = "2"
    path.write_text(json.dumps(items))
    with pytest.raises(ValueError, match=r"item 1 \(item_id='2'\) has item_id '2', not a non-neg"):
        load_released_replies(path, "t", "naturalness", human, benchmark="topical_chat")
    with pytest.raises(ValueError, match="unknown Topical-Chat dimension 'fluency'"):
        load_released_replies(path, "t", "fluency", human, benchmark="topical_chat")


def test_a_nan_human_score_in_a_summeval_replies_file_is_caught(tmp_path: Path) -> None:
    fixture = (
        Path(__file__).resolve().parent / "fixtures" / "judge_fixture" / "gpt4_coh_fixture.json"
    )
    items = json.loads(fixture.read_text())[:2]
    human = pd.DataFrame(
        {
            "doc_id": [i["doc_id"] for i in items],
            "system_id": [i["system_id"] for i in items],
            **{
                k: [i["scores"][k] for i in items]
                for k in ("coherence", "consistency", "fluency", "relevance", "overall")
            },
        }
    )
    items[1]["scores"]["relevance"] = float("nan")
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(items))  # json writes NaN, which Python's reader accepts
    with pytest.raises(ValueError, match=r"item 1 .* scores\['relevance'\] = nan, not a finite"):
        load_released_replies(path, "t", "coherence", human, benchmark="summeval")
