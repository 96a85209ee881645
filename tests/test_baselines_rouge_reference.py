"""``rouge-score-rs`` (what geval_repro.baselines.rouge scores with) against ``rouge-score``
0.1.2 (Google's package, the reference), bit for bit, on every pair the pipeline scores:
SummEval's 1,600 summaries against each of their 11 references (reference 0 is
summeval.json's single reference), Topical-Chat's 300 responses against the ground truth
(whitespace tokens, ROUGE-L, beta 1.2) and QAGS summaries against their sources, with the
pipeline's options (Porter stemming, ROUGE-L as rougeLsum over " . "-split sentences).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from nltk.stem import porter
from rouge_score import rouge_scorer, tokenizers
from rouge_score import tokenize as rouge_tokenize

from geval_repro.baselines.protocols import ROUGE_TYPES, SENTENCE_SEPARATOR
from geval_repro.baselines.references import summeval_references, topical_chat_references
from geval_repro.baselines.rouge import f_beta, one_sentence_per_line, rouge_f, rouge_f_by_type
from geval_repro.load.multiref import load_multiref
from geval_repro.load.qags import load_qags
from geval_repro.load.summeval import load_summeval
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.registry.sources import get_source

pytestmark = pytest.mark.slow


class WhitespaceTokenizer(tokenizers.Tokenizer):
    def tokenize(self, text: str) -> list[str]:
        return text.split()


class StemOnceTokenizer(tokenizers.Tokenizer):
    """rouge-score 0.1.2's ``DefaultTokenizer(use_stemmer=True)``, whose ``tokenize`` is
    ``rouge_score.tokenize.tokenize(text, nltk's PorterStemmer())``, with each distinct word
    stemmed once (a stem is a function of the word): nltk's Porter stemmer, in pure Python,
    was most of the reference's tokenizing time (about a million words, some thirty thousand
    distinct). Tested against ``DefaultTokenizer`` below."""

    def __init__(self) -> None:
        self.stem = functools.cache(porter.PorterStemmer().stem)

    def tokenize(self, text: str) -> list[str]:
        return rouge_tokenize.tokenize(text, self)


class OnceTokenizer(tokenizers.Tokenizer):
    """A rouge-score tokenizer that tokenizes each distinct text once (its tokens are a
    function of the text): SummEval scores each summary against 11 references and each
    reference against 16 summaries."""

    def __init__(self, tokenizer: tokenizers.Tokenizer) -> None:
        self._tokens = functools.cache(tokenizer.tokenize)

    def tokenize(self, text: str) -> list[str]:
        return list(self._tokens(text))


#: rouge-score's own LCS of two token lists (the indices into the first of one longest
#: common subsequence), which its summary-level ROUGE-L unions over the candidate sentences.
LCS_IND = rouge_scorer.lcs_ind


class LcsOnce:
    """rouge-score's ``lcs_ind`` (:data:`LCS_IND`) with each distinct pair of token lists
    computed once, for one call of :func:`reference_f` (an LCS is a function of the two
    lists): on SummEval's 17,600 pairs a third of ``rougeLsum``'s pairs of sentences are
    repeats (measured), each an O(n m) table in pure Python. Tested against ``LCS_IND``
    below."""

    def __init__(self) -> None:
        self._found: dict[tuple[tuple[str, ...], tuple[str, ...]], list[int]] = {}

    def __call__(self, ref: list[str], can: list[str]) -> list[int]:
        key = (tuple(ref), tuple(can))
        if key not in self._found:
            self._found[key] = LCS_IND(ref, can)
        return list(self._found[key])


@functools.cache
def reference_tokenizer(use_stemmer: bool, whitespace: bool) -> OnceTokenizer:
    """rouge-score's default tokenizer (what RougeScorer makes from ``use_stemmer``), or
    whitespace tokens, shared by the tests of this module."""
    if whitespace:
        return OnceTokenizer(WhitespaceTokenizer())
    if use_stemmer:
        return OnceTokenizer(StemOnceTokenizer())
    return OnceTokenizer(tokenizers.DefaultTokenizer(use_stemmer=False))


def reference_f(
    hypotheses: list[str],
    references: list[str],
    rouge_type: str,
    *,
    use_stemmer: bool = False,
    whitespace: bool = False,
    beta: float = 1.0,
    separator: str | None = None,
) -> np.ndarray:
    """F_beta from rouge-score 0.1.2's precision and recall, pair by pair."""
    tokenizer = reference_tokenizer(use_stemmer, whitespace)
    scorer = rouge_scorer.RougeScorer([rouge_type], tokenizer=tokenizer)
    if separator is not None:
        hypotheses = [one_sentence_per_line(text, separator) for text in hypotheses]
        references = [one_sentence_per_line(text, separator) for text in references]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rouge_scorer, "lcs_ind", LcsOnce())
        scores = [
            scorer.score(reference, hypothesis)[rouge_type]
            for hypothesis, reference in zip(hypotheses, references, strict=True)
        ]
    return f_beta([s.precision for s in scores], [s.recall for s in scores], beta)


def _path(mirror_dir: Path, source_id: str) -> Path:
    return mirror_dir / get_source(source_id).relpath


def _assert_identical(ours: np.ndarray, theirs: np.ndarray) -> None:
    differ = np.flatnonzero(ours != theirs)
    assert differ.size == 0, (
        f"{differ.size} of {ours.size} pairs differ, e.g. pair {differ[:5].tolist()}: "
        f"{ours[differ[:5]].tolist()} vs {theirs[differ[:5]].tolist()}"
    )


def test_stemming_once_tokenizes_as_rouge_scores_default_tokenizer(mirror_dir: Path) -> None:
    """The reference's tokens (:class:`StemOnceTokenizer`) are rouge-score's own, on texts of
    every benchmark the pipeline scores with stemming and on words the stemmer changes."""
    summeval = load_summeval(_path(mirror_dir, "summeval"))
    qags = load_qags(
        _path(mirror_dir, "qags_xsum"), _path(mirror_dir, "unieval_pred_qags_xsum"), "xsum"
    )
    texts = [
        *summeval["system_output"].drop_duplicates().iloc[::16].tolist(),
        *summeval["reference"].drop_duplicates().tolist()[:40],
        *qags["summary"].tolist()[:40],
        "Generously, the caresses of ponies agreed: relational hopefulness is conditional.",
        "Running runners ran; flies flying, ate 1,500 dying ladies' dresses.",
    ]
    once, default = StemOnceTokenizer(), tokenizers.DefaultTokenizer(use_stemmer=True)
    for text in [*texts, *texts]:  # the second pass from the stem cache
        assert once.tokenize(text) == default.tokenize(text), text


def test_lcs_once_is_rouge_scores_lcs() -> None:
    """:class:`LcsOnce` answers as rouge-score's ``lcs_ind``, for a pair seen before too (and
    a caller that changes an answer does not change the next)."""
    words = "the cat sat on the mat while a dog ate the cat food".split()
    pairs = [(words[i:], words[::j]) for i in range(4) for j in (1, 2, 3)] + [([], words)]
    once = LcsOnce()
    for ref, can in [*pairs, *pairs]:
        answer = once(ref, can)
        assert answer == LCS_IND(ref, can)
        answer.append(-1)


@pytest.mark.parametrize("metric", list(ROUGE_TYPES))
def test_summeval_all_references_identical(mirror_dir: Path, metric: str) -> None:
    table = load_summeval(_path(mirror_dir, "summeval"))
    multi = summeval_references(table, load_multiref(_path(mirror_dir, "summeval_multiref")))
    rouge_type = ROUGE_TYPES[metric]
    separator = SENTENCE_SEPARATOR if rouge_type == "rougeLsum" else None
    hypotheses = [h for h, refs in zip(table["system_output"], multi, strict=True) for _ in refs]
    references = [r for refs in multi for r in refs]
    assert len(references) == 1600 * 11
    options = {"use_stemmer": True}
    ours = rouge_f(hypotheses, references, rouge_type, sentence_separator=separator, **options)
    theirs = reference_f(hypotheses, references, rouge_type, separator=separator, **options)
    _assert_identical(ours, theirs)
    # As the pipeline scores them: the three types in one pass over the " . "-split texts.
    joint = rouge_f_by_type(
        hypotheses,
        references,
        list(ROUGE_TYPES.values()),
        sentence_separator=SENTENCE_SEPARATOR,
        **options,
    )
    _assert_identical(joint[rouge_type], theirs)
    single = table["reference"].tolist()
    ours_single = rouge_f(
        table["system_output"].tolist(), single, rouge_type, sentence_separator=separator, **options
    )
    _assert_identical(ours_single, theirs.reshape(1600, 11)[:, 0])


def test_topical_chat_identical(mirror_dir: Path) -> None:
    table = load_topical_chat(
        _path(mirror_dir, "topical_chat"), _path(mirror_dir, "unieval_pred_topical_chat")
    )
    responses = table["response"].tolist()
    references = topical_chat_references(table).tolist()
    ours = rouge_f(responses, references, "rougeL", tokenizer="whitespace", beta=1.2)
    theirs = reference_f(responses, references, "rougeL", whitespace=True, beta=1.2)
    _assert_identical(ours, theirs)


@pytest.mark.parametrize("subset", ["cnndm", "xsum"])
def test_qags_identical(mirror_dir: Path, subset: str) -> None:
    table = load_qags(
        _path(mirror_dir, f"qags_{subset}"),
        _path(mirror_dir, f"unieval_pred_qags_{subset}"),
        subset,
    )
    summaries, sources = table["summary"].tolist(), table["source"].tolist()
    for metric in ("ROUGE-2", "ROUGE-L"):
        rouge_type = ROUGE_TYPES[metric]
        separator = SENTENCE_SEPARATOR if rouge_type == "rougeLsum" else None
        ours = rouge_f(
            summaries, sources, rouge_type, use_stemmer=True, sentence_separator=separator
        )
        theirs = reference_f(summaries, sources, rouge_type, use_stemmer=True, separator=separator)
        _assert_identical(ours, theirs)
