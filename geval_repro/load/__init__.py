"""Loaders: raw upstream files to tidy tables validated by :mod:`geval_repro.load.schemas`.

Every loader takes explicit file paths (the pipeline passes ``data/raw/...``, tests the
mirror), returns a ``pandas.DataFrame`` and raises ``ValueError`` naming the file, the item
and the fix when the input is not what the pinned upstream file holds.

May import :mod:`geval_repro.registry`, :mod:`geval_repro.files` and :mod:`geval_repro.stats`
(Eq. 1). The loader and schema of each benchmark are registered in :mod:`.benchmarks`,
those of each judge-run format in :mod:`.judge_runs`.
"""

from geval_repro.load.jsonl import load_geval_jsonl
from geval_repro.load.metriceval import load_metriceval_experts
from geval_repro.load.multiref import load_multiref
from geval_repro.load.qags import load_qags, load_qags_mturk
from geval_repro.load.replies import load_released_replies
from geval_repro.load.scores import load_item_scores
from geval_repro.load.summeval import load_summeval
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.load.writer_vs_llm import load_writer_vs_llm

__all__ = [
    "load_geval_jsonl",
    "load_item_scores",
    "load_metriceval_experts",
    "load_multiref",
    "load_qags",
    "load_qags_mturk",
    "load_released_replies",
    "load_summeval",
    "load_topical_chat",
    "load_writer_vs_llm",
]
