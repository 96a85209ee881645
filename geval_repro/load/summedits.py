"""SummEdits (Laban et al., 2023; salesforce/factualNLG), factual consistency in 8 domains.

Each ``data/summedits/summedits_<domain>.json`` is a JSON list of items ``{id, doc, summary,
label, original_summary, edit_types, split}``: a document, a summary of it (the seed summary,
id ending ``_og``, or an edit of it, whose ``edit_types`` name the kinds of edit), and the
annotators' binary ``label`` (1: the summary is consistent with the document, 0: not), in
the ``evaluation`` or the ``test`` split. Every document's items are in one split; the
mirrored 8 domains hold 4,681 pairs of 162 documents (163 seed summaries: one QMSum
document has two) (counts per domain and split in
:data:`geval_repro.load.schemas.SUMMEDITS_COUNTS`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geval_repro.load.schemas import (
    SUMMEDITS,
    SUMMEDITS_COUNTS,
    SUMMEDITS_SPLITS,
    UPSTREAM_FIX,
    read_json,
    require_records,
    validate_table,
)

#: The fields every record of an upstream file holds.
RECORD_FIELDS = ("id", "doc", "summary", "label", "edit_types", "split")


def _domain_rows(path: Path, domain: str) -> pd.DataFrame:
    """One domain's items, checked one by one (a bad value names the file, the item and its
    id)."""
    records = require_records(read_json(path), RECORD_FIELDS, path)
    for index, record in enumerate(records):
        where = f"{path}: item {index} (id {record['id']!r})"
        label = record["label"]
        if isinstance(label, bool) or label not in (0, 1):
            raise ValueError(f"{where} has label {label!r}, not 0 or 1. Fix: {UPSTREAM_FIX}.")
        if record["split"] not in SUMMEDITS_SPLITS:
            raise ValueError(
                f"{where} has split {record['split']!r}, not one of {list(SUMMEDITS_SPLITS)}. "
                f"Fix: {UPSTREAM_FIX}."
            )
        for key in ("id", "doc", "summary"):
            if not isinstance(record[key], str) or not record[key].strip():
                raise ValueError(f"{where}: {key} is not a non-empty text. Fix: {UPSTREAM_FIX}.")
        edits = record["edit_types"]
        if not isinstance(edits, list) or not all(isinstance(e, str) for e in edits):
            raise ValueError(
                f"{where}: edit_types {edits!r} is not a list of texts. Fix: {UPSTREAM_FIX}."
            )
    documents = pd.Series([r["doc"] for r in records])
    return pd.DataFrame(
        {
            "domain": domain,
            "split": [r["split"] for r in records],
            "item_id": [f"{domain}/{r['id']}" for r in records],
            "doc_id": [f"{domain}/{k}" for k in pd.factorize(documents)[0]],
            "source": documents,
            "summary": [r["summary"] for r in records],
            "label": [int(r["label"]) for r in records],
            "seed": [r["id"].endswith("_og") for r in records],
            "edit_types": [",".join(r["edit_types"]) for r in records],
        }
    )


def load_summedits(*paths: str | Path) -> pd.DataFrame:
    """SummEdits' 4,681 pairs, one upstream file per domain in the registry's order
    (:data:`geval_repro.registry.benchmarks.SUMMEDITS_DOMAINS`), each in file order.

    Columns: domain, split (``evaluation`` or ``test``), item_id (``<domain>/<id>``),
    doc_id (``<domain>/<k>``: the k-th distinct document of the domain's file), source (the
    document: the column name QAGS's tidy tables give it), summary, label (1 consistent, 0
    not), seed (the unedited seed summary), edit_types (the edits' kinds, comma-separated;
    empty for a seed or an edit without a named kind).
    """
    if len(paths) != len(SUMMEDITS_COUNTS):
        raise ValueError(
            f"SummEdits is built from {len(SUMMEDITS_COUNTS)} files (one per domain: "
            f"{list(SUMMEDITS_COUNTS)}), got {len(paths)}"
        )
    frames = []
    for path, domain in zip(map(Path, paths), SUMMEDITS_COUNTS, strict=True):
        if path.name != f"summedits_{domain}.json":
            raise ValueError(
                f"{path}: expected SummEdits' {domain} file summedits_{domain}.json here "
                "(the registry's order of sources)"
            )
        frames.append(_domain_rows(path, domain))
    table = pd.concat(frames, ignore_index=True)
    return validate_table(table, SUMMEDITS, ", ".join(map(str, paths)), ["item_id", "doc_id"])
