"""The transcribed tables against numbers checked by hand in the paper's Tables 1-3."""

from __future__ import annotations

import pandas as pd
import pytest

from geval_repro.registry.benchmarks import PRINTED_NAMES, level_of, table_of
from geval_repro.registry.paper import (
    paper_table,
    paper_value,
    printed_average_check,
)

# (benchmark, dimension, metric, coefficient, printed value), read off the camera-ready tables.
HAND_CHECKED = [
    ("summeval", "coherence", "ROUGE-1", "spearman", 0.167),
    ("summeval", "relevance", "ROUGE-1", "kendall", 0.252),
    ("summeval", "fluency", "BARTScore", "kendall", 0.292),
    ("summeval", "coherence", "UniEval", "spearman", 0.575),
    ("summeval", "AVG", "GPTScore", "spearman", 0.417),
    ("summeval", "consistency", "G-Eval-3.5 -Probs", "kendall", 0.344),
    ("summeval", "coherence", "G-Eval-4", "spearman", 0.582),
    ("summeval", "relevance", "G-Eval-4", "kendall", 0.433),
    ("summeval", "AVG", "G-Eval-4", "spearman", 0.514),
    ("summeval", "AVG", "G-Eval-4", "kendall", 0.418),
    ("summeval", "fluency", "G-Eval-4 -Probs", "spearman", 0.505),
    ("summeval", "consistency", "G-Eval-4 -CoT", "kendall", 0.413),
    ("summeval", "AVG", "G-Eval-4 -Description", "spearman", 0.479),
    ("topical_chat", "naturalness", "ROUGE-L", "pearson", 0.176),
    ("topical_chat", "coherence", "BLEU-4", "spearman", 0.235),
    ("topical_chat", "groundedness", "USR", "pearson", 0.222),
    ("topical_chat", "naturalness", "UniEval", "spearman", 0.330),
    ("topical_chat", "AVG", "UniEval", "pearson", 0.552),
    ("topical_chat", "engagingness", "G-Eval-3.5", "spearman", 0.691),
    ("topical_chat", "AVG", "G-Eval-4", "spearman", 0.588),
    ("qags_cnndm", "consistency", "ROUGE-2", "kendall", 0.333),
    ("qags_xsum", "consistency", "ROUGE-L", "spearman", -0.011),
    ("qags_xsum", "consistency", "BERTScore", "kendall", 0.006),
    ("qags_cnndm", "consistency", "QAGS", "pearson", 0.545),
    ("qags_cnndm", "consistency", "UniEval", "pearson", 0.682),
    ("qags_xsum", "consistency", "UniEval", "kendall", 0.399),
    ("qags_avg", "consistency", "UniEval", "spearman", 0.575),
    ("qags_xsum", "consistency", "G-Eval-3.5", "pearson", 0.211),
    ("qags_avg", "consistency", "G-Eval-4", "pearson", 0.599),
    ("qags_avg", "consistency", "G-Eval-4", "kendall", 0.525),
]


@pytest.mark.parametrize(("benchmark", "dimension", "metric", "coefficient", "value"), HAND_CHECKED)
def test_hand_checked_cells(benchmark, dimension, metric, coefficient, value) -> None:
    assert paper_value(benchmark, dimension, metric, coefficient) == value


def test_dash_cells_are_absent() -> None:
    assert paper_value("summeval", "coherence", "GPTScore", "kendall") is None
    assert paper_value("qags_cnndm", "consistency", "QAGS", "spearman") is None
    assert paper_value("topical_chat", "naturalness", "G-Eval-4", "kendall") is None
    assert paper_value("summeval", "coherence", "no such metric", "spearman") is None


def test_table_shape() -> None:
    table = paper_table()
    assert list(table.columns) == [
        "table",
        "benchmark",
        "dimension",
        "metric",
        "coefficient",
        "value",
    ]
    # Table 1: 14 metrics x 10 cells, 5 GPTScore tau cells printed "-".
    # Table 2: 8 metrics x 10 cells. Table 3: 11 metrics x 9 cells, 6 QAGS cells "-".
    assert table.groupby("table").size().to_dict() == {1: 135, 2: 80, 3: 93}
    assert set(table.coefficient[table.table == 1]) == {"spearman", "kendall"}
    assert set(table.coefficient[table.table == 2]) == {"pearson", "spearman"}
    assert set(table.benchmark) == set(PRINTED_NAMES)


def test_paper_table_is_a_copy() -> None:
    table = paper_table()
    table.loc[:, "value"] = 0.0
    assert paper_table().value.abs().sum() > 0


def test_levels_and_tables_from_the_registry() -> None:
    assert {name: level_of(name) for name in PRINTED_NAMES} == {
        "summeval": "summary",
        "topical_chat": "global",
        "qags_cnndm": "global",
        "qags_xsum": "global",
        "qags_avg": "global",
    }
    assert {name: table_of(name) for name in PRINTED_NAMES} == {
        "summeval": 1,
        "topical_chat": 2,
        "qags_cnndm": 3,
        "qags_xsum": 3,
        "qags_avg": 3,
    }


def test_printed_average_quirks_are_detected() -> None:
    check = printed_average_check().set_index(["benchmark", "metric", "coefficient"])
    row = check.loc[("summeval", "G-Eval-4", "spearman")]
    assert (row.printed, row.column_mean) == (0.514, pytest.approx(0.5355))
    assert not row.consistent
    assert check.loc[("summeval", "G-Eval-4", "kendall")].column_mean == pytest.approx(0.4425)
    assert check.loc[("qags_avg", "G-Eval-4", "pearson")].column_mean == pytest.approx(0.5945)
    assert check.loc[("qags_avg", "G-Eval-4", "kendall")].column_mean == pytest.approx(0.5315)
    assert check.loc[("qags_avg", "QAGS", "pearson")].column_mean == pytest.approx(0.360)
    inconsistent = check[~check.consistent].reset_index()
    # Every Table 1 G-Eval row (5 rows x 2 coefficients) and the three Table 3 averages.
    table1 = inconsistent[inconsistent.benchmark == "summeval"]
    assert set(table1.metric) == {
        "G-Eval-3.5",
        "G-Eval-4",
        "G-Eval-4 -Probs",
        "G-Eval-4 -CoT",
        "G-Eval-4 -Description",
    }
    assert len(table1) == 10
    assert len(inconsistent) == 13
    assert check.loc[("summeval", "ROUGE-1", "spearman")].consistent


def test_malformed_csv_names_file_and_row(tmp_path) -> None:
    bad = paper_table()
    bad.loc[3, "coefficient"] = "tau"
    path = tmp_path / "paper_tables.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"paper_tables\.csv: row 5 .*coefficient"):
        paper_table(path)
    assert isinstance(paper_table(), pd.DataFrame)
