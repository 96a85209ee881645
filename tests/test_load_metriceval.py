"""Tests of geval_repro.load.metriceval against summeval.json and the raw CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.load import load_item_scores, load_metriceval_experts, load_summeval
from geval_repro.registry.sources import get_source

DIMENSIONS = ["coherence", "consistency", "fluency", "relevance"]
CODES = ["COH", "CON", "FLU", "REL"]


def csv_path(mirror_dir: Path, run: int = 1) -> Path:
    source = "metriceval_scores" if run == 1 else "metriceval_scores_2nd_run"
    return mirror_dir / get_source(source).relpath


def raw_rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_raw_file_has_an_extra_system(mirror_dir: Path) -> None:
    rows = raw_rows(csv_path(mirror_dir))
    assert len(rows) == 1700
    extra = {row["model_id"] for row in rows} - set(
        load_summeval(mirror_dir / get_source("summeval").relpath)["system_id"]
    )
    assert extra == {"M23_dynamicmix"}


def test_experts_cover_exactly_the_summeval_summaries(mirror_dir: Path) -> None:
    experts = load_metriceval_experts(csv_path(mirror_dir))
    assert experts.shape == (19200, 5)
    assert list(experts.columns) == ["doc_id", "system_id", "expert", "dimension", "score"]
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    assert set(zip(experts["doc_id"], experts["system_id"], strict=True)) == set(
        zip(summeval["doc_id"], summeval["system_id"], strict=True)
    )
    assert sorted(experts["expert"].unique()) == [1, 2, 3]


def test_mean_of_three_experts_is_summeval_score(mirror_dir: Path) -> None:
    experts = load_metriceval_experts(csv_path(mirror_dir))
    means = experts.pivot_table(
        index=["doc_id", "system_id"], columns="dimension", values="score", aggfunc="mean"
    )
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    expected = summeval.set_index(["doc_id", "system_id"])[DIMENSIONS]
    assert len(expected) == 1600
    np.testing.assert_allclose(
        means.loc[expected.index, DIMENSIONS].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize("run", [1, 2])
@pytest.mark.parametrize("version", ["3.5", "4"])
def test_judge_scores_are_the_file_columns(mirror_dir: Path, run: int, version: str) -> None:
    path = csv_path(mirror_dir, run)
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    columns = {"doc_id": "test_id", "system_id": "model_id"}
    columns |= {
        dim: f"G.EVAL.{version}.{code}" for dim, code in zip(DIMENSIONS, CODES, strict=True)
    }
    table = load_item_scores(
        path, f"run{run}", columns, summeval, extra_items="drop", benchmark="summeval"
    )
    assert table.shape == (6400, 6)
    assert list(table.columns) == [
        "judge",
        "benchmark",
        "dimension",
        "doc_id",
        "system_id",
        "score",
    ]
    rows = [row for row in raw_rows(path) if row["model_id"] != "M23_dynamicmix"]
    for dimension, code in zip(DIMENSIONS, CODES, strict=True):
        got = table[table["dimension"] == dimension].set_index(["doc_id", "system_id"])["score"]
        want = pd.Series(
            [float(row[f"G.EVAL.{version}.{code}"]) for row in rows],
            index=pd.MultiIndex.from_tuples([(r["test_id"], r["model_id"]) for r in rows]),
        )
        assert got.loc[want.index].tolist() == want.tolist()


def test_scores_outside_summeval_are_an_error_unless_dropped(mirror_dir: Path) -> None:
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    columns = {"doc_id": "test_id", "system_id": "model_id", "fluency": "G.EVAL.4.FLU"}
    with pytest.raises(ValueError, match=r"100 row\(s\) are not SummEval.*M23_dynamicmix"):
        load_item_scores(csv_path(mirror_dir), "run1", columns, summeval, benchmark="summeval")
    with pytest.raises(ValueError, match="lacks"):
        wrong = {**columns, "fluency": "X"}
        load_item_scores(csv_path(mirror_dir), "run1", wrong, summeval, benchmark="summeval")


def test_judge_scores_are_standardized_over_all_1700_rows(mirror_dir: Path) -> None:
    """The docstring's claim: each G-Eval column is z-scored over the file's 1,700 rows."""
    rows = raw_rows(csv_path(mirror_dir))
    for version in ["3.5", "4"]:
        for code in CODES:
            values = np.array([float(row[f"G.EVAL.{version}.{code}"]) for row in rows])
            assert abs(values.mean()) < 1e-9
            assert abs(values.std(ddof=1) - 1) < 1e-9


def test_missing_column_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(csv_path(mirror_dir)).drop(columns="Expert.2.FLU")
    path = tmp_path / "metric_scores_long.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"metric_scores_long\.csv: missing column.*Expert\.2\.FLU"
    ):
        load_metriceval_experts(path)


def test_out_of_range_rating_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(csv_path(mirror_dir))
    frame.loc[3, "Expert.3.REL"] = 6
    path = tmp_path / "metric_scores_long.csv"
    frame.to_csv(path, index=False)
    doc_id, system_id = frame.loc[3, "test_id"], frame.loc[3, "model_id"]
    with pytest.raises(ValueError, match=rf"in_range.*doc_id='{doc_id}', system_id='{system_id}'"):
        load_metriceval_experts(path)
