"""The writer-vs-LLM figure: the paper's layout (three groups, two bars each, intervals),
drawn from the fixture's group means; nothing overlaps or leaves the figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import Rectangle

from geval_repro.report.figures import save_figure
from geval_repro.report.writer_vs_llm_figure import group_means_figure
from tests.test_tables_writer_vs_llm import VARIANT, fixture_rows


@pytest.fixture(scope="module")
def means():
    return fixture_rows(n_resamples=200, permutation_resamples=10, seed=3).group_means


def test_three_groups_two_bars_each_with_their_intervals(means) -> None:
    fig = group_means_figure(means, [[("judge", VARIANT, "coherence"), ("judge", VARIANT, "AVG")]])
    for ax, dimension in zip(fig.axes, ("coherence", "AVG"), strict=True):
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert len(bars) == 6
        rows = means[(means["dimension"] == dimension) & (means["question"] == "overall")]
        for author, chosen in (("writer", bars[:3]), ("llm", bars[3:])):
            expected = rows[rows["author"] == author].set_index("preference")
            heights = [bar.get_height() for bar in chosen]
            assert heights == pytest.approx(
                expected.loc[["writer", "llm", "tie"], "value"].tolist()
            )
        lows = sorted(
            segment[0][1] for collection in ax.collections for segment in collection.get_segments()
        )
        intervals = rows[rows["author"] != "llm - writer"]
        assert lows == pytest.approx(sorted(intervals["ci_low"]))
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == [
            "writer better\nn = 2",
            "LLM better\nn = 3",
            "equally good\nn = 2" if dimension == "coherence" else "equally good\nn = 1",
        ]
        assert "[FIXTURE]" in ax.get_title()


def test_nothing_overlaps_or_is_clipped(means) -> None:
    for panels in (
        [[("judge", VARIANT, "fluency")]],
        [[("judge", VARIANT, d) for d in ("coherence", "fluency", "AVG")]],
        [
            [("judge", VARIANT, d) for d in ("coherence", "fluency", "AVG")],
            [("judge", VARIANT, "AVG")],
        ],
    ):
        fig = group_means_figure(means, panels, question="informativeness")
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        frame = fig.bbox
        texts = [fig._suptitle, *fig.legends]
        for ax in fig.axes:
            texts += [ax.title, *ax.texts, *ax.get_xticklabels(), ax.yaxis.label]
            values = [t.get_window_extent(renderer) for t in ax.texts]
            for i, a in enumerate(values):
                assert not any(a.overlaps(b) for b in values[i + 1 :]), "value labels overlap"
                assert a.y1 <= ax.bbox.y1 + 1, "a value label leaves its panel"
        for item in texts:
            box = item.get_window_extent(renderer)
            assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1, item
            assert frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, item
        legend = fig.legends[0].get_window_extent(renderer)
        assert not any(legend.overlaps(ax.bbox) for ax in fig.axes)


def test_saved_as_png_and_svg_identically_twice(means, tmp_path: Path) -> None:
    panels = [[("judge", VARIANT, "coherence")]]
    save_figure(group_means_figure(means, panels), tmp_path / "a.png", tmp_path / "a.svg")
    save_figure(group_means_figure(means, panels), tmp_path / "b.png", tmp_path / "b.svg")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert np.frombuffer((tmp_path / "a.png").read_bytes()[:8], np.uint8).tolist()[1:4] == [
        80,
        78,
        71,
    ]


def test_a_panel_without_rows_is_refused(means) -> None:
    with pytest.raises(ValueError, match="no group means of metric 'judge', variant"):
        group_means_figure(means, [[("judge", VARIANT, "relevance")]])
    with pytest.raises(ValueError, match="at least one"):
        group_means_figure(means, [])
    with pytest.raises(ValueError, match="at least one"):
        group_means_figure(means, [[]])
