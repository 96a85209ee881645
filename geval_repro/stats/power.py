"""How sure, how many items: the paired bootstrap of a difference of two correlations with the
same humans, and the power it implies (docs/protocol.md, "The judge card").

Input: score matrices ``(n_systems, n_inputs)`` of two metrics ``a`` and ``b`` (a judge and
the best baseline), or of ``a`` and several references whose mean correlation is the second
term (the human ceiling: each expert against the mean of the others), and the humans'. The
cells kept are those every matrix scores. ``B`` resamples draw the level's bootstrap units
with replacement (documents at the summary and system levels, items when pooled), the same
draw for every matrix, from ``seed``; each gives ``D* = corr*(a) - corr*(b)``. From them:

- the interval: the 2.5 and 97.5 percentiles of ``D*`` (undefined resamples dropped);
- ``se``: the standard deviation of ``D*``;
- the smallest difference detectable with 80 % power by a two-sided test at 0.05 on these
  ``n`` units: ``(z_0.975 + z_0.80) * se`` (a normal approximation of the difference's
  sampling distribution, its spread estimated by the bootstrap);
- the units (documents, or items when pooled) needed to detect the observed difference ``d``
  with that power: ``ceil(n * ((z_0.975 + z_0.80) * se / |d|) ** 2)``, assuming ``se``
  shrinks as ``1 / sqrt(n)`` (units drawn like these ones); none when ``d`` is 0.

Matrix in, numbers out; imports nothing of the package but the statistics core.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

from geval_repro.stats.bootstrap import resampled_correlations
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate

#: Two-sided test level and power of the detectable difference.
ALPHA = 0.05
POWER = 0.80
#: The fewest units a difference is bootstrapped over.
MIN_UNITS = 10


@dataclass(frozen=True)
class PairedDifference:
    """``value`` = corr(a) - corr(b) on the kept cells, its percentile interval, ``se``, the
    ``detectable`` difference at 80 % power, the ``units_needed`` to detect ``value``, on
    ``n_units`` (documents or items) and ``n_resamples`` (those with a defined value)."""

    value: float
    ci_low: float
    ci_high: float
    se: float
    detectable: float
    units_needed: int | None
    n_units: int
    n_resamples: int


def _kept(matrices: Sequence[np.ndarray]) -> list[np.ndarray]:
    present = np.logical_and.reduce([~np.isnan(m) for m in matrices])
    return [np.where(present, m, np.nan) for m in matrices]


def paired_difference(
    a: np.ndarray,
    b: np.ndarray | Sequence[tuple[np.ndarray, np.ndarray]],
    human: np.ndarray,
    level: Level | str,
    coefficient: str,
    n_resamples: int,
    seed: int,
) -> PairedDifference | None:
    """The paired bootstrap of ``corr(a, human) - corr(b, human)`` (module docstring); ``b``
    either a matrix, or ``(metric, reference)`` pairs whose correlations are averaged (the
    human ceiling: each expert against the mean of the others). None on fewer than
    :data:`MIN_UNITS` units."""
    level = Level(level)
    pairs = list(b) if not isinstance(b, np.ndarray) else [(b, human)]
    kept = _kept([a, human, *(m for pair in pairs for m in pair)])
    if not Level(level).pooled:  # the documents some cell is kept in
        columns = (~np.isnan(kept[0])).any(axis=0)
        kept = [m[:, columns] for m in kept]
    a, human, rest = kept[0], kept[1], kept[2:]
    pairs = [(rest[2 * k], rest[2 * k + 1]) for k in range(len(pairs))]
    pooled = level.pooled
    units = int((~np.isnan(a)).sum()) if pooled else int((~np.isnan(a)).any(axis=0).sum())
    if units < MIN_UNITS:
        return None
    rng = np.random.default_rng(seed)
    if pooled:
        draws = {"item_indices": rng.integers(0, units, size=(n_resamples, units))}
    else:
        draws = {"input_indices": rng.integers(0, a.shape[1], size=(n_resamples, a.shape[1]))}

    def value(metric: np.ndarray, reference: np.ndarray) -> float:
        return correlate(metric, reference, level, coefficient).value

    def resampled(metric: np.ndarray, reference: np.ndarray) -> np.ndarray:
        return resampled_correlations(metric, reference, level, coefficient, **draws)

    observed = value(a, human) - float(np.mean([value(m, r) for m, r in pairs]))
    differences = resampled(a, human) - np.mean([resampled(m, r) for m, r in pairs], axis=0)
    differences = differences[~np.isnan(differences)]
    if differences.size < 2 or math.isnan(observed):
        return None
    low, high = np.percentile(differences, [2.5, 97.5])
    se = float(differences.std(ddof=1))
    z = scipy_stats.norm.ppf(1 - ALPHA / 2) + scipy_stats.norm.ppf(POWER)
    needed = None if observed == 0 else math.ceil(units * (z * se / abs(observed)) ** 2)
    return PairedDifference(
        value=float(observed),
        ci_low=float(low),
        ci_high=float(high),
        se=se,
        detectable=float(z * se),
        units_needed=needed,
        n_units=units,
        n_resamples=int(differences.size),
    )
