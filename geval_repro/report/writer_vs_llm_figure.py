"""The figure of the G-Eval paper's analysis "Will G-Eval prefer LLM-based outputs?": mean
scores of the writers' and the model's summaries, divided by the human judges' preference.

Drawn from the rows of :func:`geval_repro.tables.writer_vs_llm.group_mean_rows` (nothing is
computed here), in the paper's layout: three groups of the human preference (writer
better, LLM better, equally good), two bars each (the writers' summaries, the model's),
with their 95 % bootstrap intervals over articles as error bars (none on fewer than
:data:`geval_repro.tables.rows.MIN_BOOTSTRAP_UNITS` articles), each bar's value above it
and each group's judgement count (n) under it. One panel per (metric, variant, dimension), a
row of panels per metric and variant. The paper's
bar values are not drawn: the paper prints them only as bars of a figure, which no source
this toolkit can cite reads out.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from geval_repro.tables.rows import MIN_BOOTSTRAP_UNITS
from geval_repro.tables.writer_vs_llm import GROUPS

AUTHOR_STYLE = {
    "writer": ("freelance writer", "tab:blue"),
    "llm": ("GPT-3.5 (text-davinci-002)", "tab:orange"),
}
BAR_WIDTH = 0.38
CHARACTERS_PER_INCH = 10  # of the 10-point title: it wraps within the figure's width


def _panel(ax, rows: pd.DataFrame, label: str) -> None:
    """One (metric, variant, dimension): the groups on x, a bar per author with its
    interval (a note in the panel when no judgement has a value)."""
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
    if not tops:
        ax.text(
            0.5,
            0.5,
            "no judgement has both\nsummaries scored",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=9,
        )
    counts = rows[rows["author"] == "writer"].set_index("preference")["n_judgements"]
    ax.set_xticks(x, [f"{GROUPS[g]}\nn = {counts.get(g, 0)}" for g in GROUPS], fontsize=9)
    ax.set_ylabel(label, fontsize=9)
    ax.set_ylim(0, 1.15 * max(tops, default=1.0))  # room for the value labels
    ax.grid(axis="y", alpha=0.3, zorder=0)
    ax.tick_params(axis="y", labelsize=8)


#: The size of one panel (inches): room for the three groups' two-line labels.
PANEL_WIDTH, PANEL_HEIGHT = 3.5, 3.0
#: How a panel's title marks rows that are not a recomputation of released data.
STATUS_MARKS = {"fixture": " [FIXTURE]", "toolkit-run": " [toolkit run]"}
NO_BREAK = "\u00a0"  # a space textwrap does not break at

Panel = tuple[str, str, str]  # (metric, variant, dimension)


def group_means_figure(
    group_means: pd.DataFrame,
    panels: Sequence[Sequence[Panel]],
    *,
    question: str = "overall",
) -> Figure:
    """Mean score of each author's summaries per human preference group, for the humans'
    answer to ``question``: one row of panels per entry of ``panels``, a panel per
    ``(metric, variant, dimension)`` of it."""
    if not any(panels):
        raise ValueError("give at least one (metric, variant, dimension) panel")
    n_cols = max(len(row) for row in panels)
    width = max(5.4, PANEL_WIDTH * n_cols)
    fig = Figure(figsize=(width, 1.0 + PANEL_HEIGHT * len(panels)), layout="constrained")
    grid = fig.subplots(len(panels), n_cols, squeeze=False)
    for axes, row in zip(grid, panels, strict=True):
        for ax in axes[len(row) :]:
            ax.remove()
        for ax, (metric, variant, dimension) in zip(axes, row, strict=False):
            rows = group_means[
                (group_means["metric"] == metric)
                & (group_means["variant"] == variant)
                & (group_means["dimension"] == dimension)
                & (group_means["question"] == question)
            ]
            if rows.empty:
                raise ValueError(
                    f"no group means of metric {metric!r}, variant {variant!r}, dimension "
                    f"{dimension!r}, question {question!r}: make them with "
                    "tables.writer_vs_llm.writer_vs_llm_rows"
                )
            mark = "".join(dict.fromkeys(STATUS_MARKS.get(s, "") for s in rows["status"]))
            kept = f" {mark.strip().replace(' ', NO_BREAK)}" if mark else ""
            title = (  # neither a name nor a status mark broken over two lines
                textwrap.fill(f"{metric}{kept}", 38, break_on_hyphens=False).replace(NO_BREAK, " ")
                + "\n"
                + textwrap.fill(f"{variant}: {dimension}", 38)
            )
            ax.set_title(title, fontsize=9)
            _panel(ax, rows, f"mean {dimension}\n(95 % CI over articles)")
    handles, labels = grid[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=9)
    fig.suptitle(
        textwrap.fill(
            "Writer vs GPT-3.5 summaries of the same articles, grouped by the human judges' "
            f"{question} preference (Zhang et al. 2023 judgements; n: the group's judgements "
            f"with both summaries scored; no interval on fewer than {MIN_BOOTSTRAP_UNITS} "
            "articles)"
            + (
                "; a variant 'A = B': two scorings that give every summary the same score, "
                "shown once"
                if any(" = " in variant for row in panels for _, variant, _ in row)
                else ""
            ),
            int(CHARACTERS_PER_INCH * width),
        ),
        fontsize=10,
    )
    return fig
