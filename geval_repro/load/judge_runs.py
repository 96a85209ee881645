"""The loaders of the judge-run formats of :mod:`geval_repro.judge.formats`.

Each takes ``(judge, spec, files, human)``: the judge's name and config entry, its local
files keyed by dimension (``"*"`` for a single file) and the benchmark's tidy table, and
returns the run's tables keyed by content (``replies``, ``item_scores``, ``level_probs``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pandas as pd

from geval_repro.judge.formats import contents_of
from geval_repro.load.jsonl import load_geval_jsonl
from geval_repro.load.replies import load_released_replies
from geval_repro.load.scores import load_item_scores

PathLike = str | os.PathLike[str]


def released_run(
    judge: str, spec: Mapping[str, Any], files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``geval-released``: one replies file per dimension."""
    parts = [
        load_released_replies(path, judge, dimension, human, benchmark=spec["benchmark"])
        for dimension, path in files.items()
    ]
    return {"replies": pd.concat(parts, ignore_index=True)}


def scores_run(
    judge: str, spec: Mapping[str, Any], files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``scores``: one CSV of per-item scores."""
    table = load_item_scores(
        files["*"],
        judge,
        spec["columns"],
        human,
        spec.get("extra_items", "error"),
        benchmark=spec["benchmark"],
    )
    return {"item_scores": table}


def jsonl_run(
    judge: str, spec: Mapping[str, Any], files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``geval-jsonl``: one JSON Lines file per dimension, read for ``spec["reads"]`` (default:
    :meth:`geval_repro.judge.formats.JudgeFormat.contents`)."""
    reads = contents_of(spec)
    parts = [
        load_geval_jsonl(path, judge, dimension, human, spec["benchmark"], reads)
        for dimension, path in files.items()
    ]
    return {
        content: pd.concat([part[content] for part in parts], ignore_index=True)
        for content in reads
    }
