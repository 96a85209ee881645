"""Which statistics of a metric's scores a strictly increasing map of all of them leaves
unchanged.

Let g be strictly increasing and applied to every score of a metric (every cell of its
score matrix, as MetricEval's rank-normal transform is applied to every row of its file).
g keeps the order of any two scores and which scores are equal, so:

- Spearman's ρ and Kendall's τ at the summary level (within each input) and at the global
  level (over the pooled cells) are unchanged: they read ranks and ties only; a constant
  input stays constant, so the same inputs are skipped;
- ``acc_eq`` (pairwise accuracy with ties at epsilon 0) is unchanged: a pair is tied, or
  ordered one way, before g exactly when it is after;
- Pearson's r changes (g is not affine), ``acc_eq_calibrated`` changes (its tie threshold
  epsilon is a difference of scores, and g does not keep differences), and every
  coefficient at the system level changes: it correlates each system's *mean* score, and a
  mean of g(x) is not g of a mean, so even the order of the systems can change.

Which statistics read the order alone is their registry entry's ``order_only``
(:mod:`geval_repro.stats.registry`). Light on purpose (no numpy): the tables and the paper
layouts read it.
"""

from __future__ import annotations

from geval_repro.stats.level import Level
from geval_repro.stats.registry import statistic


def order_only(level: Level | str, coefficient: str) -> bool:
    """Whether ``coefficient`` at ``level`` is unchanged by a strictly increasing map of
    every score (the module docstring): a rank coefficient or ``acc_eq`` at the summary or
    global level. An unknown coefficient raises."""
    return Level(level) is not Level.SYSTEM and statistic(coefficient).order_only
