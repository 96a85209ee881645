"""A judge run's rows in the binary-label table (SummEdits), on a labelled fixture: a
synthetic tidy table (not SummEdits' data) and a fixture run that scores some items of two
domains. Known values: the ROC AUC from scipy's Mann-Whitney U, the balanced accuracy and
its threshold by hand; the domains the run does not cover, a domain with fewer than 3 scored
test items and a domain whose scored evaluation items hold one class read no value and say
why."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.config import judge_spec
from geval_repro.pipeline.binary_tables import judge_label_rows
from geval_repro.registry.benchmarks import SUMMEDITS_DOMAINS
from geval_repro.tables.binary_labels import AVERAGE

FIRST, SECOND, THIRD, *OTHERS = SUMMEDITS_DOMAINS
SETTINGS = SimpleNamespace(bootstrap_resamples=50, seed=3)


def _table() -> pd.DataFrame:
    """(item_id, domain, split, doc_id, label): three domains with judged items, one item
    each split in every other domain."""
    rows = [
        # FIRST, evaluation: fit threshold 3 by hand (BAcc 1.0; 2 and 4 give 0.75)
        *[(f"a-e{i}", FIRST, "evaluation", "a-e", y) for i, y in enumerate([0, 0, 1, 1])],
        # FIRST, test: three documents judged, a fourth not
        *[
            (f"a-t{i}", FIRST, "test", doc, y)
            for i, (doc, y) in enumerate(
                [("d1", 1), ("d1", 1), ("d2", 1), ("d2", 0), ("d3", 0), ("d3", 0), ("d4", 0)]
            )
        ],
        # SECOND: evaluation items all consistent (no threshold), three test items
        ("b-e0", SECOND, "evaluation", "b-e", 1),
        ("b-e1", SECOND, "evaluation", "b-e", 1),
        ("b-t0", SECOND, "test", "d5", 1),
        ("b-t1", SECOND, "test", "d6", 0),
        ("b-t2", SECOND, "test", "d6", 0),
        # THIRD: both classes in both splits, but two test items only (< 3: no value)
        ("c-e0", THIRD, "evaluation", "c-e", 0),
        ("c-e1", THIRD, "evaluation", "c-e", 1),
        ("c-t0", THIRD, "test", "d7", 1),
        ("c-t1", THIRD, "test", "d8", 0),
    ]
    for domain in OTHERS:
        rows += [
            (f"{domain}-e", domain, "evaluation", "x", 1),
            (f"{domain}-t", domain, "test", "y", 0),
        ]
    return pd.DataFrame(rows, columns=["item_id", "domain", "split", "doc_id", "label"])


SCORES = {
    "a-e0": 1.0, "a-e1": 2.0, "a-e2": 3.0, "a-e3": 4.0,
    "a-t0": 2.0, "a-t1": 3.0, "a-t2": 5.0, "a-t3": 1.0, "a-t4": 3.0, "a-t5": 2.0,
    "b-e0": 1.0, "b-e1": 2.0, "b-t0": 1.0, "b-t1": 2.0, "b-t2": 3.0,
    "c-e0": 1.0, "c-e1": 2.0, "c-t0": 2.0, "c-t1": 1.0,
}  # fmt: skip


def _fixture_spec(tmp_path: Path):
    """The fixture run: per-item scores of some SummEdits items (:data:`SCORES`)."""
    return judge_spec(
        "fixture-judge",
        {
            "benchmark": "summedits",
            "format": "scores",
            "label": "a fixture judge",
            "fixture": True,
            "file": {"path": str(tmp_path / "scores.csv")},
            "columns": {"item_id": "item_id", "consistency": "score"},
        },
    )


@pytest.fixture
def rows(tmp_path: Path) -> pd.DataFrame:
    spec = _fixture_spec(tmp_path)
    scores = pd.DataFrame(
        {"item_id": list(SCORES), "dimension": "consistency", "score": list(SCORES.values())}
    )
    (part,) = judge_label_rows(spec, {"scores": scores}, _table(), SETTINGS)  # type: ignore[arg-type]
    return part.set_index(["domain", "statistic"])


def test_judged_domain_against_scipy_and_hand_values(rows: pd.DataFrame) -> None:
    positive, negative = [2.0, 3.0, 5.0], [1.0, 3.0, 2.0]
    u = stats.mannwhitneyu(positive, negative).statistic
    auc = rows.loc[(FIRST, "roc_auc")]
    assert auc["value"] == pytest.approx(u / 9)
    assert u / 9 == pytest.approx(7 / 9)
    bacc = rows.loc[(FIRST, "balanced_accuracy")]
    # threshold 3: predicted consistent 3, 5 of the positives, 3 of the negatives
    assert bacc["threshold"] == 3.0
    assert bacc["value"] == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert (bacc["n_items"], bacc["n_positive"], bacc["n_documents"]) == (6, 3, 3)
    assert bacc["n_threshold_items"] == 4
    assert "partial run: a score for 19 of 30 items" in bacc["note"]
    # 3 documents: no interval, as a correlation row on fewer than 10 bootstrap units
    for row in (auc, bacc):
        assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
        assert "no CI: the value rests on 3 documents, fewer than the 10" in row["note"]
    assert len(_table()) == 4 + 7 + 5 + 4 + 2 * len(OTHERS) == 30
    assert set(rows["status"]) == {"fixture"}
    assert set(rows["metric"]) == {"fixture-judge"}
    assert set(rows["variant"]) == {"per-item scores"}


def test_uncovered_domains_and_one_class_evaluation_split_have_no_value(
    rows: pd.DataFrame,
) -> None:
    assert rows.loc[(SECOND, "roc_auc"), "value"] == 0.0  # the positive scores below
    second = rows.loc[(SECOND, "balanced_accuracy")]
    assert np.isnan(second["value"]) and np.isnan(second["threshold"])
    assert "no threshold" in second["note"] and "both classes" in second["note"]
    for statistic in ("roc_auc", "balanced_accuracy"):  # a value on 2 items is not shown
        third = rows.loc[(THIRD, statistic)]
        assert np.isnan(third["value"]) and third["n_items"] == 2
        assert "no value: 2 scored test item(s) (< 3)" in third["note"]
    for domain in OTHERS:
        for statistic in ("roc_auc", "balanced_accuracy"):
            row = rows.loc[(domain, statistic)]
            assert np.isnan(row["value"]) and row["n_items"] == 0
            assert "not covered by the run" in row["note"]
    for statistic, n_valued in (("roc_auc", 2), ("balanced_accuracy", 1)):
        mean = rows.loc[(AVERAGE, statistic)]
        assert np.isnan(mean["value"])
        assert f"no mean: {n_valued} of the {len(SUMMEDITS_DOMAINS)} domains" in mean["note"]
        assert mean["n_items"] == 6 + 3 + 2  # the scored test items


def test_the_table_holds_the_baselines_then_the_judge_runs(tmp_path: Path) -> None:
    # The rule function with a judge: the fixture's tidy table, a baseline scoring every
    # item and the fixture run as processed files; the judge's rows follow the baseline's.
    from geval_repro.pipeline.binary_tables import binary_label_table
    from geval_repro.registry.benchmarks import get_benchmark

    table = _table()
    table.to_parquet(tmp_path / "summedits.parquet")
    baseline = table[["item_id"]].assign(
        metric="ROUGE-2", variant="vs source document", score=np.arange(len(table), dtype=float)
    )
    baseline.to_parquet(tmp_path / "baseline.parquet")
    pd.DataFrame(
        {"item_id": list(SCORES), "dimension": "consistency", "score": list(SCORES.values())}
    ).to_parquet(tmp_path / "scores.parquet")
    spec = _fixture_spec(tmp_path)
    binary_label_table(
        {"summedits": get_benchmark("summedits")},
        {"summedits": tmp_path / "summedits.parquet"},
        {"summedits": tmp_path / "baseline.parquet"},
        SETTINGS,  # type: ignore[arg-type]
        (
            tmp_path / "binary_labels",
            tmp_path / "binary_label_rankings",
            tmp_path / "binary_label_pairs",
        ),
        specs={"fixture-judge": spec},
        processed={"fixture-judge": {"scores": tmp_path / "scores.parquet"}},
    )
    rows = pd.read_csv(tmp_path / "binary_labels.csv")
    assert list(dict.fromkeys(rows["metric"])) == [
        "constant (reference)",
        "random (reference)",
        "ROUGE-2",
        "fixture-judge",
    ]
    judge = rows[rows["metric"] == "fixture-judge"]
    assert set(judge["status"]) == {"fixture"} and len(judge) == 2 * (len(SUMMEDITS_DOMAINS) + 1)
    assert judge["note"].str.contains("partial run: a score for 19 of 30 items").all()
    assert (
        not rows.loc[rows["metric"] == "ROUGE-2", "note"].fillna("").str.contains("partial").any()
    )

    # the rankings: ROUGE-2 alone on every item, without a mean over domains (the fixture's
    # other domains test one item each); on the run's items the run has none either (it
    # covers three domains): both listed, unranked, and no pair is tested
    rankings = pd.read_csv(tmp_path / "binary_label_rankings.csv")
    full = rankings[rankings["ranking"] == "full"]
    assert list(full["metric"]) == ["ROUGE-2", "ROUGE-2"] and full["cluster"].isna().all()
    partial = rankings[rankings["ranking"] == f"partial: fixture-judge, {len(SCORES)} items"]
    assert list(partial["metric"]) == ["ROUGE-2", "fixture-judge"] * 2
    judged = partial[partial["metric"] == "fixture-judge"]
    assert judged["cluster"].isna().all() and judged["note"].str.contains("not ranked").all()
    assert pd.read_csv(tmp_path / "binary_label_pairs.csv").empty


def test_a_mean_of_replies_says_how_many_replies_its_parser_could_not_read(tmp_path):
    # A fixture run with replies (4 per item): the released parser read 1 of 4 replies of
    # every item (the other 3 scored 0), the tolerant one 2 of 4 (the others left out).
    spec = judge_spec(
        "fixture-replies",
        {
            "benchmark": "summedits",
            "format": "geval-released",
            "label": "a fixture judge with replies",
            "fixture": True,
            "files": {"consistency": {"path": str(tmp_path / "consistency.json")}},
        },
    )
    items = pd.DataFrame(
        [
            {"item_id": item, "dimension": "consistency", "parser": parser, "mean": score,
             "first": score, "mode": score, "n_replies": 4, "n_parsed": parsed,
             "n_counted": 4 if parser == "original" else parsed}
            for item, score in SCORES.items()
            for parser, parsed in (("original", 1), ("tolerant", 2))
        ]
    )  # fmt: skip
    parts = judge_label_rows(spec, {"item_scores": items}, _table(), SETTINGS)  # type: ignore[arg-type]
    notes = {part["variant"].iloc[0]: set(part["note"]) for part in parts}
    assert all(
        "75% of the replies unread by this parser (scored 0 and still counted)" in note
        for note in notes["mean-of-4/original"]
    )
    assert all(
        "50% of the replies unread by this parser (left out)" in note
        for note in notes["mean-of-4/tolerant"]
    )
    assert not any("unread" in note for note in notes["first-reply/original"])
