"""SummEval's own printed tables (geval_repro.registry.summeval_paper): the transcription
checked for what 17 systems imply, and against the pinned expert ratings."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.human.system_means import compare_with_printed, system_means
from geval_repro.load import load_metriceval_experts
from geval_repro.registry import summeval_paper
from geval_repro.registry.sources import get_source
from geval_repro.tables.rows import printed_cell

# Fabbri et al. 2021, TACL 9, Table 2 (p. 400), the ROUGE rows, as the issue quotes them.
TABLE2 = {
    "ROUGE-1": (0.2500, 0.5294, 0.5240, 0.4118),
    "ROUGE-2": (0.1618, 0.5882, 0.4797, 0.2941),
    "ROUGE-L": (0.0735, 0.1471, 0.2583, 0.2353),
}
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
CODES = ("COH", "CON", "FLU", "REL")


def test_table2_is_the_printed_rouge_rows_of_17_systems(mirror_dir: Path) -> None:
    table = summeval_paper.table2()
    got = {
        (r.metric, r.dimension): r.value for r in table.itertuples() if r.coefficient == "kendall"
    }
    want = {
        (m, d): v for m, values in TABLE2.items() for d, v in zip(DIMENSIONS, values, strict=True)
    }
    assert got == want
    # Kendall's tau-b over 17 systems is (concordant - discordant) / sqrt(n0 * (n0 - t)),
    # n0 = C(17, 2) = 136 pairs, t the pairs the experts' system means tie (a metric's
    # ROUGE scores do not tie): an integer over 136 for coherence, consistency and
    # relevance; fluency's means tie one pair (M1 and M22, 4.8967), so over sqrt(136 * 135).
    # With summeval.json's 16 systems the pairs would be 120.
    n0 = math.comb(summeval_paper.ANNOTATED_SYSTEMS, 2)
    assert n0 == 136
    means = _independent_means(mirror_dir)
    for dimension in DIMENSIONS:
        systems = [round(means[(s, dimension)], 9) for s in sorted({s for s, _ in means})]
        assert len(systems) == 17
        tied = sum(a == b for a, b in itertools.combinations(systems, 2))
        assert tied == (1 if dimension == "fluency" else 0)
        denominator = math.sqrt(n0 * (n0 - tied))
        for value in table.loc[table["dimension"] == dimension, "value"]:
            count = value * denominator
            assert abs(count - round(count)) < 0.01, (dimension, value)


def test_system_level_rows_face_summevals_value_and_name_it() -> None:
    cell = printed_cell("summeval", "consistency", "ROUGE-1", "kendall", "system")
    assert cell.value == 0.5294 and cell.paper == "SummEval (Fabbri et al. 2021), Table 2"
    assert cell.tolerance == 0.00005  # four printed decimals
    summary = printed_cell("summeval", "consistency", "ROUGE-1", "kendall", "summary")
    assert summary.value == 0.130 and summary.paper == "G-Eval (Liu et al. 2023), Table 1"
    assert math.isnan(printed_cell("summeval", "consistency", "ROUGE-1", "pearson", "system").value)
    assert math.isnan(printed_cell("topical_chat", "coherence", "ROUGE-L", "kendall", "system")[0])


def _independent_means(mirror_dir: Path) -> dict[tuple[str, str], float]:
    """Each system's mean expert rating, straight from MetricEval's CSV with pandas."""
    frame = pd.read_csv(mirror_dir / get_source("metriceval_scores").relpath)
    out = {}
    for dimension, code in zip(DIMENSIONS, CODES, strict=True):
        per_row = frame[[f"Expert.{e}.{code}" for e in (1, 2, 3)]].mean(axis=1)
        for system, mean in per_row.groupby(frame["model_id"]).mean().items():
            out[(system, dimension)] = float(mean)
    return out


def test_pinned_expert_ratings_reproduce_67_of_table3s_68_cells(mirror_dir: Path) -> None:
    printed = summeval_paper.table3()
    assert len(printed) == 68 and printed["system_id"].nunique() == 17
    ours = _independent_means(mirror_dir)
    misses = [
        (r.system_id, r.dimension, round(ours[(r.system_id, r.dimension)], 3), r.value)
        for r in printed.itertuples()
        if abs(ours[(r.system_id, r.dimension)] - r.value) > 0.005 + 1e-12
    ]
    assert misses == [("M15", "consistency", 4.937, 4.95)]
    # the toolkit's table says the same, from the tidy table of all 17 systems
    experts = load_metriceval_experts(
        mirror_dir / get_source("metriceval_scores").relpath, annotated=True
    )
    compared = compare_with_printed(system_means(experts), printed)
    assert compared["reproduces"].sum() == 67
    (miss,) = compared[~compared["reproduces"]].itertuples()
    assert (miss.system_id, miss.dimension) == ("M15", "consistency")
    keys = zip(compared["system_id"], compared["dimension"], strict=True)
    np.testing.assert_allclose(compared["ours"], [ours[key] for key in keys])
    assert (compared["n_summaries"] == 100).all()


def test_a_printed_system_without_ratings_is_an_error() -> None:
    means = pd.DataFrame({"system_id": ["M0"], "dimension": ["coherence"], "mean": [3.0]})
    means = means.assign(n_summaries=100)
    printed = pd.DataFrame(
        {"system_id": ["M0", "M1"], "system": ["a", "b"], "dimension": ["coherence"] * 2}
    ).assign(value=3.0)
    with pytest.raises(ValueError, match=r"no expert ratings of printed system\(s\) \['M1'\]"):
        compare_with_printed(means, printed)
