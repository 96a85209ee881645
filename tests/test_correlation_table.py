"""The correlation table: rows, paper look-ups, AVG rows, Markdown/CSV output, and UniEval's
released predictions against the paper's printed UniEval rows."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.sources import get_source
from geval_repro.report.markdown import to_markdown
from geval_repro.report.table_files import write_pair
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.ties import tie_rate
from geval_repro.tables.averages import average_rows
from geval_repro.tables.printed import paper_only_rows
from geval_repro.tables.rows import (
    COLUMNS,
    MIN_BOOTSTRAP_UNITS,
    check_rows,
    comparison_note,
    correlation_rows,
    printed_number,
)


def fixture_matrices(seed: int, n_systems: int = 6, n_inputs: int = 20):
    rng = np.random.default_rng(seed)
    human = rng.integers(3, 16, size=(n_systems, n_inputs)) / 3.0
    metric = np.round(human + rng.normal(0, 0.8, human.shape), 1)
    return metric, human


def rows_for(benchmark, dimension, metric="G-Eval-4", level="summary", seed=0, **kwargs):
    scores, human = fixture_matrices(seed)
    return correlation_rows(
        benchmark=benchmark,
        dimension=dimension,
        metric=metric,
        variant="fixture",
        level=level,
        metric_scores=scores,
        human_scores=human,
        n_resamples=kwargs.pop("n_resamples", 0),
        seed=1,
        status="fixture",
        **kwargs,
    )


def test_correlation_rows_values_and_paper_lookup() -> None:
    metric, human = fixture_matrices(0)
    metric[0, 0] = np.nan
    rows = correlation_rows(
        benchmark="summeval",
        dimension="coherence",
        metric="G-Eval-4",
        variant="fixture",
        level="summary",
        metric_scores=metric,
        human_scores=human,
        n_resamples=200,
        seed=3,
        status="fixture",
    )
    assert list(rows.columns) == COLUMNS
    assert list(rows.coefficient) == ["pearson", "spearman", "kendall"]
    for row in rows.itertuples():
        result = correlate(metric, human, "summary", row.coefficient)
        assert row.value == result.value
        assert (row.n_items, row.n_groups) == (result.n_items, result.n_groups)
        assert row.ci_low < row.value < row.ci_high
    human_without_hole = human.copy()
    human_without_hole[0, 0] = np.nan  # tie rates count the complete cells only
    assert rows.human_tie_rate.iloc[0] == tie_rate(human_without_hole, "summary").rate
    spearman = rows.set_index("coefficient").loc["spearman"]
    assert spearman.paper_value == 0.582  # Table 1, G-Eval-4 coherence rho
    assert spearman.delta == pytest.approx(spearman.value - 0.582)
    assert math.isnan(rows.set_index("coefficient").loc["pearson"].paper_value)  # not printed
    assert "bootstrap CI over inputs, 200 resamples, seed 3" in spearman.note


def test_a_summary_value_on_one_input_has_no_value_and_on_three_no_interval() -> None:
    # Three systems, three inputs; the metric is constant on inputs 0 and 2, so only input 1
    # has a defined correlation: a value on one document is no evidence, only its n shows.
    metric = np.array([[2.0, 1.0, 3.0], [2.0, 2.0, 3.0], [2.0, 3.0, 3.0]])
    human = np.array([[1.0, 1.0, 2.0], [2.0, 3.0, 1.0], [3.0, 2.0, 3.0]])
    rows = correlation_rows(
        benchmark="summeval",
        dimension="coherence",
        metric="fixture",
        variant="fixture",
        level="summary",
        metric_scores=metric,
        human_scores=human,
        coefficients=("spearman", "acc_eq"),
        n_resamples=200,
        seed=3,
        status="fixture",
    ).set_index("coefficient")
    spearman = rows.loc["spearman"]
    assert math.isnan(spearman.value)  # it would be 0.5: ranks (1, 2, 3) against (1, 3, 2)
    assert (spearman.n_groups, spearman.n_items) == (1, 3)
    assert math.isnan(spearman.ci_low) and math.isnan(spearman.ci_high)
    assert "no value: it would rest on 1 document, fewer than the 3" in spearman.note
    assert "bootstrap CI" not in spearman.note
    # acc_eq pairs every input's systems: all three inputs enter: a value, but fewer than
    # 10 documents for an interval. Input 1: 2 of 3 pairs right; inputs 0 and 2 (metric
    # tied everywhere, humans nowhere): none right. (0 + 2/3 + 0) / 3.
    accuracy = rows.loc["acc_eq"]
    assert accuracy.n_groups == 3 and accuracy.value == pytest.approx(2 / 9)
    assert math.isnan(accuracy.ci_low)
    assert "rests on 3 documents" in accuracy.note


@pytest.mark.parametrize(
    ("level", "shape", "unit", "counted"),
    [
        ("summary", (4, 10), None, "documents"),  # inputs kept (n_groups)
        ("system", (4, 10), None, "documents"),  # inputs with a cell
        ("global", (1, 10), None, "items"),  # pooled items
        ("summary", (10, 10), "both", "units"),  # the fewer of systems and inputs
    ],
)
def test_no_interval_below_the_minimum_of_bootstrap_units(
    level: str, shape: tuple[int, int], unit: str | None, counted: str
) -> None:
    # MIN_BOOTSTRAP_UNITS units: an interval; one fewer (the last input, or a system, gone):
    # none, and the note says on how many units the value rests.
    assert MIN_BOOTSTRAP_UNITS == 10
    rng = np.random.default_rng(7)
    human = rng.normal(size=shape)
    metric = human + rng.normal(size=shape)

    def row(metric: np.ndarray, human: np.ndarray) -> pd.Series:
        return correlation_rows(
            benchmark="summeval",
            dimension="coherence",
            metric="fixture",
            variant="fixture",
            level=level,
            metric_scores=metric,
            human_scores=human,
            coefficients=("pearson",),
            n_resamples=100,
            seed=1,
            unit=unit,
            status="fixture",
        ).iloc[0]

    enough = row(metric, human)
    assert enough.ci_low < enough.ci_high
    assert "bootstrap CI" in enough.note
    drop = (slice(None, -1), slice(None)) if unit == "both" else (slice(None), slice(None, -1))
    fewer = row(metric[drop], human[drop])  # one system fewer (both), else one input
    assert math.isnan(fewer.ci_low) and math.isnan(fewer.ci_high)
    assert f"no CI: the value rests on 9 {counted}, fewer than the 10" in fewer.note
    assert not math.isnan(fewer.value)


def test_no_paper_value_at_another_level_and_renamed_metrics() -> None:
    system = rows_for("summeval", "coherence", level="system")
    assert system.paper_value.isna().all()
    renamed = rows_for("summeval", "coherence", metric="g4 mean-of-20", paper_metric="G-Eval-4")
    assert renamed.set_index("coefficient").loc["kendall"].paper_value == 0.457


def test_one_average_row_states_printed_and_column_averages() -> None:
    dims = ["coherence", "consistency", "fluency", "relevance"]
    rows = pd.concat([rows_for("summeval", d, seed=i) for i, d in enumerate(dims)])
    averages = average_rows(rows).set_index(["dimension", "coefficient"])
    assert set(averages.index.get_level_values("dimension")) == {"AVG"}
    assert len(averages) == 3  # one AVG row per coefficient
    ours = rows[rows.coefficient == "spearman"].value.mean()
    row = averages.loc[("AVG", "spearman")]
    assert row.value == pytest.approx(ours)
    assert row.paper_value == 0.514  # Table 1, G-Eval-4 AVG rho, as printed
    # (0.582 + 0.507 + 0.506 + 0.547) / 4 = 0.5355, by hand
    assert "printed average 0.514; mean of the printed columns 0.5355" in row.note
    assert (averages.status == "fixture").all()
    assert math.isnan(averages.loc[("AVG", "pearson")].paper_value)


def test_printed_numbers_keep_their_decimals() -> None:
    assert printed_number(0.2) == "0.200"
    assert printed_number(0.2005) == "0.2005"
    assert printed_number((0.333 + 0.068) / 2) == "0.2005"
    assert printed_number(0.53575) == "0.53575"
    assert "the printed 0.2005 " in comparison_note(0.1996, 0.2005, 0.001)


def test_qags_average_note_is_exact() -> None:
    """The issue-9 case: QAGS ROUGE-2 Kendall printed 0.333 (CNN/DM) and 0.068 (XSum), whose
    mean is 0.2005, and an Average of 0.200. The note once read "printed average 0.200 vs mean
    of printed columns 0.2005; matches the printed 0.201"."""
    records = [
        {
            **dict.fromkeys(COLUMNS, math.nan),
            "benchmark": subset,
            "dimension": "consistency",
            "metric": "ROUGE-2",
            "variant": "hand-made",
            "level": "global",
            "coefficient": "kendall",
            "value": value,
            "status": "recomputed",
            "note": "",
        }
        for subset, value in (("qags_cnndm", 0.3300), ("qags_xsum", 0.0692))
    ]
    averages = average_rows(pd.DataFrame.from_records(records, columns=COLUMNS))
    assert len(averages) == 1
    row = averages.iloc[0]
    assert (row.benchmark, row.dimension) == ("qags_avg", "consistency")
    assert row.value == pytest.approx(0.1996)
    assert row.paper_value == 0.200
    assert row.delta == pytest.approx(-0.0004)
    assert row.note == (
        "mean of our qags_cnndm and qags_xsum values; printed average 0.200; mean of the "
        "printed columns 0.2005; matches the printed 0.200 to rounding (|delta| <= 0.001)"
    )
    assert "0.201" not in row.note


def test_average_rows_need_every_dimension_once() -> None:
    rows = pd.concat([rows_for("summeval", d) for d in ["coherence", "fluency", "relevance"]])
    assert average_rows(rows).empty
    doubled = pd.concat([rows, rows_for("summeval", "coherence")])
    with pytest.raises(ValueError, match="repeated dimension rows"):
        average_rows(doubled)


def test_qags_average_rows() -> None:
    rows = pd.concat(
        [
            rows_for(subset, "consistency", level="global", seed=i)
            for i, subset in enumerate(["qags_cnndm", "qags_xsum"])
        ]
    )
    averages = average_rows(rows).set_index(["benchmark", "dimension", "coefficient"])
    row = averages.loc[("qags_avg", "consistency", "pearson")]
    assert row.paper_value == 0.599
    assert row.value == pytest.approx(rows[rows.coefficient == "pearson"].value.mean())
    # G-Eval-4 Pearson: CNN/DM 0.631, XSum 0.558 -> mean 0.5945 (by hand), printed 0.599
    assert "printed average 0.599; mean of the printed columns 0.5945" in row.note


def test_paper_only_rows() -> None:
    rows = paper_only_rows("summeval", ["G-Eval-3.5", "GPTScore"], "not-released", "no replies")
    assert rows.value.isna().all()
    assert set(rows.status) == {"not-released"}
    g35 = rows[rows.metric == "G-Eval-3.5"]
    assert len(g35) == 10  # the printed cells, AVG included
    gpt = rows[rows.metric == "GPTScore"]
    assert len(gpt) == 5  # Kendall printed "-"
    gpt_avg = gpt[gpt.dimension == "AVG"].iloc[0]
    assert gpt_avg.paper_value == 0.417
    # (0.434 + 0.449 + 0.403 + 0.381) / 4 = 0.41675, by hand
    assert gpt_avg.note == "no replies; printed average 0.417; mean of the printed columns 0.41675"
    qags = paper_only_rows("qags_avg", ["G-Eval-4"], "not-recomputable", "prompts not released")
    assert set(qags.dimension) == {"consistency"}
    with pytest.raises(ValueError, match="prints no summeval number"):
        paper_only_rows("summeval", ["G-Eval-5"], "paper-only", "")
    with pytest.raises(ValueError, match="status"):
        paper_only_rows("summeval", ["G-Eval-4"], "recomputed", "")


def test_markdown_and_atomic_writes(tmp_path: Path) -> None:
    rows = rows_for("summeval", "coherence")
    rows.loc[0, "note"] = "a | b"
    text = to_markdown(rows)
    lines = text.splitlines()
    shown = [
        "value [95% CI]" if c == "value" else c for c in COLUMNS if c not in ("ci_low", "ci_high")
    ]
    assert lines[0] == "| " + " | ".join(shown) + " |"
    assert len(lines) == 2 + len(rows)  # no CI, so no flag and no legend
    assert "a \\| b" in text
    assert f"| {rows.value.iloc[0]:.4f} |" in lines[2]
    csv_path, md_path = (
        tmp_path / "tables" / "correlations.csv",
        tmp_path / "tables" / "correlations.md",
    )
    write_pair(rows, tmp_path / "tables" / "correlations")
    back = pd.read_csv(csv_path)
    assert list(back.columns) == COLUMNS
    np.testing.assert_array_equal(back.value.to_numpy(), rows.value.to_numpy())
    assert md_path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in csv_path.parent.iterdir()) == [
        "correlations.csv",
        "correlations.md",
    ]


def test_markdown_shows_the_ci_and_flags_printed_values_outside_it() -> None:
    def row(value, low, high, printed):
        return {
            **dict.fromkeys(COLUMNS, math.nan),
            "benchmark": "summeval",
            "dimension": "coherence",
            "metric": "m",
            "variant": "v",
            "level": "summary",
            "coefficient": "spearman",
            "value": value,
            "ci_low": low,
            "ci_high": high,
            "paper_value": printed,
            "status": "recomputed",
            "note": "",
        }

    rows = pd.DataFrame.from_records(
        [
            row(0.512, 0.47, 0.553, 0.582),  # printed above the interval: flagged
            row(0.512, 0.47, 0.553, 0.553),  # on the bound: inside
            row(0.512, 0.47, 0.553, 0.4696),  # rounds to a number inside: not flagged
            row(0.512, 0.47, 0.553, 0.469),  # 0.469 + 0.0005 < 0.47: flagged
            row(0.512, math.nan, math.nan, 0.9),  # no interval: no flag
        ],
        columns=COLUMNS,
    )
    lines = to_markdown(rows).splitlines()
    body = lines[2:7]
    assert "| 0.5120 [0.470, 0.553] |" in body[0]
    assert [line.count("†") for line in body] == [1, 0, 0, 1, 0]
    assert "| 0.582 † |" in body[0]
    assert "| 0.5120 |" in body[4]
    assert lines[-1].startswith("† the printed value lies outside our 95% CI")


def test_check_rows_rejects_bad_tables() -> None:
    rows = rows_for("summeval", "coherence")
    with pytest.raises(ValueError, match="columns"):
        check_rows(rows.drop(columns=["note"]))
    bad = rows.copy()
    bad.loc[0, "status"] = "simulated"
    with pytest.raises(ValueError, match="unknown status"):
        check_rows(bad)


# --- UniEval's released predictions (real data from the mirror) ----------------------------


def released(mirror_dir: Path, source_id: str) -> pd.DataFrame:
    path = mirror_dir / get_source(source_id).relpath
    return pd.DataFrame(json.loads(path.read_text(encoding="utf-8")))


def unieval_rows(benchmark, dimension, items, coefficients) -> pd.DataFrame:
    def score(value, key):
        return (value if isinstance(value, dict) else ast.literal_eval(value))[key]

    items = items.assign(
        metric=items.predict_scores.map(lambda v: score(v, dimension)),
        human=items.scores.map(lambda v: score(v, dimension)),
    )
    inputs = "doc_id" if "doc_id" in items else "source"
    metric, _, _ = to_matrix(items, "metric", inputs=inputs)
    human, _, _ = to_matrix(items, "human", inputs=inputs)
    return correlation_rows(
        benchmark=benchmark,
        dimension=dimension,
        metric="UniEval",
        variant="released predictions",
        level="global",
        metric_scores=metric,
        human_scores=human,
        coefficients=coefficients,
        n_resamples=200,
        seed=0,
    )


def test_unieval_reproduces_table_3(mirror_dir: Path) -> None:
    rows = pd.concat(
        [
            unieval_rows(
                subset,
                "consistency",
                released(mirror_dir, f"unieval_pred_{subset}"),
                ("pearson", "spearman", "kendall"),
            )
            for subset in ("qags_cnndm", "qags_xsum")
        ]
    )
    assert rows.set_index("benchmark").n_items.to_dict() == {"qags_cnndm": 235, "qags_xsum": 239}
    assert (rows.delta.abs() <= 0.0005).all(), rows[["benchmark", "coefficient", "value"]]
    assert rows.note.str.contains("matches the printed").all()
    averages = average_rows(rows)
    printed = averages[averages.dimension == "consistency"]
    assert len(printed) == 3
    assert (printed.delta.abs() <= 0.001).all()  # the printed Average of rounded cells


def test_unieval_topical_chat_differs_from_table_2(mirror_dir: Path) -> None:
    """Recorded, not adjusted: the Table 2 UniEval row is not what the released predictions
    give (e.g. naturalness rho 0.514 recomputed vs 0.330 printed)."""
    items = released(mirror_dir, "unieval_pred_topical_chat")
    dims = ["naturalness", "coherence", "engagingness", "groundedness"]
    rows = pd.concat(
        [unieval_rows("topical_chat", d, items, ("pearson", "spearman")) for d in dims]
    )
    assert (rows.n_items == 360).all()
    rho = rows[(rows.coefficient == "spearman")].set_index("dimension")
    assert rho.loc["naturalness"].value == pytest.approx(0.514, abs=0.0005)
    assert rho.loc["naturalness"].paper_value == 0.330
    assert rho.note.str.contains("differs from the printed").all()
    averages = average_rows(rows)
    assert len(averages) == 2  # one AVG row each for r and rho


def test_a_value_that_is_a_reason_is_written_as_text():
    """A table whose value cell says why there is no number (a judge card's dimension that a
    partial run does not judge) is written, the reason in the value's column."""
    table = pd.DataFrame(
        {"metric": ["a", "b"], "value": [0.5, "n/a: not judged"], "ci_low": [0.25, None],
         "ci_high": [0.75, None]}
    )  # fmt: skip
    lines = to_markdown(table).splitlines()
    assert lines[2] == "| a | 0.5000 [0.250, 0.750] |"
    assert lines[3] == "| b | n/a: not judged |"
