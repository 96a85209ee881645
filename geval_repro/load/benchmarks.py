"""The loader and schema of each benchmark of :mod:`geval_repro.registry.benchmarks`, and of
each further tidy table a benchmark names (its ``other_tables``).

:data:`BENCHMARK_LOADERS` maps a benchmark's name to a :class:`BenchmarkLoader`: the function
that builds its tidy table from the local copies of the benchmark's ``sources`` (passed in
the registry's order) and the pandera schema that validates the table.
:data:`TABLE_LOADERS` maps each further table's name to a :class:`TableLoader` (its one
upstream file -> the table; its schema; the columns that key one row). The registry itself
stays free of pandas (the workflow reads it when it is parsed), so the callables live here,
beside the loaders, registered under the names the registry gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd
import pandera.pandas as pa

from geval_repro.files.paths import PathLike
from geval_repro.load import schemas
from geval_repro.load.data_to_text import load_data_to_text
from geval_repro.load.dialsummeval import load_dialsummeval, load_dialsummeval_annotators
from geval_repro.load.metriceval import load_metriceval_experts
from geval_repro.load.multiref import load_multiref
from geval_repro.load.qags import load_qags, load_qags_mturk
from geval_repro.load.summedits import load_summedits
from geval_repro.load.summeval import load_summeval
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.load.writer_vs_llm import ITEMS, PAIRS, load_items, load_pairs
from geval_repro.registry.benchmarks import get_benchmark


@dataclass(frozen=True)
class BenchmarkLoader:
    """How one benchmark's tidy table is built (``load(*source_paths)``) and validated."""

    load: Callable[..., pd.DataFrame]
    schema: pa.DataFrameSchema


@dataclass(frozen=True)
class TableLoader:
    """How one further tidy table is built (``load(source_path)``), validated and keyed."""

    load: Callable[[PathLike], pd.DataFrame]
    schema: pa.DataFrameSchema
    keys: tuple[str, ...]


BENCHMARK_LOADERS: dict[str, BenchmarkLoader] = {
    "summeval": BenchmarkLoader(load_summeval, schemas.SUMMEVAL),
    "topical_chat": BenchmarkLoader(load_topical_chat, schemas.TOPICAL_CHAT),
    "qags_cnndm": BenchmarkLoader(partial(load_qags, subset="cnndm"), schemas.QAGS),
    "qags_xsum": BenchmarkLoader(partial(load_qags, subset="xsum"), schemas.QAGS),
    "dialsummeval": BenchmarkLoader(load_dialsummeval, schemas.DIALSUMMEVAL),
    **{
        subset: BenchmarkLoader(partial(load_data_to_text, subset=subset), schemas.DATA_TO_TEXT)
        for subset in schemas.DATA_TO_TEXT_COUNTS
    },
    "summedits": BenchmarkLoader(load_summedits, schemas.SUMMEDITS),
    "writer_vs_llm": BenchmarkLoader(load_items, ITEMS),
}

_MTURK_KEYS = ("summary_index", "sentence_index", "worker_id")
TABLE_LOADERS: dict[str, TableLoader] = {
    "summeval_references": TableLoader(load_multiref, schemas.MULTIREF, ("doc_id", "ref_index")),
    "summeval_experts": TableLoader(
        load_metriceval_experts,
        schemas.METRICEVAL_EXPERTS,
        ("doc_id", "system_id", "annotator", "dimension"),
    ),
    "summeval_annotated_experts": TableLoader(
        partial(load_metriceval_experts, annotated=True),
        schemas.METRICEVAL_ANNOTATED_EXPERTS,
        ("doc_id", "system_id", "annotator", "dimension"),
    ),
    "qags_mturk_cnndm": TableLoader(
        partial(load_qags_mturk, subset="cnndm"), schemas.QAGS_MTURK, _MTURK_KEYS
    ),
    "qags_mturk_xsum": TableLoader(
        partial(load_qags_mturk, subset="xsum"), schemas.QAGS_MTURK, _MTURK_KEYS
    ),
    "dialsummeval_annotators": TableLoader(
        load_dialsummeval_annotators,
        schemas.DIALSUMMEVAL_ANNOTATORS,
        ("doc_id", "system_id", "annotator", "dimension"),
    ),
    "writer_vs_llm_pairs": TableLoader(load_pairs, PAIRS, ("judgement", "article_id")),
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
