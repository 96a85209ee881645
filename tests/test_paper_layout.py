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
    text = paper_layout(table, 3)
    line = next(x for x in text.splitlines() if x.startswith("| ROUGE-2 | v |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3] == "0.459 [0.339, 0.565] (0.459)"
    assert cells[6] == "0.050 [0.010, 0.090] (0.097) †"
    assert cells[9] == "0.255 (0.278)"  # an average has no CI, so no flag
    assert text.rstrip().endswith("falls in the interval.")


def test_the_protocol_variant_comes_first_and_is_marked() -> None:
    records = [
        row("summeval", "coherence", "spearman", 0.1, 0.0, 0.2) | {"metric": "ROUGE-1"},
        row("summeval", "coherence", "spearman", 0.2, 0.1, 0.3) | {"metric": "ROUGE-1"},
    ]
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    table["variant"] = ["1 reference (summeval.json)", "11 references, mean"]
    text = paper_layout(table, 1)
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
    text = paper_layout(pd.DataFrame.from_records(records, columns=COLUMNS), 3)
    shown = [line.split(" | ")[1] for line in text.splitlines() if line.startswith("| judge |")]
    assert shown == [
        "mean-of-20/original",
        "first-reply/original",
        "probability-weighted rating (Eq. 1)",
        "most likely rating",
    ]
