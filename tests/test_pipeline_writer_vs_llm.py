"""The writer-vs-LLM analysis in the pipeline, offline from the mirror: the shared pipeline
run (tests/conftest.py: the fixture config, whose FIXTURE judge run ``fixture-writer-vs-llm``
is on the benchmark ``writer_vs_llm``) writes its three tables and its figure.

The expected values are computed here from the raw files alone, with ``json`` and
``hashlib`` (the mirror's judgements file, the fixture's JSONL): the group means of the
replies' mean score and of the summaries' length in words, and the humans' preference
rates. No code of the package computes them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, PipelineRun

BENCHMARK = "writer_vs_llm"
JUDGE = "fixture-writer-vs-llm"
TABLES = ("group_means", "accuracy", "preferences")
FIXTURE_DIR = REPO_ROOT / "tests" / "fixtures" / "judge_fixture_writer_vs_llm"


def _judgements(mirror_dir: Path) -> list[dict]:
    (path,) = mirror_dir.glob(
        "Tiiiger/benchmark_llm_summarization/*/pairwise_evaluation_results.json"
    )
    return json.loads(path.read_text(encoding="utf-8"))


def _item_id(article_id: str, summary: str) -> str:
    return hashlib.sha256(f"{article_id}\n{summary}".encode()).hexdigest()[:12]


def _preference(value: object) -> str:
    """The release's ``*_writer_better``: true / false (JSON or as text) / "Equally Good"."""
    text = str(value)
    return {"True": "writer", "False": "llm", "Equally Good": "tie"}[text]


def _reply_means(dimension: str) -> dict[str, float]:
    """item_id -> mean of its replies read as integers (every fixture reply is a bare rating)."""
    means = {}
    for line in (FIXTURE_DIR / f"{dimension}.jsonl").read_text().splitlines():
        record = json.loads(line)
        means[record["item_id"]] = float(np.mean([int(r) for r in record["replies"]]))
    return means


@pytest.fixture(scope="module")
def tables(pipeline_run: PipelineRun) -> dict[str, pd.DataFrame]:
    folder = pipeline_run.results / "tables" / BENCHMARK
    return {name: pd.read_csv(folder / f"{name}.csv") for name in TABLES}


def test_tables_and_figure_are_written_with_sidecars(pipeline_run: PipelineRun) -> None:
    results = pipeline_run.results
    for name in TABLES:
        for ext in ("csv", "md"):
            path = results / "tables" / BENCHMARK / f"{name}.{ext}"
            assert path.is_file() and Path(f"{path}.provenance.json").is_file(), path
    for ext in ("png", "svg"):
        figure = results / "figures" / f"{BENCHMARK}_group_means.{ext}"
        assert figure.stat().st_size > 10_000 and Path(f"{figure}.provenance.json").is_file()
    logs = results / "logs" / BENCHMARK
    for name in (f"{JUDGE}_rows", "reference_free_rows", "tables", "figure"):
        assert (logs / f"{name}.log").stat().st_size > 0, name
    # no correlation, sweep or test against baselines for a benchmark without human scores
    judge = results / "tables" / "judges" / JUDGE
    assert sorted(p.stem for p in judge.glob("*.csv")) == ["diagnostics", "rating_items"]


def test_every_row_says_what_it_is(tables: dict[str, pd.DataFrame]) -> None:
    for name, table in tables.items():
        status = dict(zip(table["metric"], table["status"], strict=True))
        assert status == {JUDGE: "fixture", "length": "recomputed", "novel bigrams": "recomputed"}
        judge = table[table["metric"] == JUDGE]
        # the fixture's replies all parse: both parsers give every summary the same mean,
        # shown once under both names; Eq. 1 differs
        assert set(judge["variant"]) == {
            "mean-of-20/original = tolerant",
            "probability-weighted rating (Eq. 1)",
        }, name


def test_group_means_are_those_of_the_raw_files(
    mirror_dir: Path, tables: dict[str, pd.DataFrame]
) -> None:
    records = _judgements(mirror_dir)
    means = _reply_means("coherence")
    lengths = {}
    for r in records:
        lengths[_item_id(r["article_id"], r["writer_summary"])] = len(r["writer_summary"].split())
        llm = r["text-davinci-002_summary"]
        lengths[_item_id(r["article_id"], llm)] = len(llm.split())
    rows = tables["group_means"]
    for metric, variant, dimension, score in (
        (JUDGE, "mean-of-20/original = tolerant", "coherence", means),
        ("length", "reference-free measure", "words", lengths),
    ):
        for group in ("writer", "llm", "tie"):
            chosen = [r for r in records if _preference(r["overall_writer_better"]) == group]
            writer = [score[_item_id(r["article_id"], r["writer_summary"])] for r in chosen]
            llm = [score[_item_id(r["article_id"], r["text-davinci-002_summary"])] for r in chosen]
            got = rows[
                (rows["metric"] == metric)
                & (rows["variant"] == variant)
                & (rows["dimension"] == dimension)
                & (rows["question"] == "overall")
                & (rows["preference"] == group)
            ].set_index("author")
            assert got.loc["writer", "value"] == pytest.approx(np.mean(writer), abs=1e-12)
            assert got.loc["llm", "value"] == pytest.approx(np.mean(llm), abs=1e-12)
            assert got.loc["llm - writer", "value"] == pytest.approx(
                np.mean(llm) - np.mean(writer), abs=1e-12
            )
            assert set(got["n_judgements"]) == {len(chosen)}
            articles = {r["article_id"] for r in chosen}
            assert set(got["n_articles"]) == {len(articles)}


def test_human_preference_rates_are_the_release_counts(tables: dict[str, pd.DataFrame]) -> None:
    # overall: 243 writer better, 239 LLM better, 117 equally good (599 judgements)
    rows = tables["preferences"]
    humans = rows[
        (rows["metric"] == "length")
        & (rows["question"] == "overall")
        & (rows["length_stratum"] == "all")
        & (rows["rater"] == "humans")
    ].set_index("outcome")
    assert humans.loc["writer", "value"] == pytest.approx(243 / 599)
    assert humans.loc["llm", "value"] == pytest.approx(239 / 599)
    assert humans.loc["tie", "value"] == pytest.approx(117 / 599)
    assert humans.loc["llm - writer", "value"] == pytest.approx((239 - 243) / 599)


def test_a_variant_standing_for_two_is_named_for_both() -> None:
    from geval_repro.pipeline.writer_vs_llm import same_scores_name

    assert same_scores_name("mean-of-1/original", "mean-of-1/tolerant") == (
        "mean-of-1/original = tolerant"
    )
    assert same_scores_name("probability-weighted rating (Eq. 1)", "mean-of-1/tolerant") == (
        "probability-weighted rating (Eq. 1) = mean-of-1/tolerant"
    )
