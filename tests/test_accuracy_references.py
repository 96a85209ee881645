"""Reference rows of the pairwise-accuracy table: a constant metric and a random order,
against a brute-force count written here from the definitions (every pair counted, every
order of the items enumerated), never from the code under test; and the table's rankings,
each on its own items with its own references."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.stats.accuracy import reference_accuracies
from geval_repro.tables.paired_tests import Scored
from geval_repro.tables.pairwise_accuracy import (
    CONSTANT,
    RANDOM,
    accuracy_blocks,
    pairwise_accuracy_table,
)
from geval_repro.tables.rows import table_rows

NAN = np.nan
SUMMEVAL = get_benchmark("summeval")


def _accuracy(metric: list[float], human: list[float]) -> Fraction:
    """acc_eq of one group by counting its pairs: right when both tie, or neither ties and
    they agree in sign."""
    right = total = 0
    for i, j in itertools.combinations(range(len(human)), 2):
        h, d = human[i] - human[j], metric[i] - metric[j]
        total += 1
        right += (h == 0 and d == 0) or (h != 0 and d != 0 and (h > 0) == (d > 0))
    return Fraction(right, total)


def _groups(human: np.ndarray, level: str) -> list[list[float]]:
    """The groups whose pairs the level compares: present cells per column (summary), the
    system means over present cells (system), all present cells (global); two or more."""
    if level == "summary":
        groups = [[v for v in column if not np.isnan(v)] for column in human.T]
    elif level == "system":
        groups = [[float(np.nanmean(row)) for row in human if not np.isnan(row).all()]]
    else:
        groups = [[v for v in human.ravel() if not np.isnan(v)]]
    return [g for g in groups if len(g) >= 2]


def _expected_random(groups: list[list[float]]) -> Fraction:
    """The mean over every strict order of each group's items (all combinations, equally
    likely) of the mean over groups of acc_eq: a random order's expected accuracy."""
    per_group = []
    for group in groups:
        orders = list(itertools.permutations(range(len(group))))
        per_group.append(sum(_accuracy(list(order), group) for order in orders) / len(orders))
    return sum(per_group) / len(per_group)  # the mean of means is linear: exact


# Summary level, unequal pair counts: document 0 has four summaries (6 pairs, 1 tied),
# document 1 three (3 pairs, all tied), document 2 two (1 pair, untied), document 3 one
# (no pair: not counted).
SUMMARY = np.array(
    [
        [1.0, 1.0, 5.0, 2.0],
        [2.0, 1.0, NAN, NAN],
        [2.0, NAN, NAN, NAN],
        [3.0, 1.0, 4.0, NAN],
    ]
)
GLOBAL = np.array([[0.0, 0.5, 0.5, 1.0, NAN, 0.5, 0.25]])


def test_references_by_hand_at_the_summary_level() -> None:
    # tied shares 1/6, 3/3, 0/1 -> constant (1/6 + 1 + 0) / 3 = 7/18, random (1 - 7/18) / 2
    got = reference_accuracies(SUMMARY, "summary")
    assert got.constant == pytest.approx(7 / 18, abs=1e-15)
    assert got.random == pytest.approx(11 / 36, abs=1e-15)
    assert (got.n_pairs, got.n_groups) == (10, 3)


@pytest.mark.parametrize(
    ("human", "level"), [(SUMMARY, "summary"), (SUMMARY, "system"), (GLOBAL, "global")]
)
def test_references_equal_a_brute_force_count(human: np.ndarray, level: str) -> None:
    groups = _groups(human, level)
    constant = sum(_accuracy([0.0] * len(g), g) for g in groups) / len(groups)
    got = reference_accuracies(human, level)
    assert got.constant == pytest.approx(float(constant), abs=1e-15)
    assert got.random == pytest.approx(float(_expected_random(groups)), abs=1e-15)


def test_no_pair_no_reference() -> None:
    got = reference_accuracies(np.array([[1.0, NAN], [NAN, 2.0]]), "summary")
    assert np.isnan(got.constant) and np.isnan(got.random) and got.n_pairs == 0


def _summeval(docs: int, systems: int, seed: int) -> pd.DataFrame:
    """A SummEval-shaped tidy table: coherence on a 1-3 scale (many ties)."""
    rng = np.random.default_rng(seed)
    keys = itertools.product([f"d{i}" for i in range(docs)], [f"S{k}" for k in range(systems)])
    tidy = pd.DataFrame(list(keys), columns=["doc_id", "system_id"])
    return tidy.assign(coherence=rng.integers(1, 4, len(tidy)).astype(float))


def _scored(name: str, tidy: pd.DataFrame, rows: np.ndarray, seed: int) -> Scored:
    scores = tidy.loc[rows, ["doc_id", "system_id"]].assign(
        score=np.random.default_rng(seed).normal(size=len(rows))
    )
    return Scored(name, "v", "judge", "recomputed", {"coherence": scores})


def _rows(tidy: pd.DataFrame, metric: Scored) -> pd.DataFrame:
    table = tidy.merge(metric.scores["coherence"], on=["doc_id", "system_id"], how="left")
    return table_rows(
        table,
        benchmark=SUMMEVAL,
        dimension="coherence",
        metric=metric.metric,
        variant=metric.variant,
        metric_column="score",
        human_column="coherence",
        n_resamples=0,
        seed=1,
    )


def test_each_ranking_gets_its_references_on_its_own_items() -> None:
    """Two metrics on every item (the full ranking) and a partial run on seven of them,
    unevenly spread over the documents: the partial run's rows are ranked apart, and each
    ranking's references are the brute-force values on its own items."""
    tidy = _summeval(docs=4, systems=5, seed=3)
    partial_rows = np.array([0, 1, 2, 5, 6, 10, 11])  # 3, 2 and 2 summaries of 3 documents
    metrics = [
        _scored("a", tidy, np.arange(len(tidy)), 1),
        _scored("b", tidy, np.arange(len(tidy)), 2),
        _scored("p", tidy, partial_rows, 3),
    ]
    rows = pd.concat([_rows(tidy, m) for m in metrics], ignore_index=True)
    blocks = accuracy_blocks(SUMMEVAL, tidy, metrics)
    table = pairwise_accuracy_table(rows, blocks)

    assert list(table["ranking"]) == ["full"] * 4 + ["partial: p, 7 items"] * 3
    assert set(table.loc[table["ranking"] == "full", "metric"]) == {
        "a",
        "b",
        *[CONSTANT[0], RANDOM[0]],
    }
    human = tidy["coherence"].to_numpy()
    for ranking, items in (("full", np.arange(len(tidy))), ("partial: p, 7 items", partial_rows)):
        matrix = np.full((5, 4), NAN)
        for row in items:
            matrix[row % 5, row // 5] = human[row]
        groups = _groups(matrix, "summary")
        part = table[table["ranking"] == ranking].set_index("metric")
        constant = sum(_accuracy([0.0] * len(g), g) for g in groups) / len(groups)
        assert part.loc[CONSTANT[0], "acc_eq"] == pytest.approx(float(constant), abs=1e-15)
        assert part.loc[CONSTANT[0], "acc_eq_calibrated"] == part.loc[CONSTANT[0], "acc_eq"]
        assert part.loc[RANDOM[0], "acc_eq"] == pytest.approx(
            float(_expected_random(groups)), abs=1e-15
        )
        assert np.isnan(part.loc[RANDOM[0], "acc_eq_calibrated"])
        assert part.loc[CONSTANT[0], "n_items"] == len(items)
        metric_rows = part.drop(index=[CONSTANT[0], RANDOM[0]])
        assert (metric_rows["n_items"] == len(items)).all()
        # a metric's acc*_eq never falls below the constant metric's
        assert (metric_rows["acc_eq_calibrated"] >= part.loc[CONSTANT[0], "acc_eq"] - 1e-12).all()
        ranked = part["acc_eq_calibrated"].fillna(part["acc_eq"])
        assert ranked.is_monotonic_decreasing  # best first, within the ranking only
    assert (table["status"] == "recomputed").all()


def test_a_row_without_a_ranking_is_an_error() -> None:
    tidy = _summeval(docs=2, systems=3, seed=1)
    metric = _scored("a", tidy, np.arange(len(tidy)), 1)
    rows = _rows(tidy, metric)
    blocks = accuracy_blocks(SUMMEVAL, tidy, [])
    with pytest.raises(ValueError, match=r"have no ranking, e\.g\. summeval coherence a "):
        pairwise_accuracy_table(rows, blocks)


def test_the_committed_table_has_references_in_every_ranking() -> None:
    """The committed pairwise-accuracy table: each ranking of a benchmark and dimension has
    one constant and one random reference row, on its items; the full rankings rest on the
    full items; and the constant references match the values an independent check of
    issue 23 found (SummEval consistency 0.673, QAGS-XSum 0.498)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "results" / "tables" / "pairwise_accuracy.csv"
    table = pd.read_csv(path)
    for _, ranking in table.groupby(["benchmark", "dimension", "ranking"]):
        assert (ranking["metric"] == CONSTANT[0]).sum() == 1
        assert (ranking["metric"] == RANDOM[0]).sum() == 1
        assert ranking["n_items"].nunique() == 1  # one set of items per ranking
    full = table[table["ranking"] == "full"]
    expected = {
        "summeval": [1600],
        "topical_chat": [300],
        "qags_cnndm": [235],
        "qags_xsum": [239],
        "dialsummeval": [1300],
        "sfres": [1181],
        "sfhot": [875],
    }
    assert full.groupby("benchmark")["n_items"].unique().map(list).to_dict() == expected
    assert not (full["status"] == "toolkit-run").any()
    constant = full[full["metric"] == CONSTANT[0]].set_index(["benchmark", "dimension"])["acc_eq"]
    assert constant[("summeval", "consistency")] == pytest.approx(0.673, abs=5e-4)
    assert constant[("qags_xsum", "consistency")] == pytest.approx(0.498, abs=5e-4)
    metrics = full[~full["metric"].str.startswith("reference: ")]
    floor = metrics.join(constant.rename("floor"), on=["benchmark", "dimension"])
    defined = floor["acc_eq_calibrated"].notna()
    assert (floor.loc[defined, "acc_eq_calibrated"] >= floor.loc[defined, "floor"] - 1e-12).all()
