"""Parse a judge's raw replies into numeric scores.

The parsers (:data:`ALL_PARSERS`), each vectorized over a pandas Series of replies:

``original``
    Exactly the released ``meta_eval_summeval.py`` of nlpyang/geval::

        def parse_output(output):
            matched = re.search("^ ?([\\d\\.]+)", output)
            if (matched):
                try:
                    score = float(matched.group(1))
                except:
                    score = 0
            else:
                score = 0
            return score

    ``^`` (no MULTILINE flag) anchors at the very start of the reply and `` ?`` allows at most
    one literal space, so ``"\\n3"``, ``"  4"`` and ``"- Coherence: 3"`` do not match. The
    character class is greedy and the match is not retried when ``float()`` fails, so ``"."``
    and ``"3.5.1"`` give 0. Unread replies score **0 and still count in the item's mean**,
    and out-of-scale numbers (``"7"``) are kept as they are.

``tolerant``
    Strip surrounding whitespace; drop an optional leading label ``- <Dimension>:`` or
    ``<Dimension>:`` (case-insensitive, the run's own dimension name, spaces allowed around
    ``-`` and ``:``); read a number ``\\d+(\\.\\d+)?`` at the start; keep it when it lies within
    the judge scale of the (benchmark, dimension) in :mod:`geval_repro.registry.benchmarks` (bounds
    included: coherence is 1-5 on SummEval, 1-3 on Topical-Chat). Anything else is unparsed
    (NaN) and left out of the item's mean.

``final``
    For long replies (a reasoning model's, which think aloud or justify before they rate):
    the **last** rating the reply states, since the first number of such a reply is rarely
    its rating ("2 of the 3 key facts ... **Rating: 4**"). Text up to a closing ``</think>``
    is dropped (a model that writes its thoughts into the reply). Read, in this order: the
    last labelled rating (``rating``, ``score``, ``answer``, ``final score`` or the run's
    dimension name, then ``:``, ``=``, ``is`` or ``of``, markdown ``*`` allowed around it, a
    number, optionally ``/ <max>`` or ``out of <max>``), the last ``\\boxed{<number>}``, else
    a last line that is a number alone (``**4**``, ``4.``). The number must lie within the
    judge scale and a stated maximum must be the scale's; anything else is unparsed (NaN)
    and left out of the item's mean, as for ``tolerant``. A one-token reply (``"4"``) is read
    as ``tolerant`` reads it.

``yes-no``
    For a prompt that asks for a Yes/No answer (SummEdits' zero-shot prompt, a benchmark's
    ``prompt_variants``): the answer the reply opens with, as that prompt asks ("Start your
    answer explicitly with Yes or No"), read as a binary score, Yes 1.0 and No 0.0. Text up
    to a closing ``</think>`` is dropped; then leading whitespace and markdown or quote marks
    (``*``, ``_``, ``#``, ``>``, ``"``, ``'``, `````, ``-``) and an optional label
    ``Answer:``; then the word ``yes`` or ``no`` in any case, not followed by a letter or
    digit (``"Yes."``, ``"**No**, the second sentence..."``, ``"answer: yes"``). A reply that
    opens otherwise is unparsed (NaN) and left out of the item's mean, never guessed: a ``no``
    inside a sentence ("there is no evidence ...") is not an answer. The judge scale is not
    read (the answer is binary).

The rating parsers read numbers with Python's ``float()``, as the released script does (``\\d`` is
Python's Unicode digit class, which ``float()`` also accepts).
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import judge_scale

Parser = Literal["original", "tolerant", "final", "yes-no"]

#: The parsers every run's tables read its replies with, side by side.
PARSERS: tuple[Parser, ...] = ("original", "tolerant")
#: The parser of a prompt whose reply is a Yes/No answer (a benchmark's prompt variant).
ANSWER_PARSERS: tuple[Parser, ...] = ("yes-no",)
#: The parsers of a rating: ``final`` reads long replies (a reasoning model's) for their last
#: rating.
RATING_PARSERS: tuple[Parser, ...] = (*PARSERS, "final")
#: Every parser: the rating parsers, then ``yes-no`` (a Yes/No answer).
ALL_PARSERS: tuple[Parser, ...] = (*RATING_PARSERS, *ANSWER_PARSERS)


def reply_parsers(reasoning: bool, answers: bool = False) -> tuple[Parser, ...]:
    """The parsers a run's tables read its replies with: :data:`ANSWER_PARSERS` for a prompt
    whose reply is a Yes/No answer (``answers``); else :data:`PARSERS`, and ``final`` beside
    them for a reasoning model's long replies (the released parser reads their first number,
    rarely the rating)."""
    if answers:
        return ANSWER_PARSERS
    return RATING_PARSERS if reasoning else PARSERS


def parsers_in(items: pd.DataFrame) -> tuple[Parser, ...]:
    """The parsers an item-scores table (column ``parser``) holds, in :data:`ALL_PARSERS`
    order."""
    held = set(items["parser"])
    return tuple(p for p in ALL_PARSERS if p in held)


_NUMBER = r"(\d+(?:\.\d+)?)"
_OUT_OF = r"(?:\s*(?:/|out\s+of)\s*(\d+))?"

ORIGINAL_PATTERN = r"^ ?([\d\.]+)"


def check_replies(replies: pd.Series) -> None:
    """Raise when a reply is missing (None/NaN), naming how many and the first's index."""
    missing = replies.isna()
    if missing.any():
        raise ValueError(
            f"{int(missing.sum())} replies are missing (first at index "
            f"{replies.index[missing.to_numpy()][0]!r}): every reply must be a string; "
            "check the replies table the loader built"
        )


def _to_float(numbers: pd.Series) -> pd.Series:
    """``float()`` of each matched string, NaN where it is missing or ``float()`` fails."""
    unique = pd.unique(numbers.dropna())
    table: dict[str, float] = {}
    for text in unique:
        try:
            table[text] = float(text)
        except ValueError:
            table[text] = np.nan
    return numbers.map(table).astype("float64")


def _original_read(replies: pd.Series) -> pd.Series:
    """The released parser's number, NaN where its regex or ``float()`` did not read."""
    return _to_float(replies.astype(str).str.extract(ORIGINAL_PATTERN, expand=False))


def _tolerant_read(replies: pd.Series, dimension: str, benchmark: str) -> pd.Series:
    """In-scale number after an optional ``- <Dimension>:`` label; NaN when unparsed."""
    low, high = judge_scale(benchmark, dimension)
    pattern = rf"^(?:(?:-\s*)?{re.escape(dimension)}\s*:\s*)?(\d+(?:\.\d+)?)"
    numbers = replies.astype(str).str.strip().str.extract(pattern, flags=re.IGNORECASE)[0]
    values = _to_float(numbers)
    return values.where((values >= low) & (values <= high))


def _final_read(replies: pd.Series, dimension: str, benchmark: str) -> pd.Series:
    """The last rating a long reply states (see the module docstring); NaN when none."""
    low, high = judge_scale(benchmark, dimension)
    labels = rf"(?:final\s+(?:score|rating|answer)|rating|score|answer|{re.escape(dimension)})"
    labelled = re.compile(
        rf"{labels}\**\s*(?:[:=]|\bis\b|\bof\b)?\s*\**\s*{_NUMBER}{_OUT_OF}", re.IGNORECASE
    )
    boxed = re.compile(rf"\\boxed\{{\s*{_NUMBER}\s*\}}")
    alone = re.compile(rf"^[\s*#>-]*{_NUMBER}{_OUT_OF}[\s*.!]*$")

    def last(text: str) -> float:
        text = text.rsplit("</think>", 1)[-1].strip()
        found = [m.groups() for m in labelled.finditer(text)] or [
            (m.group(1), None) for m in boxed.finditer(text)
        ]
        lines = [line for line in text.splitlines() if line.strip()]
        if not found and lines and (match := alone.match(lines[-1])):
            found = [match.groups()]
        for number, most in reversed(found):
            value = float(number)
            if low <= value <= high and (most is None or float(most) == high):
                return value
        return np.nan

    return pd.Series([last(text) for text in replies.astype(str)], index=replies.index)


_YES_NO = re.compile(
    r"""^[\s*_#>"'`-]*(?:answer\s*:\s*[\s*_"'`]*)?(yes|no)(?![^\W_])""", re.IGNORECASE
)


def _yes_no_read(replies: pd.Series) -> pd.Series:
    """1.0 for a reply opening with Yes, 0.0 with No, NaN otherwise (module docstring)."""
    texts = replies.astype(str).str.rsplit("</think>", n=1).str[-1]
    answers = texts.str.extract(_YES_NO, expand=False).str.lower()
    return answers.map({"yes": 1.0, "no": 0.0}).astype("float64")


def read(
    replies: pd.Series, dimension: str, parser: Parser, benchmark: str
) -> tuple[pd.Series, pd.Series]:
    """Parse one dimension's replies: ``(score, unread)``, both aligned with ``replies``.

    ``benchmark`` and ``dimension`` select the judge scale (an unknown pair raises).
    ``unread`` is True where the parser did not read a reply: for ``original`` the replies
    its regex or ``float()`` failed on, which score 0.0 and still count; for the others the
    replies they leave out, which score NaN.
    """
    check_replies(replies)
    judge_scale(benchmark, dimension)
    if parser not in ALL_PARSERS:
        raise ValueError(f"unknown parser {parser!r}: expected one of {ALL_PARSERS}")
    # replies repeat a lot ("3", "4", ...): read each distinct text once and map back
    codes, texts = pd.factorize(replies.astype(str))
    distinct = pd.Series(texts, dtype=object)
    if parser == "original":
        number = _original_read(distinct)
    elif parser == "final":
        number = _final_read(distinct, dimension, benchmark)
    elif parser == "yes-no":
        number = _yes_no_read(distinct)
    else:
        number = _tolerant_read(distinct, dimension, benchmark)
    number = pd.Series(number.to_numpy(dtype=float)[codes], index=replies.index, name=replies.name)
    unread = number.isna()
    return (number.fillna(0.0) if parser == "original" else number), unread


def parse(replies: pd.Series, dimension: str, parser: Parser, benchmark: str) -> pd.Series:
    """Scores under the parser's counting rule (``original``: 0.0 for unread; ``tolerant``:
    NaN for unparsed)."""
    return read(replies, dimension, parser, benchmark)[0]


def parse_table(replies: pd.DataFrame, parser: Parser) -> pd.DataFrame:
    """Add ``score`` (float) and ``unread`` (bool) to a long replies table.

    ``replies`` needs the columns ``benchmark``, ``dimension`` and ``reply``; each
    (benchmark, dimension) is parsed with its own label and scale (see :func:`read`).
    """
    missing = {"benchmark", "dimension", "reply"} - set(replies.columns)
    if missing:
        raise ValueError(f"replies table lacks columns {sorted(missing)}")
    runs = pd.MultiIndex.from_frame(replies[["benchmark", "dimension"]])
    codes, pairs = pd.factorize(runs)
    score = np.full(len(replies), np.nan)
    flag = np.zeros(len(replies), dtype=bool)
    for code, (benchmark, dimension) in enumerate(pairs):
        rows = codes == code  # positional: the table's index need not be unique
        value, unread = read(replies["reply"].iloc[rows], str(dimension), parser, str(benchmark))
        score[rows] = value.to_numpy(dtype=float)
        flag[rows] = unread.to_numpy(dtype=bool)
    return replies.assign(score=score, unread=flag)
