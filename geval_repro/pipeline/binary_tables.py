"""Rule function of the binary-label table: every metric of the benchmarks of binary human
labels (SummEdits) by the binary-label statistics (ROC AUC, balanced accuracy with its
threshold fitted on the evaluation split), per domain and averaged over domains
(:mod:`geval_repro.tables.binary_labels`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.registry.baselines import get_protocol
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.table_files import write_pair
from geval_repro.tables.binary_labels import (
    REFERENCE_VARIANT,
    binary_label_rows,
    reference_scores,
)
from geval_repro.tables.judge_rows import (
    UNREAD_SCORES,
    score_variants,
    unread_note,
    unread_share,
)

log = logging.getLogger(__name__)

#: The legend under the Markdown table.
LEGEND = (
    "ROC AUC and balanced accuracy (BAcc) on each domain's `test` split; BAcc's threshold "
    "(predicted consistent: score >= it) is fitted on the domain's `evaluation` split "
    "(maximum BAcc, ties to the lowest; 4 documents per domain) and held fixed. Intervals: "
    "95 % percentile bootstrap over the test split's documents, 12-21 per domain (n_documents), "
    "the threshold's own uncertainty left out. The mean over domains weighs every domain "
    "equally. Reference rows: a constant and a uniform random score (expected 0.5 both); "
    "a value inside their intervals is not told apart from chance. A judge run's rows rest on "
    "the items it scored (n_items, n_documents; a partial run says so in its note)."
)


def judge_label_rows(
    spec: JudgeSpec,
    processed: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    settings: Settings,
) -> list[pd.DataFrame]:
    """The binary-label rows of one judge run on a benchmark of binary labels: one row set
    per score variant (:func:`geval_repro.tables.judge_rows.score_variants`), metric the
    run's name, status the run's (toolkit-run, fixture, recomputed). An item without a score
    (not in the run, or unparsed) is left out: the rows rest on the scored items
    (:func:`~geval_repro.tables.binary_labels.binary_label_rows`). A mean or mode of the
    replies says, as its correlation rows do, how many replies its parser could not read and
    what it did with them (scored 0, or left out). ``processed``: the run's
    processed tables by name; ``table``: the benchmark's tidy table."""
    benchmark = spec.benchmark
    keys = list(benchmark.item_keys)
    (dimension,) = benchmark.dimension_names
    parts = []
    for variant, items, column in score_variants(spec, processed):
        judged = items.loc[items["dimension"] == dimension, [*keys, column]]
        if judged.duplicated(keys).any():
            raise ValueError(f"{spec.name} ({variant}): several scores for one item")
        aligned = table[keys].merge(judged, on=keys, how="left", validate="one_to_one")
        n_scored = int(aligned[column].notna().sum())
        if n_scored == 0:
            raise ValueError(
                f"{spec.name} ({variant}): no score matches an item of {benchmark.title} on "
                f"{keys}; check the run's item keys"
            )
        log.info("%s: %s, %d scored items", spec.name, variant, n_scored)
        note = ""
        if column in UNREAD_SCORES and {"n_replies", "n_parsed"} <= set(items.columns):
            share = unread_share(items[items["dimension"] == dimension])
            note = unread_note(share, variant)
        parts.append(
            binary_label_rows(
                table,
                benchmark=benchmark,
                dimension=dimension,
                metric=spec.name,
                variant=variant,
                scores=aligned[column].to_numpy(dtype=float),
                n_resamples=settings.bootstrap_resamples,
                seed=settings.seed,
                status=spec.status,
                note=note,
            )
        )
    return parts


def binary_label_table(
    benchmarks: Mapping[str, Benchmark],
    tables: Mapping[str, PathLike],
    scores: Mapping[str, PathLike],
    settings: Settings,
    stem: PathLike,
    specs: Mapping[str, JudgeSpec] | None = None,
    processed: Mapping[str, Mapping[str, PathLike]] | None = None,
) -> None:
    """The binary-label rows of every baseline and of the reference metrics of
    ``benchmarks``, then of every judge run of ``specs`` (on one of them) ->
    ``<stem>.csv|.md``. ``tables``, ``scores``: each benchmark's tidy table and per-item
    baseline scores by name; ``processed``: each run's processed tables by name."""
    parts = []
    for name, benchmark in benchmarks.items():
        table = pd.read_parquet(tables[name])
        keys = list(benchmark.item_keys)
        (dimension,) = benchmark.dimension_names
        common = {
            "benchmark": benchmark,
            "dimension": dimension,
            "n_resamples": settings.bootstrap_resamples,
            "seed": settings.seed,
        }
        for metric, values in reference_scores(table, settings.seed).items():
            parts.append(
                binary_label_rows(
                    table,
                    metric=metric,
                    variant=REFERENCE_VARIANT,
                    scores=values,
                    status="reference",
                    **common,
                )
            )
        baselines = pd.read_parquet(scores[name])
        notes = get_protocol(benchmark.baselines.protocol).notes if benchmark.baselines else {}
        for (metric, variant), group in baselines.groupby(["metric", "variant"], sort=True):
            aligned = table[keys].merge(group[[*keys, "score"]], on=keys, how="left")
            if aligned["score"].isna().any():
                missing = aligned.loc[aligned["score"].isna(), keys].head(3).to_dict("records")
                raise ValueError(f"{scores[name]}: {metric} has no score for items {missing}")
            log.info("%s: %s (%s)", name, metric, variant)
            parts.append(
                binary_label_rows(
                    table,
                    metric=metric,
                    variant=variant,
                    scores=aligned["score"].to_numpy(),
                    note=notes.get(metric, ""),
                    **common,
                )
            )
    for judge, spec in (specs or {}).items():
        files = (processed or {})[judge]
        run_tables = {name: pd.read_parquet(path) for name, path in files.items()}
        table = pd.read_parquet(tables[spec.benchmark.name])
        parts.extend(judge_label_rows(spec, run_tables, table, settings))
    write_pair(pd.concat(parts, ignore_index=True), stem, LEGEND)
