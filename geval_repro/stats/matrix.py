"""Score matrices in the nlpstats convention: shape ``(n_systems, n_inputs)``, NaN = missing.

Row ``s``, column ``i`` holds the score of system ``s``'s output for input ``i`` (a
SummEval document, a Topical-Chat dialogue context, a QAGS article).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The one pseudo-system of a global-level matrix: (1 x items), every item pooled.
POOLED = "_pooled"


def with_pooled_system(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the :data:`POOLED` column, so :func:`to_matrix` with
    ``systems=POOLED`` gives the global level's one row of items."""
    return table.assign(**{POOLED: "all"})


@dataclass(frozen=True)
class Cells:
    """Where each row of a long table lies in its matrix (:func:`cells_of`): row ``k`` at
    ``(rows[k], columns[k])``; rows of the matrix follow ``system_labels`` (sorted), its
    columns ``input_labels`` (sorted)."""

    rows: np.ndarray
    columns: np.ndarray
    system_labels: list
    input_labels: list

    def matrix(self, values: np.ndarray) -> np.ndarray:
        """``(n_systems, n_inputs)``: ``values`` (one per row of the table) at their cells,
        NaN at the cells no row has."""
        matrix = np.full((len(self.system_labels), len(self.input_labels)), np.nan)
        matrix[self.rows, self.columns] = values
        return matrix


def _require_columns(df: pd.DataFrame, *columns: str) -> None:
    """A KeyError naming those of ``columns`` that ``df`` lacks, and the columns it has."""
    missing = [column for column in columns if column not in df.columns]
    if missing:
        raise KeyError(f"score matrix: columns {missing} not in the table (has {list(df.columns)})")


def cells_of(df: pd.DataFrame, systems: str = "system_id", inputs: str = "doc_id") -> Cells:
    """The :class:`Cells` of ``df``'s rows by their ``systems`` and ``inputs`` labels. A row
    without a label, or a (system, input) pair listed twice, is an error that names it, since
    silently keeping one score would hide a data problem."""
    _require_columns(df, systems, inputs)
    unlabelled = df[systems].isna() | df[inputs].isna()
    if unlabelled.any():
        raise ValueError(
            f"score matrix: {int(unlabelled.sum())} rows lack a {systems} or {inputs} label "
            f"(first at row index {df.index[unlabelled.to_numpy()][0]!r}): label or drop them"
        )
    duplicated = df.duplicated(subset=[systems, inputs], keep=False)
    if duplicated.any():
        pairs = df.loc[duplicated, [systems, inputs]].drop_duplicates().head(5)
        listed = ", ".join(f"({s!r}, {i!r})" for s, i in pairs.itertuples(index=False))
        raise ValueError(
            f"score matrix: {int(duplicated.sum())} rows repeat a ({systems}, {inputs}) pair, "
            f"e.g. {listed}: keep one score per pair (aggregate or deduplicate first)"
        )
    system_labels = sorted(df[systems].unique())
    input_labels = sorted(df[inputs].unique())
    rows = pd.Index(system_labels).get_indexer(df[systems])
    columns = pd.Index(input_labels).get_indexer(df[inputs])
    return Cells(rows, columns, system_labels, input_labels)


def to_matrix(
    df: pd.DataFrame, value: str, systems: str = "system_id", inputs: str = "doc_id"
) -> tuple[np.ndarray, list, list]:
    """Pivot a long table into ``(matrix, system_labels, input_labels)``.

    Rows of the matrix follow the sorted system labels, columns the sorted input labels;
    a (system, input) pair absent from ``df`` is NaN. A pair listed twice is an error that
    names the pair (:func:`cells_of`).
    """
    _require_columns(df, value)
    cells = cells_of(df, systems, inputs)
    return cells.matrix(score_values(df, value)), cells.system_labels, cells.input_labels


def score_values(df: pd.DataFrame, value: str) -> np.ndarray:
    """``df[value]`` as floats (one per row, for :meth:`Cells.matrix`); a non-numeric score
    is an error naming the column."""
    try:
        return pd.to_numeric(df[value], errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"score matrix: column {value!r} holds a non-numeric score: {error}"
        ) from None


def as_score_matrix(scores: np.ndarray, name: str) -> np.ndarray:
    """``scores`` as a float ``(n_systems, n_inputs)`` array; bad shapes or +-inf raise."""
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim != 2 or matrix.size == 0:
        raise ValueError(
            f"{name} must be a non-empty (n_systems, n_inputs) matrix, got shape {matrix.shape}"
        )
    if np.isinf(matrix).any():
        raise ValueError(f"{name} contains +-inf: scores must be finite or NaN (missing)")
    return matrix


def as_score_pair(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a metric matrix and a human matrix of the same shape."""
    metric = as_score_matrix(metric, "metric")
    human = as_score_matrix(human, "human")
    if metric.shape != human.shape:
        raise ValueError(
            f"metric and human matrices differ in shape: {metric.shape} vs {human.shape}; "
            "build both with to_matrix over the same (system, input) pairs"
        )
    return metric, human
