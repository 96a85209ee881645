"""Tests of geval_repro.load.metriceval against summeval.json and the raw CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.config import DEFAULT_CONFIG_PATH, judge_spec, load_config
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
    assert list(experts.columns) == ["doc_id", "system_id", "annotator", "dimension", "score"]
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    assert set(zip(experts["doc_id"], experts["system_id"], strict=True)) == set(
        zip(summeval["doc_id"], summeval["system_id"], strict=True)
    )
    assert sorted(experts["annotator"].unique()) == [1, 2, 3]


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


def normalize2(x: np.ndarray) -> np.ndarray:
    """MetricEval's normalize2 (isle-dev/MetricEval at the pinned commit,
    supplementary_materials/MetricEval_CaseStudy.Rmd), written here from its R source:
    ``scale(sapply(x, function(y) qnorm(.001 + .998 * mean(x <= y))))``: each value's share
    of values at most it, mapped to a normal quantile, then centred and divided by the
    sample standard deviation (R's ``scale``)."""
    ordered = np.sort(x)
    at_most = np.searchsorted(ordered, x, side="right") / len(x)  # mean(x <= y)
    quantiles = stats.norm.ppf(0.001 + 0.998 * at_most)
    return (quantiles - quantiles.mean()) / quantiles.std(ddof=1)


@pytest.mark.parametrize(("run", "tolerance"), [(1, 1e-13), (2, 1e-7)])
def test_every_metric_column_is_metriceval_rank_normal_transform(
    mirror_dir: Path, run: int, tolerance: float
) -> None:
    """The loader's and the config's claim (scale: rank-normal): every metric column of the
    file, G-Eval's included, is normalize2 of some scores over all 1,700 rows. normalize2
    depends on the order of its input only, so a column it produced is a fixed point:
    normalize2(column) == column (run 2's file rounds to 9-10 digits: 2.5e-8 at worst)."""
    frame = pd.read_csv(csv_path(mirror_dir, run))
    assert len(frame) == 1700
    metrics = [c for c in frame.columns[2:] if not c.startswith("Expert.")]
    assert {f"G.EVAL.{v}.{c}" for v in ("3.5", "4") for c in CODES} <= set(metrics)
    for column in metrics:
        values = frame[column].to_numpy(dtype=float)
        assert np.abs(normalize2(values) - values).max() < tolerance, column
    # not a z-score of the judge's 1-5 means: a rank-normal column is near-normal in shape
    # (G-Eval-4 coherence: skewness ~0.03, excess kurtosis ~-0.15), whatever the raw shape
    geval4 = frame["G.EVAL.4.COH"].to_numpy(dtype=float)
    assert abs(stats.skew(geval4)) < 0.1 and abs(stats.kurtosis(geval4)) < 0.3


def test_configured_metriceval_runs_say_their_scores_are_rank_normal() -> None:
    config = load_config(DEFAULT_CONFIG_PATH)
    runs = {n: judge_spec(n, e) for n, e in config["judges"].items() if "metriceval" in n}
    assert len(runs) == 4
    for spec in runs.values():
        assert spec.scale == "rank-normal"
        assert "rank-normal" in spec.label and "z-scored" not in spec.label
        assert spec.files["*"].source in {"metriceval_scores", "metriceval_scores_2nd_run"}


def test_annotated_experts_keep_the_seventeenth_system(mirror_dir: Path) -> None:
    experts = load_metriceval_experts(csv_path(mirror_dir), annotated=True)
    assert experts.shape == (20400, 5)
    assert experts["system_id"].nunique() == 17
    assert "M23_dynamicmix" in set(experts["system_id"])
    without = load_metriceval_experts(csv_path(mirror_dir))
    keys = ["doc_id", "system_id", "annotator", "dimension"]
    shared = experts[experts["system_id"] != "M23_dynamicmix"].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        shared.sort_values(keys, ignore_index=True), without.sort_values(keys, ignore_index=True)
    )


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
