"""The judge cards' rows (geval_repro.tables.judge_cards) take every number from the table
that computed it and say why where a statistic does not apply; the card's page leads with
the alt-test's rho against the constant's (labelled fixture tables, not results)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.card_text import leaderboard, verdict
from geval_repro.report.judge_card import card_markdown, card_title
from geval_repro.tables.judge_cards import NO_ANNOTATORS, NO_CEILING, NOT_SCORED, card_rows

TOPICAL_CHAT = get_benchmark("topical_chat")
SUMMEVAL = get_benchmark("summeval")


def _correlation(
    benchmark: str, dimension: str, metric: str, variant: str, level: str, value: float, n: int
) -> dict:
    return {
        "benchmark": benchmark,
        "dimension": dimension,
        "metric": metric,
        "variant": variant,
        "level": level,
        "coefficient": "spearman",
        "value": value,
        "ci_low": value - 0.1,
        "ci_high": value + 0.1,
        "n_items": n,
    }


def test_card_rows_and_page() -> None:
    specs = {
        "tc": SimpleNamespace(
            benchmark=TOPICAL_CHAT, status="fixture", label="TC fixture", prices=None
        ),
        "se": SimpleNamespace(
            benchmark=SUMMEVAL, status="fixture", label="SE fixture", prices=None
        ),
    }
    correlations = pd.DataFrame(
        [
            _correlation(
                "topical_chat", "naturalness", "tc", "mean-of-20/original", "global", 0.3, 30
            ),
            _correlation("summeval", "coherence", "se", "v", "summary", 0.4, 1600),
            _correlation("summeval", "coherence", "ROUGE-1", "b", "summary", 0.2, 1600),
        ]
    )
    vs_baseline = pd.DataFrame(
        [
            {
                "judge": "se",
                "variant": "v",
                "dimension": "coherence",
                "coefficient": "spearman",
                "baseline": "ROUGE-1",
                "baseline_variant": "b",
                "baseline_value": 0.21,
                "baseline_value_full": 0.2,
                "difference": 0.19,
                "pvalue": 0.01,
            }
        ]
    )
    ceiling = pd.DataFrame(
        [
            {
                "benchmark": "summeval",
                "dimension": "coherence",
                "coefficient": "spearman",
                "level": "summary",
                "variant": v,
                "value": x,
            }
            for v, x in (
                ("annotator 1", 0.6),
                ("annotator 2", 0.7),
                ("mean over the 3 annotators", 0.65),
            )
        ]
    )
    alt = pd.DataFrame(
        [
            {
                "benchmark": "summeval",
                "dimension": "coherence",
                "metric": "random rating",
                "variant": "r",
                "kind": "reference",
                "omega": 0.0,
                "rho": 0.5,
                "passed": False,
                "epsilon": 0.2,
                "n_items": 1600,
                "scale": "raters' scale",
                "note": "",
            },
            {
                "benchmark": "summeval",
                "dimension": "coherence",
                "metric": "constant (median rating = 3)",
                "variant": "c",
                "kind": "reference",
                "omega": 1.0,
                "rho": 0.68,
                "passed": True,
                "epsilon": 0.2,
                "n_items": 1600,
                "scale": "raters' scale",
                "note": "",
            },
            {
                "benchmark": "summeval",
                "dimension": "coherence",
                "metric": "se",
                "variant": "v",
                "kind": "judge",
                "omega": 1.0,
                "rho": 0.52,
                "passed": True,
                "epsilon": 0.2,
                "n_items": 800,
                "scale": "isotonic map",
                "note": "",
            },
        ]
    )
    spa = pd.DataFrame(
        [
            {
                "benchmark": "summeval",
                "dimension": "coherence",
                "metric": m,
                "variant": v,
                "kind": k,
                "spa": x,
                "spa_low": x - 0.05,
                "spa_high": x + 0.04,
                "position": p,
                "cluster": p,
                "n_systems": 16,
                "n_inputs": 100,
                "system_spearman": 0.7,
            }
            for m, v, k, x, p in (
                ("constant", "c", "reference", 0.55, None),
                ("se", "v", "judge", 0.82, 1),
            )
        ]
    )
    power = pd.DataFrame(
        [
            {
                "judge": "se",
                "variant": "v",
                "dimension": "coherence",
                "versus": versus,
                "difference": d,
                "ci_low": d - 0.05,
                "ci_high": d + 0.05,
                "detectable": 0.1,
                "units_needed": 19,
                "n_units": 100,
                "unit": "documents",
                "note": "",
            }
            for versus, d in (("best baseline", 0.19), ("human ceiling", -0.25))
        ]
    )
    biases = pd.DataFrame(
        [
            {
                "judge": "se",
                "variant": "v",
                "dimension": "coherence",
                "share_unread": 0.1,
                "length_judge": 0.2,
                "length_human": 0.1,
                "partial": 0.35,
                "split_half": 0.8,
                "spearman_brown": 0.89,
            }
        ]
    )
    reruns = pd.DataFrame(
        [
            {
                "judge_a": "se",
                "judge_b": "se2",
                "dimension": "coherence",
                "coefficient": "spearman",
                "agreement_level": "global",
                "agreement": 0.9,
            }
        ]
    )
    manifest = {
        "dimensions": {
            "naturalness": {
                "counts": {"items": 30, "sent": 600},
                "usage": {"prompt_tokens": 3000, "completion_tokens": 60},
                "started": "2026-12-01T16:00:00+00:00",
                "finished": "2026-12-01T16:01:00+00:00",
                "base_url_host": "server-x",
            }
        }
    }
    sweep = pd.DataFrame(
        [
            {
                "judge": "tc",
                "dimension": "naturalness",
                "parser": "original",
                "mode": "first",
                "n": n,
                "coefficient": "spearman",
                "value": v,
            }
            for n, v in ((1, 0.6), (2, 0.35), (3, 0.25), (20, 0.3))
        ]
    )
    rows = card_rows(
        specs,
        {"tc": "mean-of-20/original", "se": "v"},
        correlations,
        vs_baseline,
        ceiling,
        alt,
        spa,
        power,
        biases,
        reruns,
        {"tc": manifest},
        sweep,
        preference_runs={},
        preferences={},
    )
    tc = rows[rows["judge"] == "tc"].set_index("dimension")
    assert tc.loc["naturalness", "value"] == 0.3 and tc.loc["naturalness", "n_items"] == 30
    assert tc.loc["naturalness", "alt_omega"] == NO_ANNOTATORS
    assert tc.loc["naturalness", "ceiling"] == NO_CEILING
    assert tc.loc["coherence", "value"] == NOT_SCORED  # no correlation row: says why
    # and its verdict too, not "not tested" as if the test had been left out
    assert verdict(tc.loc["coherence"]) == NOT_SCORED
    se = rows[rows["judge"] == "se"].set_index("dimension").loc["coherence"]
    assert (se["baseline"], se["difference"], se["difference_pvalue"]) == ("ROUGE-1", 0.19, 0.01)
    assert (se["ceiling"], se["ceiling_low"], se["ceiling_high"]) == (0.65, 0.6, 0.7)
    assert (se["alt_rho"], se["constant_rho"], se["random_rho"]) == (0.52, 0.68, 0.5)
    assert se["alt_n_items"] == 800 and se["constant_passed"]
    assert (se["spa"], se["spa_position"], se["spa_constant"]) == (0.82, 1, 0.55)
    assert (se["spa_low"], se["spa_high"], se["spa_cluster"]) == (0.82 - 0.05, 0.82 + 0.04, 1)
    assert (se["difference_ci_low"], se["units_needed"], se["power_units"]) == (
        0.14,
        19,
        "100 documents",
    )
    assert se["ceiling_difference"] == -0.25
    assert (se["partial_length"], se["spearman_brown"], se["rerun_spearman"]) == (0.35, 0.89, 0.9)
    assert se["requests_per_1000"].startswith("n/a: no run manifest")
    assert tc.loc["naturalness", "rerun_spearman"].startswith("n/a")
    # 600 requests, 3,000 prompt tokens, 60 s for 30 items -> per 1,000 items
    assert tc.loc["naturalness", "requests_per_1000"] == pytest.approx(20000)
    assert tc.loc["naturalness", "prompt_tokens_per_1000"] == pytest.approx(100000)
    assert tc.loc["naturalness", "wall_seconds_per_1000"] == pytest.approx(2000)
    assert tc.loc["naturalness", "usd_per_1000"].startswith("n/a")
    # interval [0.2, 0.4]: n = 1 (0.6) is outside, n = 2 (0.35) the fewest inside; a variant
    # that is no mean of replies says so
    assert tc.loc["naturalness", "fewest_replies"] == 2
    assert se["fewest_replies"] == "n/a: not a mean of replies"
    page = card_markdown("se", "SE fixture", rows[rows["judge"] == "se"], "se")
    lead = page.split("## Every number")[0]
    assert "advantage probability ρ = 0.520 (n = 800) against the constant's ρ = 0.680" in lead
    assert "cannot tell judges apart" in lead
    assert "independent" in page
    assert "0.820 [0.770, 0.860] (#1, cluster 1; 0.550), 16 systems on 100 documents" in page
    board = leaderboard(rows)
    assert "0.300 (n = 30)" in board and "#### SummEval" in board


def test_a_card_figure_title_names_its_benchmark() -> None:
    rows = pd.DataFrame({"benchmark": ["summeval", "summeval"], "dimension": ["a", "b"]})
    assert card_title("G-Eval-4 re-run 1", rows) == "SummEval: G-Eval-4 re-run 1"
