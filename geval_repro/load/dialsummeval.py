"""DialSummEval (Gao and Wan, NAACL 2022; kite99520/DialSummEval): dialogue summaries.

``annotation_campus/human_judgment.jsonl`` holds 1,400 records, one per summary: 100 SAMSum
test dialogues (``id``; ``dialogue``, its turns joined by ``|``) x 14 systems
(``model_id`` A-N, A being SAMSum's reference summary), each with the ``summary`` and a list
of three ``annotations``, one per annotator (the same three throughout, in the same order),
each rating ``coherence``, ``consistency``, ``fluency`` and ``relevance`` 1-5.

The authors' released scores of 32 automatic metrics, ``reproduce/analysis/models_eval_new/
<system>/metrics.csv``, hold one row per line of ``dials.txt`` (the dialogues, one per line)
and of ``<system>/summs.txt`` (that system's summaries), in an order of their own, not the
judgements': each judgement is matched to its row by its dialogue's text (a line of
dials.txt) and its summary's text (the same line of its system's summs.txt), and every one
of the 1,400 must match.

The tidy table keeps the 1,300 summaries of systems B-N: system A, the reference, is the
``reference`` column of each dialogue's rows (docs/protocol.md says why it is not an item).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.schemas import (
    DIALSUMMEVAL,
    DIALSUMMEVAL_ANNOTATORS,
    DIALSUMMEVAL_DIMENSIONS,
    DIALSUMMEVAL_N_ANNOTATORS,
    DIALSUMMEVAL_N_DIALOGUES,
    DIALSUMMEVAL_RELEASED_METRICS,
    UPSTREAM_FIX,
    read_csv,
    validate_table,
)
from geval_repro.registry.benchmarks import DIALSUMMEVAL_SYSTEMS

#: The fields every record of the judgement file holds.
RECORD_FIELDS = ("id", "dialogue", "summary", "annotations", "model_id")
DIMENSIONS = DIALSUMMEVAL_DIMENSIONS
#: The reference summary's system.
REFERENCE_SYSTEM = DIALSUMMEVAL_SYSTEMS[0]
#: The systems' names in the authors' analysis script (reproduce/analysis/analysis.py).
SYSTEM_NAMES = dict(
    zip(
        DIALSUMMEVAL_SYSTEMS,
        (
            "GOLD",
            "LONGEST_3",
            "LEAD_3",
            "PGN",
            "Transformer",
            "BART",
            "PEGASUS",
            "UniLM",
            "CODS",
            "ConvoSumm",
            "MV_BART",
            "PLM",
            "PNEP",
            "S_BART",
        ),
        strict=True,
    )
)
#: The tidy table's column of a released metric's score.
RELEASED_PREFIX = "released:"


def _where(record: dict, line: int) -> str:
    return f"line {line} (id={record.get('id')!r}, model_id={record.get('model_id')!r})"


def read_judgements(path: str | Path) -> list[dict]:
    """The judgement file's records, each checked: every field, a known system, three
    annotations each rating every dimension with an integer 1-5; 1,400 records, 100
    dialogues x 14 systems, each (dialogue, system) once."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise ValueError(
                    f"{path}: line {line} is not a JSON object ({error}). Fix: {UPSTREAM_FIX}."
                ) from None
            if not isinstance(record, dict) or any(k not in record for k in RECORD_FIELDS):
                raise ValueError(
                    f"{path}: line {line} lacks a field of {list(RECORD_FIELDS)}. "
                    f"Fix: {UPSTREAM_FIX}."
                )
            where = _where(record, line)
            if record["model_id"] not in SYSTEM_NAMES:
                raise ValueError(
                    f"{path}: {where}: model_id not one of {list(SYSTEM_NAMES)}. "
                    f"Fix: {UPSTREAM_FIX}."
                )
            annotations = record["annotations"]
            if not isinstance(annotations, list) or len(annotations) != DIALSUMMEVAL_N_ANNOTATORS:
                raise ValueError(
                    f"{path}: {where}: expected {DIALSUMMEVAL_N_ANNOTATORS} annotations, found "
                    f"{annotations!r}. Fix: {UPSTREAM_FIX}."
                )
            for position, annotation in enumerate(annotations, start=1):
                for dimension in DIMENSIONS:
                    value = annotation.get(dimension) if isinstance(annotation, dict) else None
                    if isinstance(value, bool) or value not in range(1, 6):
                        raise ValueError(
                            f"{path}: {where}: annotator {position}'s {dimension} is "
                            f"{value!r}, not an integer 1-5. Fix: {UPSTREAM_FIX}."
                        )
            record["line"] = line
            records.append(record)
    keys = [(r["id"], r["model_id"]) for r in records]
    if len(set(keys)) != len(keys):
        seen: set = set()
        (twice,) = [k for k in keys if k in seen or seen.add(k)][:1]
        raise ValueError(
            f"{path}: dialogue {twice[0]!r} has two summaries of system {twice[1]!r}. "
            f"Fix: {UPSTREAM_FIX}."
        )
    n_expected = DIALSUMMEVAL_N_DIALOGUES * len(SYSTEM_NAMES)
    dialogues = {r["id"] for r in records}
    if len(records) != n_expected or len(dialogues) != DIALSUMMEVAL_N_DIALOGUES:
        raise ValueError(
            f"{path}: {len(records)} records of {len(dialogues)} dialogues, expected "
            f"{n_expected} = {DIALSUMMEVAL_N_DIALOGUES} dialogues x {len(SYSTEM_NAMES)} "
            f"systems. Fix: {UPSTREAM_FIX}."
        )
    return records


def _lines(path: str | Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    if len(lines) != n:
        raise ValueError(f"{path}: {len(lines)} lines, expected {n}. Fix: {UPSTREAM_FIX}.")
    return lines


def turns(dialogue: str) -> str:
    """A dialogue of the judgement file (turns joined by ``|``) with one turn per line."""
    return "\n".join(turn.strip() for turn in dialogue.split("|") if turn.strip())


def released_scores(
    records: Sequence[dict],
    dials_path: str | Path,
    summs_paths: Sequence[str | Path],
    metrics_paths: Sequence[str | Path],
) -> np.ndarray:
    """The released metric scores of each record, ``(len(records), 32)`` in the order of
    :data:`DIALSUMMEVAL_RELEASED_METRICS`: its row of its system's metrics.csv, found by
    its dialogue's line in dials.txt, checked by its summary against the same line of its
    system's summs.txt. A record that matches no row, or a file of another shape, is an
    error naming it."""
    dialogues = _lines(dials_path, DIALSUMMEVAL_N_DIALOGUES)
    line_of = {text: index for index, text in enumerate(dialogues)}
    if len(line_of) != len(dialogues):
        raise ValueError(f"{dials_path}: a dialogue is listed twice. Fix: {UPSTREAM_FIX}.")
    summaries, metrics = {}, {}
    for system, summs, scores in zip(DIALSUMMEVAL_SYSTEMS, summs_paths, metrics_paths, strict=True):
        summaries[system] = _lines(summs, DIALSUMMEVAL_N_DIALOGUES)
        frame = read_csv(scores)
        if list(frame.columns) != list(DIALSUMMEVAL_RELEASED_METRICS) or len(frame) != len(
            dialogues
        ):
            raise ValueError(
                f"{scores}: expected {len(dialogues)} rows of the columns "
                f"{list(DIALSUMMEVAL_RELEASED_METRICS)}, found {len(frame)} rows of "
                f"{list(frame.columns)}. Fix: {UPSTREAM_FIX}."
            )
        values = frame.to_numpy(dtype=float)
        if not np.isfinite(values).all():
            row, column = np.argwhere(~np.isfinite(values))[0]
            raise ValueError(
                f"{scores}: row {row + 1} ({frame.columns[column]}) is {values[row, column]!r}, "
                f"not a finite number. Fix: {UPSTREAM_FIX}."
            )
        metrics[system] = values
    out = np.empty((len(records), len(DIALSUMMEVAL_RELEASED_METRICS)))
    summs_of = dict(zip(DIALSUMMEVAL_SYSTEMS, summs_paths, strict=True))
    for position, record in enumerate(records):
        system = record["model_id"]
        index = line_of.get(record["dialogue"])
        if index is None or summaries[system][index] != record["summary"]:
            text, where = (
                ("dialogue", dials_path)
                if index is None
                else (f"summary (line {index + 1})", summs_of[system])
            )
            raise ValueError(
                f"{where}: the {text} of the judgement file's {_where(record, record['line'])} "
                "is not there, so its released metric scores cannot be matched. "
                f"Fix: {UPSTREAM_FIX}."
            )
        out[position] = metrics[system][index]
    return out


def load_dialsummeval(judgements_path: str | Path, dials_path: str | Path, *paths: str | Path):
    """The DialSummEval table: one row per summary of systems B-N, 1,300 rows, in the
    judgement file's order.

    ``paths``: the 14 systems' summs.txt, then their metrics.csv (A-N each). Columns:
    doc_id (SAMSum id), system_id (A-N), system_name (the authors' name), dialogue (one turn
    per line), reference (system A's summary of the dialogue), summary; coherence,
    consistency, fluency, relevance (the mean of the three annotators, 1-5); one column
    ``released:<metric>`` per released metric (the authors' scores, matched on the texts).
    """
    n_systems = len(DIALSUMMEVAL_SYSTEMS)
    if len(paths) != 2 * n_systems:
        raise ValueError(
            f"DialSummEval reads {n_systems} summs.txt and {n_systems} metrics.csv, got "
            f"{len(paths)} files"
        )
    records = read_judgements(judgements_path)
    released = released_scores(records, dials_path, paths[:n_systems], paths[n_systems:])
    ratings = np.array(
        [[[a[d] for d in DIMENSIONS] for a in r["annotations"]] for r in records], dtype=float
    )
    table = pd.DataFrame(
        {
            "doc_id": [str(r["id"]) for r in records],
            "system_id": [r["model_id"] for r in records],
            "system_name": [SYSTEM_NAMES[r["model_id"]] for r in records],
            "dialogue": [turns(r["dialogue"]) for r in records],
            "summary": [r["summary"] for r in records],
        }
    )
    table[list(DIMENSIONS)] = ratings.mean(axis=1)
    table[[RELEASED_PREFIX + m for m in DIALSUMMEVAL_RELEASED_METRICS]] = released
    is_reference = table["system_id"] == REFERENCE_SYSTEM
    references = table.loc[is_reference].set_index("doc_id")["summary"]
    table = table.loc[~is_reference].reset_index(drop=True)
    table.insert(4, "reference", table["doc_id"].map(references))
    return validate_table(table, DIALSUMMEVAL, judgements_path, ["doc_id", "system_id"])


def load_dialsummeval_annotators(path: str | Path) -> pd.DataFrame:
    """Each annotator's ratings of the summaries of systems B-N in long form.

    Columns: doc_id, system_id, annotator (1-3, the position in ``annotations``), dimension,
    score (int 1-5). 15,600 rows = 1,300 summaries x 3 annotators x 4 dimensions.
    """
    records = [r for r in read_judgements(path) if r["model_id"] != REFERENCE_SYSTEM]
    table = pd.DataFrame(
        [
            (str(r["id"]), r["model_id"], annotator, dimension, int(a[dimension]))
            for r in records
            for annotator, a in enumerate(r["annotations"], start=1)
            for dimension in DIMENSIONS
        ],
        columns=["doc_id", "system_id", "annotator", "dimension", "score"],
    )
    return validate_table(
        table, DIALSUMMEVAL_ANNOTATORS, path, ["doc_id", "system_id", "annotator", "dimension"]
    )
