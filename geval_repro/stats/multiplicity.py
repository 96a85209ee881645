"""Multiple testing: Holm's step-down adjustment of a family of p-values (Holm, 1979).

Of ``m`` tests with p-values sorted ascending ``p_(1) <= ... <= p_(m)``, the adjusted
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
