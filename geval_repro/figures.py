"""Figures for print: every figure is saved as PNG and SVG side by side, atomically.

Figures are ``matplotlib.figure.Figure`` objects, never pyplot's global state, so that jobs
can draw them from several threads of one process (and importing this module does not load
pyplot); ``savefig`` renders with Agg. SVGs carry no timestamp or random ids
(``svg.hashsalt`` and ``metadata={"Date": None}``), so reruns give identical files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from geval_repro.atomic import atomic_path
from geval_repro.paper import paper_value

matplotlib.rcParams.update({"svg.hashsalt": "geval-repro", "figure.dpi": 100, "savefig.dpi": 150})

COEFFICIENT_SYMBOL = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}


def save_figure(fig: Figure, png: str | os.PathLike[str], svg: str | os.PathLike[str]) -> None:
    """Save ``fig`` as PNG and SVG atomically."""
    with atomic_path(png) as temporary:
        fig.savefig(temporary, format="png", metadata={"Software": None})
    with atomic_path(svg) as temporary:
        fig.savefig(temporary, format="svg", metadata={"Date": None, "Creator": None})


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
    fig = Figure(figsize=(3.2 * len(dimensions), 3.2))
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
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def tie_rate_figure(sweep: pd.DataFrame, *, parser: str, title: str) -> Figure:
    """Share of tied within-document pairs of item scores vs replies per item."""
    rows = sweep[
        (sweep["parser"] == parser)
        & (sweep["mode"] == "first")
        & (sweep["coefficient"] == "kendall")
    ]
    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    for dimension, dim_rows in rows.groupby("dimension", sort=False):
        dim_rows = dim_rows.sort_values("n")
        ax.plot(dim_rows["n"], 100 * dim_rows["tie_rate"], marker="o", ms=3, label=dimension)
    ax.set_xlabel("replies averaged per item (n, first n)")
    ax.set_ylabel("tied within-document pairs (%)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
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


def distribution_figure(counts: pd.DataFrame) -> Figure:
    """Share of items at each human score, one panel per benchmark, a bar group per dimension."""
    benchmarks = list(dict.fromkeys(counts["benchmark"]))
    fig = Figure(figsize=(4.2 * len(benchmarks), 3.4))
    axes = fig.subplots(1, len(benchmarks))
    for ax, benchmark in zip(np.atleast_1d(axes), benchmarks, strict=True):
        part = counts[counts["benchmark"] == benchmark]
        wide = part.pivot(index="score", columns="dimension", values="share").fillna(0.0)
        width = 0.8 / len(wide.columns)
        positions = np.arange(len(wide.index))
        for k, dimension in enumerate(wide.columns):
            ax.bar(positions + k * width, 100 * wide[dimension], width, label=dimension)
        ax.set_xticks(positions + 0.4 - width / 2)
        labels = [f"{s:.2f}".rstrip("0").rstrip(".") for s in wide.index]
        step = max(1, len(labels) // 8)
        ax.set_xticklabels([lab if i % step == 0 else "" for i, lab in enumerate(labels)])
        ax.set_xlabel("human score (mean of annotators)")
        ax.set_title(benchmark)
        ax.legend(fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel("share of items (%)")
    fig.suptitle("Distribution of human scores", fontsize=10)
    fig.tight_layout()
    return fig
