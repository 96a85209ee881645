"""The baseline protocols: how the papers behind the G-Eval paper's baseline rows scored a
benchmark's texts, each a function ``(table, references, cache, variant) -> scores``.

``table`` is the benchmark's tidy table, ``references`` its further table of references
(None when the protocol reads none), ``cache`` the run's cache folder (nltk's WordNet) and
``variant`` the name of the protocol's own variant in the rows; each returns one row per
scored item and metric variant: the item's key columns, ``metric``, ``variant``, ``score``.
The registry names them (:data:`geval_repro.registry.baselines.BASELINES`); sources and the
numbers they reproduce in docs/baselines.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from geval_repro.baselines.bleu import sentence_bleu
from geval_repro.baselines.meteor import debian_wordnet, meteor
from geval_repro.baselines.meteor_java import meteor_coco
from geval_repro.baselines.references import (
    GROUND_TRUTH_SYSTEM,
    summeval_references,
    topical_chat_references,
)
from geval_repro.baselines.rouge import rouge_f, rouge_f_by_type, rouge_f_per_reference_by_type

log = logging.getLogger(__name__)

ROUGE_TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum"}
#: ROUGE-1.5.5's sentence split of a summary for the summary-level ROUGE-L.
SENTENCE_SEPARATOR = " . "


def _rouge_options(rouge_type: str) -> dict[str, Any]:
    separator = SENTENCE_SEPARATOR if rouge_type == "rougeLsum" else None
    return {"use_stemmer": True, "sentence_separator": separator}


def multiref_rouge(
    table: pd.DataFrame, references: pd.DataFrame | None, cache: Path, variant: str
) -> pd.DataFrame:
    """ROUGE-1/2/L F1 (Porter stemming; ROUGE-L summary-level over sentences split at " . ")
    of every summary (``system_output``) against (a) the single reference of its row
    (``reference``), (b) the mean and (c) the max over every reference of its document
    (``references``: one row per ``doc_id`` and ``ref_index``). (b) is BARTScore's protocol
    (``variant`` names it; the names assume SummEval's 11 references, which
    :func:`~geval_repro.baselines.references.summeval_references` reads); the rows' keys
    ``doc_id, system_id``."""
    assert references is not None, "multiref_rouge reads the benchmark's references"
    multi = summeval_references(table, references)
    outputs = table["system_output"].tolist()
    log.info("scoring %d summaries against %d references each", len(outputs), len(multi[0]))
    single = table["reference"].tolist()
    # The multi-reference list starts with the row's own reference: score each pair once.
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
        for name, scores in variants.items():
            parts.append(
                table[["doc_id", "system_id"]].assign(metric=metric, variant=name, score=scores)
            )
    return pd.concat(parts, ignore_index=True)


def _timed(score: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    """``score()`` and its wall time in seconds."""
    started = time.perf_counter()
    return score(), time.perf_counter() - started


def usr_word_overlap(
    table: pd.DataFrame, references: pd.DataFrame | None, cache: Path, variant: str
) -> pd.DataFrame:
    """USR's word-overlap baselines (Mehri and Eskenazi, 2020): ROUGE-L (COCO: whitespace
    tokens, beta 1.2), BLEU-4 (COCO smoothing) and METEOR (METEOR 1.5, the Java jar of the
    COCO toolkit, as "METEOR 1.5"; nltk's METEOR 1.0 on WordNet 3.0, as "METEOR") of each
    ``response`` against its context's original ground-truth response, the ground-truth rows
    left out; the rows' keys ``item_id, context_id, system_id``."""
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
    # scores the Python metrics; the helper thread mostly waits on the process's pipes.
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
            metric=metric, variant=variant, score=values
        )
        for metric, values in scores.items()
    ]
    return pd.concat(parts, ignore_index=True)


def rouge_against_source(
    table: pd.DataFrame, references: pd.DataFrame | None, cache: Path, variant: str
) -> pd.DataFrame:
    """ROUGE-2 and ROUGE-L (stemmed; ROUGE-L summary-level) between each ``summary`` and its
    ``source`` (QAGS's protocol); the rows' key ``item_id``."""
    log.info("scoring %d summaries against their sources", len(table))
    parts = []
    for metric in ("ROUGE-2", "ROUGE-L"):
        rouge_type = ROUGE_TYPES[metric]
        values = rouge_f(
            table["summary"].tolist(),
            table["source"].tolist(),
            rouge_type,
            **_rouge_options(rouge_type),
        )
        parts.append(table[["item_id"]].assign(metric=metric, variant=variant, score=values))
    return pd.concat(parts, ignore_index=True)


#: The released metric columns of a tidy table (DialSummEval's ``released:<metric>``).
RELEASED_PREFIX = "released:"
#: The variant of the authors' released scores in the rows.
RELEASED_VARIANT = "released by the authors"
#: The released ROUGE columns, by the name of the recomputed metric they stand beside.
RELEASED_ROUGE = {"ROUGE-1": "rouge-1", "ROUGE-2": "rouge-2", "ROUGE-L": "rouge-l"}


def rouge_vs_reference_and_released(
    table: pd.DataFrame, references: pd.DataFrame | None, cache: Path, variant: str
) -> pd.DataFrame:
    """ROUGE-1/2/L F1 of each ``summary`` against its row's ``reference``, recomputed with
    SummEval's protocol (Porter stemming; ROUGE-L summary-level over sentences split at
    " . "), as ``variant``; beside them every released metric column
    (``released:<metric>``) as it is, as :data:`RELEASED_VARIANT`, the released ROUGE
    columns named as the recomputed ones (:data:`RELEASED_ROUGE`) so their rows sit side by
    side. The rows' keys ``doc_id, system_id``."""
    keys = table[["doc_id", "system_id"]]
    summaries, refs = table["summary"].tolist(), table["reference"].tolist()
    log.info("scoring %d summaries against their references", len(summaries))
    # One pass for the three types: the " . " sentence split only changes rougeLsum.
    by_type = rouge_f_by_type(
        summaries, refs, list(ROUGE_TYPES.values()), **_rouge_options("rougeLsum")
    )
    parts = [
        keys.assign(metric=metric, variant=variant, score=by_type[rouge_type])
        for metric, rouge_type in ROUGE_TYPES.items()
    ]
    names = {column: metric for metric, column in RELEASED_ROUGE.items()}
    for column in (c for c in table.columns if c.startswith(RELEASED_PREFIX)):
        released = column.removeprefix(RELEASED_PREFIX)
        metric = names.get(released, released)
        parts.append(keys.assign(metric=metric, variant=RELEASED_VARIANT, score=table[column]))
    return pd.concat(parts, ignore_index=True)


def word_overlap_against_reference(
    table: pd.DataFrame, references: pd.DataFrame | None, cache: Path, variant: str
) -> pd.DataFrame:
    """BLEU-4 (COCO smoothing, whitespace tokens), ROUGE-L (COCO: whitespace tokens, beta
    1.2) and METEOR (nltk's METEOR 1.0 on WordNet 3.0) of each ``utterance`` against its
    dialogue act's ``reference`` utterance, the word-overlap metrics of the data-to-text
    literature (Novikova et al. 2017) as USR's protocol computes them; the rows' key
    ``item_id``."""
    outputs, refs = table["utterance"].tolist(), table["reference"].tolist()
    log.info("scoring %d utterances against their references (BLEU-4, ROUGE-L, METEOR)", len(refs))
    scores = {
        "BLEU-4": sentence_bleu(outputs, refs, smooth_method="coco", tokenize="none"),
        "ROUGE-L": rouge_f(outputs, refs, "rougeL", tokenizer="whitespace", beta=1.2),
        "METEOR": meteor(outputs, refs, wordnet=debian_wordnet(Path(cache) / "nltk")),
    }
    parts = [
        table[["item_id"]].assign(metric=metric, variant=variant, score=values)
        for metric, values in scores.items()
    ]
    return pd.concat(parts, ignore_index=True)
