"""Annotator agreement (geval_repro.human.agreement): SummEval's experts, any annotators."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.human.agreement import annotator_alpha, annotator_mean_scores
from geval_repro.load.metriceval import load_metriceval_experts
from geval_repro.load.summeval import load_summeval
from geval_repro.registry.sources import get_source


def _long(ratings: dict[int, list[int]], dimension: str = "coherence") -> pd.DataFrame:
    return pd.DataFrame(
        [
            ("d0", f"M{unit}", expert, dimension, score)
            for expert, scores in ratings.items()
            for unit, score in enumerate(scores)
        ],
        columns=["doc_id", "system_id", "annotator", "dimension", "score"],
    )


def test_alpha_hand_computed() -> None:
    # Two experts, three summaries: A = 1 2 3, B = 2 3 1; values 1, 2, 3 twice each, n = 6.
    # Interval: D_o = (2*1 + 2*1 + 2*4) / 6 = 2; D_e = sum n_c n_k (c-k)^2 / (n(n-1))
    #   = (2*4*1 + 2*4*4 + 2*4*1) / 30 = 48/30 = 1.6; alpha = 1 - 2/1.6 = -0.25.
    # Ordinal: delta(1,2) = delta(2,3) = (4 - 2)^2 = 4, delta(1,3) = (6 - 2)^2 = 16;
    #   D_o = (8 + 8 + 32) / 6 = 8, D_e = (32 + 128 + 32) / 30 = 6.4; alpha = -0.25.
    row = annotator_alpha(_long({1: [1, 2, 3], 2: [2, 3, 1]})).iloc[0]
    assert row["alpha_interval"] == pytest.approx(-0.25)
    assert row["alpha_ordinal"] == pytest.approx(-0.25)
    assert (row["n_items"], row["n_annotators"]) == (3, 2)
    perfect = annotator_alpha(_long({1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2, 3]})).iloc[0]
    assert perfect["alpha_ordinal"] == pytest.approx(1.0)


def test_duplicate_rating_raises() -> None:
    table = _long({1: [1, 2], 2: [2, 3]})
    with pytest.raises(ValueError, match="more than once"):
        annotator_alpha(pd.concat([table, table.iloc[:1]]))


def test_mean_of_experts_equals_summeval_scores(mirror_dir: Path) -> None:
    # MetricEval's three experts, averaged, give summeval.json's scores exactly.
    experts = load_metriceval_experts(mirror_dir / get_source("metriceval_scores").relpath)
    summeval = load_summeval(mirror_dir / get_source("summeval").relpath)
    means = annotator_mean_scores(experts)
    merged = summeval.merge(means, on=["doc_id", "system_id"], suffixes=("", "_experts"))
    assert len(merged) == 1600
    for dimension in ("coherence", "consistency", "fluency", "relevance"):
        np.testing.assert_allclose(merged[f"{dimension}_experts"], merged[dimension], atol=1e-12)
    alpha = annotator_alpha(experts)
    assert alpha["n_items"].tolist() == [1600] * 4
    assert alpha["n_annotators"].tolist() == [3] * 4


def test_twins_note_names_annotators_who_agree_on_every_item() -> None:
    from geval_repro.human.agreement import TWINS, twins_note

    ratings = pd.DataFrame({1: [1, 2, 3, 4], 2: [2, 2, 5, 4], 3: [2, 2, 5, 4]})
    note = twins_note(ratings)
    assert note.startswith(f"annotators 2 and 3 {TWINS}")
    assert twins_note(ratings.assign(**{"3": [2, 2, 5, 3]}).drop(columns=3)) == ""
    # one item apart is not a twin: every item must agree
    assert twins_note(pd.DataFrame({1: [1, 2, 3], 2: [1, 2, 4], 3: [5, 5, 5]})) == ""
