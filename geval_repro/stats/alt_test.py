"""The alternative annotator test (Calderon, Reichart and Dror, ACL 2025, "The Alternative
Annotator Test for LLM-as-a-Judge"): may a judge replace one of a benchmark's annotators?

Input: the judge's value ``f_i`` and the ratings ``h_ij`` of ``m >= 3`` annotators on ``n``
items (every annotator rates every item). For each annotator ``j`` left out in turn, on each
item ``i`` the alignment of a value ``x`` with the remaining annotators is
``S(x) = -RMSE(x, h_i,-j) = -sqrt(mean_{k != j} (x - h_ik)**2)``, and

- ``W^f_ij = 1`` if ``S(f_i) >= S(h_ij)`` (the judge aligns at least as well), else 0;
- ``W^h_ij = 1`` if ``S(h_ij) >= S(f_i)`` (the annotator does), else 0 (a tie counts for both);
- ``rho^f_j``, ``rho^h_j``: their means over the items (the advantage probabilities);
- ``H0_j: rho^f_j <= rho^h_j - epsilon`` against ``rho^f_j > rho^h_j - epsilon``, tested
  with a one-sided paired t-test on ``d_i = W^h_ij - W^f_ij``: ``t = (mean(d) - epsilon) /
  (sd(d) / sqrt(n))`` with ``sd`` the sample standard deviation, ``p = P(T_{n-1} <= t)``.
  When every ``d_i`` is equal (``sd = 0``) the t statistic is undefined; the p-value is then
  0 if ``mean(d) < epsilon`` and 1 otherwise (the limit of the test as the spread vanishes);
- the ``m`` p-values adjusted by Benjamini-Yekutieli (:func:`~geval_repro.stats.multiplicity.
  benjamini_yekutieli`), ``H0_j`` rejected when the adjusted p-value is at most ``q``
  (0.05);
- the winning rate ``omega`` = the share of annotators whose ``H0_j`` is rejected; the judge
  passes when ``omega >= 0.5``; the average advantage probability ``rho = mean_j rho^f_j``.

``epsilon`` is the cost-benefit margin the paper recommends by annotator kind: 0.2 for
experts, 0.15 for skilled annotators, 0.1 for crowd workers (per benchmark in
:mod:`geval_repro.registry.benchmarks`, ``alt_test_epsilon``). Items are treated as
independent (the t-test's assumption), although a benchmark's items share documents.

A judge whose scores are not on the annotators' scale (a rank-normal transform, a
probability, a metric in [0, 1]) must be mapped onto it before ``S`` means anything:
:func:`isotonic_map` fits a non-decreasing map from the judge's scores to the annotators'
mean rating on one half of the documents, and the test is then made on the other half only
(:func:`split_groups`, seeded).

Matrix in, numbers out; imports nothing of the package but :mod:`.multiplicity`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats
from scipy.optimize import isotonic_regression

from geval_repro.stats.multiplicity import benjamini_yekutieli

#: The false discovery rate of the Benjamini-Yekutieli step over the annotators.
Q = 0.05
#: The winning rate at which a judge passes.
PASS_RATE = 0.5
#: The fewest annotators the test is defined for (one left out, two or more remaining).
MIN_ANNOTATORS = 3
#: The fewest items a test is made on (no value on fewer than 3 items).
MIN_ITEMS = 3


@dataclass(frozen=True)
class AltTestResult:
    """One judge against ``m`` annotators (module docstring): per annotator
    ``rho_f``, ``rho_h``, ``pvalues`` (one-sided t-test), ``adjusted`` (BY) and
    ``rejected``; ``omega``, ``rho``, ``passed``; ``epsilon`` and ``q`` it was made with and
    ``n_items``."""

    rho_f: np.ndarray
    rho_h: np.ndarray
    pvalues: np.ndarray
    adjusted: np.ndarray
    rejected: np.ndarray
    omega: float
    rho: float
    passed: bool
    epsilon: float
    q: float
    n_items: int

    @property
    def n_annotators(self) -> int:
        """The number of annotators tested against."""
        return int(self.rho_f.size)


def alignment_wins(judge: np.ndarray, ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(W^f, W^h)``, each ``(n, m)`` of 0/1: for each item ``i`` and annotator ``j`` left
    out, whether the judge's value (``W^f``) and the annotator's rating (``W^h``) align with
    the remaining annotators at least as well as the other (module docstring).

    ``judge``: ``(n,)``; ``ratings``: ``(n, m)``, no NaN.
    """
    judge = np.asarray(judge, dtype=float)
    ratings = np.asarray(ratings, dtype=float)
    m = ratings.shape[1]
    others = ~np.eye(m, dtype=bool)  # others[j, k]: annotator k remains when j is left out
    # squared deviations from each remaining annotator, (n, j, k), masked to k != j
    judge_sq = (judge[:, None, None] - ratings[:, None, :]) ** 2
    human_sq = (ratings[:, :, None] - ratings[:, None, :]) ** 2
    judge_mse = np.where(others, judge_sq, 0.0).sum(axis=2) / (m - 1)
    human_mse = np.where(others, human_sq, 0.0).sum(axis=2) / (m - 1)
    # S(x) = -sqrt(MSE): S(f) >= S(h) <=> MSE(f) <= MSE(h) (sqrt is increasing)
    return (judge_mse <= human_mse).astype(int), (human_mse <= judge_mse).astype(int)


def one_sided_pvalues(differences: np.ndarray, epsilon: float) -> np.ndarray:
    """Per column of ``differences`` (``(n, m)``), the p-value of the one-sided one-sample
    t-test of ``mean(d) >= epsilon`` against ``mean(d) < epsilon`` (module docstring; a
    column without spread: 0 or 1)."""
    d = np.asarray(differences, dtype=float)
    n = d.shape[0]
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / (sd / np.sqrt(n))
    pvalues = scipy_stats.t.cdf(t, df=n - 1)
    flat = sd == 0
    pvalues[flat] = np.where(mean[flat] < epsilon, 0.0, 1.0)
    return pvalues


def alternative_annotator_test(
    judge: np.ndarray, ratings: np.ndarray, epsilon: float, q: float = Q
) -> AltTestResult:
    """The alternative annotator test of ``judge`` (``(n,)``) against the annotators'
    ``ratings`` (``(n, m)``, every annotator on every item) with margin ``epsilon``
    (module docstring). Raises on fewer than 3 annotators or items, NaN, or mismatched
    shapes."""
    judge = np.asarray(judge, dtype=float)
    ratings = np.asarray(ratings, dtype=float)
    if ratings.ndim != 2 or judge.shape != ratings.shape[:1]:
        raise ValueError(
            f"judge must be (n,) and ratings (n, m); got {judge.shape} and {ratings.shape}"
        )
    n, m = ratings.shape
    if m < MIN_ANNOTATORS:
        raise ValueError(f"the alternative annotator test needs >= 3 annotators, got {m}")
    if n < MIN_ITEMS:
        raise ValueError(f"the alternative annotator test needs >= 3 items, got {n}")
    if np.isnan(judge).any() or np.isnan(ratings).any():
        raise ValueError("the alternative annotator test takes complete items only (NaN given)")
    if not 0 <= epsilon <= 1:
        raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
    wins_f, wins_h = alignment_wins(judge, ratings)
    pvalues = one_sided_pvalues(wins_h - wins_f, epsilon)
    adjusted = benjamini_yekutieli(pvalues)
    rejected = adjusted <= q
    rho_f = wins_f.mean(axis=0)
    omega = float(rejected.mean())
    return AltTestResult(
        rho_f=rho_f,
        rho_h=wins_h.mean(axis=0),
        pvalues=pvalues,
        adjusted=adjusted,
        rejected=rejected,
        omega=omega,
        rho=float(rho_f.mean()),
        passed=omega >= PASS_RATE,
        epsilon=float(epsilon),
        q=float(q),
        n_items=n,
    )


def split_groups(groups: np.ndarray, seed: int) -> np.ndarray:
    """A seeded half split of the distinct ``groups`` (documents): True for the items whose
    group falls in the fitting half (``floor(g / 2)`` of ``g`` groups, drawn without
    replacement), False for the tested half."""
    distinct = np.unique(groups)
    rng = np.random.default_rng(seed)
    fitting = rng.choice(distinct, size=distinct.size // 2, replace=False)
    return np.isin(groups, fitting)


def isotonic_map(scores: np.ndarray, target: np.ndarray, fit: np.ndarray) -> np.ndarray:
    """``scores`` mapped onto the scale of ``target`` by the least-squares non-decreasing
    fit of ``target`` on ``scores`` over the items where ``fit`` is True (scipy's
    ``isotonic_regression`` on the fitting items' distinct scores, weighted by their counts,
    of their mean targets), read at every item's score by linear interpolation between the
    fitted points (held flat beyond the first and last). The mapped values of the fitting
    items are returned too; callers test on the other items only."""
    scores = np.asarray(scores, dtype=float)
    target = np.asarray(target, dtype=float)
    fit = np.asarray(fit, dtype=bool)
    if fit.sum() < MIN_ITEMS:
        raise ValueError(f"an isotonic map needs >= 3 fitting items, got {int(fit.sum())}")
    levels, inverse, counts = np.unique(scores[fit], return_inverse=True, return_counts=True)
    means = np.bincount(inverse, weights=target[fit]) / counts
    fitted = isotonic_regression(means, weights=counts.astype(float), increasing=True).x
    return np.interp(scores, levels, fitted)
