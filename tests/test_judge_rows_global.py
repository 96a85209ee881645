"""Known answers: turn-level (Topical-Chat) and dataset-level (QAGS) judge rows vs scipy.

Hand-built per-item score files go through the real path (the ``scores`` loader, the judge
tables, the QAGS average of two subset runs); every value is compared with
scipy.stats.pearsonr / spearmanr / kendalltau on the same numbers pooled over all items.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from geval_repro.load import load_item_scores
from geval_repro.pipeline.judge_tables import write_result_tables
from geval_repro.report.table_files import write_pair
from geval_repro.tables.judge_rows import subset_average_rows
from tests.conftest import settings, spec

SCIPY = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}
SETTINGS = settings(seed=7, bootstrap_resamples=50, pass_threshold=0.75)
ITEMS = np.arange(12)
# Topical-Chat human scores (naturalness, coherence, engagingness on 1-3; groundedness 0-1)
# and the judge's per-item scores, typed in by hand (ties included on purpose).
TOPICAL = {
    "naturalness": (
        [3, 2.67, 2, 1, 3, 2.33, 1.67, 3, 2, 2.67, 1, 2.33],
        [3, 3, 2, 1, 2, 2, 2, 3, 1, 3, 1, 2],
    ),
    "coherence": (
        [2, 3, 1.33, 2.67, 3, 1, 2, 2.33, 3, 1.67, 2, 2.67],
        [2.5, 3, 1, 2, 3, 1.5, 2, 2, 2.5, 1, 2, 3],
    ),
    "engagingness": (
        [1, 2, 3, 2.33, 1.67, 3, 2, 1, 2.67, 3, 1.33, 2],
        [1, 2, 3, 2, 2, 3, 2, 1, 3, 2, 1, 2],
    ),
    "groundedness": (
        [0, 1, 0.33, 0.67, 1, 0, 0, 1, 0.67, 0.33, 1, 0],
        [0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0],
    ),
}
QAGS = {
    "qags_cnndm": (
        [1, 0.5, 0, 1, 0.75, 0.25, 1, 0, 0.5, 1, 0.8, 0.2],
        [5, 3, 1, 4, 4, 2, 5, 2, 3, 5, 4, 1],
    ),
    "qags_xsum": (
        [0, 0, 1, 0.33, 1, 0.67, 0, 1, 0, 0.5, 1, 0],
        [1, 2, 4, 2, 5, 3, 1, 4, 2, 3, 5, 1],
    ),
}


def run_scores(
    tmp_path: Path, name: str, benchmark: str, human_wide: dict, judge_wide: dict
) -> Path:
    """Write a hand-built human table and scores CSV, build the run's tables, return them."""
    human = pd.DataFrame(
        {"item_id": ITEMS, **{d: np.asarray(v, float) for d, v in human_wide.items()}}
    )
    csv = tmp_path / f"{name}.csv"
    pd.DataFrame({"id": ITEMS, **{f"col_{d}": v for d, v in judge_wide.items()}}).to_csv(
        csv, index=False
    )
    columns = {"item_id": "id", **{d: f"col_{d}" for d in judge_wide}}
    scores = load_item_scores(csv, name, columns, human, benchmark=benchmark)
    scores.to_parquet(tmp_path / f"{name}.parquet")
    human.to_parquet(tmp_path / f"{name}_human.parquet")
    run = spec(
        name,
        benchmark=benchmark,
        format="scores",
        label="hand-built",
        paper_metric="G-Eval-4",
        file={"path": str(csv)},
        columns=columns,
    )
    out = tmp_path / name
    write_result_tables(
        run,
        {"scores": tmp_path / f"{name}.parquet"},
        tmp_path / f"{name}_human.parquet",
        SETTINGS,
        out,
    )
    return out / "correlations.csv"


def test_turn_level_rows_equal_scipy(tmp_path: Path) -> None:
    path = run_scores(
        tmp_path,
        "hand-tc",
        "topical_chat",
        {d: h for d, (h, _) in TOPICAL.items()},
        {d: j for d, (_, j) in TOPICAL.items()},
    )
    rows = pd.read_csv(path).set_index(["dimension", "coefficient"])
    assert set(rows["level"]) == {"global"}
    for dimension, (human, judge) in TOPICAL.items():
        for coefficient, function in SCIPY.items():
            row = rows.loc[(dimension, coefficient)]
            assert row["value"] == pytest.approx(function(judge, human)[0], abs=1e-12)
            assert row["n_items"] == 12 and row["ci_low"] <= row["value"] <= row["ci_high"]
    # Table 2 prints G-Eval-4 at the turn level: the row faces it.
    assert rows.loc[("naturalness", "spearman"), "paper_value"] == pytest.approx(0.565, abs=5e-4)
    expected = np.mean([sps.pearsonr(j, h)[0] for h, j in TOPICAL.values()])
    assert rows.loc[("AVG", "pearson"), "value"] == pytest.approx(expected, abs=1e-12)


def test_dataset_level_rows_and_the_qags_average_equal_scipy(tmp_path: Path) -> None:
    paths = {
        subset: run_scores(
            tmp_path, f"hand-{subset}", subset, {"consistency": h}, {"consistency": j}
        )
        for subset, (h, j) in QAGS.items()
    }
    for subset, (human, judge) in QAGS.items():
        rows = pd.read_csv(paths[subset]).set_index("coefficient")
        for coefficient, function in SCIPY.items():
            assert rows.loc[coefficient, "value"] == pytest.approx(
                function(judge, human)[0], abs=1e-12
            )
        assert rows.loc["pearson", "paper_value"] == pytest.approx(
            {"qags_cnndm": 0.631, "qags_xsum": 0.558}[subset], abs=5e-4
        )
    specs = {f"hand-{b}": spec(f"hand-{b}", benchmark=b, paper_metric="G-Eval-4") for b in QAGS}
    averages = subset_average_rows({f"hand-{s}": pd.read_csv(p) for s, p in paths.items()}, specs)
    average = averages[averages["dimension"] == "consistency"].set_index("coefficient")
    assert set(average["benchmark"]) == {"qags_avg"}
    assert set(average["metric"]) == {"hand-qags_cnndm + hand-qags_xsum"}
    for coefficient, function in SCIPY.items():
        expected = np.mean([function(j, h)[0] for h, j in QAGS.values()])
        assert average.loc[coefficient, "value"] == pytest.approx(expected, abs=1e-12)
    assert average.loc["pearson", "paper_value"] == pytest.approx(0.599, abs=5e-4)
    write_pair(averages, tmp_path / "averages")  # the correlation table's shape check passes


def test_no_average_from_one_subset(tmp_path: Path) -> None:
    human, judge = QAGS["qags_xsum"]
    path = run_scores(
        tmp_path, "only-xsum", "qags_xsum", {"consistency": human}, {"consistency": judge}
    )
    specs = {"only-xsum": spec("only-xsum", benchmark="qags_xsum", paper_metric="G-Eval-4")}
    assert subset_average_rows({"only-xsum": pd.read_csv(path)}, specs).empty
