"""Tie rates: hand examples, a brute-force pair count by the tie rule written out by hand,
and SummEval's 12,000 pairs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.sources import get_source
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.ties import tie_rate


def clusters(values: list[float]) -> dict[float, int]:
    """The tie rule by hand: sorted, neighbours a <= b join when b - a < 1e-9 max(|a|, |b|)
    (or are equal); each value -> its cluster's number."""
    number, out, previous = -1, {}, None
    for value in sorted(values):
        gap_small = previous is not None and (
            value == previous or value - previous < 1e-9 * max(abs(value), abs(previous))
        )
        number += 0 if gap_small else 1
        out[value] = number
        previous = value
    return out


def brute_force(groups: list[np.ndarray]) -> tuple[int, int]:
    tied = pairs = 0
    for group in groups:
        present = group[~np.isnan(group)].tolist()
        cluster = clusters(present)
        for a, b in itertools.combinations(present, 2):
            pairs += 1
            tied += cluster[a] == cluster[b]
    return tied, pairs


def test_hand_example_summary_level() -> None:
    # Input 0: (1, 1, 2): one tied pair of three. Input 1: (3, NaN, 3): one pair, tied.
    scores = np.array([[1.0, 3.0], [1.0, np.nan], [2.0, 3.0]])
    result = tie_rate(scores, "summary")
    assert (result.n_tied_pairs, result.n_pairs) == (2, 4)
    assert result.rate == pytest.approx(0.5)


def test_hand_example_global_and_system_levels() -> None:
    scores = np.array([[1.0, 3.0], [1.0, np.nan], [2.0, 3.0]])
    # Pooled (1, 3, 1, 2, 3): pairs (1, 1) and (3, 3) tied among C(5, 2) = 10.
    result = tie_rate(scores, "global")
    assert (result.n_tied_pairs, result.n_pairs) == (2, 10)
    # System means (2, 1, 2.5): no tie among 3 pairs.
    result = tie_rate(scores, "system")
    assert (result.n_tied_pairs, result.n_pairs, result.rate) == (0, 3, 0.0)


def test_the_tie_rule_is_relative_and_chains() -> None:
    # 1 and 1 + 1e-10 tie (relative 1e-9); 1 + 2e-9 is apart from both.
    scores = np.array([[1.0], [1.0 + 1e-10], [1.0 + 2e-9]])
    assert tie_rate(scores, "summary").n_tied_pairs == 1
    # Sentence BLEU on a tiny scale keeps its order: no tie among 1e-17, 2e-17, 5e-10.
    tiny = np.array([[1e-17], [2e-17], [5e-10], [0.3]])
    assert tie_rate(tiny, "summary").n_tied_pairs == 0
    # A chain: each within 1e-9 (relative) of the next: one cluster, 3 tied pairs.
    chain = np.array([[1.0], [1.0 + 0.6e-9], [1.0 + 1.2e-9]])
    assert tie_rate(chain, "summary").n_tied_pairs == 3


@pytest.mark.parametrize("level", ["summary", "global"])
def test_matches_brute_force(level: str) -> None:
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 5, size=(9, 14)) / 3.0
    scores[:, :3] += rng.choice([0.0, 1e-16, 3e-10, 1e-12], size=(9, 3))  # near-ties
    scores[rng.random(scores.shape) < 0.1] = np.nan
    groups = list(scores.T) if level == "summary" else [scores.ravel()]
    result = tie_rate(scores, level)
    assert (result.n_tied_pairs, result.n_pairs) == brute_force(groups)


def test_summeval_summary_level_has_12000_pairs(mirror_dir: Path) -> None:
    source = get_source("summeval")
    items = pd.DataFrame(json.loads((mirror_dir / source.relpath).read_text(encoding="utf-8")))
    items["coherence"] = items.scores.map(lambda scores: scores["coherence"])
    human, _, _ = to_matrix(items, "coherence")
    assert human.shape == (16, 100)
    result = tie_rate(human, "summary")
    assert result.n_pairs == 100 * 16 * 15 // 2 == 12_000
    assert (result.n_tied_pairs, result.n_pairs) == brute_force(list(human.T))


def test_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown level"):
        tie_rate(np.zeros((2, 2)), "turn")
