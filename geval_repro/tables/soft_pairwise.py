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
ranked by SPA, best first, the reference rows beside the ranking, not in it; no
significance clusters are drawn (a test of one SPA against another needs SPA resampled over
documents: not made, the note says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import Scale
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.registry import judge_test
from geval_repro.stats.soft_pairwise import MIN_INPUTS, MIN_SYSTEMS
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
    "position",
    "system_spearman",
    "system_kendall",
    "n_systems",
    "n_inputs",
    "n_pairs",
    "n_resamples",
    "seed",
    "note",
]
RANK_NOTE = "ranked by SPA; no significance clusters (SPA is not resampled over documents)"


def _complete(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The systems with any metric score, on the documents where every one of them has a
    metric and a human score."""
    present = ~np.isnan(metric) & ~np.isnan(human)
    systems = present.any(axis=1)
    documents = present[systems].all(axis=0)
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
    scales: Mapping[str, Scale] | None = None,
) -> pd.DataFrame:
    """The rows of the module docstring for one benchmark (``tidy``: its tidy table;
    ``scales``: each judge run's scale, whose note a transformed run's rows carry: SPA and
    the system level sum or average scores, which a transform changes)."""
    documents = benchmark.system_documents
    if documents is None:
        raise ValueError(f"{benchmark.title} has no systems sharing documents: no SPA")
    keys = list(benchmark.item_keys)
    axes = {"systems": benchmark.unit_key, "inputs": documents}
    records = []
    for dimension in benchmark.human_dimensions:
        human, _, _ = to_matrix(tidy, dimension, **axes)
        base = {"benchmark": benchmark.name, "dimension": dimension}
        references = (
            ("humans", "the human scores themselves", tidy[dimension].to_numpy(dtype=float)),
            ("constant", "every item the same score", np.ones(len(tidy))),
        )
        rows = []
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
        table = pd.DataFrame.from_records(rows)
        humans = table.iloc[0]
        full = (table["n_systems"] == humans["n_systems"]) & (
            table["n_inputs"] == humans["n_inputs"]
        )
        ranked = table.loc[full & table["spa"].notna() & (table["kind"] != "reference")]
        ranked = ranked.sort_values(["spa", "metric"], ascending=[False, True], kind="stable")
        table.loc[ranked.index, "position"] = np.arange(1, len(ranked) + 1)
        apart = ~full & table["spa"].notna()
        for index, said in [(i, RANK_NOTE) for i in ranked.index] + [
            (i, "on fewer systems or documents than the humans' rows: not ranked with them")
            for i in table.index[apart]
        ]:
            table.loc[index, "note"] = "; ".join(
                filter(None, [said, str(table.loc[index, "note"])])
            )
        records.append(table)
    out = pd.concat(records, ignore_index=True).reindex(columns=COLUMNS)
    counts = ["position", "n_systems", "n_inputs", "n_pairs", "n_resamples", "seed"]
    return out.astype(dict.fromkeys(counts, "Int64"))
