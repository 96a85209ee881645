"""METEOR with nltk, on the WordNet 3.0 database that Debian packages (no nltk download).

nltk's ``meteor_score`` (an implementation of METEOR 1.0, Banerjee and Lavie, 2005) aligns
hypothesis and reference words in three stages (exact match, Porter stem, WordNet synonym)
and scores ``Fmean * (1 - Pen)`` with ``Fmean = P R / (alpha P + (1 - alpha) R)`` and
``Pen = gamma (chunks / matches)^beta``; nltk's defaults alpha = 0.9, beta = 3, gamma = 0.5
are used. nltk's aligner is greedy and does not minimise the number of chunks; its synonym
stage compares a hypothesis word's WordNet lemmas with the reference word as the stem stage
left it ("large" has become "larg" and no longer matches "big"); and it is not the Java
METEOR 1.5 (with paraphrase tables) of the COCO/nlg-eval toolkits, so its values differ
from those tools' (see docs/baselines.md). Texts are split on whitespace (the
benchmark texts are already tokenized) and lowercased by nltk.

WordNet: nltk normally downloads its ``wordnet`` corpus from GitHub. Here the database comes
from Debian instead::

    apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index

``wordnet-base`` installs the WordNet 3.0 database files in /usr/share/wordnet;
``wordnet-sense-index`` adds ``index.sense``, which nltk's reader opens when it loads. The
one file nltk needs that Debian does not ship is ``lexnames`` (lexicographer file numbers
and names), a fixed table of WordNet 3.0 documented in its lexnames(5WN) manual page and
reproduced in :data:`WORDNET_LEXNAMES`. nltk (>= 3.9) refuses corpus paths outside its
registered data directories and symlinks that leave them, so :func:`debian_wordnet` copies the
database into ``<cache_dir>/corpora/wordnet``, writes ``lexnames`` there and registers
``cache_dir`` on ``nltk.data.path``.

Speed (same scores): nltk's reader, when it opens, also reads ``index.sense`` twice to map
synsets of nltk's "wordnet" corpus to the loaded version, a map used only to load Open
Multilingual Wordnet tab files; :class:`EnglishWordNetReader` leaves it out (about 60 % of
the reader's start-up). :func:`meteor` memoizes the two per-word lookups that nltk's METEOR
repeats for every pair, ``wordnet.synsets(word)`` and the Porter stem; both are pure
functions of the word, so the scores stay bit-identical to a plain ``meteor_score`` call.
"""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from geval_repro.baselines.references import check_pairs

if TYPE_CHECKING:  # nltk (which imports scipy.stats) is imported when a function needs it
    from nltk.corpus.reader.wordnet import Synset, WordNetCorpusReader

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
INSTALL_COMMAND = (
    "apt-get update && apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index"
)
WORDNET_FILES = (
    *(f"{kind}.{pos}" for kind in ("data", "index") for pos in ("adj", "adv", "noun", "verb")),
    *(f"{pos}.exc" for pos in ("adj", "adv", "noun", "verb")),
    "index.sense",
)
# WordNet 3.0 lexicographer files, numbered 00..44 in this order (lexnames(5WN)).
WORDNET_LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
    "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
    "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance",
    "noun.time", "verb.body", "verb.change", "verb.cognition", "verb.communication",
    "verb.competition", "verb.consumption", "verb.contact", "verb.creation", "verb.emotion",
    "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
)  # fmt: skip
SYNTACTIC_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/geval-repro/nltk_data`` (``~/.cache/...`` when the variable is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "geval-repro" / "nltk_data"


def lexnames_text() -> str:
    """The ``lexnames`` file: ``NN<TAB>name<TAB>category`` per line (lexnames(5WN) format)."""
    return "".join(
        f"{number:02d}\t{name}\t{SYNTACTIC_CATEGORY[name.split('.')[0]]}\n"
        for number, name in enumerate(WORDNET_LEXNAMES)
    )


@cache
def debian_wordnet(
    cache_dir: Path | None = None, wordnet_dir: Path = DEBIAN_WORDNET_DIR
) -> WordNetCorpusReader:
    """An nltk WordNet reader over Debian's WordNet 3.0 (see the module docstring).

    Copies the database files from ``wordnet_dir`` into ``<cache_dir>/corpora/wordnet``
    (again only when a size differs), writes ``lexnames`` and puts ``cache_dir`` first on
    ``nltk.data.path``. Raises FileNotFoundError with the install command when a database
    file is missing, and ValueError when the files are not WordNet 3.0.
    """
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    missing = [name for name in WORDNET_FILES if not (wordnet_dir / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"WordNet database file(s) {missing} not found in {wordnet_dir}. "
            f"Install Debian's WordNet 3.0 with: {INSTALL_COMMAND}"
        )
    root = cache_dir / "corpora" / "wordnet"
    root.mkdir(parents=True, exist_ok=True)
    for name in WORDNET_FILES:
        source, target = wordnet_dir / name, root / name
        if not target.is_file() or target.stat().st_size != source.stat().st_size:
            shutil.copyfile(source, target)
    (root / "lexnames").write_text(lexnames_text(), encoding="ascii")
    if str(cache_dir) not in nltk.data.path:
        nltk.data.path.insert(0, str(cache_dir))
    with warnings.catch_warnings():
        # No Open Multilingual Wordnet is loaded (omw_reader=None); METEOR needs English only.
        warnings.filterwarnings("ignore", "The multilingual functions are not available")
        reader = _english_reader_class(WordNetCorpusReader)(str(root), None)
    version = reader.get_version()
    if version != "3.0":
        raise ValueError(f"{wordnet_dir}: WordNet version {version!r}, expected '3.0'")
    return reader


@cache
def _english_reader_class(base: type) -> type:
    """:class:`EnglishWordNetReader`: nltk's reader without the OMW version map (lazy import)."""

    class EnglishWordNetReader(base):  # type: ignore[misc, valid-type]
        """nltk's ``WordNetCorpusReader`` that skips ``map_wn`` when it opens.

        ``map_wn`` maps synset ids of nltk's "wordnet" corpus to the loaded WordNet (here the
        same 3.0 database, read from ``index.sense`` twice); nltk uses the map (``map30``)
        only in ``custom_lemmas``, to load Open Multilingual Wordnet tab files, which this
        English-only reader never does (``map30`` is None, as nltk sets it when the versions
        are equal).
        """

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return EnglishWordNetReader


class _MemoizedSynsets:
    """The one method of a WordNet reader that nltk's METEOR calls, ``synsets(word)``, memoized.

    nltk looks up every unmatched hypothesis word of every pair (morphy, then the index);
    the answer depends on the word alone, so each distinct word is looked up once.
    """

    def __init__(self, reader: WordNetCorpusReader) -> None:
        self._synsets: Any = cache(reader.synsets)

    def synsets(self, lemma: str) -> list[Synset]:
        return self._synsets(lemma)


def _memoized_porter_stemmer() -> Any:
    """nltk's ``PorterStemmer()`` (METEOR's default stemmer) with ``stem`` memoized per word."""
    from nltk.stem.api import StemmerI
    from nltk.stem.porter import PorterStemmer

    class MemoizedPorterStemmer(StemmerI):
        def __init__(self) -> None:
            self._stem = cache(PorterStemmer().stem)

        def stem(self, token: str) -> str:
            return self._stem(token)

    return MemoizedPorterStemmer()


def meteor(
    hypotheses: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    wordnet: WordNetCorpusReader,
) -> np.ndarray:
    """nltk METEOR of ``hypotheses[i]`` against ``references[i]`` (a string or a list).

    With several references nltk keeps the best-scoring one. Returns shape (n,), 0-1 scale.
    ``wordnet``: a reader, e.g. :func:`debian_wordnet` ``()``. nltk's ``meteor_score`` with
    its default stemmer and this reader, WordNet and Porter stem lookups memoized per word
    for the call (the same scores, bit for bit).
    """
    from nltk.translate.meteor_score import meteor_score

    check_pairs("meteor", hypotheses, references)
    synsets, stemmer = _MemoizedSynsets(wordnet), _memoized_porter_stemmer()
    return np.array(
        [
            meteor_score(
                [ref.split() for ref in ([reference] if isinstance(reference, str) else reference)],
                hypothesis.split(),
                stemmer=stemmer,
                wordnet=synsets,
            )
            for hypothesis, reference in zip(hypotheses, references, strict=True)
        ],
        dtype=float,
    )
