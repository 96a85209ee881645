"""One builder of paired permutation tests between metrics: judge vs baseline and judge vs
judge are views of its rows (:mod:`geval_repro.tables.significance`,
:mod:`geval_repro.tables.judge_pairs`).

Metrics (:class:`Scored`): every (metric, variant) with per-item scores on a benchmark:

- the model-free baselines recomputed here (ROUGE, BLEU, METEOR of
  ``data/processed/baselines/<family>.parquet``), by :func:`baseline_metrics`;
- UniEval's released predictions (columns ``unieval_<dimension>`` of a tidy table whose
  benchmark has them), by :func:`unieval_metrics`;
- a judge run's score variants (the variants of its correlation rows), by
  :func:`judge_metrics`: every variant, or only those a reader of the paper compares
  (:func:`compared_variant`: the released parser's mean of the replies and first reply; the
  Eq. 1 weighted score and the most likely rating; per-item scores).

A comparison (:class:`Comparison`) is two metrics, a dimension and a coefficient. Its test
(:func:`paired_tests`): :func:`geval_repro.stats.permutation.paired_permutation_test` of
``corr(a, human) - corr(b, human)``, two-sided, at the benchmark's level with the level's
swap unit (:attr:`~geval_repro.stats.level.Level.permutation_unit`: SummEval swaps the two
metrics' scores of whole documents, Topical-Chat and QAGS single items), on the items both
metrics and the humans score (the score matrices span the benchmark's grid, NaN elsewhere:
:class:`ScoreGrid`), with ``n_resamples`` and ``seed`` from the config.
``value_a``/``value_b``: each metric's correlation on those items; ``difference``: the
test's statistic (``value_a - value_b`` up to rounding, on the standardized scores). A
test that cannot be made (a constant or unscored metric, or values resting on fewer than 3
units of the level, documents at the summary level and items when pooled, as the
correlation rows require of a value: :data:`~geval_repro.tables.rows.MIN_VALUE_UNITS`) has
an empty p-value and a note saying why.

``status`` of a test: the least real of its two metrics' statuses (:func:`pair_status`):
``fixture`` if either is a fixture, else ``toolkit-run`` if either is a toolkit run, else
``recomputed``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import UNIEVAL, UNIEVAL_VARIANT, Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.scoring.pairing import matrix_axes, pooled
from geval_repro.scoring.parse import PARSERS
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import cells_of, score_values
from geval_repro.stats.permutation import (
    DocumentSide,
    document_side,
    document_test,
    paired_permutation_test,
    swaps_documents,
)
from geval_repro.tables.judge_rows import (
    ANSWER_VARIANTS,
    ONE_REPLY_SCORES,
    UNSCORABLE,
    score_variants,
)
from geval_repro.tables.rows import MIN_VALUE_UNITS, too_few_note, value_units

log = logging.getLogger(__name__)

#: Statuses from most to least real: a test takes the later one of its two metrics'.
STATUS_ORDER = ("recomputed", "toolkit-run", "fixture")
#: The columns of a test row.
TEST_COLUMNS = [
    "benchmark",
    "dimension",
    "level",
    "coefficient",
    "metric_a",
    "variant_a",
    "metric_b",
    "variant_b",
    "value_a",
    "value_b",
    "difference",
    "pvalue",
    "n_items",
    "unit",
    "n_resamples",
    "seed",
    "status",
    "note",
]


@dataclass(frozen=True)
class Scored:
    """One metric's per-item scores on a benchmark: its name and variant as in the
    correlation rows, ``kind`` (``baseline``, ``unieval``, ``judge``), ``status``
    (``recomputed``, ``toolkit-run`` or ``fixture``) and, per dimension it scores, a table
    of the benchmark's item keys and ``score``."""

    metric: str
    variant: str
    kind: str
    status: str
    scores: Mapping[str, pd.DataFrame]


@dataclass(frozen=True)
class Comparison:
    """One test to make: metric ``a`` against metric ``b`` on ``dimension`` with
    ``coefficient``."""

    a: Scored
    b: Scored
    dimension: str
    coefficient: str


def pair_status(a: Scored, b: Scored) -> str:
    """The status of a test of ``a`` against ``b`` (the module docstring's rule)."""
    return max(a.status, b.status, key=STATUS_ORDER.index)


def baseline_item_scores(
    scores: pd.DataFrame, benchmark: Benchmark, metric: str, variant: str
) -> pd.DataFrame:
    """One baseline's per-item scores on ``benchmark`` (from its scores table): its item
    keys and ``score``."""
    if benchmark.baselines is None:
        raise ValueError(f"{benchmark.title} has no baselines")
    chosen = (scores["metric"] == metric) & (scores["variant"] == variant)
    return scores.loc[chosen, [*benchmark.item_keys, "score"]]


def baseline_metrics(
    scores: pd.DataFrame, benchmark: Benchmark, variant: str | None = None
) -> list[Scored]:
    """Every (metric, variant) of a per-item baseline scores table on ``benchmark``, or only
    those of ``variant`` (the same scores face every dimension)."""
    rows = scores
    if variant is not None:
        rows = rows[rows["variant"] == variant]
    out = []
    for metric, name in rows[["metric", "variant"]].drop_duplicates().itertuples(index=False):
        items = baseline_item_scores(scores, benchmark, metric, name)
        scored = dict.fromkeys(benchmark.dimension_names, items)
        out.append(Scored(metric, name, "baseline", "recomputed", scored))
    return out


def unieval_metrics(tidy: pd.DataFrame, benchmark: Benchmark) -> list[Scored]:
    """UniEval's released predictions on ``benchmark`` (the columns ``unieval_<dimension>``
    of its tidy table); none when the benchmark has none."""
    if not benchmark.unieval_predictions:
        return []
    keys = list(benchmark.item_keys)
    scores = {
        dimension: tidy[[*keys, f"unieval_{dimension}"]]
        .rename(columns={f"unieval_{dimension}": "score"})
        .dropna(subset=["score"])
        for dimension in benchmark.dimension_names
        if f"unieval_{dimension}" in tidy.columns
    }
    return [Scored(UNIEVAL, UNIEVAL_VARIANT, "unieval", "recomputed", scores)] if scores else []


def compared_variant(variant: str) -> bool:
    """Whether a judge run's score variant enters the comparisons between metrics: the
    released parser's mean of the replies and first reply (the paper's G-Eval score and its
    one-reply "-Probs" face); every variant of a run without replies (their names have no
    ``/parser``); a Yes/No prompt's answers but the most frequent one. The modal reply and
    the tolerant parser are robustness checks of one run, tested against the mean in the
    run's own ``significance`` table."""
    if variant == ANSWER_VARIANTS["mode"]:
        return False
    score, slash, parser = variant.rpartition("/")
    return not slash or (parser == PARSERS[0] and score != f"{ONE_REPLY_SCORES[1]}-reply")


def judge_metrics(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame], *, compared_only: bool
) -> list[Scored]:
    """The score variants of one judge run (``processed``: its processed tables by name):
    every one, or those :func:`compared_variant` keeps."""
    keys = list(spec.benchmark.item_keys)
    out = []
    for variant, items, score in score_variants(spec, processed):
        if compared_only and not compared_variant(variant):
            continue
        scores = {
            dimension: items.loc[items["dimension"] == dimension, [*keys, score]]
            .rename(columns={score: "score"})
            .dropna(subset=["score"])
            for dimension in spec.benchmark.dimension_names
            if (items["dimension"] == dimension).any()
        }
        out.append(Scored(spec.name, variant, "judge", spec.status, scores))
    return out


class ScoreGrid:
    """The score matrices of one benchmark on its grid (every item of its tidy table
    ``human``, at its level): each metric's and the humans' matrix of a dimension, each
    made once (NaN where it has no score). The grid is the same for every comparison of a
    benchmark, so a test's swaps of a document or an item are the same whichever metrics
    it compares."""

    def __init__(self, benchmark: Benchmark, human: pd.DataFrame) -> None:
        self.benchmark = benchmark
        self._keys = list(benchmark.item_keys)
        self._axes = matrix_axes(benchmark)
        self._table = pooled(human, benchmark)
        self._human: dict[str, np.ndarray] = {}
        # By the metric's id; the metric is kept with its matrices, so the id stays its own.
        self._metrics: dict[tuple[int, str], tuple[Scored, np.ndarray]] = {}
        # Each item of the table: its keys (where a metric's scores are looked up) and its
        # cell of the matrices, found once for every metric.
        self._items = pd.MultiIndex.from_frame(self._table[self._keys])
        self._cells = cells_of(self._table, *self._axes)

    def human(self, dimension: str) -> np.ndarray:
        """The human scores of ``dimension`` on the grid."""
        if dimension not in self._human:
            self._human[dimension] = self._cells.matrix(score_values(self._table, dimension))
        return self._human[dimension]

    def metric(self, metric: Scored, dimension: str) -> np.ndarray:
        """``metric``'s scores of ``dimension`` on the grid; an item it scores twice raises
        (naming it), an item off the grid is left out."""
        key = (id(metric), dimension)
        if key not in self._metrics:
            self._metrics[key] = (metric, self._looked_up(metric, dimension))
        return self._metrics[key][1]

    def _looked_up(self, metric: Scored, dimension: str) -> np.ndarray:
        """The matrix of ``metric``'s scores of ``dimension``: each item's score found by its
        keys (NaN where it has none)."""
        scores = metric.scores[dimension]
        keys = pd.MultiIndex.from_frame(scores[self._keys])
        if keys.has_duplicates:
            twice = keys[keys.duplicated()].unique()[:3].tolist()
            raise ValueError(
                f"{metric.metric} ({metric.variant}) scores {self.benchmark.title} items more "
                f"than once on {dimension}, e.g. {twice}: keep one score per item"
            )
        for name in self._keys:
            ours, theirs = self._table[name].dtype, scores[name].dtype
            if pd.api.types.is_string_dtype(ours) != pd.api.types.is_string_dtype(theirs):
                raise ValueError(
                    f"{metric.metric} ({metric.variant}): item key {name!r} is {theirs}, the "
                    f"benchmark's table has {ours}"
                )
        where = keys.get_indexer(self._items)  # each grid item's row of scores, -1 if none
        values = score_values(scores, "score")
        on_grid = np.full(where.size, np.nan)
        on_grid[where >= 0] = values[where[where >= 0]]
        return self._cells.matrix(on_grid)

    def common(
        self, dimension: str, metrics: Sequence[Scored]
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Each of ``metrics``' matrices and the human matrix of ``dimension``, present only
        at the items that every one of them and the humans score (NaN elsewhere)."""
        matrices = [*(self.metric(m, dimension) for m in metrics), self.human(dimension)]
        present = np.logical_and.reduce([~np.isnan(m) for m in matrices])
        *scored, gold = (np.where(present, m, np.nan) for m in matrices)
        return scored, gold


def paired_tests(
    grid: ScoreGrid,
    comparisons: Sequence[Comparison],
    *,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """One row (:data:`TEST_COLUMNS`) per comparison, in order (module docstring), on the
    benchmark's ``grid``."""
    benchmark = grid.benchmark
    unit = benchmark.level.permutation_unit
    records = []
    # A metric's value depends on the items it is compared on, not on the other metric: most
    # pairs share the full item set, so each metric's value is computed once per item set.
    values: dict[tuple[int, str, str, bytes], SupportedValue] = {}
    # So is its side of a summary-level test (whole documents swapped: its per-document
    # correlations, stats.permutation.document_side), which is most of the test's work.
    sides: dict[tuple[int, str, str, bytes], DocumentSide] = {}
    documents = swaps_documents(benchmark.level, unit)

    for comparison in comparisons:
        a, b, dimension, coefficient = (
            comparison.a,
            comparison.b,
            comparison.dimension,
            comparison.coefficient,
        )
        (matrix_a, matrix_b), gold = grid.common(dimension, (a, b))
        # a metric's cache key: its id (the grid keeps the metric), the dimension, the
        # coefficient and the items it is compared on
        items = np.isnan(gold).tobytes()
        key_a, key_b = ((id(metric), dimension, coefficient, items) for metric in (a, b))
        for key, matrix in ((key_a, matrix_a), (key_b, matrix_b)):
            if key not in values:
                values[key] = supported_value(matrix, gold, benchmark, coefficient)
        resting = min(values[key_a].units, values[key_b].units)
        record = {
            "benchmark": benchmark.name,
            "dimension": dimension,
            "level": benchmark.level.value,
            "coefficient": coefficient,
            "metric_a": a.metric,
            "variant_a": a.variant,
            "metric_b": b.metric,
            "variant_b": b.variant,
            "value_a": values[key_a].value,
            "value_b": values[key_b].value,
            "difference": math.nan,
            "pvalue": math.nan,
            "n_items": int((~np.isnan(gold)).sum()),
            "unit": unit,
            "n_resamples": n_resamples,
            "seed": seed,
            "status": pair_status(a, b),
            "note": "",
        }
        try:
            if resting < MIN_VALUE_UNITS:
                raise ValueError(too_few_note(resting, benchmark.level))
            if documents:
                for key, matrix, name in (
                    (key_a, matrix_a, "metric_a"),
                    (key_b, matrix_b, "metric_b"),
                ):
                    if key not in sides:  # one that cannot be tested raises, named A or B
                        sides[key] = document_side(matrix, gold, coefficient, name)
                result = document_test(
                    sides[key_a], sides[key_b], n_resamples=n_resamples, seed=seed
                )
            else:
                result = paired_permutation_test(
                    matrix_a,
                    matrix_b,
                    gold,
                    benchmark.level,
                    coefficient,
                    n_resamples=n_resamples,
                    seed=seed,
                )
            record.update(difference=result.statistic, pvalue=result.pvalue)
        except ValueError as error:
            record["note"] = f"{UNSCORABLE}: {error}"
            log.warning(
                "%s %s %s: no test of %s (%s) against %s (%s): %s",
                benchmark.name,
                dimension,
                coefficient,
                a.metric,
                a.variant,
                b.metric,
                b.variant,
                error,
            )
        records.append(record)
    table = pd.DataFrame.from_records(records, columns=TEST_COLUMNS)
    return table.astype({"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"})


class SupportedValue(NamedTuple):
    """A correlation (NaN on too few units) and the units of its level it rests on."""

    value: float
    units: int


def supported_value(
    matrix: np.ndarray, gold: np.ndarray, benchmark: Benchmark, coefficient: str
) -> SupportedValue:
    """The correlation of ``matrix`` with ``gold`` at the benchmark's level (NaN where it
    rests on fewer than :data:`~geval_repro.tables.rows.MIN_VALUE_UNITS` units, as in the
    correlation rows) and the units of the level it rests on."""
    result = correlate(matrix, gold, benchmark.level, coefficient)
    units = value_units(benchmark.level, result.n_items, result.n_groups)
    return SupportedValue(result.value if units >= MIN_VALUE_UNITS else math.nan, units)
