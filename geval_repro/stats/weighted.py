"""Eq. 1 of G-Eval: the probability-weighted score of a rating distribution.

``score = sum_s p(s) * s / sum_s p(s)`` over the valid ratings ``s`` of a dimension's judge
scale (e.g. 1..5), from a rating distribution or a judge's top log-probabilities (pass
probabilities, i.e. ``exp`` of the logprobs). Mass on anything that is not a valid rating
is dropped and the rest renormalized. Both the judge runner (reading log-probabilities) and
the scoring of a ``geval-jsonl`` run use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

_SCORE_TOKEN = re.compile(r"\d+")


def _valid_level(token: str | int, low: int, high: int) -> int | None:
    if isinstance(token, bool):
        return None
    if isinstance(token, int | np.integer):
        level = int(token)
    elif isinstance(token, str) and _SCORE_TOKEN.fullmatch(token.strip()):
        level = int(token.strip())
    else:
        return None
    return level if low <= level <= high else None


def weighted_score(probs: Mapping[str | int, float], scale: tuple[int, int]) -> float:
    """``sum_s p(s) * s / sum_s p(s)`` over the valid score tokens, renormalized.

    ``probs`` maps tokens (``"3"``, ``" 3"`` or ``3``) to probabilities, e.g. a judge's
    top-logprobs after ``exp``. Valid tokens are integers (surrounding whitespace allowed)
    within ``scale`` = (min, max); other tokens' mass is dropped and the rest renormalized.
    Tokens naming the same level add up. NaN when no valid token has positive mass.
    Example: {"3": 0.6, "4": 0.3, "2": 0.05, "the": 0.05} on (1, 5) gives
    (1.8 + 1.2 + 0.1) / 0.95 = 3.2631...
    """
    low, high = scale
    mass = 0.0
    weighted = 0.0
    for token, p in probs.items():
        if not np.isfinite(p) or p < 0:
            raise ValueError(f"probability of token {token!r} is {p!r}: must be finite and >= 0")
        level = _valid_level(token, low, high)
        if level is not None:
            mass += p
            weighted += p * level
    return weighted / mass if mass > 0 else float("nan")


def weighted_scores(probs: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Vectorized :func:`weighted_score`: ``probs[..., k]`` is the probability of ``levels[k]``.

    Only the valid levels are given (mass on other tokens is simply not passed), so the
    result ``sum_k p_k * levels[k] / sum_k p_k`` is renormalized over them; NaN where the
    valid mass is 0. Shape: ``probs.shape[:-1]``.
    """
    p = np.asarray(probs, dtype=float)
    lv = np.asarray(levels, dtype=float)
    if p.shape[-1:] != lv.shape:
        raise ValueError(
            f"probs has last axis {p.shape[-1:]} but {lv.size} levels were given: "
            "pass one probability column per level"
        )
    if not np.isfinite(p).all() or (p < 0).any():
        raise ValueError("probabilities must be finite and >= 0")
    mass = p.sum(axis=-1)
    weighted = (p * lv).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mass > 0, weighted / mass, np.nan)
