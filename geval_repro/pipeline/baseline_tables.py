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
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from geval_repro.baselines import PRINTED_AS, PROTOCOL_VARIANTS
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
from geval_repro.registry.benchmarks import dimensions_of
from geval_repro.report.table_files import write_rows
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import table_rows

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]
ROUGE_TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum"}
SENTENCE_SEPARATOR = " . "
SUMMEVAL_PROTOCOL = PROTOCOL_VARIANTS["summeval"]
TOPICAL_CHAT_VARIANT = PROTOCOL_VARIANTS["topical_chat"]
QAGS_VARIANT = PROTOCOL_VARIANTS["qags_cnndm"]
METRIC_NOTES = {
    "METEOR": "METEOR 1.0 (nltk on WordNet 3.0), not the Java METEOR 1.5 of USR's toolkit",
    "METEOR 1.5": "METEOR 1.5 (Java jar of pycocoevalcap 1.2), the METEOR of USR's toolkit",
}
# Our metric names that stand for a printed row under another name.
PAPER_METRICS = PRINTED_AS


def _rouge_options(rouge_type: str) -> dict[str, Any]:
    separator = SENTENCE_SEPARATOR if rouge_type == "rougeLsum" else None
    return {"use_stemmer": True, "sentence_separator": separator}


def summeval_scores(summeval: PathLike, references: PathLike, out: PathLike) -> None:
    """ROUGE-1/2/L of every SummEval summary under each reference variant -> long parquet."""
    table = pd.read_parquet(summeval)
    multi = summeval_references(table, pd.read_parquet(references))
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


def topical_chat_scores(topical_chat: PathLike, wordnet_cache: PathLike, out: PathLike) -> None:
    """ROUGE-L, BLEU-4 and METEOR of each non-ground-truth response -> long parquet."""
    table = pd.read_parquet(topical_chat)
    table = table.assign(reference=topical_chat_references(table))
    table = table.loc[table["system_id"] != GROUND_TRUTH_SYSTEM]
    responses, refs = table["response"].tolist(), table["reference"].tolist()
    log.info("scoring %d responses (ROUGE-L, BLEU-4, METEOR, METEOR 1.5)", len(responses))
    metrics = {
        "ROUGE-L": lambda: rouge_f(responses, refs, "rougeL", tokenizer="whitespace", beta=1.2),
        "BLEU-4": lambda: sentence_bleu(responses, refs, smooth_method="coco", tokenize="none"),
        "METEOR": lambda: meteor(responses, refs, wordnet=debian_wordnet(Path(wordnet_cache))),
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
            metric=metric, variant=TOPICAL_CHAT_VARIANT, score=values
        )
        for metric, values in scores.items()
    ]
    write_parquet(pd.concat(parts, ignore_index=True), out)


def qags_scores(qags: Mapping[str, PathLike], out: PathLike) -> None:
    """ROUGE-2 and ROUGE-L between each QAGS summary and its source -> long parquet."""
    parts = []
    for subset, path in qags.items():
        table = pd.read_parquet(path)
        log.info("qags_%s: scoring %d summaries against their sources", subset, len(table))
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
                    subset=subset, metric=metric, variant=QAGS_VARIANT, score=values
                )
            )
    write_parquet(pd.concat(parts, ignore_index=True), out)


def baseline_rows(
    summeval: PathLike,
    summeval_scores_path: PathLike,
    topical_chat: PathLike,
    topical_chat_scores_path: PathLike,
    qags_cnndm: PathLike,
    qags_xsum: PathLike,
    qags_scores_path: PathLike,
    settings: Settings,
    out: PathLike,
) -> None:
    """Correlation rows of every baseline variant, with AVG rows, next to the paper -> a row
    file."""
    qags = {"cnndm": qags_cnndm, "xsum": qags_xsum}
    # (benchmark, human table, scores file, join keys, level, inputs, dimensions)
    plans = [
        (
            "summeval",
            pd.read_parquet(summeval),
            pd.read_parquet(summeval_scores_path),
            ["doc_id", "system_id"],
            "summary",
            "doc_id",
        ),
        (
            "topical_chat",
            pd.read_parquet(topical_chat),
            pd.read_parquet(topical_chat_scores_path),
            ["item_id"],
            "global",
            "item_id",
        ),
    ]
    qags_scores = pd.read_parquet(qags_scores_path)
    for subset, path in qags.items():
        scores = qags_scores[qags_scores["subset"] == subset]
        plans.append(
            (f"qags_{subset}", pd.read_parquet(path), scores, ["item_id"], "global", "item_id")
        )
    parts = []
    for benchmark, human, scores, keys, level, inputs in tqdm(plans, desc="baseline rows"):
        log.info("%s: %d human rows, %d baseline scores", benchmark, len(human), len(scores))
        for (metric, variant), group in scores.groupby(["metric", "variant"], sort=True):
            table = human.merge(group[[*keys, "score"]], on=keys)
            notes = {SUMMEVAL_PROTOCOL: "the variant of the paper's protocol", **METRIC_NOTES}
            for dimension in dimensions_of(benchmark):
                parts.append(
                    table_rows(
                        table,
                        benchmark=benchmark,
                        dimension=dimension,
                        metric=metric,
                        variant=variant,
                        level=level,
                        metric_column="score",
                        human_column=dimension,
                        n_resamples=settings.bootstrap_resamples,
                        seed=settings.seed,
                        inputs=inputs,
                        note=notes.get(variant, notes.get(metric, "")),
                        paper_metric=PAPER_METRICS.get(metric),
                    )
                )
    rows = pd.concat(parts, ignore_index=True)
    write_rows(pd.concat([rows, average_rows(rows, PAPER_METRICS)], ignore_index=True), out)
