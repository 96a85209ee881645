"""Writer vs GPT-3.5: the pairwise human judgements of Zhang et al. (2023/2024), "Benchmarking
Large Language Models for News Summarization" (Tiiiger/benchmark_llm_summarization).

``pairwise_evaluation_results.json`` is a JSON list of 599 judgements: an evaluator
(``evaluator_id``) read a news article (``article_id``, ``article_text``), the summary a
freelance writer (``writer_id``) wrote of it (``writer_summary``) and the summary
text-davinci-002 wrote (``text-davinci-002_summary``), and said whether the writer's summary
is better overall (``overall_writer_better``) and in informativeness
(``informative_writer_better``): JSON ``true`` (the writer's), ``false`` (the model's) or
the string ``"Equally Good"``. ``writer_summaries.json`` lists every summary the writers
wrote (302, with ``article_id``, ``article``, ``summary``), judged or not.

Two tables (and the writers' file's coverage):

- **items**: one row per distinct judged summary of an article (unique by its article and
  its text, exactly as released: whitespace kept): ``item_id``, ``article_id``, ``author``
  (``writer`` or ``llm``), ``writer_id`` (the writer's id; None for the model's summary),
  ``article``, ``summary``, ``in_writer_summaries`` (the text is one of
  ``writer_summaries.json``'s summaries of the article). ``item_id`` is the first 12 hex
  digits of the SHA-256 of the UTF-8 bytes of ``article_id + "\\n" + summary``: stable
  across releases that keep the text, and the same for the same text in both files.
  Rows in order of first appearance in the judgements file (writer's summary, then the
  model's).
- **pairs**: one row per human judgement, in file order: ``judgement`` (its 0-based index
  in the file), ``article_id``, ``evaluator_id``, ``writer_id``, ``writer_item_id``,
  ``llm_item_id`` and the two preferences ``overall`` and ``informativeness``, each
  ``writer``, ``llm`` or ``tie`` ("Equally Good").
- **writer_summaries**: the 302 summaries of ``writer_summaries.json`` in file order with
  ``item_id`` (same rule) and ``judged`` (an item of the judgements).

Checked (each failure names the file, the record and the fix): every record's keys and
non-empty strings; the preference values; one article text per article, the same in both
files; one model summary per article; one summary per (article, writer), written by one
writer; no writer summary equal to the model's; no evaluator judging one pair twice; and
the counts of the pinned release (:data:`PINNED_COUNTS`: 599 judgements over 76 articles,
112 writer and 76 model summaries, overall 243 / 239 / 117 for writer better / model better
/ equally good, 302 writer summaries of which 104 are judged; 8 judged writer summaries are
not in ``writer_summaries.json``, although its README calls it all the summaries).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import pandas as pd
import pandera.pandas as pa

from geval_repro.files.paths import PathLike
from geval_repro.load.schemas import UPSTREAM_FIX, read_json, require_records, validate_table

AUTHORS = ("writer", "llm")
PREFERENCES = ("writer", "llm", "tie")
#: The two questions each evaluator answered: pairs column -> file key.
QUESTIONS: dict[str, str] = {
    "overall": "overall_writer_better",
    "informativeness": "informative_writer_better",
}
#: The file's answers -> preference: JSON true / false and the string "Equally Good".
ANSWERS: tuple[tuple[object, str], ...] = (
    (True, "writer"),
    (False, "llm"),
    ("Equally Good", "tie"),
)
LLM_SUMMARY_KEY = "text-davinci-002_summary"
PAIRWISE_KEYS = (
    "article_id",
    "writer_id",
    "evaluator_id",
    "article_text",
    "writer_summary",
    LLM_SUMMARY_KEY,
    *QUESTIONS.values(),
)
WRITER_SUMMARY_KEYS = ("article_id", "article", "summary")
ITEM_ID_DIGITS = 12

#: Counts of the pinned release (geval_repro/data/sources.yaml), checked after the structure.
PINNED_COUNTS: dict[str, int] = {
    "judgements": 599,
    "articles": 76,
    "writers": 6,
    "evaluators": 6,
    "writer summaries judged": 112,
    "model summaries judged": 76,
    "overall writer better": 243,
    "overall model better": 239,
    "overall equally good": 117,
    "informativeness writer better": 217,
    "informativeness model better": 250,
    "informativeness equally good": 132,
    "summaries in writer_summaries.json": 302,
    "of them judged": 104,
    "judged writer summaries not in writer_summaries.json": 8,
}

_TEXT = pa.Check.str_length(min_value=1)
_ID = pa.Column(str, _TEXT)
_HEX_ID = pa.Check.str_matches(rf"^[0-9a-f]{{{ITEM_ID_DIGITS}}}$")
_ITEM_ID = pa.Column(str, _HEX_ID)


def _one_per(key: str, value: str) -> pa.Check:
    return pa.Check(
        lambda df: bool((df.groupby(key)[value].nunique() <= 1).all()),
        error=f"each {key} must have one {value}",
    )


ITEMS = pa.DataFrameSchema(
    {
        "item_id": pa.Column(str, _HEX_ID, unique=True),
        "article_id": _ID,
        "author": pa.Column(str, pa.Check.isin(list(AUTHORS))),
        "writer_id": pa.Column(str, _TEXT, nullable=True),
        "article": pa.Column(str, _TEXT),
        "summary": pa.Column(str, _TEXT),
        "in_writer_summaries": pa.Column(bool),
    },
    checks=[
        pa.Check(
            lambda df: bool((df["writer_id"].isna() == (df["author"] == "llm")).all()),
            error="writer_id is set exactly on the writers' summaries",
        ),
        pa.Check(
            lambda df: bool((df[df["author"] == "llm"].groupby("article_id").size() == 1).all()),
            error="each article has one model summary",
        ),
        _one_per("article_id", "article"),
    ],
    unique=["article_id", "summary"],
    strict=True,
    ordered=True,
    name="writer_vs_llm_items",
)

PAIRS = pa.DataFrameSchema(
    {
        "judgement": pa.Column(int, pa.Check.ge(0), unique=True),
        "article_id": _ID,
        "evaluator_id": _ID,
        "writer_id": _ID,
        "writer_item_id": _ITEM_ID,
        "llm_item_id": _ITEM_ID,
        **{question: pa.Column(str, pa.Check.isin(list(PREFERENCES))) for question in QUESTIONS},
    },
    checks=[_one_per("article_id", "llm_item_id"), _one_per("writer_item_id", "writer_id")],
    unique=["article_id", "writer_id", "evaluator_id"],
    strict=True,
    ordered=True,
    name="writer_vs_llm_pairs",
)

WRITER_SUMMARIES = pa.DataFrameSchema(
    {
        "article_id": _ID,
        "summary": pa.Column(str, _TEXT),
        "item_id": pa.Column(str, _HEX_ID, unique=True),
        "judged": pa.Column(bool),
    },
    unique=["article_id", "summary"],
    strict=True,
    ordered=True,
    name="writer_vs_llm_writer_summaries",
)


class WriterVsLlm(NamedTuple):
    """The tables of the release (see the module docstring)."""

    items: pd.DataFrame
    pairs: pd.DataFrame
    writer_summaries: pd.DataFrame


def item_id(article_id: str, summary: str) -> str:
    """The stable id of a summary of an article: the first 12 hex digits of the SHA-256 of
    ``article_id + "\\n" + summary`` (UTF-8)."""
    digest = hashlib.sha256(f"{article_id}\n{summary}".encode())
    return digest.hexdigest()[:ITEM_ID_DIGITS]


def _fail(path: PathLike, where: str, problem: str, fix: str = UPSTREAM_FIX) -> ValueError:
    return ValueError(f"{path}: {where} {problem}. Fix: {fix}.")


def _record(index: int, record: Mapping[str, object]) -> str:
    """How errors name a judgement: its index and keys."""
    keys = ", ".join(
        f"{key}={record.get(key)!r}" for key in ("article_id", "writer_id", "evaluator_id")
    )
    return f"record {index} ({keys})"


def _require_texts(
    records: Sequence[Mapping[str, object]], keys: Iterable[str], path: PathLike, name
) -> None:
    """Every ``records[i][key]`` a non-empty string; ``name(i, record)`` names a record."""
    for index, record in enumerate(records):
        for key in keys:
            value = record[key]
            if not isinstance(value, str) or not value.strip():
                raise _fail(
                    path, name(index, record), f"has {key} = {value!r}: not a non-empty string"
                )


def _preference(value: object, path: PathLike, where: str, key: str) -> str:
    """The preference the file's answer ``value`` encodes (JSON booleans, not strings)."""
    for answer, preference in ANSWERS:
        if type(value) is type(answer) and value == answer:
            return preference
    raise _fail(
        path,
        where,
        f"has {key} = {value!r}; the release's answers are JSON true (writer better), false "
        '(model better) and the string "Equally Good"',
    )


def _one_value(
    table: pd.DataFrame, key: Sequence[str], column: str, path: PathLike, what: str
) -> None:
    """Each value of ``key`` has one value of ``column``; else name the first record that
    breaks it (``table``'s ``record`` column is the record index)."""
    counts = table.groupby(list(key), sort=False)[column].transform("nunique")
    broken = table[counts > 1]
    if len(broken):
        first = broken.iloc[0]
        values = dict(zip(key, (first[k] for k in key), strict=True))
        others = broken[(broken[list(key)] == first[list(key)]).all(axis=1)]
        raise _fail(
            path,
            f"records {others['record'].tolist()[:5]} ({values})",
            f"give {others[column].nunique()} different {what} where the release has one",
        )


def _check_pairwise(records: list[dict], path: PathLike) -> pd.DataFrame:
    """The judgements as a table (one row per record, ``record`` = index), structure checked."""
    _require_texts(records, PAIRWISE_KEYS[:6], path, _record)
    table = pd.DataFrame({key: [r[key] for r in records] for key in PAIRWISE_KEYS[:6]})
    table.insert(0, "record", range(len(records)))
    for question, key in QUESTIONS.items():
        table[question] = [
            _preference(r[key], path, _record(i, r), key) for i, r in enumerate(records)
        ]
    _one_value(table, ["article_id"], "article_text", path, "article texts")
    _one_value(table, ["article_id"], LLM_SUMMARY_KEY, path, "model summaries")
    _one_value(table, ["article_id", "writer_id"], "writer_summary", path, "writer summaries")
    _one_value(table, ["article_id", "writer_summary"], "writer_id", path, "writers")
    same = table[table["writer_summary"] == table[LLM_SUMMARY_KEY]]
    if len(same):
        raise _fail(
            path,
            _record(int(same["record"].iloc[0]), records[int(same["record"].iloc[0])]),
            "has a writer summary identical to the model's: the pair compares nothing",
        )
    repeated = table[table.duplicated(["article_id", "writer_id", "evaluator_id"], keep=False)]
    if len(repeated):
        raise _fail(
            path,
            f"records {repeated['record'].tolist()[:5]}",
            "judge the same (article, writer) pair by the same evaluator more than once",
        )
    return table


def _check_writer_summaries(
    records: list[dict], path: PathLike, articles: Mapping[str, str], pairwise_path: PathLike
) -> pd.DataFrame:
    """The writers' file as a table (``record`` = index), checked against the judgements'
    article texts."""

    def name(index: int, record: Mapping[str, object]) -> str:
        return f"record {index} (article_id={record.get('article_id')!r})"

    _require_texts(records, WRITER_SUMMARY_KEYS, path, name)
    table = pd.DataFrame({key: [r[key] for r in records] for key in WRITER_SUMMARY_KEYS})
    table.insert(0, "record", range(len(records)))
    _one_value(table, ["article_id"], "article", path, "article texts")
    repeated = table[table.duplicated(["article_id", "summary"], keep=False)]
    if len(repeated):
        raise _fail(
            path, f"records {repeated['record'].tolist()[:5]}", "repeat one summary of an article"
        )
    judged_text = table["article_id"].map(articles)
    differs = table[judged_text.notna() & (judged_text != table["article"])]
    if len(differs):
        index = int(differs["record"].iloc[0])
        raise _fail(
            path,
            name(index, records[index]),
            f"has another text for the article than {pairwise_path} has",
        )
    return table


def _check_counts(counts: Mapping[str, int], paths: str) -> None:
    """The counts of the pinned release; a difference names every count that differs."""
    wrong = {k: (v, PINNED_COUNTS[k]) for k, v in counts.items() if v != PINNED_COUNTS[k]}
    if wrong:
        listed = "; ".join(f"{k}: {v} (pinned release: {p})" for k, (v, p) in wrong.items())
        raise ValueError(
            f"{paths}: the counts differ from the pinned release: {listed}. Fix: {UPSTREAM_FIX}."
        )


def load_writer_vs_llm(pairwise_path: PathLike, writer_summaries_path: PathLike) -> WriterVsLlm:
    """The items, pairs and writer-summary coverage of the release (module docstring)."""
    records = require_records(read_json(pairwise_path), PAIRWISE_KEYS, pairwise_path)
    judged = _check_pairwise(records, pairwise_path)
    written = require_records(
        read_json(writer_summaries_path), WRITER_SUMMARY_KEYS, writer_summaries_path
    )
    articles = judged.drop_duplicates("article_id").set_index("article_id")["article_text"]
    writers_file = _check_writer_summaries(
        written, writer_summaries_path, articles.to_dict(), pairwise_path
    )
    listed = set(zip(writers_file["article_id"], writers_file["summary"], strict=True))

    judged["writer_item_id"] = [
        item_id(a, s) for a, s in zip(judged["article_id"], judged["writer_summary"], strict=True)
    ]
    judged["llm_item_id"] = [
        item_id(a, s) for a, s in zip(judged["article_id"], judged[LLM_SUMMARY_KEY], strict=True)
    ]
    writer_items = pd.DataFrame(
        {
            "order": judged["record"] * 2,
            "item_id": judged["writer_item_id"],
            "article_id": judged["article_id"],
            "author": "writer",
            "writer_id": judged["writer_id"],
            "article": judged["article_text"],
            "summary": judged["writer_summary"],
        }
    )
    llm_items = pd.DataFrame(
        {
            "order": judged["record"] * 2 + 1,
            "item_id": judged["llm_item_id"],
            "article_id": judged["article_id"],
            "author": "llm",
            "writer_id": None,
            "article": judged["article_text"],
            "summary": judged[LLM_SUMMARY_KEY],
        }
    )
    items = (
        pd.concat([writer_items, llm_items])
        .sort_values("order", kind="stable")
        .drop_duplicates("item_id")
        .drop(columns="order")
        .reset_index(drop=True)
    )
    items["writer_id"] = items["writer_id"].astype(object).where(items["author"] == "writer", None)
    items["in_writer_summaries"] = [
        author == "writer" and (a, s) in listed
        for author, a, s in zip(items["author"], items["article_id"], items["summary"], strict=True)
    ]
    pairs = judged.rename(columns={"record": "judgement"})[list(PAIRS.columns)]
    writers_file["item_id"] = [
        item_id(a, s)
        for a, s in zip(writers_file["article_id"], writers_file["summary"], strict=True)
    ]
    writers_file["judged"] = writers_file["item_id"].isin(set(items["item_id"]))
    coverage = writers_file[list(WRITER_SUMMARIES.columns)]

    both = f"{pairwise_path} and {writer_summaries_path}"
    items = validate_table(items, ITEMS, pairwise_path, ["item_id", "article_id", "author"])
    pairs = validate_table(pairs, PAIRS, pairwise_path, ["judgement", "article_id", "writer_id"])
    coverage = validate_table(coverage, WRITER_SUMMARIES, writer_summaries_path, ["article_id"])
    _check_counts(release_counts(items, pairs, coverage), both)
    return WriterVsLlm(items, pairs, coverage)


def release_counts(
    items: pd.DataFrame, pairs: pd.DataFrame, writer_summaries: pd.DataFrame
) -> dict[str, int]:
    """The counts of :data:`PINNED_COUNTS`, of these tables."""
    counts = {
        "judgements": len(pairs),
        "articles": pairs["article_id"].nunique(),
        "writers": pairs["writer_id"].nunique(),
        "evaluators": pairs["evaluator_id"].nunique(),
        "writer summaries judged": int((items["author"] == "writer").sum()),
        "model summaries judged": int((items["author"] == "llm").sum()),
    }
    names = {"writer": "writer better", "llm": "model better", "tie": "equally good"}
    for question in QUESTIONS:
        tally = pairs[question].value_counts()
        for preference, name in names.items():
            counts[f"{question} {name}"] = int(tally.get(preference, 0))
    writers = items[items["author"] == "writer"]
    counts["summaries in writer_summaries.json"] = len(writer_summaries)
    counts["of them judged"] = int(writer_summaries["judged"].sum())
    counts["judged writer summaries not in writer_summaries.json"] = int(
        (~writers["in_writer_summaries"]).sum()
    )
    return counts


def check_pairs(items: pd.DataFrame, pairs: pd.DataFrame, where: str) -> None:
    """Every pair's two items are among ``items``, with the pair's article and the right
    author (writer's item written by the pair's writer), and its preferences are ``writer``,
    ``llm`` or ``tie``; ``where`` names the tables."""
    for question in QUESTIONS:
        wrong = pairs[~pairs[question].isin(PREFERENCES)]
        if len(wrong):
            raise ValueError(
                f"{where}: judgement {wrong['judgement'].iloc[0]} has {question} preference "
                f"{wrong[question].iloc[0]!r}. Fix: use one of {list(PREFERENCES)}."
            )
    known = items.set_index("item_id")
    for column, author in (("writer_item_id", "writer"), ("llm_item_id", "llm")):
        ids = pairs[column]
        missing = ids[~ids.isin(known.index)]
        if len(missing):
            raise ValueError(
                f"{where}: {len(missing)} pair(s) name {column} values that are not items, "
                f"e.g. judgement {pairs.loc[missing.index[0], 'judgement']} ({missing.iloc[0]!r}). "
                "Fix: build the pairs and the items from the same load_writer_vs_llm call."
            )
        matched = known.loc[ids]
        wrong = (matched["author"].to_numpy() != author) | (
            matched["article_id"].to_numpy() != pairs["article_id"].to_numpy()
        )
        if author == "writer":
            wrong |= matched["writer_id"].to_numpy() != pairs["writer_id"].to_numpy()
        if wrong.any():
            first = pairs[wrong].iloc[0]
            raise ValueError(
                f"{where}: judgement {first['judgement']}'s {column} {first[column]!r} is not "
                f"the {author} summary of article {first['article_id']!r}"
                + (f" by writer {first['writer_id']!r}" if author == "writer" else "")
                + ". Fix: build the pairs and the items from the same load_writer_vs_llm call."
            )
