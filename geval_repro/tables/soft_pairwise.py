"""Soft pairwise accuracy's rows (:mod:`geval_repro.stats.soft_pairwise`; Thompson et al.,
2024): how well a metric's confidence that one system beats another matches the humans'.

On every benchmark whose systems share documents
(:attr:`~geval_repro.registry.benchmarks.Benchmark.system_documents`: SummEval's 16 systems
over 100 documents, Topical-Chat's response systems over its 60 contexts), per dimension,
one row per metric (:class:`~geval_repro.tables.paired_tests.Scored`: the judges' compared
variants, the baselines of the protocol variant, UniEval), on the systems the metric scores
and the documents where every one of them has both a metric and a human score (complete
matrices; ``n_systems``, ``n_inputs`` say what it rests on: a metric that does not score a
system, as Topical-Chat's word-overlap baselines do not score the original ground truth, is
compared over fewer systems and ranked apart). Beside it, on the same matrices, the
system-level Spearman and Kendall correlations (each system's mean over those documents;
:func:`geval_repro.stats.levels.correlate` at ``Level.SYSTEM``).

Reference rows: ``humans`` (the human scores as the metric: SPA 1 by construction, and the
check that the pipeline's matrices are aligned) and ``constant`` (every item the same score:
every p-value 1, so SPA is the mean of the humans' p-values; a metric below it orders the
systems with less confidence-agreement than one that orders none). ``position``: the
metrics of a (benchmark, dimension) on all its systems and documents (the humans' row's)
ranked by SPA, best first, the reference rows beside the ranking, not in it.

Intervals and significance clusters (:func:`geval_repro.stats.soft_pairwise.resampled_spa`):
``n_bootstrap`` resamples of the documents (the config's bootstrap resamples), the humans
and every ranked metric on the same draws, SPA recomputed on each with the same sign flips.
``spa_low``, ``spa_high``: the 95 % percentile interval of a ranked metric's SPA (and of the
constant's, the humans' mean p-value on the same draws). Every pair of ranked metrics is
tested (:func:`~geval_repro.stats.bootstrap.shifted_pvalue`: two-sided, the bootstrap
distribution of the difference shifted to 0), Holm over the pairs of a (benchmark,
dimension) (:func:`geval_repro.stats.multiplicity.holm`), and ``cluster`` drawn as the other
rankings' are (:func:`geval_repro.stats.clusters.significance_clusters`: a new cluster starts
at a metric significantly worse, Holm p <= 0.05, than one of the current cluster). The pair
rows (:data:`PAIR_COLUMNS`) go to a table of their own. With ``B`` resamples a p-value is at
least ``1 / (B + 1)``, a Holm-adjusted one at least ``m / (B + 1)`` for ``m`` pairs; when
that exceeds 0.05 no pair can differ and the rows' note says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import Scale
from geval_repro.stats.bootstrap import percentile_interval, shifted_pvalue
from geval_repro.stats.clusters import significance_clusters
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.multiplicity import holm
from geval_repro.stats.registry import judge_test
from geval_repro.stats.soft_pairwise import MIN_INPUTS, MIN_SYSTEMS, input_draws
from geval_repro.tables.judge_rows import scale_note
from geval_repro.tables.paired_tests import Scored

COLUMNS = [
    "benchmark",
    "dimension",
    "metric",
    "variant",
    "kind",
    "status",
    "spa",
    "spa_low",
    "spa_high",
    "position",
    "cluster",
    "system_spearman",
    "system_kendall",
    "n_systems",
    "n_inputs",
    "n_pairs",
    "n_resamples",
    "n_bootstrap",
    "seed",
    "note",
]
#: The pair tests' table: one row per pair of ranked metrics of a (benchmark, dimension).
PAIR_COLUMNS = [
    "benchmark",
    "dimension",
    "metric_a",
    "variant_a",
    "metric_b",
    "variant_b",
    "spa_a",
    "spa_b",
    "difference",
    "ci_low",
    "ci_high",
    "pvalue",
    "pvalue_holm",
    "n_systems",
    "n_inputs",
    "n_bootstrap",
    "seed",
    "note",
]
#: Significance level of the clusters (Holm-adjusted).
ALPHA = 0.05
#: Confidence of the percentile intervals.
CONFIDENCE = 0.95


class SpaTables(NamedTuple):
    """The metric rows (:data:`COLUMNS`) and the pair tests (:data:`PAIR_COLUMNS`)."""

    rows: pd.DataFrame
    pairs: pd.DataFrame


def _complete_part(present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The systems with any ``present`` cell, and the documents where every one of them has
    one (boolean masks)."""
    systems = present.any(axis=1)
    return systems, present[systems].all(axis=0)


def _complete(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The systems with any metric score, on the documents where every one of them has a
    metric and a human score."""
    systems, documents = _complete_part(~np.isnan(metric) & ~np.isnan(human))
    return metric[systems][:, documents], human[systems][:, documents]


def spa_row(
    metric: np.ndarray, human: np.ndarray, n_resamples: int, seed: int
) -> dict[str, object]:
    """SPA and the system-level correlations of one (systems, documents) pair of matrices,
    on their complete part; no value (and a note) on fewer than 3 systems or documents."""
    metric, human = _complete(metric, human)
    n_systems, n_inputs = metric.shape
    counts = {"n_systems": n_systems, "n_inputs": n_inputs, "n_resamples": n_resamples}
    if n_systems < MIN_SYSTEMS or n_inputs < MIN_INPUTS:
        note = f"no value: {n_systems} system(s) on {n_inputs} complete document(s) (< 3)"
        return {**counts, "seed": seed, "spa": np.nan, "note": note}
    result = judge_test("soft_pairwise_accuracy").compute()(metric, human, n_resamples, seed)
    return {
        **counts,
        "seed": seed,
        "spa": result.value,
        "n_pairs": result.n_pairs,
        "system_spearman": correlate(metric, human, Level.SYSTEM, "spearman").value,
        "system_kendall": correlate(metric, human, Level.SYSTEM, "kendall").value,
        "note": "",
    }


def spa_rows(
    benchmark: Benchmark,
    tidy: pd.DataFrame,
    metrics: Sequence[Scored],
    n_resamples: int,
    seed: int,
    n_bootstrap: int,
    scales: Mapping[str, Scale] | None = None,
) -> SpaTables:
    """The rows and pair tests of the module docstring for one benchmark (``tidy``: its
    tidy table; ``n_resamples``: the permutation test's sign flips; ``n_bootstrap``: the
    document resamples of the intervals and clusters; ``scales``: each judge run's scale,
    whose note a transformed run's rows carry: SPA and the system level sum or average
    scores, which a transform changes)."""
    documents = benchmark.system_documents
    if documents is None:
        raise ValueError(f"{benchmark.title} has no systems sharing documents: no SPA")
    keys = list(benchmark.item_keys)
    axes = {"systems": benchmark.unit_key, "inputs": documents}
    records, pair_records = [], []
    for dimension in benchmark.human_dimensions:
        human, _, _ = to_matrix(tidy, dimension, **axes)
        base = {"benchmark": benchmark.name, "dimension": dimension}
        references = (
            ("humans", "the human scores themselves", tidy[dimension].to_numpy(dtype=float)),
            ("constant", "every item the same score", np.ones(len(tidy))),
        )
        rows, matrices = [], []
        for name, variant, values in references:
            matrix, _, _ = to_matrix(tidy.assign(_metric=values), "_metric", **axes)
            row = spa_row(matrix, human, n_resamples, seed)
            rows.append(
                {
                    **base,
                    "metric": name,
                    "variant": variant,
                    "kind": "reference",
                    "status": "reference",
                    **row,
                }
            )
            matrices.append(matrix)
        for metric in metrics:
            if dimension not in metric.scores:
                continue
            scores = metric.scores[dimension].groupby(keys)["score"].mean().rename("_metric")
            joined = tidy.merge(scores.reset_index(), on=keys, how="left")
            matrix, _, _ = to_matrix(joined, "_metric", **axes)
            row = spa_row(matrix, human, n_resamples, seed)
            scale = (scales or {}).get(metric.metric, "raw") if metric.kind == "judge" else "raw"
            row["note"] = "; ".join(
                filter(None, [str(row["note"]), scale_note(scale, Level.SYSTEM, "pearson")])
            )
            fields = {"metric": metric.metric, "variant": metric.variant, "kind": metric.kind}
            rows.append({**base, **fields, "status": metric.status, **row})
            matrices.append(matrix)
        table = pd.DataFrame.from_records(rows).reindex(columns=COLUMNS)
        humans = table.iloc[0]
        full = (table["n_systems"] == humans["n_systems"]) & (
            table["n_inputs"] == humans["n_inputs"]
        )
        ranked = table.loc[full & table["spa"].notna() & (table["kind"] != "reference")]
        ranked = ranked.sort_values(["spa", "metric"], ascending=[False, True], kind="stable")
        table.loc[ranked.index, "position"] = np.arange(1, len(ranked) + 1)
        pairs, said = _clustered(
            table, ranked.index, matrices, human, n_resamples, seed, n_bootstrap
        )
        pair_records.append(pairs)
        apart = ~full & table["spa"].notna()
        for index, note in [(i, said) for i in ranked.index] + [
            (i, "on fewer systems or documents than the humans' rows: not ranked with them")
            for i in table.index[apart]
        ]:
            table.loc[index, "note"] = "; ".join(
                filter(None, [note, str(table.loc[index, "note"])])
            )
        records.append(table)
    out = pd.concat(records, ignore_index=True).reindex(columns=COLUMNS)
    counts = [
        "position",
        "cluster",
        "n_systems",
        "n_inputs",
        "n_pairs",
        "n_resamples",
        "n_bootstrap",
        "seed",
    ]
    pairs = pd.concat(pair_records, ignore_index=True).reindex(columns=PAIR_COLUMNS)
    pair_counts = ["n_systems", "n_inputs", "n_bootstrap", "seed"]
    return SpaTables(
        rows=out.astype(dict.fromkeys(counts, "Int64")),
        pairs=pairs.astype(dict.fromkeys(pair_counts, "Int64")),
    )


def _clustered(
    table: pd.DataFrame,
    ranked: pd.Index,
    matrices: Sequence[np.ndarray],
    human: np.ndarray,
    n_resamples: int,
    seed: int,
    n_bootstrap: int,
) -> tuple[pd.DataFrame, str]:
    """Fill ``table``'s intervals, clusters and ``n_bootstrap`` for the ``ranked`` rows (in
    rank order; ``matrices[i]``: row ``i``'s metric matrix, row 1 the constant) and return
    the pair tests and the ranked rows' note (module docstring)."""
    systems, documents = _complete_part(~np.isnan(human))  # the humans' row's part
    human = human[systems][:, documents]
    if len(ranked) == 0 or human.shape[0] < MIN_SYSTEMS or human.shape[1] < MIN_INPUTS:
        return pd.DataFrame(columns=PAIR_COLUMNS), "ranked by SPA; no metric to resample"
    stacked = np.stack([matrices[i][systems][:, documents] for i in ranked])
    draws = input_draws(human.shape[1], n_bootstrap, seed)
    resampled = judge_test("soft_pairwise_accuracy_resampled").compute()(
        stacked, human, n_resamples, seed, draws
    )
    columns = [*[resampled.metrics[:, k] for k in range(len(ranked))], resampled.constant]
    for index, values in zip([*ranked, 1], columns, strict=True):
        interval = percentile_interval(
            values, unit="documents", confidence=CONFIDENCE, undefined="no resample"
        )
        table.loc[index, ["spa_low", "spa_high"]] = interval.low, interval.high
        table.loc[index, "n_bootstrap"] = n_bootstrap
    value = table.loc[ranked, "spa"].to_numpy(dtype=float)
    records = []
    for x in range(len(ranked)):
        for y in range(x + 1, len(ranked)):
            differences = resampled.metrics[:, x] - resampled.metrics[:, y]
            interval = percentile_interval(
                differences, unit="documents", confidence=CONFIDENCE, undefined="no resample"
            )
            a, b = table.loc[ranked[x]], table.loc[ranked[y]]
            records.append(
                {
                    "benchmark": a["benchmark"],
                    "dimension": a["dimension"],
                    "metric_a": a["metric"],
                    "variant_a": a["variant"],
                    "metric_b": b["metric"],
                    "variant_b": b["variant"],
                    "spa_a": value[x],
                    "spa_b": value[y],
                    "difference": value[x] - value[y],
                    "ci_low": interval.low,
                    "ci_high": interval.high,
                    "pvalue": shifted_pvalue(differences, value[x] - value[y]),
                    "n_systems": human.shape[0],
                    "n_inputs": human.shape[1],
                    "n_bootstrap": n_bootstrap,
                    "seed": seed,
                }
            )
    pairs = pd.DataFrame.from_records(records, columns=PAIR_COLUMNS)
    m = len(pairs)
    worse = np.zeros((len(ranked), len(ranked)), dtype=bool)
    if m:
        pairs["pvalue_holm"] = holm(pairs["pvalue"].to_numpy(dtype=float))
        positions = [(x, y) for x in range(len(ranked)) for y in range(x + 1, len(ranked))]
        for (x, y), adjusted, difference in zip(
            positions, pairs["pvalue_holm"], pairs["difference"], strict=True
        ):
            worse[x, y] = adjusted <= ALPHA and difference > 0
    table.loc[ranked, "cluster"] = significance_clusters(worse)
    protocol = (
        f"paired bootstrap over {human.shape[1]} documents, {n_bootstrap} resamples, SPA "
        "recomputed on each; two-sided, Holm over the "
        f"{m} pairs of this dimension"
    )
    pairs["note"] = protocol
    said = (
        f"ranked by SPA; clusters: a new cluster starts at a metric significantly worse (Holm "
        f"p <= {ALPHA}) than one of the current cluster ({protocol}; pairs in "
        "soft_pairwise_accuracy_pairs.csv)"
    )
    floor = m / (n_bootstrap + 1)
    if m and floor > ALPHA:
        said += (
            f"; UNRESOLVED: with {n_bootstrap} resamples no Holm-adjusted p-value of its {m} "
            f"pairs can fall below {floor:.3f}, so no pair can be declared different; set "
            f"bootstrap.n_resamples to at least {int(np.ceil(m / ALPHA)) - 1}"
        )
    return pairs, said
