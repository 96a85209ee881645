"""The paper's Tables 1-3 laid out as printed, from the correlation rows (display only).

Each cell reads "ours [95 % CI] (paper)"; a dagger marks a printed value outside our CI, a
star a judge cell that differs from the best recomputed baseline (p < 0.05), and a second
table under the first gives every tested cell's difference and p-value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.baselines import BASELINE_METRICS, PRINTED_AS, PROTOCOL_METRICS
from geval_repro.registry.benchmarks import (
    BENCHMARKS,
    dimensions_of,
    printed_coefficients,
    short_of,
    table_benchmarks,
)
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.paper import TABLE_NOTES
from geval_repro.report.markdown import OUTSIDE_CI, OUTSIDE_CI_LEGEND, outside_ci, with_ci
from geval_repro.stats.level import Level
from geval_repro.tables.judge_rows import beyond_the_paper
from geval_repro.tables.rows import CONFIDENCE

SYMBOL = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}


def _cell(value: float, low: float, high: float, printed: float) -> tuple[str, bool]:
    """ "ours [CI] (paper)" with a † when the printed value lies outside our CI, and the flag."""
    ours = "–" if math.isnan(value) else with_ci(value, low, high, decimals=3)
    flagged = outside_ci(printed, low, high)
    paper = "" if math.isnan(printed) else f" ({printed:.3f})"
    return ours + paper + (f" {OUTSIDE_CI}" if flagged else ""), flagged


SIGNIFICANT = "*"


SIGNIFICANCE_LEVEL = 0.05  # a judge cell gets SIGNIFICANT below this p-value


def _significance_lookup(significance: pd.DataFrame | None) -> dict[tuple, tuple]:
    """(judge, variant, benchmark, dimension, coefficient) -> (difference, p-value, baseline)."""
    if significance is None or significance.empty:
        return {}
    return {
        (r.judge, r.variant, r.benchmark, r.dimension, r.coefficient): (
            float(r.difference),
            float(r.pvalue),
            f"{r.baseline} ({r.baseline_variant}) {float(r.baseline_value):.3f}",
        )
        for r in significance.itertuples()
    }


def _significance_lines(
    significance: pd.DataFrame, tested: list[tuple[str, str, str]], columns: list, headers: list
) -> list[str]:
    """The table under a paper layout: per judge row and column, the difference to the best
    baseline and its p-value, with a first row naming the best baseline of each column."""
    lookup = _significance_lookup(significance)
    first = significance.iloc[0]
    unit = "document" if first["unit"] == "inputs" else "item"
    baselines = {key[2:]: baseline for key, (_, _, baseline) in lookup.items()}
    lines = [
        "",
        f"Significance against the best recomputed baseline ({SIGNIFICANT} above: p < "
        f"{SIGNIFICANCE_LEVEL:g}): difference judge minus baseline on the items both score, "
        "and the p-value of a two-sided paired permutation test swapping the two metrics' "
        f"scores per {unit} ({first['n_resamples']} resamples, seed {first['seed']}; "
        "significance_vs_baseline.csv has every test). Baselines: the model-free metrics "
        "recomputed here (ROUGE, BLEU, METEOR), best per column.",
        "",
        "| metric | variant | status | " + " | ".join(headers) + " |",
        "|---|---|---|" + "---|" * len(headers),
        "| best baseline | | | " + " | ".join(baselines.get(c, "") for c in columns) + " |",
    ]
    for metric, variant, status in tested:
        cells = []
        for column in columns:
            difference, pvalue, _ = lookup.get((metric, variant, *column), (math.nan,) * 3)
            cells.append("" if math.isnan(pvalue) else f"{difference:+.3f}, p {_p_value(pvalue)}")
        lines.append(f"| {metric} | {variant} | {status} | " + " | ".join(cells) + " |")
    return lines


def _p_value(pvalue: float) -> str:
    return f"{pvalue:.4f}" if pvalue < 0.001 else f"{pvalue:.3f}"


def paper_layout(
    table: pd.DataFrame,
    number: int,
    significance: pd.DataFrame | None = None,
    notes: Sequence[str] = (),
) -> str:
    """Table ``number`` of the paper laid out as printed: "ours [95 % CI] (paper)" per cell.

    Rows: each (metric, variant, status) at the paper's level; "–" where we have no value;
    a † marks a printed value outside our CI (legend under the table). A judge run shows the
    released parser's mean of the replies and first reply, and its rating-probability scores;
    the tolerant parser and the modal reply are in its own tables. Of a baseline with
    several variants, the one whose row the paper prints
    (its benchmark's ``baselines.protocol_variant`` in the registry) comes first and is
    marked.
    ``significance`` (:mod:`geval_repro.tables.significance`): a judge cell whose test
    against the best baseline has p < 0.05 gets a ``*``, and a second table under the first
    gives every tested cell's difference and p-value. ``notes``: lines under the table
    (:func:`table_notes`).
    """
    benchmarks = list(table_benchmarks(number))
    # The coefficients the table prints (Table 2's caption says Spearman/Kendall, its
    # columns are Pearson/Spearman: the registry follows the columns).
    coefficients = printed_coefficients(benchmarks[0])
    if len(benchmarks) > 1:  # one column per benchmark (QAGS: the two subsets and Average)
        columns = [(b, d, c) for b in benchmarks for d in dimensions_of(b) for c in coefficients]
        headers = [f"{short_of(b)} {SYMBOL[c]}" for b, _, c in columns]
    else:
        dims = [*dimensions_of(benchmarks[0]), "AVG"]
        columns = [(benchmarks[0], d, c) for d in dims for c in coefficients]
        headers = [f"{d[:3]} {SYMBOL[c]}" for _, d, c in columns]
    part = table[table["benchmark"].isin(benchmarks)]
    part = _protocol_first(part[part["level"] != Level.SYSTEM], benchmarks)
    part = part[~part["variant"].map(beyond_the_paper)]
    lines = [
        f"Table {number}: ours [{CONFIDENCE:.0%} bootstrap CI] (paper's printed value). "
        "Status: recomputed = computed here from the pinned data; "
        + (
            "toolkit-run = this toolkit's own judge run of an open model (not the paper's "
            "judge; its notes in correlations.csv say how many items and the coverage); "
            if (part["status"] == "toolkit-run").any()
            else ""
        )
        + "fixture = synthetic test "
        "data, not a result; paper-only / not-released / not-recomputable = printed value "
        "only (see correlations.csv notes).",
        "",
        "| metric | variant | status | " + " | ".join(headers) + " |",
        "|---|---|---|" + "---|" * len(headers),
    ]
    keys = ["metric", "variant", "status"]
    missing = (math.nan,) * 4
    any_flag = False
    tests = _significance_lookup(significance)
    tested: list[tuple[str, str, str]] = []
    for (metric, variant, status), group in part.groupby(keys, sort=False):
        lookup = {
            (r.benchmark, r.dimension, r.coefficient): (r.value, r.ci_low, r.ci_high, r.paper_value)
            for r in group.itertuples()
        }
        cells = [_cell(*[float(v) for v in lookup.get(col, missing)]) for col in columns]
        if all(text == "–" for text, _ in cells):
            continue
        any_flag |= any(flag for _, flag in cells)
        pvalues = [tests.get((metric, variant, *col), (math.nan,) * 3)[1] for col in columns]
        if any(not math.isnan(p) for p in pvalues):
            tested.append((metric, variant, status))
        texts = [
            text + (f" {SIGNIFICANT}" if p < SIGNIFICANCE_LEVEL else "")
            for (text, _), p in zip(cells, pvalues, strict=True)
        ]
        lines.append(f"| {metric} | {variant} | {status} | " + " | ".join(texts) + " |")
    if any_flag:
        lines += ["", OUTSIDE_CI_LEGEND]
    if part["variant"].str.endswith(PROTOCOL_MARK).any():
        notes = [PROTOCOL_LEGEND, *notes]
    if notes:
        lines += ["", *notes]
    if tested:
        lines += _significance_lines(significance, tested, columns, headers)
    return "\n".join(lines) + "\n"


PROTOCOL_MARK = " (the paper's protocol)"
PROTOCOL_LEGEND = (
    f"Baselines: where several of ours face one printed row, the one marked{PROTOCOL_MARK} "
    "reproduces it and comes first; the others are shown for comparison (docs/baselines.md)."
)


def _protocol_first(part: pd.DataFrame, benchmarks: Sequence[str]) -> pd.DataFrame:
    """Baseline rows that face one printed row in several variants (SummEval's references)
    or metrics (Topical-Chat's METEOR 1.5 and nltk's METEOR): the one that reproduces the
    printed row first, its variant marked; other rows keep their order."""
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
    return part.assign(variant=part["variant"].where(~protocol, part["variant"] + PROTOCOL_MARK))


#: The judge runs that face the paper's G-Eval rows are usually not the paper's own run.
RERUN_NOTE = (
    "A judge row (metric = a judge run) faces the paper's G-Eval row its config names "
    "(`paper_metric`); a run by other authors or with another model is a different run, so "
    "its distance from the printed value is a finding about re-running G-Eval, not a failed "
    "reproduction. Shown: the released parser's mean of the replies and first reply, and the "
    "rating-probability scores; the tolerant parser and the modal reply are in the run's own "
    "tables."
)


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
