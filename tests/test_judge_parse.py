"""Both reply parsers on hand-worked replies.

Expectations are reasoned from Python's ``re`` semantics, not produced by the code:
``^ ?([\\d\\.]+)`` anchors at the start (no MULTILINE), allows at most one literal space,
and its greedy class is not retried when ``float()`` fails.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from geval_repro.registry.benchmarks import judge_scale
from geval_repro.scoring.parse import PARSERS, parse, parse_table, read

NAN = math.nan

# reply, original score, original unread, tolerant score on coherence (scale 1-5)
CASES = [
    ("- Coherence: 3", 0.0, True, 3.0),  # "-" is neither " " nor in [\d.]
    ("\n3", 0.0, True, 3.0),  # "\n" is not the literal space " ?" allows
    ("  4", 0.0, True, 4.0),  # " ?" takes one space; the second is not in [\d.]
    (" 4", 4.0, False, 4.0),
    ("3.5", 3.5, False, 3.5),
    (".", 0.0, True, NAN),  # matched ".", float(".") raises
    ("", 0.0, True, NAN),
    ("N/A", 0.0, True, NAN),
    ("Score: 4", 0.0, True, NAN),  # label is not the run's dimension
    ("7", 7.0, False, NAN),  # original keeps out-of-scale numbers; tolerant drops them
    ("4/5", 4.0, False, 4.0),  # class stops at "/"
    ("3.5.1", 0.0, True, 3.5),  # greedy "3.5.1" fails float(); tolerant reads "3.5"
    ("coherence :4", 0.0, True, 4.0),  # label is case-insensitive, spaces around ":"
    ("4.", 4.0, False, 4.0),  # float("4.") == 4.0; tolerant reads "4"
    ("0", 0.0, False, NAN),  # read by original (as 0); below the scale for tolerant
]


def _series(texts: list[str]) -> pd.Series:
    return pd.Series(texts, index=[f"r{i}" for i in range(len(texts))])


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_constants() -> None:
    assert PARSERS == ("original", "tolerant")
    summeval = ("coherence", "consistency", "fluency", "relevance")
    assert {d: judge_scale("summeval", d) for d in summeval} == {
        "coherence": (1, 5),
        "consistency": (1, 5),
        "fluency": (1, 3),
        "relevance": (1, 5),
    }
    assert judge_scale("topical_chat", "coherence") == (1, 3)
    assert judge_scale("qags_xsum", "consistency") == (1, 5)


@pytest.mark.parametrize(("reply", "orig", "orig_unread", "tol"), CASES)
def test_case_by_case(reply: str, orig: float, orig_unread: bool, tol: float) -> None:
    replies = _series([reply])
    score, unread = read(replies, "coherence", "original", "summeval")
    assert score.iloc[0] == orig
    assert bool(unread.iloc[0]) is orig_unread
    got = parse(replies, "coherence", "tolerant", "summeval").iloc[0]
    assert _same(got, tol), (reply, got, tol)


def test_vectorized_keeps_index_and_dtype() -> None:
    replies = _series([c[0] for c in CASES])
    original = parse(replies, "coherence", "original", "summeval")
    tolerant, tolerant_unread = read(replies, "coherence", "tolerant", "summeval")
    assert list(original.index) == list(replies.index)
    assert original.dtype == "float64"
    assert not original.isna().any()
    assert original.tolist() == [c[1] for c in CASES]
    assert all(_same(a, c[3]) for a, c in zip(tolerant.tolist(), CASES, strict=True))
    assert tolerant_unread.tolist() == [math.isnan(c[3]) for c in CASES]


def test_tolerant_uses_the_dimension_label_and_scale() -> None:
    replies = _series(["- Fluency: 3", "- Coherence: 3", "3.5", "2", "FLUENCY:1"])
    got = parse(replies, "fluency", "tolerant", "summeval").tolist()
    assert got[0] == 3.0
    assert math.isnan(got[1])  # another dimension's label
    assert math.isnan(got[2])  # 3.5 is above fluency's 1-3 scale
    assert got[3:] == [2.0, 1.0]


def test_parse_table_parses_each_dimension_with_its_own_rules() -> None:
    table = pd.DataFrame(
        {
            "benchmark": "summeval",
            "dimension": ["fluency", "coherence", "fluency", "coherence"],
            "reply": ["4", "4", "Fluency: 2", "Fluency: 2"],
        }
    )
    tolerant = parse_table(table, "tolerant")
    assert _same(tolerant["score"].iloc[0], NAN)  # 4 is out of fluency's scale
    assert tolerant["score"].iloc[1] == 4.0
    assert tolerant["score"].iloc[2] == 2.0
    assert _same(tolerant["score"].iloc[3], NAN)  # coherence run, fluency label
    assert tolerant["unread"].tolist() == [True, False, False, True]
    original = parse_table(table, "original")
    assert original["score"].tolist() == [4.0, 4.0, 0.0, 0.0]
    assert original["unread"].tolist() == [False, False, True, True]


def test_scale_depends_on_the_benchmark() -> None:
    table = pd.DataFrame(
        {
            "benchmark": ["summeval", "topical_chat", "topical_chat", "topical_chat"],
            "dimension": ["coherence", "coherence", "coherence", "groundedness"],
            "reply": ["4", "4", "Coherence: 3", "1"],
        }
    )
    tolerant = parse_table(table, "tolerant")
    assert tolerant["score"].iloc[0] == 4.0  # SummEval coherence: 1-5
    assert _same(tolerant["score"].iloc[1], NAN)  # Topical-Chat coherence: 1-3
    assert tolerant["score"].iloc[2] == 3.0
    assert tolerant["score"].iloc[3] == 1.0  # groundedness: 0-1


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="has no dimension 'naturalness'"):
        parse(_series(["3"]), "naturalness", "tolerant", "summeval")
    with pytest.raises(ValueError, match="unknown parser"):
        parse(_series(["3"]), "coherence", "lenient", "summeval")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="missing"):
        parse(pd.Series(["3", None]), "coherence", "original", "summeval")


def test_repeated_replies_read_as_each_one_alone() -> None:
    # read() parses each distinct text once and maps back: every position must get what the
    # case-by-case expectation above says for that text, in any order and repetition
    order = [3, 0, 3, 14, 9, 0, 11, 11, 3, 7, 14, 0]
    replies = pd.Series([CASES[i][0] for i in order], index=[f"x{j}" for j in order[::-1]])
    original, original_unread = read(replies, "coherence", "original", "summeval")
    tolerant, tolerant_unread = read(replies, "coherence", "tolerant", "summeval")
    assert list(original.index) == list(replies.index) == list(tolerant.index)
    assert original.tolist() == [CASES[i][1] for i in order]
    assert original_unread.tolist() == [CASES[i][2] for i in order]
    assert all(_same(a, CASES[i][3]) for a, i in zip(tolerant.tolist(), order, strict=True))
    assert tolerant_unread.tolist() == [math.isnan(CASES[i][3]) for i in order]
