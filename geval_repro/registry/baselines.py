"""The registry of baseline protocols, as sacrebleu's ``METRICS``: name -> how the paper
behind a benchmark's printed baseline rows scored its texts (the metrics, the references,
the items), so that the pipeline scores every benchmark the same way, by name.

A benchmark names its protocol in its registry entry
(:attr:`geval_repro.registry.benchmarks.Benchmark.baselines`: ``protocol``, the variant of
the paper's rows, and the further tidy table of references it reads, if any); the pipeline
then runs :attr:`BaselineProtocol.score` on its tidy table
(:func:`geval_repro.pipeline.baseline_tables.baseline_scores`) and correlates every metric
and variant with the human scores at the benchmark's level. Imported by the jobs only: the
scorers import numpy and pandas.

To add a protocol: a function ``(table, references, cache, variant) -> scores`` in
:mod:`geval_repro.baselines.protocols` and one :class:`BaselineProtocol` entry here (see
docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from geval_repro.baselines import protocols

#: ``(table, references, cache, variant) -> scores``: see :mod:`geval_repro.baselines.protocols`.
Scorer = Callable[[pd.DataFrame, pd.DataFrame | None, Path, str], pd.DataFrame]


@dataclass(frozen=True)
class BaselineProtocol:
    """One baseline protocol: its ``name``, whose protocol it is (``source``), its scorer
    and a note per metric that the rows carry (``notes``)."""

    name: str
    source: str
    score: Scorer
    notes: Mapping[str, str] = field(default_factory=dict)


BASELINES: dict[str, BaselineProtocol] = {
    p.name: p
    for p in (
        BaselineProtocol(
            name="multiref-rouge",
            source="BARTScore (Yuan et al., 2021): ROUGE against every reference, averaged",
            score=protocols.multiref_rouge,
        ),
        BaselineProtocol(
            name="usr-word-overlap",
            source="USR (Mehri and Eskenazi, 2020): word overlap with the ground-truth response",
            score=protocols.usr_word_overlap,
            notes={
                "METEOR": "METEOR 1.0 (nltk on WordNet 3.0), not the Java METEOR 1.5 of USR's "
                "toolkit",
                "METEOR 1.5": "METEOR 1.5 (Java jar of pycocoevalcap 1.2), the METEOR of USR's "
                "toolkit",
            },
        ),
        BaselineProtocol(
            name="rouge-vs-reference-and-released",
            source="DialSummEval (Gao and Wan, 2022): ROUGE against the reference summary, "
            "recomputed, beside the authors' released scores of 32 metrics",
            score=protocols.rouge_vs_reference_and_released,
            notes={
                "ppl": "GPT-2 perplexity of the summary: lower is better, so a good metric "
                "correlates negatively",
            },
        ),
        BaselineProtocol(
            name="word-overlap-vs-reference",
            source="Novikova et al. (2017): word overlap with the dialogue act's reference "
            "utterance (BLEU-4, ROUGE-L, METEOR as USR's toolkit computes them)",
            score=protocols.word_overlap_against_reference,
            notes={"METEOR": "METEOR 1.0 (nltk on WordNet 3.0)"},
        ),
        BaselineProtocol(
            name="rouge-vs-source",
            source="QAGS (Wang et al., 2020): ROUGE between a summary and its source",
            score=protocols.rouge_against_source,
        ),
    )
}


def get_protocol(name: str) -> BaselineProtocol:
    """The registered protocol ``name``; raise naming the valid names otherwise."""
    try:
        return BASELINES[name]
    except KeyError:
        raise ValueError(
            f"unknown baseline protocol {name!r}: use one of {list(BASELINES)}"
        ) from None
