"""What a judge favours and how it agrees with itself: the Spearman correlations of a judge
and of the humans with the text's length and the judge's partial Spearman correlation with
the humans once length is partialled out, at the benchmark's correlation level, and the
split-half reliability of a judge's replies with the Spearman-Brown correction.

- the partial Spearman correlation of ``x`` and ``y`` given ``z``, from their three
  Spearman correlations, ``(r_xy - r_xz r_yz) / sqrt((1 - r_xz**2) (1 - r_yz**2))`` (the
  Pearson correlation of the residuals of the ranks of ``x`` and ``y`` regressed on the ranks
  of ``z``); NaN when ``z`` or either of ``x``, ``y`` is constant;
- ``length_at_level(judge, human, length, level)``: the same at a benchmark's correlation
  level, on ``(n_systems, n_inputs)`` matrices (:mod:`geval_repro.stats.levels`) over the
  cells where all three are present. At the summary level, within each input (document):
  r_jl, r_hl, r_jh its Spearman correlations over its systems (an input with fewer than 2
  systems or a constant vector has none, as in the correlations), and its partial
  correlation p_d = (r_jh - r_jl r_hl) / sqrt((1 - r_jl**2) (1 - r_hl**2)); the judge's and
  the humans' length correlations are the means of r_jl and r_hl over the inputs that have
  them, the partial correlation the mean of p_d over the inputs where it is defined. At the
  global level one correlation over all cells (pooled, the level of Topical-Chat and QAGS)
  and the formula on those three. Spearman follows the one tie rule of the correlations;
- ``split_half(scores)``: ``scores`` ``(n_items, n_replies)`` of one judge (each item's
  replies in their order); the halves are the even and the odd replies, each item's mean over
  its half; ``r`` = the Spearman correlation of the two halves' means over the items, and
  ``2 r / (1 + r)`` its Spearman-Brown correction to the reliability of the mean of all the
  replies.

Matrix in, numbers out; imports nothing of the package but the statistics core's levels.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as scipy_stats

from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate_batch

#: The fewest items a value is given on.
MIN_ITEMS = 3
#: The smallest denominator of a partial correlation taken as nonzero.
DEGENERATE = 1e-9


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(scipy_stats.spearmanr(x, y).statistic)


def _partial(r_xy: np.ndarray, r_xz: np.ndarray, r_yz: np.ndarray) -> np.ndarray:
    """(r_xy - r_xz r_yz) / sqrt((1 - r_xz**2) (1 - r_yz**2)), NaN where a term is NaN or
    the denominator is 0 (up to rounding: a correlation of +-1 computed as 0.9999999999999998
    leaves nothing to partial out)."""
    denominator = np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (r_xy - r_xz * r_yz) / denominator
    return np.where(denominator > DEGENERATE, value, np.nan)


def length_at_level(
    judge: np.ndarray, human: np.ndarray, length: np.ndarray, level: Level | str
) -> tuple[float, float, float, int]:
    """``(r_judge_length, r_human_length, partial, n_groups)`` at ``level`` (module
    docstring) from three aligned ``(n_systems, n_inputs)`` matrices (NaN = missing);
    ``n_groups``: the inputs the partial correlation averages (summary level), else 1 when it
    is defined, 0 when not."""
    matrices = np.stack([np.asarray(m, dtype=float) for m in (judge, human, length)])
    matrices[:, np.isnan(matrices).any(axis=0)] = np.nan
    x, h, z = matrices
    # one batched call: (judge, length), (human, length), (judge, human)
    result = correlate_batch(np.stack([x, h, x]), np.stack([z, z, h]), level, "spearman")
    r_xz, r_hz, r_xh = result.value
    if Level(level).grouped:
        per_input = _partial(*result.per_group[[2, 0, 1]])
        defined = ~np.isnan(per_input)
        partial = float(per_input[defined].mean()) if defined.any() else math.nan
        return float(r_xz), float(r_hz), partial, int(defined.sum())
    partial = float(_partial(r_xh, r_xz, r_hz)) if result.n_items[2] >= MIN_ITEMS else math.nan
    return float(r_xz), float(r_hz), partial, int(not math.isnan(partial))


def spearman_brown(r: float) -> float:
    """The Spearman-Brown correction of a split-half correlation to the full length."""
    return 2 * r / (1 + r) if r != -1 else math.nan


def _half_mean(part: np.ndarray) -> np.ndarray:
    """Each row's mean over its present values, NaN for a row with none."""
    present = ~np.isnan(part)
    counts = present.sum(axis=1)
    sums = np.where(present, part, 0.0).sum(axis=1)
    return np.divide(sums, counts, out=np.full(len(part), np.nan), where=counts > 0)


def split_half(scores: np.ndarray) -> tuple[float, float, int]:
    """``(r, spearman_brown(r), n_items)`` of the even against the odd replies (module
    docstring), over the items with a reply in each half; NaN on fewer than 3 items."""
    scores = np.asarray(scores, dtype=float)
    even, odd = _half_mean(scores[:, 0::2]), _half_mean(scores[:, 1::2])
    keep = ~(np.isnan(even) | np.isnan(odd))
    if keep.sum() < MIN_ITEMS:
        return math.nan, math.nan, int(keep.sum())
    r = _spearman(even[keep], odd[keep])
    return r, (spearman_brown(r) if not math.isnan(r) else math.nan), int(keep.sum())
