"""The permutation test decides ties on each metric's own scores (issue 17; module docstring
of geval_repro.stats.permutation, "Ties").

Known answers: standardizing never inverts an order (checked on adversarial values); a
hand-made example whose raw-distinct near-zero scores merge once centred, with the p-value
over all 2^n swaps enumerated by brute force (scipy's ranks of the standardized scores);
BLEU-4 against ROUGE-L on the mirrored Topical-Chat against nlpstats' permutation test; and
the committed results tables, whose differences are their two values' differences.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from nlpstats.correlations import permutation_test as nlpstats_permutation_test
from scipy import stats

from geval_repro.registry.sources import REPO_ROOT
from geval_repro.stats.levels import correlate, correlate_batch
from geval_repro.stats.permutation import (
    document_side,
    document_test,
    paired_permutation_test,
    tie_codes,
)
from geval_repro.stats.tie_rule import collapse_near_ties

TABLES = REPO_ROOT / "results" / "tables"
SCIPY = {"spearman": stats.spearmanr, "kendall": stats.kendalltau}


def standardized(x: np.ndarray) -> np.ndarray:
    return (x - np.nanmean(x)) / np.nanstd(x)


def test_standardizing_never_inverts_an_order_and_can_create_ties() -> None:
    """``fl(x - mean)`` and ``fl(y / sd)`` are monotone: sorted raw scores stay sorted (equal
    floats allowed), on values a few ulps apart and near-zero ones beside large ones."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        tiny = 10.0 ** rng.uniform(-18, -8, 40)
        close = 0.3 + np.cumsum(rng.integers(0, 3, 40)) * np.spacing(0.3)
        x = np.sort(np.concatenate([tiny, close, rng.uniform(-1, 1, 40), [0.0, -0.0]]))
        z = standardized(x)
        assert (np.diff(z) >= 0).all()
    x = np.array([1e-18, 2e-18, 0.3, 0.6])  # distinct raw scores, one float once centred
    z = standardized(x)
    assert x[0] < x[1] and z[0] == z[1] and z[1] < z[2] < z[3]


def hand_made() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row of 9 items: A's near-zero scores are distinct under the near-tie rule on the
    raw scale but within 1e-9 relative of each other once standardized."""
    a = np.array([[1e-17, 1e-12, 3e-12, 0.30, 0.31, 0.33, 0.36, 0.40, 0.45]])
    b = np.array([[0.2, 0.1, 0.35, 0.3, 0.25, 0.5, 0.4, 0.45, 0.6]])
    human = np.array([[1.0, 3.0, 2.0, 1.0, 3.0, 2.0, 4.0, 5.0, 4.0]])
    return a, b, human


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_hand_made_example_against_every_swap(coefficient) -> None:
    a, b, human = hand_made()
    za, zb = standardized(a), standardized(b)
    # the example is the case at issue: raw-distinct, merged after centring by the rule
    assert np.unique(collapse_near_ties(a[0], 1e-9)).size == 9
    assert np.unique(collapse_near_ties(za[0], 1e-9)).size < 9
    assert np.unique(za).size == 9 and np.unique(np.concatenate([za, zb])).size == 18
    scipy_corr = SCIPY[coefficient]
    h = human[0]

    def difference(mask: np.ndarray) -> float:
        """scipy on the swapped standardized scores (exact-equality ranks: here they are the
        rule's, as no two standardized values collide)."""
        x, y = np.where(mask, zb[0], za[0]), np.where(mask, za[0], zb[0])
        return scipy_corr(x, h).statistic - scipy_corr(y, h).statistic

    observed = scipy_corr(a[0], h).statistic - scipy_corr(b[0], h).statistic
    result = paired_permutation_test(a, b, human, "global", coefficient, n_resamples=4000, seed=3)
    assert result.statistic == pytest.approx(observed, abs=1e-12)
    merged = (
        correlate(za, human, "global", coefficient).value
        - correlate(zb, human, "global", coefficient).value
    )
    assert abs(merged - observed) > 1e-3  # the old rule's observed statistic was wrong
    # the test's draws, recomputed with scipy
    masks = np.random.default_rng(3).random((4000, 9)) < 0.5
    want = np.array([difference(mask) for mask in masks])
    np.testing.assert_allclose(result.distribution, want, rtol=0, atol=1e-12)
    # exact p-value over all 2^9 swaps (the test's p-value estimates it)
    every = np.array([difference(np.array(m)) for m in itertools.product([False, True], repeat=9)])
    exact = np.mean(np.abs(every) >= abs(observed) - 1e-12)
    assert 0.05 < exact < 0.95
    assert abs(result.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000)


def reference_keys(raw: np.ndarray, scores: np.ndarray) -> list[tuple[float, float]]:
    """Per value of one vector: (z of its raw near-tie cluster, its place among the
    clusters standardizing to the same float), by plain loops."""
    clusters = collapse_near_ties(raw, 1e-9)
    mean, sd = np.nanmean(scores), np.nanstd(scores)
    z = {r: (r - mean) / sd for r in set(clusters.tolist())}
    same: dict[float, list[float]] = {}
    for r in sorted(z):
        same.setdefault(z[r], []).append(r)
    place = {r: rs.index(r) - (len(rs) - 1) / 2 for rs in same.values() for r in rs}
    return [(z[r], place[r]) for r in clusters.tolist()]


def test_tie_codes_keep_each_metrics_raw_ties_and_order() -> None:
    """Codes of every input (summary level): A's and B's order and ties are those of their
    raw clusters, A against B those of the standardized keys (also with two raw clusters
    standardizing to one float), computed apart by loops."""
    rng = np.random.default_rng(4)
    a = np.where(rng.random((6, 5)) < 0.5, 10.0 ** rng.uniform(-17, -10, (6, 5)), 0.3)
    a[0, 0], a[1, 0], a[2, 0] = 1e-17, 2e-17, 1e-17 * (1 + 1e-12)  # a collision, a near-tie
    b = np.round(rng.uniform(0, 1, (6, 5)), 1)
    human = rng.integers(1, 4, (6, 5)) / 1.0
    codes_a, codes_b = tie_codes(a, b, human, "summary")
    for j in range(5):
        keys = reference_keys(a[:, j], a) + reference_keys(b[:, j], b)
        codes = np.concatenate([codes_a[:, j], codes_b[:, j]])
        for (p, kp), (q, kq) in itertools.combinations(zip(codes, keys, strict=True), 2):
            assert np.sign(p - q) == int(kp > kq) - int(kp < kq)
    assert codes_a[0, 0] == codes_a[2, 0] < codes_a[1, 0]  # near-tie merged, collision kept


def reference_codes(a: np.ndarray, b: np.ndarray, level: str) -> tuple[np.ndarray, np.ndarray]:
    """Dense ranks of :func:`reference_keys` pooled over A and B per vector (no NaN)."""
    if level == "global":
        vectors = [(a.ravel(), b.ravel(), np.s_[:, :])]
    else:
        vectors = [(a[:, j], b[:, j], np.s_[:, j]) for j in range(a.shape[1])]
    codes_a, codes_b = np.empty(a.shape), np.empty(b.shape)
    for x, y, where in vectors:
        keys = reference_keys(x, a) + reference_keys(y, b)
        rank = {k: i for i, k in enumerate(sorted(set(keys)))}
        ranks = np.array([rank[k] for k in keys], dtype=float)
        codes_a[where] = ranks[: x.size].reshape(codes_a[where].shape)
        codes_b[where] = ranks[x.size :].reshape(codes_b[where].shape)
    return codes_a, codes_b


@pytest.mark.parametrize("level", ["global", "summary"])
@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_the_test_ranks_swapped_scores_by_the_rule(level, coefficient) -> None:
    """The distribution equals recomputing every swapped matrix of reference codes."""
    rng = np.random.default_rng(5)
    shape = (6, 8)
    human = rng.integers(1, 4, shape) / 1.0
    a = np.where(rng.random(shape) < 0.5, 10.0 ** rng.uniform(-17, -10, shape), 0.3)
    a = np.where(rng.random(shape) < 0.5, a, rng.uniform(0.1, 0.5, shape))
    b = np.round(human + rng.normal(0, 1, shape), 1)
    result = paired_permutation_test(a, b, human, level, coefficient, n_resamples=60, seed=6)
    ref_a, ref_b = reference_codes(a, b, level)
    masks = np.random.default_rng(6).random((60, *shape)) < 0.5
    if level == "summary":
        masks = np.broadcast_to(np.random.default_rng(6).random((60, 1, 8)) < 0.5, (60, *shape))
    want = (
        correlate_batch(np.where(masks, ref_b, ref_a), human, level, coefficient).value
        - correlate_batch(np.where(masks, ref_a, ref_b), human, level, coefficient).value
    )
    np.testing.assert_array_equal(result.distribution, want)
    observed = (
        correlate(a, human, level, coefficient).value
        - correlate(b, human, level, coefficient).value
    )
    assert result.statistic == observed  # the raw scores' floats


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
def test_one_side_per_metric_serves_every_pair_at_the_summary_level(coefficient) -> None:
    """Summary level, whole documents swapped: each metric's side is made once and reused
    in every pair it is in, as A or as B; each pair's distribution equals recomputing every
    swapped matrix of the pair's reference codes (Pearson: of the standardized scores), its
    statistic the raw scores' difference."""
    rng = np.random.default_rng(8)
    shape = (7, 9)
    human = rng.integers(1, 4, shape) / 1.0
    near_zero = np.where(rng.random(shape) < 0.5, 10.0 ** rng.uniform(-17, -10, shape), 0.3)
    rounded = np.round(human + rng.normal(0, 1, shape), 1)
    constant_input = np.round(human + rng.normal(0, 2, shape))
    constant_input[:, 2] = 4.0  # kept or not as the input moves between A and B
    metrics = {"near_zero": near_zero, "rounded": rounded, "constant_input": constant_input}
    missing = rng.random(shape) < 0.1
    for matrix in (human, *metrics.values()):
        matrix[missing] = np.nan
    sides = {name: document_side(m, human, coefficient) for name, m in metrics.items()}
    masks = np.broadcast_to(np.random.default_rng(3).random((80, 1, 9)) < 0.5, (80, *shape))
    for (name_a, a), (name_b, b) in itertools.permutations(metrics.items(), 2):
        result = document_test(sides[name_a], sides[name_b], n_resamples=80, seed=3)
        if coefficient == "pearson":
            ref_a, ref_b = standardized(a), standardized(b)
        else:
            # reference_codes reads no NaN: a missing cell takes a present value of its
            # input (a duplicate joins that value's cluster, bridging none), then is dropped
            ref_a, ref_b = reference_codes(
                np.where(missing, np.nanmax(a, axis=0), a),
                np.where(missing, np.nanmax(b, axis=0), b),
                "summary",
            )
            ref_a[missing], ref_b[missing] = np.nan, np.nan
        want = (
            correlate_batch(np.where(masks, ref_b, ref_a), human, "summary", coefficient).value
            - correlate_batch(np.where(masks, ref_a, ref_b), human, "summary", coefficient).value
        )
        if coefficient == "pearson":
            np.testing.assert_allclose(result.distribution, want, rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(result.distribution, want, err_msg=name_a + name_b)
        observed = (
            correlate(a, human, "summary", coefficient).value
            - correlate(b, human, "summary", coefficient).value
        )
        assert result.statistic == observed, (name_a, name_b)
        alone = paired_permutation_test(a, b, human, "summary", coefficient, n_resamples=80, seed=3)
        np.testing.assert_array_equal(alone.distribution, result.distribution)


def test_a_side_that_cannot_be_tested_is_named() -> None:
    human = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="metric_b is constant over its present cells"):
        document_side(np.ones((3, 4)), human, "kendall", "metric_b")
    side = document_side(human, human, "kendall")
    with pytest.raises(ValueError, match="read-only"):
        side.added[0] = 0.5  # the pairs that share it would see the change
    with pytest.raises(ValueError, match="differ in coefficient"):
        document_test(side, document_side(human, human, "spearman"), seed=0)


@pytest.fixture(scope="module")
def topical_chat_bleu_rouge(mirror_dir: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BLEU-4 and ROUGE-L of the 300 non-ground-truth responses (the pipeline's protocol)
    and the engagingness means, as one row."""
    from geval_repro.baselines.bleu import sentence_bleu
    from geval_repro.baselines.references import GROUND_TRUTH_SYSTEM, topical_chat_references
    from geval_repro.baselines.rouge import rouge_f
    from geval_repro.load.topical_chat import load_topical_chat
    from geval_repro.registry.sources import get_source

    table = load_topical_chat(
        mirror_dir / get_source("topical_chat").relpath,
        mirror_dir / get_source("unieval_pred_topical_chat").relpath,
    )
    table["reference"] = topical_chat_references(table)
    table = table.loc[table["system_id"] != GROUND_TRUTH_SYSTEM]
    responses, references = table["response"].tolist(), table["reference"].tolist()
    bleu = sentence_bleu(responses, references, smooth_method="coco", tokenize="none")
    rouge = rouge_f(responses, references, "rougeL", tokenizer="whitespace", beta=1.2)
    human = table["engagingness"].to_numpy()
    return np.asarray(bleu)[None, :], np.asarray(rouge)[None, :], human[None, :]


@pytest.mark.slow
@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_bleu4_against_rouge_l_on_topical_chat_agrees_with_nlpstats(
    topical_chat_bleu_rouge, coefficient
) -> None:
    """nlpstats standardizes and ranks by exact equality (no merge of BLEU-4's near-zero
    scores): its p-value and ours agree within Monte Carlo error (2,000 resamples each)."""
    bleu, rouge, human = topical_chat_bleu_rouge
    assert correlate(bleu, human, "global", "spearman").value == pytest.approx(0.316, abs=5e-4)
    ours = paired_permutation_test(
        bleu, rouge, human, "global", coefficient, n_resamples=2000, seed=1
    )
    np.random.seed(2)  # noqa: NPY002 - nlpstats only reads the legacy global state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = nlpstats_permutation_test(
            bleu, rouge, human, "global", coefficient, "inputs", n_resamples=2000
        )
    scipy_corr = SCIPY[coefficient]
    observed = scipy_corr(bleu[0], human[0]).statistic - scipy_corr(rouge[0], human[0]).statistic
    observed = (
        correlate(bleu, human, "global", coefficient).value
        - correlate(rouge, human, "global", coefficient).value
    )
    assert ours.statistic == observed  # the table's values (BLEU-4's raw near-ties merged)
    p = theirs.pvalue
    assert abs(ours.pvalue - p) < 4 * np.sqrt(2 * p * (1 - p) / 2000)
    assert ours.pvalue > 0.5  # the merged rule gave 0.231 (Spearman), 0.112 (Kendall)


def test_committed_differences_are_their_values_differences() -> None:
    """Every row of the committed judge-vs-judge and judge-vs-baseline tables."""
    pairs = pd.read_csv(TABLES / "pairwise_significance.csv")
    tested = pairs["difference"].notna()
    assert tested.sum() > 0
    np.testing.assert_array_equal(
        pairs.loc[tested, "difference"], (pairs["value_a"] - pairs["value_b"])[tested]
    )
    baselines = pd.read_csv(TABLES / "significance_vs_baseline.csv")
    tested = baselines["difference"].notna()
    assert tested.sum() > 0
    np.testing.assert_array_equal(
        baselines.loc[tested, "difference"],
        (baselines["value_judge"] - baselines["baseline_value"])[tested],
    )
