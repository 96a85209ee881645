"""Pandera schemas of the tidy tables, and the checks that apply them to a raw file.

Each schema states a table's columns, types, value ranges, keys and expected size. The
loaders in :mod:`geval_repro.load` read a raw file (:func:`read_json`, :func:`require_records`
and :func:`require_numbers` for the JSON list-of-items files, :func:`read_csv` for the CSV
tables), build a table and pass it through :func:`validate_table`, which turns a schema
failure into a ``ValueError`` that names the file, the failing items and the fix.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pandera.pandas as pa
from pandera import dtypes
from pandera.engines import pandas_engine

from geval_repro.registry.benchmarks import Benchmark, get_benchmark

# The human-score columns of each tidy table, and their scales, are the registry's
# (Benchmark.human_scales); the sizes below are those of the pinned upstream files.
_SUMMEVAL = get_benchmark("summeval")
_TOPICAL_CHAT = get_benchmark("topical_chat")
_QAGS = get_benchmark("qags_cnndm")  # both subsets: consistency, 0-1
SUMMEVAL_DIMENSIONS = _SUMMEVAL.dimension_names
SUMMEVAL_N_DOCS = 100
SUMMEVAL_N_SYSTEMS = 16
#: The systems SummEval's experts annotated: summeval.json's 16 and M23_dynamicmix.
SUMMEVAL_N_ANNOTATED_SYSTEMS = 17
MULTIREF_N_REFS = 11
#: Every human score of the Topical-Chat table (USR's), the judged dimensions first.
TOPICAL_CHAT_DIMENSIONS = tuple(_TOPICAL_CHAT.human_scales)
TOPICAL_CHAT_N_CONTEXTS = 60
TOPICAL_CHAT_N_SYSTEMS = 6
QAGS_N_ITEMS = {"cnndm": 235, "xsum": 239}
METRICEVAL_N_EXPERTS = 3
_DIALSUMMEVAL = get_benchmark("dialsummeval")
DIALSUMMEVAL_DIMENSIONS = _DIALSUMMEVAL.dimension_names
DIALSUMMEVAL_N_DIALOGUES = 100
#: Systems B-N: the tidy table leaves out system A, the reference summary.
DIALSUMMEVAL_N_SYSTEMS = 13
DIALSUMMEVAL_N_ANNOTATORS = 3
_SFRES = get_benchmark("sfres")  # SFHOT: the same dimensions and scales
DATA_TO_TEXT_DIMENSIONS = _SFRES.dimension_names
#: Items and dialogue acts of each data-to-text set (UniEval's conversion).
DATA_TO_TEXT_COUNTS = {"sfres": (1181, 580), "sfhot": (875, 398)}
_SUMMEDITS = get_benchmark("summedits")
_SUMMEDITS_LABELS = _SUMMEDITS.labels
assert _SUMMEDITS_LABELS is not None
#: SummEdits' pairs per domain: (evaluation, test), and its documents per domain:
#: (evaluation, test); no document is in both splits. Counted from the pinned files.
SUMMEDITS_COUNTS = {
    "news": (133, 686),
    "podcast": (124, 376),
    "qmsumm": (113, 318),
    "sales_call": (131, 389),
    "sales_email": (132, 481),
    "samsum": (121, 543),
    "scitldr": (115, 351),
    "ectsum": (117, 551),
}
SUMMEDITS_DOCUMENTS = {
    "news": (4, 21),
    "podcast": (4, 17),
    "qmsumm": (4, 12),
    "sales_call": (4, 14),
    "sales_email": (4, 17),
    "samsum": (4, 18),
    "scitldr": (4, 13),
    "ectsum": (4, 18),
}
SUMMEDITS_SPLITS = (_SUMMEDITS_LABELS.threshold_split, _SUMMEDITS_LABELS.tested_split)
#: The columns of the authors' metrics.csv files, in their order.
DIALSUMMEVAL_RELEASED_METRICS = (
    "rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-l",
    "bertscore_p", "bertscore_r", "bertscore_f1", "moverscore", "sms",
    "bartscore_s_h", "bartscore_h", "bartscore_h_r", "bartscore_r_h",
    "blanc_help", "blanc_tune", "feqa_score", "questeval", "summaqa_prob", "summaqa_fscore",
    "ppl", "chrf", "Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR",
    "EmbeddingAverageCosineSimilarity", "VectorExtremaCosineSimilarity", "GreedyMatchingScore",
    "factcc_cls", "dae",
)  # fmt: skip

#: pandas' ``str`` dtype in either of its storages (Arrow arrays, pandas' default with
#: pyarrow; Python objects, the pipeline's jobs': geval_repro.pipeline.string_storage).
STR_DTYPES = (pd.StringDtype("pyarrow", na_value=np.nan), pd.StringDtype("python", na_value=np.nan))


@dtypes.immutable(init=True)
class _AnyStorageStr(pandas_engine.STRING):
    """A string column's dtype: pandera's ``str`` (:class:`pandas_engine.STRING`), which
    takes the one storage in effect when pandera is imported, widened to both
    :data:`STR_DTYPES`, so a table passes whichever storage the process that made it uses."""

    def check(
        self, pandera_dtype: dtypes.DataType, data_container: pd.Series | None = None
    ) -> bool | np.ndarray:
        with contextlib.suppress(TypeError):
            if pandas_engine.Engine.dtype(pandera_dtype).type in STR_DTYPES:
                return True if data_container is None else np.full(len(data_container), True)
        return super().check(pandera_dtype, data_container)

    def __str__(self) -> str:
        return "str"


_STR = _AnyStorageStr()
_TEXT = pa.Check.str_length(min_value=1)


def _n_rows(n: int) -> pa.Check:
    return pa.Check(lambda df: len(df) == n, error=f"the table must have exactly {n} rows")


def _n_unique(column: str, n: int) -> pa.Check:
    return pa.Check(
        lambda df: df[column].nunique() == n,
        error=f"column {column!r} must have {n} distinct values",
    )


def _human(low: float, high: float) -> pa.Column:
    return pa.Column(float, pa.Check.in_range(low, high))


def _human_scores(benchmark: Benchmark) -> dict[str, pa.Column]:
    """The human-score columns of a benchmark's tidy table, each within its scale."""
    return {c: _human(*scale) for c, scale in benchmark.human_scales.items()}


def _grid(keys: Sequence[str], rows_per_key: int) -> pa.Check:
    """Every combination of ``keys`` present occurs exactly ``rows_per_key`` times."""
    return pa.Check(
        lambda df: bool((df.groupby(list(keys)).size() == rows_per_key).all()),
        error=f"each {tuple(keys)} must occur exactly {rows_per_key} times",
    )


SUMMEVAL = pa.DataFrameSchema(
    {
        "doc_id": pa.Column(_STR, _TEXT),
        "system_id": pa.Column(_STR, _TEXT),
        "source": pa.Column(_STR, _TEXT),
        "reference": pa.Column(_STR, _TEXT),
        "system_output": pa.Column(_STR, _TEXT),
        **_human_scores(_SUMMEVAL),
    },
    checks=[
        _n_rows(SUMMEVAL_N_DOCS * SUMMEVAL_N_SYSTEMS),
        _n_unique("doc_id", SUMMEVAL_N_DOCS),
        _n_unique("system_id", SUMMEVAL_N_SYSTEMS),
    ],
    unique=["doc_id", "system_id"],
    strict=True,
    ordered=True,
    name=_SUMMEVAL.name,
)

MULTIREF = pa.DataFrameSchema(
    {
        "doc_id": pa.Column(_STR, _TEXT),
        "ref_index": pa.Column(int, pa.Check.in_range(0, MULTIREF_N_REFS - 1)),
        "reference": pa.Column(_STR, _TEXT),
    },
    checks=[
        _n_rows(SUMMEVAL_N_DOCS * MULTIREF_N_REFS),
        _n_unique("doc_id", SUMMEVAL_N_DOCS),
    ],
    unique=["doc_id", "ref_index"],
    strict=True,
    ordered=True,
    name="summeval_multiref",
)

TOPICAL_CHAT = pa.DataFrameSchema(
    {
        "item_id": pa.Column(
            int,
            pa.Check.in_range(0, TOPICAL_CHAT_N_CONTEXTS * TOPICAL_CHAT_N_SYSTEMS - 1),
            unique=True,
        ),
        "context_id": pa.Column(int, pa.Check.in_range(0, TOPICAL_CHAT_N_CONTEXTS - 1)),
        "system_id": pa.Column(_STR, _TEXT),
        "history": pa.Column(_STR, _TEXT),
        "fact": pa.Column(_STR, _TEXT),
        "response": pa.Column(_STR, _TEXT),
        **_human_scores(_TOPICAL_CHAT),
        **{f"unieval_{dim}": pa.Column(float) for dim in TOPICAL_CHAT_DIMENSIONS},
    },
    checks=[
        _n_rows(TOPICAL_CHAT_N_CONTEXTS * TOPICAL_CHAT_N_SYSTEMS),
        _n_unique("context_id", TOPICAL_CHAT_N_CONTEXTS),
        _n_unique("system_id", TOPICAL_CHAT_N_SYSTEMS),
        _grid(["context_id"], TOPICAL_CHAT_N_SYSTEMS),
    ],
    unique=["context_id", "system_id"],
    strict=True,
    ordered=True,
    name=_TOPICAL_CHAT.name,
)

_QAGS_SUBSET = pa.Column(_STR, pa.Check.isin(list(QAGS_N_ITEMS)))


def _qags_subset_size(column: str | None) -> pa.Check:
    """The table holds one subset, and as many items (or distinct ``column`` values) as it has."""

    def check(df: pd.DataFrame) -> bool:
        subsets = df["subset"].unique()
        if len(subsets) != 1:
            return False
        count = len(df) if column is None else df[column].nunique()
        return count == QAGS_N_ITEMS.get(str(subsets[0]), -1)

    what = "rows" if column is None else f"distinct {column} values"
    return pa.Check(check, error=f"one subset per table, with {QAGS_N_ITEMS} {what}")


QAGS = pa.DataFrameSchema(
    {
        "subset": _QAGS_SUBSET,
        "item_id": pa.Column(int, pa.Check.ge(0), unique=True),
        "doc_id": pa.Column(int, pa.Check.ge(0)),
        "system_id": pa.Column(int, pa.Check.ge(0)),
        "source": pa.Column(_STR, _TEXT),
        "reference": pa.Column(_STR, _TEXT),
        "summary": pa.Column(_STR, _TEXT),
        **_human_scores(_QAGS),
        "unieval_consistency": pa.Column(float, pa.Check.in_range(0.0, 1.0)),
    },
    checks=[_qags_subset_size(None)],
    unique=["doc_id", "system_id"],
    strict=True,
    ordered=True,
    name="qags",
)

QAGS_MTURK = pa.DataFrameSchema(
    {
        "subset": _QAGS_SUBSET,
        "summary_index": pa.Column(int, pa.Check.ge(0)),
        "sentence_index": pa.Column(int, pa.Check.ge(0)),
        "sentence": pa.Column(_STR, _TEXT),
        "worker_id": pa.Column(int, pa.Check.ge(0)),
        "response": pa.Column(_STR, pa.Check.isin(["yes", "no"])),
    },
    checks=[
        _qags_subset_size("summary_index"),
        _grid(["summary_index", "sentence_index"], 3),
    ],
    unique=["summary_index", "sentence_index", "worker_id"],
    strict=True,
    ordered=True,
    name="qags_mturk",
)

_SUMMEVAL_KEYS = {
    "doc_id": pa.Column(_STR, _TEXT),
    "system_id": pa.Column(_STR, _TEXT),
}
_SUMMEVAL_DIMENSION = pa.Column(_STR, pa.Check.isin(list(SUMMEVAL_DIMENSIONS)))
_SUMMEVAL_GRID = [
    _n_unique("doc_id", SUMMEVAL_N_DOCS),
    _n_unique("system_id", SUMMEVAL_N_SYSTEMS),
]

METRICEVAL_EXPERTS = pa.DataFrameSchema(
    {
        **_SUMMEVAL_KEYS,
        "annotator": pa.Column(int, pa.Check.in_range(1, METRICEVAL_N_EXPERTS)),
        "dimension": _SUMMEVAL_DIMENSION,
        "score": pa.Column(int, pa.Check.in_range(1, 5)),
    },
    checks=[
        _n_rows(
            SUMMEVAL_N_DOCS * SUMMEVAL_N_SYSTEMS * METRICEVAL_N_EXPERTS * len(SUMMEVAL_DIMENSIONS)
        ),
        *_SUMMEVAL_GRID,
    ],
    unique=["doc_id", "system_id", "annotator", "dimension"],
    strict=True,
    ordered=True,
    name="metriceval_experts",
)

#: Every expert rating MetricEval's file holds: the 17 systems SummEval annotated.
METRICEVAL_ANNOTATED_EXPERTS = pa.DataFrameSchema(
    METRICEVAL_EXPERTS.columns,
    checks=[
        _n_rows(
            SUMMEVAL_N_DOCS
            * SUMMEVAL_N_ANNOTATED_SYSTEMS
            * METRICEVAL_N_EXPERTS
            * len(SUMMEVAL_DIMENSIONS)
        ),
        _n_unique("doc_id", SUMMEVAL_N_DOCS),
        _n_unique("system_id", SUMMEVAL_N_ANNOTATED_SYSTEMS),
    ],
    unique=["doc_id", "system_id", "annotator", "dimension"],
    strict=True,
    ordered=True,
    name="metriceval_annotated_experts",
)

_FINITE = pa.Check(lambda s: s.abs() < float("inf"), error="must be finite")

_DIALSUMMEVAL_GRID = [
    _n_unique("doc_id", DIALSUMMEVAL_N_DIALOGUES),
    _n_unique("system_id", DIALSUMMEVAL_N_SYSTEMS),
]

DIALSUMMEVAL = pa.DataFrameSchema(
    {
        "doc_id": pa.Column(_STR, _TEXT),
        "system_id": pa.Column(_STR, _TEXT),
        "system_name": pa.Column(_STR, _TEXT),
        "dialogue": pa.Column(_STR, _TEXT),
        "reference": pa.Column(_STR, _TEXT),
        "summary": pa.Column(_STR, _TEXT),
        **_human_scores(_DIALSUMMEVAL),
        **{f"released:{m}": pa.Column(float, _FINITE) for m in DIALSUMMEVAL_RELEASED_METRICS},
    },
    checks=[
        _n_rows(DIALSUMMEVAL_N_DIALOGUES * DIALSUMMEVAL_N_SYSTEMS),
        *_DIALSUMMEVAL_GRID,
        _grid(["doc_id"], DIALSUMMEVAL_N_SYSTEMS),
    ],
    unique=["doc_id", "system_id"],
    strict=True,
    ordered=True,
    name=_DIALSUMMEVAL.name,
)


def _data_to_text_size(df: pd.DataFrame) -> bool:
    """One set per table, with its items and dialogue acts."""
    subsets = df["subset"].unique()
    if len(subsets) != 1 or str(subsets[0]) not in DATA_TO_TEXT_COUNTS:
        return False
    return (len(df), df["act_id"].nunique()) == DATA_TO_TEXT_COUNTS[str(subsets[0])]


DATA_TO_TEXT = pa.DataFrameSchema(
    {
        "subset": pa.Column(_STR, pa.Check.isin(list(DATA_TO_TEXT_COUNTS))),
        "item_id": pa.Column(int, pa.Check.ge(0), unique=True),
        "act_id": pa.Column(int, pa.Check.ge(0)),
        "dialogue_act": pa.Column(_STR, _TEXT),
        "reference": pa.Column(_STR, _TEXT),
        "utterance": pa.Column(_STR, _TEXT),
        **_human_scores(_SFRES),
        **{
            f"unieval_{d}": pa.Column(float, pa.Check.in_range(0.0, 1.0))
            for d in DATA_TO_TEXT_DIMENSIONS
        },
    },
    checks=[
        pa.Check(
            _data_to_text_size,
            error=f"one set per table, with its (items, dialogue acts): {DATA_TO_TEXT_COUNTS}",
        ),
        pa.Check(
            lambda df: bool((df.groupby("act_id")["reference"].nunique() == 1).all()),
            error="every dialogue act has one reference utterance",
        ),
    ],
    strict=True,
    ordered=True,
    name="data_to_text",
)


def _summedits_counts(df: pd.DataFrame) -> bool:
    """Every domain with its pinned pairs and documents per split, and no document in two
    splits."""
    pairs = df.groupby(["domain", "split"], observed=True).size()
    documents = df.groupby(["domain", "split"], observed=True)["doc_id"].nunique()
    expected_pairs = {
        (d, split): n
        for d, ns in SUMMEDITS_COUNTS.items()
        for split, n in zip(SUMMEDITS_SPLITS, ns, strict=True)
    }
    expected_docs = {
        (d, split): n
        for d, ns in SUMMEDITS_DOCUMENTS.items()
        for split, n in zip(SUMMEDITS_SPLITS, ns, strict=True)
    }
    return (
        {(str(d), str(s)): int(n) for (d, s), n in pairs.items()} == expected_pairs
        and {(str(d), str(s)): int(n) for (d, s), n in documents.items()} == expected_docs
        and bool((df.groupby("doc_id")["split"].nunique() == 1).all())
    )


SUMMEDITS = pa.DataFrameSchema(
    {
        "domain": pa.Column(_STR, pa.Check.isin(list(SUMMEDITS_COUNTS))),
        "split": pa.Column(_STR, pa.Check.isin(list(SUMMEDITS_SPLITS))),
        "item_id": pa.Column(_STR, _TEXT, unique=True),
        "doc_id": pa.Column(_STR, _TEXT),
        "source": pa.Column(_STR, _TEXT),
        "summary": pa.Column(_STR, _TEXT),
        "label": pa.Column(int, pa.Check.isin([0, 1])),
        "seed": pa.Column(bool),
        "edit_types": pa.Column(_STR),
    },
    checks=[
        _n_rows(sum(sum(n) for n in SUMMEDITS_COUNTS.values())),
        pa.Check(
            _summedits_counts,
            error=f"pairs per (domain, split): {SUMMEDITS_COUNTS}; documents per (domain, split): "
            f"{SUMMEDITS_DOCUMENTS}; no document in both splits",
        ),
        pa.Check(
            lambda df: bool((df.groupby("doc_id")["source"].nunique() == 1).all()),
            error="every document id has one document text",
        ),
    ],
    strict=True,
    ordered=True,
    name=_SUMMEDITS.name,
)


DIALSUMMEVAL_ANNOTATORS = pa.DataFrameSchema(
    {
        "doc_id": pa.Column(_STR, _TEXT),
        "system_id": pa.Column(_STR, _TEXT),
        "annotator": pa.Column(int, pa.Check.in_range(1, DIALSUMMEVAL_N_ANNOTATORS)),
        "dimension": pa.Column(_STR, pa.Check.isin(list(_DIALSUMMEVAL.dimension_names))),
        "score": pa.Column(int, pa.Check.in_range(1, 5)),
    },
    checks=[
        _n_rows(
            DIALSUMMEVAL_N_DIALOGUES
            * DIALSUMMEVAL_N_SYSTEMS
            * DIALSUMMEVAL_N_ANNOTATORS
            * len(_DIALSUMMEVAL.dimension_names)
        ),
        *_DIALSUMMEVAL_GRID,
    ],
    unique=["doc_id", "system_id", "annotator", "dimension"],
    strict=True,
    ordered=True,
    name="dialsummeval_annotators",
)


def _judge_schema(benchmark: str, name: str, columns: dict[str, pa.Column]) -> pa.DataFrameSchema:
    """A long judge table of ``benchmark``: run keys, the benchmark's item keys (of its
    ``item_key_type``), ``columns``."""
    entry = get_benchmark(benchmark)
    keys = {
        key: pa.Column(_STR, _TEXT)
        if entry.item_key_type is str
        else pa.Column(int, pa.Check.ge(0))
        for key in entry.item_keys
    }
    unique = ["judge", "benchmark", "dimension", *entry.item_keys]
    extra_keys = [c for c in columns if c in ("reply_index", "rating")]
    return pa.DataFrameSchema(
        {
            "judge": pa.Column(_STR, _TEXT),
            "benchmark": pa.Column(_STR, pa.Check.isin([benchmark])),
            "dimension": pa.Column(_STR, pa.Check.isin(list(entry.dimension_names))),
            **keys,
            **columns,
        },
        unique=[*unique, *extra_keys],
        strict=True,
        ordered=True,
        name=name,
    )


def item_scores_schema(benchmark: str) -> pa.DataFrameSchema:
    """Per-item judge scores (format ``scores``): one finite ``score`` per item."""
    return _judge_schema(benchmark, "item_scores", {"score": pa.Column(float, _FINITE)})


def replies_schema(benchmark: str) -> pa.DataFrameSchema:
    """Raw judge replies in long form: one row per (item, reply_index)."""
    columns = {"reply_index": pa.Column(int, pa.Check.ge(0)), "reply": pa.Column(_STR)}
    return _judge_schema(benchmark, "replies", columns)


def rating_probs_schema(benchmark: str) -> pa.DataFrameSchema:
    """A judge's probability of each valid rating (its ``rating_probs``), one row per (item,
    rating).

    ``off_scale_mass`` (repeated on the item's rows, NaN when the file gives none) is the
    probability that fell on tokens that are not a rating.
    """
    columns = {
        "rating": pa.Column(int),
        "prob": pa.Column(float, pa.Check.in_range(0.0, 1.0 + 1e-9)),
        "off_scale_mass": pa.Column(float, pa.Check.in_range(0.0, 1.0 + 1e-9), nullable=True),
    }
    return _judge_schema(benchmark, "rating_probs", columns)


_MAX_REPORTED_FAILURES = 5


UPSTREAM_FIX = (
    "the file differs from the pinned upstream version; fetch it again so that its SHA-256 "
    "matches geval_repro/data/sources.yaml"
)


def validate_table(
    table: pd.DataFrame,
    schema: pa.DataFrameSchema,
    path: str | Path,
    item_columns: Sequence[str],
    fix: str = UPSTREAM_FIX,
) -> pd.DataFrame:
    """``table`` validated by ``schema``; a failure names ``path``, the failing items and ``fix``.

    Every check runs (lazy validation); the message lists the first few failures, each with
    the failing item identified by its ``item_columns`` values.
    """
    try:
        return schema.validate(table, lazy=True)
    except pa.errors.SchemaErrors as errors:
        cases = errors.failure_cases.drop_duplicates(["check", "index"])
        lines = []
        for case in cases.head(_MAX_REPORTED_FAILURES).itertuples(index=False):
            item = ""
            if pd.notna(case.index) and case.index in table.index:
                row = table.loc[case.index]
                values = ", ".join(f"{col}={row[col]!r}" for col in item_columns)
                item = f" at row {case.index} ({values})"
            where = case.column or "table"
            lines.append(f"  - {where}: {case.check} failed{item} (value {case.failure_case!r})")
        raise ValueError(
            f"{path}: does not match the {schema.name!r} table schema ({len(cases)} failures):\n"
            + "\n".join(lines)
            + f"\nFix: {fix}."
        ) from None


class JsonLinesError(ValueError):
    """A file expected to hold one JSON document holds JSON Lines (one object per line)."""


def _looks_like_jsonl(path: str | Path) -> bool:
    """Whether the file's first two non-empty lines each parse as a JSON object."""
    lines = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                lines.append(line)
            if len(lines) == 2:
                break
    try:
        return len(lines) == 2 and all(isinstance(json.loads(line), dict) for line in lines)
    except ValueError:
        return False


def read_json(path: str | Path, fix: str = UPSTREAM_FIX) -> object:
    """The parsed JSON document at ``path`` (standard library parser, UTF-8); a JSON Lines
    file is refused with :class:`JsonLinesError` saying so."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        if isinstance(error, json.JSONDecodeError) and _looks_like_jsonl(path):
            raise JsonLinesError(
                f"{path}: this looks like JSON Lines (one JSON object per line, as "
                f"`geval-repro judge` writes <dimension>.jsonl), not one JSON document. "
                f"Fix: {fix}."
            ) from None
        raise ValueError(f"{path}: not valid UTF-8 JSON ({error}). Fix: {fix}.") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read. Fix: {fix}.") from None


def read_csv(path: str | Path, fix: str = UPSTREAM_FIX) -> pd.DataFrame:
    """The CSV table at ``path`` (pandas' parser, UTF-8); an unreadable file names ``path``."""
    try:
        return pd.read_csv(path, encoding="utf-8")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not a readable UTF-8 CSV table ({error}). Fix: {fix}.") from None


def require_records(
    records: object, keys: Sequence[str], path: str | Path, fix: str = UPSTREAM_FIX
) -> list[dict]:
    """``records`` checked to be a JSON list of objects that each hold every key in ``keys``."""
    if not isinstance(records, list):
        raise ValueError(
            f"{path}: expected a JSON list of items, found {type(records).__name__}. Fix: {fix}."
        )
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(
                f"{path}: item {index} is a {type(record).__name__}, not a JSON object. Fix: {fix}."
            )
        missing = [key for key in keys if key not in record]
        if missing:
            raise ValueError(
                f"{path}: item {index} lacks the key(s) {missing} (has {sorted(record)}). "
                f"Fix: {fix}."
            )
    return records


def require_numbers(
    mapping: object, keys: Sequence[str], path: str | Path, where: str, fix: str = UPSTREAM_FIX
) -> list[float]:
    """``mapping[key]`` for each of ``keys`` as floats; ``where`` names the item in errors."""
    if not isinstance(mapping, dict):
        raise ValueError(
            f"{path}: {where} is a {type(mapping).__name__}, not a JSON object. Fix: {fix}."
        )
    values = []
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{path}: {where}[{key!r}] = {value!r} is not a number. Fix: {fix}.")
        values.append(float(value))
    return values
