"""The registry of benchmarks: one entry per benchmark the paper meta-evaluates on.

A benchmark is SummEval, Topical-Chat or one QAGS subset (and nothing else). Each entry
states what every other part of the toolkit needs to know about it, so rules, tables, judge
runs and the judge runner derive their lists from here:

- ``name`` and the ``paper_table`` that prints it;
- ``item_keys``: the columns of its tidy table (``data/processed/<name>.parquet``) that
  identify one judged text: ``(doc_id, system_id)`` for SummEval, ``item_id`` otherwise;
- ``dimensions``: the paper's dimensions, each with the human ``human_scale`` of the tidy
  table and the ``judge_scale`` (integer levels) a G-Eval prompt asks for;
- ``level``: the correlation level of the paper's protocol. ``summary``: correlate within
  each document (``group_key``) over its systems, then average (SummEval, after UniEval);
  ``global``: one correlation over all items, called turn level for Topical-Chat and
  dataset level for QAGS;
- ``texts``: prompt placeholder -> column of the tidy table holding that text;
- ``shared_text``: the placeholder whose text several items share (SummEval's and QAGS's
  document, Topical-Chat's conversation history): the judge runner sends the items that
  share it one after another, so a server's prefix cache serves it once;
- ``released_replies``: whether the G-Eval authors released their judge replies for it
  (SummEval only); elsewhere the printed G-Eval rows stay "not-released";
- ``citations``: the BibTeX keys (in ``geval_repro/data/CITATIONS.bib``) of the papers that
  published its texts and human judgements (the sources registry cites the files'
  publishers: G-Eval, UniEval);
- ``sources``: the ids (in :mod:`geval_repro.registry.sources`) of the upstream files its
  tidy table is built from, in the order its loader takes them.

The loader and schema of each benchmark are registered beside the loaders, in
:data:`geval_repro.load.benchmarks.BENCHMARK_LOADERS`, so importing this module stays cheap
(no pandas). To add a benchmark: one :class:`Benchmark` entry in :data:`BENCHMARKS`, its
loader in :mod:`geval_repro.load` and its schema in :mod:`geval_repro.load.schemas` (see
docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Level = Literal["summary", "global"]


@dataclass(frozen=True)
class Dimension:
    """One quality dimension of a benchmark: its human scale and the judge's rating scale."""

    name: str
    human_scale: tuple[float, float]
    judge_scale: tuple[int, int]

    @property
    def ratings(self) -> tuple[int, ...]:
        """The integer ratings a judge may give, lowest first."""
        low, high = self.judge_scale
        return tuple(range(low, high + 1))


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the paper's meta-evaluation (see the module docstring)."""

    name: str
    title: str
    paper_table: int
    item_keys: tuple[str, ...]
    dimensions: tuple[Dimension, ...]
    level: Level
    level_name: str
    texts: Mapping[str, str]
    shared_text: str
    group_key: str | None = None
    unit_key: str = "system_id"
    sources: tuple[str, ...] = ()
    released_replies: bool = False
    citations: tuple[str, ...] = ()

    @property
    def dimension_names(self) -> tuple[str, ...]:
        """The paper's dimensions of this benchmark, in the printed column order."""
        return tuple(d.name for d in self.dimensions)

    def dimension(self, name: str) -> Dimension:
        """The dimension called ``name``; raise naming the valid ones otherwise."""
        for dimension in self.dimensions:
            if dimension.name == name:
                return dimension
        raise ValueError(
            f"{self.title} has no dimension {name!r}: use one of {list(self.dimension_names)}"
        )


_QAGS_TEXTS = {"Document": "source", "Summary": "summary"}
_QAGS_CONSISTENCY = (Dimension("consistency", (0.0, 1.0), (1, 5)),)


def _qags(subset: str, title: str) -> Benchmark:
    """One QAGS subset: consistency of a summary with its source, at the dataset level."""
    return Benchmark(
        name=f"qags_{subset}",
        title=title,
        paper_table=3,
        item_keys=("item_id",),
        dimensions=_QAGS_CONSISTENCY,
        level="global",
        level_name="dataset",
        texts=_QAGS_TEXTS,
        shared_text="Document",
        sources=(f"qags_{subset}", f"unieval_pred_qags_{subset}"),
        citations=("wang2020qags",),
    )


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            name="summeval",
            title="SummEval",
            paper_table=1,
            item_keys=("doc_id", "system_id"),
            dimensions=(
                Dimension("coherence", (1.0, 5.0), (1, 5)),
                Dimension("consistency", (1.0, 5.0), (1, 5)),
                Dimension("fluency", (1.0, 5.0), (1, 3)),
                Dimension("relevance", (1.0, 5.0), (1, 5)),
            ),
            level="summary",
            level_name="summary",
            group_key="doc_id",
            texts={"Document": "source", "Summary": "system_output"},
            shared_text="Document",
            sources=("summeval",),
            released_replies=True,
            citations=("fabbri2021summeval",),
        ),
        Benchmark(
            name="topical_chat",
            title="Topical-Chat",
            paper_table=2,
            item_keys=("item_id",),
            dimensions=(
                Dimension("naturalness", (1.0, 3.0), (1, 3)),
                Dimension("coherence", (1.0, 3.0), (1, 3)),
                Dimension("engagingness", (1.0, 3.0), (1, 3)),
                Dimension("groundedness", (0.0, 1.0), (0, 1)),
            ),
            level="global",
            level_name="turn",
            texts={"Conversation History": "history", "Fact": "fact", "Response": "response"},
            shared_text="Conversation History",
            sources=("topical_chat", "unieval_pred_topical_chat"),
            citations=("gopalakrishnan2019topicalchat", "mehri2020usr"),
        ),
        _qags("cnndm", "QAGS-CNN/DM"),
        _qags("xsum", "QAGS-XSum"),
    )
}

# The paper's averaged pseudo-benchmarks: name -> the benchmarks whose rows it averages
# (its printed QAGS "Average" of the two subsets).
AVERAGES: dict[str, tuple[str, ...]] = {"qags_avg": ("qags_cnndm", "qags_xsum")}

#: Benchmarks in the paper's order (Tables 1, 2, 3).
NAMES: tuple[str, ...] = tuple(BENCHMARKS)

#: Every name under which the paper prints numbers: the benchmarks, then the averages.
PRINTED_NAMES: tuple[str, ...] = (*NAMES, *AVERAGES)

#: Every dimension of any benchmark, in first-seen order (for the config schema).
ALL_DIMENSIONS: tuple[str, ...] = tuple(
    dict.fromkeys(d for b in BENCHMARKS.values() for d in b.dimension_names)
)


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark ``name``; raise naming the valid names otherwise."""
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}: use one of {list(NAMES)}") from None


def _printed(name: str) -> Benchmark:
    """The benchmark ``name``, or the first part of the average ``name``."""
    if name in AVERAGES:
        return BENCHMARKS[AVERAGES[name][0]]
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}: use one of {list(PRINTED_NAMES)}")
    return BENCHMARKS[name]


def dimensions_of(name: str) -> tuple[str, ...]:
    """The dimensions printed for ``name`` (a benchmark or an average such as qags_avg)."""
    return _printed(name).dimension_names


def level_of(name: str) -> Level:
    """The paper's correlation level for ``name`` (an average shares its parts' level)."""
    return _printed(name).level


def table_of(name: str) -> int:
    """The paper table printing ``name`` (an average is printed beside its parts)."""
    return _printed(name).paper_table


def judge_scale(benchmark: str, dimension: str) -> tuple[int, int]:
    """(min, max) of the rating scale a G-Eval prompt asks for on this benchmark's dimension.

    The scale depends on the benchmark: coherence is 1-5 on SummEval, 1-3 on Topical-Chat.
    """
    return get_benchmark(benchmark).dimension(dimension).judge_scale


def human_scale(benchmark: str, dimension: str) -> tuple[float, float]:
    """(min, max) of the human scores of the benchmark's tidy table for ``dimension``."""
    return get_benchmark(benchmark).dimension(dimension).human_scale
