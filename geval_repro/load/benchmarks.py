"""The loader and schema of each benchmark of :mod:`geval_repro.registry.benchmarks`.

:data:`BENCHMARK_LOADERS` maps a benchmark's name to a :class:`BenchmarkLoader`: the function
that builds its tidy table from the local copies of the benchmark's ``sources`` (passed in
the registry's order) and the pandera schema that validates the table, with the columns
that key one row. The registry itself stays free of pandas (the workflow reads it when it
is parsed), so the callables live here, beside the loaders, resolved once at import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd
import pandera.pandas as pa

from geval_repro.load import schemas
from geval_repro.load.qags import load_qags
from geval_repro.load.summeval import load_summeval
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.registry.benchmarks import get_benchmark

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class BenchmarkLoader:
    """How one benchmark's tidy table is built (``load(*source_paths)``) and validated."""

    load: Callable[..., pd.DataFrame]
    schema: pa.DataFrameSchema


BENCHMARK_LOADERS: dict[str, BenchmarkLoader] = {
    "summeval": BenchmarkLoader(load_summeval, schemas.SUMMEVAL),
    "topical_chat": BenchmarkLoader(load_topical_chat, schemas.TOPICAL_CHAT),
    "qags_cnndm": BenchmarkLoader(partial(load_qags, subset="cnndm"), schemas.QAGS),
    "qags_xsum": BenchmarkLoader(partial(load_qags, subset="xsum"), schemas.QAGS),
}


def load_benchmark(name: str, paths: list[PathLike]) -> pd.DataFrame:
    """The tidy table of benchmark ``name`` from the local copies of its sources, in the
    order of the registry's ``sources`` (e.g. Topical-Chat: data, then UniEval's
    predictions)."""
    benchmark = get_benchmark(name)
    if len(paths) != len(benchmark.sources):
        raise ValueError(
            f"{benchmark.title} is built from {len(benchmark.sources)} files "
            f"{list(benchmark.sources)}, got {len(paths)}"
        )
    return BENCHMARK_LOADERS[name].load(*paths)
