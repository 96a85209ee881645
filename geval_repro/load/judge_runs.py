"""The loaders of the judge-run formats of :mod:`geval_repro.registry.formats`.

Each takes ``(spec, files, human)``: the judge run's spec
(:class:`~geval_repro.registry.judges.JudgeSpec`), its local files keyed by dimension
(``"*"`` for a single file) and the benchmark's tidy table, and returns the run's tables
keyed by content (``replies``, ``item_scores``, ``rating_probs``). :data:`FORMAT_LOADERS`
maps each format name to its loader, and :data:`CONTENT_SCHEMAS` each content to the
schema factory that validates its table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import pandera.pandas as pa

from geval_repro.files.paths import PathLike
from geval_repro.load.jsonl import load_geval_jsonl, recorded_variant
from geval_repro.load.replies import load_released_replies
from geval_repro.load.schemas import item_scores_schema, rating_probs_schema, replies_schema
from geval_repro.load.scores import load_item_scores
from geval_repro.registry.formats import FIELD_CONTENTS
from geval_repro.registry.judges import JudgeSpec


def released_run(
    spec: JudgeSpec, files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``geval-released``: one replies file per dimension."""
    parts = [
        load_released_replies(path, spec.name, dimension, human, benchmark=spec.benchmark.name)
        for dimension, path in files.items()
    ]
    return {"replies": pd.concat(parts, ignore_index=True)}


def scores_run(
    spec: JudgeSpec, files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``scores``: one CSV of per-item scores."""
    table = load_item_scores(
        files["*"],
        spec.name,
        spec.columns,
        human,
        spec.extra_items,
        benchmark=spec.benchmark.name,
    )
    return {"item_scores": table}


def jsonl_run(
    spec: JudgeSpec, files: Mapping[str, PathLike], human: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """``geval-jsonl``: one JSON Lines file per dimension, read for the run's contents
    (its ``reads``; default both, or what its run's mode writes), each checked first against
    the run's manifest (:attr:`~geval_repro.registry.judges.JudgeSpec.manifest_path`)."""
    fields = [field for field, content in FIELD_CONTENTS.items() if content in spec.contents]
    manifest = spec.manifest_path
    variant = spec.benchmark.prompt_variant(spec.prompt_variant)
    ratings = None if variant is None else variant.ratings
    parts = []
    for dimension, path in files.items():
        recorded = None if manifest is None else recorded_variant(manifest, dimension)
        if recorded is not None and recorded != spec.prompt_variant:
            raise ValueError(
                f"{path}: its manifest {manifest} records prompt variant {recorded!r}, the "
                f"judge {spec.name!r} says {spec.prompt_variant!r}: its replies would be read "
                f"as another prompt's. Fix: set the judge's prompt_variant: {recorded} in the "
                "config (or run the judge again with the variant it names)"
            )
        parts.append(
            load_geval_jsonl(
                path, spec.name, dimension, human, spec.benchmark.name, fields, manifest, ratings
            )
        )
    return {
        content: pd.concat([part[content] for part in parts], ignore_index=True)
        for content in spec.contents
    }


FormatLoader = Callable[[JudgeSpec, Mapping[str, PathLike], pd.DataFrame], dict[str, pd.DataFrame]]

#: format name -> its loader (one entry per format of geval_repro.registry.formats).
FORMAT_LOADERS: dict[str, FormatLoader] = {
    "geval-released": released_run,
    "scores": scores_run,
    "geval-jsonl": jsonl_run,
}

#: content -> the schema factory (called with the benchmark's name) of its processed table.
CONTENT_SCHEMAS: dict[str, Callable[[str], pa.DataFrameSchema]] = {
    "replies": replies_schema,
    "item_scores": item_scores_schema,
    "rating_probs": rating_probs_schema,
}
