"""The registry of judge-run formats: how a run's files are given, read and tabulated.

A format maps to:

- ``loader``: ``module:function`` (resolved lazily) called as
  ``loader(judge, spec, files, human)`` with the judge's config entry, its local files keyed
  by dimension (``"*"`` for a single file) and the benchmark's tidy table; it returns the
  run's processed tables keyed by *content*;
- ``inputs``: the config keys that may give the files (exactly one is used);
- ``options`` / ``required``: further config keys the format accepts / needs;
- ``contents(spec)``: what the run yields, each content one processed table
  (``data/processed/judges/<judge>/<table>.parquet``) and a set of result tables:

  ``replies`` (raw reply texts: parsers, one-reply, mode, diagnostics, the sweep),
  ``item_scores`` (one score per item and dimension) and ``level_probs`` (a probability per
  score level: Eq. 1 weighted score, most likely level, per-item results).

Rules, the config check, the report and the README generator derive their lists from here.
To add a format: one :class:`JudgeFormat` entry and its loader in :mod:`geval_repro.load`
(see README, Extending).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Content = Literal["replies", "item_scores", "level_probs"]

#: content -> (processed table name, name of its schema factory in geval_repro.schemas)
PROCESSED: dict[str, tuple[str, str]] = {
    "replies": ("replies", "replies_schema"),
    "item_scores": ("scores", "item_scores_schema"),
    "level_probs": ("level_probs", "level_probs_schema"),
}

#: content -> the result tables (``results/tables/judges/<judge>/<name>.csv|.md``) it gives
RESULTS: dict[str, tuple[str, ...]] = {
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
    "level_probs": ("correlations", "level_items", "rollups"),
}

#: The figures of the sweep, made for every run with replies.
SWEEP_FIGURES: tuple[str, ...] = ("sweep_spearman", "sweep_kendall", "tie_rate")


@dataclass(frozen=True)
class JudgeFormat:
    """One judge-run format (see the module docstring)."""

    name: str
    description: str
    loader: str
    inputs: tuple[str, ...]
    options: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    fixed_contents: tuple[Content, ...] = ()

    def contents(self, spec: Mapping[str, Any]) -> tuple[Content, ...]:
        """What a run with config entry ``spec`` yields (``geval-jsonl``: its ``reads``;
        default both, or what the mode of its ``run:`` block writes)."""
        if self.fixed_contents:
            return self.fixed_contents
        if "reads" not in spec and "run" in spec:
            from geval_repro.runner.configured import default_reads

            return default_reads(spec["run"])
        return tuple(spec.get("reads", ("replies", "level_probs")))

    def load(self) -> Callable[..., dict[str, Any]]:
        """The loader function."""
        module, function = self.loader.split(":")
        return getattr(importlib.import_module(module), function)


FORMATS: dict[str, JudgeFormat] = {
    f.name: f
    for f in (
        JudgeFormat(
            name="geval-released",
            description="the released G-Eval replies: per dimension a JSON list of items "
            "with all_responses",
            loader="geval_repro.load.judge_runs:released_run",
            inputs=("files",),
            fixed_contents=("replies",),
        ),
        JudgeFormat(
            name="scores",
            description="a CSV of per-item scores, one column per dimension",
            loader="geval_repro.load.judge_runs:scores_run",
            inputs=("file",),
            options=("columns", "extra_items"),
            required=("columns",),
            fixed_contents=("item_scores",),
        ),
        JudgeFormat(
            name="geval-jsonl",
            description="per dimension a JSON Lines file <dimension>.jsonl: item keys, "
            "replies and/or level_probs",
            loader="geval_repro.load.judge_runs:jsonl_run",
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


def contents_of(spec: Mapping[str, Any]) -> tuple[Content, ...]:
    """What the judge run of config entry ``spec`` yields."""
    return get_format(spec["format"]).contents(spec)


def processed_tables(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The run's processed table names (``replies``, ``scores``, ``level_probs``)."""
    return tuple(PROCESSED[content][0] for content in contents_of(spec))


def result_tables(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The run's result table names, in a fixed order, each once."""
    names = [name for content in contents_of(spec) for name in RESULTS[content]]
    return tuple(dict.fromkeys(names))


def has_replies(spec: Mapping[str, Any]) -> bool:
    """Whether the run has reply texts (and so a sweep and its figures)."""
    return "replies" in contents_of(spec)
