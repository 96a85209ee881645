"""Rule functions of the binary-label table: every metric of the benchmarks of binary human
labels (SummEdits) by the binary-label statistics (ROC AUC, balanced accuracy with its
threshold fitted on the evaluation split), per domain and averaged over domains
(:mod:`geval_repro.tables.binary_labels`); and of each such benchmark's laid-out table."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.registry.baselines import get_protocol
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.benchmark_layout import binary_layout, judge_notes
from geval_repro.report.table_files import write_layout, write_pair
from geval_repro.tables.binary_labels import (
    REFERENCE_VARIANT,
    binary_label_rows,
    reference_scores,
)
from geval_repro.tables.binary_rankings import Labelled, binary_rankings
from geval_repro.tables.judge_rows import (
    UNREAD_SCORES,
    score_variants,
    unread_note,
    unread_share,
)
from geval_repro.tables.paired_tests import compared_variant

log = logging.getLogger(__name__)

#: The legend under the Markdown table.
LEGEND = (
    "ROC AUC and balanced accuracy (BAcc) on each domain's `test` split; BAcc's threshold "
    "(predicted consistent: score >= it) is fitted on the domain's `evaluation` split "
    "(maximum BAcc, ties to the lowest; 4 documents per domain) and held fixed. Intervals: "
    "95 % percentile bootstrap over the test split's documents, 12-21 per domain (n_documents), "
    "the threshold's own uncertainty left out. The mean over domains weighs every domain "
    "equally. Reference rows: a constant and a uniform random score (expected 0.5 both); "
    "a value inside their intervals is not told apart from chance. ROC AUC counts a tied "
    "(consistent, inconsistent) pair as one half: tie_rate is the share of those pairs tied "
    "(pooled over domains in the mean rows); the constant ties all of them. A judge run's rows "
    "rest on the items it scored (n_items, n_documents; a partial run says so in its note)."
)
#: The legend under the rankings' Markdown table.
RANKINGS_LEGEND = (
    "The baselines and the judge runs' compared variants (as in the correlation rankings: not "
    "the modal reply or answer, nor the tolerant parser, robustness checks of one run) ranked "
    "by each statistic's mean over domains (the values of binary_labels.csv), on every item "
    "(`full`) or on the items a partial run scores (the full metrics restricted to them). A "
    "new cluster starts at a metric significantly worse than one of the current cluster: "
    "two-sided paired bootstrap over the test split's documents (the same draws for every "
    "metric on those items, the difference's distribution shifted to 0), Holm over the "
    "ranking's pairs, p <= 0.05. Pairs in binary_label_pairs.csv."
)
#: The legend under the pair tests' Markdown table.
PAIRS_LEGEND = (
    "Every pair of metrics of a ranking of binary_label_rankings.csv: the means over domains, "
    "their difference a - b, its two-sided paired-bootstrap p-value over the test split's "
    "documents (at least 1 / (n_resamples + 1)) and Holm's adjustment over the ranking's pairs."
)


def judge_scores(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame], table: pd.DataFrame
) -> list[Labelled]:
    """One judge run's per-item scores on a benchmark of binary labels, aligned with
    ``table`` (the benchmark's tidy table): one :class:`Labelled` per score variant
    (:func:`geval_repro.tables.judge_rows.score_variants`), metric the run's name, status the
    run's (toolkit-run, fixture, recomputed). An item without a score (not in the run, or
    unparsed) is NaN. A mean or mode of the replies carries the note its correlation rows
    have: how many replies its parser could not read and what it did with them (scored 0,
    or left out). ``processed``: the run's processed tables by name."""
    benchmark = spec.benchmark
    keys = list(benchmark.item_keys)
    (dimension,) = benchmark.dimension_names
    labelled = []
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
            note = unread_note(unread_share(items[items["dimension"] == dimension]), variant)
        scores = aligned[column].to_numpy(dtype=float)
        labelled.append(Labelled(spec.name, variant, spec.status, scores, note))
    return labelled


def judge_label_rows(
    spec: JudgeSpec,
    processed: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    settings: Settings,
) -> list[pd.DataFrame]:
    """The binary-label rows of one judge run (:func:`judge_scores`) on a benchmark of
    binary labels, one row set per score variant: every row rests on the items the variant
    scored (:func:`labelled_rows`)."""
    return labelled_rows(table, spec.benchmark, judge_scores(spec, processed, table), settings)


def labelled_rows(
    table: pd.DataFrame, benchmark: Benchmark, metrics: Sequence[Labelled], settings: Settings
) -> list[pd.DataFrame]:
    """The rows of :func:`~geval_repro.tables.binary_labels.binary_label_rows` of each of
    ``metrics`` (its scores aligned with ``table``, its status and note) on ``benchmark``."""
    (dimension,) = benchmark.dimension_names
    return [
        binary_label_rows(
            table,
            benchmark=benchmark,
            dimension=dimension,
            metric=m.metric,
            variant=m.variant,
            scores=m.scores,
            status=m.status,
            note=m.note,
            **_resampling(settings),
        )
        for m in metrics
    ]


def binary_label_table(
    benchmarks: Mapping[str, Benchmark],
    tables: Mapping[str, PathLike],
    scores: Mapping[str, PathLike],
    settings: Settings,
    stems: tuple[PathLike, PathLike, PathLike],
    specs: Mapping[str, JudgeSpec] | None = None,
    processed: Mapping[str, Mapping[str, PathLike]] | None = None,
) -> None:
    """The binary-label rows of every baseline and of the reference metrics of
    ``benchmarks``, then of every judge run of ``specs`` (on one of them) ->
    ``<stems[0]>.csv|.md``; the baselines' and runs' rankings with their significance
    clusters (:mod:`geval_repro.tables.binary_rankings`) -> ``<stems[1]>.csv|.md`` and their
    pair tests -> ``<stems[2]>.csv|.md``. ``tables``, ``scores``: each benchmark's tidy
    table and per-item baseline scores by name; ``processed``: each run's processed tables
    by name."""
    stem, rankings_stem, pairs_stem = stems
    parts, ranking_parts, pair_parts = [], [], []
    for name, benchmark in benchmarks.items():
        table = pd.read_parquet(tables[name])
        keys = list(benchmark.item_keys)
        (dimension,) = benchmark.dimension_names
        common = {"benchmark": benchmark, "dimension": dimension, **_resampling(settings)}
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
        ranked = []
        for (metric, variant), group in baselines.groupby(["metric", "variant"], sort=True):
            aligned = table[keys].merge(group[[*keys, "score"]], on=keys, how="left")
            if aligned["score"].isna().any():
                missing = aligned.loc[aligned["score"].isna(), keys].head(3).to_dict("records")
                raise ValueError(f"{scores[name]}: {metric} has no score for items {missing}")
            log.info("%s: %s (%s)", name, metric, variant)
            score = aligned["score"].to_numpy()
            ranked.append(Labelled(metric, variant, "recomputed", score, notes.get(metric, "")))
        for judge, spec in (specs or {}).items():
            if spec.benchmark.name != name:
                continue
            files = (processed or {})[judge]
            run_tables = {key: pd.read_parquet(path) for key, path in files.items()}
            ranked.extend(judge_scores(spec, run_tables, table))
        parts.extend(labelled_rows(table, benchmark, ranked, settings))
        compared = [m for m in ranked if compared_variant(m.variant)]
        rankings = binary_rankings(table, benchmark, dimension, compared, **_resampling(settings))
        ranking_parts.append(rankings.rankings)
        pair_parts.append(rankings.pairs)
    write_pair(pd.concat(parts, ignore_index=True), stem, LEGEND)
    write_pair(pd.concat(ranking_parts, ignore_index=True), rankings_stem, RANKINGS_LEGEND)
    write_pair(pd.concat(pair_parts, ignore_index=True), pairs_stem, PAIRS_LEGEND)


def _resampling(settings: Settings) -> dict[str, int]:
    """The bootstrap's resamples and seed from the config."""
    return {"n_resamples": settings.bootstrap_resamples, "seed": settings.seed}


def write_binary_layout(
    rows: PathLike, benchmark: Benchmark, specs: Mapping[str, JudgeSpec], stem: PathLike
) -> None:
    """``benchmark`` (binary labels) laid out as its own paper's table
    (:func:`geval_repro.report.benchmark_layout.binary_layout`) from the binary-label rows
    ``rows``, naming its judge runs (``specs``: by name) -> ``<stem>.csv`` (the cells) and
    ``<stem>.md``."""
    cells, markdown = binary_layout(pd.read_csv(rows), benchmark, judge_notes(specs))
    log.info("%s laid out: %d rows", benchmark.name, len(cells))
    write_layout(cells, markdown, stem)
