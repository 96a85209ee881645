"""Model-free baseline metrics (ROUGE, BLEU-4, METEOR) and the references each benchmark uses.

Score functions take lists of hypothesis and reference strings and return numpy arrays, one
score per hypothesis; which reference and which variant reproduces each published row is
documented in docs/baselines.md. :mod:`.surface` holds reference-free measures of a summary
(length, novel n-grams against its source).

Imports nothing of the package.
"""

#: The model-free baselines this toolkit recomputes, as named in the correlation rows.
BASELINE_METRICS: tuple[str, ...] = (
    "ROUGE-1",
    "ROUGE-2",
    "ROUGE-L",
    "BLEU-4",
    "METEOR",
    "METEOR 1.5",
)

#: Per benchmark, the variant of its baselines whose rows the paper prints (which reference
#: and settings reproduce them: docs/baselines.md); other variants are shown for comparison.
PROTOCOL_VARIANTS: dict[str, str] = {
    "summeval": "11 references, mean",
    "topical_chat": "vs original ground truth, 300 responses (USR protocol)",
    "qags_cnndm": "vs source document",
    "qags_xsum": "vs source document",
}

#: Our baseline names that face another printed name: USR's METEOR is METEOR 1.5 (the Java
#: jar); nltk's METEOR 1.0 keeps the name "METEOR" and faces the same printed row.
PRINTED_AS: dict[str, str] = {"METEOR 1.5": "METEOR"}
#: Where two of our metrics face one printed row, the one that reproduces it.
PROTOCOL_METRICS: dict[str, str] = {"METEOR": "METEOR 1.5"}
