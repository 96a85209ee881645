"""Rule functions of one judge: per-item scores, its result tables, its sweep, and the
rows of the paper's subset averages from paired runs (the tables themselves are computed
in :mod:`geval_repro.tables.judge_rows` and :mod:`geval_repro.scoring.sweep`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.atomic import write_parquet, write_text
from geval_repro.files.paths import PathLike
from geval_repro.load.jsonl import rating_coverage, reasoning_run
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report import figures
from geval_repro.report.label_sweep_figure import label_sweep_figures
from geval_repro.report.table_files import concat_csv, write_pair, write_rows
from geval_repro.scoring.item_scores import item_scores
from geval_repro.scoring.label_sweep import label_sweep
from geval_repro.scoring.parse import ANSWER_PARSERS, PARSERS, reply_parsers
from geval_repro.scoring.sweep import SWEEP_COEFFICIENTS, sweep
from geval_repro.tables.judge_rows import (
    rating_tables,
    replies_tables,
    scores_rows,
    subset_average_rows,
    tables_without_human_scores,
    with_coverage,
)

log = logging.getLogger(__name__)


def build_item_scores(
    replies_path: PathLike,
    out: PathLike,
    manifests: Sequence[PathLike] = (),
    answers: bool = False,
) -> None:
    """Per-item scores (mean, first, mode, counts) under both parsers, and under ``final``
    too when the run's manifest (``manifests``: none, or the one of its folder) records a
    reasoning model (:func:`geval_repro.load.jsonl.reasoning_run`); under ``yes-no`` alone
    for a prompt whose reply is a Yes/No answer (``answers``: the judge's prompt variant)
    -> parquet; the table's ``parser`` column says which parser read each row."""
    replies = pd.read_parquet(replies_path)
    parsers = reply_parsers(reasoning_run(manifests), answers)
    log.info("%d replies, parsers %s", len(replies), ", ".join(parsers))
    table = pd.concat([item_scores(replies, parser) for parser in parsers], ignore_index=True)
    write_parquet(table, out)


def write_result_tables(
    spec: JudgeSpec,
    processed: Mapping[str, PathLike],
    benchmark_table: PathLike,
    settings: Settings,
    out_dir: PathLike,
    run_files: Mapping[str, PathLike] | None = None,
) -> None:
    """Every result table of one judge
    (:attr:`~geval_repro.registry.judges.JudgeSpec.result_tables`) in ``out_dir`` as CSV +
    Markdown.

    ``processed``: the run's tables by name: ``item_scores`` and ``replies`` for a run with
    replies, ``rating_probs`` for one with rating probabilities, ``scores`` for per-item
    scores. Tables that several contents give (correlations, rollups) are concatenated. A
    run on a benchmark without per-item human scores gets only the tables that read none
    (:func:`~geval_repro.tables.judge_rows.tables_without_human_scores`).
    ``run_files``: a run with rating probabilities, its ``<dimension>.jsonl`` files: every
    note of its tables then gives the dimension's coverage (items with a rating token).
    """
    human = pd.read_parquet(benchmark_table)
    judge, contents = spec.name, spec.contents
    coverage = {d: rating_coverage(path) for d, path in (run_files or {}).items()}
    for dimension, (answered, rated) in coverage.items():
        log.info(
            "%s %s: a rating token in %d of %d answered items", judge, dimension, rated, answered
        )
    out = Path(out_dir)
    if not spec.benchmark.has_human_scores:
        tables = {name: pd.read_parquet(processed[name]) for name in spec.processed_tables}
        made = tables_without_human_scores(spec, tables, pass_threshold=settings.pass_threshold)
        for name in spec.result_tables:
            write_pair(with_coverage(made[name], coverage), out / name)
        return
    resampling = {"n_resamples": settings.bootstrap_resamples, "seed": settings.seed}
    parts: list[dict[str, pd.DataFrame]] = []
    if "replies" in contents:
        items = pd.read_parquet(processed["item_scores"])
        replies = pd.read_parquet(processed["replies"])
        parts.append(
            replies_tables(
                spec,
                items,
                replies,
                human,
                **resampling,
                permutation_resamples=settings.permutation_resamples,
                pass_threshold=settings.pass_threshold,
            )
        )
    if "rating_probs" in contents:
        rating_probs = pd.read_parquet(processed["rating_probs"])
        parts.append(
            rating_tables(
                spec,
                rating_probs,
                human,
                **resampling,
                pass_threshold=settings.pass_threshold,
                run_items={d: answered for d, (answered, _) in coverage.items()},
            )
        )
    if "item_scores" in contents:
        scores = pd.read_parquet(processed["scores"])
        parts.append({"correlations": scores_rows(spec, scores, human, **resampling)})
    for name in spec.result_tables:
        tables = [part[name] for part in parts if name in part]
        write_pair(with_coverage(pd.concat(tables, ignore_index=True), coverage), out / name)


def subset_averages(
    correlations: Mapping[str, PathLike], specs: Mapping[str, JudgeSpec], out: PathLike
) -> None:
    """The QAGS Average rows of paired judges (see
    :func:`geval_repro.tables.judge_rows.subset_average_rows`) -> a row file."""
    tables = {judge: pd.read_csv(path) for judge, path in correlations.items()}
    write_rows(subset_average_rows(tables, specs), out)


def sweep_table(
    spec: JudgeSpec,
    replies_path: PathLike,
    benchmark_table: PathLike,
    settings: Settings,
    out: PathLike,
) -> None:
    """The replies-per-item sweep (first-n and random n-subsets, n = 1..max_n) of the judge
    ``spec`` -> CSV: on a benchmark of binary labels, of every binary-label statistic
    (:mod:`geval_repro.scoring.label_sweep`; the yes-no parser for a Yes/No prompt, else
    both rating parsers); else of every coefficient of
    :data:`~geval_repro.scoring.sweep.SWEEP_COEFFICIENTS`."""
    replies = pd.read_parquet(replies_path)
    log.info(
        "sweep over %d replies: n = 1..%d, %d draws each",
        len(replies),
        settings.sweep_max_n,
        settings.sweep_draws,
    )
    if spec.has_label_sweep:
        table = label_sweep(
            replies,
            pd.read_parquet(benchmark_table),
            seed=settings.seed,
            parsers=ANSWER_PARSERS if spec.answers else PARSERS,
            draws=settings.sweep_draws,
            n_max=settings.sweep_max_n,
        )
        write_text(out, table.to_csv(index=False, lineterminator="\n"))
        return
    table = sweep(
        replies,
        pd.read_parquet(benchmark_table),
        seed=settings.seed,
        coefficients=SWEEP_COEFFICIENTS,
        draws=settings.sweep_draws,
        n_max=settings.sweep_max_n,
        se_targets=settings.sweep_se_targets,
        batch=settings.sweep_batch,
    )
    write_text(out, table.to_csv(index=False, lineterminator="\n"))


def draw_sweep_figures(sweep_path: PathLike, spec: JudgeSpec, out_dir: PathLike) -> None:
    """The figures of the sweep of the judge ``spec``
    (:data:`~geval_repro.registry.formats.SWEEP_FIGURES`) in ``out_dir``."""
    figures.sweep_figures(sweep_path, spec=spec, out_dir=out_dir)


def draw_label_sweep_figures(sweep_path: PathLike, spec: JudgeSpec, out_dir: PathLike) -> None:
    """The figure of the sweep on binary labels of the judge ``spec``
    (:data:`~geval_repro.registry.formats.LABEL_SWEEP_FIGURES`) in ``out_dir``."""
    label_sweep_figures(sweep_path, spec=spec, out_dir=out_dir)


def combine_sweeps(parts: Sequence[PathLike], out: PathLike) -> None:
    """Every run's sweep -> one CSV."""
    concat_csv(parts, out)
