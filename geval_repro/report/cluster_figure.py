"""The figure of one benchmark's significance clusters: which metrics are statistically
indistinguishable, as the WMT metrics tasks draw their ranking clusters.

Drawn from the ranking rows of :mod:`geval_repro.tables.judge_pairs` (nothing is computed
here): one panel per dimension (rows) and coefficient (columns); in each, the metrics top
to bottom in their ranking, a dot at each one's correlation (marker and colour by kind:
baseline, UniEval, judge run), and the significance clusters as alternating grey bands
numbered on the right. A panel whose tests cannot resolve any pair after Holm's correction
(too few resamples for its number of pairs) says so in red instead of suggesting a tie.
"""

from __future__ import annotations

import os
import textwrap

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.figures import COEFFICIENT_SYMBOL, METRIC_KINDS, save_figure
from geval_repro.tables.judge_pairs import ALPHA

LABEL_WIDTH = 46  # characters of a metric's label
BAND_SHADES = ("#e6e6e6", "#ffffff")


def _label(row: pd.Series) -> str:
    text = f"{row['metric']} ({row['variant']})"
    if len(text) > LABEL_WIDTH:
        text = text[: LABEL_WIDTH - 3] + "..."
    return f"{text} [FIXTURE]" if row["status"] == "fixture" else text


def _panel(ax, rows: pd.DataFrame) -> None:
    """One (dimension, coefficient): metrics ranked top to bottom, cluster bands."""
    rows = rows.sort_values("position")
    y = list(range(len(rows)))
    clusters = rows["cluster"].tolist()
    side = blended_transform_factory(ax.transAxes, ax.transData)
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or clusters[i] != clusters[start]:
            if not pd.isna(clusters[start]):
                ax.axhspan(
                    start - 0.5,
                    i - 0.5,
                    color=BAND_SHADES[(int(clusters[start]) - 1) % 2],
                    zorder=0,
                )
                ax.text(
                    0.99,
                    (start + i - 1) / 2,
                    str(int(clusters[start])),
                    transform=side,
                    ha="right",
                    va="center",
                    fontsize=9,
                    fontweight="bold",
                )
            start = i
    for kind, (marker, colour, _) in METRIC_KINDS.items():
        mask = (rows["kind"] == kind).to_numpy()
        ax.scatter(
            rows["value"].to_numpy(float)[mask],
            [v for v, m in zip(y, mask, strict=True) if m],
            marker=marker,
            color=colour,
            s=28,
            zorder=3,
        )
    ax.set_yticks(y, [_label(r) for _, r in rows.iterrows()], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.margins(x=0.12)  # room for the dots at the ends and the cluster numbers
    ax.grid(axis="x", alpha=0.3)
    ax.tick_params(axis="x", labelsize=8)
    floor = rows["holm_floor"].iloc[0] if len(rows) else float("nan")
    if floor > ALPHA:
        ax.text(
            0.02,
            0.98,
            f"UNRESOLVED: no Holm-adjusted p-value\ncan fall below {floor:.3f} (more resamples\n"
            "needed): one cluster says nothing",
            transform=ax.transAxes,
            color="tab:red",
            fontsize=8,
            va="top",
            bbox={"facecolor": "white", "edgecolor": "tab:red", "pad": 2},
            zorder=4,
        )


def cluster_figure(clusters: pd.DataFrame, benchmark: str, title: str) -> Figure:
    """The significance clusters of ``benchmark`` (module docstring) from its ranking rows."""
    rows = clusters[clusters["benchmark"] == benchmark]
    info = get_benchmark(benchmark)
    dimensions = [d for d in info.dimension_names if d in set(rows["dimension"])] or [""]
    coefficients = list(dict.fromkeys(rows["coefficient"])) or [""]
    per_panel = int(rows.groupby(["dimension", "coefficient"]).size().max()) if len(rows) else 1
    widest = max((len(_label(r)) for _, r in rows.iterrows()), default=10)
    fig = Figure(
        figsize=(
            (2.4 + 0.062 * widest) * len(coefficients),
            (0.28 * max(per_panel, 3) + 0.9) * len(dimensions) + 1.3,
        ),
        layout="constrained",
    )
    axes = fig.subplots(len(dimensions), len(coefficients), squeeze=False)
    for r, dimension in enumerate(dimensions):
        for c, coefficient in enumerate(coefficients):
            ax = axes[r][c]
            part = rows[(rows["dimension"] == dimension) & (rows["coefficient"] == coefficient)]
            _panel(ax, part)
            items = int(part["n_items"].iloc[0]) if len(part) else 0
            ax.set_title(f"{dimension}, {COEFFICIENT_SYMBOL.get(coefficient, coefficient)}")
            ax.set_xlabel(f"{info.level_name}-level correlation ({items} items)", fontsize=8)
    handles = [
        Line2D([], [], ls="", marker=marker, color=colour, label=label)
        for kind, (marker, colour, label) in METRIC_KINDS.items()
        if kind in set(rows["kind"])
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=max(len(handles), 1), fontsize=8)
    fig.suptitle("\n".join(textwrap.wrap(title, int(13 * fig.get_figwidth()))), fontsize=10)
    return fig


def cluster_figure_of(
    clusters_csv: str | os.PathLike[str],
    benchmark: str,
    png: str | os.PathLike[str],
    svg: str | os.PathLike[str],
) -> None:
    """Draw :func:`cluster_figure` of ``benchmark`` from its ranking rows, save it (PNG +
    SVG)."""
    clusters = pd.read_csv(clusters_csv)
    title = (
        f"{get_benchmark(benchmark).title}: metrics ranked by correlation with the humans; "
        f"numbered bands are significance clusters (a metric starts a new one when it is "
        f"significantly worse than one of the current cluster: two-sided paired permutation "
        f"test, Holm-adjusted p <= {ALPHA})"
    )
    save_figure(cluster_figure(clusters, benchmark, title), png, svg)
