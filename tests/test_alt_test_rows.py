"""The alternative annotator test's rows (geval_repro.tables.alt_test) on a labelled
synthetic panel of SummEval's shape (a fixture, not SummEval's data): reference rows, the
isotonic map for a metric off the raters' scale, a metric on too few items, the constant's
caveat. The values themselves are tested in tests/test_alt_test.py against known answers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.stats.alt_test import alternative_annotator_test
from geval_repro.tables.alt_test import NOT_APART, alt_test_rows
from geval_repro.tables.paired_tests import Scored

SUMMEVAL = get_benchmark("summeval")


def _panel(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """40 documents x 4 systems, 3 annotators, coherence only; and the items' mean rating."""
    rng = np.random.default_rng(seed)
    items = pd.DataFrame(
        [(f"d{d}", f"M{s}") for d in range(40) for s in range(4)], columns=["doc_id", "system_id"]
    )
    quality = rng.integers(1, 6, size=len(items))
    long = []
    for annotator in (1, 2, 3):
        ratings = np.clip(quality + rng.integers(-1, 2, size=len(items)), 1, 5)
        long.append(items.assign(annotator=annotator, dimension="coherence", score=ratings))
    annotators = pd.concat(long, ignore_index=True)
    mean = annotators.groupby(["doc_id", "system_id"])["score"].mean().rename("score")
    return annotators, mean.reset_index()


def test_rows_of_a_panel() -> None:
    annotators, mean = _panel()
    on_scale = Scored("jury", "mean", "judge", "fixture", {"coherence": mean})
    transformed = mean.assign(score=np.exp(mean["score"]))  # off the raters' scale
    off_scale = Scored("exp-jury", "mean", "judge", "fixture", {"coherence": transformed})
    few = Scored("few", "mean", "judge", "fixture", {"coherence": mean.head(2)})
    specs = {
        "jury": SimpleNamespace(scale="raw"),
        "exp-jury": SimpleNamespace(scale="rank-normal"),
        "few": SimpleNamespace(scale="raw"),
    }
    rows = alt_test_rows(
        SUMMEVAL, annotators, [on_scale, off_scale, few], specs, epsilon=0.2, seed=1
    ).set_index("metric")
    assert list(rows.index[:2]) == ["random rating", "constant (median rating = 3)"]
    assert (rows["epsilon"] == 0.2).all() and (rows["n_annotators"] == 3).all()
    # the jury on the raters' scale: every item, and the optimal-jury result
    assert rows.loc["jury", "n_items"] == 160 and rows.loc["jury", "omega"] == 1.0
    assert rows.loc["jury", "scale"] == "raters' scale"
    # off the scale: mapped on half the documents, tested on the other half only
    assert rows.loc["exp-jury", "n_items"] == 80
    assert (
        "isotonic map onto 1-5 (rank-normal scores), fitted on 20 of its documents"
        in (rows.loc["exp-jury", "scale"])
    )
    # on fewer than 3 items: no value, and the note says why
    assert np.isnan(rows.loc["few", "omega"]) and "(< 3)" in rows.loc["few", "note"]
    # the random rating loses; the constant's verdict is carried by every row
    assert rows.loc["random rating", "omega"] == 0.0
    constant = rows.loc["constant (median rating = 3)"]
    assert (rows["constant_passes"] == bool(constant["passed"])).all()
    assert all((NOT_APART in note) == bool(constant["passed"]) for note in rows["note"])
    # the constant's value is the statistic's on the panel (the rows add no arithmetic)
    wide = annotators.pivot(index=["doc_id", "system_id"], columns="annotator", values="score")
    direct = alternative_annotator_test(np.full(len(wide), 3.0), wide.to_numpy(float), 0.2)
    assert constant["omega"] == direct.omega and constant["rho"] == direct.rho
