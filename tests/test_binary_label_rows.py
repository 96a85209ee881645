"""The binary-label rows of SummEdits on the mirror: each domain's ROC AUC against scipy's
Mann-Whitney U on the test split, its balanced accuracy against a brute-force threshold
search on the evaluation split, the average over domains, the bootstrap over documents
against a brute-force resample, and the reference rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.load.benchmarks import load_benchmark
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import get_source
from geval_repro.tables.binary_labels import AVERAGE, COLUMNS, binary_label_rows, reference_scores

BENCHMARK = get_benchmark("summedits")


@pytest.fixture(scope="module")
def table(mirror_dir: Path) -> pd.DataFrame:
    return load_benchmark(
        "summedits", [mirror_dir / get_source(s).relpath for s in BENCHMARK.sources]
    )


def _rows(table: pd.DataFrame, scores: np.ndarray, n_resamples: int = 200) -> pd.DataFrame:
    return binary_label_rows(
        table,
        benchmark=BENCHMARK,
        dimension="consistency",
        metric="length",
        variant="words",
        scores=scores,
        n_resamples=n_resamples,
        seed=5,
    )


def _bacc(s: np.ndarray, y: np.ndarray, t: float, where: np.ndarray) -> float:
    predicted = s >= t
    return (predicted[where & (y == 1)].mean() + (~predicted)[where & (y == 0)].mean()) / 2


def test_values_against_scipy_and_brute_force(table: pd.DataFrame) -> None:
    # A metric with many ties: the summary's length in words.
    scores = table["summary"].str.split().str.len().to_numpy(dtype=float)
    rows = _rows(table, scores).set_index(["domain", "statistic"])
    assert list(_rows(table, scores).columns) == COLUMNS
    aucs, accuracies = [], []
    tied_all = pairs_all = 0
    for domain in BENCHMARK.labels.domains:
        mine = table["domain"] == domain
        fit = (mine & (table["split"] == "evaluation")).to_numpy()
        test = (mine & (table["split"] == "test")).to_numpy()
        y, s = table["label"].to_numpy(), scores
        u = stats.mannwhitneyu(s[test & (y == 1)], s[test & (y == 0)]).statistic
        auc = u / ((test & (y == 1)).sum() * (test & (y == 0)).sum())
        # brute-force threshold: every distinct evaluation score and +inf, lowest best
        candidates = [*sorted(set(s[fit])), np.inf]
        fitted = [_bacc(s, y, t, fit) for t in candidates]
        threshold = candidates[int(np.argmax(fitted))]
        assert rows.loc[(domain, "roc_auc"), "value"] == pytest.approx(auc, abs=1e-12)
        assert rows.loc[(domain, "balanced_accuracy"), "threshold"] == threshold
        accuracy = _bacc(s, y, threshold, test)
        assert rows.loc[(domain, "balanced_accuracy"), "value"] == pytest.approx(
            accuracy, abs=1e-12
        )
        assert rows.loc[(domain, "roc_auc"), "n_items"] == test.sum()
        # tied (consistent, inconsistent) pairs, counted over the outer product
        tied = np.equal.outer(s[test & (y == 1)], s[test & (y == 0)])
        assert rows.loc[(domain, "balanced_accuracy"), "tie_rate"] == tied.mean()
        assert 0 < tied.mean() < 1  # lengths in words tie often, not always
        tied_all, pairs_all = tied_all + tied.sum(), pairs_all + tied.size
        aucs.append(auc)
        accuracies.append(accuracy)
        low, high = rows.loc[(domain, "roc_auc"), ["ci_low", "ci_high"]]
        assert low <= auc <= high
    assert rows.loc[(AVERAGE, "roc_auc"), "value"] == pytest.approx(np.mean(aucs))
    assert rows.loc[(AVERAGE, "balanced_accuracy"), "value"] == pytest.approx(np.mean(accuracies))
    assert rows.loc[(AVERAGE, "roc_auc"), "n_items"] == 3695
    assert rows.loc[(AVERAGE, "roc_auc"), "tie_rate"] == pytest.approx(tied_all / pairs_all)
    assert rows.loc[("qmsumm", "roc_auc"), "n_documents"] == 12


def test_interval_equals_a_brute_force_document_bootstrap(table: pd.DataFrame) -> None:
    scores = table["summary"].str.len().to_numpy(dtype=float)
    rows = _rows(table, scores, n_resamples=40).set_index(["domain", "statistic"])
    # The generator draws each domain's test documents (sorted) in the registry's order.
    rng = np.random.default_rng(5)
    for domain in BENCHMARK.labels.domains:
        test = table[(table["domain"] == domain) & (table["split"] == "test")]
        documents = sorted(test["doc_id"].unique())
        draws = rng.integers(0, len(documents), size=(40, len(documents)))
        values = []
        for draw in draws:
            sample = pd.concat([test[test["doc_id"] == documents[i]] for i in draw])
            y = sample["label"].to_numpy()
            s = sample["summary"].str.len().to_numpy(dtype=float)
            u = stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic
            values.append(u / ((y == 1).sum() * (y == 0).sum()))
        low, high = np.percentile(values, [2.5, 97.5])
        assert rows.loc[(domain, "roc_auc"), "ci_low"] == pytest.approx(low, abs=1e-12)
        assert rows.loc[(domain, "roc_auc"), "ci_high"] == pytest.approx(high, abs=1e-12)


def test_reference_rows_are_at_chance(table: pd.DataFrame) -> None:
    references = reference_scores(table, seed=20231206)
    constant = _rows(table, references["constant (reference)"]).set_index(["domain", "statistic"])
    assert (constant["value"] == 0.5).all()
    assert (constant["tie_rate"] == 1.0).all()  # a constant ties every pair: AUC one half
    random = _rows(table, references["random (reference)"]).set_index(["domain", "statistic"])
    for statistic in ("roc_auc", "balanced_accuracy"):
        low, high = random.loc[(AVERAGE, statistic), ["ci_low", "ci_high"]]
        assert low < 0.5 < high
