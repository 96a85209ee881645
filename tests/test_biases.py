"""Length correlations, partial Spearman and split-half reliability
(geval_repro.stats.biases) against independent computations: the residuals of ranks
regressed on the third variable, scipy's Spearman per document averaged by hand (the summary
level), scipy's Spearman on the halves by hand, and the Spearman-Brown formula by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from geval_repro.stats.biases import length_at_level, spearman_brown, split_half


def _residual_partial(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> float:
    """The partial Spearman correlation as the Pearson correlation of the residuals of the
    ranks of x and y regressed on the ranks of z (an independent computation)."""
    ranks = [scipy_stats.rankdata(v) for v in (x, y, z)]
    design = np.column_stack([np.ones(len(x)), ranks[2]])
    residuals = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in ranks[:2]]
    if min(np.linalg.norm(r) for r in residuals) < 1e-9:
        return float("nan")  # x or y a function of z: nothing left to correlate
    return float(np.corrcoef(*residuals)[0, 1])


def test_partial_spearman_equals_the_residuals_correlation() -> None:
    rng = np.random.default_rng(0)
    z = rng.normal(size=200)
    x = z + rng.normal(size=200)
    y = 0.5 * z + x + rng.normal(size=200)
    r_xz, r_yz, partial, n = length_at_level(x[None], y[None], z[None], "global")
    assert partial == pytest.approx(_residual_partial(x, y, z)) and n == 1
    assert r_xz == pytest.approx(scipy_stats.spearmanr(x, z).statistic)
    assert r_yz == pytest.approx(scipy_stats.spearmanr(y, z).statistic)


def test_partial_spearman_edge_cases() -> None:
    assert math.isnan(length_at_level([[1, 2]], [[1, 2]], [[1, 2]], "global")[2])
    constant = length_at_level([[1, 2, 3, 4]], [[4, 1, 3, 2]], [[5, 5, 5, 5]], "global")
    assert math.isnan(constant[2]) and constant[3] == 0


def test_length_within_documents_is_the_mean_of_each_documents_by_brute_force() -> None:
    """Summary level: per document (column), scipy's Spearman over its systems and the
    residuals' partial correlation, averaged over the documents that have them; a document
    whose length is constant has no length correlation and no partial one, a missing cell
    drops its system from all three."""
    rng = np.random.default_rng(3)
    n_systems, n_docs = 8, 12
    length = rng.integers(20, 90, (n_systems, n_docs)).astype(float)
    judge = length / 20 + rng.normal(size=(n_systems, n_docs))
    human = rng.integers(1, 6, (n_systems, n_docs)).astype(float) + judge / 2
    length[:, 4] = 50.0  # constant length: skipped
    judge[2, 7] = np.nan  # one missing cell
    r_j, r_h, partials = [], [], []
    for d in range(n_docs):
        keep = ~np.isnan(judge[:, d])
        x, y, z = judge[keep, d], human[keep, d], length[keep, d]
        if np.ptp(z) == 0:
            continue
        r_j.append(scipy_stats.spearmanr(x, z).statistic)
        r_h.append(scipy_stats.spearmanr(y, z).statistic)
        partials.append(_residual_partial(x, y, z))
    got = length_at_level(judge, human, length, "summary")
    assert got[0] == pytest.approx(np.mean(r_j))
    assert got[1] == pytest.approx(np.mean(r_h))
    assert got[2] == pytest.approx(np.mean(partials))
    assert got[3] == n_docs - 1
    # not the pooled values
    pooled = length_at_level(
        judge.reshape(1, -1), human.reshape(1, -1), length.reshape(1, -1), "global"
    )
    assert abs(pooled[0] - got[0]) > 1e-3


def test_split_half_by_hand() -> None:
    scores = np.array(
        [[1, 2, 1, 2], [3, 3, 4, 4], [5, 4, 5, 5], [2, 2, 2, np.nan], [4, np.nan, np.nan, np.nan]],
        dtype=float,
    )
    r, corrected, n = split_half(scores)
    even = [1, 3.5, 5, 2]
    odd = [2, 3.5, 4.5, 2]
    expected = scipy_stats.spearmanr(even, odd).statistic
    assert n == 4 and r == pytest.approx(expected)
    assert corrected == pytest.approx(2 * expected / (1 + expected))
    assert spearman_brown(0.5) == pytest.approx(2 / 3)


def test_the_bias_table_takes_length_within_documents_on_summeval() -> None:
    """The table's length correlations at SummEval's summary level: per document over its
    systems (scipy), averaged by hand; a labelled fixture of 5 documents x 6 systems, the
    judge scoring coherence only."""
    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.tables.biases import bias_rows
    from geval_repro.tables.paired_tests import Scored

    benchmark = get_benchmark("summeval")
    rng = np.random.default_rng(5)
    docs, systems = [f"d{i}" for i in range(5)], [f"M{j}" for j in range(6)]
    rows = []
    for d, doc in enumerate(docs):
        for s, system in enumerate(systems):
            words = 10 + 7 * s + 3 * d + int(rng.integers(0, 5))
            rows.append(
                {
                    "doc_id": doc,
                    "system_id": system,
                    "system_output": " ".join(["w"] * words),
                    **{dim: float(rng.integers(1, 6)) for dim in benchmark.human_dimensions},
                    "_words": words,
                }
            )
    tidy = pd.DataFrame(rows)
    tidy["_judge"] = tidy["_words"] / 10 + rng.normal(size=len(tidy))
    judge = Scored(
        "fixture-judge",
        "v",
        "judge",
        "fixture",
        {"coherence": tidy[["doc_id", "system_id"]].assign(score=tidy["_judge"])},
    )
    out = bias_rows(benchmark, tidy.drop(columns=["_words"]), [judge], {"fixture-judge": None})
    row = out.set_index("dimension").loc["coherence"]
    r_j, r_h, partials = [], [], []
    for _, doc in tidy.groupby("doc_id"):
        x, y, z = (doc[c].to_numpy(dtype=float) for c in ("_judge", "coherence", "_words"))
        r_j.append(scipy_stats.spearmanr(x, z).statistic)
        if np.ptp(y) > 0:
            r_h.append(scipy_stats.spearmanr(y, z).statistic)
            partials.append(_residual_partial(x, y, z))
    # one document's judge scores rise with its lengths exactly: no partial correlation there
    assert np.isnan(partials).sum() == 1
    partials = [p for p in partials if not np.isnan(p)]
    assert row["level"] == "summary"
    assert row["length_judge"] == pytest.approx(np.mean(r_j))
    assert row["length_human"] == pytest.approx(np.mean(r_h))
    assert row["partial"] == pytest.approx(np.mean(partials))
    assert row["n_groups"] == len(partials) and row["n_items"] == 30
    assert "within each document" in row["note"]
