"""The replies-per-item sweep on binary labels (geval_repro.scoring.label_sweep) and the
row functions it rests on (geval_repro.stats.binary): checked against a hand-worked example,
pure-Python brute force, the one-vector functions of the binary-label table, and the
binary-label table itself (labelled synthetic SummEdits-shaped fixtures, not results)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.scoring.item_scores import item_scores, round_mean
from geval_repro.scoring.label_sweep import label_sweep
from geval_repro.scoring.parse import parse
from geval_repro.scoring.sweep import SWEEP_COLUMNS, random_permutations, run_seed
from geval_repro.stats.binary import (
    balanced_accuracy,
    balanced_accuracy_rows,
    fit_threshold,
    fitted_thresholds,
    pair_counts,
    roc_auc,
    roc_auc_rows,
)
from geval_repro.tables.binary_labels import AVERAGE, binary_label_rows

SUMMEDITS = get_benchmark("summedits")
DOMAINS = list(SUMMEDITS.labels.domains)


def test_a_hand_worked_row() -> None:
    # positives score 2 and 3, negatives 1 and 2: wins (2>1, 3>1, 3>2) = 3, one tie (2=2)
    scores = np.array([[1.0, 2.0, 2.0, 3.0]])
    labels = np.array([0, 0, 1, 1])
    wins, ties, pairs = pair_counts(scores, labels)
    assert (wins[0], ties[0], pairs[0]) == (3, 1, 4)
    assert roc_auc_rows(scores, labels)[0] == pytest.approx(3.5 / 4)
    # threshold fitted on (0: 1, 0: 2, 1: 2, 1: 3): at 2, TPR 1 and TNR 1/2 (0.75); at 3,
    # TPR 1/2 and TNR 1 (0.75): the tie goes to the lowest, 2. Tested on the same items: 0.75
    assert fitted_thresholds(scores, labels)[0] == 2.0
    assert balanced_accuracy_rows(scores, labels, scores, labels)[0] == 0.75
    # an unscored item leaves the row's pairs: without the negative 2, no tie is left
    scores[0, 1] = np.nan
    assert pair_counts(scores, labels)[1][0] == 0
    assert roc_auc_rows(scores, labels)[0] == 1.0


def _brute_auc(scores: list[float], labels: list[int]) -> float:
    pairs = [
        (p, q)
        for p, lp in zip(scores, labels, strict=True)
        for q, lq in zip(scores, labels, strict=True)
        if lp == 1 and lq == 0 and p == p and q == q
    ]
    if not pairs:
        return float("nan")
    return sum(1.0 if p > q else 0.5 if p == q else 0.0 for p, q in pairs) / len(pairs)


def _brute_bacc(fit: list[float], fit_labels: list[int], test: list[float], labels: list[int]):
    def bacc(values, truth, t):
        kept = [(v, y) for v, y in zip(values, truth, strict=True) if v == v]
        positives = [v for v, y in kept if y == 1]
        negatives = [v for v, y in kept if y == 0]
        if not positives or not negatives:
            return float("nan")
        tpr = sum(v >= t for v in positives) / len(positives)
        tnr = sum(v < t for v in negatives) / len(negatives)
        return (tpr + tnr) / 2

    candidates = [*sorted({v for v in fit if v == v}), float("inf")]
    accuracies = [bacc(fit, fit_labels, t) for t in candidates]
    if any(a != a for a in accuracies):
        return float("nan")
    best = candidates[accuracies.index(max(accuracies))]  # the first maximum: the lowest
    return bacc(test, labels, best)


def test_row_functions_equal_brute_force_and_the_one_vector_functions() -> None:
    rng = np.random.default_rng(3)
    for _ in range(60):
        n, m = rng.integers(2, 12, size=2)
        labels, fit_labels = rng.integers(0, 2, n), rng.integers(0, 2, m)
        scores = rng.integers(0, 4, (6, n)).astype(float)
        fit = rng.integers(0, 4, (6, m)).astype(float)
        scores[rng.random(scores.shape) < 0.2] = np.nan
        fit[rng.random(fit.shape) < 0.2] = np.nan
        auc = roc_auc_rows(scores, labels)
        bacc = balanced_accuracy_rows(scores, labels, fit, fit_labels)
        for r in range(6):
            expected = _brute_auc(list(scores[r]), list(labels))
            assert auc[r] == pytest.approx(expected, nan_ok=True)
            expected = _brute_bacc(list(fit[r]), list(fit_labels), list(scores[r]), list(labels))
            assert bacc[r] == pytest.approx(expected, nan_ok=True)
            kept, fitted = ~np.isnan(scores[r]), ~np.isnan(fit[r])
            truth, fit_truth = labels[kept], fit_labels[fitted]
            if np.isnan(bacc[r]):
                continue
            # the binary-label table's functions: the same value, bit for bit
            threshold = fit_threshold(fit[r][fitted], fit_truth).threshold
            ones = np.ones((1, kept.sum()))
            assert bacc[r] == balanced_accuracy(scores[r][kept], truth, ones, threshold)[0]
            assert auc[r] == roc_auc(scores[r][kept], truth, ones)[0]


def test_float_scores_with_ties_and_wide_rows_equal_brute_force() -> None:
    rng = np.random.default_rng(5)
    labels, fit_labels = rng.integers(0, 2, 40), rng.integers(0, 2, 30)
    scores = np.round(rng.random((8, 40)), 1)  # many ties among floats
    fit = np.round(rng.random((8, 30)), 1)
    scores[rng.random(scores.shape) < 0.3] = np.nan
    auc = roc_auc_rows(scores, labels)
    bacc = balanced_accuracy_rows(scores, labels, fit, fit_labels)
    wins, ties, pairs = pair_counts(scores, labels)
    for r in range(8):
        positives = [v for v, y in zip(scores[r], labels, strict=True) if y and v == v]
        negatives = [v for v, y in zip(scores[r], labels, strict=True) if not y and v == v]
        assert wins[r] == sum(p > q for p in positives for q in negatives)
        assert ties[r] == sum(p == q for p in positives for q in negatives)
        assert pairs[r] == len(positives) * len(negatives)
        assert auc[r] == pytest.approx(_brute_auc(list(scores[r]), list(labels)))
        expected = _brute_bacc(list(fit[r]), list(fit_labels), list(scores[r]), list(labels))
        assert bacc[r] == pytest.approx(expected)


def _table(per_split: int = 6) -> pd.DataFrame:
    """A SummEdits-shaped table: in every domain and split, ``per_split`` items in 3
    documents, alternately consistent and not."""
    rows = []
    for domain, split in itertools.product(DOMAINS, ("evaluation", "test")):
        for i in range(per_split):
            rows.append(
                {
                    "domain": domain,
                    "split": split,
                    "item_id": f"{domain}/{split}/{i}",
                    "doc_id": f"{domain}/{split}/doc{i // 2}",
                    "label": i % 2,
                }
            )
    return pd.DataFrame(rows)


ANSWERS = ("Yes.", "No.", "I am not sure.")


def _replies(table: pd.DataFrame, count: int, seed: int = 0) -> pd.DataFrame:
    """``count`` Yes/No replies per item, a consistent item answered Yes more often, some
    replies unreadable (the yes-no parser leaves them out)."""
    rng = np.random.default_rng(seed)
    rows = []
    for item, label in zip(table["item_id"], table["label"], strict=True):
        weights = [0.5, 0.3, 0.2] if label else [0.3, 0.5, 0.2]
        for r in range(count):
            reply = ANSWERS[rng.choice(3, p=weights)]
            rows.append(("fx", "summedits", "consistency", item, r, reply))
    columns = ["judge", "benchmark", "dimension", "item_id", "reply_index", "reply"]
    return pd.DataFrame(rows, columns=columns)


def _table_means(table: pd.DataFrame, scores: np.ndarray) -> dict[str, float]:
    """The binary-label table's mean over domains of each statistic for ``scores``."""
    rows = binary_label_rows(
        table,
        benchmark=SUMMEDITS,
        dimension="consistency",
        metric="fx",
        variant="v",
        scores=scores,
        n_resamples=1,
        seed=0,
    )
    means = rows[rows["domain"] == AVERAGE]
    return dict(zip(means["statistic"], means["value"], strict=True))


def test_all_replies_give_the_binary_label_tables_values() -> None:
    table = _table()
    replies = _replies(table, 5)
    sweep = label_sweep(replies, table, seed=1, parsers=["yes-no"], draws=7)
    assert list(sweep.columns) == list(SWEEP_COLUMNS)
    means = item_scores(replies, "yes-no")[["item_id", "mean"]]
    scores = table[["item_id"]].merge(means, on="item_id", how="left")["mean"].to_numpy()
    expected = _table_means(table, scores)
    assert not np.isnan(list(expected.values())).any()
    at_all = sweep[sweep["n"] == 5].set_index(["mode", "coefficient"])
    for statistic, value in expected.items():
        assert at_all.loc[("first", statistic), "value"] == value
        # every draw takes all 5 replies: the same value, a band of width 0
        assert at_all.loc[("random", statistic), "value"] == pytest.approx(value)
        assert at_all.loc[("random", statistic), "band_low"] == pytest.approx(value)
    # the gain share ends at 1, or is NaN for the whole curve when it has no start (n = 1)
    for _, curve in sweep.groupby(["mode", "coefficient"]):
        start, end = curve.set_index("n").loc[[1, 5], "value"]
        gains = curve["gain_share"]
        if np.isnan(start) or start == end:
            assert gains.isna().all()
        else:
            assert curve.loc[curve["n"] == 5, "gain_share"].item() == 1.0


def test_each_n_and_draw_equals_the_table_on_its_own_scores() -> None:
    table = _table()
    replies = _replies(table, 4, seed=2)
    draws = 6
    sweep = label_sweep(replies, table, seed=9, parsers=["yes-no"], draws=draws)
    ordered = replies.sort_values(["item_id", "reply_index"])
    values = parse(ordered["reply"], "consistency", "yes-no", "summedits").to_numpy().reshape(-1, 4)
    items = ordered["item_id"].unique()
    position = {item: i for i, item in enumerate(items)}
    rows = [position[item] for item in table["item_id"]]  # the table's order
    permutations = random_permutations(
        len(items), 4, draws, run_seed(9, "fx", "summedits", "consistency")
    )

    def means_of(chosen: list[list[int]]) -> np.ndarray:  # pure Python, per item
        out = []
        for i, picks in enumerate(chosen):
            read = [values[i][r] for r in picks if values[i][r] == values[i][r]]
            out.append(round_mean(sum(read) / len(read)) if read else float("nan"))
        return np.array(out)[rows]

    for n in (1, 2, 3):
        first = _table_means(table, means_of([list(range(n))] * len(items)))
        per_draw = [
            _table_means(table, means_of([list(p[:n]) for p in permutations[d]]))
            for d in range(draws)
        ]
        got = sweep[sweep["n"] == n].set_index(["mode", "coefficient"])
        for statistic in first:
            assert got.loc[("first", statistic), "value"] == pytest.approx(
                first[statistic], nan_ok=True
            )
            drawn = np.array([d[statistic] for d in per_draw])
            if np.isnan(drawn).any():  # a draw without a mean: no value, no band
                assert np.isnan(got.loc[("random", statistic), "value"])
                continue
            assert got.loc[("random", statistic), "value"] == pytest.approx(drawn.mean())
            low, high = np.percentile(drawn, [2.5, 97.5])
            assert got.loc[("random", statistic), "band_low"] == pytest.approx(low)
            assert got.loc[("random", statistic), "band_high"] == pytest.approx(high)


def test_the_tie_rate_counts_tied_positive_negative_test_pairs() -> None:
    table = _table()
    replies = _replies(table, 3)
    sweep = label_sweep(replies, table, seed=1, parsers=["yes-no"], draws=2)
    means = item_scores(replies, "yes-no")[["item_id", "mean"]]
    merged = table.merge(means, on="item_id")
    tied = pairs = 0
    for _, domain in merged[merged["split"] == "test"].groupby("domain"):
        positives = domain.loc[domain["label"] == 1, "mean"].dropna()
        negatives = domain.loc[domain["label"] == 0, "mean"].dropna()
        tied += sum(p == q for p in positives for q in negatives)
        pairs += len(positives) * len(negatives)
    row = sweep[(sweep["mode"] == "first") & (sweep["n"] == 3)]
    assert row["tie_rate"].eq(tied / pairs).all()


def test_the_sweep_is_seeded_and_capped_at_the_runs_replies() -> None:
    table = _table()
    replies = _replies(table, 3)
    one = label_sweep(replies, table, seed=4, parsers=["yes-no"], draws=5, n_max=20)
    assert one["n"].max() == 3  # n_max above the run's replies: all of them
    again = label_sweep(replies, table, seed=4, parsers=["yes-no"], draws=5)
    pd.testing.assert_frame_equal(one, again)
    other = label_sweep(replies, table, seed=5, parsers=["yes-no"], draws=5)
    random = one["mode"] == "random"
    assert not one.loc[random, "band_low"].equals(other.loc[random, "band_low"])


def test_bad_runs_are_refused_naming_the_items() -> None:
    table = _table()
    replies = _replies(table, 3)
    with pytest.raises(ValueError, match="same number of replies"):
        label_sweep(replies.iloc[1:], table, seed=0, parsers=["yes-no"])
    stray = replies.assign(item_id=replies["item_id"].where(replies.index >= 3, "news/x/99"))
    with pytest.raises(ValueError, match=r"not in the SummEdits table, e.g. news/x/99"):
        label_sweep(stray, table, seed=0, parsers=["yes-no"])
    with pytest.raises(ValueError, match="no binary labels"):
        label_sweep(replies.assign(benchmark="qags_xsum"), table, seed=0, parsers=["yes-no"])
