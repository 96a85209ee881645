"""Figures for print: every figure is saved as PNG and SVG side by side, atomically.

Figures are :class:`matplotlib.figure.Figure` objects, never pyplot's global state, so jobs
may draw in threads. SVGs carry no timestamp or random ids (``svg.hashsalt`` and
``metadata={"Date": None}``), so reruns give identical files.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from geval_repro.baselines import BASELINE_METRICS
from geval_repro.files.atomic import atomic_path
from geval_repro.registry.benchmarks import BENCHMARKS, PRINTED_NAMES, table_of
from geval_repro.registry.paper import paper_value
from geval_repro.report.markdown import outside_ci

matplotlib.rcParams.update({"svg.hashsalt": "geval-repro", "figure.dpi": 100, "savefig.dpi": 150})

COEFFICIENT_SYMBOL = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}


def save_figure(fig: Figure, png: str | os.PathLike[str], svg: str | os.PathLike[str]) -> None:
    """Save ``fig`` as PNG and SVG atomically."""
    with atomic_path(png) as temporary:
        fig.savefig(temporary, format="png", metadata={"Software": None})
    with atomic_path(svg) as temporary:
        fig.savefig(temporary, format="svg", metadata={"Date": None, "Creator": None})


def _title(text: str, width: int) -> str:
    """``text`` wrapped to lines of at most ``width`` characters (titles are never cut off)."""
    return "\n".join(textwrap.wrap(text, width)) or text


def sweep_figure(
    sweep: pd.DataFrame,
    *,
    coefficient: str,
    parser: str,
    paper: Mapping[str, float],
    title: str,
) -> Figure:
    """Correlation vs replies per item, one panel per dimension.

    Lines: the first-n mean (released order) and the mean over random n-subsets with its
    2.5-97.5 % band; a dashed line marks the paper's printed value for the dimension.
    """
    rows = sweep[(sweep["coefficient"] == coefficient) & (sweep["parser"] == parser)]
    dimensions = list(dict.fromkeys(rows["dimension"]))
    fig = Figure(figsize=(3.2 * len(dimensions), 3.4), layout="constrained")
    axes = fig.subplots(1, len(dimensions), sharey=True, squeeze=False)
    for ax, dimension in zip(axes[0], dimensions, strict=True):
        dim_rows = rows[rows["dimension"] == dimension]
        random = dim_rows[dim_rows["mode"] == "random"].sort_values("n")
        first = dim_rows[dim_rows["mode"] == "first"].sort_values("n")
        ax.fill_between(
            random["n"], random["band_low"], random["band_high"], alpha=0.25, label="95 % band"
        )
        ax.plot(random["n"], random["value"], marker="o", ms=3, label="random n-subsets (mean)")
        ax.plot(first["n"], first["value"], marker="s", ms=3, label="first n replies")
        if dimension in paper:
            ax.axhline(paper[dimension], color="black", ls="--", lw=1, label="paper (printed)")
        ax.set_title(dimension)
        ax.set_xlabel("replies averaged per item (n)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"summary-level {COEFFICIENT_SYMBOL[coefficient]}")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.suptitle(_title(title, int(30 * len(dimensions))), fontsize=10)
    return fig


def tie_rate_figure(sweep: pd.DataFrame, *, parser: str, title: str) -> Figure:
    """Share of tied within-document pairs of item scores vs replies per item."""
    rows = sweep[
        (sweep["parser"] == parser)
        & (sweep["mode"] == "first")
        & (sweep["coefficient"] == "kendall")
    ]
    fig = Figure(figsize=(4.8, 3.6), layout="constrained")
    ax = fig.subplots()
    for dimension, dim_rows in rows.groupby("dimension", sort=False):
        dim_rows = dim_rows.sort_values("n")
        ax.plot(dim_rows["n"], 100 * dim_rows["tie_rate"], marker="o", ms=3, label=dimension)
    ax.set_xlabel("replies averaged per item (n, first n)")
    ax.set_ylabel("tied within-document pairs (%)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(_title(title, 50), fontsize=10)
    return fig


def sweep_figures(
    sweep_csv: str | os.PathLike[str],
    *,
    spec: Mapping[str, Any],
    out_dir: str | os.PathLike[str],
    parser: str = "original",
) -> None:
    """The sweep's figures for one judge run (config ``spec``): ρ, τ and the tie rate vs n."""
    label, paper_metric = spec["label"], spec.get("paper_metric")
    sweep = pd.read_csv(sweep_csv)
    out = Path(out_dir)
    for coefficient in ("spearman", "kendall"):
        printed = {
            dim: value
            for dim in sweep["dimension"].unique()
            if paper_metric
            and (value := paper_value("summeval", dim, paper_metric, coefficient)) is not None
        }
        fig = sweep_figure(
            sweep,
            coefficient=coefficient,
            parser=parser,
            paper=printed,
            title=f"{label}: SummEval summary-level {COEFFICIENT_SYMBOL[coefficient]} "
            f"vs replies per item ({parser} parser)",
        )
        save_figure(fig, out / f"sweep_{coefficient}.png", out / f"sweep_{coefficient}.svg")
    fig = tie_rate_figure(sweep, parser=parser, title=f"{label}: ties among item scores")
    save_figure(fig, out / "tie_rate.png", out / "tie_rate.svg")


def _scale_label(scale: tuple[float, float]) -> str:
    return f"{scale[0]:g}-{scale[1]:g}"


def distribution_figure(counts: pd.DataFrame) -> Figure:
    """Share of items at each human score: one panel per benchmark and human scale.

    ``counts``: rows benchmark, dimension, score, share (see
    :func:`geval_repro.human.distributions.score_counts`). Dimensions of one benchmark share
    a panel when they share a scale (the registry's ``human_scale``), so no axis mixes a 0-1
    scale with a 1-5 one (Topical-Chat's groundedness gets its own panel). Bars stand at the
    score's value on the axis, ticks at the scale's whole points.
    """
    panels: dict[tuple[str, tuple[float, float]], list[str]] = {}
    for benchmark, dimension in dict.fromkeys(
        zip(counts["benchmark"], counts["dimension"], strict=True)
    ):
        scale = BENCHMARKS[benchmark].dimension(dimension).human_scale
        panels.setdefault((benchmark, scale), []).append(dimension)
    n_cols = min(3, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    fig = Figure(figsize=(4.2 * n_cols, 3.2 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    for ax, ((benchmark, scale), dimensions) in zip(axes, panels.items(), strict=False):
        part = counts[(counts["benchmark"] == benchmark) & counts["dimension"].isin(dimensions)]
        low, high = scale
        scores = np.unique(part["score"].to_numpy(dtype=float))
        step = min([*np.diff(scores), (high - low) / 6])  # bars never wider than 1/6 of the axis
        width = 0.8 * step / len(dimensions)
        for k, dimension in enumerate(dimensions):
            rows = part[part["dimension"] == dimension]
            offset = (k - (len(dimensions) - 1) / 2) * width
            ax.bar(rows["score"] + offset, 100 * rows["share"], width, label=dimension.title())
        margin = 0.08 * (high - low)
        ax.set_xlim(low - margin, high + margin)
        ax.set_xticks(np.linspace(low, high, round(high - low) + 1 if high - low > 1 else 3))
        ax.set_xlabel(f"human score ({_scale_label(scale)}, mean of annotators)")
        ax.set_ylabel("share of items (%)")
        what = BENCHMARKS[benchmark].title
        if len(panels) > 1 and sum(b == benchmark for b, _ in panels) > 1:
            what += f", {' / '.join(d.title() for d in dimensions)}"
        ax.set_title(f"{what} ({_scale_label(scale)})", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle("Distribution of human scores", fontsize=10)
    return fig


#: A recomputed cell without a CI (an average row) is an outlier when |delta| exceeds this.
REPRODUCTION_THRESHOLD = 0.02
_SYMBOL = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}
#: What a row's metric is, for its marker and colour: the model-free baselines recomputed
#: here, UniEval's released predictions, and judge runs (every other metric).
_KINDS = {
    "baseline": ("o", "tab:blue", "model-free baseline (ROUGE, BLEU, METEOR)"),
    "unieval": ("^", "tab:purple", "UniEval (released predictions)"),
    "judge": ("s", "tab:orange", "judge run"),
}
_LABEL_GAP = 0.026  # minimum vertical gap between two outlier labels (axes fraction)
_KEY_WIDTH = 100  # characters of one line of the outliers' key


def _kind(metric: str) -> str:
    if metric in BASELINE_METRICS:
        return "baseline"
    return "unieval" if metric == "UniEval" else "judge"


def _outliers(part: pd.DataFrame, threshold: float) -> np.ndarray:
    """Outlier mask: printed value outside our CI, or |delta| > threshold without a CI."""
    return np.array(
        [
            outside_ci(r.paper_value, r.ci_low, r.ci_high)
            if not (pd.isna(r.ci_low) or pd.isna(r.ci_high))
            else abs(r.value - r.paper_value) > threshold
            for r in part.itertuples()
        ],
        dtype=bool,
    )


def _spread(positions: np.ndarray, gap: float) -> np.ndarray:
    """``positions`` (sorted ascending) moved apart to at least ``gap``, kept in [0, 1]."""
    out = positions.astype(float).copy()
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    overflow = out[-1] - 1.0 if len(out) else 0.0
    if overflow > 0:
        out -= overflow
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - gap)
    return out


def _cell_name(r: Any) -> str:
    where = r.dimension if r.benchmark in ("summeval", "topical_chat") else r.benchmark
    return f"{where.removeprefix('qags_')} {_SYMBOL[r.coefficient]}"


def reproduction_figure(
    table: pd.DataFrame, number: int, *, threshold: float = REPRODUCTION_THRESHOLD
) -> Figure:
    """Does paper table ``number`` reproduce? Every recomputed cell against its printed value.

    ``table``: rows of the correlation table; drawn are those of the table's benchmarks with
    status ``recomputed``, a value and a ``paper_value``: x = the printed value, y = ours
    with its 95 % CI as a vertical bar (averages have none), and the line y = x. Markers tell
    the metric's kind (baseline, UniEval, judge run). A cell is an outlier, drawn filled and
    numbered, when the printed value lies outside our CI beyond its rounding
    (:func:`geval_repro.report.markdown.outside_ci`) or, without a CI, when
    ``|delta| > threshold``; the numbers stand in a column right of the points (leader lines
    join them, so no two overlap) and the table beside the plot names each one.
    """
    benchmarks = [name for name in PRINTED_NAMES if table_of(name) == number]
    part = table[
        table["benchmark"].isin(benchmarks)
        & (table["status"] == "recomputed")
        & table["value"].notna()
        & table["paper_value"].notna()
    ].sort_values(["value"], kind="stable")
    flagged = _outliers(part, threshold)
    outliers = part[flagged]
    columns = 1 if len(outliers) <= 36 else 2
    lines_per_column = math.ceil(len(outliers) / columns) if len(outliers) else 1
    height = max(6.8, 1.6 + 0.17 * lines_per_column)
    fig = Figure(figsize=(7.2 + 5.4 * columns, height), layout="constrained")
    plot, key = fig.subplots(1, 2, width_ratios=[7.2, 5.4 * columns])
    titles = [BENCHMARKS[b].title if b in BENCHMARKS else "Average" for b in benchmarks]
    plot.set_title(f"Table {number}: {', '.join(titles)}", fontsize=11)
    plot.set_xlabel("paper's printed value", fontsize=10)
    plot.set_ylabel("ours (95 % bootstrap CI)", fontsize=10)
    plot.tick_params(labelsize=9)
    plot.grid(alpha=0.3)
    key.axis("off")
    fig.suptitle(
        f"Does it reproduce? {len(outliers)} of {len(part)} recomputed cells are outliers "
        f"(printed value outside our 95 % CI, or |delta| > {threshold:g} without a CI)",
        fontsize=11,
    )
    if part.empty:
        plot.text(
            0.5, 0.5, "no recomputed cell", ha="center", va="center", transform=plot.transAxes
        )
        return fig
    x, y = part["paper_value"].to_numpy(float), part["value"].to_numpy(float)
    low = np.nan_to_num(y - part["ci_low"].to_numpy(float))
    high = np.nan_to_num(part["ci_high"].to_numpy(float) - y)
    kinds = part["metric"].map(_kind).to_numpy()
    for kind, (marker, colour, label) in _KINDS.items():
        for outlier in (False, True):
            mask = (kinds == kind) & (flagged == outlier)
            if not mask.any():
                continue
            plot.errorbar(
                x[mask],
                y[mask],
                yerr=[low[mask], high[mask]],
                fmt=marker,
                ms=5 if outlier else 4,
                lw=0.8,
                color=colour,
                ecolor=colour,
                mfc=colour if outlier else "none",
                alpha=0.9 if outlier else 0.6,
                label=f"{label}{', outlier' if outlier else ''} ({mask.sum()})",
            )
    lo = min(x.min(), (y - low).min(), 0.0) - 0.05
    hi = max(x.max(), (y + high).max()) + 0.05
    plot.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--", label="y = x")
    plot.set_xlim(lo, hi)
    plot.set_ylim(lo, hi)
    plot.legend(fontsize=8, loc="upper left")
    # Number the outliers in a column right of the points, in the order of their values.
    order = np.argsort(outliers["value"].to_numpy(float), kind="stable")
    fractions = (outliers["value"].to_numpy(float)[order] - lo) / (hi - lo)
    label_y = _spread(fractions, _LABEL_GAP)
    entries = []
    for k, (i, ly) in enumerate(zip(order, label_y, strict=True), start=1):
        r = outliers.iloc[i]
        colour = _KINDS[_kind(r["metric"])][1]
        plot.annotate(
            str(k),
            (r["paper_value"], r["value"]),
            xytext=(1.02, ly),
            textcoords="axes fraction",
            fontsize=8,
            color=colour,
            va="center",
            arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.4, "alpha": 0.6},
            annotation_clip=False,
        )
        ci = (
            f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            if not (pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]))
            else ""
        )
        entries.append(
            f"{k:>2}  {r['metric']} ({r['variant']}), {_cell_name(r)}: "
            f"ours {r['value']:.3f}{ci}, printed {r['paper_value']:.3f}"
        )
    for c in range(columns if entries else 0):
        chunk = entries[c * lines_per_column : (c + 1) * lines_per_column]
        key.text(
            0.04 + c / columns,
            1.0,
            "\n".join(e if len(e) <= _KEY_WIDTH else e[: _KEY_WIDTH - 3] + "..." for e in chunk),
            va="top",
            ha="left",
            fontsize=8,
            family="monospace",
            transform=key.transAxes,
        )
    if not entries:
        key.text(0.04, 1.0, "no outlier: every printed value lies in our CI", va="top", fontsize=9)
    return fig


def reproduction_figure_of_table(
    rows_csv: str | os.PathLike[str],
    number: int,
    png: str | os.PathLike[str],
    svg: str | os.PathLike[str],
) -> None:
    """Draw :func:`reproduction_figure` of paper table ``number`` from its rows, save it
    (PNG + SVG)."""
    save_figure(reproduction_figure(pd.read_csv(rows_csv), number), png, svg)
