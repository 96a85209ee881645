"""Rule functions of the judge cards: the alternative annotator test of every metric on the
benchmarks with individual annotators (computed in :mod:`geval_repro.tables.alt_test`) and
the soft pairwise accuracy of every metric on the benchmarks whose systems share documents
(:mod:`geval_repro.tables.soft_pairwise`); then every judge's card from those tables and the
correlation rows (:mod:`geval_repro.tables.judge_cards`, :mod:`geval_repro.report.judge_card`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.atomic import write_text
from geval_repro.files.paths import PathLike
from geval_repro.pipeline.judge_pairs import read_metrics
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.judge_card import card_figure, card_markdown, card_title
from geval_repro.report.table_files import write_pair
from geval_repro.scoring.sweep import SWEEP_COLUMNS
from geval_repro.tables import alt_test, biases, power, soft_pairwise
from geval_repro.tables.judge_cards import card_rows, labelled_rows
from geval_repro.tables.llm_preference import run_model
from geval_repro.tables.paired_tests import Scored, baseline_metrics, judge_metrics

log = logging.getLogger(__name__)

#: The tables the cards read, in :func:`~geval_repro.tables.judge_cards.card_rows`' order.
CARD_TABLES = (
    "correlations",
    "vs_baseline",
    "ceiling",
    "alt_test",
    "spa",
    "power",
    "biases",
    "reruns",
)
#: The columns of the run-to-run agreement table the cards read.
RERUN_COLUMNS = ["judge_a", "judge_b", "dimension", "coefficient", "agreement_level", "agreement"]

#: The legend under the alternative annotator test's Markdown table.
ALT_TEST_LEGEND = (
    "The alternative annotator test (Calderon, Reichart and Dror, ACL 2025; docs/protocol.md): "
    "omega = share of annotators the metric beats (Benjamini-Yekutieli at q = 0.05 over the "
    "annotators), rho = average advantage probability; the metric passes at omega >= 0.5 with "
    "margin epsilon (beside each row). Items are treated as independent. Reference rows: a "
    "random rating and a constant at the median rating; where the constant passes, the test "
    "cannot tell judges apart on that dimension."
)


def alt_test_table(
    benchmarks: Mapping[str, Benchmark],
    benchmark_tables: Mapping[str, PathLike],
    annotator_tables: Mapping[str, PathLike],
    baseline_scores: Mapping[str, Sequence[PathLike]],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
    settings: Settings,
    stem: PathLike,
) -> None:
    """The alternative annotator test of every metric on each of ``benchmarks`` ->
    ``<stem>.csv`` and ``<stem>.md``. Per benchmark name: its tidy table, its annotators'
    table, its baselines' per-item scores, the specs of the judges on it; ``processed``:
    each judge's processed tables by name."""
    parts = []
    for name, benchmark in benchmarks.items():
        epsilon = settings.epsilon(benchmark)
        if epsilon is None:
            continue
        _, metrics = _metrics(name, benchmark, benchmark_tables, baseline_scores, specs, processed)
        annotators = pd.read_parquet(annotator_tables[name])
        log.info(
            "%s: %d metrics against %d annotators, epsilon %g",
            name,
            len(metrics),
            annotators["annotator"].nunique(),
            epsilon,
        )
        parts.append(
            alt_test.alt_test_rows(
                benchmark, annotators, metrics, specs[name], epsilon, settings.seed
            )
        )
    _write(parts, alt_test.COLUMNS, stem, ALT_TEST_LEGEND)


#: The legend under the soft pairwise accuracy's Markdown table.
SPA_LEGEND = (
    "Soft pairwise accuracy (Thompson et al., 2024; mt-metrics-eval's pce.py): for every pair "
    "of systems the one-sided p-value of a paired permutation test over documents that one "
    "beats the other, on the humans' scores and on the metric's (the same sign flips); "
    "SPA = 1 - mean |p_h - p_m|. Reference rows: the humans themselves (1) and a constant "
    "(the humans' mean p-value). Ranked by SPA; intervals (95 % percentile) and significance "
    "clusters from a paired bootstrap over documents, SPA recomputed on each resample (pairs "
    "in soft_pairwise_accuracy_pairs)."
)
#: The legend under the SPA pair tests' Markdown table.
SPA_PAIRS_LEGEND = (
    "Every pair of metrics ranked by soft pairwise accuracy on a benchmark and dimension: "
    "difference a - b with its 95 % percentile interval over document resamples (the same "
    "draws for both, SPA recomputed on each), the two-sided bootstrap p-value (the "
    "difference's bootstrap distribution shifted to 0; at least 1 / (B + 1)) and Holm's "
    "adjustment over the pairs of the dimension."
)


def spa_table(
    benchmarks: Mapping[str, Benchmark],
    benchmark_tables: Mapping[str, PathLike],
    baseline_scores: Mapping[str, Sequence[PathLike]],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
    settings: Settings,
    stem: PathLike,
    pairs_stem: PathLike,
) -> None:
    """Soft pairwise accuracy of every metric on each of ``benchmarks`` (inputs as in
    :func:`alt_test_table`; permutations, bootstrap resamples and seed from the config) ->
    ``<stem>.csv`` and ``<stem>.md``, the pair tests of its clusters -> ``<pairs_stem>.csv``
    and ``<pairs_stem>.md``."""
    parts, pair_parts = [], []
    for name, benchmark in benchmarks.items():
        tidy, metrics = _metrics(
            name, benchmark, benchmark_tables, baseline_scores, specs, processed
        )
        log.info(
            "%s: SPA of %d metrics, %d permutations, %d document resamples",
            name,
            len(metrics),
            settings.permutation_resamples,
            settings.bootstrap_resamples,
        )
        tables = soft_pairwise.spa_rows(
            benchmark,
            tidy,
            metrics,
            settings.permutation_resamples,
            settings.seed,
            settings.bootstrap_resamples,
            scales={judge: spec.scale for judge, spec in specs[name].items()},
        )
        parts.append(tables.rows)
        pair_parts.append(tables.pairs)
    _write(parts, soft_pairwise.COLUMNS, stem, SPA_LEGEND)
    _write(pair_parts, soft_pairwise.PAIR_COLUMNS, pairs_stem, SPA_PAIRS_LEGEND)


#: The legend under the judge cards' Markdown table.
CARDS_LEGEND = (
    "One row per judge, benchmark and dimension (geval_repro.tables.judge_cards): Spearman "
    "correlation at the benchmark's level with its interval, the best baseline and the "
    "difference, the human ceiling (its range over the annotators), the alternative annotator "
    "test beside its reference rows, soft pairwise accuracy; a statistic that does not apply "
    "says why in its cell; n beside every number below the benchmark's full n. A run on binary "
    "labels (SummEdits): coefficient balanced_accuracy, its mean over domains in value (ROC AUC "
    "beside it), the best baseline's and the references' means (binary_labels.csv)."
)


def judge_cards(
    specs: Mapping[str, JudgeSpec],
    processed: Mapping[str, Mapping[str, PathLike]],
    tables: Mapping[str, PathLike],
    manifests: Mapping[str, PathLike],
    preferences: Mapping[str, PathLike],
    preference_manifests: Mapping[str, PathLike],
    stem: PathLike,
    cards: Mapping[str, Sequence[PathLike]],
    labelled: Mapping[str, JudgeSpec] | None = None,
) -> None:
    """The judge cards' table (``<stem>.csv|.md``) and each judge's card and figure
    (``cards``: judge -> its ``.md``, ``.png``, ``.svg``). ``tables``: the CSVs the cards
    read by name (:data:`CARD_TABLES`; ``reruns`` missing when no re-run pair is
    configured, ``sweep``, the replies-per-item sweep, when no run has replies,
    ``binary_labels``, the binary-label table, when no run is on binary labels);
    ``manifests``: the run manifest of each judge that has one (its cost lines and its
    model); ``preferences``: the preference table of each benchmark of pairwise preferences
    (the writer-vs-LLM analysis), ``preference_manifests``: the run manifest of each judge on
    one of them that has one (its model: a card shows the preference of a run of its own
    model, :mod:`geval_repro.tables.llm_preference`). ``specs``,
    ``processed``: the judges on benchmarks with human scores; their headline variant is
    the first of their compared score variants
    (:func:`~geval_repro.tables.paired_tests.judge_metrics`). ``labelled``: the judges on
    benchmarks of binary human labels (their processed tables in ``processed`` too), their
    rows from the binary-label table (``tables["binary_labels"]``)
    (:func:`~geval_repro.tables.judge_cards.labelled_rows`)."""
    labelled = labelled or {}
    every = {**specs, **labelled}
    headline = {judge: _headline(spec, processed[judge]).variant for judge, spec in every.items()}
    preference_runs = {
        judge: run_model(_read_json(path)) for judge, path in preference_manifests.items()
    }
    preference_tables = {name: pd.read_csv(path) for name, path in preferences.items()}
    parsed = {judge: _read_json(path) for judge, path in manifests.items()}
    sweep = (
        pd.read_csv(tables["sweep"])
        if "sweep" in tables
        else pd.DataFrame(columns=list(SWEEP_COLUMNS))
    )
    table = card_rows(
        specs,
        headline,
        *(pd.read_csv(tables[name]) for name in CARD_TABLES[:-1]),
        pd.read_csv(tables["reruns"])
        if "reruns" in tables
        else pd.DataFrame(columns=RERUN_COLUMNS),
        parsed,
        sweep,
        preference_runs=preference_runs,
        preferences=preference_tables,
    )
    if labelled:
        if "binary_labels" not in tables:
            raise ValueError("judge cards: runs on binary labels but no binary-label table")
        binary = labelled_rows(
            labelled,
            headline,
            pd.read_csv(tables["binary_labels"]),
            parsed,
            sweep,
            preference_runs=preference_runs,
            preferences=preference_tables,
        )
        table = pd.concat([table, binary], ignore_index=True)
    write_pair(table, stem, legend=CARDS_LEGEND)
    for judge, (markdown, png, svg) in cards.items():
        rows = table[table["judge"] == judge]
        log.info("card %s: %d dimensions, variant %s", judge, len(rows), headline[judge])
        card_figure(rows, card_title(every[judge].label, rows), png, svg)
        write_text(markdown, card_markdown(judge, every[judge].label, rows, judge))


def _metrics(
    name: str,
    benchmark: Benchmark,
    benchmark_tables: Mapping[str, PathLike],
    baseline_scores: Mapping[str, Sequence[PathLike]],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
) -> tuple[pd.DataFrame, list[Scored]]:
    """Benchmark ``name``'s tidy table and every metric a reader compares on it (baselines of
    the protocol variant, UniEval, the judges' compared variants), from the job's inputs
    by benchmark name."""
    return read_metrics(
        benchmark,
        benchmark_tables[name],
        baseline_scores[name],
        specs[name],
        {judge: processed[judge] for judge in specs[name]},
        compared_only=True,
    )


def _headlines(
    name: str,
    benchmark_tables: Mapping[str, PathLike],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
) -> tuple[pd.DataFrame, list[Scored]]:
    """Benchmark ``name``'s tidy table and the card variant of each judge on it."""
    tidy = pd.read_parquet(benchmark_tables[name])
    return tidy, [_headline(spec, processed[judge]) for judge, spec in specs[name].items()]


def _write(
    parts: Sequence[pd.DataFrame], columns: Sequence[str], stem: PathLike, legend: str
) -> None:
    """The benchmarks' rows in one table (its columns when there are none) ->
    ``<stem>.csv`` and ``<stem>.md``."""
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(columns))
    write_pair(table, stem, legend=legend)


def _read_json(path: PathLike) -> dict:
    """A run manifest, parsed."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _headline(spec: JudgeSpec, processed: Mapping[str, PathLike]) -> Scored:
    """The judge's card variant: the first of its compared score variants."""
    tables = {name: pd.read_parquet(path) for name, path in processed.items()}
    return judge_metrics(spec, tables, compared_only=True)[0]


def power_table(
    benchmarks: Mapping[str, Benchmark],
    benchmark_tables: Mapping[str, PathLike],
    annotator_tables: Mapping[str, PathLike],
    baseline_scores: Mapping[str, Sequence[PathLike]],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
    vs_baseline: PathLike,
    settings: Settings,
    stem: PathLike,
) -> None:
    """Each judge's headline variant against the best baseline and the human ceiling, by the
    paired bootstrap (:mod:`geval_repro.tables.power`; resamples and seed of the config's
    bootstrap) -> ``<stem>.csv`` and ``<stem>.md``. Inputs by benchmark name as in
    :func:`alt_test_table` (``annotator_tables`` only for the benchmarks that have one);
    ``vs_baseline``: the table of the judges' tests against the best baseline."""
    tests = pd.read_csv(vs_baseline)
    parts = []
    for name, benchmark in benchmarks.items():
        if not specs[name]:
            continue
        tidy, judges = _headlines(name, benchmark_tables, specs, processed)
        baselines = [
            m
            for path in baseline_scores[name]
            for m in baseline_metrics(pd.read_parquet(path), benchmark)
        ]
        annotators = pd.read_parquet(annotator_tables[name]) if name in annotator_tables else None
        log.info("%s: %d judges, %d resamples", name, len(judges), settings.bootstrap_resamples)
        parts.append(
            power.power_rows(
                benchmark,
                tidy,
                judges,
                baselines,
                tests,
                annotators,
                settings.bootstrap_resamples,
                settings.seed,
            )
        )
    _write(parts, power.COLUMNS, stem, POWER_LEGEND)


#: The legend under the power table's Markdown.
POWER_LEGEND = (
    "Each judge (its card's variant) minus the best baseline and minus the human ceiling, "
    "Spearman at the benchmark's level: paired bootstrap over documents (items when pooled), "
    "95 % percentile interval, the smallest difference detectable with 80 % power at "
    "two-sided 0.05 on these units ((z_0.975 + z_0.8) x the bootstrap's standard deviation) "
    "and the units needed to detect the observed difference (assuming the spread shrinks as "
    "1 / sqrt(n)); docs/protocol.md."
)


def bias_table(
    benchmarks: Mapping[str, Benchmark],
    benchmark_tables: Mapping[str, PathLike],
    specs: Mapping[str, Mapping[str, JudgeSpec]],
    processed: Mapping[str, Mapping[str, PathLike]],
    stem: PathLike,
) -> None:
    """What each judge favours and how it agrees with itself
    (:mod:`geval_repro.tables.biases`) -> ``<stem>.csv`` and ``<stem>.md``."""
    parts = []
    for name, benchmark in benchmarks.items():
        if not specs[name]:
            continue
        tidy, judges = _headlines(name, benchmark_tables, specs, processed)
        replies = {
            judge: pd.read_parquet(processed[judge]["replies"])
            if "replies" in processed[judge]
            else None
            for judge in specs[name]
        }
        log.info("%s: biases of %d judges", name, len(judges))
        parts.append(biases.bias_rows(benchmark, tidy, judges, replies))
    _write(parts, biases.COLUMNS, stem, BIAS_LEGEND)


#: The legend under the biases table's Markdown.
BIAS_LEGEND = (
    "Per judge (its card's variant) and dimension: the share of its replies the released "
    "parser could not read; Spearman of its scores and of the humans' with the judged text's "
    "length (whitespace words) at the benchmark's level (summary level: within each document, "
    "then averaged; global: pooled), and its Spearman with the humans with length partialled "
    "out at that level (summary level: per document, then averaged); the split-half (even vs "
    "odd replies) Spearman and its Spearman-Brown correction."
)
