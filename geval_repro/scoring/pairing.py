"""The join of a judge's per-item scores with the human scores of the same items.

Items join on the item keys of the benchmark in :mod:`geval_repro.registry.benchmarks`
(``doc_id, system_id`` for SummEval, ``item_id`` for Topical-Chat and QAGS). The score
matrices follow the benchmark's correlation level: ``summary`` gives (systems x documents),
``global`` one pseudo-system row with one column per item (every item pooled).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark, get_benchmark
from geval_repro.stats.matrix import POOLED, to_matrix, with_pooled_system


def _benchmark_of(items: pd.DataFrame) -> Benchmark:
    names = pd.unique(items["benchmark"])
    if len(names) != 1:
        raise ValueError(
            f"judge item scores of one benchmark expected, got {sorted(map(str, names))}"
        )
    return get_benchmark(str(names[0]))


def paired_items(
    items: pd.DataFrame, human: pd.DataFrame, dimension: str, score: str
) -> pd.DataFrame:
    """The judge's ``score`` of each item of ``dimension`` beside its human score.

    Columns: the benchmark's item keys (and its ``resampling_key``), judge, human (inner
    join: items without a human row are dropped; the loaders already refuse unknown items).
    """
    benchmark = _benchmark_of(items)
    keys = list(benchmark.item_keys)
    extra = [benchmark.resampling_key] if benchmark.resampling_key else []
    rows = items.loc[items["dimension"] == dimension, [*keys, score]]
    joined = rows.merge(human[[*keys, *extra, dimension]], on=keys)
    return joined.rename(columns={score: "judge", dimension: "human"})


def matrix_axes(benchmark: Benchmark) -> tuple[str, str]:
    """(systems, inputs) columns of the score matrix at the benchmark's level: its
    ``system_key`` (:data:`POOLED` when every item is pooled) and its ``input_key``."""
    return benchmark.system_key or POOLED, benchmark.input_key


def pooled(table: pd.DataFrame, benchmark: Benchmark) -> pd.DataFrame:
    """``table`` with the :data:`POOLED` column a global-level matrix needs (else as is)."""
    return with_pooled_system(table) if benchmark.system_key is None else table


def resampling_axes(table: pd.DataFrame, benchmark: Benchmark) -> tuple[pd.DataFrame, str, str]:
    """The table and (systems, inputs) columns of the matrix a correlation row's bootstrap
    reads: :func:`matrix_axes` and :func:`pooled`, except at the global level with a
    ``resampling_key`` (SFRES, SFHOT: the dialogue act), one column per value of that key
    with its items in the rows (their position among its items as :data:`POOLED`), so that
    a bootstrap over the inputs draws whole dialogue acts; the global level pools every
    cell all the same, so the values are those of the one-row matrix."""
    if benchmark.system_key is None and benchmark.resampling_key:
        key = benchmark.resampling_key
        return table.assign(**{POOLED: table.groupby(key).cumcount()}), POOLED, key
    return pooled(table, benchmark), *matrix_axes(benchmark)


def paired_matrices(
    items: pd.DataFrame, human: pd.DataFrame, dimension: str, score: str
) -> tuple[np.ndarray, np.ndarray]:
    """Matrices of the judge's ``score`` and the human score at the benchmark's level, aligned.

    (systems x documents) for SummEval; (1 x items) for the global-level benchmarks.
    """
    benchmark = _benchmark_of(items)
    joined = pooled(paired_items(items, human, dimension, score), benchmark)
    systems, inputs = matrix_axes(benchmark)
    judge, _, _ = to_matrix(joined, "judge", systems=systems, inputs=inputs)
    gold, _, _ = to_matrix(joined, "human", systems=systems, inputs=inputs)
    return judge, gold
