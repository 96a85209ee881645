"""The ``final`` parser on long replies as reasoning models write them (issue 49).

The replies are written by hand in the styles such models use (numbered assessments that
quote other numbers first, markdown, a ``</think>`` block, ``\\boxed{}``, "4/5"); each
expected rating is read off the reply by eye. The released parser (``original``) reads the
first number, which in these replies is rarely the rating: its values are given beside.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from geval_repro.scoring.parse import ALL_PARSERS, PARSERS, RATING_PARSERS, read

NAN = math.nan

STEPWISE = (
    "Let me go through the criteria.\n\n1. The summary opens with the main event.\n"
    "2. Sentences 3 and 4 repeat the same fact.\n3. The ending is abrupt.\n\n"
    "Overall the structure is mostly sound.\n\n**Coherence: 3**"
)
THINK = (
    "<think>The article has 5 paragraphs; the summary covers 2. Maybe a 2? No, the order "
    "is logical, so 4.</think>\n\nRating: 4"
)
# reply, final's rating on SummEval coherence (1-5), original's number
CASES = [
    (STEPWISE, 3.0, 0.0),  # "Let" is no number: original scores 0
    (THINK, 4.0, 0.0),  # the thoughts' numbers are dropped with them
    ("The summary is fine; 2 minor slips.\nFinal score: 4/5", 4.0, 0.0),
    ("Score: 8/10", NAN, 0.0),  # another scale's maximum: not this rating
    ("Rating: 7", NAN, 0.0),  # outside 1-5
    ("I weighed 2 issues against 3 strengths.\n\n**4**", 4.0, 0.0),  # a number alone, last
    ("Considering everything, the answer is \\boxed{2}.", 2.0, 0.0),
    ("1 issue: a dangling pronoun. Otherwise clear.\nThe rating is 5 out of 5.", 5.0, 1.0),
    ("4", 4.0, 4.0),  # a one-token reply reads as before
    ("- Coherence: 3", 3.0, 0.0),
    ("It is hard to say.", NAN, 0.0),
    ("A rating of 2 at first, but on reflection... Rating: 3", 3.0, 0.0),  # the last
]


@pytest.mark.parametrize(("reply", "final", "original"), CASES)
def test_final_reads_the_last_rating_of_a_long_reply(reply, final, original):
    replies = pd.Series([reply])
    got, unread = read(replies, "coherence", "final", "summeval")
    if math.isnan(final):
        assert math.isnan(got.iloc[0]) and bool(unread.iloc[0])
    else:
        assert got.iloc[0] == final and not bool(unread.iloc[0])
    assert read(replies, "coherence", "original", "summeval")[0].iloc[0] == original


def test_final_uses_the_benchmarks_scale():
    """Topical-Chat's engagingness is 1-3: a 4 is no rating there."""
    got = read(pd.Series(["Rating: 4", "Rating: 3"]), "engagingness", "final", "topical_chat")[0]
    assert math.isnan(got.iloc[0]) and got.iloc[1] == 3.0


def test_the_tables_keep_their_two_parsers():
    assert PARSERS == ("original", "tolerant")
    assert RATING_PARSERS == (*PARSERS, "final")
    assert ALL_PARSERS == (*RATING_PARSERS, "yes-no")  # yes-no: a Yes/No prompt's answers
