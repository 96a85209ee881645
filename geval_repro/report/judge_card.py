"""A judge's card (``results/cards/<judge>.md``) and its at-a-glance figure
(``results/cards/<judge>.png|.svg``), drawn from its rows of ``tables/judge_cards.csv``
(:mod:`geval_repro.tables.judge_cards`; nothing is computed here).

The card leads, per dimension, with the judge's alternative-annotator-test rho against the
constant judge's (a constant at the median rating), then its verdict, the figure, and every
number with its n and source (a run on binary labels: :mod:`.binary_card`). Cells below
the benchmark's full n show their n. The
leaderboard of every judge per benchmark is :func:`geval_repro.report.card_text.leaderboard`.
"""

from __future__ import annotations

import os

import pandas as pd
from matplotlib.figure import Figure

from geval_repro.registry.benchmarks import get_benchmark, title_of
from geval_repro.report.binary_card import binary_card_figure, binary_card_markdown
from geval_repro.report.card_text import as_float, replies_text, usd_text, verdict
from geval_repro.report.card_text import number as _number
from geval_repro.report.card_text import with_n as _with_n
from geval_repro.report.figures import save_figure, wrap_lines
from geval_repro.tables.judge_cards import BINARY_COEFFICIENT

INDEPENDENCE = (
    "The alternative annotator test and the correlations' tests treat the items as "
    "independent, although a benchmark's items share documents (several texts judged per "
    "document or dialogue context): their p-values are optimistic where documents matter."
)
SOURCES = (
    "Sources: correlations and intervals `tables/correlations.csv`; best baseline and the "
    "difference `tables/significance_vs_baseline.csv`; human ceiling "
    "`tables/human/human_ceiling.csv`; alternative annotator test `tables/alt_test.csv`; soft "
    "pairwise accuracy `tables/soft_pairwise_accuracy.csv`; paired bootstrap and power "
    "`tables/judge_power.csv`; biases `tables/judge_biases.csv`; re-runs "
    "`tables/rerun_agreement.csv`; costs the run's manifest; the writer-vs-LLM preference "
    "`tables/writer_vs_llm/preferences.csv`; all rows in "
    "`tables/judge_cards.csv`."
)


def lead_lines(rows: pd.DataFrame) -> list[str]:
    """Per dimension: the judge's rho against the constant's, then the verdict."""
    lines = []
    for _, row in rows.iterrows():
        rho = row["alt_rho"]
        if as_float(row["alt_omega"]) is None:
            lines.append(f"- **{row['dimension']}**: alternative annotator test {row['alt_omega']}")
            continue
        judge_rho = _with_n(
            f"advantage probability ρ = {_number(rho)}", row["alt_n_items"], row["full_n"]
        )
        lines.append(
            f"- **{row['dimension']}**: {judge_rho} against the constant's "
            f"ρ = {_number(row['constant_rho'])} (random rating {_number(row['random_rho'])}); "
            f"{verdict(row)}"
        )
    return lines


def preference_lines(rows: pd.DataFrame) -> list[str]:
    """The card's writer-vs-LLM section: per dimension, the net preference for the LLM's
    summary of a run of the judge's model on Zhang et al.'s writer vs GPT-3.5 set and the
    humans', their difference with its interval and p-value, and the run it comes from; one
    line with the reason where no run of the model is there."""
    head = [
        "## Does it prefer LLM-written summaries? (writer vs GPT-3.5, docs/writer-vs-llm.md)",
        "",
    ]
    scored = rows[[as_float(v) is not None for v in rows["llm_preference"]]]
    if scored.empty:
        reasons = sorted({str(v) for v in rows["llm_preference"] if isinstance(v, str)})
        return [*head, "; ".join(reasons) or "not measured"]
    lines = [
        *head,
        "Net preference for the LLM's summary (share of judgements preferring it minus share "
        "preferring the writer's, question overall, every judgement), from a run of the same "
        "model on that set (its score variant of the card's kind; its other variants in "
        "`tables/writer_vs_llm/preferences.csv`):",
        "",
        "| dimension | judge | humans | judge − humans [95 % CI] (p) | from (variant; its "
        "dimension), judgements |",
        "|---|---|---|---|---|",
    ]
    for _, row in scored.iterrows():
        difference = (
            f"{_number(row['llm_preference_difference'])} "
            f"[{_number(row['llm_preference_ci_low'])}, {_number(row['llm_preference_ci_high'])}]"
            f" ({_number(row['llm_preference_pvalue'])})"
        )
        source = (
            f"`{row['llm_preference_judge']}` ({row['llm_preference_variant']}; "
            f"{row['llm_preference_dimension']}), {int(row['llm_preference_n'])}"
        )
        lines.append(
            f"| {row['dimension']} | {_number(row['llm_preference'])} | "
            f"{_number(row['llm_preference_humans'])} | {difference} | {source} |"
        )
    return lines


def is_binary(rows: pd.DataFrame) -> bool:
    """Whether ``rows`` are a run's on a benchmark of binary labels (balanced accuracy)."""
    return bool((rows["coefficient"] == BINARY_COEFFICIENT).all())


def card_title(label: str, rows: pd.DataFrame) -> str:
    """A card figure's title: the benchmarks of ``rows`` (their titles, in order), then the
    judge's ``label``."""
    benchmarks = ", ".join(title_of(name) for name in dict.fromkeys(rows["benchmark"]))
    return f"{benchmarks}: {label}"


def card_figure(
    rows: pd.DataFrame, title: str, png: str | os.PathLike[str], svg: str | os.PathLike[str]
) -> None:
    """Per dimension (one line each): the judge's correlation with its interval, the best
    baseline's, the human ceiling (range over the annotators), and the alt-test verdict
    written beside them (a run on binary labels: :func:`binary_card_figure`)."""
    if is_binary(rows):
        binary_card_figure(rows, title, png, svg)
        return
    dims = list(rows["dimension"])
    fig = Figure(figsize=(10, 1.4 + 0.9 * len(dims)), layout="constrained")
    ax = fig.add_subplot()
    marks = (
        ("judge", "value", "ci_low", "ci_high", "o", "#1f4e9c"),
        (
            "best baseline (on its full items)",
            "baseline_value_full",
            "baseline_ci_low",
            "baseline_ci_high",
            "s",
            "#888888",
        ),
        (
            "human ceiling (range over annotators)",
            "ceiling",
            "ceiling_low",
            "ceiling_high",
            "D",
            "#2a9d4b",
        ),
    )
    for k, (label, value, low, high, marker, color) in enumerate(marks):
        ys, xs = [], []
        for i, (_, row) in enumerate(rows.iterrows()):
            v, lo, hi = (
                pd.to_numeric(pd.Series([row[c]]), errors="coerce").iloc[0]
                for c in (value, low, high)
            )
            if pd.isna(v):
                continue
            y = i + (k - 1) * 0.22
            ys.append(y)
            xs.append(float(v))
            if not (pd.isna(lo) or pd.isna(hi)):
                # a percentile interval need not contain its point: drawn from end to end
                ax.plot([lo, hi], [y, y], color=color, linewidth=1.4)
            elif value == "value":
                ax.annotate(
                    "no interval (too few documents)",
                    (float(v), y),
                    xytext=(6, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize=7,
                    color=color,
                )
        if xs:
            ax.plot(xs, ys, marker, color=color, label=label, linestyle="none")
    ticks = [
        _with_n(str(row["dimension"]), row["n_items"], row["full_n"]).replace(" (", "\n(judge ")
        for _, row in rows.iterrows()
    ]
    ax.set_yticks(range(len(dims)), ticks)
    ax.set_ylim(len(dims) - 0.5, -0.5)
    ax.axvline(0, color="#cccccc", linewidth=0.8)
    ax.set_xlim(-1.0, 1.0)
    coefficient = rows["coefficient"].iloc[0]
    ax.set_xlabel(
        f"{coefficient.capitalize()} correlation with the humans ({rows['level'].iloc[0]} "
        "level)\nbars: 95 % bootstrap interval; the ceiling's: its range over the annotators"
    )
    for i, (_, row) in enumerate(rows.iterrows()):
        text = "alt-test: " + verdict(row)
        ax.text(
            1.02,
            i,
            wrap_lines(text, 34),
            transform=ax.get_yaxis_transform(),
            va="center",
            fontsize=8,
        )
    fig.legend(loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    ax.set_title(wrap_lines(title, 90), fontsize=10)
    save_figure(fig, png, svg)


def card_markdown(judge: str, label: str, rows: pd.DataFrame, figure_name: str) -> str:
    """The card of ``judge`` (its rows of the judge cards' table; a run on binary labels:
    :func:`binary_card_markdown`)."""
    if is_binary(rows):
        return binary_card_markdown(judge, label, rows, figure_name)
    benchmark = get_benchmark(str(rows["benchmark"].iloc[0]))
    first = rows.iloc[0]
    lines = [
        f"# Judge card: {judge}",
        "",
        f"{label}. Benchmark: {benchmark.title} ({benchmark.item_count} items); score variant "
        f"`{first['variant']}`; status {first['status']}.",
        "",
        "## Can it replace a human rater? (alternative annotator test, Calderon et al. 2025)",
        "",
        *lead_lines(rows),
        "",
        f"![{judge}]({figure_name}.png)",
        "",
        "## Every number",
        "",
        "| dimension | ρ_s (n) [95 % CI] | best baseline | judge − baseline (p) "
        "| human ceiling [range] | SPA [95 % CI] (position, cluster; constant) | system ρ_s |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, row in rows.iterrows():
        value = row["value"]
        if as_float(value) is None:
            lines.append(f"| {row['dimension']} | {value} | | | | | |")
            continue
        corr = _with_n(_number(value), row["n_items"], row["full_n"])
        corr += f" [{_number(row['ci_low'])}, {_number(row['ci_high'])}]"
        baseline = (
            f"{row['baseline']} ({row['baseline_variant']}): {_number(row['baseline_value'])}"
            if isinstance(row["baseline"], str)
            else "–"
        )
        diff = f"{_number(row['difference'])} ({_number(row['difference_pvalue'])})"
        ceiling = _number(row["ceiling"])
        if as_float(row["ceiling"]) is not None:
            ceiling += f" [{_number(row['ceiling_low'])}, {_number(row['ceiling_high'])}]"
        spa = _number(row["spa"])
        if as_float(row["spa"]) is not None:
            if as_float(row["spa_low"]) is not None:
                spa += f" [{_number(row['spa_low'])}, {_number(row['spa_high'])}]"
            position = (
                "not ranked"
                if pd.isna(row["spa_position"])
                else f"#{int(row['spa_position'])}, cluster {int(row['spa_cluster'])}"
            )
            spa = f"{spa} ({position}; {_number(row['spa_constant'])})"
            if row["spa_n_inputs"] is not pd.NA and not pd.isna(row["spa_n_inputs"]):
                spa += (
                    f", {int(row['spa_n_systems'])} systems on {int(row['spa_n_inputs'])} documents"
                )
        lines.append(
            f"| {row['dimension']} | {corr} | {baseline} | {diff} | {ceiling} | {spa} | "
            f"{_number(row['system_spearman'])} |"
        )
    lines += [
        "",
        "## How sure, how many documents (paired bootstrap; docs/protocol.md)",
        "",
        "| dimension | judge − best baseline [95 % CI] | detectable at 80 % power | "
        "needed to detect it | judge − human ceiling [95 % CI] |",
        "|---|---|---|---|---|",
    ]
    for _, row in rows.iterrows():
        if as_float(row["value"]) is None:
            continue
        if as_float(row["difference_ci_low"]) is None:
            versus = _number(row["difference_ci_low"])
            detectable = needed = "–"
        else:
            versus = (
                f"{_number(row['difference'])} [{_number(row['difference_ci_low'])}, "
                f"{_number(row['difference_ci_high'])}]"
            )
            detectable = f"{_number(row['detectable'])} (on {row['power_units']})"
            unit = str(row["power_units"]).split(" ", 1)[-1]
            needed = "–" if pd.isna(row["units_needed"]) else f"{int(row['units_needed'])} {unit}"
        ceiling = _number(row["ceiling_difference"])
        if as_float(row["ceiling_difference"]) is not None:
            ceiling += (
                f" [{_number(row['ceiling_difference_ci_low'])}, "
                f"{_number(row['ceiling_difference_ci_high'])}]"
            )
        lines.append(f"| {row['dimension']} | {versus} | {detectable} | {needed} | {ceiling} |")
    lines += [
        "",
        "## What it favours, how it agrees with itself, what it costs",
        "",
        "| dimension | unread replies | ρ_s with length: judge (humans), at the benchmark's "
        "level | ρ_s with the humans, length partialled out | split-half ρ_s (Spearman-Brown) "
        "| re-run ρ_s | replies per item within the full run's interval: fewest fixed n; "
        "adaptive, mean used (SE target) | per 1,000 items: requests, prompt / completion "
        "tokens, wall s; USD |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, row in rows.iterrows():
        if as_float(row["value"]) is None:
            continue
        unread = _number(row["share_unread"])
        length = f"{_number(row['length_judge'])} ({_number(row['length_human'])})"
        split = _number(row["split_half"])
        if as_float(row["split_half"]) is not None:
            split += f" ({_number(row['spearman_brown'])})"
        cost = _number(row["requests_per_1000"], 0)
        if as_float(row["requests_per_1000"]) is not None:
            cost += (
                f", {_number(row['prompt_tokens_per_1000'], 0)} / "
                f"{_number(row['completion_tokens_per_1000'], 0)}, "
                f"{_number(row['wall_seconds_per_1000'], 0)} s on {row['server']} "
                f"(from {int(row['cost_items'])} items); {usd_text(row['usd_per_1000'])}"
            )
        lines.append(
            f"| {row['dimension']} | {unread} | {length} | {_number(row['partial_length'])} | "
            f"{split} | {_number(row['rerun_spearman'])} | {replies_text(row)} | "
            f"{cost} |"
        )
    lines += ["", *preference_lines(rows)]
    scales = sorted({s for s in rows["alt_scale"].dropna() if isinstance(s, str)})
    lines += [
        "",
        "The alternative annotator test's scale: "
        + ("; ".join(scales) if scales else "not tested")
        + ".",
        "",
        INDEPENDENCE,
        "",
        SOURCES,
        "",
    ]
    return "\n".join(lines)
