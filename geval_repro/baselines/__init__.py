"""Model-free baseline metrics (ROUGE, BLEU-4, METEOR) and the references each benchmark uses.

Score functions take lists of hypothesis and reference strings and return numpy arrays, one
score per hypothesis; which reference and which variant reproduces each published row is
documented in docs/baselines.md (and each benchmark's variant of the paper's protocol in
its registry entry, :class:`geval_repro.registry.benchmarks.Baselines`). :mod:`.surface`
holds reference-free measures of a summary (length, novel n-grams against its source).

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

#: Our baseline names that face another printed name: USR's METEOR is METEOR 1.5 (the Java
#: jar); nltk's METEOR 1.0 keeps the name "METEOR" and faces the same printed row.
PRINTED_AS: dict[str, str] = {"METEOR 1.5": "METEOR"}
#: Where two of our metrics face one printed row, the one that reproduces it.
PROTOCOL_METRICS: dict[str, str] = {"METEOR": "METEOR 1.5"}
