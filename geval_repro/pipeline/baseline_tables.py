"""Model-free baselines: per-item scores, then correlation rows against the human scores.

Protocols (sources in docs/baselines.md):

- SummEval (Table 1): ROUGE-1/2/L F1 with Porter stemming, ROUGE-L as the summary-level
  LCS over sentences split at " . " (ROUGE-1.5.5's), against (a) the single reference of
  summeval.json, (b) the mean and (c) the max over the 11 references of BARTScore's pickle.
  (b) is BARTScore's protocol, from which the paper's rows come. Summary level.
- Topical-Chat (Table 2): ROUGE-L (COCO: whitespace tokens, beta 1.2), BLEU-4 (COCO
  smoothing) and METEOR (METEOR 1.5, the Java jar of the COCO toolkit that USR used, as
  "METEOR 1.5"; and nltk's METEOR 1.0 on WordNet 3.0, as "METEOR") of each response against its
  context's original ground-truth response, the ground-truth rows left out (USR's protocol:
  300 of 360 responses). Turn level (global).
- QAGS (Table 3): ROUGE-2 and ROUGE-L (stemmed) between summary and source. Dataset level.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from geval_repro.baselines import PRINTED_AS
from geval_repro.baselines.bleu import sentence_bleu
from geval_repro.baselines.meteor import debian_wordnet, meteor
from geval_repro.baselines.meteor_java import meteor_coco
from geval_repro.baselines.references import (
    GROUND_TRUTH_SYSTEM,
    summeval_references,
    topical_chat_references,
)
from geval_repro.baselines.rouge import rouge_f, rouge_f_per_reference_by_type
from geval_repro.config import Settings
from geval_repro.files.atomic import write_parquet
from geval_repro.files.paths import PathLike
from geval_repro.pipeline.processes import in_own_process
from geval_repro.registry.benchmarks import BASELINE_FAMILIES, BENCHMARKS, get_benchmark
from geval_repro.report.table_files import write_rows
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import table_rows

log = logging.getLogger(__name__)

ROUGE_TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum"}
SENTENCE_SEPARATOR = " . "
METRIC_NOTES = {
    "METEOR": "METEOR 1.0 (nltk on WordNet 3.0), not the Java METEOR 1.5 of USR's toolkit",
    "METEOR 1.5": "METEOR 1.5 (Java jar of pycocoevalcap 1.2), the METEOR of USR's toolkit",
}
# Our metric names that stand for a printed row under another name.
PAPER_METRICS = PRINTED_AS


def _rouge_options(rouge_type: str) -> dict[str, Any]:
    separator = SENTENCE_SEPARATOR if rouge_type == "rougeLsum" else None
    return {"use_stemmer": True, "sentence_separator": separator}


def summeval_scores(tables: Mapping[str, PathLike], cache: Path, out: PathLike) -> None:
    """ROUGE-1/2/L of every SummEval summary under each reference variant -> long parquet.
    ``tables``: the tidy tables ``summeval`` and ``summeval_references``."""
    table = pd.read_parquet(tables["summeval"])
    multi = summeval_references(table, pd.read_parquet(tables["summeval_references"]))
    outputs = table["system_output"].tolist()
    log.info("scoring %d summaries against %d references each", len(outputs), len(multi[0]))
    single = table["reference"].tolist()
    # The multi-reference list starts with summeval.json's reference: score each pair once.
    single_is_first = single == [refs[0] for refs in multi]
    # One pass for the three types: the " . " sentence split only changes rougeLsum.
    log.info("%s ...", ", ".join(ROUGE_TYPES))
    by_type = rouge_f_per_reference_by_type(
        outputs, multi, list(ROUGE_TYPES.values()), **_rouge_options("rougeLsum")
    )
    parts = []
    for metric, rouge_type in ROUGE_TYPES.items():
        options = _rouge_options(rouge_type)
        per_reference = by_type[rouge_type]
        variants = {
            "1 reference (summeval.json)": per_reference[:, 0]
            if single_is_first
            else rouge_f(outputs, single, rouge_type, **options),
            "11 references, mean": per_reference.mean(axis=1),
            "11 references, max": per_reference.max(axis=1),
        }
        for variant, scores in variants.items():
            parts.append(
                table[["doc_id", "system_id"]].assign(metric=metric, variant=variant, score=scores)
            )
    write_parquet(pd.concat(parts, ignore_index=True), out)


def _timed(score: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    """``score()`` and its wall time in seconds."""
    started = time.perf_counter()
    return score(), time.perf_counter() - started


def topical_chat_scores(tables: Mapping[str, PathLike], cache: Path, out: PathLike) -> None:
    """ROUGE-L, BLEU-4 and METEOR of each non-ground-truth response -> long parquet.
    ``tables``: the tidy table ``topical_chat``; ``cache``: where nltk's WordNet goes."""
    benchmark = get_benchmark("topical_chat")
    table = pd.read_parquet(tables[benchmark.name])
    table = table.assign(reference=topical_chat_references(table))
    table = table.loc[table["system_id"] != GROUND_TRUTH_SYSTEM]
    responses, refs = table["response"].tolist(), table["reference"].tolist()
    log.info("scoring %d responses (ROUGE-L, BLEU-4, METEOR, METEOR 1.5)", len(responses))
    metrics = {
        "ROUGE-L": lambda: rouge_f(responses, refs, "rougeL", tokenizer="whitespace", beta=1.2),
        "BLEU-4": lambda: sentence_bleu(responses, refs, smooth_method="coco", tokenize="none"),
        "METEOR": lambda: meteor(responses, refs, wordnet=debian_wordnet(Path(cache) / "nltk")),
    }
    # METEOR 1.5's Java process (~12 s to load its paraphrase table) runs while this thread
    # scores the Python metrics; the helper thread mostly waits on the process's pipes. Only
    # this thread logs: the job log (geval_repro.pipeline.jobs) keeps the records of the
    # job's thread.
    scores = {}
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="meteor-1.5") as pool:
        log.info("METEOR 1.5: Java jar started, scoring in the background")
        java = pool.submit(_timed, lambda: meteor_coco(responses, refs))
        for metric, score in metrics.items():
            scores[metric], seconds = _timed(score)
            log.info("%s: %.1f s", metric, seconds)
        scores["METEOR 1.5"], seconds = java.result()
        log.info("METEOR 1.5: %.1f s (alongside the metrics above)", seconds)
    parts = [
        table[["item_id", "context_id", "system_id"]].assign(
            metric=metric,
            variant=benchmark.baselines.protocol_variant,  # type: ignore[union-attr]
            score=values,
        )
        for metric, values in scores.items()
    ]
    write_parquet(pd.concat(parts, ignore_index=True), out)


def qags_scores(tables: Mapping[str, PathLike], cache: Path, out: PathLike) -> None:
    """ROUGE-2 and ROUGE-L between each QAGS summary and its source -> long parquet, one
    ``subset`` per benchmark of the family. ``tables``: the family's tidy tables."""
    parts = []
    for name in BASELINE_FAMILIES["qags"]:
        baselines = get_benchmark(name).baselines
        assert baselines is not None  # a member of a baseline family
        table = pd.read_parquet(tables[name])
        log.info("%s: scoring %d summaries against their sources", name, len(table))
        for metric in ("ROUGE-2", "ROUGE-L"):
            rouge_type = ROUGE_TYPES[metric]
            values = rouge_f(
                table["summary"].tolist(),
                table["source"].tolist(),
                rouge_type,
                **_rouge_options(rouge_type),
            )
            parts.append(
                table[["item_id"]].assign(
                    subset=baselines.subset,
                    metric=metric,
                    variant=baselines.protocol_variant,
                    score=values,
                )
            )
    write_parquet(pd.concat(parts, ignore_index=True), out)


#: baseline family -> the function that writes its per-item scores (``tables``: the tidy
#: tables of :func:`geval_repro.registry.benchmarks.baseline_inputs` by name; ``cache``:
#: the run's cache folder; ``out``: the parquet file).
SCORERS: dict[str, Callable[[Mapping[str, PathLike], Path, PathLike], None]] = {
    "summeval": summeval_scores,
    "topical_chat": topical_chat_scores,
    "qags": qags_scores,
}


def baseline_scores(
    family: str, tables: Mapping[str, PathLike], cache: PathLike, out: PathLike
) -> None:
    """The per-item scores of one baseline family (:data:`SCORERS`) -> a parquet."""
    SCORERS[family](tables, Path(cache), out)


def baseline_rows_from_config(
    tables: dict[str, str], scores: dict[str, str], config: dict[str, Any], out: str
) -> None:
    """:func:`baseline_rows` with the settings made from the run's ``config``."""
    baseline_rows(tables, scores, Settings.from_config(config), out)


#: :func:`baseline_rows_from_config` in a process of its own
#: (:mod:`geval_repro.pipeline.processes`): seconds of pandas and bootstraps that in a job
#: thread would hold the interpreter lock every other job thread of the run needs.
baseline_rows_job = in_own_process(baseline_rows_from_config)


def baseline_rows(
    tables: Mapping[str, PathLike],
    scores: Mapping[str, PathLike],
    settings: Settings,
    out: PathLike,
) -> None:
    """Correlation rows of every baseline variant of every benchmark with baselines, with
    AVG rows, next to the paper -> a row file. ``tables``: each such benchmark's tidy table
    by name; ``scores``: each baseline family's per-item scores."""
    parts = []
    families = {family: pd.read_parquet(path) for family, path in scores.items()}
    with_baselines = [b for b in BENCHMARKS.values() if b.baselines is not None]
    for benchmark in tqdm(with_baselines, desc="baseline rows"):
        baselines = benchmark.baselines
        assert baselines is not None
        human = pd.read_parquet(tables[benchmark.name])
        family = families[baselines.family]
        mine = family if baselines.subset is None else family[family["subset"] == baselines.subset]
        keys = list(benchmark.item_keys)
        log.info("%s: %d human rows, %d baseline scores", benchmark.name, len(human), len(mine))
        several = mine["variant"].nunique() > 1
        notes = {
            **(
                {baselines.protocol_variant: "the variant of the paper's protocol"}
                if several
                else {}
            ),
            **METRIC_NOTES,
        }
        for (metric, variant), group in mine.groupby(["metric", "variant"], sort=True):
            table = human.merge(group[[*keys, "score"]], on=keys)
            for dimension in benchmark.dimension_names:
                parts.append(
                    table_rows(
                        table,
                        benchmark=benchmark,
                        dimension=dimension,
                        metric=metric,
                        variant=variant,
                        metric_column="score",
                        human_column=dimension,
                        n_resamples=settings.bootstrap_resamples,
                        seed=settings.seed,
                        note=notes.get(variant, notes.get(metric, "")),
                        paper_metric=PAPER_METRICS.get(metric),
                    )
                )
    rows = pd.concat(parts, ignore_index=True)
    write_rows(pd.concat([rows, average_rows(rows, PAPER_METRICS)], ignore_index=True), out)
