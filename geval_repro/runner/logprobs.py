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


def _rating(token: str, ratings: Sequence[int]) -> int | None:
    text = token.strip()
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value in ratings else None


def choice_rating_mass(content: Sequence[Mapping[str, Any]], ratings: Sequence[int]) -> dict | None:
    """Valid-rating probabilities at the first rating token of one choice; None if it has none.

    ``content`` is ``choice["logprobs"]["content"]``. Returns ``{rating: probability}`` over
    the ratings listed among that token's top candidates.
    """
    for position in content:
        if _rating(position["token"], ratings) is None:
            continue
        mass: dict[int, float] = {}
        for candidate in position.get("top_logprobs") or []:
            rating = _rating(candidate["token"], ratings)
            if rating is not None:
                mass[rating] = mass.get(rating, 0.0) + math.exp(candidate["logprob"])
        if not mass:  # no top list: the sampled token is all we know
            mass[_rating(position["token"], ratings)] = math.exp(position["logprob"])
        return mass
    return None


def rating_reading(
    choices: Sequence[Mapping[str, Any]], ratings: Sequence[int]
) -> RatingReading | None:
    """The item's rating distribution from its choices' log-probabilities (None: no rating)."""
    masses = []
    for choice in choices:
        content = (choice.get("logprobs") or {}).get("content") or []
        mass = choice_rating_mass(content, ratings)
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
