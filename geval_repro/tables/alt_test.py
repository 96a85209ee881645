"""The alternative annotator test's rows (:mod:`geval_repro.stats.alt_test`; Calderon,
Reichart and Dror, ACL 2025): may a metric replace one of a benchmark's annotators?

On every benchmark with a table of individual annotators and a margin epsilon
(:attr:`~geval_repro.registry.benchmarks.Benchmark.annotator_table`, three or more
annotators on every item: SummEval's three experts), per dimension, one row per metric
(:class:`~geval_repro.tables.paired_tests.Scored`: the judges' compared variants, the
baselines of the protocol variant, UniEval) on the items it and every annotator score, and
two reference rows a reader calibrates against:

- ``random rating``: a rating drawn uniformly from the dimension's human scale's integers,
  per item (seeded from the config's seed);
- ``constant (median rating = v)``: every item the median of all the annotators' ratings of
  the dimension (the lower median, so a rating). Where the constant passes, the test cannot
  tell judges apart on that dimension: most ratings there are that value, so agreeing with
  it is easy; every row of the dimension says so (``constant_passes``).

Scale: the test compares a metric's value with ratings, so a metric must be on the raters'
scale. A judge run on the raw scale of a dimension whose judge ratings span the human scale
is (``scale`` ``raters' scale``); any other metric (a rank-normal re-run, a judge asked for
1-3 against 1-5 ratings, a baseline's or UniEval's scores) is first mapped onto it by an
isotonic fit to the annotators' mean rating on a seeded half of the documents the metric
scores (:func:`~geval_repro.stats.alt_test.split_groups`,
:func:`~geval_repro.stats.alt_test.isotonic_map`) and tested on the other half only
(``scale`` names the map and the documents; its ``n_items`` counts the tested half).
The reference rows are on the raters' scale and tested on every item.

Columns: ``omega`` (winning rate), ``rho`` (average advantage probability), ``passed``
(``omega >= 0.5``), ``epsilon`` and ``q`` beside them, ``n_items``, ``n_annotators``, and
per annotator (``|``-separated, in the annotators' order) ``rho_f``, ``rho_h`` and the
BY-adjusted p-values. A metric on fewer than 3 items gets no value and a note. Items are
treated as independent, although they share documents (the t-test's assumption; the
paper's too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geval_repro.human.agreement import twins_note
from geval_repro.registry.benchmarks import Benchmark, Dimension
from geval_repro.registry.judges import JudgeSpec
from geval_repro.stats.alt_test import (
    MIN_ITEMS,
    AltTestResult,
    isotonic_map,
    split_groups,
)
from geval_repro.stats.registry import judge_test
from geval_repro.tables.paired_tests import Scored

RAW = "raters' scale"
RANDOM = "random rating"
COLUMNS = [
    "benchmark",
    "dimension",
    "metric",
    "variant",
    "kind",
    "status",
    "scale",
    "epsilon",
    "q",
    "n_items",
    "n_annotators",
    "omega",
    "rho",
    "passed",
    "constant_passes",
    "rho_f",
    "rho_h",
    "pvalue_by",
    "note",
]
NOT_APART = (
    "the constant at the median rating passes on this dimension: the test cannot tell "
    "judges apart here"
)


def annotator_panel(annotators: pd.DataFrame, benchmark: Benchmark, dimension: str) -> pd.DataFrame:
    """The ratings of ``dimension`` as items x annotators (index: the item keys; columns:
    the annotators, sorted). Raises naming the table's gaps when an annotator misses an
    item (the test needs every annotator on every item)."""
    keys = list(benchmark.item_keys)
    rows = annotators.loc[annotators["dimension"] == dimension]
    wide = rows.pivot(index=keys, columns="annotator", values="score").sort_index(axis=1)
    missing = int(wide.isna().sum().sum())
    if missing:
        raise ValueError(
            f"{benchmark.title} {dimension}: {missing} (item, annotator) rating(s) missing in "
            f"the table {benchmark.annotator_table!r}; the alternative annotator test needs "
            "every annotator on every item"
        )
    return wide


def off_scale_reason(metric: Scored, dimension: Dimension, specs: Mapping[str, JudgeSpec]) -> str:
    """Why ``metric``'s scores on ``dimension`` are not on the raters' scale; "" when they
    are (a judge run on its raw scale whose ratings span the human scale)."""
    if metric.kind != "judge":
        return f"{metric.kind} scores"
    spec = specs[metric.metric]
    if spec.scale != "raw":
        return f"{spec.scale} scores"
    low, high = dimension.judge_scale
    if dimension.human_scale is None or (float(low), float(high)) != tuple(dimension.human_scale):
        return f"ratings {low}-{high} against the raters' {_span(dimension)}"
    return ""


def _span(dimension: Dimension) -> str:
    low, high = dimension.human_scale or (np.nan, np.nan)
    return f"{low:g}-{high:g}"


def _joined(values: np.ndarray, digits: int) -> str:
    return " | ".join(f"{v:.{digits}f}" for v in values)


def _row(
    result: AltTestResult | None, n_items: int, n_annotators: int, **fields: object
) -> dict[str, object]:
    row: dict[str, object] = {"n_items": n_items, "n_annotators": n_annotators, **fields}
    if result is None:
        return {**row, "omega": np.nan, "rho": np.nan, "passed": pd.NA}
    return {
        **row,
        "omega": result.omega,
        "rho": result.rho,
        "passed": result.passed,
        "rho_f": _joined(result.rho_f, 3),
        "rho_h": _joined(result.rho_h, 3),
        "pvalue_by": _joined(result.adjusted, 4),
    }


def median_rating(panel: pd.DataFrame) -> float:
    """The lower median of every rating of the panel (a rating the annotators gave)."""
    return float(np.quantile(panel.to_numpy(dtype=float).ravel(), 0.5, method="lower"))


def alt_test_rows(
    benchmark: Benchmark,
    annotators: pd.DataFrame,
    metrics: Sequence[Scored],
    specs: Mapping[str, JudgeSpec],
    epsilon: float,
    seed: int,
) -> pd.DataFrame:
    """The rows of the module docstring for one benchmark: ``annotators`` its table of
    individual ratings (item keys, ``annotator``, ``dimension``, ``score``), ``metrics`` the
    metrics to test, ``specs`` the judges' specs by name, ``epsilon`` the margin,
    ``seed`` the config's seed (the random reference, the half split)."""
    test = judge_test("alt_test")
    run = test.compute()
    keys = list(benchmark.item_keys)
    records: list[dict[str, object]] = []
    for index, dimension in enumerate(benchmark.dimensions):
        if dimension.name not in set(annotators["dimension"]):
            continue
        panel = annotator_panel(annotators, benchmark, dimension.name)
        m = panel.shape[1]
        if m < test.min_annotators:
            raise ValueError(
                f"{benchmark.title} {dimension.name}: {m} annotators; the alternative "
                f"annotator test needs >= {test.min_annotators}"
            )
        ratings = panel.to_numpy(dtype=float)
        base = {"benchmark": benchmark.name, "dimension": dimension.name, "epsilon": epsilon}
        base["q"] = 0.05
        rows: list[dict[str, object]] = []
        low, high = dimension.human_scale or (1.0, 5.0)
        rng = np.random.default_rng([seed, index])
        random_judge = rng.integers(int(low), int(high) + 1, size=len(panel)).astype(float)
        median = median_rating(panel)
        constant = run(np.full(len(panel), median), ratings, epsilon)
        for name, result, variant in (
            (RANDOM, run(random_judge, ratings, epsilon), f"uniform {_span(dimension)}, seeded"),
            (f"constant (median rating = {median:g})", constant, "every item"),
        ):
            rows.append(
                _row(
                    result,
                    len(panel),
                    m,
                    **base,
                    metric=name,
                    variant=variant,
                    kind="reference",
                    status="reference",
                    scale=RAW,
                    note="",
                )
            )
        groups = panel.index.get_level_values(benchmark.group_key or keys[0]).to_numpy()
        for metric in metrics:
            if dimension.name not in metric.scores:
                continue
            scored = metric.scores[dimension.name].groupby(keys)["score"].mean()
            values = scored.reindex(panel.index).to_numpy(dtype=float)
            present = ~np.isnan(values)
            reason = off_scale_reason(metric, dimension, specs)
            fields = {
                **base,
                "metric": metric.metric,
                "variant": metric.variant,
                "kind": metric.kind,
                "status": metric.status,
            }
            tested, note, scale = present, "", RAW
            if reason:
                # the metric's own documents split in half (a partial run's too)
                fit = present & np.isin(
                    groups, groups[present][split_groups(groups[present], seed)]
                )
                tested = present & ~fit
                n_fit = len(np.unique(groups[fit]))
                scale = (
                    f"isotonic map onto {_span(dimension)} ({reason}), fitted on {n_fit} of its "
                    f"documents (seeded half), tested on the other "
                    f"{len(np.unique(groups[tested]))}"
                )
                if fit.sum() >= MIN_ITEMS:
                    values = np.where(
                        present, isotonic_map(values, ratings.mean(axis=1), fit), np.nan
                    )
            n = int(tested.sum())
            result = None
            if n < MIN_ITEMS:
                note = f"no value: {n} item(s) scored by the metric and every annotator (< 3)"
            else:
                result = run(values[tested], ratings[tested], epsilon)
            rows.append(_row(result, n, m, **fields, scale=scale, note=note))
        twins = twins_note(panel)
        for row in rows:
            row["constant_passes"] = constant.passed
            apart = NOT_APART if constant.passed else ""
            row["note"] = "; ".join(filter(None, [row["note"], apart, twins]))
        records += rows
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    return table.astype({"n_items": "Int64", "n_annotators": "Int64", "passed": "boolean"})
