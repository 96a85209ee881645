"""A judge configured on SummEdits, through the workflow: ``snakemake`` on the shared
pipeline run's data (the mirror's SummEdits, its ROUGE baselines) with a FIXTURE judge of
per-item scores (synthetic scores written here, ``fixture: true``, never a judge's replies)
makes the judge's rows in ``results/tables/binary_labels.csv`` (``Targets.labelled``).

The fixture scores 3 items of each label in each split of every domain (the first in the
tidy table's order), with two score patterns whose fitted thresholds and balanced accuracies
are worked out by hand below; the ROC AUC is checked against scipy's Mann-Whitney U."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy import stats

from geval_repro.registry.benchmarks import SUMMEDITS_DOMAINS
from tests.conftest import FIXTURES, PipelineRun, snakemake_process

JUDGE = "fixture-summedits-scores"
#: pattern -> (split, label) -> the 3 scores, in table order.
#: A: evaluation 0: 1, 2, 2; 1: 3, 4, 5 -> threshold 3 (BAcc 1; every other candidate less).
#:    test 1: 2, 3, 5 (2 of 3 >= 3); 0: 1, 3, 4 (1 of 3 < 3) -> BAcc (2/3 + 1/3) / 2 = 1/2.
#: B: evaluation 0: 1, 2, 3; 1: 4, 4, 5 -> threshold 4 (BAcc 1; every other candidate less).
#:    test 1: 5, 4, 3 (2 of 3 >= 4); 0: 1, 2, 4 (2 of 3 < 4) -> BAcc (2/3 + 2/3) / 2 = 2/3.
PATTERNS = {
    "A": {
        ("evaluation", 0): [1, 2, 2],
        ("evaluation", 1): [3, 4, 5],
        ("test", 1): [2, 3, 5],
        ("test", 0): [1, 3, 4],
    },
    "B": {
        ("evaluation", 0): [1, 2, 3],
        ("evaluation", 1): [4, 4, 5],
        ("test", 1): [5, 4, 3],
        ("test", 0): [1, 2, 4],
    },
}
#: pattern -> (threshold, balanced accuracy), by hand (above)
HAND = {"A": (3.0, 1 / 2), "B": (4.0, 2 / 3)}


def _pattern(domain: str) -> str:
    return "AB"[list(SUMMEDITS_DOMAINS).index(domain) % 2]


def _fixture_scores(table: pd.DataFrame) -> pd.DataFrame:
    """item_id, score: 3 items of each (domain, split, label), the first in table order."""
    rows = []
    for (domain, split, label), group in table.groupby(["domain", "split", "label"]):
        scores = PATTERNS[_pattern(domain)][(split, label)]
        rows += zip(group["item_id"].iloc[:3], scores, strict=True)
    return pd.DataFrame(rows, columns=["item_id", "score"])


@pytest.fixture(scope="module")
def judged(
    mirror_dir: Path, pipeline_run: PipelineRun, tmp_path_factory: pytest.TempPathFactory
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Path]:
    """The binary-label table of a run with the fixture judge, the fixture's scores,
    SummEdits' tidy table and the run's results folder (with the judge's card)."""
    root = tmp_path_factory.mktemp("summedits-judge")
    table = pd.read_parquet(pipeline_run.data / "processed" / "summedits.parquet")
    scores = _fixture_scores(table)
    scores.to_csv(root / "fixture_summedits_scores.csv", index=False)
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    config["judges"][JUDGE] = {
        "benchmark": "summedits",
        "format": "scores",
        "label": "FIXTURE: synthetic SummEdits scores (tests only)",
        "fixture": True,
        "file": {"path": str(root / "fixture_summedits_scores.csv")},
        "columns": {"item_id": "item_id", "consistency": "score"},
    }
    config["judges_to_run"].append(JUDGE)
    config.update(mirror=str(mirror_dir), bootstrap={"n_resamples": 10})
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    results = root / "results"
    target = results / "tables" / "binary_labels.csv"
    card = results / "cards" / f"{JUDGE}.md"
    done = snakemake_process(pipeline_run.data, results, path, str(target), str(card))
    assert done.returncode == 0, done.stderr[-6000:]
    return pd.read_csv(target), scores, table, results


@pytest.mark.pipeline
def test_the_judges_rows_match_scipy_and_the_hand_values(judged) -> None:
    rows, scores, table, _ = judged
    mine = rows[rows["metric"] == JUDGE].set_index(["domain", "statistic"])
    assert set(mine["status"]) == {"fixture"} and set(mine["variant"]) == {"per-item scores"}
    assert len(mine) == 2 * (len(SUMMEDITS_DOMAINS) + 1)
    merged = scores.merge(table, on="item_id", validate="one_to_one")
    aucs, baccs = [], []
    for domain in SUMMEDITS_DOMAINS:
        tested = merged[(merged["domain"] == domain) & (merged["split"] == "test")]
        positive = tested.loc[tested["label"] == 1, "score"]
        negative = tested.loc[tested["label"] == 0, "score"]
        u = stats.mannwhitneyu(positive, negative).statistic
        auc = mine.loc[(domain, "roc_auc")]
        assert auc["value"] == pytest.approx(u / (len(positive) * len(negative)))
        threshold, balanced = HAND[_pattern(domain)]
        bacc = mine.loc[(domain, "balanced_accuracy")]
        assert bacc["threshold"] == threshold
        assert bacc["value"] == pytest.approx(balanced)
        for row in (auc, bacc):  # the rows rest on the 6 scored test items and say so
            assert (row["n_items"], row["n_positive"]) == (6, 3)
            assert row["n_documents"] == tested["doc_id"].nunique()
            assert "partial run: a score for 96 of 4681 items" in row["note"]
        assert bacc["n_threshold_items"] == 6
        aucs.append(auc["value"])
        baccs.append(balanced)
    assert mine.loc[("mean over domains", "roc_auc"), "value"] == pytest.approx(sum(aucs) / 8)
    assert mine.loc[("mean over domains", "balanced_accuracy"), "value"] == pytest.approx(
        sum(baccs) / 8
    )


@pytest.mark.pipeline
def test_the_judges_rows_follow_the_reference_rows_and_the_baselines(judged) -> None:
    rows, *_ = judged
    metrics = list(dict.fromkeys(rows["metric"]))
    assert metrics[:2] == ["constant (reference)", "random (reference)"]
    assert metrics[-1] == JUDGE and "ROUGE-2" in metrics


@pytest.mark.pipeline
def test_the_judge_gets_a_card_from_the_workflow(judged) -> None:
    """The card the workflow writes for the fixture judge (``Targets.carded``): its row in
    the cards' table holds the mean balanced accuracy over domains of the hand values
    above, on its 48 test items, and its page leads with it; a per-item score is no mean of
    replies, so the card has no replies-per-item answer and says why."""
    _, _, _, results = judged
    cards = pd.read_csv(results / "tables" / "judge_cards.csv").set_index("judge")
    row = cards.loc[JUDGE]
    expected = sum(HAND[_pattern(domain)][1] for domain in SUMMEDITS_DOMAINS) / 8
    assert (row["coefficient"], row["level"]) == ("balanced_accuracy", "mean over domains")
    assert float(row["value"]) == pytest.approx(expected)
    assert (int(row["n_items"]), row["status"]) == (48, "fixture")
    assert row["fewest_replies"] == "n/a: not a mean of replies"
    page = (results / "cards" / f"{JUDGE}.md").read_text(encoding="utf-8")
    assert f"balanced accuracy {expected:.3f}" in page.split("## Every number")[0]
    assert (results / "cards" / f"{JUDGE}.png").is_file()
