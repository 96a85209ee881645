"""Figures for print: every figure is saved as PNG and SVG side by side, atomically.

Figures are :class:`matplotlib.figure.Figure` objects, never pyplot's global state, so jobs
may draw in threads. SVGs carry no timestamp or random ids (``svg.hashsalt`` and
``metadata={"Date": None}``), so reruns give identical files.
"""

from __future__ import annotations

import itertools
import math
import os
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from geval_repro.baselines import BASELINE_METRICS, PRINTED_AS, PROTOCOL_METRICS
from geval_repro.files.atomic import atomic_path
from geval_repro.registry.benchmarks import (
    BENCHMARKS,
    PRINTED_NAMES,
    average_of,
    level_of,
    protocol_variant_of,
    short_of,
    table_of,
)
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.paper import paper_value
from geval_repro.report.markdown import outside_ci
from geval_repro.report.readme import RELEASED_JUDGE
from geval_repro.stats.registry import CORRELATIONS, PAIRWISE_ACCURACIES, statistic, symbol
from geval_repro.tables.judge_rows import beyond_the_paper

matplotlib.rcParams.update({"svg.hashsalt": "geval-repro", "figure.dpi": 100, "savefig.dpi": 150})


def save_figure(fig: Figure, png: str | os.PathLike[str], svg: str | os.PathLike[str]) -> None:
    """Save ``fig`` as PNG (at ``savefig.dpi``) and SVG atomically, laid out once.

    ``Figure.savefig`` draws a figure that has a layout engine twice per file: once with
    drawing disabled, where the engine places the panels, then for real with the layout
    fixed. Here the PNG is drawn once by the Agg backend's print method, the engine placing
    the panels at the start of that draw (the same bytes as ``savefig``'s PNG), and the SVG
    is drawn with the panels where the PNG has them, the engine set aside for that draw: the
    layout is computed once for both files, in figure fractions (so at the PNG's text
    metrics; the SVG's own places the panels up to a few points elsewhere). A test compares
    both files with ``savefig``'s of the same steps. ``fig`` keeps its canvas, dpi and
    layout engine.
    """
    canvas, dpi, engine = fig.canvas, fig.dpi, fig.get_layout_engine()
    try:
        with atomic_path(png) as temporary:
            fig.dpi = matplotlib.rcParams["savefig.dpi"]
            FigureCanvasAgg(fig).print_png(temporary, metadata={"Software": None})
        if engine is not None:
            fig.set_layout_engine("none")
        with atomic_path(svg) as temporary:
            FigureCanvasSVG(fig).print_svg(temporary, metadata={"Date": None, "Creator": None})
    finally:
        fig.dpi = dpi
        if engine is not None:
            fig.set_layout_engine(engine)
        fig.set_canvas(canvas)


def wrap_lines(text: str, width: int) -> str:
    """``text`` wrapped to lines of at most ``width`` characters (titles are never cut off),
    at spaces only: a hyphenated word ("dataset-level") stays on one line, and so does an
    equation ("n = 20", "ε = 0.2": its spaces become no-break spaces)."""
    kept = text.replace(" = ", "\u00a0=\u00a0")
    return "\n".join(textwrap.wrap(kept, width, break_on_hyphens=False)) or kept


#: The narrowest sweep figure (inches): room for a two-line title and the legend's row.
SWEEP_MIN_WIDTH = 6.0
#: Why a sweep's random n-subsets have no value at some n, by the benchmark's level: the mean
#: over the draws is undefined when one draw's correlation is (:mod:`geval_repro.scoring.sweep`).
UNDEFINED_DRAW = {
    "summary": "in some draw no document's item scores varied",
    "global": "in some draw the item scores did not vary",
}


def replies_axis(ax: Any, label: str = "replies averaged per item (n)") -> None:
    """Label ``ax``'s x axis as a count of replies, ticked at whole numbers only (multiples
    of 1, 2, 5 or 10: 5, 10, 15, 20 for the usual 20 replies)."""
    ax.set_xlabel(label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def spans(ns: Iterable[int]) -> str:
    """``1, 2, 3, 7`` -> ``"1-3, 7"``: runs of consecutive counts."""
    runs: list[list[int]] = []
    for n in sorted(set(ns)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _undefined_note(ax: Any, random: pd.DataFrame, level: str) -> None:
    """Say inside ``ax`` at which n its random n-subsets have no value, and why."""
    missing = random.loc[random["value"].isna(), "n"]
    if not missing.empty:
        ax.text(
            0.03,
            0.03,
            f"random n-subsets: no value at n = {spans(missing)}:\n{UNDEFINED_DRAW[level]}",
            transform=ax.transAxes,
            fontsize=7,
            va="bottom",
        )


def legend_below(fig: Figure, axes: Any, ncols: int | None = None) -> None:
    """One legend for ``fig``, under its panels (where it hides no line or band), of the
    entries of ``axes`` (one Axes or several; repeated labels once)."""
    entries: dict[str, Any] = {}
    for ax in np.atleast_1d(axes).ravel():
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.legend(
        entries.values(),
        entries.keys(),
        loc="outside lower center",
        ncols=ncols or len(entries),
        fontsize=8,
    )


def sweep_figure(
    sweep: pd.DataFrame,
    *,
    coefficient: str,
    parser: str,
    paper: Mapping[str, float],
    title: str,
    level: str = "summary",
    level_name: str = "summary",
) -> Figure:
    """Correlation vs replies per item, one panel per dimension (``level``: the benchmark's
    correlation level, ``level_name`` its name for the axis).

    Lines: the first-n mean (released order) and the mean over random n-subsets with its
    2.5-97.5 % band; a dashed line marks the paper's printed value for the dimension; a
    panel says at which n the random n-subsets have no value, and why. The adaptive rule's
    rows (mode ``adaptive``: the mean over random orders of the replies, one point per
    standard-error target at its mean replies used; their band is in the table) make the
    curve of
    correlation against replies used beside the fixed n. The legend sits under
    the panels, the title over them in at most a few lines.
    """
    rows = sweep[(sweep["coefficient"] == coefficient) & (sweep["parser"] == parser)]
    dimensions = list(dict.fromkeys(rows["dimension"]))
    width = max(SWEEP_MIN_WIDTH, 3.2 * len(dimensions))
    fig = Figure(figsize=(width, 3.9), layout="constrained")
    axes = fig.subplots(1, len(dimensions), sharey=True, squeeze=False)
    for ax, dimension in zip(axes[0], dimensions, strict=True):
        dim_rows = rows[rows["dimension"] == dimension]
        random = dim_rows[dim_rows["mode"] == "random"].sort_values("n")
        first = dim_rows[dim_rows["mode"] == "first"].sort_values("n")
        ax.fill_between(
            random["n"],
            random["band_low"],
            random["band_high"],
            alpha=0.25,
            label="95 % band of random n-subsets",
        )
        ax.plot(random["n"], random["value"], marker="o", ms=3, label="random n-subsets (mean)")
        ax.plot(first["n"], first["value"], marker="s", ms=3, label="first n replies")
        adaptive = dim_rows[dim_rows["mode"] == "adaptive"]
        if len(adaptive):  # a sweep made before the adaptive rows has none
            adaptive = adaptive.sort_values("replies_used")
            targets = adaptive["se_target"]
            ax.plot(
                adaptive["replies_used"], adaptive["value"], color="tab:red", marker="D", ms=3.5,
                lw=1, label=f"adaptive: SE target {targets.max():g} to {targets.min():g}",
            )  # fmt: skip
        if dimension in paper:
            ax.axhline(paper[dimension], color="black", ls="--", lw=1, label="paper (printed)")
        _undefined_note(ax, random, level)
        ax.set_title(dimension)
        replies_axis(ax, "replies per item (n; adaptive: mean used)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"{level_name}-level {statistic(coefficient).label}")
    legend_below(fig, axes, ncols=None if width >= 10 else 3)  # a narrow figure: 2 rows
    fig.suptitle(wrap_lines(title, int(13 * width)), fontsize=10)
    return fig


#: What the tie rate counts at each level: pairs within a document, or all pairs of items.
TIED_PAIRS = {"summary": "within-document pairs", "global": "pairs of items"}
#: calibrated or not -> (colour, line width, threshold, band) of an accuracy's curve; drawn
#: calibrated first, so acc_eq thin on top of a wide acc*_eq shows where the fitted
#: threshold is 0 and they coincide. The bands differ in kind, one filled, one hatched, so
#: where they overlap both stay readable (two translucent fills would mix into a third colour).
ACCURACY_STYLES = {
    True: ("tab:orange", 3.0, "ε fitted per draw", {"alpha": 0.3, "lw": 0}),
    False: ("tab:blue", 1.2, "ε = 0", {"facecolor": "none", "hatch": "////", "lw": 0}),
}
#: accuracy -> (colour, line width, label, band's label, band keywords), in drawing order.
ACCURACY_LINES = {
    accuracy.name: (
        colour,
        width,
        f"{accuracy.symbol} ({threshold})",
        f"{accuracy.symbol}, 95 % band of random n-subsets",
        band,
    )
    for accuracy in sorted(PAIRWISE_ACCURACIES, key=lambda a: not a.calibrated)
    for colour, width, threshold, band in [ACCURACY_STYLES[accuracy.calibrated]]
}


def tie_rate_figure(
    sweep: pd.DataFrame, *, parser: str, title: str, level: str = "summary"
) -> Figure:
    """Share of tied pairs of item scores (within documents at the summary level, all pairs
    at the global level) vs replies per item; the legend under the plot."""
    # every coefficient's row of a step carries the step's tie rate: one per (dimension, n)
    rows = sweep[(sweep["parser"] == parser) & (sweep["mode"] == "first")].drop_duplicates(
        ["dimension", "n"]
    )
    fig = Figure(figsize=(SWEEP_MIN_WIDTH, 3.9), layout="constrained")
    ax = fig.subplots()
    for dimension, dim_rows in rows.groupby("dimension", sort=False):
        dim_rows = dim_rows.sort_values("n")
        ax.plot(dim_rows["n"], 100 * dim_rows["tie_rate"], marker="o", ms=3, label=dimension)
    replies_axis(ax, "replies averaged per item (n, first n)")
    ax.set_ylabel(f"tied {TIED_PAIRS[level]} (%)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    legend_below(fig, ax, ncols=min(4, len(ax.get_lines())))
    ax.set_title(wrap_lines(title, int(11 * SWEEP_MIN_WIDTH)), fontsize=10)
    return fig


def sweep_accuracy_figure(
    sweep: pd.DataFrame, *, parser: str, title: str, level: str = "summary"
) -> Figure:
    """Pairwise accuracy vs replies per item, one column per dimension: above, acc_eq and
    acc*_eq (random n-subsets: mean and 2.5-97.5 % band over the draws; first n replies:
    dashed); below, the tie rate of the item scores (the ties acc_eq counts at ε = 0); one
    legend under the panels."""
    rows = sweep[(sweep["parser"] == parser) & sweep["coefficient"].isin(list(ACCURACY_LINES))]
    dimensions = list(dict.fromkeys(rows["dimension"])) or [""]
    fig_width = max(SWEEP_MIN_WIDTH, 3.3 * len(dimensions) + 0.4)
    fig = Figure(figsize=(fig_width, 6.6), layout="constrained")
    axes = fig.subplots(
        2, len(dimensions), sharex=True, sharey="row", squeeze=False, height_ratios=[2, 1]
    )
    for column, dimension in enumerate(dimensions):
        top, bottom = axes[0][column], axes[1][column]
        dim_rows = rows[rows["dimension"] == dimension].sort_values("n")
        for coefficient, (colour, width, label, band_label, band) in ACCURACY_LINES.items():
            curve = dim_rows[dim_rows["coefficient"] == coefficient]
            random = curve[curve["mode"] == "random"]
            first = curve[curve["mode"] == "first"]
            top.fill_between(
                random["n"],
                random["band_low"],
                random["band_high"],
                **{"color": colour, "edgecolor": colour} | band,
                label=band_label,
            )
            top.plot(
                random["n"],
                random["value"],
                color=colour,
                lw=width,
                marker="o",
                ms=3,
                label=f"{label}, random n-subsets",
            )
            top.plot(
                first["n"],
                first["value"],
                color=colour,
                lw=width / 1.5,
                ls="--",
                marker="s",
                ms=3,
                mfc="none",
                label=f"{label}, first n",
            )
        # every accuracy's row of a step carries the step's tie rate
        ties = dim_rows.drop_duplicates(["mode", "n"])
        for mode, style in (("random", "-"), ("first", "--")):
            part = ties[ties["mode"] == mode]
            bottom.plot(
                part["n"],
                100 * part["tie_rate"],
                color="tab:gray",
                ls=style,
                marker="o" if mode == "random" else "s",
                ms=3,
                mfc=None if mode == "random" else "none",
                label=f"tie rate, {'random n-subsets' if mode == 'random' else 'first n'}",
            )
        top.set_title(dimension)
        top.grid(alpha=0.3)
        bottom.grid(alpha=0.3)
        replies_axis(bottom)
    axes[1][0].set_ylim(bottom=0)  # shared by the row: once every panel is drawn
    axes[0][0].set_ylabel("pairwise accuracy")
    axes[1][0].set_ylabel(wrap_lines(f"tied {TIED_PAIRS[level]} (%)", 22))  # a short panel
    legend_below(fig, axes, ncols=3 if len(dimensions) > 1 else 2)
    fig.suptitle(wrap_lines(title, int(13 * fig_width)), fontsize=10)
    return fig


def sweep_figure_set(
    sweep_csv: str | os.PathLike[str], *, spec: JudgeSpec, parser: str = "original"
) -> dict[str, Figure]:
    """The sweep's figures for one judge run (its ``spec``), by file stem
    (:data:`geval_repro.registry.formats.SWEEP_FIGURES`): ρ, τ, the tie rate and the
    pairwise accuracies vs n, at the level of the run's benchmark (its printed values for
    ρ and τ, if the paper prints the run's ``paper_metric``)."""
    label, paper_metric, benchmark = spec.label, spec.paper_metric, spec.benchmark
    where = f"{benchmark.title} {benchmark.level_name}-level"
    sweep = pd.read_csv(sweep_csv)
    figures = {}
    for coefficient in (c.name for c in CORRELATIONS if c.swept):
        printed = {
            dim: value
            for dim in sweep["dimension"].unique()
            if paper_metric
            and (value := paper_value(benchmark.name, dim, paper_metric, coefficient)) is not None
        }
        figures[f"sweep_{coefficient}"] = sweep_figure(
            sweep,
            coefficient=coefficient,
            parser=parser,
            paper=printed,
            title=f"{label}: {where} {statistic(coefficient).label} "
            f"vs replies per item ({parser} parser)",
            level=benchmark.level,
            level_name=benchmark.level_name,
        )
    figures["tie_rate"] = tie_rate_figure(
        sweep,
        parser=parser,
        title=f"{label}: {where} ties among item scores ({parser} parser)",
        level=benchmark.level,
    )
    figures["sweep_accuracy"] = sweep_accuracy_figure(
        sweep,
        parser=parser,
        title=f"{label}: {where} pairwise accuracy with ties vs replies per item ({parser} parser)",
        level=benchmark.level,
    )
    return figures


def sweep_figures(
    sweep_csv: str | os.PathLike[str],
    *,
    spec: JudgeSpec,
    out_dir: str | os.PathLike[str],
    parser: str = "original",
) -> None:
    """Save :func:`sweep_figure_set` of one judge run in ``out_dir`` (``<stem>.png|.svg``)."""
    out = Path(out_dir)
    for stem, fig in sweep_figure_set(sweep_csv, spec=spec, parser=parser).items():
        save_figure(fig, out / f"{stem}.png", out / f"{stem}.svg")


def _scale_label(scale: tuple[float, float]) -> str:
    return f"{scale[0]:g}-{scale[1]:g}"


#: A panel whose tallest bar holds at least this share of the items, and at least
#: :data:`CUT_RATIO` times the next one, has that bar cut at the axis' top.
PILED_UP, CUT_RATIO = 0.5, 3.0
#: Room above the tallest (uncut) bar for the panel's text; a cut bar ends at this share of
#: the axis, its share written above it.
HEADROOM, CUT_AT = 1.2, 0.8


def distribution_figure(counts: pd.DataFrame) -> Figure:
    """Share of items at each human score: one panel per benchmark and dimension.

    ``counts``: rows benchmark, dimension, score, share (see
    :func:`geval_repro.human.distributions.score_counts`). Each panel has its own y scale, so
    a dimension whose items pile up at one score (SummEval's consistency and fluency: about
    80 % at 5) does not flatten the others' bars; its x axis is the dimension's human scale
    (the registry's ``human_scale``), bars at the score's value, ticks at the scale's whole
    points, and the mean and the share at the top score written in the panel, above the
    tallest bar (:data:`HEADROOM`). Every y axis is linear (share of items, %). Where one
    score holds at least :data:`PILED_UP` of the items and :data:`CUT_RATIO` times the next
    one (SummEval's consistency: 82 % at 5), that bar is cut at the axis' top and its share
    written on it, so that the other scores' bars stay readable on the same kind of axis as
    every other panel (the axis label says so).
    """
    panels = list(dict.fromkeys(zip(counts["benchmark"], counts["dimension"], strict=True)))
    n_cols = min(4, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    fig = Figure(figsize=(3.6 * n_cols, 2.9 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    for ax, (benchmark, dimension) in zip(axes, panels, strict=False):
        rows = counts[(counts["benchmark"] == benchmark) & (counts["dimension"] == dimension)]
        scale = BENCHMARKS[benchmark].dimension(dimension).human_scale
        low, high = scale
        scores = rows["score"].to_numpy(dtype=float)
        heights = 100 * rows["share"].to_numpy(dtype=float)
        step = min([*np.diff(np.unique(scores)), (high - low) / 6])  # never wider than 1/6
        ranked = np.sort(heights)[::-1]
        tallest, second = ranked[0], (ranked[1] if len(ranked) > 1 else 0.0)
        piled = tallest >= 100 * PILED_UP and 0 < second and tallest >= CUT_RATIO * second
        y_top = second * CUT_RATIO * HEADROOM if piled else tallest * HEADROOM
        cap = CUT_AT * y_top if piled else tallest
        ax.bar(scores, np.minimum(heights, cap), 0.8 * step, color="tab:blue")
        if piled:  # the tallest bar cut below the axis' top: a gap in it, its share above
            cut = float(scores[np.argmax(heights)])
            for y in (0.86 * cap, 0.91 * cap):
                ax.plot([cut - 0.5 * step, cut + 0.5 * step], [y - 0.02 * cap, y + 0.02 * cap],
                        color="white", lw=1.5, solid_capstyle="butt")  # fmt: skip
            ax.text(cut, cap, f"{tallest:.0f} %", ha="center", va="bottom", fontsize=7)
        ax.set_ylim(0, y_top)
        ax.set_ylabel("share of items (%" + ("; tallest bar cut)" if piled else ")"), fontsize=8)
        margin = 0.08 * (high - low)
        ax.set_xlim(low - margin, high + margin)
        ax.set_xticks(np.linspace(low, high, round(high - low) + 1 if high - low > 1 else 3))
        ax.set_xlabel(f"human score ({_scale_label(scale)}, mean of annotators)", fontsize=8)
        ax.tick_params(labelsize=8)
        mean = float((rows["score"] * rows["share"]).sum() / rows["share"].sum())
        top = 100 * float(rows.loc[rows["score"] == rows["score"].max(), "share"].sum())
        ax.text(
            0.02,
            0.97,
            f"mean {mean:.2f}; {top:.0f} % at {rows['score'].max():g}",
            transform=ax.transAxes,
            va="top",
            fontsize=8,
        )
        ax.set_title(
            f"{BENCHMARKS[benchmark].title}: {dimension} ({_scale_label(scale)})", fontsize=9
        )
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle("Distribution of human scores (each panel its own y scale)", fontsize=10)
    return fig


#: A recomputed cell without a CI (an average row) is an outlier when |delta| exceeds this.
REPRODUCTION_THRESHOLD = 0.02
#: What a row's metric is, for its marker and colour: the model-free baselines recomputed
#: here, UniEval's released predictions, and judge runs (every other metric).
METRIC_KINDS = {
    "baseline": ("o", "tab:blue", "model-free baseline"),
    "unieval": ("^", "tab:purple", "UniEval (released predictions)"),
    "judge": ("s", "tab:orange", "judge run"),
}
#: Colours of the comparison groups of a reproduction figure, in the order they are met.
COMPARISON_COLOURS = ("tab:green", "tab:red", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
_LABEL_WIDTH = 52  # characters per line of an outlier's label in the forest plot
_LEGEND_WIDTH = 58  # characters per line of a legend entry


def _kind(metric: str) -> str:
    if metric in BASELINE_METRICS:
        return "baseline"
    return "unieval" if metric == "UniEval" else "judge"


def kind_label(kind: str, metrics: Iterable[str]) -> str:
    """The legend text of a kind of metric: a baseline's names the baselines ``metrics``
    holds (so a table of ROUGE alone does not claim BLEU and METEOR)."""
    label = METRIC_KINDS[kind][2]
    if kind != "baseline":
        return label
    present = set(metrics)
    return f"{label} ({', '.join(m for m in BASELINE_METRICS if m in present)})"


def _wrapped(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


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


#: Why a recomputed cell is a comparison and not a reproduction of the paper's number.
COMPARISONS = {
    "variant": "other variants of a baseline",
    "metric": "another metric facing the same printed row",
    "rerun": "other runs of G-Eval",
    "no row": "variants of the paper's released replies it prints no row for",
}


def comparison_group(metric: str, variant: str, benchmarks: Sequence[str]) -> tuple[str, str]:
    """("", "") for a cell of the paper's protocol on the table of ``benchmarks``; else why
    it is a comparison (a key of :data:`COMPARISONS`) and its group's legend text.

    A reproduction recomputes a printed row from the paper's own inputs the way the paper
    computed it: the baselines' protocol variant and metric
    (:func:`geval_repro.registry.benchmarks.protocol_variant_of`,
    :data:`geval_repro.baselines.PROTOCOL_METRICS`), UniEval's
    released predictions, and the variants the paper prints of its own released replies
    (judge run :data:`geval_repro.report.readme.RELEASED_JUDGE`). Everything else (another
    variant of a baseline, another metric facing the same printed row, another run of G-Eval
    such as MetricEval's re-runs) is a comparison beside the printed number."""
    kind = _kind(metric)
    if kind == "unieval":
        return "", ""
    if kind == "judge":
        if metric != RELEASED_JUDGE:
            return "rerun", f"{metric} (another run of G-Eval)"
        if beyond_the_paper(variant):
            return "no row", f"{metric}, {variant} (no row in the paper)"
        return "", ""
    printed = PRINTED_AS.get(metric, metric)
    protocol_metric = PROTOCOL_METRICS.get(printed, printed)
    if metric != protocol_metric:
        return "metric", f"{metric} (the paper's is {protocol_metric})"
    if variant in {protocol_variant_of(b) for b in benchmarks if b in BENCHMARKS}:
        return "", ""
    return "variant", f"baselines, {variant}"


def _cell_label(r: Any) -> str:
    """ "metric (variant), cell": the cell is the dimension (a part of an average: its short
    name, e.g. a QAGS subset) and coefficient; wrapped, never cut."""
    where = short_of(r.benchmark) if average_of(r.benchmark) else r.dimension
    label = f"{r.metric} ({r.variant}), {where} {symbol(r.coefficient)}"
    return _wrapped(label, _LABEL_WIDTH)


def _errors(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(our values, distances down and up to the CI bounds; 0 without a CI)."""
    value = part["value"].to_numpy(float)
    low = np.nan_to_num(value - part["ci_low"].to_numpy(float))
    high = np.nan_to_num(part["ci_high"].to_numpy(float) - value)
    return value, low, high


def _limits(part: pd.DataFrame) -> tuple[float, float]:
    """One range for both axes of every overview panel: the printed values and our CIs."""
    y, low, high = _errors(part)
    x = part["paper_value"].to_numpy(float)
    return min(x.min(), (y - low).min(), 0.0) - 0.05, max(x.max(), (y + high).max()) + 0.05


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _legend_handles(
    groups: Sequence[tuple[str, np.ndarray, str, str]], flagged: np.ndarray
) -> list[Line2D]:
    """An overview panel's legend: the line y = x, one entry per group with its counts, and
    the filled marker's meaning when the panel has an outlier (labels wrapped)."""
    handles = [Line2D([], [], color="black", lw=0.8, ls="--", label="y = x")]
    for label, mask, marker, colour in groups:
        count = f"{_count(mask.sum(), 'cell')}, {_count((mask & flagged).sum(), 'outlier')}"
        handles.append(
            Line2D(
                [], [], ls="", marker=marker, color=colour, mfc="none", label=f"{label} ({count})"
            )
        )
    if flagged.any():
        handles.append(
            Line2D(
                [],
                [],
                ls="",
                marker="o",
                color="0.3",
                label="filled: outlier (printed value outside our CI)",
            )
        )
    for handle in handles:
        handle.set_label(_wrapped(handle.get_label(), _LEGEND_WIDTH))
    return handles


def _overview(
    ax: Any,
    part: pd.DataFrame,
    flagged: np.ndarray,
    groups: Sequence[tuple[str, np.ndarray, str, str]],
    limits: tuple[float, float],
) -> None:
    """Cells of ``part``: x = printed, y = ours with its CI, the line y = x; one errorbar
    series per group (label, mask, marker, colour), its outliers filled (the legend,
    :func:`_legend_handles`, goes under the panel, where it hides no point)."""
    x = part["paper_value"].to_numpy(float)
    y, low, high = _errors(part)
    for _, mask, marker, colour in groups:
        for outlier in (False, True):
            chosen = mask & (flagged == outlier)
            if chosen.any():
                ax.errorbar(
                    x[chosen],
                    y[chosen],
                    yerr=[low[chosen], high[chosen]],
                    fmt=marker,
                    ms=5,
                    lw=0.8,
                    color=colour,
                    mfc=colour if outlier else "none",
                    alpha=0.85 if outlier else 0.6,
                )
    lo, hi = limits
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_box_aspect(1)
    ax.grid(alpha=0.3)
    ax.set_xlabel("paper's printed value", fontsize=10)
    ax.set_ylabel("ours (95 % bootstrap CI)", fontsize=10)


def _forest(ax: Any, outliers: pd.DataFrame) -> None:
    """One line per outlier: ours with its CI (marker of its kind) and the printed value (x)."""
    order = outliers.assign(
        _kind=outliers["metric"].map(lambda m: list(METRIC_KINDS).index(_kind(m))),
        _delta=(outliers["value"] - outliers["paper_value"]).abs(),
    ).sort_values(["_kind", "_delta"], ascending=[True, False], kind="stable")
    value, low, high = _errors(order)
    rows = np.arange(len(order))
    kinds = order["metric"].map(_kind).to_numpy()
    for kind, (marker, colour, _) in METRIC_KINDS.items():
        mask = kinds == kind
        if mask.any():
            ax.errorbar(
                value[mask],
                rows[mask],
                xerr=[low[mask], high[mask]],
                fmt=marker,
                ms=5,
                lw=1,
                color=colour,
            )
    ax.scatter(order["paper_value"], rows, marker="x", color="black", s=30)
    ax.set_yticks(rows, [_cell_label(r) for r in order.itertuples()], fontsize=8)
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("correlation: ours (95 % bootstrap CI) and the printed value (x)", fontsize=9)


def _groups(part: pd.DataFrame, labels: pd.Series | None) -> list[tuple[str, np.ndarray, str, str]]:
    """The errorbar series (label, mask, marker, colour) of an overview panel: for the
    paper's protocol (``labels`` None) one per kind of metric in its colour, for the
    comparisons one per comparison group (``labels``: each cell's), colours in turn."""
    kinds = part["metric"].map(_kind).to_numpy()
    if labels is None:  # a judge run here is the paper's own (comparison_group)
        names = {"judge": f"{RELEASED_JUDGE} (the paper's released replies)"}
        return [
            (
                names.get(kind) or kind_label(kind, part["metric"][kinds == kind]),
                kinds == kind,
                marker,
                colour,
            )
            for kind, (marker, colour, _) in METRIC_KINDS.items()
            if (kinds == kind).any()
        ]
    names = list(dict.fromkeys(labels))
    series = []
    for name, colour in zip(names, itertools.cycle(COMPARISON_COLOURS), strict=False):
        mask = (labels == name).to_numpy()
        series.append((name, mask, METRIC_KINDS[kinds[mask][0]][0], colour))
    return series


def reproduction_figure(
    table: pd.DataFrame, number: int, *, threshold: float = REPRODUCTION_THRESHOLD
) -> Figure:
    """Does paper table ``number`` reproduce? Its cells of the paper's protocol against their
    printed values, and apart from them the comparisons.

    ``table``: rows of the correlation table; drawn are those of the table's benchmarks with
    status ``recomputed``, a value and a ``paper_value`` at the paper's level for the
    benchmark (the G-Eval paper's values; SummEval's own system-level ones are not this
    table's), split by
    :func:`comparison_group`
    into the paper's protocol and comparisons (another baseline variant or metric, another
    run of G-Eval). A cell is an outlier when the printed value lies outside our CI beyond
    its rounding (:func:`geval_repro.report.markdown.outside_ci`) or, without a CI, when
    ``|delta| > threshold``. The headline counts the outliers of the paper's protocol only.
    Panels: the protocol cells (x = the printed value, y = ours with its 95 % CI as a
    vertical bar, averages have none; the line y = x; marker and colour by kind of metric,
    outliers filled); the comparisons, if any, on the same scale (one colour per group);
    and, if the protocol has outliers, one labelled line for each (grouped by kind, largest
    distance first: ours with its CI and the printed value), so every outlier is named
    without labels crossing the plot. Each legend sits under its panel.
    """
    benchmarks = [name for name in PRINTED_NAMES if table_of(name) == number]
    part = table[
        table["benchmark"].isin(benchmarks)
        & (table["status"] == "recomputed")
        & table["value"].notna()
        & table["paper_value"].notna()
        & (table["level"] == table["benchmark"].map(lambda b: level_of(b).value))
    ]
    pairs = zip(part["metric"], part["variant"], strict=True)
    reasons, labels = zip(*[comparison_group(m, v, benchmarks) for m, v in pairs], strict=True) or (
        (),
        (),
    )
    reason = pd.Series(reasons, index=part.index, dtype=object)
    protocol, comparisons = part[reason == ""], part[reason != ""]
    flagged = _outliers(protocol, threshold)
    outliers = protocol[flagged]
    overviews = [  # (title, cells, outlier mask, errorbar series)
        (
            f"The paper's protocol ({_count(len(protocol), 'cell')})",
            protocol,
            flagged,
            _groups(protocol, None),
        )
    ]
    if not comparisons.empty:
        label = pd.Series(labels, index=part.index, dtype=object)[comparisons.index]
        overviews.append(
            (
                f"Comparisons, not reproductions ({_count(len(comparisons), 'cell')})",
                comparisons,
                _outliers(comparisons, threshold),
                _groups(comparisons, label),
            )
        )
    titles = [BENCHMARKS[b].title if b in BENCHMARKS else "Average" for b in benchmarks]
    headline = (
        f"Table {number} ({', '.join(titles)}): does it reproduce? {len(outliers)} of "
        f"{len(protocol)} recomputed cells of the paper's protocol are outliers (printed value "
        f"outside our 95 % CI, or |delta| > {threshold:g} without a CI)."
    )
    if not comparisons.empty:
        why = [COMPARISONS[r] for r in COMPARISONS if r in set(reason)]
        headline += (
            f" Shown apart: {len(comparisons)} comparison cells ({'; '.join(why)}), which are "
            "not failures to reproduce."
        )
    width = max(6.0, 5.2 * len(overviews) + 6.8 * (not outliers.empty))
    headline = _wrapped(headline, int(11 * width))
    legend_lines = max(
        sum(h.get_label().count("\n") + 1 for h in _legend_handles(groups, mask))
        for _, _, mask, groups in overviews
    )
    legend_height = 0.3 + 0.2 * legend_lines
    panel_height = max(5.0, 0.9 + 0.34 * len(outliers) - legend_height)
    fig = Figure(
        figsize=(width, 0.25 * (headline.count("\n") + 1) + panel_height + legend_height),
        layout="constrained",
    )
    ratios = [5.2] * len(overviews) + [6.8] * (not outliers.empty)
    grid = fig.add_gridspec(
        2, len(ratios), width_ratios=ratios, height_ratios=[panel_height, legend_height]
    )
    fig.suptitle(headline, fontsize=11)
    limits = _limits(part) if not part.empty else (0.0, 1.0)
    for column, (title, cells, mask, groups) in enumerate(overviews):
        ax = fig.add_subplot(grid[0, column])
        ax.set_title(title, fontsize=11)
        if cells.empty:
            ax.text(0.5, 0.5, "no recomputed cell", ha="center", transform=ax.transAxes)
            continue
        _overview(ax, cells, mask, groups, limits)
        key = fig.add_subplot(grid[1, column])  # the legend's place, under its panel
        key.axis("off")
        key.legend(handles=_legend_handles(groups, mask), fontsize=8, loc="upper center")
    if not outliers.empty:
        forest = fig.add_subplot(grid[:, -1])
        forest.set_title("Outliers of the paper's protocol", fontsize=11)
        _forest(forest, outliers)
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
