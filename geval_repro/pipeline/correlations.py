"""The combined correlation table and the paper-layout tables built from it.

``results/tables/correlations.csv`` gathers every recomputed row (judge runs, UniEval's
released predictions, the baselines, the human ceiling) and adds a row for every number the
paper prints that this run did not recompute, with its status and the reason:
``not-recomputable`` (needs model weights or a service this toolkit does not use),
``not-released`` (the judge's replies were never published) or ``paper-only`` (recomputable
by a judge run that was not part of this run).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro import correlation_table as ct
from geval_repro.atomic import write_text
from geval_repro.benchmarks import AVERAGES, BENCHMARKS, PRINTED_NAMES, dimensions_of, table_of
from geval_repro.paper import paper_table
from geval_repro.table_files import write_pair

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]

WEIGHTS = "needs model weights this toolkit does not download"
NOT_RECOMPUTABLE = {
    "BERTScore": f"{WEIGHTS} (BERT/RoBERTa)",
    "MoverScore": f"{WEIGHTS} (BERT)",
    "BARTScore": f"{WEIGHTS} (BART)",
    "UniEval": f"{WEIGHTS} (UniEval); its SummEval predictions are not among the pinned sources",
    "GPTScore": "needs GPT-3 API access (text-davinci models, retired)",
    "FactCC": f"{WEIGHTS} (FactCC)",
    "QAGS": f"{WEIGHTS} (question generation and answering models)",
    "CTC": f"{WEIGHTS} (CTC)",
    "USR": f"{WEIGHTS} (USR's RoBERTa models)",
}
NOT_RELEASED = {
    "G-Eval-3.5": "G-Eval-3.5's per-item scores were never released (MetricEval's re-runs are "
    "separate rows)",
    "G-Eval-3.5 -Probs": "never released",
    "G-Eval-4 -CoT": "the ablation's replies were never released",
    "G-Eval-4 -Description": "the ablation's replies were never released",
}
UNRELEASED_BENCHMARK = (
    "no G-Eval replies were released for this benchmark; a judge run configured by the user "
    "fills the row in through the same pipeline"
)
JUDGE_ROWS = (
    "the paper's number as printed; judge runs of this toolkit (e.g. gpt4-released, the "
    "released replies, fetched from GitHub by the default config) are separate rows that face it"
)


def covered_metrics(rows: pd.DataFrame) -> set[tuple[str, str]]:
    """(benchmark, printed metric) pairs recomputed under the printed name (non-fixture).

    Judge runs carry their own names (their rows face the printed G-Eval values through
    ``paper_value``), so the printed G-Eval rows always stay in the table as printed.
    """
    real = rows[rows["status"] == "recomputed"]
    return set(zip(real["benchmark"], real["metric"], strict=True))


def _reason(benchmark: str, metric: str) -> tuple[str, str]:
    if metric in NOT_RECOMPUTABLE:
        return "not-recomputable", NOT_RECOMPUTABLE[metric]
    if metric in NOT_RELEASED:
        return "not-released", NOT_RELEASED[metric]
    released = BENCHMARKS[AVERAGES.get(benchmark, (benchmark,))[0]].released_replies
    if not released and metric.startswith("G-Eval"):
        return "not-released", UNRELEASED_BENCHMARK
    if metric.startswith("G-Eval-4"):
        return "paper-only", JUDGE_ROWS
    return "paper-only", "not recomputed in this run"


def missing_rows(covered: set) -> pd.DataFrame:
    """Paper-only rows for every printed (benchmark, metric) not in ``covered``."""
    printed = paper_table()[["benchmark", "metric"]].drop_duplicates()
    parts = []
    for benchmark, metric in printed.itertuples(index=False):
        key_benchmark = AVERAGES[benchmark][0] if benchmark in AVERAGES else benchmark
        if (key_benchmark, metric) in covered:
            continue
        status, note = _reason(benchmark, metric)
        parts.append(ct.paper_only_rows(benchmark, [metric], status, note))
    return pd.concat(parts, ignore_index=True)


def combine(parts: Sequence[PathLike], stem: PathLike) -> pd.DataFrame:
    """Concatenate row files, add the missing printed numbers, write ``<stem>.csv|.md``.

    Rows are sorted by benchmark in the paper's order (SummEval, Topical-Chat, QAGS CNN/DM,
    XSum, then the QAGS Average), then by the printed metric order.
    """
    rows = pd.concat([pd.read_csv(path) for path in parts], ignore_index=True)
    rows = rows.astype({"n_items": "Int64", "n_groups": "Int64"})
    missing = missing_rows(covered_metrics(rows))
    log.info(
        "%d computed rows from %d files, %d printed-only rows", len(rows), len(parts), len(missing)
    )
    table = pd.concat([rows, missing], ignore_index=True)
    printed = paper_table()[["benchmark", "metric"]].drop_duplicates()
    printed_order = {key: i for i, key in enumerate(printed.itertuples(index=False, name=None))}
    order = [
        printed_order.get(key, len(printed_order))
        for key in zip(table["benchmark"], table["metric"], strict=True)
    ]
    benchmark_order = {name: i for i, name in enumerate(PRINTED_NAMES)}
    table = (
        table.assign(
            _benchmark=table["benchmark"].map(benchmark_order).fillna(len(benchmark_order)),
            _order=order,
        )
        .sort_values(
            [
                "_benchmark",
                "benchmark",
                "_order",
                "metric",
                "variant",
                "dimension",
                "level",
                "coefficient",
            ],
            kind="stable",
        )
        .drop(columns=["_benchmark", "_order"])
        .reset_index(drop=True)
    )
    write_pair(table, stem)
    return table


# The coefficients each table prints (Table 2's caption says Spearman/Kendall, its columns
# are Pearson/Spearman); the benchmarks of a table come from the registry.
PRINTED_COEFFICIENTS = {
    1: ["spearman", "kendall"],
    2: ["pearson", "spearman"],
    3: ["pearson", "spearman", "kendall"],
}
SYMBOL = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}


def _cell(value: float, low: float, high: float, printed: float) -> tuple[str, bool]:
    """ "ours [CI] (paper)" with a † when the printed value lies outside our CI, and the flag."""
    ours = "–" if math.isnan(value) else ct.with_ci(value, low, high, decimals=3)
    flagged = ct.outside_ci(printed, low, high)
    paper = "" if math.isnan(printed) else f" ({printed:.3f})"
    return ours + paper + (f" {ct.OUTSIDE_CI}" if flagged else ""), flagged


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


def paper_layout(table: pd.DataFrame, number: int, significance: pd.DataFrame | None = None) -> str:
    """Table ``number`` of the paper laid out as printed: "ours [95 % CI] (paper)" per cell.

    Rows: each (metric, variant, status) at the paper's level; "–" where we have no value;
    a † marks a printed value outside our CI (legend under the table). ``significance``
    (:mod:`geval_repro.pipeline.baseline_significance`): a judge cell whose test against the
    best baseline has p < 0.05 gets a ``*``, and a second table under the first gives every
    tested cell's difference and p-value.
    """
    benchmarks = [name for name in PRINTED_NAMES if table_of(name) == number]
    coefficients = PRINTED_COEFFICIENTS[number]
    if len(benchmarks) > 1:  # one column per benchmark (QAGS: the two subsets and Average)
        columns = [(b, d, c) for b in benchmarks for d in dimensions_of(b) for c in coefficients]
        headers = [f"{b.removeprefix('qags_')} {SYMBOL[c]}" for b, _, c in columns]
    else:
        dims = [*dimensions_of(benchmarks[0]), "AVG"]
        columns = [(benchmarks[0], d, c) for d in dims for c in coefficients]
        headers = [f"{d[:3]} {SYMBOL[c]}" for _, d, c in columns]
    part = table[table["benchmark"].isin(benchmarks)]
    part = part[~part["level"].isin(["system"])]
    lines = [
        f"Table {number}: ours [{ct.CONFIDENCE:.0%} bootstrap CI] (paper's printed value). "
        "Status: recomputed = computed here from the pinned data; fixture = synthetic test "
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
        lines += ["", ct.OUTSIDE_CI_LEGEND]
    if tested:
        lines += _significance_lines(significance, tested, columns, headers)
    return "\n".join(lines) + "\n"


def write_paper_layouts(
    correlations: PathLike, stems: Mapping[int, PathLike], significance: PathLike | None = None
) -> None:
    """Write the paper-layout Markdown of Tables 1-3 from correlations.csv (and the judge
    rows' tests against the best baseline, significance_vs_baseline.csv, when given)."""
    table = pd.read_csv(correlations)
    tests = None if significance is None else pd.read_csv(significance)
    for number, stem in stems.items():
        part = None
        if tests is not None:
            part = tests[tests["benchmark"].map(table_of) == number]
        write_text(f"{stem}.md", paper_layout(table, number, part))
