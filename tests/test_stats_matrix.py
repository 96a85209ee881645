"""Long tables to (n_systems, n_inputs) matrices."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geval_repro.stats.matrix import to_matrix


def test_to_matrix_sorts_labels_and_marks_missing() -> None:
    df = pd.DataFrame(
        {
            "system_id": ["M2", "M1", "M1", "M2", "M1"],
            "doc_id": ["b", "a", "b", "c", "c"],
            "score": [4.0, 1.0, 2.0, 5.0, 3.0],
        }
    )
    matrix, systems, inputs = to_matrix(df, "score")
    assert systems == ["M1", "M2"]
    assert inputs == ["a", "b", "c"]
    np.testing.assert_array_equal(matrix, [[1.0, 2.0, 3.0], [np.nan, 4.0, 5.0]])


def test_to_matrix_custom_columns() -> None:
    df = pd.DataFrame({"sys": [0, 1], "ctx": [7, 7], "v": [0.5, 0.25]})
    matrix, systems, inputs = to_matrix(df, "v", systems="sys", inputs="ctx")
    assert (systems, inputs) == ([0, 1], [7])
    np.testing.assert_array_equal(matrix, [[0.5], [0.25]])


def test_duplicated_pair_is_an_error_naming_it() -> None:
    df = pd.DataFrame({"system_id": ["M1", "M1"], "doc_id": ["d1", "d1"], "s": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"\('M1', 'd1'\)"):
        to_matrix(df, "s")


def test_missing_column_is_an_error() -> None:
    with pytest.raises(KeyError, match=r"columns \['score'\] not in the table"):
        to_matrix(pd.DataFrame({"system_id": [1], "doc_id": [1]}), "score")
    with pytest.raises(KeyError, match=r"columns \['doc_id'\] not in the table"):
        to_matrix(pd.DataFrame({"system_id": [1], "score": [1.0]}), "score")


def test_unlabelled_rows_and_non_numeric_scores_are_errors() -> None:
    df = pd.DataFrame({"system_id": ["M1", None], "doc_id": ["d1", "d2"], "s": [1.0, 2.0]})
    with pytest.raises(ValueError, match="lack a system_id or doc_id label"):
        to_matrix(df, "s")
    df = pd.DataFrame({"system_id": ["M1"], "doc_id": ["d1"], "s": ["four"]})
    with pytest.raises(ValueError, match="non-numeric"):
        to_matrix(df, "s")
