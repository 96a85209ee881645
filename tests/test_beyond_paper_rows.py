"""The benchmarks with human scores that no paper table prints: their rows join
correlations.csv (geval_repro.pipeline.correlations.beyond_paper_rows), in the registry's
order, and their judge-vs-judge tests compare the registry's other coefficients."""

from __future__ import annotations

import pandas as pd

from geval_repro.pipeline.correlations import beyond_paper_rows
from geval_repro.registry.benchmarks import BENCHMARKS, get_benchmark
from geval_repro.tables.rows import COLUMNS


def _rows(benchmarks: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame({column: [None] * len(benchmarks) for column in COLUMNS})
    frame["benchmark"] = benchmarks
    frame["n_items"] = 10
    frame["n_groups"] = 2
    frame["status"] = "recomputed"
    frame["note"] = "n"
    return frame


def test_only_the_benchmarks_beyond_the_paper_in_the_registrys_order(tmp_path) -> None:
    parts = []
    for index, names in enumerate((["sfhot", "summeval", "dialsummeval"], ["sfres", "qags_xsum"])):
        path = tmp_path / f"part{index}.csv"
        _rows(names).to_csv(path, index=False)
        parts.append(path)
    out = tmp_path / "beyond.csv"
    beyond_paper_rows(parts, out)
    assert pd.read_csv(out)["benchmark"].tolist() == ["dialsummeval", "sfres", "sfhot"]
    expected = [n for n, b in BENCHMARKS.items() if b.paper_table is None and b.has_human_scores]
    assert expected == ["dialsummeval", "sfres", "sfhot"]


def test_compared_coefficients_are_the_printed_ones_else_the_registrys_other_ones() -> None:
    assert get_benchmark("summeval").compared_coefficients == ("spearman", "kendall")
    assert get_benchmark("dialsummeval").printed_coefficients == ()
    assert get_benchmark("dialsummeval").compared_coefficients == ("spearman", "kendall")
    assert get_benchmark("sfres").compared_coefficients == ("pearson", "spearman", "kendall")
