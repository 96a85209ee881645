"""The figure of a judge run's replies-per-item sweep on binary human labels
(:mod:`geval_repro.scoring.label_sweep`): each binary-label statistic's mean over domains, and
the share of tied (consistent, inconsistent) pairs, against the replies per item."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from geval_repro.registry.formats import LABEL_SWEEP_FIGURES
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.figures import legend_below, replies_axis, save_figure, spans, wrap_lines
from geval_repro.stats.registry import BINARY_STATISTICS

#: Each parser's colour (one per parser a sweep can hold).
PARSER_COLOURS = {
    "original": "tab:blue",
    "tolerant": "tab:green",
    "yes-no": "tab:purple",
    "final": "tab:brown",
}
#: Both statistics' expected value for a constant or a random score.
CHANCE = 0.5
#: Why a point has no value (the binary-label table's rules, in some domain or draw).
UNDEFINED = (
    "why: in some domain (of some draw) fewer than 3 scored test items, or one class among "
    "them, or (balanced accuracy) one class among the scored threshold items"
)
WIDTH = 12.0


def _curves(ax: Axes, rows: pd.DataFrame, column: str) -> list[str]:
    """Draw ``column`` of each parser's first-n and random n-subset rows (with the random
    rows' band when ``column`` is ``value``); return where a curve of values has none."""
    notes = []
    for parser, mine in rows.groupby("parser", sort=False):
        colour = PARSER_COLOURS.get(str(parser), "tab:gray")
        first = mine[mine["mode"] == "first"].sort_values("n")
        random = mine[mine["mode"] == "random"].sort_values("n")
        if column == "value" and len(random):
            ax.fill_between(
                random["n"], random["band_low"], random["band_high"], color=colour, alpha=0.2,
                lw=0, label=f"{parser}: 95 % band of random n-subsets",
            )  # fmt: skip
        ax.plot(
            first["n"], first[column], color=colour, marker="s", ms=3,
            label=f"{parser}: first n replies",
        )  # fmt: skip
        if len(random):
            ax.plot(
                random["n"], random[column], color=colour, marker="o", ms=3, ls="--",
                label=f"{parser}: random n-subsets (mean)",
            )  # fmt: skip
        if column == "value":
            for name, curve in (("first n", first), ("random n-subsets", random)):
                missing = curve.loc[curve["value"].isna(), "n"]
                if not missing.empty:
                    notes.append(f"{parser}, {name}: no value at n = {spans(missing)}")
    return notes


def label_sweep_figure(sweep: pd.DataFrame, *, title: str) -> Figure:
    """One panel per binary-label statistic (its mean over domains, the dotted line at the
    chance value 0.5 of a constant or random score) and one of the tie rate (the share of
    (consistent, inconsistent) test pairs with equal scores, each counted one half by ROC
    AUC), against the replies per item: per parser, the first n replies (squares) and the
    mean over random n-subsets (circles, dashed; its 2.5-97.5 % band shaded). Under the
    panels, where a curve has no value, and why."""
    statistics = [s for s in BINARY_STATISTICS.values() if (sweep["coefficient"] == s.name).any()]
    fig = Figure(figsize=(WIDTH, 4.6), layout="constrained")
    grid = fig.add_gridspec(2, len(statistics) + 1, height_ratios=[1, 0.13])
    axes = [fig.add_subplot(grid[0, i]) for i in range(len(statistics) + 1)]
    footnote = fig.add_subplot(grid[1, :])
    footnote.axis("off")
    notes: list[str] = []
    for ax, entry in zip(axes, statistics, strict=False):
        notes += _curves(ax, sweep[sweep["coefficient"] == entry.name], "value")
        ax.axhline(CHANCE, color="black", ls=":", lw=1, label="chance (constant or random score)")
        ax.set_title(wrap_lines(entry.label, 44), fontsize=9)
        ax.set_ylabel(f"{entry.symbol}, mean over domains")
        replies_axis(ax, "replies per item (n)")
        ax.grid(alpha=0.3)
    ties = axes[-1]
    _curves(ties, sweep[sweep["coefficient"] == statistics[0].name], "tie_rate")
    ties.set_title(
        "tied (consistent, inconsistent) test pairs\n(ROC AUC counts each one half)", fontsize=9
    )
    ties.set_ylabel("share of pairs tied")
    ties.set_ylim(0, 1.02)
    replies_axis(ties, "replies per item (n)")
    ties.grid(alpha=0.3)
    top = int(sweep["n"].max())
    for ax in axes:
        ax.set_xlim(0.5, top + 0.5)
    if notes:
        lines = [*dict.fromkeys(notes), UNDEFINED]
        text = wrap_lines("; ".join(lines), int(15 * WIDTH))
        footnote.text(0, 1, text, va="top", fontsize=7.5, transform=footnote.transAxes)
    legend_below(fig, axes, ncols=3)
    fig.suptitle(wrap_lines(title, int(13 * WIDTH)), fontsize=10)
    return fig


def label_sweep_figure_set(
    sweep_csv: str | os.PathLike[str], *, spec: JudgeSpec
) -> dict[str, Figure]:
    """The figure of the judge run ``spec``'s sweep on binary labels by its file stem
    (:data:`~geval_repro.registry.formats.LABEL_SWEEP_FIGURES`)."""
    (stem,) = LABEL_SWEEP_FIGURES
    sweep = pd.read_csv(sweep_csv)
    parsers = ", ".join(dict.fromkeys(sweep["parser"]))
    title = (
        f"{spec.label}: {spec.benchmark.title} binary labels vs replies per item (parser: "
        f"{parsers}; on the run's items only)"
    )
    return {stem: label_sweep_figure(sweep, title=title)}


def label_sweep_figures(
    sweep_csv: str | os.PathLike[str], *, spec: JudgeSpec, out_dir: str | os.PathLike[str]
) -> None:
    """Save :func:`label_sweep_figure_set` of the judge run ``spec`` in ``out_dir``
    (``<stem>.png|.svg``)."""
    out = Path(out_dir)
    for stem, fig in label_sweep_figure_set(sweep_csv, spec=spec).items():
        save_figure(fig, out / f"{stem}.png", out / f"{stem}.svg")
