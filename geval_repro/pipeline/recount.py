"""The command line's ``geval-repro recount``: one released-format G-Eval file recounted
against SummEval's expert-mean scores with the pipeline's own steps (the released
meta_eval_summeval.py, done right)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from geval_repro.config import judge_spec
from geval_repro.files.fetch import fetch_source, resolve_mirror
from geval_repro.load.benchmarks import load_benchmark
from geval_repro.load.judge_runs import FORMAT_LOADERS
from geval_repro.load.schemas import read_json
from geval_repro.registry.benchmarks import released_benchmark
from geval_repro.scoring.diagnostics import reply_diagnostics
from geval_repro.scoring.item_scores import item_scores
from geval_repro.scoring.pairing import paired_items
from geval_repro.stats.registry import COEFFICIENTS
from geval_repro.tables.rows import table_rows


def recount(
    path: Path, dimension: str, parser: str, raw_dir: Path, mirror: Path | None = None
) -> dict[str, object]:
    """The correlations of one released-format file with the human scores of the benchmark
    the G-Eval authors released replies for (SummEval's experts), at its level, as the
    pipeline computes them for a ``geval-released`` judge: the judge's spec from an entry
    as a config would give it (:func:`geval_repro.config.judge_spec`), the benchmark's
    upstream files fetched and verified and its tidy table loaded (the rules ``fetch`` and
    ``tidy_benchmark``), the file read by its format's loader (``tidy_judge``), its item
    scores under ``parser`` and its rows by the pipeline's own row code
    (:func:`geval_repro.tables.rows.table_rows`)."""
    benchmark = released_benchmark()
    items = read_json(path)  # the file is checked before the benchmark is fetched
    prompts = (
        [i.get("prompt") for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    )
    entry = {
        "benchmark": benchmark.name,
        "format": "geval-released",
        "label": str(path),
        "files": {dimension: {"path": str(path)}},
    }
    spec = judge_spec("cli", entry)
    sources = [
        fetch_source(source, raw_dir, mirror=resolve_mirror(mirror), progressbar=False)
        for source in benchmark.sources
    ]
    human = load_benchmark(benchmark.name, list(sources))
    replies = FORMAT_LOADERS[spec.format.name](spec, {dimension: path}, human)["replies"]
    pairs = paired_items(item_scores(replies, parser), human, dimension, "mean")
    rows = table_rows(
        pairs,
        benchmark=benchmark,
        dimension=dimension,
        metric="cli",
        variant=f"mean/{parser}",
        metric_column="judge",
        human_column="human",
        n_resamples=0,
        seed=0,
        coefficients=COEFFICIENTS,
    )
    rows = rows[rows["level"] == benchmark.level].set_index("coefficient")
    keys = list(benchmark.item_keys)
    result: dict[str, object] = {"file": str(path), "dimension": dimension, "parser": parser}
    result["dimensions_named"] = named_dimensions(path, prompts, benchmark.dimension_names)
    result["n_docs_in_file"] = int(replies[benchmark.input_key].nunique())
    result["n_items_in_file"] = int(replies[keys].drop_duplicates().shape[0])
    result["n_docs_in_benchmark"] = int(human[benchmark.input_key].nunique())
    result["n_items_in_benchmark"] = len(human)
    for coefficient in COEFFICIENTS:
        result[coefficient] = float(rows.loc[coefficient, "value"])
    result["n_docs"] = int(rows.loc[COEFFICIENTS[0], "n_groups"])
    result["n_items"] = int(pairs[["judge", "human"]].notna().all(axis=1).sum())
    result["tie_rate"] = float(rows.loc[COEFFICIENTS[0], "tie_rate"])
    diagnostics = reply_diagnostics(replies, parsers=[parser]).iloc[0]
    result["unparsed"] = int(diagnostics["n_unread"])
    result["n_replies"] = int(diagnostics["n_replies"])
    return result


def named_dimensions(path: Path, prompts: Iterable[object], dimensions: Sequence[str]) -> list[str]:
    """The ``dimensions`` a released-format file names, which ``recount`` compares with its
    ``--dimension``: in its file name, a dimension's name or the first three letters the
    released files use (``gpt4_coh_detailed.json``); in its items' prompts, the criterion a
    released template states (``Coherence (1-5)``, ``Fluency (1-3)``)."""
    words = set(re.split(r"[^a-z]+", path.stem.lower()))
    named = {d for d in dimensions if d in words or d[:3] in words}
    texts = {text for text in prompts if isinstance(text, str)}
    for dimension in dimensions:
        criterion = re.compile(rf"\b{dimension.capitalize()} \(\d-\d\)")
        if any(criterion.search(text) for text in texts):
            named.add(dimension)
    return [d for d in dimensions if d in named]
