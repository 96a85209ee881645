"""Figures: the reproduction figure's outliers, the human-distribution panels, titles."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from geval_repro.report.figures import (
    distribution_figure,
    reproduction_figure,
    save_figure,
    tie_rate_figure,
)
from geval_repro.tables.rows import COLUMNS
from tests.conftest import spec


def cell(
    benchmark,
    dimension,
    coefficient,
    value,
    low,
    high,
    printed,
    status="recomputed",
    metric="m",
    variant="v",
):
    return {
        **dict.fromkeys(COLUMNS, math.nan),
        "benchmark": benchmark,
        "dimension": dimension,
        "metric": metric,
        "variant": variant,
        "level": "summary" if benchmark == "summeval" else "global",
        "coefficient": coefficient,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "paper_value": printed,
        "status": status,
        "note": "hand-made",
    }


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _words(text: str) -> str:
    return " ".join(text.split())


MEAN = "11 references, mean"  # SummEval's protocol variant of its baselines
USR = "vs original ground truth, 300 responses (USR protocol)"


def _reproduction_table() -> pd.DataFrame:
    rouge = {"metric": "ROUGE-1", "variant": MEAN}
    return pd.DataFrame.from_records(
        [
            cell("summeval", "coherence", "spearman", 0.50, 0.45, 0.55, 0.60, **rouge),  # out
            cell("summeval", "fluency", "kendall", 0.50, 0.45, 0.55, 0.5504, **rouge),  # rounds in
            cell("summeval", "AVG", "spearman", 0.40, math.nan, math.nan, 0.43, **rouge),  # 0.03
            cell(  # another variant: a comparison
                "summeval",
                "relevance",
                "spearman",
                0.10,
                0.05,
                0.15,
                0.30,
                metric="ROUGE-1",
                variant="1 reference (summeval.json)",
            ),
            cell(  # another authors' run: a comparison
                "summeval",
                "coherence",
                "spearman",
                0.40,
                0.35,
                0.45,
                0.58,
                metric="gpt4-metriceval-run1",
                variant="per-item scores",
            ),
            cell(  # the paper's own replies, a variant it prints: the protocol
                "summeval",
                "coherence",
                "spearman",
                0.58,
                0.53,
                0.63,
                0.582,
                metric="gpt4-released",
                variant="mean-of-20/original",
            ),
            cell(  # ... and one it has no row for: a comparison
                "summeval",
                "coherence",
                "spearman",
                0.50,
                0.45,
                0.55,
                0.582,
                metric="gpt4-released",
                variant="mean-of-20/tolerant",
            ),
            cell("summeval", "relevance", "spearman", 0.10, 0.05, 0.15, 0.9, "fixture"),  # not
            cell("summeval", "AVG", "kendall", math.nan, math.nan, math.nan, 0.4, "paper-only"),
            cell(
                "topical_chat",
                "coherence",
                "pearson",
                0.30,
                0.20,
                0.40,
                0.35,
                metric="METEOR 1.5",
                variant=USR,
            ),
            cell(  # nltk's METEOR faces the printed METEOR row: a comparison
                "topical_chat",
                "coherence",
                "pearson",
                0.10,
                0.05,
                0.15,
                0.35,
                metric="METEOR",
                variant=USR,
            ),
            cell(
                "topical_chat",
                "naturalness",
                "spearman",
                0.51,
                0.44,
                0.58,
                0.33,
                metric="UniEval",
                variant="released predictions",
            ),
            cell(
                "qags_avg",
                "consistency",
                "pearson",
                0.30,
                math.nan,
                math.nan,
                0.31,
                metric="ROUGE-2",
                variant="vs source document",
            ),
            cell(
                "qags_xsum",
                "consistency",
                "kendall",
                0.10,
                0.05,
                0.15,
                0.40,
                metric="UniEval",
                variant="released predictions",
            ),
        ],
        columns=COLUMNS,
    )


def _legend_texts(fig) -> list[str]:
    return [_words(t.get_text()) for legend in fig.legends for t in legend.get_texts()] + [
        _words(t.get_text())
        for ax in fig.axes
        if ax.get_legend()
        for t in ax.get_legend().get_texts()
    ]


def test_reproduction_figure_counts_the_papers_protocol_and_shows_comparisons_apart() -> None:
    table = _reproduction_table()
    fig = reproduction_figure(table, 1)
    assert _words(fig.get_suptitle()) == (
        "Table 1 (SummEval): does it reproduce? 2 of 4 recomputed cells of the paper's protocol "
        "are outliers (printed value outside our 95 % CI, or |delta| > 0.02 without a CI). Shown "
        "apart: 3 comparison cells (other variants of a baseline; other runs of G-Eval; variants "
        "of the paper's released replies it prints no row for), which are not failures to "
        "reproduce."
    )
    titled = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in titled] == [
        "The paper's protocol (4 cells)",
        "Comparisons, not reproductions (3 cells)",
        "Outliers of the paper's protocol",
    ]
    forest = titled[-1]
    assert [t.get_text() for t in forest.get_yticklabels()] == [  # largest distance first
        "ROUGE-1 (11 references, mean), coherence ρ",
        "ROUGE-1 (11 references, mean), AVG ρ",
    ]
    legends = _legend_texts(fig)
    assert "model-free baseline (ROUGE-1) (3 cells, 2 outliers)" in legends  # only ROUGE here
    assert "gpt4-released (the paper's released replies) (1 cell, 0 outliers)" in legends
    assert "baselines, 1 reference (summeval.json) (1 cell, 1 outlier)" in legends
    assert "gpt4-metriceval-run1 (another run of G-Eval) (1 cell, 1 outlier)" in legends
    assert not any("BLEU" in text or "METEOR" in text for text in legends)

    fig = reproduction_figure(table, 2)
    assert "1 of 2 recomputed cells of the paper's protocol" in _words(fig.get_suptitle())
    assert "(another metric facing the same printed row)" in _words(fig.get_suptitle())
    assert "METEOR (the paper's is METEOR 1.5) (1 cell, 1 outlier)" in _legend_texts(fig)

    fig = reproduction_figure(table, 3)  # no comparison: no panel for them
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == [
        "The paper's protocol (2 cells)",
        "Outliers of the paper's protocol",
    ]
    assert "1 of 2 recomputed" in fig.get_suptitle() and "Shown apart" not in fig.get_suptitle()
    forest = [ax for ax in fig.axes if ax.get_title()][-1]
    assert [t.get_text() for t in forest.get_yticklabels()] == [
        "UniEval (released predictions), xsum τ"
    ]


def test_a_reproduction_figure_without_outliers_is_one_panel() -> None:
    table = _reproduction_table()
    fig = reproduction_figure(table[table["benchmark"] == "qags_avg"], 3)
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == [
        "The paper's protocol (1 cell)"
    ]
    assert "0 of 1 recomputed" in _words(fig.get_suptitle())


def test_reproduction_figure_files_are_deterministic(tmp_path: Path) -> None:
    table = pd.DataFrame.from_records(
        [cell("summeval", "coherence", "spearman", 0.50, 0.45, 0.55, 0.60)], columns=COLUMNS
    )
    for run in ("a", "b"):
        save_figure(reproduction_figure(table, 1), tmp_path / f"{run}.png", tmp_path / f"{run}.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_distribution_panels_keep_one_scale_each() -> None:
    counts = pd.DataFrame(
        {
            "benchmark": ["summeval"] * 2 + ["topical_chat"] * 4 + ["qags_xsum"] * 2,
            "dimension": [
                *["coherence", "coherence", "naturalness", "naturalness"],
                *["groundedness", "groundedness", "consistency", "consistency"],
            ],
            "score": [1.0, 5.0, 1.0, 3.0, 0.0, 1.0, 0.0, 1.0],
            "count": [1, 1, 1, 1, 1, 1, 1, 1],
            "share": [0.5] * 8,
        }
    )
    fig = distribution_figure(counts)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == [
        "SummEval: coherence (1-5)",
        "Topical-Chat: naturalness (1-3)",
        "Topical-Chat: groundedness (0-1)",
        "QAGS-XSum: consistency (0-1)",
    ]
    for ax, (low, high) in zip(shown, [(1, 5), (1, 3), (0, 1), (0, 1)], strict=True):
        left, right = ax.get_xlim()
        assert left < low and right > high and right - left < 1.2 * (high - low)
        ticks = [t for t in ax.get_xticks() if left <= t <= right]
        assert min(ticks) == low and max(ticks) == high and len(ticks) <= 5


@pytest.mark.parametrize(
    "label", ["gpt4", "a-rather-long-judge-run-label-from-the-config (rerun 2)", "y" * 80]
)
def test_tie_rate_title_fits_in_the_figure(label: str) -> None:
    sweep = pd.DataFrame(
        {
            "parser": "original",
            "mode": "first",
            "coefficient": "kendall",
            "dimension": ["coherence"] * 3,
            "n": [1, 2, 3],
            "tie_rate": [0.3, 0.2, 0.1],
        }
    )
    title = f"{label}: ties among item scores"
    fig = tie_rate_figure(sweep, parser="original", title=title)
    fig.draw_without_rendering()  # runs the constrained layout, as savefig does
    box = fig.axes[0].title.get_window_extent()
    frame = fig.bbox
    assert box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1
    assert "".join(fig.axes[0].get_title().split()) == "".join(title.split())


def test_every_distribution_panel_is_linear_and_a_pile_up_cut_with_its_share_written() -> None:
    """The panels mixed log and linear y axes; now all are linear, and a bar holding most
    of the items is cut below the axis' top with its share written above it."""
    counts = pd.DataFrame(
        {
            "benchmark": ["summeval"] * 3 + ["qags_xsum"] * 2,
            "dimension": ["fluency"] * 3 + ["consistency"] * 2,
            "score": [1.0, 3.0, 5.0, 0.0, 1.0],
            "count": [1, 20, 79, 51, 49],
            "share": [0.01, 0.2, 0.79, 0.51, 0.49],
        }
    )
    fluency, consistency = (ax for ax in distribution_figure(counts).axes if ax.get_visible())
    assert fluency.get_yscale() == consistency.get_yscale() == "linear"
    heights = [bar.get_height() for bar in fluency.patches]
    assert heights[:2] == pytest.approx([1.0, 20.0])  # the others as they are
    assert heights[2] < fluency.get_ylim()[1] < 79  # the tallest cut below the axis' top
    assert "79 %" in [text.get_text() for text in fluency.texts]
    assert "tallest bar cut" in fluency.get_ylabel()
    assert [bar.get_height() for bar in consistency.patches] == pytest.approx([51.0, 49.0])
    assert consistency.get_ylim()[1] > 51 and "cut" not in consistency.get_ylabel()


def _savefig_bytes(fig: Figure, fmt: str) -> bytes:
    """``fig`` as matplotlib's own ``savefig`` writes it (the reference ``save_figure``'s
    files are compared with: ``savefig`` lays the figure out again for every file)."""
    buffer = io.BytesIO()
    metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    fig.savefig(buffer, format=fmt, metadata=metadata)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["reproduction", "sweep_accuracy"])
def test_save_figure_lays_out_once_and_leaves_the_figure_as_it_was(
    tmp_path: Path, name: str
) -> None:
    """The PNG is ``savefig``'s; the SVG is ``savefig``'s with the panels where the PNG's
    layout put them (the layout engine removed after the PNG)."""
    from geval_repro.report.figures import sweep_accuracy_figure

    def draw() -> Figure:  # two figures with a layout engine, several panels and a legend
        if name == "reproduction":
            return reproduction_figure(_reproduction_table(), 1)
        return sweep_accuracy_figure(
            _accuracy_sweep(), parser="original", title="t", level="global"
        )

    fig = draw()
    canvas, dpi, engine = fig.canvas, fig.dpi, fig.get_layout_engine()
    assert engine is not None
    save_figure(fig, tmp_path / "f.png", tmp_path / "f.svg")
    assert (fig.canvas, fig.dpi, fig.get_layout_engine()) == (canvas, dpi, engine)
    reference = draw()
    assert (tmp_path / "f.png").read_bytes() == _savefig_bytes(reference, "png")
    own_layout = _savefig_bytes(draw(), "svg")
    reference.set_layout_engine("none")
    svg = (tmp_path / "f.svg").read_bytes()
    assert svg == _savefig_bytes(reference, "svg")
    assert svg != own_layout  # the SVG's own layout differs: the comparison can tell


def _accuracy_sweep() -> pd.DataFrame:
    rows = []
    for dimension in ("coherence", "fluency"):
        for mode in ("first", "random"):
            for coefficient, shift in (("acc_eq", 0.0), ("acc_eq_calibrated", 0.05)):
                for n in (1, 2, 3):
                    rows.append(
                        {
                            "parser": "original",
                            "mode": mode,
                            "coefficient": coefficient,
                            "dimension": dimension,
                            "n": n,
                            "value": 0.5 + shift + 0.01 * n,
                            "band_low": 0.45 + shift,
                            "band_high": 0.6 + shift,
                            "tie_rate": 0.3 / n,
                        }
                    )
    return pd.DataFrame(rows)


def test_sweep_accuracy_figure_draws_both_accuracies_and_the_tie_rate() -> None:
    from geval_repro.report.figures import sweep_accuracy_figure

    fig = sweep_accuracy_figure(
        _accuracy_sweep(), parser="original", title="run: accuracy", level="global"
    )
    top, bottom = fig.axes[:2], fig.axes[2:]
    assert [ax.get_title() for ax in top] == ["coherence", "fluency"]
    for ax in top:  # each accuracy: random n-subsets and first n
        assert len(ax.get_lines()) == 4
        assert max(max(line.get_ydata()) for line in ax.get_lines()) == pytest.approx(0.58)
    assert " ".join(bottom[0].get_ylabel().split()) == "tied pairs of items (%)"
    assert bottom[0].get_ylim()[0] == 0 and bottom[1].get_ylim()[1] >= 30  # 30 % at n = 1


def test_sweep_figures_face_the_printed_values_of_the_runs_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Topical-Chat run's sweep faces Table 2's G-Eval-4 values, not SummEval's."""
    from geval_repro.registry.paper import paper_value
    from geval_repro.report import figures

    sweep = _accuracy_sweep()
    sweep = pd.concat(
        [sweep, sweep.assign(coefficient="spearman"), sweep.assign(coefficient="kendall")]
    )
    path = tmp_path / "sweep.csv"
    sweep.to_csv(path, index=False)
    faced = {}
    real = figures.sweep_figure

    def recording(frame: pd.DataFrame, **kwargs: object):
        faced[kwargs["coefficient"]] = kwargs["paper"]
        return real(frame, **kwargs)

    monkeypatch.setattr(figures, "sweep_figure", recording)
    run = spec(label="run", paper_metric="G-Eval-4", benchmark="topical_chat")
    figures.sweep_figures(path, spec=run, out_dir=tmp_path)
    printed = paper_value("topical_chat", "coherence", "G-Eval-4", "spearman")
    assert printed is not None and printed != paper_value(
        "summeval", "coherence", "G-Eval-4", "spearman"
    )
    assert faced["spearman"]["coherence"] == printed
    assert (tmp_path / "sweep_accuracy.png").stat().st_size > 1000


def _ranking(floor: float) -> pd.DataFrame:
    """A full ranking on 239 items and a partial run's ranking apart, on 30 of them (with
    the covering judge restricted to them), of two coefficients."""
    full = [
        ("judge-a", "v", "judge", 1, 0.5, "fixture"),
        ("UniEval", "v", "unieval", 1, 0.45, "recomputed"),
        ("ROUGE-2", "vs source document", "baseline", 2, 0.2, "recomputed"),
        ("ROUGE-L", "v", "baseline", 2, 0.1, "recomputed"),
        ("judge-b", "most likely rating", "judge", math.nan, math.nan, "toolkit-run"),
    ]
    partial = [
        ("judge-a", "v", "judge", 1, 0.7, "fixture"),
        ("judge-p", "Eq. 1", "judge", 1, 0.6, "toolkit-run"),
    ]
    rows = []
    for coefficient in ("pearson", "kendall"):
        for ranking, n_items, metrics in (
            ("full", 239, full),
            ("partial: judge-p, 30 items", 30, partial),
        ):
            for position, (metric, variant, kind, cluster, value, status) in enumerate(
                metrics, start=1
            ):
                rows.append(
                    {
                        "benchmark": "qags_xsum",
                        "dimension": "consistency",
                        "coefficient": coefficient,
                        "ranking": ranking,
                        "position": position,
                        "cluster": cluster,
                        "metric": metric,
                        "variant": variant,
                        "kind": kind,
                        "value": value,
                        "n_items": n_items,
                        "holm_floor": floor,
                        "status": status,
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("floor", [0.01, 0.2])
def test_cluster_figure_draws_the_ranking_and_its_clusters(floor: float) -> None:
    from geval_repro.report.cluster_figure import NOT_RANKED, cluster_figure

    fig = cluster_figure(_ranking(floor), "qags_xsum", "QAGS-XSum clusters")
    axes = [ax for ax in fig.axes if ax.get_title()]
    resolved = floor <= 0.05
    suffix = "" if resolved else ": UNRESOLVED"
    assert [ax.get_title() for ax in axes] == [
        f"consistency, Pearson r{suffix}",
        f"consistency, Kendall τ{suffix}",
    ]
    for ax in axes:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == [  # top first; the protocol variant is in the footnote
            "judge-a (v) [FIXTURE]",
            "UniEval (v)",
            "ROUGE-2",
            "ROUGE-L (v)",
            "judge-b (most likely rating)",
        ]
        texts = _texts(ax)
        assert ("1" in texts and "2" in texts) == resolved  # the cluster numbers
        assert texts.count(NOT_RANKED) == 1  # in the row without a dot
        assert ax.get_xlabel() == "dataset-level correlation on 239 items"
    (legend,) = fig.legends
    key = _words(legend.get_title().get_text())
    assert "Baselines named without a variant: vs source document." in key
    # the partial run is not drawn (no label above names it) but named with its items
    assert "ranked apart, on its own items" in key and "judge-p (30 items)" in key
    assert ("UNRESOLVED (red title)" in key) == (not resolved)
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[0] == "model-free baseline (ROUGE-2, ROUGE-L)"


def test_sweep_figures_tick_whole_replies_and_tell_the_bands_and_gaps_apart() -> None:
    """Issue 50: a count of replies ticks at whole numbers only; the two accuracy bands
    differ in kind (one filled, one hatched) and each has a legend entry; a panel whose
    random n-subsets have no value at some n says where and why."""
    from matplotlib.collections import PolyCollection

    from geval_repro.report.figures import sweep_accuracy_figure, sweep_figure

    sweep = _accuracy_sweep()
    accuracy = sweep_accuracy_figure(sweep, parser="original", title="run", level="global")
    bands = [c for c in accuracy.axes[0].collections if isinstance(c, PolyCollection)]
    assert sorted(bool(band.get_hatch()) for band in bands) == [False, True]
    labels = [text.get_text() for text in accuracy.legends[0].get_texts()]
    assert sum("95 % band" in label for label in labels) == 2
    for ax in accuracy.axes:
        assert all(float(tick).is_integer() for tick in ax.get_xticks())

    correlation = sweep[sweep["coefficient"] == "acc_eq"].assign(coefficient="spearman")
    gap = (correlation["mode"] == "random") & (correlation["n"] == 1)
    correlation.loc[gap & (correlation["dimension"] == "fluency"), "value"] = float("nan")
    fig = sweep_figure(
        correlation, coefficient="spearman", parser="original", paper={}, title="run"
    )
    notes = [[t.get_text() for t in ax.texts] for ax in fig.axes]
    assert notes[0] == [] and len(notes[1]) == 1
    assert "no value at n = 1:" in notes[1][0] and "no document" in notes[1][0]
    assert all(float(tick).is_integer() for ax in fig.axes for tick in ax.get_xticks())
    tie = tie_rate_figure(sweep, parser="original", title="run", level="global")
    assert all(float(tick).is_integer() for tick in tie.axes[0].get_xticks())


def test_wrapped_titles_keep_hyphenated_words_and_equations_on_one_line() -> None:
    from geval_repro.report.figures import wrap_lines

    text = "SmolLM2 (llama.cpp, n = 20, T = 1): QAGS-XSum dataset-level ties (ε = 0.2)"
    for width in range(12, 40):
        lines = wrap_lines(text, width).splitlines()
        assert not any(line.endswith(("-", "=")) or line.startswith("=") for line in lines)
        assert "".join("".join(lines).split()) == "".join(text.split())
