"""The rating distribution of a reply, read from its top log-probabilities.

For one choice of a Chat Completions response with ``logprobs.content`` (one entry per
generated token, each with ``top_logprobs``):

1. the *rating position* is the first generated token whose text, whitespace stripped, is a
   valid rating of the dimension's scale (tokens before it, e.g. ``" "``, ``"Score"``, ``":"``,
   are skipped);
2. at that position every top candidate whose stripped text is a valid rating contributes
   ``exp(logprob)`` to its rating (candidates naming the same rating, e.g. ``"4"`` and ``" 4"``,
   add up);
3. ``off_scale_mass = 1 - (sum of those valid-rating probabilities)``: the probability, at
   that position, of everything that is not a listed valid rating, i.e. of the listed
   candidates that are not ratings *plus* all tokens outside the top-K list. It is therefore
   an upper bound on the true off-scale probability (an unlisted token could be a rating);
   clipped at 0 against rounding;
4. ``rating_probs``: the valid-rating probabilities renormalized to sum to 1 (every rating of
   the scale present, 0 where no candidate named it), and ``weighted_score`` =
   ``sum_s p(s) * s / sum_s p(s)`` from :func:`geval_repro.stats.weighted.weighted_score`.

A prompt whose reply is a Yes/No answer (a benchmark's prompt variant, ``answers``: word ->
binary score) is read the same way with its answer words as the ratings: the *answer
position* is the first generated token whose text, whitespace stripped and case-folded, is
``yes`` or ``no``; there every top candidate naming ``yes`` (``"Yes"``, ``" yes"``,
``"YES"``, ``"\nYes"``, ...) adds its probability to Yes and every one naming ``no`` to No
(a candidate with more than the word, e.g. ``"Yes,"`` or ``"Yesterday"``, names neither);
``rating_probs`` is then ``{"0": p(No), "1": p(Yes)}`` renormalized, so the weighted score is
P(Yes) = p(Yes) / (p(Yes) + p(No)), and ``off_scale_mass`` what the top candidates give to
neither (plus everything outside the list).

Over the ``n`` choices of one item (mode ``both``), the valid-rating probabilities and the
off-scale mass are averaged over the choices that have a rating position (the choices share
their distribution when they all start on the rating token, the usual case).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from geval_repro.stats.weighted import weighted_score

_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class RatingReading:
    """The rating distribution of one item (see the module docstring); a geval-jsonl file
    stores ``rating_probs`` as its ``level_probs`` field."""

    rating_probs: dict[str, float]
    weighted_score: float
    off_scale_mass: float


def _rating(
    token: str, ratings: Sequence[int], answers: Mapping[str, int] | None = None
) -> int | None:
    """The rating a token names (its stripped text a rating of ``ratings``), or with
    ``answers`` the score of the answer word it names (stripped, case-folded); else None."""
    text = token.strip()
    if answers is not None:
        return answers.get(text.casefold())
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value in ratings else None


def choice_rating_mass(
    content: Sequence[Mapping[str, Any]],
    ratings: Sequence[int],
    answers: Mapping[str, int] | None = None,
) -> dict | None:
    """Valid-rating probabilities at the first rating token of one choice; None if it has none.

    ``content`` is ``choice["logprobs"]["content"]``. Returns ``{rating: probability}`` over
    the ratings listed among that token's top candidates (with ``answers``: the answers'
    scores, every listed spelling of a word summed).
    """
    for position in content:
        if _rating(position["token"], ratings, answers) is None:
            continue
        mass: dict[int, float] = {}
        for candidate in position.get("top_logprobs") or []:
            rating = _rating(candidate["token"], ratings, answers)
            if rating is not None:
                mass[rating] = mass.get(rating, 0.0) + math.exp(candidate["logprob"])
        if not mass:  # no top list: the sampled token is all we know
            mass[_rating(position["token"], ratings, answers)] = math.exp(position["logprob"])
        return mass
    return None


def rating_reading(
    choices: Sequence[Mapping[str, Any]],
    ratings: Sequence[int],
    answers: Mapping[str, int] | None = None,
) -> RatingReading | None:
    """The item's rating distribution from its choices' log-probabilities (None: no rating);
    ``answers``: a Yes/No prompt's answer words -> scores (``ratings`` their scores)."""
    masses = []
    for choice in choices:
        content = (choice.get("logprobs") or {}).get("content") or []
        mass = choice_rating_mass(content, ratings, answers)
        if mass is not None:
            masses.append(mass)
    if not masses:
        return None
    mean = {r: sum(m.get(r, 0.0) for m in masses) / len(masses) for r in ratings}
    total = sum(mean.values())
    if total <= 0:
        return None
    return RatingReading(
        rating_probs={str(rating): p / total for rating, p in mean.items()},
        weighted_score=weighted_score(mean, (min(ratings), max(ratings))),
        off_scale_mass=max(0.0, 1.0 - total),
    )
