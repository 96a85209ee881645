"""Rule functions of the writer-vs-LLM analysis (the G-Eval paper's "Will G-Eval prefer
LLM-based outputs?") on a benchmark of pairwise human preferences (registry
``preferences``): the rows of each judge and of the reference-free measures (work
files), the three tables of every metric, and the figure in the paper's layout. The
statistics are computed in :mod:`geval_repro.tables.writer_vs_llm`, the figure drawn by
:mod:`geval_repro.report.writer_vs_llm_figure`.

A judge enters with its G-Eval scores (:func:`judge_scores`): the mean of its replies
under each parser (the paper's estimate of Eq. 1 from samples; the released parser counts
an unread reply as 0, the tolerant one leaves it out), its probability-weighted rating
(Eq. 1, from rating probabilities) and a ``scores`` run's per-item scores; its one-reply
and most-likely-rating scores stay in its own diagnostics.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.atomic import write_text
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.figures import save_figure
from geval_repro.report.table_files import write_pair
from geval_repro.report.writer_vs_llm_figure import group_means_figure
from geval_repro.tables.judge_rows import score_variants
from geval_repro.tables.writer_vs_llm import (
    AVERAGE,
    SCORE_COLUMNS,
    SURFACE_METRICS,
    SURFACE_VARIANT,
    WriterVsLlmRows,
    combined,
    surface_scores,
    writer_vs_llm_rows,
)

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]

#: The per-item score columns of a judge that are its G-Eval score (see the module
#: docstring): the mean of the replies, Eq. 1, a scores run's score.
GEVAL_SCORES = ("mean", "probs", "score")
#: The typed counts of the tables, restored when their CSVs are read back.
COUNTS = ("n_judgements", "n_articles", "n_summaries")


def judge_scores(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame]
) -> list[tuple[str, pd.DataFrame]]:
    """(variant, ``item_id, dimension, score``) of each G-Eval score of a judge, named as
    in its correlation rows (:func:`geval_repro.tables.judge_rows.score_variants`). Two
    variants that give every summary the same score (a mean of one reply per summary that
    both parsers read alike) are one, named for both (:func:`same_scores_name`): its rows
    would repeat the other's."""
    (key,) = spec.benchmark.item_keys
    kept: list[tuple[str, pd.DataFrame]] = []
    for variant, table, column in score_variants(spec, processed):
        if column not in GEVAL_SCORES:
            continue
        scores = table.rename(columns={key: "item_id", column: "score"})
        scores = scores.loc[:, SCORE_COLUMNS].reset_index(drop=True)
        same = next((i for i, (_, s) in enumerate(kept) if s.equals(scores)), None)
        if same is None:
            kept.append((variant, scores))
        else:
            log.info("%s: %s gives every summary %s's score", spec.name, variant, kept[same][0])
            kept[same] = (same_scores_name(kept[same][0], variant), kept[same][1])
    return kept


def same_scores_name(first: str, second: str) -> str:
    """The name of one variant standing for two with the same scores:
    ``mean-of-1/original = tolerant`` (the shared part said once), else ``first = second``."""
    head = first.rpartition("/")[0]
    other_head, _, other_rest = second.rpartition("/")
    if head and head == other_head:
        return f"{first} = {other_rest}"
    return f"{first} = {second}"


def _rows(
    benchmark: Benchmark,
    items: pd.DataFrame,
    pairs: pd.DataFrame,
    scores: pd.DataFrame,
    settings: Settings,
    **labels: str,
) -> WriterVsLlmRows:
    assert benchmark.preferences is not None, f"{benchmark.name} has no pairwise preferences"
    return writer_vs_llm_rows(
        items,
        pairs,
        scores,
        n_resamples=settings.bootstrap_resamples,
        permutation_resamples=settings.permutation_resamples,
        seed=settings.seed,
        questions=benchmark.preferences.questions,
        **labels,  # type: ignore[arg-type]
    )


def _write_rows(rows: WriterVsLlmRows, outs: Mapping[str, PathLike]) -> None:
    for name, table in rows._asdict().items():
        write_text(outs[name], table.to_csv(index=False, lineterminator="\n"))


def judge_rows(
    spec: JudgeSpec,
    processed: Mapping[str, PathLike],
    benchmark_table: PathLike,
    pairs_table: PathLike,
    settings: Settings,
    outs: Mapping[str, PathLike],
) -> None:
    """One judge's writer-vs-LLM rows, every G-Eval score of it (:func:`judge_scores`)
    -> work CSVs (``outs``: table name -> path). ``processed``: the run's processed tables
    by name."""
    tables = {name: pd.read_parquet(path) for name, path in processed.items()}
    items, pairs = pd.read_parquet(benchmark_table), pd.read_parquet(pairs_table)
    parts = {}
    for variant, scores in judge_scores(spec, tables):
        scored = int(scores["score"].notna().sum())
        log.info("%s, %s: %d of %d item scores", spec.name, variant, scored, len(scores))
        labels = {"metric": spec.name, "variant": variant, "status": spec.status}
        parts[variant] = _rows(spec.benchmark, items, pairs, scores, settings, **labels)
    _write_rows(combined(parts), outs)


def surface_rows(
    benchmark: Benchmark,
    benchmark_table: PathLike,
    pairs_table: PathLike,
    settings: Settings,
    outs: Mapping[str, PathLike],
) -> None:
    """The writer-vs-LLM rows of the reference-free measures (length in words, share of
    novel bigrams; :func:`geval_repro.tables.writer_vs_llm.surface_scores`) -> work CSVs."""
    items, pairs = pd.read_parquet(benchmark_table), pd.read_parquet(pairs_table)
    labels = {"variant": SURFACE_VARIANT, "status": "recomputed"}
    parts = {
        metric: _rows(benchmark, items, pairs, scores, settings, metric=metric, **labels)
        for metric, scores in surface_scores(items).items()
    }
    _write_rows(combined(parts), outs)


def read_rows(paths: Sequence[PathLike]) -> pd.DataFrame:
    """Work CSVs of one table, concatenated in the order given, counts typed."""
    table = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
    return table.astype({c: "Int64" for c in COUNTS if c in table.columns})


def combine(parts: Mapping[str, Sequence[PathLike]], out_dir: PathLike) -> None:
    """Each table's work CSVs (``parts``: table name -> the judges' files, then the
    reference-free measures') -> ``<out_dir>/<table>.csv|.md``."""
    for name, paths in parts.items():
        write_pair(read_rows(paths), Path(out_dir) / name)


def figure_panels(group_means: pd.DataFrame) -> list[list[tuple[str, str, str]]]:
    """The figure's rows of panels: one row per judge score (metric, variant), a panel per
    dimension and ``AVG``, in table order; then one row of the reference-free measures."""
    surface = group_means["variant"] == SURFACE_VARIANT
    rows = []
    judged = group_means.loc[~surface, ["metric", "variant"]].drop_duplicates()
    for metric, variant in judged.itertuples(index=False):
        of = group_means[(group_means["metric"] == metric) & (group_means["variant"] == variant)]
        dimensions = list(dict.fromkeys(of["dimension"]))
        dimensions = [d for d in dimensions if d != AVERAGE] + [AVERAGE] * (AVERAGE in dimensions)
        rows.append([(metric, variant, d) for d in dimensions])
    measures = [(m, SURFACE_VARIANT, d) for m, d in SURFACE_METRICS.items()]
    rows.append([p for p in measures if ((group_means["metric"] == p[0]) & surface).any()])
    return [row for row in rows if row]


def figure(group_means: PathLike, png: PathLike, svg: PathLike) -> None:
    """The paper's figure (mean score of each author's summaries per human preference
    group, the overall question) of every metric of the group-means table -> PNG + SVG."""
    table = read_rows([group_means])
    save_figure(group_means_figure(table, figure_panels(table)), png, svg)
