"""The figure of the G-Eval paper's analysis "Will G-Eval prefer LLM-based outputs?": mean
scores of the writers' and the model's summaries, divided by the human judges' preference.

Drawn from the rows of :func:`geval_repro.tables.writer_vs_llm.group_mean_rows` (nothing is
computed here), in the paper's layout: three groups of the human preference (writer
better, LLM better, equally good), two bars each (the writers' summaries, the model's),
with their 95 % bootstrap intervals over articles as error bars, each bar's value above it
and each group's judgement count under it. One panel per (metric, dimension). The paper's
bar values are not drawn: the paper prints them only as bars of a figure, which no source
this toolkit can cite reads out.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from geval_repro.tables.writer_vs_llm import GROUPS

AUTHOR_STYLE = {
    "writer": ("freelance writer", "tab:blue"),
    "llm": ("GPT-3.5 (text-davinci-002)", "tab:orange"),
}
BAR_WIDTH = 0.38
CHARACTERS_PER_INCH = 10  # of the 10-point title: it wraps within the figure's width


def _judgements(n: int) -> str:
    return f"{n} judgement" if n == 1 else f"{n} judgements"


def _panel(ax, rows: pd.DataFrame, label: str) -> None:
    """One (metric, dimension): the groups on x, a bar per author with its interval."""
    x = np.arange(len(GROUPS))
    tops = []
    for offset, (author, (name, colour)) in zip((-0.5, 0.5), AUTHOR_STYLE.items(), strict=True):
        part = rows[rows["author"] == author].set_index("preference").reindex(list(GROUPS))
        values = part["value"].to_numpy(float)
        errors = np.vstack(
            [values - part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float) - values]
        )
        position = x + offset * BAR_WIDTH
        ax.bar(position, values, BAR_WIDTH, color=colour, label=name, zorder=2)
        ax.errorbar(position, values, yerr=errors, fmt="none", ecolor="black", capsize=3, lw=1)
        for px, value, high in zip(position, values, part["ci_high"].to_numpy(float), strict=True):
            if np.isfinite(value):
                top = high if np.isfinite(high) else value
                ax.annotate(
                    f"{value:.{1 if abs(value) >= 10 else 2}f}",
                    (px, top),
                    xytext=(0, 3),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=8,
                )
                tops.append(top)
    counts = rows[rows["author"] == "writer"].set_index("preference")["n_judgements"]
    ax.set_xticks(
        x, [f"{GROUPS[g]}\n({_judgements(counts.get(g, 0))})" for g in GROUPS], fontsize=9
    )
    ax.set_ylabel(label, fontsize=9)
    ax.set_ylim(0, 1.15 * max(tops, default=1.0))  # room for the value labels
    ax.grid(axis="y", alpha=0.3, zorder=0)
    ax.tick_params(axis="y", labelsize=8)


def group_means_figure(
    group_means: pd.DataFrame,
    panels: Sequence[tuple[str, str]],
    *,
    question: str = "overall",
) -> Figure:
    """Mean score of each author's summaries per human preference group, one panel per
    ``(metric, dimension)`` of ``panels``, for the humans' answer to ``question``."""
    if not panels:
        raise ValueError("give at least one (metric, dimension) panel")
    width = max(5.4, 4.6 * len(panels))
    fig = Figure(figsize=(width, 4.1), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (metric, dimension) in zip(axes, panels, strict=True):
        rows = group_means[
            (group_means["metric"] == metric)
            & (group_means["dimension"] == dimension)
            & (group_means["question"] == question)
        ]
        if rows.empty:
            raise ValueError(
                f"no group means of metric {metric!r}, dimension {dimension!r}, question "
                f"{question!r}: make them with tables.writer_vs_llm.writer_vs_llm_rows"
            )
        fixture = " [FIXTURE]" if (rows["status"] == "fixture").any() else ""
        ax.set_title(textwrap.fill(f"{metric}: {dimension}{fixture}", 40), fontsize=10)
        _panel(ax, rows, f"mean {dimension} (95 % CI over articles)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=9)
    fig.suptitle(
        textwrap.fill(
            "Writer vs GPT-3.5 summaries of the same articles, grouped by the human judges' "
            f"{question} preference (Zhang et al. 2023 judgements)",
            int(CHARACTERS_PER_INCH * width),
        ),
        fontsize=10,
    )
    return fig
