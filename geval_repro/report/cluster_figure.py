"""The figure of one benchmark's significance clusters: which metrics are statistically
indistinguishable, as the WMT metrics tasks draw their ranking clusters.

Drawn from the ranking rows of :mod:`geval_repro.tables.judge_pairs` (nothing is computed
here), those of the ``full`` ranking: every metric that covers the benchmark's full items,
ranked on all of them (:mod:`geval_repro.tables.item_sets`). The partial runs, ranked apart
on their own items, are named in the footnote with their item counts (their rankings are
rows of ``significance_clusters.csv``). One panel per dimension (rows) and coefficient
(columns); in each, the metrics top to bottom in their ranking, a dot at each one's
correlation (marker and colour by kind: baseline, UniEval, judge run), and the
significance clusters as alternating grey bands numbered beside the panel, outside it, so
no number covers a dot. Labels are wrapped, never cut; a baseline in its benchmark's
protocol variant is named without it (the footnote names the variant once). A metric
without a value on the ranked items stays in its row with the reason written there. A panel
whose tests cannot resolve any pair after Holm's correction (too few resamples for its
number of pairs) gets a red title saying so and no clusters, instead of a single cluster
suggesting a tie; the footnote says what that means.
"""

from __future__ import annotations

import os
import textwrap

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from geval_repro.registry.benchmarks import get_benchmark, protocol_variant_of
from geval_repro.report.figures import METRIC_KINDS, kind_label, save_figure
from geval_repro.stats.registry import statistic
from geval_repro.tables.item_sets import FULL
from geval_repro.tables.judge_pairs import ALPHA

LABEL_WIDTH = 40  # characters per line of a metric's label (wrapped, never cut)
BAND_SHADES = ("#e6e6e6", "#ffffff")
NOT_RANKED = "not ranked: no value on these items"
UNRESOLVED = "UNRESOLVED"


def _label(row: pd.Series, protocol_variant: str | None) -> str:
    """The metric, its variant unless it is the baselines' protocol one, [FIXTURE] for
    fixture rows; wrapped to :data:`LABEL_WIDTH` characters per line."""
    text = row["metric"]
    if not (row["kind"] == "baseline" and row["variant"] == protocol_variant):
        text += f" ({row['variant']})"
    if row["status"] == "fixture":
        text += " [FIXTURE]"
    return "\n".join(textwrap.wrap(text, LABEL_WIDTH, break_on_hyphens=False))


def _resolved(rows: pd.DataFrame) -> bool:
    """Whether the panel's tests can declare a pair different at all (Holm floor <= alpha)."""
    return not (len(rows) and rows["holm_floor"].iloc[0] > ALPHA)


def _panel(ax, rows: pd.DataFrame, protocol_variant: str | None) -> None:
    """One (dimension, coefficient): metrics ranked top to bottom, cluster bands (only
    where the tests can resolve a pair), the reason in the row of a metric not ranked."""
    rows = rows.sort_values("position")
    y = list(range(len(rows)))
    clusters = rows["cluster"].tolist()
    side = blended_transform_factory(ax.transAxes, ax.transData)
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or clusters[i] != clusters[start]:
            if not pd.isna(clusters[start]) and _resolved(rows):
                ax.axhspan(
                    start - 0.5,
                    i - 0.5,
                    color=BAND_SHADES[(int(clusters[start]) - 1) % 2],
                    zorder=0,
                )
                ax.text(
                    1.02,
                    (start + i - 1) / 2,
                    str(int(clusters[start])),
                    transform=side,
                    ha="left",
                    va="center",
                    fontsize=9,
                    fontweight="bold",
                )
            start = i
    values = rows["value"].to_numpy(float)
    for kind, (marker, colour, _) in METRIC_KINDS.items():
        mask = (rows["kind"] == kind).to_numpy()
        ax.scatter(
            values[mask],
            [v for v, m in zip(y, mask, strict=True) if m],
            marker=marker,
            color=colour,
            s=28,
            zorder=3,
        )
    for row in (r for r, v in zip(y, values, strict=True) if pd.isna(v)):
        ax.text(
            0.03,
            row,
            NOT_RANKED,
            transform=side,
            va="center",
            fontsize=7.5,
            style="italic",
            color="0.35",
        )
    ax.set_yticks(y, [_label(r, protocol_variant) for _, r in rows.iterrows()], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.margins(x=0.12)  # room for the dots at the ends
    ax.grid(axis="x", alpha=0.3)
    ax.tick_params(axis="x", labelsize=8)


def ranked_apart(rows: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """The partial runs of a benchmark's ranking rows (the metrics of a partial ranking that
    are not in the full ranking of its dimension and coefficient) -> the fewest and the most
    items one of their rankings rests on."""
    keys = ["dimension", "coefficient", "metric", "variant"]
    full = rows.loc[rows["ranking"] == FULL, keys].drop_duplicates()
    partial = rows[rows["ranking"] != FULL].merge(full, on=keys, how="left", indicator=True)
    own = partial[partial["_merge"] == "left_only"]
    counts = own.groupby("metric")["n_items"].agg(["min", "max"])
    return {metric: (int(r["min"]), int(r["max"])) for metric, r in counts.iterrows()}


def _footnote(
    rows: pd.DataFrame, protocol_variant: str | None, apart: dict[str, tuple[int, int]], width: int
) -> str:
    """What the panels share (the items, the baselines' variant, the partial runs ranked
    apart, unresolved panels), in lines of at most ``width`` characters."""
    notes = [
        "Every metric of a panel, baselines included, is correlated on the same items: the "
        "benchmark's full items (their number in its x label: those its baselines' protocol "
        "scores), which every metric shown scores."
    ]
    if apart:
        runs = "; ".join(
            f"{run} ({low} items)" if low == high else f"{run} ({low}-{high} items)"
            for run, (low, high) in apart.items()
        )
        notes.append(
            "Partial runs are not shown: each is ranked apart, on its own items with the "
            f"metrics above restricted to them (significance_clusters.csv, ranking "
            f"'partial: ...'): {runs}."
        )
    if (
        protocol_variant
        and ((rows["kind"] == "baseline") & (rows["variant"] == protocol_variant)).any()
    ):
        notes.append(f"Baselines named without a variant: {protocol_variant}.")
    if not _resolved(rows.sort_values("holm_floor", ascending=False)):
        floors = sorted({round(f, 3) for f in rows["holm_floor"] if f > ALPHA})
        notes.append(
            f"{UNRESOLVED} (red title): with the resamples run, no Holm-adjusted p-value of the "
            f"panel's pairs can fall below {', '.join(f'{f:.3f}' for f in floors)}, above "
            f"{ALPHA}, so no pair can be declared different; its order is shown, no clusters "
            "(more permutation resamples needed)."
        )
    return "\n".join(textwrap.fill(note, width) for note in notes)


def cluster_figure(clusters: pd.DataFrame, benchmark: str, title: str) -> Figure:
    """The significance clusters of ``benchmark`` (module docstring) from its ranking rows."""
    ranked = clusters[clusters["benchmark"] == benchmark]
    apart = ranked_apart(ranked)
    rows = ranked[ranked["ranking"] == FULL]
    info = get_benchmark(benchmark)
    protocol_variant = protocol_variant_of(benchmark)
    dimensions = [d for d in info.dimension_names if d in set(rows["dimension"])] or [""]
    coefficients = list(dict.fromkeys(rows["coefficient"])) or [""]
    per_panel = int(rows.groupby(["dimension", "coefficient"]).size().max()) if len(rows) else 1
    labels = [_label(r, protocol_variant) for _, r in rows.iterrows()]
    widest = max((len(line) for text in labels for line in text.splitlines()), default=10)
    row_height = 0.36 if any("\n" in text for text in labels) else 0.28
    fig = Figure(
        figsize=(
            (3.0 + 0.065 * widest) * len(coefficients),
            (row_height * max(per_panel, 3) + 0.9) * len(dimensions) + 2.0,
        ),
        layout="constrained",
    )
    axes = fig.subplots(len(dimensions), len(coefficients), squeeze=False)
    for r, dimension in enumerate(dimensions):
        for c, coefficient in enumerate(coefficients):
            ax = axes[r][c]
            part = rows[(rows["dimension"] == dimension) & (rows["coefficient"] == coefficient)]
            _panel(ax, part, protocol_variant)
            items = int(part["n_items"].iloc[0]) if len(part) else 0
            name = f"{dimension}, {statistic(coefficient).label}"
            if _resolved(part):
                ax.set_title(name, fontsize=10)
            else:
                ax.set_title(f"{name}: {UNRESOLVED}", fontsize=10, color="tab:red")
            ax.set_xlabel(f"{info.level_name}-level correlation on {items} items", fontsize=8)
    present = set(rows["kind"])
    handles = [
        Line2D([], [], ls="", marker=marker, color=colour, label=kind_label(kind, rows["metric"]))
        for kind, (marker, colour, _) in METRIC_KINDS.items()
        if kind in present
    ]
    fig.legend(  # the key, with the notes every panel shares as its title
        handles=handles,
        loc="outside lower center",
        ncols=max(len(handles), 1),
        fontsize=8,
        title=_footnote(rows, protocol_variant, apart, int(15 * fig.get_figwidth())),
        title_fontsize=8,
        alignment="left",
    )
    fig.suptitle("\n".join(textwrap.wrap(title, int(13 * fig.get_figwidth()))), fontsize=10)
    return fig


def cluster_title(benchmark: str) -> str:
    """The title of ``benchmark``'s cluster figure: what it ranks and what a cluster is."""
    return (
        f"{get_benchmark(benchmark).title}: metrics ranked by correlation with the humans; "
        f"numbered bands are significance clusters (a metric starts a new one when it is "
        f"significantly worse than one of the current cluster: two-sided paired permutation "
        f"test, Holm-adjusted p <= {ALPHA})"
    )


def cluster_figure_of(
    clusters_csv: str | os.PathLike[str],
    benchmark: str,
    png: str | os.PathLike[str],
    svg: str | os.PathLike[str],
) -> None:
    """Draw :func:`cluster_figure` of ``benchmark`` from its ranking rows, save it (PNG +
    SVG)."""
    clusters = pd.read_csv(clusters_csv)
    save_figure(cluster_figure(clusters, benchmark, cluster_title(benchmark)), png, svg)
