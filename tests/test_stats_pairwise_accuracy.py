"""Pairwise accuracy and tie calibration: hand-computed answers, a brute force written from
the definition (every pair, every candidate threshold, exact fractions), and the bootstrap
against a per-resample loop over that brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from geval_repro.stats import accuracy
from geval_repro.stats.accuracy import (
    bootstrap_accuracy,
    pairwise_accuracy,
    resampled_accuracies,
    tie_calibrated_accuracy,
)

NAN = np.nan
LEVELS = ("summary", "system", "global")


# --- Brute force from the definition (module docstring of geval_repro.stats.accuracy) ---


def code(difference: float) -> int:
    """Grid code of a metric difference of merged scores: 0 for 0 (a tie by the rule), else
    |d| in units of 1e-9 rounded half to even (Python's round), at least 1."""
    return 0 if difference == 0 else max(1, round(abs(difference) * 1e9))


def merged(values: list[float]) -> list[float]:
    """The tie rule by hand: sorted, neighbours a <= b join one cluster when b - a < 1e-9
    max(|a|, |b|) (or are equal); every value becomes its cluster's smallest."""
    smallest, previous, out = None, None, {}
    for value in sorted(values):
        if previous is None or not (
            value == previous or value - previous < 1e-9 * max(abs(value), abs(previous))
        ):
            smallest = value
        out[value] = smallest
        previous = value
    return [out[value] for value in values]


def merged_group(items: list[tuple]) -> list[tuple]:
    """A group's (metric, human) items with each vector's ties merged by the rule."""
    if not items:
        return items
    metric, human = zip(*items, strict=True)
    return list(zip(merged(list(metric)), merged(list(human)), strict=True))


def groups_of(metric: np.ndarray, human: np.ndarray, level: str) -> list[list[tuple]]:
    """The (metric, human) items of each group, complete items only."""
    n_systems, n_inputs = metric.shape
    complete = [
        [not (np.isnan(metric[s, i]) or np.isnan(human[s, i])) for i in range(n_inputs)]
        for s in range(n_systems)
    ]
    cells = [
        [(float(metric[s, i]), float(human[s, i])) for i in range(n_inputs) if complete[s][i]]
        for s in range(n_systems)
    ]
    if level == "global":
        return [merged_group([item for row in cells for item in row])]
    if level == "system":
        means = [
            (sum(m for m, _ in row) / len(row), sum(h for _, h in row) / len(row))
            for row in cells
            if row
        ]
        return [merged_group(means)]
    return [
        merged_group(
            [(float(metric[s, i]), float(human[s, i])) for s in range(n_systems) if complete[s][i]]
        )
        for i in range(n_inputs)
    ]


def pair_lists(groups: list[list[tuple]]) -> list[list[tuple[int, bool, bool]]]:
    """Per group with pairs: (code(d), humans tie, sign(d) == sign(h)) for every pair."""
    listed = []
    for items in groups:
        pairs = [
            (code(m1 - m2), h1 == h2, (m1 > m2) == (h1 > h2))
            for (m1, h1), (m2, h2) in itertools.combinations(items, 2)
        ]
        if pairs:
            listed.append(pairs)
    return listed


def accuracy_at(listed: list[list[tuple[int, bool, bool]]], threshold: int) -> Fraction:
    """Mean over groups of the share of correct pairs with the metric tied at code <= c."""
    shares = [
        Fraction(
            sum((tied if c <= threshold else not tied and same) for c, tied, same in pairs),
            len(pairs),
        )
        for pairs in listed
    ]
    return sum(shares, Fraction(0)) / len(shares)


def brute_force(metric: np.ndarray, human: np.ndarray, level: str) -> dict[str, float] | None:
    """acc_eq, acc*_eq, epsilon* (smallest best candidate), human tie share; None if no pair."""
    listed = pair_lists(groups_of(metric, human, level))
    if not listed:
        return None
    candidates = sorted({0} | {c for pairs in listed for c, _, _ in pairs})
    accuracies = [accuracy_at(listed, c) for c in candidates]
    best = max(accuracies)
    tie_share = sum(
        (Fraction(sum(t for _, t, _ in pairs), len(pairs)) for pairs in listed), Fraction(0)
    ) / len(listed)
    return {
        "acc_eq": float(accuracy_at(listed, 0)),
        "acc_star": float(best),
        "epsilon": candidates[accuracies.index(best)] / 1e9,
        "tie_share": float(tie_share),
        "n_pairs": sum(len(pairs) for pairs in listed),
        "n_groups": len(listed),
    }


def tied_scores(
    seed: int, n_systems: int, n_inputs: int, replies: int, noise_sd: float = 1.2
) -> tuple:
    """Heavily tied scores: human means of 3 ratings (thirds), judge means of ``replies``
    integer replies, each the human score plus N(0, noise_sd) rounded and clipped to 1-5
    (quarters are exact, twentieths carry float noise); some cells missing."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, (n_systems, n_inputs, 3)).mean(axis=-1)
    noise = rng.normal(0, noise_sd, (n_systems, n_inputs, replies))
    metric = np.clip(np.rint(human[..., None] + noise), 1, 5).mean(axis=-1)
    metric[rng.random(metric.shape) < 0.12] = NAN
    human[rng.random(human.shape) < 0.06] = NAN
    return metric, human


# --- Hand-computed examples ---


def test_global_hand_example_with_human_ties_judge_ties_and_both() -> None:
    # Items (metric, human): (2, 1), (2, 1), (1, 2), (3, 3); six pairs (d, h):
    # (0,1): (0, 0) both tie: correct; (0,2): (+1, -1) discordant; (0,3): (-1, -2) correct;
    # (1,2): (+1, -1) discordant; (1,3): (-1, -2) correct; (2,3): (-2, -1) correct.
    metric = np.array([[2.0, 2.0], [1.0, 3.0]])
    human = np.array([[1.0, 1.0], [2.0, 3.0]])
    result = pairwise_accuracy(metric, human, "global")
    assert result.value == pytest.approx(4 / 6)
    assert (result.n_pairs, result.n_groups, result.epsilon) == (6, 1, 0.0)
    assert result.human_tie_share == pytest.approx(1 / 6)
    # epsilon = 1 ties the four pairs with |d| <= 1: only (0,1) is still right, (2,3) stays
    # ordered and right: 2/6. epsilon = 2 ties all six: 1/6. The best is epsilon = 0.
    assert pairwise_accuracy(metric, human, "global", epsilon=1.0).value == pytest.approx(2 / 6)
    assert pairwise_accuracy(metric, human, "global", epsilon=2.0).value == pytest.approx(1 / 6)
    calibrated = tie_calibrated_accuracy(metric, human, "global")
    assert (calibrated.value, calibrated.epsilon) == (pytest.approx(4 / 6), 0.0)


def test_calibrated_epsilon_beats_zero() -> None:
    # Items (metric, human): (1.0, 1), (1.1, 1), (3.0, 2). Pairs: (0,1) humans tie, |d| =
    # 0.1: wrong at epsilon 0, right once tied; (0,2) |d| = 2 and (1,2) |d| = 1.9 concordant.
    # epsilon 0: 2/3; 0.1: 3/3; 1.9: (1,2) tied, 2/3; 2: only (0,1) right, 1/3.
    metric = np.array([[1.0, 1.1, 3.0]])
    human = np.array([[1.0, 1.0, 2.0]])
    assert pairwise_accuracy(metric, human, "global").value == pytest.approx(2 / 3)
    result = tie_calibrated_accuracy(metric, human, "global")
    # 1.1 - 1.0 is 0.10000000000000009 in floating point; on the 1e-9 grid it is 0.1.
    assert (result.value, result.epsilon) == (1.0, 0.1)
    assert result.human_tie_share == pytest.approx(1 / 3)


def test_equal_accuracies_pick_the_smallest_epsilon() -> None:
    # Summary level, 2 systems x 3 inputs, one pair per input (equal weights):
    # input 0: humans tie, |d| = 1; input 1: concordant, |d| = 2; input 2: humans tie, |d| = 3.
    # epsilon 0: (0, 1, 0) -> 1/3; 1: (1, 1, 0) -> 2/3; 2: (1, 0, 0) -> 1/3; 3: (1, 0, 1) ->
    # 2/3. Both 1 and 3 reach 2/3: epsilon* = 1.
    metric = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    human = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 1.0]])
    result = tie_calibrated_accuracy(metric, human, "summary")
    assert (result.value, result.epsilon) == (pytest.approx(2 / 3), 1.0)
    assert (result.n_pairs, result.n_groups) == (3, 3)
    assert pairwise_accuracy(metric, human, "summary", epsilon=3.0).value == pytest.approx(2 / 3)


def test_summary_level_weights_each_input_equally() -> None:
    # 3 systems x 2 inputs; system 2 lacks input 1. Input 0 (m, h): (1, 1), (2, 1), (3, 2):
    # (0,1) humans tie, |d| = 1; (0,2) |d| = 2 and (1,2) |d| = 1 concordant. Input 1: (1, 2),
    # (3, 2): humans tie, |d| = 2. Per input (input 0 of 3 pairs, input 1 of 1 pair):
    # epsilon 0: (2/3 + 0) / 2 = 1/3; 1: (2/3 + 0) / 2 = 1/3; 2: (1/3 + 1) / 2 = 2/3.
    # Pooling the 4 pairs instead would give 2/4, 2/4 and 2/4.
    metric = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, NAN]])
    human = np.array([[1.0, 2.0], [1.0, 2.0], [2.0, 5.0]])
    assert pairwise_accuracy(metric, human, "summary").value == pytest.approx(1 / 3)
    result = tie_calibrated_accuracy(metric, human, "summary")
    assert (result.value, result.epsilon) == (pytest.approx(2 / 3), 2.0)
    assert (result.n_pairs, result.n_groups) == (4, 2)
    assert result.human_tie_share == pytest.approx((1 / 3 + 1) / 2)


def test_system_level_hand_example() -> None:
    # Means over the inputs: metric (1.5, 1.5, 3), human (1, 2.5, 2.5). Pairs: (0,1) the
    # judge ties, the humans do not: wrong at any epsilon; (0,2) concordant, |d| = 1.5;
    # (1,2) humans tie, |d| = 1.5. epsilon 0: 1/3; 1.5: 1/3 -> epsilon* = 0.
    metric = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
    human = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])
    result = tie_calibrated_accuracy(metric, human, "system")
    assert (result.value, result.epsilon, result.n_pairs) == (pytest.approx(1 / 3), 0.0, 3)
    assert pairwise_accuracy(metric, human, "system", 1.5).value == pytest.approx(1 / 3)


def test_tolerances_and_the_grid() -> None:
    # Humans 1e-10 apart tie; a judge difference of 1e-10 is a tie at epsilon 0.
    metric = np.array([[1.0, 1.0 + 1e-10]])
    human = np.array([[2.0, 2.0 + 1e-10]])
    assert pairwise_accuracy(metric, human, "global").value == 1.0
    # Differences of means of 20 integer replies: 1.05 - 1.0 = 0.050000000000000044,
    # 1.15 - 1.1 = 0.04999999999999982, 2.1 - 2.05 = 0.050000000000000266: all 0.05.
    # Inputs 0 and 1: humans tie; input 2: concordant. epsilon = 0.05 ties all three.
    metric = np.array([[1.0, 1.1, 2.05], [1.05, 1.15, 2.1]])
    human = np.array([[3.0, 3.0, 3.0], [3.0, 3.0, 4.0]])
    assert pairwise_accuracy(metric, human, "summary", epsilon=0.05).value == pytest.approx(2 / 3)
    # epsilon 0: 1/3 (input 2); 0.05: 2/3. An exact |d| <= epsilon could pick epsilon =
    # 0.050000000000000044, tying inputs 0 and 1 but not input 2, for a spurious 3/3.
    result = tie_calibrated_accuracy(metric, human, "summary")
    assert (result.value, result.epsilon) == (pytest.approx(2 / 3), 0.05)


def test_ties_follow_the_one_rule_relative_not_absolute() -> None:
    """Scores on a tiny scale (sentence BLEU) carry their order: not ties at epsilon 0
    (an absolute 1e-9 would tie them all), tied by a threshold of 1e-9; the tie rate and
    Kendall's tau read the same ties."""
    from geval_repro.stats.levels import correlate
    from geval_repro.stats.ties import tie_rate

    metric = np.array([[1e-17, 3e-17, 2e-12, 0.2, 0.4]])
    human = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    assert pairwise_accuracy(metric, human, "global").value == 1.0
    assert tie_rate(metric, "global").n_tied_pairs == 0
    assert correlate(metric, human, "global", "kendall").value == pytest.approx(1.0)
    flat = np.array([[1.0, 1.0, 1.0, 4.0, 5.0]])  # the humans tie the three tiny ones
    assert pairwise_accuracy(metric, flat, "global").value == pytest.approx(7 / 10)
    result = tie_calibrated_accuracy(metric, flat, "global")  # 1e-9 ties the tiny ones
    assert (result.value, result.epsilon) == (pytest.approx(1.0), 1e-9)


def test_no_complete_pair() -> None:
    metric = np.array([[1.0, NAN], [NAN, 2.0]])
    human = np.array([[1.0, 1.0], [1.0, 1.0]])
    for result in (
        pairwise_accuracy(metric, human, "summary"),
        tie_calibrated_accuracy(metric, human, "summary"),
    ):
        assert np.isnan(result.value) and np.isnan(result.human_tie_share)
        assert (result.n_pairs, result.n_groups, result.epsilon) == (0, 0, 0.0)


# --- Brute force on random tied data ---


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("replies", [1, 4, 20])
def test_matches_brute_force(level: str, replies: int) -> None:
    epsilons = []
    for seed in range(24):
        # A noisy judge, where tying its close calls can pay off.
        metric, human = tied_scores(seed, 2 + seed % 6, 1 + seed % 7, replies, noise_sd=3.0)
        expected = brute_force(metric, human, level)
        fixed = pairwise_accuracy(metric, human, level)
        calibrated = tie_calibrated_accuracy(metric, human, level)
        if expected is None:  # no complete pair
            assert np.isnan(fixed.value) and np.isnan(calibrated.value)
            continue
        assert fixed.value == pytest.approx(expected["acc_eq"], abs=1e-12)
        assert calibrated.value == pytest.approx(expected["acc_star"], abs=1e-12)
        assert calibrated.epsilon == pytest.approx(expected["epsilon"], abs=1e-12)
        for result in (fixed, calibrated):
            assert result.human_tie_share == pytest.approx(expected["tie_share"], abs=1e-12)
            assert (result.n_pairs, result.n_groups) == (expected["n_pairs"], expected["n_groups"])
        refit = pairwise_accuracy(metric, human, level, epsilon=calibrated.epsilon)
        assert refit.value == pytest.approx(calibrated.value, abs=1e-12)
        epsilons.append(calibrated.epsilon)
    assert min(epsilons) == 0 < max(epsilons)  # both outcomes of the search are exercised


@pytest.mark.parametrize("level", LEVELS)
def test_judge_equal_to_humans_and_constant_judge(level: str) -> None:
    _, human = tied_scores(3, 6, 7, replies=4)
    human[np.isnan(human)] = 3.0
    for result in (
        pairwise_accuracy(human, human, level),
        tie_calibrated_accuracy(human, human, level),
    ):
        assert (result.value, result.epsilon) == (1.0, 0.0)
    constant = np.full(human.shape, 2.5)
    expected = brute_force(constant, human, level)
    assert expected is not None
    for result in (
        pairwise_accuracy(constant, human, level),
        tie_calibrated_accuracy(constant, human, level),
    ):
        # A judge that ties everything is right exactly on the human-tied pairs.
        assert result.value == pytest.approx(result.human_tie_share, abs=1e-12)
        assert result.value == pytest.approx(expected["tie_share"], abs=1e-12)
        assert result.epsilon == 0.0


# --- Bootstrap ---


def loop_over_resamples(metric, human, level: str, calibrate: bool, n_resamples: int, seed: int):
    """Redraw the resamples with the same generator calls and apply the brute force to each
    resampled matrix; None for a resample without a complete pair."""
    rng = np.random.default_rng(seed)
    key = "acc_star" if calibrate else "acc_eq"
    if level == "global":
        complete = ~(np.isnan(metric) | np.isnan(human))
        items_m, items_h = metric[complete], human[complete]
        draws = rng.integers(0, items_m.size, size=(n_resamples, items_m.size))
        resampled = [(items_m[row][None, :], items_h[row][None, :]) for row in draws]
    else:
        draws = rng.integers(0, metric.shape[1], size=(n_resamples, metric.shape[1]))
        resampled = [(metric[:, row], human[:, row]) for row in draws]
    values = []
    for m, h in resampled:
        result = brute_force(m, h, level)
        values.append(None if result is None else result[key])
    return values


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("calibrate", [True, False])
def test_bootstrap_equals_a_loop_over_resamples(level: str, calibrate: bool) -> None:
    metric, human = tied_scores(11, 5, 8, replies=20)
    if level == "summary":
        metric[1:, 0] = NAN  # input 0 has no pair: a resample of only it is undefined
    n_resamples = 60 if level == "global" else 120
    result = bootstrap_accuracy(
        metric, human, level, calibrate=calibrate, n_resamples=n_resamples, seed=7
    )
    loop = loop_over_resamples(metric, human, level, calibrate, n_resamples, seed=7)
    expected = np.array([v for v in loop if v is not None])
    assert result.n_invalid == loop.count(None)
    np.testing.assert_allclose(result.distribution, expected, rtol=0, atol=1e-12)
    low, high = np.percentile(expected, [2.5, 97.5])
    assert (result.low, result.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high))
    assert result.unit == ("items" if level == "global" else "inputs")


@pytest.mark.parametrize("calibrate", [True, False])
def test_system_resamples_in_small_blocks_give_the_same_values(
    calibrate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system level in batches of 7 resamples (30 = 4 x 7 + 2): the values of one batch,
    and of the brute force on each resampled matrix."""
    metric, human = tied_scores(11, 5, 8, replies=20)
    draws = np.random.default_rng(3).integers(0, metric.shape[1], (30, metric.shape[1]))
    whole = resampled_accuracies(metric, human, "system", draws, calibrate=calibrate)
    monkeypatch.setattr(accuracy, "SYSTEM_CELLS_PER_BLOCK", 7 * metric.size)
    blocked = resampled_accuracies(metric, human, "system", draws, calibrate=calibrate)
    np.testing.assert_array_equal(blocked, whole)
    key = "acc_star" if calibrate else "acc_eq"
    for row, value in zip(draws, blocked, strict=True):
        expected = brute_force(metric[:, row], human[:, row], "system")
        assert expected is not None and value == pytest.approx(expected[key], abs=1e-12)


def test_item_resamples_with_copies_equal_the_definition_on_the_resampled_vector() -> None:
    # Items drawn several times pair with their own copies: d = 0 and h = 0, a tie in both.
    metric, human = tied_scores(5, 1, 9, replies=20)
    complete = ~(np.isnan(metric) | np.isnan(human))
    items_m, items_h = metric[complete], human[complete]
    draws = np.array([[0] * items_m.size, [0, 0, 1, 1, 2] + [3] * (items_m.size - 5)])
    for calibrate in (True, False):
        values = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        for row, value in zip(draws, values, strict=True):
            expected = brute_force(items_m[row][None, :], items_h[row][None, :], "global")
            assert expected is not None
            assert value == pytest.approx(expected["acc_star" if calibrate else "acc_eq"])
    assert values[0] == 1.0  # one item drawn n times: every pair is a copy pair


# --- The global bootstrap in integers, against plain counts on each resampled vector ---


def counted_on_draws(
    items_m: np.ndarray, items_h: np.ndarray, draws: np.ndarray, calibrate: bool
) -> tuple[int, int]:
    """(correct pairs at the best threshold, or at 0 without ``calibrate``; all pairs) of
    the resampled vector ``items[draws]``: every pair of draws (copies of one item
    included), every candidate code, counted as integers."""
    m, h = items_m[draws], items_h[draws]
    first, second = np.triu_indices(draws.size, 1)
    codes = np.array([code(m[j] - m[i]) for i, j in zip(first, second, strict=True)], int)
    humans_tie = np.abs(h[second] - h[first]) < 1e-9
    same = (m[second] > m[first]) == (h[second] > h[first])
    candidates = np.unique(np.append(codes, 0)) if calibrate else np.array([0])
    metric_ties = codes[None, :] <= candidates[:, None]  # (candidates, pairs)
    correct = np.where(metric_ties, humans_tie, ~humans_tie & same).sum(axis=1)
    return int(correct.max()), first.size


def item_draws(n_items: int, seed: int) -> np.ndarray:
    """Random resamples of ``n_items`` items, and some that repeat one item many times."""
    draws = np.random.default_rng(seed).integers(0, n_items, (30, n_items))
    draws[0] = 0  # one item n times: only copy pairs
    draws[1, : n_items // 2] = 3  # one item half the times
    draws[2, : n_items - 2] = 1  # one item n - 2 times, and two others
    return draws


def global_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """Pooled items with many ties: judges averaging 20 and 4 replies (codes shared by
    float-noisy differences), a continuous metric (codes all distinct), and a constant
    judge; human means of 3 ratings, some cells missing."""
    judge, human = tied_scores(21, 3, 15, replies=20, noise_sd=1.5)
    few, human_few = tied_scores(22, 2, 20, replies=4)
    rng = np.random.default_rng(23)
    continuous = human + rng.normal(0, 0.7, human.shape)
    return [
        (judge, human),
        (few, human_few),
        (continuous, human),
        (np.full(human.shape, 3.0), human),
    ]


@pytest.mark.parametrize("calibrate", [True, False])
def test_global_resamples_equal_integer_counts_bit_for_bit(calibrate: bool) -> None:
    for case, (metric, human) in enumerate(global_cases()):
        complete = ~(np.isnan(metric) | np.isnan(human))
        items_m, items_h = metric[complete], human[complete]
        draws = item_draws(items_m.size, seed=case)
        values = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        for row, value in zip(draws, values, strict=True):
            correct, n_pairs = counted_on_draws(items_m, items_h, row, calibrate)
            assert value == correct / n_pairs  # the same float: an exact count, one division


@pytest.mark.parametrize("calibrate", [True, False])
def test_global_bootstrap_equals_integer_counts_for_its_seeded_draws(calibrate: bool) -> None:
    metric, human = global_cases()[0]
    result = bootstrap_accuracy(
        metric, human, "global", calibrate=calibrate, n_resamples=40, seed=3
    )
    complete = ~(np.isnan(metric) | np.isnan(human))
    items_m, items_h = metric[complete], human[complete]
    draws = np.random.default_rng(3).integers(0, items_m.size, (40, items_m.size))
    expected = [
        c / n for c, n in (counted_on_draws(items_m, items_h, row, calibrate) for row in draws)
    ]
    np.testing.assert_array_equal(result.distribution, expected)
    alpha = (1 - 0.95) / 2  # the module's percentiles, to the last bit
    assert (result.low, result.high) == tuple(
        np.percentile(expected, [100 * alpha, 100 * (1 - alpha)])
    )


@pytest.mark.parametrize("calibrate", [True, False])
def test_global_draw_counts_other_than_the_item_count(calibrate: bool) -> None:
    metric, human = global_cases()[1]
    complete = ~(np.isnan(metric) | np.isnan(human))
    items_m, items_h = metric[complete], human[complete]
    rng = np.random.default_rng(8)
    for n_draws in (2, 3, 2 * items_m.size + 1):
        draws = rng.integers(0, items_m.size, (6, n_draws))
        values = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        for row, value in zip(draws, values, strict=True):
            correct, n_pairs = counted_on_draws(items_m, items_h, row, calibrate)
            assert value == correct / n_pairs
    # 300 draws, 250 of one item: 44,850 pairs, more than int16 holds (the sums are int32).
    draws = rng.integers(0, items_m.size, (2, 300))
    draws[:, :250] = [[0], [5]]
    values = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
    for row, value in zip(draws, values, strict=True):
        assert value == np.divide(*counted_on_draws(items_m, items_h, row, calibrate))
    for n_draws in (0, 1):  # no pair
        draws = np.zeros((4, n_draws), dtype=int)
        values = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        assert np.isnan(values).all() and values.shape == (4,)


@pytest.mark.parametrize("calibrate", [True, False])
def test_global_int64_path_and_small_blocks_give_the_same_values(
    calibrate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for case, (metric, human) in enumerate(global_cases()):
        n_items = int((~(np.isnan(metric) | np.isnan(human))).sum())
        draws = item_draws(n_items, seed=10 + case)
        narrow = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        with monkeypatch.context() as patched:
            patched.setattr(accuracy, "NARROW_DRAWS", 0)  # int64 counts and sums
            wide = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        with monkeypatch.context() as patched:
            patched.setattr(accuracy, "GLOBAL_RESAMPLES_PER_BLOCK", 7)  # 30 = 4 x 7 + 2
            blocked = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        with monkeypatch.context() as patched:
            patched.setattr(accuracy, "GLOBAL_CELLS_PER_BLOCK", 1)  # one resample per batch
            single = resampled_accuracies(metric, human, "global", draws, calibrate=calibrate)
        np.testing.assert_array_equal(wide, narrow)
        np.testing.assert_array_equal(blocked, narrow)
        np.testing.assert_array_equal(single, narrow)


def test_global_calibration_merges_a_candidate_that_cannot_win() -> None:
    # Items (metric, human): 0 (0, 1), 1 (1, 1), 2 (3, 1), 3 (1.5, 2). Human-tied pairs:
    # (0,1) |d| = 1, (1,2) |d| = 2, (0,2) |d| = 3; concordant: (1,3) |d| = 0.5, (0,3)
    # |d| = 1.5; (2,3) discordant. Candidates 0, 1, 2, 3: moving to 1 ties (0,1) and (1,3),
    # to 2 ties (1,2) and (0,3), to 3 ties only (0,2), a gain in every resample: candidate 2
    # merges into 3.
    metric = np.array([[0.0, 1.0, 3.0, 1.5]])
    human = np.array([[1.0, 1.0, 1.0, 2.0]])
    plan = accuracy._global_plan(accuracy._pair_terms(metric[0], human[0]), 4, True, np.int16)
    assert plan.segments.shape[0] == 3  # 0, 1 and 3
    # Once each: epsilon 0, 1, 2, 3: 2, 2, 2, 3 of 6. Item 3 twice, 0 and 1: a copy pair,
    # (0,3) and (1,3) twice, (0,1): 5, 4, 2, 2. Item 2 twice, 0 and 1: a copy pair, (0,1),
    # (0,2) and (1,2) twice: 1, 2, 4, 6.
    draws = np.array([[0, 1, 2, 3], [3, 3, 0, 1], [0, 1, 2, 2]])
    calibrated = resampled_accuracies(metric, human, "global", draws, calibrate=True)
    fixed = resampled_accuracies(metric, human, "global", draws, calibrate=False)
    assert calibrated.tolist() == [3 / 6, 5 / 6, 6 / 6]
    assert fixed.tolist() == [2 / 6, 5 / 6, 1 / 6]
    for row, value in zip(draws, calibrated, strict=True):
        assert value == np.divide(*counted_on_draws(metric[0], human[0], row, True))


def test_global_concordant_pairs_at_the_largest_candidate_tie_there() -> None:
    # Items (metric, human): 0 (0, 1), 1 (1, 1), 2 (0, 2), 3 (1, 3). (0,1) humans tie,
    # |d| = 1: the only candidate besides 0. (2,3) and (0,3) concordant with |d| = 1: tied
    # (wrong) at epsilon 1. (0,2), (1,3) the judge ties, the humans not; (1,2) discordant.
    # Draws 0, 0, 1, 1, 2, 3 (15 pairs): epsilon 0: 2 copy pairs + (0,3) twice + (2,3) = 5;
    # epsilon 1: 2 copy pairs + (0,1) four times = 6.
    metric = np.array([[0.0, 1.0, 0.0, 1.0]])
    human = np.array([[1.0, 1.0, 2.0, 3.0]])
    # Once each (6 pairs): epsilon 0: 2; epsilon 1: 1.
    once = np.array([[0, 1, 2, 3]])
    assert resampled_accuracies(metric, human, "global", once, calibrate=True).tolist() == [2 / 6]
    six = np.array([[0, 0, 1, 1, 2, 3]])
    assert resampled_accuracies(metric, human, "global", six, calibrate=True).tolist() == [6 / 15]
    assert resampled_accuracies(metric, human, "global", six, calibrate=False).tolist() == [5 / 15]


def test_global_sums_beyond_int16() -> None:
    # A judge equal to the humans is right on every pair; 5 items drawn 60 times each make
    # 10 pairs of 3,600 occurrences (36,000 in segment 0, past int16) and 8,850 copy pairs.
    _, human = tied_scores(4, 1, 12, replies=4)
    human = human[~np.isnan(human)][None, :]
    draws = np.repeat(np.arange(5), 60)[None, :]
    for calibrate in (True, False):
        values = resampled_accuracies(human, human, "global", draws, calibrate=calibrate)
        assert values.tolist() == [1.0]


# --- The summary bootstrap as a product of draw counts, against each resampled matrix ---


def summary_counts_on_draws(
    metric: np.ndarray, human: np.ndarray, columns: np.ndarray, calibrate: bool
) -> tuple[int, int]:
    """(correct pairs at the best threshold, or at 0 without ``calibrate``; all pairs) of the
    resampled matrix ``metric[:, columns]`` without missing cells: every pair of systems in
    every drawn document (copies included), every candidate code, counted as integers. With
    equal pair counts the mean of the documents' shares is the total over all pairs."""
    m, h = metric[:, columns], human[:, columns]
    first, second = np.triu_indices(m.shape[0], 1)
    codes = np.array([[code(d) for d in row] for row in m[second] - m[first]], int)
    humans_tie = np.abs(h[second] - h[first]) < 1e-9
    same = (m[second] > m[first]) == (h[second] > h[first])
    candidates = np.unique(np.append(codes, 0)) if calibrate else np.array([0])
    metric_ties = codes[None] <= candidates[:, None, None]  # (candidates, pairs, documents)
    correct = np.where(metric_ties, humans_tie, ~humans_tie & same).sum(axis=(1, 2))
    return int(correct.max()), codes.size


def complete_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """Summary matrices without missing cells (every document has all pairs): judges of 20
    and 4 replies, a continuous metric (every pair its own code), a constant judge and a
    judge equal to the humans."""
    cases = []
    for seed, n_systems, n_inputs, replies in ((31, 7, 12, 20), (32, 9, 10, 4)):
        metric, human = tied_scores(seed, n_systems, n_inputs, replies, noise_sd=1.5)
        cases.append(
            (np.where(np.isnan(metric), 3.0, metric), np.where(np.isnan(human), 2.0, human))
        )
    human = cases[0][1]
    continuous = human + np.random.default_rng(33).normal(0, 0.7, human.shape)
    cases += [(continuous, human), (np.full(human.shape, 3.0), human), (human, human)]
    return cases


def complete_members(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Systems with both scores, per document."""
    return (~(np.isnan(metric) | np.isnan(human))).sum(axis=0)


def input_draws(n_inputs: int, seed: int, n_resamples: int = 24) -> np.ndarray:
    """Random resamples of ``n_inputs`` documents, and some that draw one document often."""
    draws = np.random.default_rng(seed).integers(0, n_inputs, (n_resamples, n_inputs))
    draws[0] = 0  # one document n times
    draws[1, : n_inputs // 2] = 3  # one document half the times
    draws[2, : n_inputs - 2] = 1  # one document n - 2 times, and two others
    return draws


@pytest.mark.parametrize("calibrate", [True, False])
def test_summary_resamples_equal_integer_counts_bit_for_bit(calibrate: bool) -> None:
    key = "acc_star" if calibrate else "acc_eq"
    for case, (metric, human) in enumerate(complete_cases()):
        draws = input_draws(metric.shape[1], seed=case)
        values = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
        for row, value in zip(draws, values, strict=True):
            correct, n_pairs = summary_counts_on_draws(metric, human, row, calibrate)
            assert value == correct / n_pairs  # the same float: an exact count, one division
        for row, value in zip(draws[:4], values[:4], strict=True):  # and the exact fractions
            expected = brute_force(metric[:, row], human[:, row], "summary")
            assert expected is not None and value == expected[key]
    constant, human = complete_cases()[3]
    values = resampled_accuracies(constant, human, "summary", draws, calibrate=calibrate)
    for row, value in zip(draws, values, strict=True):  # right on the human-tied pairs only
        assert value == tie_calibrated_accuracy(constant[:, row], human[:, row], "summary").value
    values = resampled_accuracies(human, human, "summary", draws, calibrate=calibrate)
    assert (values == 1.0).all()


@pytest.mark.parametrize("calibrate", [True, False])
def test_summary_bootstrap_equals_integer_counts_for_its_seeded_draws(calibrate: bool) -> None:
    metric, human = complete_cases()[0]
    result = bootstrap_accuracy(
        metric, human, "summary", calibrate=calibrate, n_resamples=40, seed=3
    )
    draws = np.random.default_rng(3).integers(0, metric.shape[1], (40, metric.shape[1]))
    expected = [
        c / n for c, n in (summary_counts_on_draws(metric, human, row, calibrate) for row in draws)
    ]
    np.testing.assert_array_equal(result.distribution, expected)
    alpha = (1 - 0.95) / 2  # the module's percentiles, to the last bit
    assert (result.low, result.high) == tuple(
        np.percentile(expected, [100 * alpha, 100 * (1 - alpha)])
    )


@pytest.mark.parametrize("calibrate", [True, False])
def test_summary_unequal_pair_counts_match_the_definition(calibrate: bool) -> None:
    """Missing cells: documents with unequal pair counts (the weighted float path), one
    document with no pair at all, and resamples drawing one document many times or only the
    pairless one (undefined)."""
    key = "acc_star" if calibrate else "acc_eq"
    judge, human = tied_scores(34, 6, 11, replies=20, noise_sd=2.0)
    continuous = human + np.random.default_rng(35).normal(0, 0.7, human.shape)
    judge[1:, 2] = continuous[1:, 2] = NAN  # document 2: at most one complete cell, no pair
    assert len(set(complete_members(judge, human))) > 2  # unequal pair counts
    for case, metric in enumerate((judge, continuous)):
        draws = input_draws(metric.shape[1], seed=40 + case, n_resamples=30)
        draws[3] = 2  # only the pairless document: undefined
        draws[4, :-1] = 2  # the pairless document and one other
        values = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
        assert np.isnan(values[3]) and not np.isnan(values[4])
        for row, value in zip(draws, values, strict=True):
            expected = brute_force(metric[:, row], human[:, row], "summary")
            if expected is None:
                assert np.isnan(value)
            else:
                assert value == pytest.approx(expected[key], abs=1e-12)


@pytest.mark.parametrize("calibrate", [True, False])
def test_summary_count_types_and_blocks_give_the_same_values(
    calibrate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for case, (metric, human) in enumerate(complete_cases()):
        draws = input_draws(metric.shape[1], seed=50 + case, n_resamples=30)
        narrow = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
        for dtype in (np.int32, np.int64):
            with monkeypatch.context() as patched:
                patched.setattr(accuracy, "_count_type", lambda bound, dtype=dtype: dtype)
                wide = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
            np.testing.assert_array_equal(wide, narrow)
        with monkeypatch.context() as patched:
            patched.setattr(accuracy, "SUMMARY_RESAMPLES_PER_BLOCK", 7)  # 30 = 4 x 7 + 2
            blocked = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
        np.testing.assert_array_equal(blocked, narrow)
    # Float weights (unequal pair counts) in blocks of 7 and of 32.
    metric, human = tied_scores(38, 6, 11, replies=20, noise_sd=2.0)
    assert len(set(complete_members(metric, human))) > 2
    draws = input_draws(metric.shape[1], seed=60, n_resamples=30)
    whole = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
    with monkeypatch.context() as patched:
        patched.setattr(accuracy, "WEIGHTED_RESAMPLES_PER_BLOCK", 7)
        blocked = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
    np.testing.assert_array_equal(blocked, whole)
    # 16 systems, 300 draws: 36,000 pairs per resample, more than int16 holds (int32 counts).
    metric, human = tied_scores(36, 16, 12, replies=20)
    metric, human = np.where(np.isnan(metric), 4.0, metric), np.where(np.isnan(human), 1.0, human)
    assert accuracy._count_type(120 * 300) is np.int32
    draws = np.random.default_rng(37).integers(0, 12, (3, 300))
    draws[0, :250] = 5
    values = resampled_accuracies(metric, human, "summary", draws, calibrate=calibrate)
    for row, value in zip(draws, values, strict=True):
        assert value == np.divide(*summary_counts_on_draws(metric, human, row, calibrate))


def test_bootstrap_is_deterministic_for_a_seed_and_brackets_the_estimate() -> None:
    metric, human = tied_scores(2, 8, 30, replies=20)
    first = bootstrap_accuracy(metric, human, "summary", calibrate=True, n_resamples=300, seed=4)
    second = bootstrap_accuracy(metric, human, "summary", calibrate=True, n_resamples=300, seed=4)
    other = bootstrap_accuracy(metric, human, "summary", calibrate=True, n_resamples=300, seed=5)
    np.testing.assert_array_equal(first.distribution, second.distribution)
    assert not np.array_equal(first.distribution, other.distribution)
    point = tie_calibrated_accuracy(metric, human, "summary").value
    assert first.low < point < first.high


def test_bad_arguments_raise() -> None:
    metric, human = tied_scores(1, 4, 5, replies=4)
    with pytest.raises(ValueError, match="unknown level"):
        tie_calibrated_accuracy(metric, human, "turn")
    with pytest.raises(ValueError, match="epsilon"):
        pairwise_accuracy(metric, human, "summary", epsilon=-0.1)
    with pytest.raises(ValueError, match="resamples 'inputs' at the summary level"):
        bootstrap_accuracy(metric, human, "summary", calibrate=True, unit="systems", seed=0)
    with pytest.raises(ValueError, match="only to the global level"):
        bootstrap_accuracy(metric, human, "summary", calibrate=True, unit="items", seed=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_accuracy(metric, human, "global", calibrate=True, confidence=95, seed=0)
    with pytest.raises(ValueError, match="none of the 1000 resamples has a complete pair"):
        bootstrap_accuracy(np.ones((1, 4)), np.ones((1, 4)), "summary", calibrate=True, seed=0)
