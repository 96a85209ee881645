"""A seeded subset of a benchmark's inputs for a partial run (``sample`` / ``--sample``).

The *inputs* are the benchmark's :attr:`~geval_repro.registry.benchmarks.Benchmark.input_key`
values: the documents (dialogues) at the summary level, so every drawn document keeps all of
its systems and the per-document correlation still has its items; the items themselves at a
global level. ``count`` distinct inputs are drawn uniformly without replacement by
``numpy.random.default_rng(seed).choice``; the kept rows stay in benchmark order, so the run
sends them grouped by shared text as always.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark


def sample_inputs(
    table: pd.DataFrame, benchmark: Benchmark, count: int, seed: int | None
) -> pd.DataFrame:
    """The rows of ``table`` whose input (document, or item at a global level) is among
    ``count`` drawn with ``seed``; raise ``ValueError`` without a seed or when ``count``
    exceeds the inputs there are."""
    key = benchmark.input_key
    if seed is None:
        raise ValueError(f"--sample {count} draws {key} values at random: give --seed (run: seed)")
    inputs = pd.unique(table[key])
    if not 1 <= count <= len(inputs):
        raise ValueError(
            f"--sample {count}: {benchmark.title} has {len(inputs)} values of {key}; give 1 to "
            f"{len(inputs)}, or omit it for all"
        )
    drawn = np.random.default_rng(seed).choice(len(inputs), size=count, replace=False)
    return table[table[key].isin(inputs[np.sort(drawn)])]
