"""The card page and figure of a judge run on a benchmark of binary human labels (SummEdits),
from its rows of ``tables/judge_cards.csv`` whose ``coefficient`` is balanced accuracy
(:func:`geval_repro.tables.judge_cards.labelled_rows`; nothing is computed here).

The page leads with what the benchmark's own metric says: the judge's balanced accuracy,
mean over domains with its interval and n, against the best baseline's and chance (0.5: the
constant and random reference rows); then its ROC AUC, the sample its numbers rest on,
whose run it is, and every statistic of per-item human scores that does not apply with the
reason. The figure draws the same numbers on the 0-1 scale with chance marked.
"""

from __future__ import annotations

import os

import pandas as pd
from matplotlib.figure import Figure

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.card_text import as_float, number, usd_text, with_n
from geval_repro.report.figures import save_figure, wrap_lines

#: What a toolkit run is, on its card.
TOOLKIT_RUN = "a run of this toolkit (status toolkit-run), not a published judge's result"
SOURCES = (
    "Sources: balanced accuracy, ROC AUC, the baselines and the reference rows "
    "`tables/binary_labels.csv` (per domain there; rankings with significance clusters, on "
    "the run's items too, in `tables/binary_label_rankings.csv`); costs the run's manifest; "
    "all rows in `tables/judge_cards.csv`."
)
#: The statistics of per-item human scores, by the card column that says why each is absent.
NOT_APPLICABLE = (
    ("alternative annotator test", "alt_omega"),
    ("human ceiling", "ceiling"),
    ("soft pairwise accuracy", "spa"),
    ("Spearman correlation, paired bootstrap and power", "difference_ci_low"),
    ("length biases, split-half and re-run agreement", "length_judge"),
    ("adaptive sampling's replay", "adaptive_replies"),
)


def _interval(row: pd.Series, low: str, high: str) -> str:
    if as_float(row[low]) is None or as_float(row[high]) is None:
        return ""
    return f" [{number(row[low])}, {number(row[high])}]"


def binary_lead(row: pd.Series) -> str:
    """One dimension's lead line: the judge's mean balanced accuracy with its interval and n
    against the best baseline's and chance (the reason where it has none)."""
    dimension = row["dimension"]
    if as_float(row["value"]) is None:
        return f"- **{dimension}**: balanced accuracy {row['value']}"
    judge = with_n(
        f"balanced accuracy {number(row['value'])}{_interval(row, 'ci_low', 'ci_high')}",
        row["n_items"],
        row["full_n"],
    )
    if not pd.isna(row["n_documents"]):
        judge = judge.removesuffix(")") + f" test items, {int(row['n_documents'])} documents)"
    baseline = "no baseline"
    if isinstance(row["baseline"], str):
        baseline = (
            f"the best baseline, {row['baseline']} ({row['baseline_variant']}), "
            f"{number(row['baseline_value_full'])}"
            f"{_interval(row, 'baseline_ci_low', 'baseline_ci_high')} on all test items"
        )
    return (
        f"- **{dimension}**: {judge}, mean over domains, against {baseline}, and chance 0.5 "
        f"(constant {number(row['constant_value'])}, random {number(row['random_value'])})"
    )


def binary_card_markdown(judge: str, label: str, rows: pd.DataFrame, figure_name: str) -> str:
    """The card of ``judge`` on a benchmark of binary labels (its rows of the cards' table)."""
    benchmark = get_benchmark(str(rows["benchmark"].iloc[0]))
    first = rows.iloc[0]
    whose = TOOLKIT_RUN if first["status"] == "toolkit-run" else f"status {first['status']}"
    sample = ""
    if as_float(first["cost_items"]) is not None:
        sample = (
            f" The run judged {int(first['cost_items']):,} of the {benchmark.item_count:,} "
            "pairs (a sample); every number below rests on the items of the domains' test "
            "splits among them (n), each domain's threshold on those of its evaluation split."
        )
    lines = [
        f"# Judge card: {judge}",
        "",
        f"{label}. Benchmark: {benchmark.title} ({benchmark.item_count:,} items, binary "
        f"human labels); score variant `{first['variant']}`; {whose}.{sample}",
        "",
        f"## What {benchmark.title}' own metric says (balanced accuracy, mean over domains)",
        "",
        *(binary_lead(row) for _, row in rows.iterrows()),
        "",
        f"![{judge}]({figure_name}.png)",
        "",
        "## Every number",
        "",
        "| dimension | balanced accuracy (n) [95 % CI] | ROC AUC [95 % CI] | best baseline: "
        "balanced accuracy [95 % CI]; ROC AUC | constant; random | note |",
        "|---|---|---|---|---|---|",
    ]
    for _, row in rows.iterrows():
        value = row["value"]
        if as_float(value) is None:
            lines.append(f"| {row['dimension']} | {value} | | | | |")
            continue
        bacc = with_n(number(value), row["n_items"], row["full_n"])
        bacc += _interval(row, "ci_low", "ci_high")
        auc = number(row["roc_auc"]) + _interval(row, "roc_auc_low", "roc_auc_high")
        baseline = "–"
        if isinstance(row["baseline"], str):
            baseline = (
                f"{row['baseline']} ({row['baseline_variant']}): "
                f"{number(row['baseline_value_full'])}"
                f"{_interval(row, 'baseline_ci_low', 'baseline_ci_high')}; "
                f"{number(row['baseline_roc_auc'])}"
            )
        references = f"{number(row['constant_value'])}; {number(row['random_value'])}"
        note = row["note"] if isinstance(row["note"], str) else ""
        lines.append(
            f"| {row['dimension']} | {bacc} | {auc} | {baseline} | {references} | {note} |"
        )
    lines += ["", "## What it costs", ""]
    for _, row in rows.iterrows():
        cost = number(row["requests_per_1000"], 0)
        if as_float(row["requests_per_1000"]) is not None:
            cost = (
                f"per 1,000 items {cost} requests, {number(row['prompt_tokens_per_1000'], 0)} "
                f"/ {number(row['completion_tokens_per_1000'], 0)} prompt / completion tokens, "
                f"{number(row['wall_seconds_per_1000'], 0)} s on {row['server']} (from "
                f"{int(row['cost_items'])} items); {usd_text(row['usd_per_1000'])}"
            )
        lines.append(f"- **{row['dimension']}**: {cost}")
    lines += ["", "## How many replies per item", ""]
    for _, row in rows.iterrows():
        fewest = row["fewest_replies"]
        if as_float(fewest) is not None:
            fewest = (
                f"the first {number(fewest, 0)} replies' balanced accuracy (the fewest n with a "
                "value) lies within the interval of the mean of all of them (the sweep on "
                f"binary labels: `figures/judges/{judge}/sweep_binary_labels.png`, "
                f"`tables/judges/{judge}/sweep.csv`)"
            )
        lines.append(f"- **{row['dimension']}**: {fewest}")
    lines += ["", "## What does not apply here", ""]
    lines += [f"- {name}: {first[column]}" for name, column in NOT_APPLICABLE]
    lines += ["", SOURCES, ""]
    return "\n".join(lines)


def binary_card_figure(
    rows: pd.DataFrame, title: str, png: str | os.PathLike[str], svg: str | os.PathLike[str]
) -> None:
    """Per dimension, its two statistics (balanced accuracy, ROC AUC; means over domains) on
    one line each: the judge with its interval, the best baseline (on all test items; the
    interval of its balanced accuracy); chance (0.5, what the constant and random reference
    rows score) as a line; a statistic without a value says why on its line, the baseline
    still drawn."""
    lines: list[tuple[str, pd.Series, str]] = []
    for _, row in rows.iterrows():
        lines.append((f"{row['dimension']}: balanced accuracy", row, "value"))
        lines.append((f"{row['dimension']}: ROC AUC", row, "roc_auc"))
    fig = Figure(figsize=(9, 1.6 + 0.8 * len(lines)), layout="constrained")
    ax = fig.add_subplot()
    judge_cells = {"value": ("ci_low", "ci_high"), "roc_auc": ("roc_auc_low", "roc_auc_high")}
    baseline_cells = {"value": "baseline_value_full", "roc_auc": "baseline_roc_auc"}
    ticks = []
    drawn = {"judge": False, "baseline": False}
    for i, (label, row, column) in enumerate(lines):
        value = as_float(row[column])
        n = with_n("", row["n_items"], row["full_n"]).strip()
        ticks.append(wrap_lines(f"{label} {n}".strip(), 30))
        if value is None:
            ax.text(0.02, i - 0.15, wrap_lines(str(row[column]), 70), va="center", fontsize=8)
        else:
            low, high = (as_float(row[c]) for c in judge_cells[column])
            ax.plot(
                [value],
                [i - 0.15],
                "o",
                color="#1f4e9c",
                label=None if drawn["judge"] else "judge",
            )
            drawn["judge"] = True
            if low is not None and high is not None:
                ax.plot([low, high], [i - 0.15, i - 0.15], color="#1f4e9c", linewidth=1.4)
        base = as_float(row[baseline_cells[column]])
        if base is not None:
            ax.plot(
                [base],
                [i + 0.15],
                "s",
                color="#888888",
                label=None
                if drawn["baseline"]
                else f"best baseline by balanced accuracy ({row['baseline']}, all test items; "
                "no interval drawn for its ROC AUC)",
            )
            drawn["baseline"] = True
            if column == "value":
                low, high = as_float(row["baseline_ci_low"]), as_float(row["baseline_ci_high"])
                if low is not None and high is not None:
                    ax.plot([low, high], [i + 0.15, i + 0.15], color="#888888", linewidth=1.4)
    ax.axvline(0.5, color="#cc4444", linewidth=1, linestyle="--", label="chance (0.5)")
    ax.set_yticks(range(len(lines)), ticks)
    ax.set_ylim(len(lines) - 0.5, -0.5)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(
        "mean over domains (each domain's test split; balanced accuracy at the threshold\n"
        "fitted on its evaluation split); bars: 95 % bootstrap intervals over documents"
    )
    fig.legend(loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    ax.set_title(wrap_lines(title, 90), fontsize=10)
    save_figure(fig, png, svg)
