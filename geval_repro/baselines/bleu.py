"""Sentence-level BLEU-4 with sacrebleu, one score per hypothesis on a 0-1 scale.

BLEU (Papineni et al., 2002) of one hypothesis against its reference(s):
``BP * exp(sum_{n=1..4} log(p_n) / 4)``, with ``p_n`` the clipped n-gram precision and the
brevity penalty ``BP = exp(1 - r/c)`` when the hypothesis length ``c`` is below the
(closest) reference length ``r``, else 1. A single sentence often has no matching 4-gram,
which makes the plain formula 0, so sentence-level BLEU needs a smoothing rule:

- sacrebleu's ``smooth_method`` (Chen and Cherry, 2014, as implemented by sacrebleu):
  ``"exp"`` (sacrebleu's sentence-level default: the k-th zero precision becomes
  ``1 / (2^k * total_n)``), ``"floor"`` (a zero count becomes ``smooth_value``, default
  0.1), ``"add-k"`` (add ``smooth_value``, default 1, to counts and totals of n >= 2),
  ``"none"`` (unsmoothed: 0 whenever some precision is 0). sacrebleu's ``effective_order``
  is on, as in its ``sentence_bleu``: orders with no hypothesis n-gram (hypotheses shorter
  than 4 tokens) are left out of the mean.
- ``"coco"``: the per-sentence BLEU-4 of the MS-COCO caption evaluation code
  (pycocoevalcap ``bleu_scorer.py``, also used by Maluuba's nlg-eval):
  ``prod_n ((m_n + 1e-15) / (t_n + 1e-9))^(1/4)`` times ``exp(1 - 1/ratio)`` when
  ``ratio = (c + 1e-15) / (r + 1e-9) < 1``; all four orders always count. It is computed
  here from sacrebleu's sufficient statistics (matches ``m_n``, totals ``t_n``, lengths
  ``c``, ``r``), which do not depend on the smoothing or effective-order settings.

Tokenization: sacrebleu's ``tokenize`` (``"13a"``, its default; ``"none"`` splits on
whitespace only, the COCO code's behaviour on pre-tokenized text). Case is kept unless
``lowercase=True``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import BLEU

from geval_repro.baselines.references import check_pairs

SMOOTH_METHODS = ("exp", "floor", "add-k", "none", "coco")
COCO_TINY = 1e-15
COCO_SMALL = 1e-9
MAX_ORDER = 4


def _coco_bleu(counts: list[int], totals: list[int], sys_len: int, ref_len: int) -> float:
    """pycocoevalcap's per-sentence BLEU-4 from sufficient statistics (module docstring)."""
    precisions = (np.asarray(counts, float) + COCO_TINY) / (np.asarray(totals, float) + COCO_SMALL)
    score = float(np.prod(precisions) ** (1.0 / MAX_ORDER))
    ratio = (sys_len + COCO_TINY) / (ref_len + COCO_SMALL)
    return score * np.exp(1.0 - 1.0 / ratio) if ratio < 1 else score


def sentence_bleu(
    hypotheses: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    tokenize: str = "13a",
    lowercase: bool = False,
) -> np.ndarray:
    """BLEU-4 of ``hypotheses[i]`` against ``references[i]`` (a string or a list), 0-1 scale.

    Returns shape (n,). ``smooth_method``: one of :data:`SMOOTH_METHODS` (see the module
    docstring); ``smooth_value`` is passed to sacrebleu for "floor" and "add-k".
    """
    if smooth_method not in SMOOTH_METHODS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}: use one of {SMOOTH_METHODS}")
    check_pairs("sentence_bleu", hypotheses, references)
    coco = smooth_method == "coco"
    bleu = BLEU(
        lowercase=lowercase,
        tokenize=tokenize,
        smooth_method="none" if coco else smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=MAX_ORDER,
        effective_order=True,
    )
    scores = np.empty(len(hypotheses), dtype=float)
    for index, (hypothesis, reference) in enumerate(zip(hypotheses, references, strict=True)):
        refs = [reference] if isinstance(reference, str) else list(reference)
        result = bleu.sentence_score(hypothesis, refs)
        scores[index] = (
            _coco_bleu(result.counts, result.totals, result.sys_len, result.ref_len)
            if coco
            else result.score / 100.0
        )
    return scores
