"""Metric vs metric on binary labels (geval_repro.tables.binary_rankings), on a labelled
synthetic SummEdits-shaped table (not SummEdits' data): the item sets of partial runs, the
pairs' paired bootstrap (the same draws for every metric on the same items, checked against
the mean of the domains' statistics recomputed on each draw by hand), Holm and clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.registry.benchmarks import SUMMEDITS_DOMAINS, get_benchmark
from geval_repro.stats.binary import document_weights
from geval_repro.tables.binary_labels import domain_means
from geval_repro.tables.binary_rankings import Labelled, binary_rankings, item_sets

SUMMEDITS = get_benchmark("summedits")


def _table(documents: int = 8, seed: int = 0) -> pd.DataFrame:
    """Per domain: 6 evaluation items on one document, and ``documents`` test documents of
    4 summaries each, 2 consistent and 2 not."""
    rows = []
    for domain in SUMMEDITS_DOMAINS:
        rows += [(f"{domain}-e{i}", domain, "evaluation", f"{domain}-E", i % 2) for i in range(6)]
        rows += [
            (f"{domain}-t{d}-{i}", domain, "test", f"{domain}-D{d}", i % 2)
            for d in range(documents)
            for i in range(4)
        ]
    return pd.DataFrame(rows, columns=["item_id", "domain", "split", "doc_id", "label"])


def _metrics(table: pd.DataFrame) -> list[Labelled]:
    rng = np.random.default_rng(4)
    label = table["label"].to_numpy(dtype=float)
    oracle = label + rng.normal(0, 0.2, len(table))
    return [
        Labelled("oracle", "v", "fixture", oracle),
        Labelled("twin", "v", "fixture", oracle + rng.normal(0, 0.01, len(table))),
        Labelled("noise", "v", "fixture", rng.normal(0, 1, len(table))),
    ]


def test_domain_means_resample_as_by_hand() -> None:
    """The mean over domains of ROC AUC on each draw equals the domains' weighted AUC
    recomputed by hand from the same generator's document weights (drawn domain after
    domain), and the value equals scipy's Mann-Whitney U per domain, averaged."""
    table = _table(documents=3)
    scores = _metrics(table)[2].scores
    value, draws = domain_means(table, SUMMEDITS, scores, 20, 7)["roc_auc"]
    rng = np.random.default_rng(7)
    per_domain, values = [], []
    for domain in SUMMEDITS_DOMAINS:
        tested = ((table["domain"] == domain) & (table["split"] == "test")).to_numpy()
        truth, x = table["label"].to_numpy()[tested], scores[tested]
        weights = document_weights(table["doc_id"].to_numpy()[tested], 20, rng)
        u = stats.mannwhitneyu(x[truth == 1], x[truth == 0]).statistic
        values.append(u / ((truth == 1).sum() * (truth == 0).sum()))
        pos, neg = np.flatnonzero(truth == 1), np.flatnonzero(truth == 0)
        wins = (x[pos][:, None] > x[neg][None, :]) + 0.5 * (x[pos][:, None] == x[neg][None, :])
        pair_weights = weights[:, pos][:, :, None] * weights[:, neg][:, None, :]
        per_domain.append((pair_weights * wins).sum(axis=(1, 2)) / pair_weights.sum(axis=(1, 2)))
    assert value == pytest.approx(np.mean(values))
    np.testing.assert_allclose(draws, np.mean(per_domain, axis=0), rtol=1e-12)


def test_item_sets_rank_partial_runs_on_their_items() -> None:
    table = _table(documents=2)
    full = _metrics(table)
    partial = full[0].scores.copy()
    partial[::3] = np.nan
    sets = item_sets([*full, Labelled("run", "first", "toolkit-run", partial)])
    assert [name for name, _, _ in sets] == [
        "full",
        f"partial: run, {np.isfinite(partial).sum()} items",
    ]
    _, mask, members = sets[1]
    assert [m.metric for m in members] == ["run", "oracle", "twin", "noise"]
    for m in members:
        np.testing.assert_array_equal(np.isfinite(m.scores), mask)


def test_a_faithful_metric_and_its_twin_share_the_top_cluster() -> None:
    table = _table()
    result = binary_rankings(table, SUMMEDITS, "consistency", _metrics(table), 400, 2)
    for statistic in ("roc_auc", "balanced_accuracy"):
        ranking = result.rankings[result.rankings["statistic"] == statistic].set_index("metric")
        assert ranking.loc["noise", "position"] == 3
        assert ranking.loc["oracle", "cluster"] == ranking.loc["twin", "cluster"] == 1
        assert ranking.loc["noise", "cluster"] == 2
        pairs = result.pairs[result.pairs["statistic"] == statistic]
        versus = pairs[pairs["metric_b"] == "noise"]
        assert len(pairs) == 3 and (versus["pvalue_holm"] <= 0.05).all()
        assert (pairs.loc[pairs["metric_b"] != "noise", "pvalue_holm"] > 0.05).all()
        # the value is the mean over domains of domain_means
        oracle = domain_means(table, SUMMEDITS, _metrics(table)[0].scores, 400, 2)[statistic][0]
        assert ranking.loc["oracle", "value"] == oracle


def test_too_few_resamples_say_unresolved() -> None:
    table = _table(documents=3)
    result = binary_rankings(table, SUMMEDITS, "consistency", _metrics(table), 30, 2)
    assert result.rankings["note"].str.contains("UNRESOLVED").all()
    assert set(result.rankings["cluster"]) == {1}
