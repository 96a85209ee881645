"""The loaders of the judge-run formats of :mod:`geval_repro.registry.formats`.

Each takes ``(judge, spec, files, human)``: the judge's name and config entry, its local
files keyed by dimension (``"*"`` for a single file) and the benchmark's tidy table, and
returns the run's tables keyed by content (``replies``, ``item_scores``, ``level_probs``).
:data:`RUN_LOADERS` maps each format name to its loader, and :data:`CONTENT_SCHEMAS` each
content to the schema factory that validates its table.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pandera.pandas as pa

from geval_repro.load.jsonl import load_geval_jsonl
from geval_repro.load.replies import load_released_replies
from geval_repro.load.schemas import item_scores_schema, level_probs_schema, replies_schema
from geval_repro.load.scores import load_item_scores
from geval_repro.registry.formats import contents_of

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


def run_manifest(spec: Mapping[str, Any]) -> Path | None:
    """The ``manifest.json`` a geval-jsonl run's files are checked against: its pinned
    ``manifest`` (``files:``), else the one in its ``dir`` when present, else none."""
    if "manifest" in spec:
        return Path(spec["manifest"]["path"])
    if "dir" in spec and (Path(spec["dir"]) / "manifest.json").is_file():
        return Path(spec["dir"]) / "manifest.json"
    return None


def jsonl_run(
    judge: str, spec: Mapping[str, Any], files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``geval-jsonl``: one JSON Lines file per dimension, read for ``spec["reads"]`` (default:
    :meth:`geval_repro.registry.formats.JudgeFormat.contents`), each checked first against
    the run's manifest (:func:`run_manifest`)."""
    reads = contents_of(spec)
    manifest = run_manifest(spec)
    parts = [
        load_geval_jsonl(path, judge, dimension, human, spec["benchmark"], reads, manifest)
        for dimension, path in files.items()
    ]
    return {
        content: pd.concat([part[content] for part in parts], ignore_index=True)
        for content in reads
    }


RunLoader = Callable[
    [str, Mapping[str, Any], Mapping[str, PathLike], pd.DataFrame], dict[str, pd.DataFrame]
]

#: format name -> its loader (one entry per format of geval_repro.registry.formats).
RUN_LOADERS: dict[str, RunLoader] = {
    "geval-released": released_run,
    "scores": scores_run,
    "geval-jsonl": jsonl_run,
}

#: content -> the schema factory (called with the benchmark's name) of its processed table.
CONTENT_SCHEMAS: dict[str, Callable[[str], pa.DataFrameSchema]] = {
    "replies": replies_schema,
    "item_scores": item_scores_schema,
    "level_probs": level_probs_schema,
}
