"""A run on a benchmark of binary labels (SummEdits) gets a judge card: its row of
geval_repro.tables.judge_cards takes balanced accuracy and ROC AUC (mean over domains) from the
binary-label table, the best baseline's and the reference rows' means beside them, and says
why every statistic of per-item human scores does not apply; its page leads with balanced
accuracy against the baseline and chance; the leaderboard lists it (labelled fixture tables,
hand-checked values, not results)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.card_text import leaderboard
from geval_repro.report.judge_card import card_figure, card_markdown
from geval_repro.tables.judge_cards import (
    NO_ADAPTIVE,
    NO_ANNOTATORS,
    NO_CEILING,
    NO_SYSTEM_LEVEL,
    NOT_CORRELATED,
    NOT_SCORED,
    labelled_rows,
)

SUMMEDITS = get_benchmark("summedits")
MEAN = "mean over domains"


def _mean(metric, variant, statistic, value, low, high, n, docs, status, note=""):
    return {
        "benchmark": "summedits",
        "dimension": "consistency",
        "metric": metric,
        "variant": variant,
        "domain": MEAN,
        "statistic": statistic,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n_items": n,
        "n_documents": docs,
        "status": status,
        "note": note,
    }


def _table() -> pd.DataFrame:
    nan = float("nan")
    rows = [
        _mean("j", "mean-of-20/original", "balanced_accuracy", 0.6, 0.55, 0.7, 48, 42, "fixture"),
        _mean("j", "mean-of-20/original", "roc_auc", 0.65, 0.5, 0.8, 48, 42, "fixture"),
        # a variant that is not the card's: never read
        _mean("j", "first-reply/original", "balanced_accuracy", 0.9, 0.8, 1.0, 48, 42, "fixture"),
        # a judge whose mean has no value: its note says how many domains have one
        _mean(
            "k",
            "v",
            "balanced_accuracy",
            nan,
            nan,
            nan,
            8,
            8,
            "fixture",
            "partial run: a score for 18 of 4681 items; no mean: 0 of the 8 domains have a value",
        ),
        _mean("k", "v", "roc_auc", nan, nan, nan, 8, 8, "fixture", "no mean: 1 of the 8 domains"),
        _mean(
            "ROUGE-2", "vs source", "balanced_accuracy", 0.49, 0.47, 0.5, 3695, 130, "recomputed"
        ),
        _mean("ROUGE-2", "vs source", "roc_auc", 0.47, 0.44, 0.5, 3695, 130, "recomputed"),
        _mean(
            "ROUGE-L", "vs source", "balanced_accuracy", 0.52, 0.5, 0.54, 3695, 130, "recomputed"
        ),
        _mean("ROUGE-L", "vs source", "roc_auc", 0.45, 0.43, 0.47, 3695, 130, "recomputed"),
        _mean(
            "constant (reference)", "c", "balanced_accuracy", 0.5, 0.5, 0.5, 3695, 130, "reference"
        ),
        _mean(
            "random (reference)",
            "r",
            "balanced_accuracy",
            0.501,
            0.49,
            0.51,
            3695,
            130,
            "reference",
        ),
    ]
    # a domain row of the judge: not a mean, never read
    rows.append({**rows[0], "domain": "news", "value": 0.1})
    return pd.DataFrame(rows)


def _spec(label: str) -> SimpleNamespace:
    return SimpleNamespace(benchmark=SUMMEDITS, status="toolkit-run", label=label, prices=None)


MANIFEST = {
    "dimensions": {
        "consistency": {
            "counts": {"items": 96, "sent": 1920},
            "usage": {"prompt_tokens": 9600, "completion_tokens": 192},
            "started": "2026-12-01T16:00:00+00:00",
            "finished": "2026-12-01T16:01:36+00:00",
            "base_url_host": "server-x",
        }
    }
}


def _sweep() -> pd.DataFrame:
    """j's sweep: its first n replies' balanced accuracy enters the card's interval
    [0.55, 0.7] at n = 3; the rows of another statistic, parser or mode never count."""
    rows = [
        ("original", "first", n, "balanced_accuracy", v)
        for n, v in zip(range(1, 5), (0.50, 0.54, 0.56, 0.61), strict=True)
    ]
    rows += [
        ("original", "first", 1, "roc_auc", 0.6),
        ("tolerant", "first", 1, "balanced_accuracy", 0.6),
        ("original", "random", 1, "balanced_accuracy", 0.6),
    ]
    frame = pd.DataFrame(rows, columns=["parser", "mode", "n", "coefficient", "value"])
    return frame.assign(judge="j", dimension="consistency")


def _rows() -> pd.DataFrame:
    return labelled_rows(
        {"j": _spec("J run"), "k": _spec("K run"), "m": _spec("M run")},
        {"j": "mean-of-20/original", "k": "v", "m": "w"},
        _table(),
        {"j": MANIFEST},
        _sweep(),
        preference_runs={},
        preferences={},
    )


def test_a_labelled_run_gets_a_card_row() -> None:
    rows = _rows().set_index("judge")
    j = rows.loc["j"]
    assert (j["coefficient"], j["level"], j["variant"]) == (
        "balanced_accuracy",
        MEAN,
        "mean-of-20/original",
    )
    assert (j["value"], j["ci_low"], j["ci_high"], j["n_items"], j["n_documents"]) == (
        0.6,
        0.55,
        0.7,
        48,
        42,
    )
    assert (j["roc_auc"], j["roc_auc_low"], j["roc_auc_high"]) == (0.65, 0.5, 0.8)
    assert j["full_n"] == 4681
    # best baseline by mean balanced accuracy: ROUGE-L (0.52 > 0.49), its AUC beside it
    assert (j["baseline"], j["baseline_value_full"], j["baseline_roc_auc"]) == (
        "ROUGE-L",
        0.52,
        0.45,
    )
    assert (j["baseline_ci_low"], j["baseline_ci_high"]) == (0.5, 0.54)
    assert (j["constant_value"], j["random_value"]) == (0.5, 0.501)
    # every statistic of per-item human scores says why it does not apply
    assert j["alt_omega"] == NO_ANNOTATORS and j["ceiling"] == NO_CEILING
    assert j["spa"] == NO_SYSTEM_LEVEL
    assert j["difference_ci_low"] == NOT_CORRELATED and j["length_judge"] == NOT_CORRELATED
    # the first n = 3 replies' balanced accuracy (0.56) lies within [0.55, 0.7]
    assert j["fewest_replies"] == 3
    assert j["adaptive_replies"] == NO_ADAPTIVE
    # costs as on other cards: 1,920 requests, 9,600 prompt tokens, 96 s for 96 items
    assert j["requests_per_1000"] == pytest.approx(20000)
    assert j["prompt_tokens_per_1000"] == pytest.approx(100000)
    assert j["wall_seconds_per_1000"] == pytest.approx(1000)
    assert rows.loc["k", "requests_per_1000"].startswith("n/a: no run manifest")


def test_a_missing_mean_or_run_says_why() -> None:
    rows = _rows().set_index("judge")
    assert rows.loc["k", "value"] == "n/a: no mean: 0 of the 8 domains have a value"
    assert rows.loc["k", "roc_auc"] == "n/a: no mean: 1 of the 8 domains"
    assert rows.loc["k", "n_items"] == 8
    assert rows.loc["m", "value"] == NOT_SCORED
    assert rows.loc["k", "fewest_replies"] == "n/a: not a mean of replies"


def test_the_card_page_and_the_leaderboard_lead_with_balanced_accuracy() -> None:
    rows = _rows()
    page = card_markdown("j", "J run", rows[rows["judge"] == "j"], "j")
    lead = page.split("## Every number")[0]
    assert (
        "balanced accuracy 0.600 [0.550, 0.700] (n = 48 test items, 42 documents), mean over "
        "domains, against the best baseline, ROUGE-L (vs source), 0.520 [0.500, 0.540] on all "
        "test items, and chance 0.5 (constant 0.500, random 0.501)"
    ) in lead
    assert "The run judged 96 of the 4,681 pairs (a sample)" in lead
    assert "a run of this toolkit" in lead
    assert f"alternative annotator test: {NO_ANNOTATORS}" in page
    replies = page.split("## How many replies per item")[1].split("##")[0]
    assert "- **consistency**: the first 3 replies' balanced accuracy" in replies
    assert "`figures/judges/j/sweep_binary_labels.png`" in replies
    assert f"adaptive sampling's replay: {NO_ADAPTIVE}" in page
    page_k = card_markdown("k", "K run", rows[rows["judge"] == "k"], "k")
    assert "balanced accuracy n/a: no mean: 0 of the 8 domains have a value" in page_k
    board = leaderboard(rows)
    assert "#### SummEdits" in board and "ρ_s" not in board
    assert (
        "| j | consistency | 0.600 (n = 48) [0.550, 0.700] | 0.650 | ROUGE-L: 0.520 | 0.5 |"
        in board
    )


def test_the_card_figure_draws_a_value_and_writes_a_reason(tmp_path) -> None:
    rows = _rows()
    for judge in ("j", "k"):
        png, svg = tmp_path / f"{judge}.png", tmp_path / f"{judge}.svg"
        card_figure(rows[rows["judge"] == judge], judge, png, svg)
        assert png.stat().st_size > 0 and svg.stat().st_size > 0
    assert "no mean: 0 of the 8 domains" in (tmp_path / "k.svg").read_text(encoding="utf-8")
