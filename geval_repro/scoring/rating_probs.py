"""Per-item scores of a judge's rating probabilities (format ``geval-jsonl``, field
``rating_probs``).

For an item with probability ``p(s)`` of each rating ``s`` of the dimension's judge scale:

- ``probs``: the renormalized weighted score of Eq. 1, ``sum_s p(s) s / sum_s p(s)``
  (:func:`geval_repro.stats.weighted.weighted_scores`), the paper's "G-Eval" score; NaN
  when no rating has mass;
- ``top_rating``: the most likely rating (ties go to the lowest rating), the score one
  greedy token would give: the "-Probs" analogue, so Probs vs -Probs come from one run.

Scores are rows of :func:`rating_scores` with ``parser`` = ``rating-probs`` (no reply
text is parsed), so the roll-ups of :mod:`geval_repro.scoring.rollups` apply unchanged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.scoring import rollups
from geval_repro.scoring.item_scores import item_columns
from geval_repro.stats.weighted import weighted_scores

PARSER = "rating-probs"
RATING_SCORES = ("probs", "top_rating")


def _per_dimension(part: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray, list]:
    """(items, probs matrix (items x ratings), ratings) of one dimension's rows."""
    ordered = part.sort_values([*keys, "rating"], kind="stable")
    ratings = sorted(ordered["rating"].unique())
    matrix = ordered["prob"].to_numpy(dtype=float).reshape(-1, len(ratings))
    items = ordered.drop_duplicates(keys, keep="first")[[*keys, "off_scale_mass"]]
    return items.reset_index(drop=True), matrix, ratings


def rating_scores(rating_probs: pd.DataFrame) -> pd.DataFrame:
    """One row per item: item columns, parser (``rating-probs``), probs, top_rating,
    rating_mass (sum of the rating probabilities), off_scale_mass and ``p_<rating>`` per
    rating."""
    keys = item_columns(rating_probs)
    frames = []
    for _, part in rating_probs.groupby("dimension", sort=True):
        items, matrix, ratings = _per_dimension(part, keys)
        rating_array = np.asarray(ratings, dtype=float)
        frames.append(
            items.assign(
                parser=PARSER,
                probs=weighted_scores(matrix, rating_array),
                top_rating=np.where(
                    matrix.sum(axis=1) > 0, rating_array[np.argmax(matrix, axis=1)], np.nan
                ),
                rating_mass=matrix.sum(axis=1),
                **{f"p_{rating}": matrix[:, i] for i, rating in enumerate(ratings)},
            )
        )
    out = pd.concat(frames, ignore_index=True)
    probability_columns = sorted(
        (c for c in out.columns if c.startswith("p_")), key=lambda c: int(c[2:])
    )
    columns = [
        *keys,
        "parser",
        *RATING_SCORES,
        "rating_mass",
        "off_scale_mass",
        *probability_columns,
    ]
    return out.loc[:, columns]


def rating_results(
    scores: pd.DataFrame, threshold: float, scale: tuple[int, int] | None = None
) -> pd.DataFrame:
    """Per-item results in the shape G-Eval libraries report: the rating distribution
    (``p_<rating>``), the expected rating (``probs``, Eq. 1), the most likely rating, the score
    normalized to 0-1 on the judge scale (``scale`` when the ratings are not the dimension's
    judge scale: a Yes/No prompt's 0-1, whose expected rating is P(Yes)), and ``passed``
    (normalized score >= ``threshold``; empty where the item has no score)."""
    if scale is None:
        normalized = rollups.normalized(scores["probs"], scores).to_numpy(dtype=float)
    else:
        low, high = scale
        normalized = ((scores["probs"] - low) / (high - low)).to_numpy(dtype=float)
    passed = pd.array(
        np.where(np.isnan(normalized), pd.NA, normalized >= threshold), dtype="boolean"
    )
    keys = [c for c in scores.columns if c not in ("parser", *RATING_SCORES)]
    keys = keys[: keys.index("rating_mass")]
    probabilities = [c for c in scores.columns if c.startswith("p_")]
    return scores.assign(
        expected_rating=scores["probs"],
        most_likely_rating=scores["top_rating"],
        score_normalized=normalized,
        passed=passed,
        threshold=threshold,
    ).loc[
        :,
        [
            *keys,
            *probabilities,
            "expected_rating",
            "most_likely_rating",
            "score_normalized",
            "passed",
            "threshold",
            "rating_mass",
            "off_scale_mass",
        ],
    ]
