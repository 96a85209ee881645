"""The score-level distribution of a reply, read from its top log-probabilities.

For one choice of a Chat Completions response with ``logprobs.content`` (one entry per
generated token, each with ``top_logprobs``):

1. the *rating position* is the first generated token whose text, whitespace stripped, is a
   valid level of the dimension's scale (tokens before it, e.g. ``" "``, ``"Score"``, ``":"``,
   are skipped);
2. at that position every top candidate whose stripped text is a valid level contributes
   ``exp(logprob)`` to its level (candidates naming the same level, e.g. ``"4"`` and ``" 4"``,
   add up);
3. ``off_scale_mass = 1 - (sum of those valid-level probabilities)``: the probability, at
   that position, of everything that is not a listed valid level, i.e. of the listed
   candidates that are not ratings *plus* all tokens outside the top-K list. It is therefore
   an upper bound on the true off-scale probability (an unlisted token could be a level);
   clipped at 0 against rounding;
4. ``level_probs``: the valid-level probabilities renormalized to sum to 1 (every level of
   the scale present, 0 where no candidate named it), and ``weighted_score`` =
   ``sum_s p(s) * s / sum_s p(s)`` from :func:`geval_repro.stats.weighted.weighted_score`.

Over the ``n`` choices of one item (mode ``both``), the valid-level probabilities and the
off-scale mass are averaged over the choices that have a rating position (the choices share
their distribution when they all start on the level token, the usual case).
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
    """The level distribution of one item (see the module docstring)."""

    level_probs: dict[str, float]
    weighted_score: float
    off_scale_mass: float


def _rating(token: str, ratings: Sequence[int]) -> int | None:
    text = token.strip()
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value in ratings else None


def choice_rating_mass(content: Sequence[Mapping[str, Any]], ratings: Sequence[int]) -> dict | None:
    """Valid-level probabilities at the first level token of one choice; None if it has none.

    ``content`` is ``choice["logprobs"]["content"]``. Returns ``{level: probability}`` over
    the ratings listed among that token's top candidates.
    """
    for position in content:
        if _rating(position["token"], ratings) is None:
            continue
        mass: dict[int, float] = {}
        for candidate in position.get("top_logprobs") or []:
            level = _rating(candidate["token"], ratings)
            if level is not None:
                mass[level] = mass.get(level, 0.0) + math.exp(candidate["logprob"])
        if not mass:  # no top list: the sampled token is all we know
            mass[_rating(position["token"], ratings)] = math.exp(position["logprob"])
        return mass
    return None


def rating_reading(
    choices: Sequence[Mapping[str, Any]], ratings: Sequence[int]
) -> RatingReading | None:
    """The item's level distribution from its choices' log-probabilities (None: no level)."""
    masses = []
    for choice in choices:
        content = (choice.get("logprobs") or {}).get("content") or []
        mass = choice_rating_mass(content, ratings)
        if mass is not None:
            masses.append(mass)
    if not masses:
        return None
    mean = {level: sum(m.get(level, 0.0) for m in masses) / len(masses) for level in ratings}
    total = sum(mean.values())
    if total <= 0:
        return None
    return RatingReading(
        level_probs={str(level): p / total for level, p in mean.items()},
        weighted_score=weighted_score(mean, (min(ratings), max(ratings))),
        off_scale_mass=max(0.0, 1.0 - total),
    )
