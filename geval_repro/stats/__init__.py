"""Meta-evaluation statistics: coefficients, correlation levels, tie rates, pairwise accuracy
with tie calibration (Deutsch et al., 2023; :mod:`.accuracy_batch` for a batch of coded
matrices against one human matrix; :mod:`.comparison` for binary comparisons of two texts),
adaptive sampling's stopping rule (:mod:`.adaptive`: replies until the standard error of an
item's mean rating is within a target, and its exact bias), uncertainty (:mod:`.clustered`:
a bootstrap and a sign-flip test over clusters of
observations), paired permutation tests (:mod:`.permutation`; its resamples' statistics
without recomputing swapped matrices in :mod:`.permutation_terms` and
:mod:`.swapped_sums`).

Judge tests (:data:`.registry.JUDGE_TESTS`): :mod:`.alt_test` (the alternative annotator
test, Calderon et al. 2025, against individual annotators) and :mod:`.soft_pairwise` (soft
pairwise accuracy at the system level, Thompson et al. 2024, and its paired bootstrap over
documents); :mod:`.multiplicity` adjusts
p-values (Holm, Benjamini-Yekutieli).

The core every statistic reads: :mod:`.tie_rule` (the one rule of what a tie is),
:mod:`.pairs` (the five pair counts, with their offsets and contingency-table backends, of
which Kendall's tau-b, tie rates and acc_eq are reductions), :mod:`.ranks`, and
:mod:`.registry` (one entry per coefficient and accuracy: its symbol, its functions and
fast paths; nothing else branches on a coefficient's name).

Score matrices follow nlpstats: shape ``(n_systems, n_inputs)``, NaN = missing. A
correlation level is a :class:`~geval_repro.stats.level.Level` (:mod:`.level`, light: no
numpy), resolved once from its name.

Imports nothing of the package: statistics know nothing of benchmarks or files. The verbs
below are this package's face, imported on first use (PEP 562), so that importing a light
module such as :mod:`.level` does not import numpy and scipy.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name -> the submodule that defines it
_FACE = {
    "ACCURACIES": "registry",
    "bootstrap_accuracy": "accuracy",
    "pairwise_accuracy": "accuracy",
    "reference_accuracies": "accuracy",
    "tie_calibrated_accuracy": "accuracy",
    "bootstrap_ci": "bootstrap",
    "COEFFICIENTS": "registry",
    "PairCounts": "pairs",
    "pair_counts": "pairs",
    "coefficient": "registry",
    "statistic": "registry",
    "kendall_rows": "coefficients",
    "pearson_rows": "coefficients",
    "spearman_rows": "coefficients",
    "LEVELS": "level",
    "Level": "level",
    "correlate": "levels",
    "to_matrix": "matrix",
    "paired_permutation_test": "permutation",
    "BootstrapResult": "results",
    "LevelCorrelation": "results",
    "PairwiseAccuracy": "results",
    "PermutationResult": "results",
    "ReferenceAccuracies": "results",
    "TieRate": "results",
    "tie_rate": "ties",
}

__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    if name not in _FACE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FACE[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_FACE})
