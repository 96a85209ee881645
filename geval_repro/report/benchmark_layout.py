"""The benchmarks the G-Eval paper does not report, laid out in its tables' style (display only).

Each benchmark the paper does not meta-evaluate on gets one table, as Tables 1-3 lay theirs
out: one row per metric (recomputed baselines, then the released scores of other metrics and
UniEval's predictions, then the rest: the human yardstick, judge runs with their variants),
its columns read from the registry. A benchmark of per-item human scores (DialSummEval,
SFRES, SFHOT): its dimensions and their AVG x the coefficients it compares
(``Benchmark.compared_coefficients``), at its protocol's level, from the correlation rows
(:func:`correlation_layout`). A benchmark of binary labels (SummEdits): its domains and
their mean x its ``labels.statistics``, from the binary-label rows (:func:`binary_layout`).
A cell reads "ours [95 % CI]", with ``n=…`` where it rests on fewer items than its column's
full count; a cell without a value says why ("– (2)": reason 2 under the table). There is
no paper column: the paper prints nothing for these benchmarks, and the table says so.
Each layout is a CSV of its cells beside its Markdown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from geval_repro.baselines import BASELINE_METRICS
from geval_repro.baselines.protocols import RELEASED_VARIANT
from geval_repro.registry.benchmarks import UNIEVAL, Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.paper import AVERAGE
from geval_repro.report.paper_layout import (
    COUNTS_LEGEND,
    LaidOut,
    Reason,
    cells_frame,
    lay_out,
    layout_part,
    significance_lines,
    status_legend,
)
from geval_repro.stats.level import Level
from geval_repro.stats.registry import binary_statistic, symbol
from geval_repro.tables.binary_labels import AVERAGE as BINARY_AVERAGE
from geval_repro.tables.rows import CONFIDENCE, too_few_units

#: Marks the baseline variant of the benchmark's own protocol (its registry entry's
#: ``baselines.protocol_variant``) where a baseline has several.
BENCHMARK_PROTOCOL_MARK = " (the benchmark's protocol)"
BENCHMARK_PROTOCOL_LEGEND = (
    "Baselines: of a baseline with several variants, the variant of this toolkit's protocol "
    f"for the benchmark comes first, marked{BENCHMARK_PROTOCOL_MARK}; the others are shown "
    "for comparison (docs/baselines.md)."
)
#: Why a cell has no value.
NOT_SCORED = "the metric scores no item on this dimension (a judge run: its config's dimensions)"
NO_AVERAGE_PARTIAL = "no AVG: the metric does not score every dimension"
NO_AVERAGE = "no AVG row for this metric (it is not averaged over the dimensions)"
NO_ROW = "no row for this column"
NO_DOMAIN_ROW = "no row for this domain"
NOTE_REASONS = ("no value", "not scorable")
#: Under a binary-label layout: what ``n=…`` says (its intervals resample documents).
BINARY_COUNTS_LEGEND = (
    "n=…: the test-split pairs a cell rests on, shown where they are fewer than its column's "
    "full count (a partial judge run: its rows rest on the pairs it scored; binary_labels.csv "
    "has their documents)."
)


def _not_printed(benchmark: Benchmark) -> str:
    return (
        f"The G-Eval paper (Liu et al. 2023) does not report {benchmark.title}: no printed "
        "value, so no paper column and no difference to one."
    )


#: Which variants of a judge run a layout shows (:func:`~.paper_layout.shown_variant`).
SHOWN_VARIANTS = (
    "Shown: the released parser's mean of the replies and first reply, and the "
    "rating-probability scores; of this toolkit's own runs (toolkit-run) the tolerant "
    "parser's too, because most of their replies do not parse under the released one; the "
    "modal reply is in each run's own tables."
)


def judge_notes(judges: Mapping[str, JudgeSpec]) -> list[str]:
    """The line under a layout naming its judge runs (``judges``: by name) and the variants
    it shows; none without a run."""
    if not judges:
        return []
    runs = "; ".join(f"`{name}`: {spec.label}" for name, spec in judges.items())
    return [f"Judge runs: {runs}. {SHOWN_VARIANTS}"]


def _kind(metric: str, variant: str) -> int:
    """0: a baseline recomputed here; 1: released scores (another metric's, UniEval's); 2:
    the rest (the human yardstick, judge runs), in the rows' order within each."""
    if metric in BASELINE_METRICS and variant != RELEASED_VARIANT:
        return 0
    return 1 if variant == RELEASED_VARIANT or metric == UNIEVAL else 2


def _by_kind(part: pd.DataFrame) -> pd.DataFrame:
    kinds = [_kind(m, v) for m, v in zip(part["metric"], part["variant"], strict=True)]
    return part.assign(_k=kinds).sort_values("_k", kind="stable").drop(columns="_k")


def _note_reason(note: Any) -> str:
    """The parts of a correlation row's note that say why it has no value."""
    parts = [] if pd.isna(note) else str(note).split("; ")
    kept = [p for p in parts if p.startswith(NOTE_REASONS)]
    return "; ".join(kept) or "no value (the row's note in correlations.csv says why)"


def _correlation_reason(dimensions: Sequence[str]) -> Reason:
    """Why a cell of a benchmark of ``dimensions`` has no value ("" where its ``n=…`` says
    it: too few units)."""

    def reason(by_column: Mapping[tuple[str, str, str], Any], column: tuple[str, str, str]) -> str:
        _, dimension, _ = column
        row = by_column.get(column)
        if row is None:
            scored = {d for _, d, _ in by_column}
            if dimension == AVERAGE:
                return NO_AVERAGE if scored >= set(dimensions) else NO_AVERAGE_PARTIAL
            return NOT_SCORED if dimension not in scored else NO_ROW
        if too_few_units(row.level, row.n_items, row.n_groups):
            return ""
        return _note_reason(row.note)

    return reason


def _markdown(
    head: str, headers: Sequence[str], laid: LaidOut, legends: Sequence[str], notes: Sequence[str]
) -> list[str]:
    """The table's lines: ``head``, the table, ``legends``, the numbered reasons, ``notes``."""
    lines = [
        head,
        "",
        "| metric | variant | status | " + " | ".join(headers) + " |",
        "|---|---|---|" + "---|" * len(headers),
        *(f"| {m} | {v} | {s} | " + " | ".join(cells) + " |" for m, v, s, cells in laid.rows),
    ]
    if legends:
        lines += ["", *legends]
    if laid.reasons:
        lines += ["", "Cells without a value (–):"]
        lines += [f"({i}) {reason}." for i, reason in enumerate(laid.reasons, start=1)]
    if notes:
        lines += ["", *notes]
    return lines


def correlation_layout(
    table: pd.DataFrame,
    benchmark: Benchmark,
    significance: pd.DataFrame | None = None,
    notes: Sequence[str] = (),
) -> tuple[pd.DataFrame, str]:
    """The layout of ``benchmark`` (per-item human scores, no paper table) from the
    correlation rows ``table``: (its cells as a table, its Markdown). Columns: its
    dimensions and AVG x its compared coefficients, at its level; ``significance`` and
    ``notes`` as in :func:`geval_repro.report.paper_layout.paper_layout`."""
    coefficients = benchmark.compared_coefficients
    dimensions = [*benchmark.dimension_names, AVERAGE]
    columns = [(benchmark.name, d, c) for d in dimensions for c in coefficients]
    headers = [f"{d} {symbol(c)}" for _, d, c in columns]
    part = _by_kind(layout_part(table, [benchmark.name], BENCHMARK_PROTOCOL_MARK))
    part = part.assign(paper_value=math.nan)  # the paper prints nothing for it
    laid = lay_out(part, columns, significance, _correlation_reason(benchmark.dimension_names))
    level = f"{benchmark.level_name} level"
    if benchmark.level is Level.SUMMARY:
        level += " (correlated per document over its systems, then averaged)"
    head = (
        f"{benchmark.title}, {level}: ours [{CONFIDENCE:.0%} bootstrap CI]. "
        f"{_not_printed(benchmark)} " + status_legend(part, printed=False)
    )
    if part["variant"].str.endswith(BENCHMARK_PROTOCOL_MARK).any():
        notes = [BENCHMARK_PROTOCOL_LEGEND, *notes]
    lines = _markdown(head, headers, laid, laid.legends, notes)
    lines += significance_lines(significance, laid, columns, headers)
    names = [f"{d} {c}" for _, d, c in columns]
    return cells_frame(laid, names), "\n".join(lines) + "\n"


def _binary_reason(
    by_column: Mapping[tuple[str, str, str], Any], column: tuple[str, str, str]
) -> str:
    """Why a binary-label cell has no value: no row, or its note's last part (the reason
    :func:`geval_repro.tables.binary_labels.binary_label_rows` writes last)."""
    row = by_column.get(column)
    if row is None:
        return NO_DOMAIN_ROW
    return str(row.note).split("; ")[-1] if pd.notna(row.note) else "no value"


def binary_layout(
    rows: pd.DataFrame, benchmark: Benchmark, notes: Sequence[str] = ()
) -> tuple[pd.DataFrame, str]:
    """The layout of ``benchmark`` (binary labels) from its binary-label rows, as its own
    paper lays out its table: one row per metric, its domains and their mean as columns,
    per statistic of ``labels.statistics``: (its cells as a table, its Markdown; ``notes``:
    lines under it)."""
    labels = benchmark.labels
    if labels is None:
        raise ValueError(f"{benchmark.title} has no binary labels (Benchmark.labels)")
    domains = [*labels.domains, BINARY_AVERAGE]
    columns = [(benchmark.name, d, s) for s in labels.statistics for d in domains]
    short = {BINARY_AVERAGE: "mean"}
    headers = [f"{short.get(d, d)} {binary_statistic(s).symbol}" for _, d, s in columns]
    mine = rows[rows["benchmark"] == benchmark.name]
    part = mine.assign(
        dimension=mine["domain"],
        coefficient=mine["statistic"],
        level=benchmark.level.value,
        n_groups=math.nan,
        paper_value=math.nan,
    )
    part = _by_kind(layout_part(part, [benchmark.name]))
    laid = lay_out(part, columns, None, _binary_reason)
    legends = [BINARY_COUNTS_LEGEND if x == COUNTS_LEGEND else x for x in laid.legends]
    statistics = "; ".join(
        f"{binary_statistic(s).symbol} = {binary_statistic(s).label}" for s in labels.statistics
    )
    titles = "; ".join(f"{key}: {title}" for key, title in labels.domains.items())
    head = (
        f"{benchmark.title}, binary labels ({labels.positive} or not), laid out as its own "
        f"paper's table (one row per metric, the domains and their mean) on each domain's "
        f"`{labels.tested_split}` split ({statistics}; per domain), ours "
        f"[{CONFIDENCE:.0%} bootstrap CI over documents]. {_not_printed(benchmark)} "
        f"Domains: {titles}. "
        + status_legend(part, printed=False).replace("correlations.csv", "binary_labels.csv")
    )
    notes = [
        "Status reference: a constant and a uniform random score, both 0.5 in expectation: a "
        "metric whose interval holds 0.5 is not told apart from chance. Every row, threshold "
        "and count: binary_labels.csv.",
        *notes,
    ]
    lines = _markdown(head, headers, laid, legends, notes)
    names = [f"{d} {s}" for _, d, s in columns]
    return cells_frame(laid, names), "\n".join(lines) + "\n"
