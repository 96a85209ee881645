"""Reference-free surface measures of a summary: its length and how much of it is new.

- :func:`word_counts`: words per text, a word being a maximal run of non-whitespace
  characters (``len(text.split())``); verbosity is a known bias of LLM judges, so the
  length is the first thing to compare a judge's preferences with.
- :func:`novel_ngram_shares`: the share of a summary's word n-grams (lower-cased ``\\w+``
  tokens, n = 2 by default, counted with repetition) that do not occur in its source: 0
  for a summary copied from its source, 1 for one that shares no n-gram with it (the
  "novel n-grams" measure of abstractiveness; Narayan et al. 2018, Grusky et al. 2018).
  NaN for a summary with fewer than n tokens.

Score functions take lists of strings and return numpy arrays, one score per summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

_TOKEN = re.compile(r"\w+")


def word_counts(texts: Sequence[str]) -> np.ndarray:
    """Whitespace-separated words per text (float, for the score tables)."""
    return np.array([len(text.split()) for text in texts], dtype=float)


def _ngrams(text: str, n: int) -> list[tuple[str, ...]]:
    tokens = _TOKEN.findall(text.lower())
    return list(zip(*(tokens[i:] for i in range(n)), strict=False))


def novel_ngram_shares(summaries: Sequence[str], sources: Sequence[str], n: int = 2) -> np.ndarray:
    """Per summary, the share of its n-grams (with repetition) absent from its source."""
    if len(summaries) != len(sources):
        raise ValueError(f"{len(summaries)} summaries but {len(sources)} sources")
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    shares = np.full(len(summaries), np.nan)
    for index, (summary, source) in enumerate(zip(summaries, sources, strict=True)):
        grams = _ngrams(summary, n)
        if grams:
            seen = set(_ngrams(source, n))
            shares[index] = sum(gram not in seen for gram in grams) / len(grams)
    return shares
