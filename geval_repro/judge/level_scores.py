"""Per-item scores of a judge's level probabilities (format ``geval-jsonl``, ``level_probs``).

For an item with probability ``p(s)`` of each level ``s`` of the judge scale:

- ``probs``: the renormalized weighted score of Eq. 1, ``sum_s p(s) s / sum_s p(s)``
  (:func:`geval_repro.judge.item_scores.weighted_scores`), the paper's "G-Eval" score; NaN
  when no level has mass;
- ``top_level``: the most likely level (ties go to the lowest level), the score one greedy
  token would give: the "-Probs" analogue, so Probs vs -Probs come from one run.

Scores are rows of :func:`level_item_scores` with ``parser`` = ``level-probs`` (no reply
text is parsed), so the roll-ups of :mod:`geval_repro.judge.rollups` apply unchanged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.judge import rollups
from geval_repro.judge.item_scores import item_columns, weighted_scores

PARSER = "level-probs"
SCORES = ("probs", "top_level")


def _per_dimension(part: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray, list]:
    """(items, probs matrix (items x levels), levels) of one dimension's rows."""
    ordered = part.sort_values([*keys, "level"], kind="stable")
    levels = sorted(ordered["level"].unique())
    matrix = ordered["prob"].to_numpy(dtype=float).reshape(-1, len(levels))
    items = ordered.drop_duplicates(keys, keep="first")[[*keys, "off_scale_mass"]]
    return items.reset_index(drop=True), matrix, levels


def level_item_scores(level_probs: pd.DataFrame) -> pd.DataFrame:
    """One row per item: item columns, parser (``level-probs``), probs, top_level,
    level_mass (sum of the level probabilities), off_scale_mass and ``p_<level>`` per level."""
    keys = item_columns(level_probs)
    frames = []
    for _, part in level_probs.groupby("dimension", sort=True):
        items, matrix, levels = _per_dimension(part, keys)
        level_array = np.asarray(levels, dtype=float)
        frames.append(
            items.assign(
                parser=PARSER,
                probs=weighted_scores(matrix, level_array),
                top_level=np.where(
                    matrix.sum(axis=1) > 0, level_array[np.argmax(matrix, axis=1)], np.nan
                ),
                level_mass=matrix.sum(axis=1),
                **{f"p_{level}": matrix[:, i] for i, level in enumerate(levels)},
            )
        )
    out = pd.concat(frames, ignore_index=True)
    probability_columns = sorted(
        (c for c in out.columns if c.startswith("p_")), key=lambda c: int(c[2:])
    )
    columns = [*keys, "parser", *SCORES, "level_mass", "off_scale_mass", *probability_columns]
    return out.loc[:, columns]


def level_results(scores: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per-item results in the shape G-Eval libraries report: the level distribution
    (``p_<level>``), the expected level (``probs``, Eq. 1), the most likely level, the score
    normalized to 0-1 on the judge scale, and ``passed`` (normalized score >= ``threshold``;
    empty where the item has no score)."""
    normalized = rollups.normalized(scores["probs"], scores).to_numpy(dtype=float)
    passed = pd.array(
        np.where(np.isnan(normalized), pd.NA, normalized >= threshold), dtype="boolean"
    )
    keys = [c for c in scores.columns if c not in ("parser", *SCORES)]
    keys = keys[: keys.index("level_mass")]
    probabilities = [c for c in scores.columns if c.startswith("p_")]
    return scores.assign(
        expected_level=scores["probs"],
        most_likely_level=scores["top_level"],
        score_normalized=normalized,
        passed=passed,
        threshold=threshold,
    ).loc[
        :,
        [
            *keys,
            *probabilities,
            "expected_level",
            "most_likely_level",
            "score_normalized",
            "passed",
            "threshold",
            "level_mass",
            "off_scale_mass",
        ],
    ]
