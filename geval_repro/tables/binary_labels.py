"""Rows of the binary-label statistics (:data:`geval_repro.stats.registry.BINARY_STATISTICS`)
of one metric on a benchmark of binary human ``labels`` (SummEdits): per domain and averaged
over domains, with percentile bootstrap intervals over documents.

Protocol (docs/protocol.md): in each domain a thresholded statistic fits its threshold on
the domain's ``threshold_split`` (all of its items, fitted once) and is computed on the
``tested_split``; a statistic without a threshold is computed on the tested split alone. The
interval resamples the tested split's documents within each domain (each drawn with all of
its summaries; ``n_resamples`` resamples, seeded by ``seed``), the threshold held fixed, so
it leaves out the threshold's own uncertainty (it rests on 4 documents per domain). The
average row is the mean of the domains' values; its interval, the 2.5 and 97.5 percentiles
of the mean of the domains' resampled values (resample r of every domain). The reference
rows (:func:`reference_scores`) score every item the same (a constant) or at random (a
uniform draw, seeded by the config): both have expected ROC AUC and balanced accuracy 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark, BinaryLabels
from geval_repro.stats.binary import MIN_ITEMS, document_weights, fit_threshold, pair_counts
from geval_repro.stats.registry import BINARY_STATISTICS
from geval_repro.tables.rows import MIN_BOOTSTRAP_UNITS, few_units_note, join_notes

#: The columns of the binary-label table, one row per (benchmark, dimension, metric,
#: variant, domain, statistic).
COLUMNS = [
    "benchmark",
    "dimension",
    "metric",
    "variant",
    "domain",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "threshold",
    "tie_rate",
    "n_items",
    "n_positive",
    "n_documents",
    "n_threshold_items",
    "status",
    "note",
]
#: The ``domain`` of the rows averaged over domains.
AVERAGE = "mean over domains"
#: The reference metrics' names and variants.
CONSTANT = "constant (reference)"
RANDOM = "random (reference)"
REFERENCE_VARIANT = "expected AUC and balanced accuracy 0.5"
CONFIDENCE = 0.95


def reference_scores(table: pd.DataFrame, seed: int) -> dict[str, np.ndarray]:
    """The reference metrics' scores of every item of ``table``: 0 for all (constant), and
    uniform on [0, 1) from ``numpy.random.default_rng(seed)`` (random)."""
    return {
        CONSTANT: np.zeros(len(table)),
        RANDOM: np.random.default_rng(seed).random(len(table)),
    }


def _interval(values: np.ndarray) -> tuple[float, float]:
    """The percentile interval of the defined resampled values (NaN when none is)."""
    defined = values[np.isfinite(values)]
    if len(defined) == 0:
        return float("nan"), float("nan")
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high)


def _few_documents(n_documents: int) -> str:
    """The note of a value without an interval: its test split's documents are fewer than
    the bootstrap needs (:data:`~geval_repro.tables.rows.MIN_BOOTSTRAP_UNITS`, as for the
    correlation rows); "" when they are enough."""
    if n_documents >= MIN_BOOTSTRAP_UNITS:
        return ""
    return few_units_note(n_documents, "inputs")


def _partial_note(n_scored: int, n_items: int) -> str:
    """The note of a metric scoring fewer items than the table holds ("" when it scores all)."""
    if n_scored >= n_items:
        return ""
    return f"partial run: a score for {n_scored} of {n_items} items (rows on those items only)"


def _domain_notes(truth_fit: np.ndarray, truth_tested: np.ndarray) -> tuple[str, str]:
    """Why a domain's rows have no value: (for every statistic, for a thresholded one);
    "" where they have one. ``truth_*``: the labels of the scored items of its splits."""
    if len(truth_tested) == 0:
        return "no scored item in this domain's test split: not covered by the run", ""
    if len(truth_tested) < MIN_ITEMS:
        return f"no value: {len(truth_tested)} scored test item(s) (< {MIN_ITEMS})", ""
    n_positive = int(truth_tested.sum())
    if n_positive in (0, len(truth_tested)):
        return (
            f"the scored test items hold one class only ({n_positive} of "
            f"{len(truth_tested)} consistent)",
            "",
        )
    n_fit_positive = int(truth_fit.sum())
    if n_fit_positive in (0, len(truth_fit)):
        return "", (
            f"no threshold: the scored evaluation items ({len(truth_fit)}, {n_fit_positive} "
            "consistent) do not hold both classes"
        )
    return "", ""


class DomainValue(NamedTuple):
    """One statistic on one domain: its ``value`` (NaN: none, and ``why``), its resampled
    values ``distribution`` and the fitted ``threshold`` (None: not thresholded or not
    fitted)."""

    value: float
    distribution: np.ndarray
    threshold: float | None
    why: str


def _domain_values(
    table: pd.DataFrame, labels: BinaryLabels, scores: np.ndarray, n_resamples: int, seed: int
) -> Iterator[tuple[str, np.ndarray, np.ndarray, dict[str, DomainValue]]]:
    """Per domain of ``labels``: its name, the scored items of its threshold split and of its
    tested split (boolean masks of ``table``'s rows) and every statistic's
    :class:`DomainValue` (module docstring). The draws come from one generator seeded by
    ``seed``, domain after domain: two metrics scoring the same items get the same draws."""
    rng = np.random.default_rng(seed)
    scored = np.isfinite(scores)
    truth = table[labels.column].to_numpy()
    for domain in labels.domains:
        in_domain = scored & (table[labels.domain_key] == domain).to_numpy()
        fit = in_domain & (table[labels.split_key] == labels.threshold_split).to_numpy()
        tested = in_domain & (table[labels.split_key] == labels.tested_split).to_numpy()
        documents = table[labels.resampling_key].to_numpy()[tested]
        missing, unthresholded = _domain_notes(truth[fit], truth[tested])
        weights = document_weights(documents, n_resamples, rng) if tested.any() else None
        fitted = None if missing or unthresholded else fit_threshold(scores[fit], truth[fit])
        statistics = {}
        for name, entry in BINARY_STATISTICS.items():
            why = missing or (unthresholded if entry.thresholded else "")
            threshold = fitted.threshold if entry.thresholded and fitted else None
            if why:
                value, distribution = float("nan"), np.full(n_resamples, np.nan)
            else:
                compute = entry.compute()
                value = float(
                    compute(scores[tested], truth[tested], np.ones((1, tested.sum())), threshold)[0]
                )
                distribution = compute(scores[tested], truth[tested], weights, threshold)
            statistics[name] = DomainValue(value, distribution, threshold, why)
        yield domain, fit, tested, statistics


def domain_means(
    table: pd.DataFrame, benchmark: Benchmark, scores: np.ndarray, n_resamples: int, seed: int
) -> dict[str, tuple[float, np.ndarray]]:
    """Per statistic, the mean over domains of a metric's ``scores`` (NaN unless every domain
    has a value) and its resampled values (the mean of the domains' resample ``r``), as the
    average rows of :func:`binary_label_rows` hold them."""
    labels = _labels(benchmark)
    per_domain = [s for *_, s in _domain_values(table, labels, scores, n_resamples, seed)]
    return {
        name: (
            float(np.mean([s[name].value for s in per_domain])),
            np.mean([s[name].distribution for s in per_domain], axis=0),
        )
        for name in BINARY_STATISTICS
    }


def _labels(benchmark: Benchmark) -> BinaryLabels:
    if benchmark.labels is None:
        raise ValueError(f"{benchmark.title} has no binary labels (Benchmark.labels)")
    return benchmark.labels


def binary_label_rows(
    table: pd.DataFrame,
    *,
    benchmark: Benchmark,
    dimension: str,
    metric: str,
    variant: str,
    scores: np.ndarray,
    n_resamples: int,
    seed: int,
    status: str = "recomputed",
    note: str = "",
) -> pd.DataFrame:
    """One row per domain and statistic, then the rows averaged over domains, of the metric
    whose per-item ``scores`` are aligned with ``table`` (the benchmark's tidy table).
    ``tie_rate``: the share of (positive, negative) pairs of scored test items whose two
    scores are equal (ROC AUC counts each one half; a domain's pairs, pooled over the
    domains in the average rows).

    A NaN score marks an item the metric did not score (a judge's partial run): every row
    rests on the scored items alone (``n_items``, ``n_documents`` count them) and its note
    says "partial run". A domain without a scored test item, with fewer than
    :data:`MIN_ITEMS`, or whose scored test items hold one class, has rows with an empty
    value and a note why; a thresholded statistic also
    when the domain's scored evaluation items do not hold both classes (no threshold is
    fitted). The mean over domains is given only when every domain has a value (else its
    note says how many have one)."""
    labels = _labels(benchmark)
    scores = np.asarray(scores, dtype=float)
    if len(scores) != len(table):
        raise ValueError(f"{metric}: {len(scores)} scores for {len(table)} items")
    scored = np.isfinite(scores)
    partial = _partial_note(int(scored.sum()), len(table))
    truth = table[labels.column].to_numpy()
    records = []
    tied_all = pairs_all = 0
    resampled: dict[str, list[np.ndarray]] = {name: [] for name in BINARY_STATISTICS}
    values: dict[str, list[float]] = {name: [] for name in BINARY_STATISTICS}
    for domain, fit, tested, statistics in _domain_values(table, labels, scores, n_resamples, seed):
        base = {
            "benchmark": benchmark.name,
            "dimension": dimension,
            "metric": metric,
            "variant": variant,
            "domain": domain,
            "n_items": int(tested.sum()),
            "n_positive": int(truth[tested].sum()),
            "n_documents": int(table.loc[tested, labels.resampling_key].nunique()),
            "status": status,
        }
        few = _few_documents(base["n_documents"])
        _, tied, pairs = pair_counts(scores[tested][None, :], truth[tested])
        tied_all, pairs_all = tied_all + int(tied[0]), pairs_all + int(pairs[0])
        base["tie_rate"] = tied[0] / pairs[0] if pairs[0] else float("nan")
        for name, entry in BINARY_STATISTICS.items():
            result = statistics[name]
            low, high = _interval(result.distribution) if not few else (math.nan, math.nan)
            values[name].append(result.value)
            resampled[name].append(result.distribution)
            records.append(
                {
                    **base,
                    "statistic": name,
                    "value": result.value,
                    "ci_low": low,
                    "ci_high": high,
                    "threshold": float("nan") if result.threshold is None else result.threshold,
                    "n_threshold_items": int(fit.sum()) if entry.thresholded else 0,
                    "note": join_notes(note, partial, result.why or few),
                }
            )
    n_domains = len(labels.domains)
    tested_all = scored & (table[labels.split_key] == labels.tested_split).to_numpy()
    documents_all = int(table.loc[tested_all, labels.resampling_key].nunique())
    few_all = _few_documents(documents_all)
    for name, entry in BINARY_STATISTICS.items():
        n_valued = int(np.isfinite(values[name]).sum())
        if n_valued == n_domains:
            value = float(np.mean(values[name]))
            low, high = (
                _interval(np.mean(resampled[name], axis=0)) if not few_all else (math.nan,) * 2
            )
            why = join_notes(
                f"mean of the {n_domains} domains' values (each domain's own threshold)"
                if entry.thresholded
                else f"mean of the {n_domains} domains' values",
                few_all,
            )
        else:
            value, low, high = float("nan"), float("nan"), float("nan")
            why = f"no mean: {n_valued} of the {n_domains} domains have a value"
        records.append(
            {
                "benchmark": benchmark.name,
                "dimension": dimension,
                "metric": metric,
                "variant": variant,
                "domain": AVERAGE,
                "statistic": name,
                "value": value,
                "ci_low": low,
                "ci_high": high,
                "threshold": float("nan"),
                "tie_rate": tied_all / pairs_all if pairs_all else float("nan"),
                "n_items": int(tested_all.sum()),
                "n_positive": int(truth[tested_all].sum()),
                "n_documents": documents_all,
                "n_threshold_items": int((scored & ~tested_all).sum()) if entry.thresholded else 0,
                "status": status,
                "note": join_notes(note, partial, why),
            }
        )
    return pd.DataFrame.from_records(records, columns=COLUMNS)
