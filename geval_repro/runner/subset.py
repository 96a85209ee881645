"""A seeded subset of a benchmark's inputs for a partial run (``sample`` / ``--sample``).

The *inputs* are the benchmark's :attr:`~geval_repro.registry.benchmarks.Benchmark.input_key`
values: the documents (dialogues) at the summary level, so every drawn document keeps all of
its systems and the per-document correlation still has its items; the items themselves at a
global level. ``count`` distinct inputs are drawn uniformly without replacement by
``numpy.random.default_rng(seed).choice``; the kept rows stay in benchmark order, so the run
sends them grouped by shared text as always.

A benchmark of binary labels (:class:`~geval_repro.registry.benchmarks.BinaryLabels`:
SummEdits) is sampled *stratified*: ``count`` items from each (domain, split, label) stratum,
the strata in sorted order, each drawn by ``choice`` with the one generator seeded once. So
every domain a run covers has both labels in the split that fits the threshold and in the
split it is applied to (:func:`strata_of`), which a uniform draw of a few items does not
guarantee.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark


def strata_of(benchmark: Benchmark) -> list[str]:
    """The columns whose value combinations a sample draws from separately: the domain, split
    and label columns of a benchmark of binary labels, none otherwise."""
    labels = benchmark.labels
    return [] if labels is None else [labels.domain_key, labels.split_key, labels.column]


def sample_record(benchmark: Benchmark, count: int, seed: int | None) -> dict[str, Any]:
    """What a run's manifest records of its sample: ``count`` values of ``of`` drawn with
    ``seed`` (``per``: in each stratum of these columns, for a stratified sample)."""
    strata = strata_of(benchmark)
    return {
        "inputs": count,
        "of": benchmark.input_key,
        **({"per": strata} if strata else {}),
        "seed": seed,
    }


def sample_inputs(
    table: pd.DataFrame, benchmark: Benchmark, count: int, seed: int | None
) -> pd.DataFrame:
    """The rows of ``table`` whose input (document, or item at a global level) is among
    ``count`` drawn with ``seed`` (per stratum for a benchmark of binary labels); raise
    ``ValueError`` without a seed or when ``count`` exceeds the inputs there are (in the
    smallest stratum)."""
    key = benchmark.input_key
    if seed is None:
        raise ValueError(f"--sample {count} draws {key} values at random: give --seed (run: seed)")
    rng = np.random.default_rng(seed)
    strata = strata_of(benchmark)
    if not strata:
        inputs = pd.unique(table[key])
        if not 1 <= count <= len(inputs):
            raise ValueError(
                f"--sample {count}: {benchmark.title} has {len(inputs)} values of {key}; give "
                f"1 to {len(inputs)}, or omit it for all"
            )
        drawn = rng.choice(len(inputs), size=count, replace=False)
        return table[table[key].isin(inputs[np.sort(drawn)])]
    groups = table.groupby(strata, sort=True)[key].unique()
    smallest = groups.map(len).min()
    if not 1 <= count <= smallest:
        where = ", ".join(map(str, groups.map(len).idxmin()))
        raise ValueError(
            f"--sample {count}: {benchmark.title} is sampled per ({', '.join(strata)}) and its "
            f"smallest stratum ({where}) has {smallest} values of {key}; give 1 to {smallest}, "
            "or omit it for all"
        )
    kept = np.concatenate(
        [inputs[np.sort(rng.choice(len(inputs), size=count, replace=False))] for inputs in groups]
    )
    return table[table[key].isin(kept)]
