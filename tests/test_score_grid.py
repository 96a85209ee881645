"""The score grid of the paired tests (geval_repro.tables.paired_tests.ScoreGrid): each
metric's and the humans' matrices, made once, against matrices written out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.tables.paired_tests import Scored, ScoreGrid

SUMMEVAL = get_benchmark("summeval")
NAN = np.nan

# Two documents x two systems; rows of a matrix are the sorted systems, columns the sorted
# documents.
HUMAN = pd.DataFrame(
    {
        "doc_id": ["d1", "d1", "d2", "d2"],
        "system_id": ["M0", "M1", "M0", "M1"],
        "coherence": [1.0, 2.0, 3.0, NAN],
    }
)


def scored(name: str, doc_ids: list[str], system_ids: list[str], scores: list[float]) -> Scored:
    table = pd.DataFrame({"doc_id": doc_ids, "system_id": system_ids, "score": scores})
    return Scored(name, "v", "judge", "fixture", {"coherence": table})


def test_common_matrices_by_hand() -> None:
    grid = ScoreGrid(SUMMEVAL, HUMAN)
    a = scored("a", ["d1", "d1", "d2", "d2"], ["M0", "M1", "M0", "M1"], [0.1, 0.2, 0.3, 0.4])
    b = scored("b", ["d1", "d2"], ["M1", "M0"], [5.0, 6.0])  # scores two of the four items
    (matrix_a,), gold = grid.common("coherence", [a])
    np.testing.assert_array_equal(matrix_a, [[0.1, 0.3], [0.2, NAN]])  # M1/d2: no human
    np.testing.assert_array_equal(gold, [[1.0, 3.0], [2.0, NAN]])
    (matrix_a, matrix_b), gold = grid.common("coherence", [a, b])
    np.testing.assert_array_equal(matrix_a, [[NAN, 0.3], [0.2, NAN]])
    np.testing.assert_array_equal(matrix_b, [[NAN, 6.0], [5.0, NAN]])
    np.testing.assert_array_equal(gold, [[NAN, 3.0], [2.0, NAN]])
    # Made once, and never another metric's: the same arrays come back for the same metric.
    assert grid.metric(a, "coherence") is grid.metric(a, "coherence")
    np.testing.assert_array_equal(grid.metric(b, "coherence"), [[NAN, 6.0], [5.0, NAN]])


def test_an_item_scored_twice_is_an_error_naming_it() -> None:
    twice = scored("twice", ["d1", "d1"], ["M0", "M0"], [0.1, 0.2])
    with pytest.raises(
        ValueError,
        match=r"twice \(v\) scores SummEval items more than once on "
        r"coherence, e.g. \[\('d1', 'M0'\)\]",
    ):
        ScoreGrid(SUMMEVAL, HUMAN).common("coherence", [twice])


def test_items_off_the_grid_are_left_out_and_keys_of_another_type_are_an_error() -> None:
    grid = ScoreGrid(SUMMEVAL, HUMAN)
    off = scored("off", ["d1", "d9"], ["M0", "M0"], [0.5, 0.7])  # d9: not in the table
    np.testing.assert_array_equal(grid.metric(off, "coherence"), [[0.5, NAN], [NAN, NAN]])
    elsewhere = scored("elsewhere", ["d9"], ["M9"], [0.1])  # scores no item of the grid
    np.testing.assert_array_equal(grid.metric(elsewhere, "coherence"), [[NAN, NAN], [NAN, NAN]])
    numbered = Scored(
        "numbered",
        "v",
        "judge",
        "fixture",
        {"coherence": pd.DataFrame({"doc_id": [1], "system_id": ["M0"], "score": [0.5]})},
    )
    with pytest.raises(ValueError, match="item key 'doc_id' is int64"):
        grid.metric(numbered, "coherence")
