"""SummEval with 11 references per document (neulab/BARTScore ``SUM/SummEval/data.pkl``).

The pickle holds ``{doc_id: {"src": str, "ref_summ": str, "ref_summs": [11 str],
"sys_summs": {system_id: {"sys_summ": str, "scores": {dimension: float}}}}}`` for the 100
SummEval documents. ``ref_summs[0]`` is the original CNN/DailyMail highlight (the
``reference`` of summeval.json); the other ten are the crowd-written references collected by
SummEval (Fabbri et al., 2021).

Pickles can run arbitrary code when loaded, so the file is read with
:class:`RestrictedUnpickler`, which refuses every global (class or function) lookup. Only the
built-in containers and scalars the pickle opcodes create directly can load; the result is
then checked against the structure above.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import NoReturn

import pandas as pd

from geval_repro.load.schemas import MULTIREF, MULTIREF_N_REFS, UPSTREAM_FIX, validate_table


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that refuses to look up any global, so no callable can ever be invoked."""

    def find_class(self, module: str, name: str) -> NoReturn:
        raise pickle.UnpicklingError(
            f"refused to load the global {module}.{name}: only dict, list, str, float, int, "
            "bool and None may appear in this pickle"
        )


def _require(condition: bool, path: str | Path, where: str, expected: str) -> None:
    if not condition:
        raise ValueError(f"{path}: {where} is not {expected}. Fix: {UPSTREAM_FIX}.")


def read_multiref_pickle(path: str | Path) -> dict[str, dict]:
    """The pickle's dictionary, loaded without globals and checked to have the expected shape.

    A refused global, a truncated or corrupt pickle and any deviation from the documented
    structure raise ``ValueError`` naming the file (and the global or the document). A
    corrupt pickle can fail in the unpickler with almost any exception (``UnicodeDecodeError``
    from a damaged string, ``TypeError`` or ``AttributeError`` from a damaged opcode stream,
    ``MemoryError`` from a damaged length), so every exception raised while loading is one.
    """
    with open(path, "rb") as handle:
        try:
            data = RestrictedUnpickler(handle).load()
        except pickle.UnpicklingError as error:
            raise ValueError(
                f"{path}: {error}. Fix: do not use this file; {UPSTREAM_FIX}."
            ) from None
        except EOFError:
            raise ValueError(
                f"{path}: truncated pickle. Fix: do not use this file; {UPSTREAM_FIX}."
            ) from None
        except Exception as error:  # any failure of a corrupt stream means a corrupt file
            raise ValueError(
                f"{path}: corrupt pickle ({type(error).__name__}: {error}). "
                f"Fix: do not use this file; {UPSTREAM_FIX}."
            ) from None
    _require(isinstance(data, dict), path, "the top level", "a dict of documents")
    for doc_id, doc in data.items():
        where = f"document {doc_id!r}"
        _require(isinstance(doc_id, str), path, f"key {doc_id!r}", "a str doc_id")
        _require(
            isinstance(doc, dict) and {"src", "ref_summ", "ref_summs", "sys_summs"} <= set(doc),
            path,
            where,
            "a dict with src, ref_summ, ref_summs and sys_summs",
        )
        refs = doc["ref_summs"]
        _require(
            isinstance(refs, list) and all(isinstance(ref, str) for ref in refs),
            path,
            f"{where} ref_summs",
            "a list of str",
        )
        _require(isinstance(doc["src"], str), path, f"{where} src", "a str")
        _require(isinstance(doc["ref_summ"], str), path, f"{where} ref_summ", "a str")
        _require(isinstance(doc["sys_summs"], dict), path, f"{where} sys_summs", "a dict")
        for system_id, summary in doc["sys_summs"].items():
            _require(
                isinstance(summary, dict)
                and isinstance(summary.get("sys_summ"), str)
                and isinstance(summary.get("scores"), dict)
                and all(
                    isinstance(v, float | int) and not isinstance(v, bool)
                    for v in summary["scores"].values()
                ),
                path,
                f"{where} system {system_id!r}",
                "a dict with a str sys_summ and a dict of numeric scores",
            )
    return data


def load_multiref(path: str | Path) -> pd.DataFrame:
    """The multi-reference table: doc_id, ref_index (0..10, the pickle's order), reference.

    1,100 rows = 100 documents x 11 references; ref_index 0 is the original CNN/DailyMail
    reference.
    """
    data = read_multiref_pickle(path)
    for doc_id, doc in data.items():
        if len(doc["ref_summs"]) != MULTIREF_N_REFS:
            raise ValueError(
                f"{path}: document {doc_id!r} has {len(doc['ref_summs'])} references, "
                f"not {MULTIREF_N_REFS}. Fix: {UPSTREAM_FIX}."
            )
    table = pd.DataFrame(
        [
            (doc_id, ref_index, reference)
            for doc_id, doc in data.items()
            for ref_index, reference in enumerate(doc["ref_summs"])
        ],
        columns=["doc_id", "ref_index", "reference"],
    ).astype({"ref_index": "int64"})
    return validate_table(table, MULTIREF, path, ["doc_id", "ref_index"])
