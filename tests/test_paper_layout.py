"""The combined correlation table's row order and the paper-layout Tables 1-3."""

from __future__ import annotations

import math

import pandas as pd

from geval_repro.report.paper_layout import paper_layout, table_notes
from geval_repro.tables.printed import combined_table
from geval_repro.tables.rows import COLUMNS
from tests.conftest import spec


def row(benchmark, dimension, coefficient, value, low, high, metric="ROUGE-2", variant="v"):
    return {
        **dict.fromkeys(COLUMNS, math.nan),
        "benchmark": benchmark,
        "dimension": dimension,
        "metric": metric,
        "variant": variant,
        "level": "summary" if benchmark == "summeval" else "global",
        "coefficient": coefficient,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "paper_value": math.nan,
        "status": "recomputed",
        "note": "hand-made",
    }


def test_combined_rows_follow_the_papers_benchmark_order() -> None:
    records = [
        row("qags_avg", "consistency", "pearson", 0.3, math.nan, math.nan),
        row("topical_chat", "coherence", "pearson", 0.3, 0.2, 0.4),
        row("qags_xsum", "consistency", "pearson", 0.3, 0.2, 0.4),
        row("summeval", "coherence", "spearman", 0.3, 0.2, 0.4),
        row("qags_cnndm", "consistency", "pearson", 0.3, 0.2, 0.4),
    ]
    table = combined_table(pd.DataFrame.from_records(records, columns=COLUMNS))
    order = list(dict.fromkeys(table["benchmark"]))
    assert order == ["summeval", "topical_chat", "qags_cnndm", "qags_xsum", "qags_avg"]


def test_layout_cells_show_the_ci_and_flag_printed_values_outside_it() -> None:
    # Printed Table 3 ROUGE-2: CNN/DM r 0.459, XSum r 0.097, Average r 0.278.
    records = [
        row("qags_cnndm", "consistency", "pearson", 0.4591, 0.339, 0.565),
        row("qags_xsum", "consistency", "pearson", 0.0500, 0.010, 0.090),  # 0.097 outside
        row("qags_avg", "consistency", "pearson", 0.2546, math.nan, math.nan),
    ]
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    table["paper_value"] = [0.459, 0.097, 0.278]
    frame, text = paper_layout(table, 3)
    line = next(x for x in text.splitlines() if x.startswith("| ROUGE-2 | v |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3] == "0.459 [0.339, 0.565] (0.459)"
    assert cells[6] == "0.050 [0.010, 0.090] (0.097) †"
    assert cells[9] == "0.255 (0.278)"  # an average has no CI, so no flag
    assert text.rstrip().endswith("falls in the interval.")
    # the CSV's cells are the Markdown's, under the same headers
    header = next(x for x in text.splitlines() if x.startswith("| metric |"))
    assert list(frame.columns) == [c.strip() for c in header.strip("|").split("|")]
    assert frame.iloc[0].tolist() == cells


def test_the_protocol_variant_comes_first_and_is_marked() -> None:
    records = [
        row("summeval", "coherence", "spearman", 0.1, 0.0, 0.2) | {"metric": "ROUGE-1"},
        row("summeval", "coherence", "spearman", 0.2, 0.1, 0.3) | {"metric": "ROUGE-1"},
    ]
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    table["variant"] = ["1 reference (summeval.json)", "11 references, mean"]
    text = paper_layout(table, 1)[1]
    rouge = [line for line in text.splitlines() if line.startswith("| ROUGE-1 |")]
    assert rouge[0].startswith("| ROUGE-1 | 11 references, mean (the paper's protocol) |")
    assert rouge[1].startswith("| ROUGE-1 | 1 reference (summeval.json) |")
    assert "docs/baselines.md" in text


def test_notes_say_what_the_judge_runs_are_and_where_the_released_replies_are() -> None:
    judges = {"run-a": spec("run-a", label="G-Eval-4 re-run by others")}
    notes = table_notes(1, judges, "gpt4-released")
    assert notes[0] == "Judge runs: `run-a`: G-Eval-4 re-run by others."
    assert any("not a failed reproduction" in n for n in notes)
    assert any("`gpt4-released`" in n and "not in this run" in n for n in notes)
    released = spec("gpt4-released", label="x")
    with_release = table_notes(1, {**judges, "gpt4-released": released}, "gpt4-released")
    assert not any("not in this run" in n for n in with_release)
    assert any("UniEval" in n for n in table_notes(2, {}, "gpt4-released"))
    assert table_notes(3, {}, "gpt4-released") == []


def test_a_judge_shows_the_released_parser_and_the_rating_probabilities_only() -> None:
    variants = [
        "mean-of-20/original",
        "mean-of-20/tolerant",
        "first-reply/original",
        "first-reply/tolerant",
        "mode-reply/original",
        "mode-reply/tolerant",
        "probability-weighted rating (Eq. 1)",
        "most likely rating",
    ]
    records = [
        row("qags_xsum", "consistency", "pearson", 0.3, 0.2, 0.4, metric="judge", variant=v)
        for v in variants
    ]
    text = paper_layout(pd.DataFrame.from_records(records, columns=COLUMNS), 3)[1]
    shown = [line.split(" | ")[1] for line in text.splitlines() if line.startswith("| judge |")]
    assert shown == [
        "mean-of-20/original",
        "first-reply/original",
        "probability-weighted rating (Eq. 1)",
        "most likely rating",
    ]


def test_a_toolkit_run_shows_the_tolerant_parser_beside_the_released_one() -> None:
    variants = ["mean-of-20/original", "mean-of-20/tolerant", "mode-reply/tolerant"]
    records = [
        row("qags_xsum", "consistency", "pearson", 0.3, 0.2, 0.4, metric="judge", variant=v)
        | {"status": "toolkit-run"}
        for v in variants
    ]
    text = paper_layout(pd.DataFrame.from_records(records, columns=COLUMNS), 3)[1]
    shown = [line.split(" | ")[1] for line in text.splitlines() if line.startswith("| judge |")]
    assert shown == ["mean-of-20/original", "mean-of-20/tolerant"]
    assert "toolkit-run" in text


def _cells(text: str, metric: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(f"| {metric} |"))
    return [c.strip() for c in line.strip("|").split("|")][3:]


def test_cells_on_fewer_items_than_their_column_show_n_and_below_the_minimum_no_ci() -> None:
    # SummEval coherence spearman: a baseline on every item; a partial run on 22 items in
    # 4 documents (no CI: fewer than 10 documents), one on 300 items in 20 documents.
    full = row("summeval", "coherence", "spearman", 0.17, 0.12, 0.22, metric="ROUGE-1")
    records = [
        full | {"n_items": 1600, "n_groups": 100},
        row("summeval", "coherence", "spearman", -0.512, math.nan, math.nan, metric="small")
        | {"n_items": 22, "n_groups": 4, "status": "toolkit-run"},
        row("summeval", "coherence", "spearman", 0.3, 0.1, 0.5, metric="part")
        | {"n_items": 300, "n_groups": 20, "status": "toolkit-run"},
        row("summeval", "coherence", "spearman", 0.2, 0.1, 0.3, metric="judge",
            variant="mean-of-20/original")
        | {"n_items": 1600, "n_groups": 100, "share_unread": 0.72},
    ]  # fmt: skip
    text = paper_layout(pd.DataFrame.from_records(records, columns=COLUMNS), 1)[1]
    assert _cells(text, "ROUGE-1")[0] == "0.170 [0.120, 0.220]"  # full count: no n
    assert _cells(text, "small")[0] == "-0.512; n=22 in 4 docs"
    assert _cells(text, "part")[0] == "0.300 [0.100, 0.500]; n=300 in 20 docs"
    assert _cells(text, "judge")[0] == "0.200 [0.100, 0.300]; 72% unread"
    assert "n=…: the items (in how many documents" in text and "fewer than 10 documents" in text
    assert "… unread: of a mean-of-n cell" in text


def test_no_significance_mark_below_the_minimum_even_when_p_is_small() -> None:
    base = row("summeval", "coherence", "spearman", 0.2, math.nan, math.nan, metric="j")
    full = row("summeval", "coherence", "spearman", 0.19, 0.1, 0.3, metric="ROUGE-1")
    table = pd.DataFrame.from_records(
        [
            full | {"n_items": 1600, "n_groups": 100},
            base | {"n_items": 22, "n_groups": 4, "status": "toolkit-run"},
        ],
        columns=COLUMNS,
    )
    tests = pd.DataFrame(
        [
            {
                "judge": "j",
                "variant": "v",
                "benchmark": "summeval",
                "dimension": "coherence",
                "coefficient": "spearman",
                "baseline": "ROUGE-1",
                "baseline_variant": "11 references, max",
                "baseline_value": 0.5,
                "baseline_value_full": 0.19,
                "n_items": 22,
                "difference": -0.3,
                "pvalue": 0.01,
                "unit": "inputs",
                "n_resamples": 1000,
                "seed": 1,
            }
        ]
    )
    text = paper_layout(table, 1, tests)[1]
    assert _cells(text, "j")[0] == "0.200; n=22 in 4 docs"  # no ↓ though p = 0.01
    significance = text.split("Significance against the best recomputed baseline")[1]
    assert "ROUGE-1 (11 references, max) 0.190" in significance  # chosen on every item
    assert "-0.300, p 0.010 (baseline 0.500 on n=22)" in significance  # the same items
    every_item = table.assign(n_items=1600, n_groups=100)
    assert _cells(paper_layout(every_item, 1, tests)[1], "j")[0] == "0.200 ↓"
