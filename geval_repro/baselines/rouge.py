"""ROUGE F-measures as Google's ``rouge-score`` 0.1.2 computes them, scored by ``rouge-score-rs``.

``rouge-score-rs`` (the Python package of the Rust crate ``rougers``) is an independent
implementation of ``rouge-score`` (same tokenizer, NLTK's Porter stemmer, LCS and
summary-level LCS): tests/test_baselines_rouge_reference.py checks that it returns
bit-identical precision and recall to ``rouge-score`` on every pair the pipeline scores
(SummEval against 1 and 11 references, Topical-Chat, QAGS), with ``rouge-score`` kept as the
test's reference. It is ~25x faster; with the default tokenizer each batch of pairs is
tokenized, stemmed and scored natively (RAYON_NUM_THREADS bounds its threads).

Each function scores hypotheses against references pair by pair and returns one
F-measure per hypothesis as a float array: ``F_beta = (1 + beta^2) P R / (R + beta^2 P)``
(0 when P = R = 0) from rouge-score's precision P and recall R. ``beta = 1`` is the usual
F1 (rouge-score's ``fmeasure``); ``beta = 1.2`` is the ROUGE-L of the MS-COCO caption
evaluation code (pycocoevalcap ``rouge.py``), used by USR's dialogue baselines.

Tokenizers:

- ``"default"``: rouge-score's own: lowercase, every character outside ``[a-z0-9]``
  becomes a space, whitespace split; ``use_stemmer=True`` applies the Porter stemmer to
  tokens longer than 3 characters (ROUGE-1.5.5's ``-m``).
- ``"whitespace"``: split on whitespace only, case and punctuation tokens kept (pycocoevalcap
  on pre-tokenized text); ``use_stemmer`` must be False.

ROUGE types: ``rouge1``/``rouge2`` count clipped n-gram overlaps; ``rougeL`` is the LCS of
the whole texts; ``rougeLsum`` is the summary-level union LCS of Lin (2004) over sentences,
which the official ROUGE-1.5.5 script reports as ROUGE-L when texts are given one sentence
per line. rouge-score reads sentences from newlines, so ``sentence_separator`` (for example
``" . "``, the split BARTScore's ROUGE wrapper applies to the tokenized SummEval texts)
first rewrites each text one sentence per line; it only changes ``rougeLsum``.

Multi-reference aggregation (:func:`rouge_f_multi`): score the hypothesis against each
reference separately, then take the mean or the max over references (BARTScore's SummEval
protocol stores both; its README says "we take the average"; see docs/baselines.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from rouge_score_rs import rouge_scorer, tokenizers

from geval_repro.baselines.references import check_pairs

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
TOKENIZERS = ("default", "whitespace")
Aggregate = Literal["mean", "max"]


class WhitespaceTokenizer(tokenizers.Tokenizer):
    """``str.split()``: tokens as they are (pycocoevalcap on pre-tokenized text)."""

    def tokenize(self, text: str) -> list[str]:
        return text.split()


def scorer_for(
    rouge_types: Sequence[str], tokenizer: str, use_stemmer: bool
) -> rouge_scorer.RougeScorer:
    """A scorer of ROUGE types: rouge-score's default tokenizer (native) or whitespace."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}: use one of {TOKENIZERS}")
    if tokenizer == "default":
        return rouge_scorer.RougeScorer(list(rouge_types), use_stemmer=use_stemmer)
    if use_stemmer:
        raise ValueError("the whitespace tokenizer does not stem: pass use_stemmer=False")
    return rouge_scorer.RougeScorer(list(rouge_types), tokenizer=WhitespaceTokenizer())


def f_beta(precision: np.ndarray, recall: np.ndarray, beta: float) -> np.ndarray:
    """``(1 + beta^2) P R / (R + beta^2 P)``, 0 where P = R = 0."""
    precision = np.asarray(precision, dtype=float)
    recall = np.asarray(recall, dtype=float)
    denominator = recall + beta**2 * precision
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (1 + beta**2) * precision * recall / denominator
    return np.where(denominator > 0, score, 0.0)


def one_sentence_per_line(text: str, separator: str) -> str:
    """``text`` split at ``separator`` into sentences, one per line, each ending in " .".

    Mirrors BARTScore's ``sent_no_tag`` (``text.split(" . ")``, then " ." appended to every
    piece): with ``separator=" . "`` the tokens are unchanged, only line breaks are added.
    """
    marker = separator.strip()
    return "\n".join(f"{piece} {marker}" for piece in text.split(separator))


def rouge_f_by_type(
    hypotheses: Sequence[str],
    references: Sequence[str],
    rouge_types: Sequence[str],
    *,
    use_stemmer: bool = False,
    tokenizer: str = "default",
    beta: float = 1.0,
    sentence_separator: str | None = None,
) -> dict[str, np.ndarray]:
    """:func:`rouge_f` of several ROUGE types in one pass (each text tokenized once).

    Returns ``{rouge_type: shape (n,)}``. A ``sentence_separator`` only changes
    ``rougeLsum`` (see the module docstring), so the other types may share its pass.
    """
    unknown = [rouge_type for rouge_type in rouge_types if rouge_type not in ROUGE_TYPES]
    if unknown or not rouge_types:
        raise ValueError(f"unknown ROUGE type(s) {unknown}: use some of {ROUGE_TYPES}")
    check_pairs("rouge_f", hypotheses, references)
    scorer = scorer_for(rouge_types, tokenizer, use_stemmer)
    if sentence_separator is not None:
        hypotheses = [one_sentence_per_line(text, sentence_separator) for text in hypotheses]
        references = [one_sentence_per_line(text, sentence_separator) for text in references]
    results = scorer.score_batch(references, hypotheses)
    scores = {}
    for rouge_type in rouge_types:
        precision = np.array([result[rouge_type].precision for result in results], dtype=float)
        recall = np.array([result[rouge_type].recall for result in results], dtype=float)
        scores[rouge_type] = f_beta(precision, recall, beta)
    return scores


def rouge_f(
    hypotheses: Sequence[str],
    references: Sequence[str],
    rouge_type: str,
    **options: Any,
) -> np.ndarray:
    """ROUGE ``rouge_type`` F_beta of ``hypotheses[i]`` against ``references[i]``, shape (n,).

    ``rouge_type``: one of :data:`ROUGE_TYPES`. ``options`` (keyword): ``tokenizer``, one
    of :data:`TOKENIZERS` (default "default"); ``use_stemmer`` (False); ``beta`` (1.0);
    ``sentence_separator`` (None), applied to both texts first (see the module docstring).
    """
    if rouge_type not in ROUGE_TYPES:
        raise ValueError(f"unknown ROUGE type {rouge_type!r}: use one of {ROUGE_TYPES}")
    return rouge_f_by_type(hypotheses, references, (rouge_type,), **options)[rouge_type]


def rouge_f_per_reference_by_type(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rouge_types: Sequence[str],
    **options: Any,
) -> dict[str, np.ndarray]:
    """ROUGE F_beta of each hypothesis against each of its references, for each ROUGE type
    in one pass: ``{rouge_type: shape (n, n_refs)}``.

    ``references[i]`` lists the references of ``hypotheses[i]``; every hypothesis must have
    the same number of references (SummEval: 11). ``options``: those of :func:`rouge_f`.
    """
    if len(hypotheses) != len(references):
        raise ValueError(
            f"rouge_f_multi: {len(hypotheses)} hypotheses but {len(references)} reference lists"
        )
    counts = {len(refs) for refs in references}
    if len(counts) != 1 or 0 in counts:
        raise ValueError(
            "rouge_f_multi: every hypothesis needs the same, non-zero number of references; "
            f"got counts {sorted(counts)}"
        )
    n_refs = counts.pop()
    scores = rouge_f_by_type(
        [hypothesis for hypothesis in hypotheses for _ in range(n_refs)],
        [reference for refs in references for reference in refs],
        rouge_types,
        **options,
    )
    return {
        rouge_type: values.reshape(len(hypotheses), n_refs) for rouge_type, values in scores.items()
    }


def rouge_f_per_reference(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rouge_type: str,
    **options: Any,
) -> np.ndarray:
    """:func:`rouge_f_per_reference_by_type` of one ROUGE type: shape (n, n_refs)."""
    if rouge_type not in ROUGE_TYPES:
        raise ValueError(f"unknown ROUGE type {rouge_type!r}: use one of {ROUGE_TYPES}")
    return rouge_f_per_reference_by_type(hypotheses, references, (rouge_type,), **options)[
        rouge_type
    ]


def rouge_f_multi(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rouge_type: str,
    *,
    aggregate: Aggregate,
    **options: Any,
) -> np.ndarray:
    """ROUGE F_beta of each hypothesis against its references, ``mean`` or ``max`` over them.

    ``options``: those of :func:`rouge_f`. Returns shape (n,).
    """
    if aggregate not in ("mean", "max"):
        raise ValueError(f"unknown aggregate {aggregate!r}: use 'mean' or 'max'")
    scores = rouge_f_per_reference(hypotheses, references, rouge_type, **options)
    return scores.mean(axis=1) if aggregate == "mean" else scores.max(axis=1)
