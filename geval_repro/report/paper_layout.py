"""The paper's Tables 1-3 laid out as printed, from the correlation rows (display only).

Each cell reads "ours [95 % CI] (paper)": a dagger marks a printed value outside our CI,
an arrow a judge cell significantly better (↑) or worse (↓) than the best recomputed
baseline of its column (p < 0.05), ``n=…`` the items (and documents) a cell rests on where
they are fewer than its column's full count, and ``… unread`` the share of a mean-of-n
cell's replies its parser could not read. A second table under the first gives every
tested cell's difference and p-value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from geval_repro.baselines import BASELINE_METRICS, PRINTED_AS, PROTOCOL_METRICS
from geval_repro.registry.benchmarks import (
    BENCHMARKS,
    dimensions_of,
    level_of,
    printed_coefficients,
    short_of,
    table_benchmarks,
)
from geval_repro.registry.judges import SCALES, JudgeSpec
from geval_repro.registry.paper import TABLE_NOTES
from geval_repro.report.markdown import OUTSIDE_CI, OUTSIDE_CI_LEGEND, outside_ci, with_ci
from geval_repro.scoring.parse import PARSERS
from geval_repro.stats.invariance import order_only
from geval_repro.stats.level import Level
from geval_repro.stats.registry import symbol
from geval_repro.tables.judge_rows import beyond_the_paper
from geval_repro.tables.rows import (
    CONFIDENCE,
    MIN_BOOTSTRAP_UNITS,
    MIN_VALUE_UNITS,
    too_few_units,
)

BETTER, WORSE = "↑", "↓"
SIGNIFICANCE_LEVEL = 0.05  # a judge cell gets BETTER or WORSE below this p-value
TOOLKIT_RUN = "toolkit-run"
PROTOCOL_MARK = " (the paper's protocol)"
PROTOCOL_LEGEND = (
    f"Baselines: where several of ours face one printed row, the one marked{PROTOCOL_MARK} "
    "reproduces it and comes first; the others are shown for comparison (docs/baselines.md)."
)
#: Columns of the rows a layout shows when present (counts, the unread share).
OPTIONAL_COLUMNS = ("n_items", "n_groups", "share_unread")
#: Under a table: what each mark and count in its cells says (shown when a cell has one).
SIGNIFICANCE_LEGEND = (
    f"{BETTER} / {WORSE}: the judge cell is significantly better / worse than the best "
    f"recomputed baseline of its column (two-sided paired permutation test on the items "
    f"both score, p < {SIGNIFICANCE_LEVEL:g}; every test is in the table under this one)."
)
COUNTS_LEGEND = (
    "n=…: the items (in how many documents, at the summary level) a cell rests on, shown "
    "where they are fewer than its column's full count (the most any row of the column "
    "rests on: the benchmark's items under its protocol; an AVG cell: the fewest of the "
    "cells it averages). A cell resting on fewer than "
    f"{MIN_BOOTSTRAP_UNITS} documents (summary level) or items (turn and dataset levels) has "
    f"no interval and no significance mark; on fewer than {MIN_VALUE_UNITS}, no value (–), "
    "only its n (docs/protocol.md)."
)
UNREAD_LEGEND = (
    "… unread: of a mean-of-n cell, the share of its replies the parser could not read (an "
    "AVG cell: the largest of the cells it averages); the "
    "released parser (`original`) scores them 0 and still counts them, so such a cell "
    "measures format failures as much as ratings; the tolerant parser leaves them out."
)


def _counts(row: Any, full: tuple[float, float]) -> str:
    """ "n=22 in 4 docs" (summary level) or "n=30" (pooled) when the row rests on fewer
    items or documents than its column's full count ``full`` (items, documents); else ""."""
    items, groups = row.n_items, row.n_groups
    if pd.isna(items):
        return ""
    full_items, full_groups = full
    grouped = Level(row.level).grouped and not pd.isna(groups)
    fewer = int(items) < full_items or (grouped and int(groups) < full_groups)
    if not fewer:
        return ""
    if not grouped:
        return f"n={int(items)}"
    return f"n={int(items)} in {int(groups)} doc" + ("" if int(groups) == 1 else "s")


def _cell(row: Any | None, full: tuple[float, float], mark: str) -> tuple[str, bool]:
    """ "ours [CI] (paper)" with a † when the printed value lies outside our CI, the
    significance ``mark``, the counts where fewer than ``full`` and the unread share (also
    of a cell without a value: it shows what it would rest on); and the † flag. ``row``:
    the cell's row (None: "–")."""
    if row is None:
        return "–", False
    value, low, high, printed = (float(row.value), row.ci_low, row.ci_high, row.paper_value)
    ours = "–" if math.isnan(value) else with_ci(value, low, high, decimals=3)
    flagged = outside_ci(printed, low, high)
    paper = "" if pd.isna(printed) else f" ({float(printed):.3f})"
    text = ours + paper + (f" {OUTSIDE_CI}" if flagged else "") + (f" {mark}" if mark else "")
    share = getattr(row, "share_unread", math.nan)
    extras = [_counts(row, full), "" if pd.isna(share) else f"{float(share):.0%} unread"]
    return "; ".join([text, *(e for e in extras if e)]), flagged


def _full_counts(part: pd.DataFrame) -> dict[tuple[str, str, str], tuple[float, float]]:
    """(benchmark, dimension, coefficient) -> the most items and documents any row of that
    column rests on (the benchmark's items under its protocol)."""
    counted = part.dropna(subset=["n_items"])
    full = counted.groupby(["benchmark", "dimension", "coefficient"])[["n_items", "n_groups"]]
    return {
        key: (float(r["n_items"]), float(r["n_groups"]) if pd.notna(r["n_groups"]) else math.nan)
        for key, r in full.max().iterrows()
    }


def _significance_lookup(significance: pd.DataFrame | None) -> dict[tuple, Any]:
    """(judge, variant, benchmark, dimension, coefficient) -> the test's row."""
    if significance is None or significance.empty:
        return {}
    return {
        (r.judge, r.variant, r.benchmark, r.dimension, r.coefficient): r
        for r in significance.itertuples()
    }


def _mark(test: Any | None, row: Any | None) -> str:
    """↑ or ↓ for a significant test of a cell with a value that rests on enough units for
    an interval, else ""."""
    if test is None or row is None or not float(test.pvalue) < SIGNIFICANCE_LEVEL:
        return ""
    if math.isnan(float(row.value)):
        return ""
    if too_few_units(row.level, row.n_items, row.n_groups):
        return ""
    return BETTER if float(test.difference) > 0 else WORSE


def _baseline_label(test: Any) -> str:
    """ "ROUGE-1 (11 references, max) 0.189": the best baseline and its full-set value."""
    full = getattr(test, "baseline_value_full", test.baseline_value)
    return f"{test.baseline} ({test.baseline_variant}) {float(full):.3f}"


def _significance_lines(
    significance: pd.DataFrame,
    tested: list[tuple[str, str, str]],
    columns: list,
    headers: list,
    full: Mapping[tuple[str, str, str], tuple[float, float]],
) -> list[str]:
    """The table under a paper layout: per judge row and column, the difference to the best
    baseline and its p-value (where the test rests on fewer items than the column's full
    count, the baseline's value on those items and their number), with a first row naming
    the best baseline of each column and its value on every item."""
    lookup = _significance_lookup(significance)
    first = significance.iloc[0]
    unit = "document" if first["unit"] == "inputs" else "item"
    baselines = {key[2:]: _baseline_label(test) for key, test in lookup.items()}
    lines = [
        "",
        f"Significance against the best recomputed baseline ({BETTER} better, {WORSE} worse "
        f"above: p < {SIGNIFICANCE_LEVEL:g}): difference judge minus baseline on the items both "
        "score (where they are fewer than the column's, the baseline's value on them and "
        "their n), and the p-value of a two-sided paired permutation test swapping the two "
        f"metrics' scores per {unit} ({first['n_resamples']} resamples, seed {first['seed']}; "
        "significance_vs_baseline.csv has every test). Baselines: the model-free metrics "
        "recomputed here, best per column, with their value on every item they score.",
        "",
        "| metric | variant | status | " + " | ".join(headers) + " |",
        "|---|---|---|" + "---|" * len(headers),
        "| best baseline | | | " + " | ".join(baselines.get(c, "") for c in columns) + " |",
    ]
    for metric, variant, status in tested:
        cells = []
        for column in columns:
            test = lookup.get((metric, variant, *column))
            if test is None or pd.isna(test.pvalue):
                cells.append("")
                continue
            text = f"{float(test.difference):+.3f}, p {_p_value(float(test.pvalue))}"
            if int(test.n_items) < full.get(column, (math.inf, math.inf))[0]:
                text += f" (baseline {float(test.baseline_value):.3f} on n={int(test.n_items)})"
            cells.append(text)
        lines.append(f"| {metric} | {variant} | {status} | " + " | ".join(cells) + " |")
    return lines


def _p_value(pvalue: float) -> str:
    return f"{pvalue:.4f}" if pvalue < 0.001 else f"{pvalue:.3f}"


def shown_variant(variant: str, status: str) -> bool:
    """Whether a row's variant is shown in a paper layout: every variant the paper's
    tables have a row for; of this toolkit's own runs (``toolkit-run``) the tolerant
    parser's too, beside the released one (most of their replies do not parse under it).
    The modal reply is in each run's own tables."""
    if not beyond_the_paper(variant):
        return True
    return (
        status == TOOLKIT_RUN
        and variant.endswith(f"/{PARSERS[1]}")
        and (not variant.startswith("mode-reply"))
    )


def paper_layout(
    table: pd.DataFrame,
    number: int,
    significance: pd.DataFrame | None = None,
    notes: Sequence[str] = (),
) -> tuple[pd.DataFrame, str]:
    """Table ``number`` of the paper laid out as printed: "ours [95 % CI] (paper)" per cell;
    returned as (its cells as a table, :func:`cells_frame`; its Markdown).

    Rows: each (metric, variant, status) at the paper's level; "–" where we have no value;
    a † marks a printed value outside our CI, ``n=…`` a cell resting on fewer items or
    documents than its column's full count, ``… unread`` a mean-of-n cell's share of
    replies its parser could not read (legends under the table). A judge run shows the
    released parser's mean of the replies and first reply, and its rating-probability
    scores; a toolkit run the tolerant parser's too (:func:`shown_variant`). Of a baseline
    with several variants, the one whose row the paper prints (its benchmark's
    ``baselines.protocol_variant`` in the registry) comes first and is marked.
    ``significance`` (:mod:`geval_repro.tables.significance`): a judge cell whose test
    against the best baseline has p < 0.05 gets ↑ (better) or ↓ (worse) unless it rests on
    fewer than :data:`~geval_repro.tables.rows.MIN_BOOTSTRAP_UNITS` bootstrap units, and a
    second table under the first gives every tested cell's difference and p-value.
    ``notes``: lines under the table (:func:`table_notes`).
    """
    benchmarks = list(table_benchmarks(number))
    # The coefficients the table prints (Table 2's caption says Spearman/Kendall, its
    # columns are Pearson/Spearman: the registry follows the columns).
    coefficients = printed_coefficients(benchmarks[0])
    if len(benchmarks) > 1:  # one column per benchmark (QAGS: the two subsets and Average)
        columns = [(b, d, c) for b in benchmarks for d in dimensions_of(b) for c in coefficients]
        headers = [f"{short_of(b)} {symbol(c)}" for b, _, c in columns]
    else:
        dims = [*dimensions_of(benchmarks[0]), "AVG"]
        columns = [(benchmarks[0], d, c) for d in dims for c in coefficients]
        headers = [f"{d[:3]} {symbol(c)}" for _, d, c in columns]
    part = layout_part(table, benchmarks)
    lines = [
        f"Table {number}: ours [{CONFIDENCE:.0%} bootstrap CI] (paper's printed value). "
        + status_legend(part, printed=True),
        "",
        "| metric | variant | status | " + " | ".join(headers) + " |",
        "|---|---|---|" + "---|" * len(headers),
    ]
    laid = lay_out(part, columns, significance)
    lines += [
        f"| {metric} | {variant} | {status} | " + " | ".join(cells) + " |"
        for metric, variant, status, cells in laid.rows
    ]
    if laid.legends:
        lines += ["", *laid.legends]
    if part["variant"].str.endswith(PROTOCOL_MARK).any():
        notes = [PROTOCOL_LEGEND, *notes]
    if notes:
        lines += ["", *notes]
    lines += significance_lines(significance, laid, columns, headers)
    return cells_frame(laid, headers), "\n".join(lines) + "\n"


def cells_frame(laid: LaidOut, names: Sequence[str]) -> pd.DataFrame:
    """The layout's cells as a table: metric, variant, status, then one column per ``names``."""
    return pd.DataFrame(
        [[m, v, s, *cells] for m, v, s, cells in laid.rows],
        columns=["metric", "variant", "status", *names],
    )


def status_legend(part: pd.DataFrame, printed: bool) -> str:
    """What each status of a layout's rows ``part`` means (``printed``: the layout faces a
    paper table, whose printed-only rows it shows too)."""
    return (
        "Status: recomputed = computed here from the pinned data; "
        + (
            "toolkit-run = this toolkit's own judge run of an open model (not the paper's "
            "judge; partial: its cells say how many items they rest on, its notes in "
            "correlations.csv the coverage); "
            if (part["status"] == TOOLKIT_RUN).any()
            else ""
        )
        + "fixture = synthetic test data, not a result"
        + (
            "; paper-only / not-released / not-recomputable = printed value "
            "only (see correlations.csv notes)."
            if printed
            else "."
        )
    )


def layout_part(
    table: pd.DataFrame, benchmarks: Sequence[str], mark: str = PROTOCOL_MARK
) -> pd.DataFrame:
    """The rows of ``table`` a layout of ``benchmarks`` shows: theirs at their protocol's
    level, baselines of several variants with the protocol's first, its variant followed
    by ``mark`` (:func:`_protocol_first`), the variants :func:`shown_variant` keeps."""
    optional = [c for c in OPTIONAL_COLUMNS if c not in table.columns]
    part = table[table["benchmark"].isin(benchmarks)].assign(**dict.fromkeys(optional, math.nan))
    part = part[part["level"] == part["benchmark"].map(lambda b: level_of(b).value)]
    part = _protocol_first(part, benchmarks, mark)
    shown_rows = [shown_variant(*vs) for vs in zip(part["variant"], part["status"], strict=True)]
    return part[shown_rows]


#: Why a cell of a layout has no value: (the metric's rows by column, the column) -> a
#: reason, or "" to leave the cell as it is.
Reason = Callable[[Mapping[tuple[str, str, str], Any], tuple[str, str, str]], str]


@dataclass(frozen=True)
class LaidOut:
    """The rows of a layout: (metric, variant, status, cells) each; the legends its cells
    need, in order; the (metric, variant, status) with a test against the baseline; each
    column's full counts; and, with reasons, the numbered reasons the cells without a
    value point to ("(1)": the first)."""

    rows: list[tuple[str, str, str, list[str]]]
    legends: list[str]
    tested: list[tuple[str, str, str]]
    full: dict[tuple[str, str, str], tuple[float, float]]
    reasons: list[str]


def lay_out(
    part: pd.DataFrame,
    columns: Sequence[tuple[str, str, str]],
    significance: pd.DataFrame | None = None,
    reason: Reason | None = None,
) -> LaidOut:
    """The cells of every (metric, variant, status) of ``part`` in ``columns`` (benchmark,
    dimension, coefficient), as :func:`_cell` makes them, with significance marks from
    ``significance``; a row whose cells are all "–" is left out. ``reason``: for a cell
    without a value ("–"), why; each distinct reason gets a number, written after the dash
    ("– (2)")."""
    keys = ["metric", "variant", "status"]
    full = _full_counts(part)
    tests = _significance_lookup(significance)
    tested: list[tuple[str, str, str]] = []
    shown: set[str] = set()
    reasons: dict[str, int] = {}
    rows = []
    for (metric, variant, status), group in part.groupby(keys, sort=False):
        by_column = {(r.benchmark, r.dimension, r.coefficient): r for r in group.itertuples()}
        cells, marks = [], []
        for column in columns:
            row, test = by_column.get(column), tests.get((metric, variant, *column))
            mark = _mark(test, row)
            text, flagged = _cell(row, full.get(column, (math.nan, math.nan)), mark)
            cells.append(text)
            marks.append((mark, flagged))
        if all(text == "–" for text in cells):
            continue
        for i, column in enumerate(columns):
            why = reason(by_column, column) if reason and cells[i].startswith("–") else ""
            if why:
                cells[i] = f"– ({reasons.setdefault(why, len(reasons) + 1)})" + cells[i][1:]
        for text, (mark, flagged) in zip(cells, marks, strict=True):
            shown |= {
                legend
                for legend, present in (
                    (OUTSIDE_CI_LEGEND, flagged),
                    (SIGNIFICANCE_LEGEND, bool(mark)),
                    (COUNTS_LEGEND, "n=" in text),
                    (UNREAD_LEGEND, " unread" in text),
                )
                if present
            }
        if any(
            pd.notna(getattr(tests.get((metric, variant, *c)), "pvalue", None)) for c in columns
        ):
            tested.append((metric, variant, status))
        rows.append((metric, variant, status, cells))
    legends = [
        legend
        for legend in (OUTSIDE_CI_LEGEND, SIGNIFICANCE_LEGEND, COUNTS_LEGEND, UNREAD_LEGEND)
        if legend in shown
    ]
    return LaidOut(rows, legends, tested, full, list(reasons))


def significance_lines(
    significance: pd.DataFrame | None,
    laid: LaidOut,
    columns: list,
    headers: list,
) -> list[str]:
    """The table of tests under a layout (:func:`_significance_lines`), or none when no
    row of ``laid`` is tested."""
    if not laid.tested or significance is None:
        return []
    return _significance_lines(significance, laid.tested, columns, headers, laid.full)


def _protocol_first(
    part: pd.DataFrame, benchmarks: Sequence[str], mark: str = PROTOCOL_MARK
) -> pd.DataFrame:
    """Baseline rows that face one printed row in several variants (SummEval's references)
    or metrics (Topical-Chat's METEOR 1.5 and nltk's METEOR): the one that reproduces the
    printed row (the registry's ``protocol_variant``) first, its variant followed by
    ``mark``; other rows keep their order."""
    protocols = {
        entry.baselines.protocol_variant
        for entry in (BENCHMARKS.get(b) for b in benchmarks)
        if entry is not None and entry.baselines is not None
    }
    printed = part["metric"].map(lambda m: PRINTED_AS.get(m, m))
    baselines = part["metric"].isin(BASELINE_METRICS)
    variants = (part["metric"] + "\t" + part["variant"])[baselines].groupby(printed).nunique()
    several = baselines & (printed.map(variants).fillna(1) > 1)
    marked = (
        several
        & part["variant"].isin(protocols)
        & (part["metric"] == printed.map(lambda p: PROTOCOL_METRICS.get(p, p)))
    )
    first_seen = {name: i for i, name in enumerate(dict.fromkeys(printed))}
    order = part.assign(_m=printed.map(first_seen), _p=~marked)
    part = order.sort_values(["_m", "_p"], kind="stable").drop(columns=["_m", "_p"])
    protocol = marked.loc[part.index]
    return part.assign(variant=part["variant"].where(~protocol, part["variant"] + mark))


#: The judge runs that face the paper's G-Eval rows are usually not the paper's own run.
RERUN_NOTE = (
    "A judge row (metric = a judge run) faces the paper's G-Eval row its config names "
    "(`paper_metric`); a run by other authors or with another model is a different run, so "
    "its distance from the printed value is a finding about re-running G-Eval, not a failed "
    "reproduction. Shown: the released parser's mean of the replies and first reply, and the "
    "rating-probability scores; of this toolkit's own runs (toolkit-run) the tolerant parser's "
    "too, because most of their replies do not parse under the released one; the modal reply "
    "(and the tolerant parser of other runs) are in the run's own tables."
)


def _scale_note(number: int, judges: Sequence[str]) -> str:
    """What MetricEval's rank-normal scale means for the cells of paper table ``number``
    (``judges``: its runs on that scale): which of its coefficients the transform keeps."""
    level = level_of(table_benchmarks(number)[0])
    coefficients = printed_coefficients(table_benchmarks(number)[0])
    kept = [symbol(c) for c in coefficients if order_only(level, c)]
    changed = [symbol(c) for c in coefficients if not order_only(level, c)]
    runs = ", ".join(f"`{j}`" for j in judges)
    text = f"{runs}: {SCALES['rank-normal']}; a strictly increasing map of the judge's scores"
    if kept:
        text += (
            f"; {' and '.join(kept)} read the scores' order alone, so those cells are the runs' own"
        )
    if changed:
        text += (
            f"; the {' and '.join(changed)} cells are of the transformed scores, not the judge's"
        )
    return text + " (correlations.csv labels every row)."


def table_notes(number: int, judges: Mapping[str, JudgeSpec], released: str) -> list[str]:
    """The lines under paper table ``number``: what each judge run is (``judges``: the runs
    on the table's benchmarks by name), whether the paper's own released replies (judge run
    ``released``) are in this run, and notes on its benchmarks' printed rows."""
    lines = []
    if judges:
        lines.append(
            "Judge runs: " + "; ".join(f"`{j}`: {s.label}" for j, s in judges.items()) + "."
        )
        lines.append(RERUN_NOTE)
    transformed = [j for j, s in judges.items() if s.scale != "raw"]
    if transformed:
        lines.append(_scale_note(number, transformed))
    benchmarks = table_benchmarks(number)
    if any(BENCHMARKS[b].released_replies for b in benchmarks if b in BENCHMARKS) and (
        released not in judges
    ):
        lines.append(
            f"The paper's own G-Eval-4 replies (judge run `{released}`, released by "
            "nlpyang/geval) are not in this run: the default `snakemake --cores 4` recounts "
            "them on a machine that reaches GitHub. No number here comes from them."
        )
    lines += [TABLE_NOTES[b] for b in benchmarks if b in TABLE_NOTES]
    return lines
