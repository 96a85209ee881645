"""Rows beside the correlations: pairwise accuracy with ties (acc_eq and the tie-calibrated
acc*_eq with its epsilon) at the benchmark's level, and SummEval's system level. Known
answers from a brute force written here from the definitions and from scipy on the system
means; never from the code under test."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.tables.paired_tests import Scored
from geval_repro.tables.pairwise_accuracy import accuracy_blocks, pairwise_accuracy_table
from geval_repro.tables.rows import COLUMNS, MIN_BOOTSTRAP_UNITS, table_rows

SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def _accuracy(pairs: list[tuple[float, float]], epsilon: float) -> Fraction:
    """Share of (metric difference, human difference) pairs ordered alike, ties included."""
    correct = 0
    for d, h in pairs:
        metric_tie, human_tie = abs(d) <= epsilon + 1e-12, abs(h) < 1e-9
        correct += metric_tie == human_tie and (human_tie or (d > 0) == (h > 0))
    return Fraction(correct, len(pairs))


def _calibrated(groups: list[list[tuple[float, float]]]) -> tuple[float, float]:
    """Best mean accuracy over every candidate epsilon (0 and each |d|), smallest on ties."""
    candidates = sorted({0.0} | {round(abs(d), 9) for g in groups for d, _ in g})
    best = max(candidates, key=lambda e: (sum(_accuracy(g, e) for g in groups), -e))
    return float(sum(_accuracy(g, best) for g in groups) / len(groups)), best


def _pairs(metric: np.ndarray, human: np.ndarray) -> list[tuple[float, float]]:
    return [
        (metric[i] - metric[j], human[i] - human[j])
        for i, j in itertools.combinations(range(len(metric)), 2)
    ]


@pytest.fixture
def summary_table() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    # as many documents as a row needs for an interval (tables.rows.MIN_BOOTSTRAP_UNITS)
    docs = [f"d{i}" for i in range(MIN_BOOTSTRAP_UNITS)]
    systems = [f"S{k}" for k in range(5)]
    keys = pd.DataFrame(list(itertools.product(docs, systems)), columns=["doc_id", "system_id"])
    human = rng.integers(1, 4, size=len(keys)).astype(float)
    judge = np.round(human + rng.integers(-1, 2, size=len(keys)) * 0.5, 1)
    return keys.assign(judge=judge, human=human)


def _rows(table: pd.DataFrame, level: str, inputs: str) -> pd.DataFrame:
    """Rows of a benchmark at ``level`` (SummEval: summary, by document; QAGS-XSum: global,
    by item); ``inputs`` is that benchmark's input column."""
    benchmark = get_benchmark("summeval" if level == "summary" else "qags_xsum")
    assert benchmark.level == level and benchmark.input_key == inputs
    return table_rows(
        table,
        benchmark=benchmark,
        dimension="coherence" if level == "summary" else "consistency",
        metric="m",
        variant="v",
        metric_column="judge",
        human_column="human",
        n_resamples=40,
        seed=2,
    )


def test_summary_level_accuracies_equal_the_definition(summary_table: pd.DataFrame) -> None:
    table = _rows(summary_table, "summary", "doc_id")
    assert list(table.columns) == COLUMNS
    rows = table.set_index(["level", "coefficient"])
    groups = [
        _pairs(part["judge"].to_numpy(), part["human"].to_numpy())
        for _, part in summary_table.groupby("doc_id")
    ]
    plain = float(sum(_accuracy(g, 0.0) for g in groups) / len(groups))
    assert rows.loc[("summary", "acc_eq"), "value"] == pytest.approx(plain, abs=1e-12)
    assert rows.loc[("summary", "acc_eq"), "epsilon"] == 0.0
    value, epsilon = _calibrated(groups)
    fitted = rows.loc[("summary", "acc_eq_calibrated")]
    assert fitted["value"] == pytest.approx(value, abs=1e-12)
    assert fitted["epsilon"] == pytest.approx(epsilon, abs=1e-9)
    assert fitted["ci_low"] <= fitted["value"] <= fitted["ci_high"]
    assert fitted["n_groups"] == 10 and fitted["n_items"] == 50


def test_system_level_rows_equal_scipy_on_the_system_means(summary_table: pd.DataFrame) -> None:
    rows = _rows(summary_table, "summary", "doc_id")
    system = rows[rows["level"] == "system"].set_index("coefficient")
    assert sorted(system.index) == ["kendall", "pearson", "spearman"]  # no accuracies here
    means = summary_table.groupby("system_id")[["judge", "human"]].mean()
    for coefficient, function in SCIPY.items():
        expected = function(means["judge"], means["human"])[0]
        assert system.loc[coefficient, "value"] == pytest.approx(expected, abs=1e-12)
        assert system.loc[coefficient, "n_groups"] == len(means)  # the systems correlated
        assert system.loc[coefficient, "ci_low"] <= system.loc[coefficient, "ci_high"]
    assert system["paper_value"].isna().all()  # the paper prints no system level


def test_global_level_accuracies_equal_the_definition() -> None:
    human = np.array([0.0, 0.2, 0.2, 0.5, 0.9, 1.0, 0.3, 0.3])
    judge = np.array([1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 2.0, 2.5])
    table = pd.DataFrame({"item_id": range(8), "judge": judge, "human": human})
    rows = _rows(table, "global", "item_id").set_index("coefficient")
    pairs = _pairs(judge, human)
    assert rows.loc["acc_eq", "value"] == pytest.approx(float(_accuracy(pairs, 0.0)), abs=1e-12)
    value, epsilon = _calibrated([pairs])
    assert rows.loc["acc_eq_calibrated", "value"] == pytest.approx(value, abs=1e-12)
    assert rows.loc["acc_eq_calibrated", "epsilon"] == pytest.approx(epsilon, abs=1e-9)
    assert set(rows["level"]) == {"global"}


def test_the_pairwise_accuracy_table_holds_both_accuracies(summary_table: pd.DataFrame) -> None:
    rows = pd.concat(
        [
            _rows(summary_table, "summary", "doc_id"),
            _rows(summary_table.assign(judge=summary_table["human"]), "summary", "doc_id").assign(
                metric="perfect"
            ),
        ],
        ignore_index=True,
    )
    keys = summary_table[["doc_id", "system_id"]]
    metrics = [
        Scored(name, "v", "judge", "recomputed", {"coherence": keys.assign(score=scores)})
        for name, scores in (("m", summary_table["judge"]), ("perfect", summary_table["human"]))
    ]
    tidy = summary_table.assign(coherence=summary_table["human"])
    table = pairwise_accuracy_table(rows, accuracy_blocks(get_benchmark("summeval"), tidy, metrics))
    table = table[~table["metric"].str.startswith("reference: ")]  # tests/test_accuracy_references
    assert list(table["metric"]) == ["perfect", "m"]  # the best acc*_eq first
    perfect = table.iloc[0]
    assert perfect["acc_eq"] == 1.0 and perfect["acc_eq_calibrated"] == 1.0
    fitted = rows[(rows["metric"] == "m") & (rows["coefficient"] == "acc_eq_calibrated")]
    assert table.iloc[1]["epsilon"] == fitted["epsilon"].item()
    assert table.iloc[1]["ci_low"] == fitted["ci_low"].item()
