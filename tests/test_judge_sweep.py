"""The replies-per-item sweep: hand-computed curves, n = n_max equals the full mean, seeding."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from geval_repro.scoring.sweep import ADAPTIVE_MODES, DEFAULT_SE_TARGETS, SWEEP_COLUMNS, sweep


def _replies(items: dict[tuple[str, str], list[str]], dimension: str = "coherence") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "judge": "j",
                "benchmark": "summeval",
                "dimension": dimension,
                "doc_id": doc,
                "system_id": system,
                "reply_index": i,
                "reply": reply,
            }
            for (doc, system), replies in items.items()
            for i, reply in enumerate(replies)
        ]
    )


def _human(values: dict[tuple[str, str], float], dimension: str = "coherence") -> pd.DataFrame:
    return pd.DataFrame(
        [{"doc_id": d, "system_id": s, dimension: v} for (d, s), v in values.items()]
    )


# one document, three systems, human 1, 2, 3
TINY = _replies({("d1", "A"): ["1", "5"], ("d1", "B"): ["2", "2"], ("d1", "C"): ["3", "1"]})
TINY_HUMAN = _human({("d1", "A"): 1.0, ("d1", "B"): 2.0, ("d1", "C"): 3.0})


def _pick(frame: pd.DataFrame, **where: object) -> pd.DataFrame:
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy()
    return frame.loc[mask]


def test_first_n_by_hand() -> None:
    got = sweep(TINY, TINY_HUMAN, seed=0, parsers=["original"], modes=["first"])
    assert list(got.columns) == list(SWEEP_COLUMNS)
    pearson = _pick(got, coefficient="pearson").set_index("n")
    # n = 1: scores (1, 2, 3) -> r = 1; no tied pair among 3
    assert pearson.loc[1, "value"] == pytest.approx(1.0)
    assert pearson.loc[1, "tie_rate"] == 0.0
    # n = 2: means (3, 2, 2): xc = (2, -1, -1)/3, yc = (-1, 0, 1): r = -1 / (sqrt(6)/3 * sqrt(2))
    assert pearson.loc[2, "value"] == pytest.approx(-math.sqrt(3) / 2)
    assert pearson.loc[2, "tie_rate"] == pytest.approx(1 / 3)  # B and C tie
    assert math.isnan(pearson.loc[1, "band_low"]) and math.isnan(pearson.loc[2, "band_high"])
    assert pearson["gain_share"].tolist() == [0.0, 1.0]
    # Kendall at n = 2: pairs (A,B) x+,y- ; (A,C) x+,y- ; (B,C) x tie -> tau-b = -2/sqrt(2*3)
    kendall = _pick(got, coefficient="kendall").set_index("n")
    assert kendall.loc[2, "value"] == pytest.approx(-2 / math.sqrt(6))


def test_random_n1_draws_uniform_subsets() -> None:
    # n = 1: A in {1, 5}, B = 2, C in {3, 1}; Pearson with (1, 2, 3) for the four choices:
    # (1,2,3) -> 1; (1,2,1) -> 0; (5,2,3) -> -6/sqrt(84); (5,2,1) -> -12/sqrt(156)
    outcomes = [1.0, 0.0, -6 / math.sqrt(84), -12 / math.sqrt(156)]
    got = sweep(
        TINY, TINY_HUMAN, seed=7, parsers=["original"], coefficients=["pearson"], draws=4000
    )
    row = _pick(got, mode="random", n=1).iloc[0]
    assert row["band_low"] == pytest.approx(min(outcomes))
    assert row["band_high"] == pytest.approx(max(outcomes))
    # mean of 4000 seeded draws vs the exact expectation (sd of one draw ~ 0.77: se ~ 0.012)
    assert row["value"] == pytest.approx(np.mean(outcomes), abs=0.06)
    full = _pick(got, mode="random", n=2).iloc[0]
    assert full["value"] == pytest.approx(-math.sqrt(3) / 2)
    assert full["band_low"] == pytest.approx(full["band_high"])


def test_tolerant_leaves_items_without_parsed_replies_out() -> None:
    replies = _replies(
        {
            ("d1", "A"): ["N/A", "1"],
            ("d1", "B"): ["3", "3"],
            ("d1", "C"): ["2", "2"],
            ("d1", "D"): ["4", "9"],  # "9" is out of scale: D's mean stays 4
        }
    )
    human = _human({("d1", "A"): 1.0, ("d1", "B"): 2.0, ("d1", "C"): 3.0, ("d1", "D"): 4.0})
    got = sweep(replies, human, seed=0, coefficients=["spearman"], modes=["first"])
    tol = _pick(got, parser="tolerant").set_index("n")
    # n = 1: A unparsed -> (B, C, D) = (3, 2, 4) vs (2, 3, 4): rho = 0.5
    assert tol.loc[1, "value"] == pytest.approx(0.5)
    # n = 2: (1, 3, 2, 4) vs (1, 2, 3, 4): rho = 1 - 6*2/(4*15) = 0.8
    assert tol.loc[2, "value"] == pytest.approx(0.8)
    orig = _pick(got, parser="original").set_index("n")
    # original n = 1: (0, 3, 2, 4) -> rho 0.8; n = 2: (0.5, 3, 2, 6.5) -> rho 0.8
    assert orig.loc[1, "value"] == pytest.approx(0.8)
    assert orig.loc[2, "value"] == pytest.approx(0.8)
    assert math.isnan(orig.loc[2, "gain_share"])  # no gain from n = 1 to n = 2


def _synthetic(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """SYNTHETIC replies (not model output): 12 documents x 8 systems x 20 replies."""
    rng = np.random.default_rng(seed)
    keys = [(f"d{d:02d}", f"M{s}") for d in range(12) for s in range(8)]
    human = _human(
        {k: float(v) for k, v in zip(keys, rng.integers(3, 16, len(keys)) / 3, strict=True)}
    )
    gold = human["coherence"].to_numpy()
    ratings = np.clip(np.rint(gold[:, None] + rng.normal(0, 1.0, (len(keys), 20))), 1, 5)
    text = ratings.astype(int).astype(str).astype(object)
    text[rng.random(text.shape) < 0.1] = "N/A"
    text[rng.random(text.shape) < 0.05] = "- Coherence: 4"
    return _replies({k: list(row) for k, row in zip(keys, text, strict=True)}), human


def _released_parse(reply: str) -> float:
    matched = re.search(r"^ ?([\d\.]+)", reply)
    if matched:
        try:
            return float(matched.group(1))
        except ValueError:
            return 0.0
    return 0.0


def _tolerant_parse(reply: str) -> float:
    text = reply.strip()
    if text.lower().startswith("- coherence:"):
        text = text[len("- coherence:") :].strip()
    return float(text) if text.isdigit() and 1 <= int(text) <= 5 else math.nan


def _scipy_summary(replies: pd.DataFrame, human: pd.DataFrame, parse, coefficient: str) -> float:
    """Released-script protocol, written independently: per document, scipy over systems."""
    scored = replies.assign(value=[parse(r) for r in replies["reply"]])
    means = scored.groupby(["doc_id", "system_id"])["value"].mean().rename("m").reset_index()
    table = means.merge(human, on=["doc_id", "system_id"]).dropna()
    func = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}
    kept = []
    for _, doc in table.groupby("doc_id"):
        if doc["m"].nunique() > 1 and doc["coherence"].nunique() > 1:
            kept.append(func[coefficient](doc["m"], doc["coherence"])[0])
    return float(np.mean(kept))


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
def test_n20_equals_full_mean(coefficient: str) -> None:
    replies, human = _synthetic(11)
    got = sweep(replies, human, seed=3, coefficients=[coefficient], draws=50)
    for parser, parse in (("original", _released_parse), ("tolerant", _tolerant_parse)):
        expected = _scipy_summary(replies, human, parse, coefficient)
        rows = _pick(got, parser=parser, n=20).set_index("mode")
        assert rows.loc["first", "value"] == pytest.approx(expected, abs=1e-12)
        assert rows.loc["random", "value"] == pytest.approx(expected, abs=1e-12)
        assert rows.loc["random", "band_low"] == pytest.approx(expected, abs=1e-12)
        assert rows.loc["random", "band_high"] == pytest.approx(expected, abs=1e-12)


def test_random_sweep_is_deterministic_from_seed_and_gain_share_ends() -> None:
    replies, human = _synthetic(5)
    first = sweep(replies, human, seed=42, draws=30)
    again = sweep(replies, human, seed=42, draws=30)
    other = sweep(replies, human, seed=43, draws=30)
    pd.testing.assert_frame_equal(first, again)
    random_rows = (first["mode"] == "random") & (first["n"] < 20)
    assert not np.allclose(first.loc[random_rows, "value"], other.loc[random_rows, "value"])
    fixed = first["mode"] == "first"
    pd.testing.assert_frame_equal(first.loc[fixed], other.loc[fixed])
    adaptive = first["mode"].isin(ADAPTIVE_MODES)
    assert (~adaptive).sum() == 2 * 2 * 3 * 20  # parsers x modes x coefficients x n
    assert adaptive.sum() == 2 * 2 * 3 * len(DEFAULT_SE_TARGETS)  # ... x targets
    fixed_n = first[~adaptive]
    assert (fixed_n.loc[fixed_n["n"] == 1, "gain_share"] == 0.0).all()
    assert (fixed_n.loc[fixed_n["n"] == 20, "gain_share"] == 1.0).all()
    assert first.loc[adaptive, "gain_share"].isna().all()


def test_n_max_and_ragged_counts() -> None:
    got = sweep(TINY, TINY_HUMAN, seed=0, n_max=1, modes=["first"])
    assert set(got["n"]) == {1}
    with pytest.raises(ValueError, match="n_max"):
        sweep(TINY, TINY_HUMAN, seed=0, n_max=3)
    ragged = TINY.iloc[:-1]  # C loses its second reply
    with pytest.raises(ValueError, match=r"doc_id='d1', system_id='C': 1 replies"):
        sweep(ragged, TINY_HUMAN, seed=0)


def test_items_without_human_scores_are_an_error() -> None:
    with pytest.raises(ValueError, match="no human score"):
        sweep(TINY, TINY_HUMAN.iloc[:2], seed=0)


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_random_draws_equal_a_scipy_recomputation_of_each_draw(coefficient: str) -> None:
    """The batched sweep (all draws of one n at once, the human matrix ranked once) equals a
    per-draw, per-document scipy recomputation of the same draws."""
    from geval_repro.scoring.item_scores import round_mean
    from geval_repro.scoring.sweep import random_permutations, run_seed

    replies, human = _synthetic(7)
    draws = 6
    got = sweep(replies, human, seed=5, coefficients=[coefficient], modes=["random"], draws=draws)
    ordered = replies.sort_values(["doc_id", "system_id", "reply_index"])
    items = ordered.loc[ordered["reply_index"] == 0, ["doc_id", "system_id"]].reset_index(drop=True)
    items = items.merge(human, on=["doc_id", "system_id"])
    seq = run_seed(5, "j", "summeval", "coherence")
    permutations = random_permutations(len(items), 20, draws, seq)
    func = {"spearman": sps.spearmanr, "kendall": sps.kendalltau}[coefficient]
    for parser, parse in (("original", _released_parse), ("tolerant", _tolerant_parse)):
        values = np.array([parse(r) for r in ordered["reply"]]).reshape(len(items), 20)
        for n in (1, 4, 13):
            per_draw = []
            for d in range(draws):
                taken = np.take_along_axis(values, permutations[d, :, :n], axis=1)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all unparsed: NaN
                    scores = round_mean(np.nanmean(taken, axis=1))
                frame = items.assign(m=scores).dropna()
                kept = [
                    func(doc["m"], doc["coherence"])[0]
                    for _, doc in frame.groupby("doc_id")
                    if doc["m"].nunique() > 1 and doc["coherence"].nunique() > 1
                ]
                per_draw.append(np.mean(kept))
            row = _pick(got, parser=parser, n=n).iloc[0]
            assert row["value"] == pytest.approx(np.mean(per_draw), abs=1e-12)
            low, high = np.percentile(per_draw, [2.5, 97.5])
            assert row["band_low"] == pytest.approx(low, abs=1e-12)
            assert row["band_high"] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("kind", ["integers", "halves", "negative zero", "large"])
def test_prefix_means_equal_direct_means(kind: str) -> None:
    """Running means (integer sums looked up in a table, or divided and rounded) are
    bit-identical to each prefix's mean computed directly."""
    from geval_repro.scoring.item_scores import round_mean
    from geval_repro.scoring.sweep import mean_table, prefix_means

    rng = np.random.default_rng(4)
    values = rng.integers(-2, 8, (20, 3, 50)).astype(float)
    if kind == "halves":
        values /= 2
    elif kind == "negative zero":
        values[values == 0] = -0.0
    elif kind == "large":
        values *= 1e6
    values[rng.random(values.shape) < 0.3] = np.nan
    table = mean_table(np.moveaxis(values, 0, -1))
    assert (table is None) == (kind in ("halves", "negative zero", "large"))
    got = prefix_means(values, table)
    counted = ~np.isnan(values)
    total = np.where(counted[0], values[0], 0.0)  # 0.0 for a reply not counted
    count = counted[0].astype(float)
    for n in range(1, 21):  # left to right, one reply at a time
        if n > 1:
            total = total + np.where(counted[n - 1], values[n - 1], 0.0)
            count = count + counted[n - 1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # nothing counted yet: 0 / 0
            want = round_mean(total / count)
        np.testing.assert_array_equal(got[n - 1], want)
        defined = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[n - 1][defined]), np.signbit(want[defined]))


def test_sweep_equals_a_draw_by_draw_recomputation_bit_for_bit() -> None:
    """Every row (value, band, tie rate) of both modes equals, exactly, a recomputation one
    draw and one n at a time from the same draws: direct rounded means, one score matrix per
    draw, ``correlate`` and ``tie_rate`` on it (the batched sweep codes the means and takes
    the tie counts from its pair signs; this reference does neither)."""
    from geval_repro.scoring.item_scores import round_mean
    from geval_repro.scoring.sweep import random_permutations, run_seed
    from geval_repro.stats import correlate
    from geval_repro.stats.ties import tie_rate

    replies, human = _synthetic(3)
    draws = 5
    coefficients = ("pearson", "spearman", "kendall")
    got = sweep(replies, human, seed=9, draws=draws, coefficients=coefficients)
    ordered = replies.sort_values(["doc_id", "system_id", "reply_index"])
    items = ordered.loc[ordered["reply_index"] == 0, ["doc_id", "system_id"]].reset_index(drop=True)
    gold = items.merge(human, on=["doc_id", "system_id"]).pivot(
        index="system_id", columns="doc_id", values="coherence"
    )
    permutations = random_permutations(
        len(items), 20, draws, run_seed(9, "j", "summeval", "coherence")
    )

    def matrix(scores: np.ndarray) -> np.ndarray:
        table = items.assign(m=scores).pivot(index="system_id", columns="doc_id", values="m")
        return table.loc[gold.index, gold.columns].to_numpy()

    def mean(taken: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all unparsed: NaN
            return round_mean(np.nanmean(taken, axis=1))

    checked = 0
    for parser, parse in (("original", _released_parse), ("tolerant", _tolerant_parse)):
        values = np.array([parse(r) for r in ordered["reply"]]).reshape(len(items), 20)
        for n in (1, 2, 7, 20):
            first = matrix(mean(values[:, :n]))
            per_draw = [
                matrix(mean(np.take_along_axis(values, permutations[d, :, :n], axis=1)))
                for d in range(draws)
            ]
            ties = [tie_rate(m, "summary") for m in per_draw]
            pooled = sum(t.n_tied_pairs for t in ties) / sum(t.n_pairs for t in ties)
            for coefficient in coefficients:
                row = _pick(got, parser=parser, n=n, coefficient=coefficient, mode="first")
                assert (
                    row["value"].iloc[0]
                    == correlate(first, gold.to_numpy(), "summary", coefficient).value
                )
                assert row["tie_rate"].iloc[0] == tie_rate(first, "summary").rate
                each = np.array(
                    [correlate(m, gold.to_numpy(), "summary", coefficient).value for m in per_draw]
                )
                row = _pick(got, parser=parser, n=n, coefficient=coefficient, mode="random")
                assert row["value"].iloc[0] == each.mean()
                low, high = np.percentile(each, [2.5, 97.5])
                assert (row["band_low"].iloc[0], row["band_high"].iloc[0]) == (low, high)
                assert row["tie_rate"].iloc[0] == pooled
                checked += 1
    assert checked == 2 * 4 * 3


def test_running_sums_equal_cumsum() -> None:
    from geval_repro.scoring.sweep import _running_sums

    rng = np.random.default_rng(2)
    for values in (rng.normal(size=(20, 3, 7)), rng.integers(-5, 9, (6, 40)).astype(np.int32)):
        strided = np.moveaxis(np.moveaxis(values, 0, -1).copy(), -1, 0)  # not C-contiguous
        np.testing.assert_array_equal(_running_sums(strided), np.cumsum(values, axis=0))
