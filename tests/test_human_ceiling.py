"""Leave-one-expert-out human ceiling (geval_repro.human.ceiling) against a scipy loop."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from geval_repro.human.ceiling import leave_one_out_ceiling


def _experts(seed: int, n_docs: int = 4, n_systems: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (f"d{doc}", f"M{system}", expert, dimension, int(rng.integers(1, 6)))
        for dimension in ("coherence", "fluency")
        for expert in (1, 2, 3)
        for doc in range(n_docs)
        for system in range(n_systems)
    ]
    table = pd.DataFrame(rows, columns=["doc_id", "system_id", "annotator", "dimension", "score"])
    # Make document d0's fluency constant for expert 1, so that document is skipped for it.
    constant = (table["doc_id"] == "d0") & (table["dimension"] == "fluency")
    table.loc[constant & (table["annotator"] == 1), "score"] = 3
    return table


def _scipy_ceiling(table: pd.DataFrame, dimension: str, expert: int, coefficient: str) -> float:
    function = {"spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}[coefficient]
    part = table[table["dimension"] == dimension]
    values = []
    for _, doc in part.groupby("doc_id"):
        wide = doc.pivot(index="system_id", columns="annotator", values="score")
        single = wide[expert].to_numpy(float)
        rest = wide.drop(columns=expert).mean(axis=1).to_numpy()
        if len(set(single)) == 1 or len(set(rest)) == 1:
            continue
        values.append(function(single, rest).statistic)
    return float(np.mean(values))


def test_ceiling_matches_explicit_scipy_loop() -> None:
    table = _experts(seed=7)
    result = leave_one_out_ceiling(table)
    for row in result[result["annotator"] != "mean"].itertuples():
        expected = _scipy_ceiling(table, row.dimension, row.annotator, row.coefficient)
        assert row.value == pytest.approx(expected, abs=1e-12)
    fluency_1 = result[(result["dimension"] == "fluency") & (result["annotator"] == 1)]
    assert fluency_1["n_groups"].tolist() == [3, 3]
    means = result[result["annotator"] == "mean"].set_index(["dimension", "coefficient"])["value"]
    singles = result[result["annotator"] != "mean"].groupby(["dimension", "coefficient"])["value"]
    pd.testing.assert_series_equal(means.sort_index(), singles.mean().sort_index())


def test_missing_rating_raises() -> None:
    table = _experts(seed=1)
    with pytest.raises(ValueError, match="missing"):
        leave_one_out_ceiling(table.iloc[1:])
