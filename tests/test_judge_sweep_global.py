"""The sweep at the global level (Topical-Chat turn level, QAGS dataset level) vs scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from geval_repro.scoring.sweep import sweep

SCIPY = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}


def _naturalness_replies(text: np.ndarray) -> pd.DataFrame:
    """Replies of judge "j" on Topical-Chat naturalness: ``text[item, reply]``."""
    n_items, n_replies = text.shape
    return pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "topical_chat",
            "dimension": "naturalness",
            "item_id": np.repeat(np.arange(n_items), n_replies),
            "reply_index": np.tile(np.arange(n_replies), n_items),
            "reply": text.ravel(),
        }
    )


def test_first_n_curve_is_the_pooled_correlation_of_prefix_means() -> None:
    rng = np.random.default_rng(0)
    n_items, n_replies = 15, 4
    ratings = rng.integers(1, 4, (n_items, n_replies))  # Topical-Chat naturalness: 1-3
    human = pd.DataFrame({"item_id": np.arange(n_items), "naturalness": rng.uniform(1, 3, n_items)})
    replies = _naturalness_replies(ratings.astype(str))
    table = sweep(replies, human, seed=1, draws=5, parsers=["tolerant"], modes=["first"])
    for n in range(1, n_replies + 1):
        means = ratings[:, :n].mean(axis=1)
        for coefficient, function in SCIPY.items():
            got = table[(table["n"] == n) & (table["coefficient"] == coefficient)]["value"]
            assert got.iloc[0] == pytest.approx(function(means, human["naturalness"])[0], abs=1e-9)
    # a reply outside Topical-Chat's 1-3 scale is left out by the tolerant parser
    replies.loc[0, "reply"] = "5"
    table = sweep(replies, human, seed=1, draws=5, parsers=["tolerant"], modes=["first"])
    first = ratings[:, 0].astype(float)
    first[0] = np.nan
    kept = ~np.isnan(first)
    got = table[(table["n"] == 1) & (table["coefficient"] == "pearson")]["value"].iloc[0]
    assert got == pytest.approx(sps.pearsonr(first[kept], human["naturalness"][kept])[0], abs=1e-9)


def test_random_tie_rate_counts_pairs_within_each_draw_only() -> None:
    # 4 items x 2 replies; every draw of n = 1 picks one reply per item. Item ratings are
    # chosen so that within any draw no two items tie (items 0, 1 rate only 1 or 2 and 3;
    # items 2, 3 only 4 or 5 and 6 on a 1-... scale is not allowed: use groundedness 0-1 and
    # naturalness 1-3 instead), so a count over draws finds no tie, while pairs across
    # draws would tie (the same item's reply in two draws).
    ratings = np.array([[1, 1], [2, 2], [3, 3], [3, 3]])  # items 2 and 3 always tie
    human = pd.DataFrame({"item_id": np.arange(4), "naturalness": [1.0, 2.0, 2.5, 3.0]})
    replies = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "topical_chat",
            "dimension": "naturalness",
            "item_id": np.repeat(np.arange(4), 2),
            "reply_index": np.tile(np.arange(2), 4),
            "reply": ratings.astype(str).ravel(),
        }
    )
    table = sweep(replies, human, seed=3, draws=7, parsers=["tolerant"], modes=["random"])
    # Hand count: each draw has C(4, 2) = 6 pairs of which exactly one (items 2, 3) ties.
    rates = table[table["n"] == 1]["tie_rate"].unique()
    assert rates == pytest.approx([1 / 6])


def test_global_sweep_equals_a_draw_by_draw_recomputation_bit_for_bit() -> None:
    """Every row of both modes equals, exactly, a recomputation one draw and one n at a time:
    direct rounded means, ``correlate`` and ``tie_rate`` on each draw's row of items (the
    sweep codes the means and counts each code once per draw; this reference does not)."""
    import warnings

    from geval_repro.scoring.item_scores import round_mean
    from geval_repro.scoring.sweep import random_permutations, run_seed
    from geval_repro.stats import correlate
    from geval_repro.stats.ties import tie_rate

    rng = np.random.default_rng(8)
    n_items, n_replies, draws = 90, 6, 4  # 90 items: Kendall's reference uses tables
    gold = np.round(rng.integers(3, 10, n_items) / 3, 12)
    human = pd.DataFrame({"item_id": np.arange(n_items), "naturalness": gold})
    ratings = np.clip(np.rint(gold[:, None] + rng.normal(0, 0.8, (n_items, n_replies))), 1, 3)
    text = ratings.astype(int).astype(str).astype(object)
    text[rng.random(text.shape) < 0.15] = "N/A"
    replies = _naturalness_replies(text)
    coefficients = ("pearson", "spearman", "kendall")
    got = sweep(replies, human, seed=2, draws=draws, coefficients=coefficients)
    seq = run_seed(2, "j", "topical_chat", "naturalness")
    permutations = random_permutations(n_items, n_replies, draws, seq)

    def mean(taken: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all unparsed: NaN
            return round_mean(np.nanmean(taken, axis=1))[None, :]

    numbers = np.where(text == "N/A", "0", text).astype(float)  # "N/A": 0 under original
    parsed = {"original": numbers, "tolerant": np.where(text == "N/A", np.nan, numbers)}
    for parser, values in parsed.items():
        for n in (1, 3, n_replies):
            first = mean(values[:, :n])
            per_draw = [
                mean(np.take_along_axis(values, permutations[d, :, :n], axis=1))
                for d in range(draws)
            ]
            ties = [tie_rate(m, "global") for m in per_draw]
            pooled = sum(t.n_tied_pairs for t in ties) / sum(t.n_pairs for t in ties)
            for coefficient in coefficients:
                rows = got[
                    (got["parser"] == parser)
                    & (got["n"] == n)
                    & (got["coefficient"] == coefficient)
                ].set_index("mode")
                assert (
                    rows.loc["first", "value"]
                    == correlate(first, gold[None, :], "global", coefficient).value
                )
                assert rows.loc["first", "tie_rate"] == tie_rate(first, "global").rate
                each = np.array(
                    [correlate(m, gold[None, :], "global", coefficient).value for m in per_draw]
                )
                assert rows.loc["random", "value"] == each.mean()
                low, high = np.percentile(each, [2.5, 97.5])
                assert (rows.loc["random", "band_low"], rows.loc["random", "band_high"]) == (
                    low,
                    high,
                )
                assert rows.loc["random", "tie_rate"] == pooled
