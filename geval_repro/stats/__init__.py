"""Meta-evaluation statistics: coefficients, correlation levels, tie rates, pairwise accuracy
with tie calibration (Deutsch et al., 2023; :mod:`.accuracy_batch` for a batch of coded
matrices against one human matrix; :mod:`.comparison` for binary comparisons of two texts),
uncertainty (:mod:`.clustered`: a bootstrap and a sign-flip test over clusters of
observations).

Score matrices follow nlpstats: shape ``(n_systems, n_inputs)``, NaN = missing.

Imports nothing of the package: statistics know nothing of benchmarks or files.
"""

from geval_repro.stats.accuracy import (
    ACCURACIES,
    bootstrap_accuracy,
    pairwise_accuracy,
    tie_calibrated_accuracy,
)
from geval_repro.stats.bootstrap import bootstrap_ci
from geval_repro.stats.coefficients import (
    COEFFICIENTS,
    kendall_rows,
    pearson_rows,
    spearman_rows,
)
from geval_repro.stats.levels import LEVELS, correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.stats.results import (
    BootstrapResult,
    LevelCorrelation,
    PairwiseAccuracy,
    PermutationResult,
    TieRate,
)
from geval_repro.stats.ties import tie_rate

__all__ = [
    "ACCURACIES",
    "COEFFICIENTS",
    "LEVELS",
    "BootstrapResult",
    "LevelCorrelation",
    "PairwiseAccuracy",
    "PermutationResult",
    "TieRate",
    "bootstrap_accuracy",
    "bootstrap_ci",
    "correlate",
    "kendall_rows",
    "paired_permutation_test",
    "pairwise_accuracy",
    "pearson_rows",
    "spearman_rows",
    "tie_calibrated_accuracy",
    "tie_rate",
    "to_matrix",
]
