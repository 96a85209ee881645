"""acc_eq and acc*_eq in the replies-per-item sweep: every row equals a recomputation one draw
and one n at a time with :func:`pairwise_accuracy` / :func:`tie_calibrated_accuracy` (both
modes, both parsers, summary and global level), and float means give the coded values."""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from geval_repro.scoring import sweep as sweep_module
from geval_repro.scoring.item_scores import round_mean
from geval_repro.scoring.sweep import (
    SWEEP_COEFFICIENTS,
    random_permutations,
    run_seed,
    sweep,
)
from geval_repro.stats.accuracy import pairwise_accuracy, tie_calibrated_accuracy
from geval_repro.stats.registry import ACCURACIES as ACCURACY_COEFFICIENTS
from tests.test_judge_sweep import _pick, _released_parse, _synthetic, _tolerant_parse
from tests.test_judge_sweep_global import _naturalness_replies

EXACT = 1e-12


def _mean(taken: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nothing parsed: NaN
        return round_mean(np.nanmean(taken, axis=1))


def _summeval_case():
    """SYNTHETIC SummEval coherence replies (12 documents x 8 systems x 20 replies, some
    unparsed): matrix builder, parsed values per parser, human matrix, run keys."""
    replies, human = _synthetic(13)
    ordered = replies.sort_values(["doc_id", "system_id", "reply_index"])
    items = ordered.loc[ordered["reply_index"] == 0, ["doc_id", "system_id"]].reset_index(drop=True)
    gold = items.merge(human, on=["doc_id", "system_id"]).pivot(
        index="system_id", columns="doc_id", values="coherence"
    )

    def matrix(scores: np.ndarray) -> np.ndarray:
        table = items.assign(m=scores).pivot(index="system_id", columns="doc_id", values="m")
        return table.loc[gold.index, gold.columns].to_numpy()

    parsed = {
        parser: np.array([parse(r) for r in ordered["reply"]]).reshape(len(items), 20)
        for parser, parse in (("original", _released_parse), ("tolerant", _tolerant_parse))
    }
    return replies, human, matrix, parsed, gold.to_numpy(), "summary", ("summeval", "coherence")


def _topical_chat_case():
    """SYNTHETIC Topical-Chat naturalness replies (70 items x 6 replies, some unparsed)."""
    rng = np.random.default_rng(21)
    n_items, n_replies = 70, 6
    gold = np.round(rng.integers(3, 10, n_items) / 3, 12)
    human = pd.DataFrame({"item_id": np.arange(n_items), "naturalness": gold})
    ratings = np.clip(np.rint(gold[:, None] + rng.normal(0, 0.8, (n_items, n_replies))), 1, 3)
    text = ratings.astype(int).astype(str).astype(object)
    text[rng.random(text.shape) < 0.3] = "N/A"
    numbers = np.where(text == "N/A", "0", text).astype(float)  # "N/A": 0 under original
    parsed = {"original": numbers, "tolerant": np.where(text == "N/A", np.nan, numbers)}
    return (
        _naturalness_replies(text),
        human,
        lambda scores: scores[None, :],
        parsed,
        gold[None, :],
        "global",
        ("topical_chat", "naturalness"),
    )


@pytest.mark.parametrize("case", [_summeval_case, _topical_chat_case])
def test_sweep_accuracy_equals_a_draw_by_draw_recomputation(case) -> None:
    """Every acc_eq / acc*_eq row (value, band, epsilon) equals the mean, percentiles and
    mean threshold of ``pairwise_accuracy`` / ``tie_calibrated_accuracy`` recomputed on each
    draw's matrix (threshold re-fitted per draw); first-n rows equal them per n. The
    tolerant parser leaves unparsed items out, so documents have unequal pair counts."""
    replies, human, matrix, parsed, gold, level, (benchmark, dimension) = case()
    draws = 6
    got = sweep(replies, human, seed=4, draws=draws, coefficients=SWEEP_COEFFICIENTS)
    n_replies = next(iter(parsed.values())).shape[1]
    permutations = random_permutations(
        gold.size, n_replies, draws, run_seed(4, "j", benchmark, dimension)
    )

    def reference(scores: np.ndarray) -> dict[str, tuple[float, float]]:
        metric = matrix(scores)
        plain = pairwise_accuracy(metric, gold, level)
        fitted = tie_calibrated_accuracy(metric, gold, level)
        return {"acc_eq": (plain.value, 0.0), "acc_eq_calibrated": (fitted.value, fitted.epsilon)}

    checked = 0
    for parser, values in parsed.items():
        for n in sorted({1, 2, n_replies // 2, n_replies}):
            first = reference(_mean(values[:, :n]))
            per_draw = [
                reference(_mean(np.take_along_axis(values, permutations[d, :, :n], axis=1)))
                for d in range(draws)
            ]
            for coefficient in ACCURACY_COEFFICIENTS:
                row = _pick(got, parser=parser, n=n, coefficient=coefficient, mode="first")
                value, epsilon = first[coefficient]
                assert row["value"].iloc[0] == pytest.approx(value, abs=EXACT)
                assert row["epsilon"].iloc[0] == epsilon
                each = np.array([d[coefficient][0] for d in per_draw])
                thresholds = np.array([d[coefficient][1] for d in per_draw])
                row = _pick(got, parser=parser, n=n, coefficient=coefficient, mode="random")
                assert row["value"].iloc[0] == pytest.approx(each.mean(), abs=EXACT)
                low, high = np.percentile(each, [2.5, 97.5])
                assert row["band_low"].iloc[0] == pytest.approx(low, abs=EXACT)
                assert row["band_high"].iloc[0] == pytest.approx(high, abs=EXACT)
                assert row["epsilon"].iloc[0] == pytest.approx(thresholds.mean(), abs=EXACT)
                # the tie rate of a step is the same for every coefficient
                spearman = _pick(got, parser=parser, n=n, coefficient="spearman", mode="random")
                assert row["tie_rate"].iloc[0] == spearman["tie_rate"].iloc[0]
                checked += 1
    assert checked == 2 * len({1, 2, n_replies // 2, n_replies}) * 2
    correlation_rows = ~got["coefficient"].isin(ACCURACY_COEFFICIENTS)
    assert got.loc[correlation_rows, "epsilon"].isna().all()
    assert (got.loc[got["coefficient"] == "acc_eq", "epsilon"] == 0).all()


def test_float_means_give_the_coded_accuracies() -> None:
    """The generic path (float means, coded per step by their distinct values) and the coded
    path (codes of every reachable mean, one difference table per run) agree exactly."""
    replies, human = _synthetic(17)
    coded = sweep(replies, human, seed=2, draws=8, coefficients=ACCURACY_COEFFICIENTS)
    with mock.patch.object(sweep_module, "mean_table", lambda values: None):
        generic = sweep(replies, human, seed=2, draws=8, coefficients=ACCURACY_COEFFICIENTS)
    pd.testing.assert_frame_equal(coded, generic, check_exact=True)


def test_unknown_coefficients_are_refused() -> None:
    replies, human = _synthetic(1)
    with pytest.raises(ValueError, match="acc_star"):
        sweep(replies, human, seed=0, coefficients=["acc_star"])
