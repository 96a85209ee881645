"""Known answers of the level distribution read from top log-probabilities (hand-computed)."""

from __future__ import annotations

import math

import pytest

from geval_repro.runner.logprobs import rating_reading

LEVELS = (1, 2, 3, 4, 5)


def position(token: str, top: dict[str, float]) -> dict:
    """One generated token with its top candidates given as probabilities."""
    return {
        "token": token,
        "logprob": math.log(top.get(token, 0.5)),
        "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in top.items()],
    }


def choice(*positions: dict) -> dict:
    return {"message": {"content": ""}, "logprobs": {"content": list(positions)}}


def test_weighted_326_with_off_scale_token_after_leading_tokens():
    # Leading " ", "Score", ":" are skipped; at " 3" the top candidates are
    # 3: 0.6, 4: 0.3, 2: 0.05, "the": 0.05. Valid mass 0.95, off-scale 0.05.
    # Weighted = (3*0.6 + 4*0.3 + 2*0.05) / 0.95 = 3.1 / 0.95 = 3.263157894...
    top = {"3": 0.6, "4": 0.3, "2": 0.05, "the": 0.05}
    filler = {"x": 0.9}
    reading = rating_reading(
        [
            choice(
                position(" ", filler),
                position("Score", filler),
                position(":", filler),
                position(" 3", top),
            )
        ],
        LEVELS,
    )
    assert reading.weighted_score == pytest.approx(3.1 / 0.95, abs=1e-12)
    assert round(reading.weighted_score, 2) == 3.26
    assert reading.off_scale_mass == pytest.approx(0.05, abs=1e-12)
    expected = {"1": 0.0, "2": 0.05 / 0.95, "3": 0.6 / 0.95, "4": 0.3 / 0.95, "5": 0.0}
    assert reading.rating_probs == pytest.approx(expected, abs=1e-12)


def test_weighted_430_merges_tokens_naming_one_level():
    # "4" 0.35 and " 4" 0.10 are both level 4 (0.45); 5: 0.36; 3: 0.09; "The": 0.10.
    # Valid mass 0.9; weighted = (4*0.45 + 5*0.36 + 3*0.09) / 0.9 = 3.87 / 0.9 = 4.3.
    top = {"4": 0.35, " 4": 0.10, "5": 0.36, "3": 0.09, "The": 0.10}
    reading = rating_reading([choice(position("4", top))], LEVELS)
    assert reading.weighted_score == pytest.approx(4.3, abs=1e-12)
    assert reading.off_scale_mass == pytest.approx(0.1, abs=1e-12)
    assert reading.rating_probs["4"] == pytest.approx(0.5, abs=1e-12)


def test_weighted_443_counts_unlisted_mass_as_off_scale():
    # Only 4: 0.456 and 5: 0.344 are listed (sum 0.8); the other 0.2 is outside the top list.
    # Weighted = (4*0.456 + 5*0.344) / 0.8 = 3.544 / 0.8 = 4.43; off-scale mass = 0.2.
    reading = rating_reading([choice(position("4", {"4": 0.456, "5": 0.344}))], LEVELS)
    assert reading.weighted_score == pytest.approx(4.43, abs=1e-12)
    assert reading.off_scale_mass == pytest.approx(0.2, abs=1e-12)


def test_choices_are_averaged_and_choices_without_a_level_ignored():
    # Choice 1: 4: 1.0 -> mass {4: 1.0}; choice 2: 2: 0.5, "no": 0.5 -> {2: 0.5};
    # choice 3 never writes a level. Mean over the two readable choices: {4: 0.5, 2: 0.25},
    # valid mass 0.75, off-scale 0.25, weighted (2 + 0.5) / 0.75 = 3.3333...
    readable = [choice(position("4", {"4": 1.0})), choice(position("2", {"2": 0.5, "no": 0.5}))]
    unreadable = choice(position("Good", {"Good": 0.9}))
    reading = rating_reading([*readable, unreadable], LEVELS)
    assert reading.weighted_score == pytest.approx(2.5 / 0.75, abs=1e-12)
    assert reading.off_scale_mass == pytest.approx(0.25, abs=1e-12)


def test_out_of_scale_digits_are_not_levels_and_no_level_gives_none():
    # "6" is not on 1-5: the first level token is " 2" (top: 2: 0.8, 6: 0.2).
    reading = rating_reading(
        [choice(position("6", {"6": 1.0}), position(" 2", {"2": 0.8, "6": 0.2}))], LEVELS
    )
    assert reading.weighted_score == pytest.approx(2.0)
    assert reading.off_scale_mass == pytest.approx(0.2, abs=1e-12)
    assert rating_reading([choice(position("six", {"six": 1.0}))], LEVELS) is None
    assert rating_reading([{"message": {"content": "3"}}], LEVELS) is None  # no logprobs


def test_zero_one_scale_reads_zero():
    # Groundedness 0-1: 0: 0.7, 1: 0.2, "yes": 0.1 -> weighted 0.2 / 0.9 = 0.2222...
    reading = rating_reading([choice(position("0", {"0": 0.7, "1": 0.2, "yes": 0.1}))], (0, 1))
    assert reading.weighted_score == pytest.approx(0.2 / 0.9, abs=1e-12)
    assert reading.rating_probs == pytest.approx({"0": 0.7 / 0.9, "1": 0.2 / 0.9}, abs=1e-12)
