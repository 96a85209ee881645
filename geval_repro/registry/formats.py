"""The registry of judge-run formats: how a run's files are given, read and tabulated.

A format maps to:

- ``inputs``: the config keys that may give the files (exactly one is used);
- ``options`` / ``required``: further config keys the format accepts / needs;
- ``contents(reads, mode)``: what the run yields, each content one processed table
  (``data/processed/judges/<judge>/<table>.parquet``) and a set of result tables:

  ``replies`` (raw reply texts: parsers, one-reply, modal reply, diagnostics, the sweep),
  ``item_scores`` (one score per item and dimension) and ``rating_probs`` (a probability per
  rating of the dimension's judge scale: Eq. 1 weighted score, most likely rating, per-item
  results). A ``geval-jsonl`` file stores the rating probabilities in its field
  ``level_probs``, the name users write under ``reads:`` (:data:`FIELD_CONTENTS`); in the
  code a point of a judge scale is a *rating* (a *level* is a correlation level: summary,
  system, global).

Each format's loader (the function that reads its files into those tables) is registered
beside the loaders, in :data:`geval_repro.load.judge_runs.FORMAT_LOADERS`: this module stays
free of pandas, so the workflow can read it when it is parsed.

Rules, the config check, the report and the README generator derive their lists from here.
To add a format: one :class:`JudgeFormat` entry here and its loader in
:mod:`geval_repro.load.judge_runs` (see docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from geval_repro.stats.registry import CORRELATIONS

Content = Literal["replies", "item_scores", "rating_probs"]

#: content -> its processed table (``data/processed/judges/<judge>/<name>.parquet``)
CONTENT_TABLES: dict[Content, str] = {
    "replies": "replies",
    "item_scores": "scores",
    "rating_probs": "rating_probs",
}

#: The fields of a ``geval-jsonl`` file a run reads (the config's ``reads:``) -> the content
#: each gives.
FIELD_CONTENTS: dict[str, Content] = {"replies": "replies", "level_probs": "rating_probs"}

#: content -> the result tables (``results/tables/judges/<judge>/<name>.csv|.md``) it gives
CONTENT_RESULTS: dict[Content, tuple[str, ...]] = {
    "replies": (
        "correlations",
        "main",
        "one_reply",
        "parsers",
        "diagnostics",
        "rollups",
        "significance",
    ),
    "item_scores": ("correlations",),
    "rating_probs": ("correlations", "rating_items", "rollups"),
}

#: The result tables that read no per-item human score, the only ones a run on a benchmark
#: of pairwise preferences gets (``Benchmark.has_human_scores`` False): the replies'
#: diagnostics and the per-item rating results. Its scores go into the benchmark's own
#: analysis instead (the writer-vs-LLM tables).
WITHOUT_HUMAN_SCORES: tuple[str, ...] = ("diagnostics", "rating_items")

#: What the files of a ``run:`` block hold, by its mode: ``sample`` replies, ``logprobs``
#: rating probabilities (its single reply per item is not a sample), ``both`` both.
MODE_CONTENTS: dict[str, tuple[Content, ...]] = {
    "sample": ("replies",),
    "logprobs": ("rating_probs",),
    "both": ("replies", "rating_probs"),
}

#: The figures of the sweep, made for every run with replies: one per coefficient the
#: coefficient registry sweeps in a figure of its own (ρ, τ), the tie rate, the accuracies.
SWEEP_FIGURES: tuple[str, ...] = (
    *(f"sweep_{c.name}" for c in CORRELATIONS if c.swept),
    "tie_rate",
    "sweep_accuracy",
)
#: The figure of the sweep on binary labels, made for every run with replies on a benchmark
#: of binary human labels: each statistic and the tie rate vs replies per item.
LABEL_SWEEP_FIGURES: tuple[str, ...] = ("sweep_binary_labels",)


@dataclass(frozen=True)
class JudgeFormat:
    """One judge-run format (see the module docstring)."""

    name: str
    description: str
    inputs: tuple[str, ...]
    options: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    fixed_contents: tuple[Content, ...] = ()

    def contents(self, reads: Sequence[str] | None, mode: str | None) -> tuple[Content, ...]:
        """What a run of this format yields: its fixed contents; else (``geval-jsonl``) the
        entry's ``reads``, or what the ``mode`` of its ``run:`` block writes, or both."""
        if self.fixed_contents:
            return self.fixed_contents
        if reads is not None:
            return tuple(FIELD_CONTENTS[field] for field in reads)
        if mode is not None:
            return MODE_CONTENTS[mode]
        return tuple(FIELD_CONTENTS.values())


FORMATS: dict[str, JudgeFormat] = {
    f.name: f
    for f in (
        JudgeFormat(
            name="geval-released",
            description="the released G-Eval replies: per dimension a JSON list of items "
            "with all_responses",
            inputs=("files",),
            fixed_contents=("replies",),
        ),
        JudgeFormat(
            name="scores",
            description="a CSV of per-item scores, one column per dimension",
            inputs=("file",),
            options=("columns", "extra_items", "scale"),
            required=("columns",),
            fixed_contents=("item_scores",),
        ),
        JudgeFormat(
            name="geval-jsonl",
            description="per dimension a JSON Lines file <dimension>.jsonl: item keys, "
            "replies and/or level_probs (rating probabilities)",
            inputs=("files", "dir"),
            options=("reads",),
        ),
    )
}

#: The format names, for the config schema.
NAMES: tuple[str, ...] = tuple(FORMATS)


def get_format(name: str) -> JudgeFormat:
    """The registered format ``name``; raise naming the valid names otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown judge format {name!r}: use one of {list(NAMES)}") from None
