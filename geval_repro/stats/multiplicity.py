"""Multiple testing: Holm's step-down adjustment of a family of p-values (Holm, 1979), and
Benjamini-Yekutieli's false-discovery-rate adjustment (:func:`benjamini_yekutieli`).

Holm: of ``m`` tests with p-values sorted ascending ``p_(1) <= ... <= p_(m)``, the adjusted
p-value of the i-th is ``max over j <= i of min(1, (m - j + 1) * p_(j))``; rejecting every
test whose adjusted p-value is at most ``alpha`` controls the family-wise error rate at
``alpha`` under any dependence between the tests (which paired tests on the same items
have). Tied p-values get the same adjusted value.
"""

from __future__ import annotations

import numpy as np


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the order given. NaN entries are not tests: they stay NaN
    and do not count in ``m``."""
    pvalues = np.asarray(pvalues, dtype=float)
    tested = ~np.isnan(pvalues)
    values = pvalues[tested]
    if ((values < 0) | (values > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    order = np.argsort(values, kind="stable")
    m = values.size
    steps = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(steps)
    out = np.full(pvalues.shape, np.nan)
    out[tested] = adjusted
    return out


def benjamini_yekutieli(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini-Yekutieli-adjusted p-values (Benjamini and Yekutieli, 2001), in the order
    given: of ``m`` p-values sorted ascending, the i-th's adjusted value is ``min over j >= i
    of min(1, c(m) m p_(j) / j)`` with ``c(m) = sum_{k=1..m} 1/k``; rejecting every test whose
    adjusted p-value is at most ``q`` controls the false discovery rate at ``q`` under any
    dependence between the tests. NaN entries are not tests: they stay NaN and do not count
    in ``m``."""
    pvalues = np.asarray(pvalues, dtype=float)
    tested = ~np.isnan(pvalues)
    values = pvalues[tested]
    if ((values < 0) | (values > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    m = values.size
    order = np.argsort(values, kind="stable")
    harmonic = (1.0 / np.arange(1, m + 1)).sum()
    steps = harmonic * m * values[order] / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(steps[::-1])[::-1])
    out = np.full(pvalues.shape, np.nan)
    out[tested] = adjusted
    return out
