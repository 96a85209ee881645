"""Which reference each baseline compares a hypothesis with, per benchmark.

- SummEval: the reference of summeval.json (one per document; it is reference 0 of the
  BARTScore pickle) or all 11 references of the BARTScore pickle (:func:`summeval_references`).
- Topical-Chat: the "Original Ground Truth" response of the same dialogue context, the
  reference of USR's word-overlap baselines (Mehri and Eskenazi, 2020), which then leave the
  ground-truth rows out of the correlation (:func:`topical_chat_references`).
- QAGS: the source article (UniEval's ``reference`` field repeats it).
See docs/baselines.md for the sources.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

GROUND_TRUTH_SYSTEM = "Original Ground Truth"


def check_pairs(metric: str, hypotheses: Sequence[object], references: Sequence[object]) -> None:
    """Raise unless there is one reference (or one list of references) per hypothesis."""
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{metric}: {len(hypotheses)} hypotheses but {len(references)} references; "
            "pass one reference (or one list of references) per hypothesis"
        )


def summeval_references(summaries: pd.DataFrame, multiref: pd.DataFrame) -> list[list[str]]:
    """For each row of ``summaries`` (needs doc_id), its document's references by ref_index.

    ``multiref``: the table of :func:`geval_repro.load.multiref.load_multiref`. A document
    of ``summaries`` without references is an error naming it.
    """
    by_doc = multiref.sort_values(["doc_id", "ref_index"]).groupby("doc_id")["reference"]
    references = by_doc.apply(list)
    missing = sorted(set(summaries["doc_id"]) - set(references.index))
    if missing:
        raise KeyError(
            f"summeval_references: {len(missing)} document(s) have no references in the "
            f"multi-reference table, e.g. {missing[:3]}; load both tables from the same release"
        )
    return references.loc[summaries["doc_id"]].tolist()


def topical_chat_references(
    table: pd.DataFrame,
    *,
    context: str = "context_id",
    system: str = "system_id",
    response: str = "response",
    ground_truth: str = GROUND_TRUTH_SYSTEM,
) -> pd.Series:
    """The ground-truth response of each row's dialogue context, indexed like ``table``.

    Every context must have exactly one row whose ``system`` is ``ground_truth``; otherwise
    a ValueError names the contexts. The ground-truth rows get themselves as reference; drop
    them (``table[system] != ground_truth``) before correlating, as USR did.
    """
    is_truth = table[system] == ground_truth
    per_context = is_truth.groupby(table[context]).sum()
    bad = per_context.index[per_context != 1].tolist()
    if bad:
        raise ValueError(
            f"topical_chat_references: context(s) {bad[:5]} have "
            f"{per_context[bad[:5]].tolist()} rows of system {ground_truth!r}; each context "
            "needs exactly one"
        )
    truth = table.loc[is_truth].set_index(context)[response]
    return pd.Series(truth.loc[table[context]].to_numpy(), index=table.index, name="reference")
