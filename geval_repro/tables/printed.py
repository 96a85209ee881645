"""Printed numbers this run does not recompute, and the combined correlation table.

``correlations.csv`` gathers every recomputed row (judge runs, UniEval's released
predictions, the baselines, the human ceiling) and adds a row for every number the paper
prints that this run did not recompute, with its status and the reason:
``not-recomputable`` (needs model weights or a service this toolkit does not use),
``not-released`` (the judge's replies were never published) or ``paper-only`` (recomputable
by a judge run that was not part of this run). :func:`combined_table` does that for the
printed benchmarks of one paper table or of all of them, in the paper's order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from geval_repro.registry.benchmarks import (
    AVERAGES,
    BENCHMARKS,
    NAMES,
    PRINTED_NAMES,
    dimensions_of,
    level_of,
)
from geval_repro.registry.paper import AVERAGE, paper_table, paper_table_name
from geval_repro.stats.registry import COEFFICIENTS
from geval_repro.tables.averages import printed_averages_note
from geval_repro.tables.rows import (
    COLUMNS,
    STATUSES,
    VALUE_STATUSES,
    join_notes,
    printed_value,
    row_key,
    typed_counts,
)


def paper_only_rows(
    benchmark: str,
    metrics: Iterable[str],
    status: str,
    note: str,
    variant: str = "as printed",
) -> pd.DataFrame:
    """Rows for printed numbers we cannot recompute (value NaN, paper_value as printed).

    Every printed cell of each metric in ``benchmark`` (dimension columns and the printed
    AVG/Average; the note of an average also states the mean of the printed columns when
    all are printed). ``status``: paper-only, not-released or not-recomputable; ``note``
    says why.
    """
    allowed = tuple(s for s in STATUSES if s not in VALUE_STATUSES)
    if status not in allowed:
        raise ValueError(f"paper-only rows need a status in {allowed}, got {status!r}")
    if benchmark not in PRINTED_NAMES:
        raise ValueError(f"unknown benchmark {benchmark!r}: use one of {PRINTED_NAMES}")
    level = level_of(benchmark)
    across_dimensions = benchmark in NAMES and len(dimensions_of(benchmark)) > 1
    if benchmark in AVERAGES:
        (average_dimension,) = dimensions_of(benchmark)
        columns = [(subset, average_dimension) for subset in AVERAGES[benchmark].parts]
    else:
        columns = [(benchmark, dimension) for dimension in dimensions_of(benchmark)]
        average_dimension = AVERAGE
    dimensions = list(dimensions_of(benchmark)) + ([AVERAGE] if across_dimensions else [])
    averaged = across_dimensions or benchmark in AVERAGES
    records: list[dict[str, object]] = []
    for metric in metrics:
        printed_any = False
        for coefficient in COEFFICIENTS:
            for dimension in dimensions:
                printed = printed_value(benchmark, dimension, metric, coefficient, level)
                if math.isnan(printed):
                    continue
                printed_any = True
                averages_note = ""
                if averaged and dimension == average_dimension:
                    averages_note = printed_averages_note(
                        printed,
                        [printed_value(b, d, metric, coefficient, level_of(b)) for b, d in columns],
                    )
                records.append(
                    {
                        **dict.fromkeys(COLUMNS, math.nan),
                        **row_key(benchmark, dimension, metric, variant, level, coefficient),
                        "paper_value": printed,
                        "paper": paper_table_name(benchmark),
                        "status": status,
                        "note": join_notes(note, averages_note),
                    }
                )
        if not printed_any:
            raise ValueError(f"the paper prints no {benchmark} number for metric {metric!r}")
    return typed_counts(pd.DataFrame.from_records(records, columns=COLUMNS))


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
    parts = AVERAGES[benchmark].parts if benchmark in AVERAGES else (benchmark,)
    released = BENCHMARKS[parts[0]].released_replies
    if not released and metric.startswith("G-Eval"):
        return "not-released", UNRELEASED_BENCHMARK
    if metric.startswith("G-Eval-4"):
        return "paper-only", JUDGE_ROWS
    return "paper-only", "not recomputed in this run"


def missing_rows(covered: set, benchmarks: Iterable[str] = PRINTED_NAMES) -> pd.DataFrame:
    """Paper-only rows for every printed (benchmark, metric) of ``benchmarks`` (printed
    names) not in ``covered``."""
    printed = paper_table()[["benchmark", "metric"]].drop_duplicates()
    printed = printed[printed["benchmark"].isin(list(benchmarks))]
    parts = []
    for benchmark, metric in printed.itertuples(index=False):
        key_benchmark = AVERAGES[benchmark].parts[0] if benchmark in AVERAGES else benchmark
        if (key_benchmark, metric) in covered:
            continue
        status, note = _reason(benchmark, metric)
        parts.append(paper_only_rows(benchmark, [metric], status, note))
    return pd.concat(parts, ignore_index=True)


def combined_table(rows: pd.DataFrame, benchmarks: Iterable[str] = PRINTED_NAMES) -> pd.DataFrame:
    """``rows`` plus a row for every printed number of ``benchmarks`` they do not recompute,
    sorted by benchmark in the paper's order (SummEval, Topical-Chat, QAGS CNN/DM, XSum, then
    the QAGS Average), then by the printed metric order, variant, dimension, level and
    coefficient."""
    rows = rows.astype({"n_items": "Int64", "n_groups": "Int64"})
    table = pd.concat([rows, missing_rows(covered_metrics(rows), benchmarks)], ignore_index=True)
    printed = paper_table()[["benchmark", "metric"]].drop_duplicates()
    printed_order = {key: i for i, key in enumerate(printed.itertuples(index=False, name=None))}
    order = [
        printed_order.get(key, len(printed_order))
        for key in zip(table["benchmark"], table["metric"], strict=True)
    ]
    benchmark_order = {name: i for i, name in enumerate(PRINTED_NAMES)}
    return (
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
