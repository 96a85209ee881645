"""Every figure the pipeline draws, read as at 100 % zoom: every piece of text inside the
figure, no two pieces of text overlapping, no label cut with an ellipsis, no text written
over bars or points, and no legend over a plotting area (where it would hide points, lines
or bands).

The figures are made from the committed tables (``results/``), as the pipeline makes them,
laid out as saving lays them out, and measured with matplotlib's renderer
(``fig.canvas.get_renderer()``, ``artist.get_window_extent(renderer)``). They are laid out
by ``Figure.draw_without_rendering``: every artist placed as in a draw, no pixel rendered
(the extents are those of a full draw: tested below). The checker itself is tested on
figures made to break each rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from geval_repro.config import (
    DEFAULT_CONFIG_PATH,
    MIRRORED_CONFIG_PATH,
    judge_spec,
    load_config,
)
from geval_repro.registry.benchmarks import PREFERENCE_BENCHMARKS, SCORED_BENCHMARKS
from geval_repro.registry.outputs import PAPER_LAYOUTS, WRITER_VS_LLM_FIGURE
from geval_repro.report.cluster_figure import cluster_title
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "results"
TABLES = RESULTS / "tables"
SLACK = 1.0  # pixels: extents that touch are not an overlap


def _axis_texts(ax) -> Iterator[tuple[Text, bool]]:
    """Every text of ``ax``'s two axes, with whether it is drawn (a tick label only when its
    tick lies in the view interval, as the axis draws it; nothing of an axis turned off)."""
    for axis in (ax.xaxis, ax.yaxis):
        low, high = sorted(axis.get_view_interval())
        span = (high - low) * 1e-9
        for ticks, locs in (
            (axis.get_major_ticks(), axis.get_majorticklocs()),
            (axis.get_minor_ticks(), axis.get_minorticklocs()),
        ):
            for tick, loc in zip(ticks, locs, strict=False):
                shown = ax.axison and low - span <= loc <= high + span
                yield tick.label1, shown and tick.label1.get_visible()
                yield tick.label2, shown and tick.label2.get_visible()
        yield axis.label, ax.axison
        yield axis.get_offset_text(), ax.axison


def laid_out(fig: Figure) -> RendererAgg:
    """``fig`` on an Agg canvas, laid out as a draw lays it out (its layout engine run, every
    artist placed) without rendering pixels; returns the canvas's renderer."""
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def drawn_texts(fig: Figure) -> list[tuple[Text, Bbox]]:
    """Every piece of text ``fig`` draws and its window extent (after laying the figure out
    as saving does: :func:`laid_out`)."""
    renderer = laid_out(fig)
    hidden: set[int] = set()
    for ax in fig.axes:
        for text, shown in _axis_texts(ax):
            if not (shown and ax.get_visible()):
                hidden.add(id(text))
        if not ax.get_visible():
            hidden |= {id(t) for t in ax.findobj(Text)}
    return [
        (text, text.get_window_extent(renderer))
        for text in fig.findobj(Text)
        if id(text) not in hidden and text.get_visible() and text.get_text().strip()
    ]


def _overlaps(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Pairs (i, j) of ``boxes`` x ``others`` (rows x0, y0, x1, y1) that overlap by more
    than :data:`SLACK` pixels in both directions."""
    width = np.minimum(boxes[:, None, 2], others[None, :, 2]) - np.maximum(
        boxes[:, None, 0], others[None, :, 0]
    )
    height = np.minimum(boxes[:, None, 3], others[None, :, 3]) - np.maximum(
        boxes[:, None, 1], others[None, :, 1]
    )
    return (width > SLACK) & (height > SLACK)


def _texts_over_data(ax, renderer) -> list[str]:
    """The texts written in ``ax`` (``ax.texts``) that cover a bar, a marker of a line or a
    point of a scatter plot."""
    if not ax.get_visible():
        return []
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    boxes = [p.get_window_extent(renderer).extents for c in bars for p in c.patches]
    points = [ax.transData.transform(line.get_xydata()) for line in ax.lines if line.get_marker()]
    points += [
        c.get_offset_transform().transform(c.get_offsets())
        for c in ax.collections
        if isinstance(c, PathCollection) and len(c.get_offsets())
    ]
    data = np.array(boxes).reshape(-1, 4)
    if points:
        xy = np.concatenate(points)
        data = np.concatenate([data, np.hstack([xy, xy])])
    data = data[np.isfinite(data).all(axis=1)]
    problems = []
    for text in ax.texts:
        if not (text.get_visible() and text.get_text().strip()) or not len(data):
            continue
        box = np.array([text.get_window_extent(renderer).extents])
        box[:, :2] -= SLACK  # a point on the edge of the text counts as under it
        box[:, 2:] += SLACK
        if _overlaps(box, data).any() or _points_in(box[0], data).any():
            problems.append(f"text over data: {text.get_text()!r}")
    return problems


def _points_in(box: np.ndarray, data: np.ndarray) -> np.ndarray:
    """Which rows of ``data`` (x0, y0, x1, y1) start inside ``box``: a point's own box has
    no extent, so :func:`_overlaps` cannot see it."""
    return (
        (data[:, 0] >= box[0])
        & (data[:, 0] <= box[2])
        & (data[:, 1] >= box[1])
        & (data[:, 1] <= box[3])
    )


def layout_problems(fig: Figure) -> list[str]:
    """What a reader at 100 % zoom would see wrong with ``fig`` (empty when nothing): text
    outside the figure, text cut with an ellipsis, two texts overlapping, text written over
    data, a legend over a plotting area or over a text that is not its own."""
    texts = drawn_texts(fig)
    names = [text.get_text() for text, _ in texts]
    boxes = np.array([box.extents for _, box in texts]).reshape(-1, 4)
    x0, y0, x1, y1 = fig.bbox.extents
    problems = [
        f"outside the figure: {name!r}"
        for name, (a, b, c, d) in zip(names, boxes, strict=True)
        if a < x0 - SLACK or b < y0 - SLACK or c > x1 + SLACK or d > y1 + SLACK
    ]
    problems += [f"cut: {name!r}" for name in names if name.rstrip().endswith(("...", "…"))]
    overlapping = np.triu(_overlaps(boxes, boxes), k=1)
    problems += [f"overlap: {names[i]!r} and {names[j]!r}" for i, j in np.argwhere(overlapping)]
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        problems += _texts_over_data(ax, renderer)
    plots = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_visible() and ax.axison]
    for legend in fig.findobj(Legend):
        box = np.array([legend.get_window_extent(renderer).extents])
        labels = [t.get_text() for t in legend.get_texts()]
        if plots and _overlaps(box, np.array([p.extents for p in plots])).any():
            problems.append(f"legend over a plotting area: {labels}")
        own = {id(t) for t in legend.findobj(Text)}
        foreign = [i for i, (text, _) in enumerate(texts) if id(text) not in own]
        if foreign and _overlaps(box, boxes[foreign]).any():
            covered = [names[foreign[j]] for j in _overlaps(box, boxes[foreign])[0].nonzero()[0]]
            problems.append(f"legend {labels} over text: {covered}")
    return problems


# -- the checker, on figures made to break each rule ------------------------------------------


def _broken(kind: str) -> Figure:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 0.5, 1], [0, 0.5, 1], marker="o", label="a line")
    if kind == "outside":
        ax.text(1.5, 0.5, "far to the right", transform=ax.transAxes)
    elif kind == "overlap":
        ax.text(0.2, 0.5, "one text", transform=ax.transAxes)
        ax.text(0.25, 0.5, "another text", transform=ax.transAxes)
    elif kind == "cut":
        ax.set_title("a label that was cut...")
    elif kind == "legend":
        ax.legend(loc="upper left")
    elif kind == "text over data":
        ax.text(0.5, 0.5, "over the line's middle point", ha="center", va="center")
    elif kind == "legend over text":
        ax.set_xlabel("an axis label")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0))
    return fig


@pytest.mark.parametrize(
    ("kind", "found"),
    [
        ("outside", "outside the figure"),
        ("overlap", "overlap"),
        ("cut", "cut"),
        ("legend", "legend over a plotting area"),
        ("text over data", 'text over data: "over the line\'s middle point"'),
        ("legend over text", "legend ['a line'] over text: ['an axis label'"),
    ],
)
def test_the_checker_finds_each_fault(kind: str, found: str) -> None:
    problems = layout_problems(_broken(kind))
    assert any(p.startswith(found) for p in problems), problems
    assert layout_problems(_broken("none")) == []


def test_tick_labels_outside_the_view_are_not_counted() -> None:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.subplots()
    ax.plot([0.05, 0.95], [0.05, 0.95])
    ax.set_xlim(0.0, 1.0)
    texts = [text.get_text() for text, _ in drawn_texts(fig)]
    assert "0.0" in texts and "1.0" in texts
    assert "1.2" not in texts and "−0.2" not in texts  # ticks the locator has beyond the view


# -- every figure the pipeline draws, from the committed tables -------------------------------


def _reproduction(number: int) -> Callable[[], Figure]:
    def draw() -> Figure:
        from geval_repro.report.figures import reproduction_figure

        return reproduction_figure(pd.read_csv(TABLES / "correlations.csv"), number)

    return draw


def _clusters(benchmark: str) -> Callable[[], Figure]:
    def draw() -> Figure:
        from geval_repro.report.cluster_figure import cluster_figure

        clusters = pd.read_csv(TABLES / "significance_clusters.csv")
        return cluster_figure(clusters, benchmark, cluster_title(benchmark))

    return draw


@functools.cache
def _sweep_set(judge: str) -> dict[str, Figure]:
    """A judge run's sweep figures, made once for the tests of all of them (checking one
    leaves the others as they were)."""
    from geval_repro.report.figures import sweep_figure_set
    from geval_repro.report.label_sweep_figure import label_sweep_figure_set

    config = load_config(DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH)
    spec = judge_spec(judge, config["judges"][judge])
    draw = label_sweep_figure_set if spec.has_label_sweep else sweep_figure_set
    return draw(TABLES / "judges" / judge / "sweep.csv", spec=spec)


def _sweep(judge: str, name: str) -> Callable[[], Figure]:
    def draw() -> Figure:
        return _sweep_set(judge)[name]

    return draw


def _writer_vs_llm(tables: Path, benchmark: str) -> Callable[[], Figure]:
    def draw() -> Figure:
        from geval_repro.pipeline.writer_vs_llm import figure_panels, read_rows
        from geval_repro.report.writer_vs_llm_figure import group_means_figure

        means = read_rows([tables / benchmark / "group_means.csv"])
        return group_means_figure(means, figure_panels(means))

    return draw


def _distributions() -> Figure:
    from geval_repro.report.figures import distribution_figure

    return distribution_figure(pd.read_csv(TABLES / "human" / "score_distributions.csv"))


def _committed_figures() -> dict[str, Callable[[], Figure]]:
    figures: dict[str, Callable[[], Figure]] = {"human_distributions": _distributions}
    for number, stem in PAPER_LAYOUTS.items():
        figures[f"reproduction_{stem}"] = _reproduction(number)
    for benchmark in SCORED_BENCHMARKS:
        figures[f"significance_clusters_{benchmark}"] = _clusters(benchmark)
    for benchmark in PREFERENCE_BENCHMARKS:
        figures[WRITER_VS_LLM_FIGURE.format(benchmark=benchmark)] = _writer_vs_llm(
            TABLES, benchmark
        )
    for sweep in sorted((TABLES / "judges").glob("*/sweep.csv")):
        judge = sweep.parent.name
        for png in sorted((RESULTS / "figures" / "judges" / judge).glob("*.png")):
            figures[f"judges/{judge}/{png.stem}"] = _sweep(judge, png.stem)
    return figures


FIGURES = _committed_figures()


def test_every_committed_figure_is_checked() -> None:
    committed = {
        p.relative_to(RESULTS / "figures").with_suffix("").as_posix()
        for p in (RESULTS / "figures").rglob("*.png")
    }
    assert committed == set(FIGURES)


@pytest.mark.slow  # about a minute for all of them
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_figure_reads_at_100_percent_zoom(name: str) -> None:
    assert layout_problems(FIGURES[name]()) == []


def test_committed_pngs_are_what_the_checked_figures_draw(tmp_path: Path) -> None:
    """The figures checked above are the committed ones: drawn again, the PNG is the same."""
    from geval_repro.report.figures import save_figure

    for name in ("reproduction_table3_qags", "significance_clusters_qags_xsum"):
        png = tmp_path / f"{Path(name).name}.png"
        save_figure(FIGURES[name](), png, png.with_suffix(".svg"))
        assert png.read_bytes() == (RESULTS / "figures" / f"{name}.png").read_bytes(), name


@pytest.mark.parametrize("name", ["significance_clusters_qags_xsum", "sweep_accuracy"])
def test_laying_out_places_every_text_as_a_full_draw_does(name: str) -> None:
    """What the checks measure after :func:`laid_out` is where a full draw puts it: every
    text, axes and legend extent of the same figure made twice, once drawn in full."""
    judge = sorted((TABLES / "judges").glob("*/sweep.csv"))[0].parent.name

    def make() -> Figure:  # a new figure each time (not the checks' cached sweep figures)
        if name == "sweep_accuracy":
            return _sweep_set.__wrapped__(judge)[name]
        return FIGURES[name]()

    def extents(fig: Figure, renderer: RendererAgg) -> np.ndarray:
        artists = [*fig.findobj(Text), *fig.axes, *fig.findobj(Legend)]
        return np.array([a.get_window_extent(renderer).extents for a in artists])

    drawn = make()
    FigureCanvasAgg(drawn)
    drawn.canvas.draw()
    placed = make()
    np.testing.assert_array_equal(
        extents(placed, laid_out(placed)), extents(drawn, drawn.canvas.get_renderer())
    )
