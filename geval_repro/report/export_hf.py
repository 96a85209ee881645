"""Export the tidy benchmarks and the judge runs as a Hugging Face ``datasets`` dataset.

Layout: one :class:`datasets.DatasetDict` saved with ``save_to_disk`` at ``OUT``, one split
per benchmark of the registry whose tidy table the export is given, in the registry's order
(``summeval``, ``topical_chat``, ``qags_cnndm``, ``qags_xsum``, ``writer_vs_llm``, ...), and a
dataset card ``OUT/README.md``. Load it with ``datasets.load_from_disk(OUT)["summeval"]``. The
splits are benchmarks, not train/test partitions (every one is an evaluation set), so each
split has its own columns:

- every column of the tidy table ``data/processed/<benchmark>.parquet`` (item keys, the texts
  a judge reads, the human scores and UniEval's predictions where released), with
  ``system_id`` as a :class:`datasets.ClassLabel` (names: the benchmark's systems in natural
  order) and scores as ``float64``;
- for every judge run evaluated on the benchmark, columns ``<judge>.<dimension>.<field>``
  joined by the benchmark's item keys (:data:`geval_repro.registry.benchmarks.BENCHMARKS`), empty
  (null) for items the run did not score. Fields come from the run's processed tables under
  ``data/processed/judges/<judge>/``: ``replies`` (the sampled replies in their released
  order, a sequence of strings, from ``replies.parquet``); ``score`` (``scores.parquet``);
  and from ``item_scores.parquet`` every per-item column, prefixed by its parser when the
  table has one (``original.mean``, ``tolerant.first``, ...). A list-valued column becomes
  a sequence of floats.
- for a run with rating probabilities (format ``geval-jsonl``, ``rating_probs.parquet``):
  ``rating_probs``, a sequence of floats with the probability of each rating of the
  dimension's judge scale, lowest rating first (the ratings are listed in the card, per run
  and dimension: SummEval fluency has 3, Topical-Chat groundedness 2, so a fixed set of
  ``p_1..p_5`` columns would not fit every dimension); ``weighted_score`` (Eq. 1, the
  renormalized expected rating), ``most_likely_rating``, ``rating_mass`` (sum of the rating
  probabilities) and ``off_scale_mass`` (null when the file gives none), as computed by
  :func:`geval_repro.scoring.rating_probs.rating_scores`.

``datasets.Dataset.flatten`` is not needed: the columns are flat already.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from geval_repro.files.paths import PathLike
from geval_repro.registry.benchmarks import BENCHMARKS, NAMES
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.sources import PACKAGE_DATA, get_source

CITATIONS_PATH = PACKAGE_DATA / "CITATIONS.bib"
JUDGE_TABLES = ("replies.parquet", "item_scores.parquet", "scores.parquet", "rating_probs.parquet")
_KEYS = ("judge", "benchmark", "dimension", "parser", "reply_index")
INSTALL_HINT = "the Hugging Face export needs `datasets`: pip install 'geval-repro[hf]'"


def _natural(text: str) -> list[Any]:
    """Sort key: digit runs compare as numbers (M2 before M11)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def sha256(path: PathLike) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _feature(series: pd.Series) -> Any:
    """The ``datasets`` feature of a column: string, bool, int64, float64 or a sequence."""
    from datasets import Sequence as Seq
    from datasets import Value

    if pd.api.types.is_bool_dtype(series):
        return Value("bool")
    if pd.api.types.is_integer_dtype(series):
        return Value("int64")
    if pd.api.types.is_float_dtype(series):
        return Value("float64")
    if pd.api.types.is_string_dtype(series) and not series.map(_is_list).any():
        return Value("string")
    values = [v for v in series if _is_list(v) and len(v)]
    if values and all(isinstance(x, str) for v in values for x in v):
        return Seq(Value("string"))
    return Seq(Value("float64"))


def _is_list(value: object) -> bool:
    return isinstance(value, list | tuple | np.ndarray)


def judge_columns(judge_dir: PathLike, judge: str, benchmark: str) -> pd.DataFrame:
    """The run's per-item columns for ``benchmark``, one row per item, keyed by item keys.

    Columns ``<judge>.<dimension>.<field>`` (see the module docstring); empty when the run
    has no item of this benchmark. An item-key column missing from a table is an error
    naming the file.
    """
    keys = list(BENCHMARKS[benchmark].item_keys)
    parts: list[pd.DataFrame] = []
    for name in JUDGE_TABLES:
        path = Path(judge_dir) / name
        if not path.is_file():
            continue
        table = pd.read_parquet(path)
        if "benchmark" in table.columns:
            table = table[table["benchmark"] == benchmark]
        if table.empty:
            continue
        missing = [k for k in (*keys, "dimension") if k not in table.columns]
        if missing:
            raise ValueError(
                f"{path}: lacks the item keys {missing} of {benchmark} ({keys}); fix: rebuild "
                "the run's processed tables with this version of the pipeline"
            )
        if name == "rating_probs.parquet":
            wide = _rating_columns(table, keys)
        elif name == "replies.parquet":
            ordered = table.sort_values([*keys, "dimension", "reply_index"], kind="stable")
            wide = (
                ordered.groupby([*keys, "dimension"], sort=True)["reply"]
                .agg(list)
                .rename("replies")
                .to_frame()
            )
        else:
            fields = [c for c in table.columns if c not in (*_KEYS, *keys)]
            index = [*keys, "dimension", *(["parser"] if "parser" in table.columns else [])]
            wide = table.set_index(index)[fields]
            if "parser" in table.columns:
                wide = wide.unstack("parser")
                wide.columns = [f"{parser}.{field}" for field, parser in wide.columns]
        wide = wide.unstack("dimension")
        wide.columns = [f"{judge}.{dimension}.{field}" for field, dimension in wide.columns]
        parts.append(wide)
    if not parts:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=keys))
    joined = pd.concat(parts, axis=1)
    return joined[sorted(joined.columns, key=_natural)]


def _rating_columns(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per (item, dimension) of a ``rating_probs`` table: the rating distribution as one list
    (lowest rating first) and the scores of :func:`rating_scores` (module docstring)."""
    from geval_repro.scoring.rating_probs import rating_scores

    scores = rating_scores(table)
    probabilities = [c for c in scores.columns if c.startswith("p_")]  # sorted by rating
    index = [*keys, "dimension"]
    present = scores[probabilities].notna().to_numpy()
    matrix = scores[probabilities].to_numpy(dtype=float)
    distribution = [list(row[mask]) for row, mask in zip(matrix, present, strict=True)]
    wide = scores.assign(
        rating_probs=distribution,
        weighted_score=scores["probs"],
        most_likely_rating=scores["top_rating"],
    )
    fields = [
        "rating_probs",
        "weighted_score",
        "most_likely_rating",
        "rating_mass",
        "off_scale_mass",
    ]
    return wide.set_index(index)[fields]


def ratings(judge_dir: PathLike) -> dict[str, list[int]]:
    """Dimension -> the ratings (lowest first) of a run's ``rating_probs.parquet`` ({} if none)."""
    path = Path(judge_dir) / "rating_probs.parquet"
    if not path.is_file():
        return {}
    table = pd.read_parquet(path, columns=["dimension", "rating"])
    return {
        str(dimension): sorted(int(v) for v in part["rating"].unique())
        for dimension, part in table.groupby("dimension", sort=True)
    }


def benchmark_dataset(
    tidy: pd.DataFrame, judges: Mapping[str, PathLike], benchmark: str
) -> tuple[Any, dict[str, int]]:
    """One benchmark as a ``datasets.Dataset`` with typed features, and the items per judge.

    ``tidy``: the benchmark's tidy table; ``judges``: run name -> its processed folder. A
    judge item that is not in the tidy table is an error naming the run and the item.
    """
    from datasets import ClassLabel, Dataset, Features, Value

    keys = list(BENCHMARKS[benchmark].item_keys)
    table = tidy.reset_index(drop=True)
    scored: dict[str, int] = {}
    for judge, folder in judges.items():
        columns = judge_columns(folder, judge, benchmark).reset_index()
        if columns.empty:
            continue
        columns = columns.astype({k: table[k].dtype for k in keys})
        check = columns[keys].merge(table[keys], on=keys, how="left", indicator=True)
        unknown = check[check["_merge"] == "left_only"]
        if not unknown.empty:
            raise ValueError(
                f"judge run {judge!r}: {len(unknown)} items are not in the {benchmark} table, "
                f"e.g. {unknown[keys].head(3).to_dict('records')}; fix: the run's item keys "
                f"must be {keys} as in data/processed/{benchmark}.parquet"
            )
        scored[judge] = len(columns)
        counts = [c for c in columns.columns if pd.api.types.is_integer_dtype(columns[c])]
        columns = columns.astype(dict.fromkeys(set(counts) - set(keys), "Int64"))  # nullable
        table = table.merge(columns, on=keys, how="left", validate="one_to_one")
    features: dict[str, Any] = {}
    for column in table.columns:
        if column == "system_id":
            names = sorted({str(v) for v in table[column]}, key=_natural)
            features[column] = ClassLabel(names=names)
            codes = {name: i for i, name in enumerate(names)}
            table[column] = table[column].astype(str).map(codes)
            continue
        features[column] = _feature(table[column])
        if not isinstance(features[column], Value):  # a sequence: lists, None when missing
            table[column] = [list(v) if _is_list(v) else None for v in table[column]]
    dataset = Dataset.from_pandas(table, features=Features(features), preserve_index=False)
    return dataset, scored


def bibtex_entries(keys: Sequence[str], path: PathLike = CITATIONS_PATH) -> str:
    """The BibTeX entries of ``keys`` from ``CITATIONS.bib``, in the order given.

    An unknown key is an error naming the file.
    """
    text = Path(path).read_text(encoding="utf-8")
    entries = {
        match.group(1).strip(): match.group(0).strip()
        for match in re.finditer(r"(?ms)^@\w+\{([^,]+),.*?^\}", text)
    }
    missing = [key for key in keys if key not in entries]
    if missing:
        raise ValueError(f"{path}: no BibTeX entry for {missing}")
    return "\n\n".join(entries[key] for key in dict.fromkeys(keys))


def _file_rows(spec: JudgeSpec) -> list[str]:
    """Card rows "| dimension | file | SHA-256 |" for the files of one judge run."""
    rows = []
    for dimension, file in spec.files.items():
        if file.source is not None:
            source = get_source(file.source)
            where, digest = f"{source.url} (source `{source.id}`)", source.sha256
        elif file.url is not None:
            where, digest = file.url, file.sha256
        else:
            path = Path(str(file.path))
            where = f"local file `{path}`"
            digest = sha256(path) if path.is_file() else "(file not found at export time)"
        rows.append(f"| {dimension} | {where} | `{digest}` |")
    return rows


def dataset_card(
    splits: Mapping[str, Any],
    scored: Mapping[str, Mapping[str, int]],
    judges: Mapping[str, JudgeSpec | None],
    inputs: Mapping[str, str],
    scales: Mapping[str, Mapping[str, Sequence[int]]] | None = None,
) -> str:
    """The dataset card (README.md): layout, splits, judge runs, sources, licences, citations.

    ``splits``: benchmark -> Dataset; ``scored``: benchmark -> judge -> items scored;
    ``judges``: run name -> its spec (None: not in the configuration); ``inputs``:
    processed table (relative name) -> SHA-256; ``scales``: run -> dimension -> the ratings of
    its ``rating_probs`` sequences, lowest first (runs with rating probabilities only).
    """
    scales = scales or {}
    fixtures = [name for name, spec in judges.items() if spec and spec.status == "fixture"]
    lines = [
        "---",
        "pretty_name: G-Eval meta-evaluation benchmarks with judge runs (geval-repro export)",
        "license: other",
        "language:",
        "- en",
        "tags:",
        "- nlg-evaluation",
        "- meta-evaluation",
        "- llm-as-a-judge",
        "---",
        "",
        "# G-Eval meta-evaluation benchmarks with judge runs",
        "",
        "The benchmarks on which G-Eval (Liu et al., EMNLP 2023) is meta-evaluated, as the "
        "tidy tables of the geval-repro toolkit, with every judge run evaluated in "
        "the export's pipeline run joined by item. Written by `geval-repro export --format hf` "
        "(or `snakemake export_hf`) with `datasets.DatasetDict.save_to_disk`.",
        "",
    ]
    if fixtures:
        lines += [
            f"**Fixture data.** The judge runs {', '.join(f'`{f}`' for f in fixtures)} are "
            "synthetic test data, not results: never cite their columns.",
            "",
        ]
    lines += [
        "## Layout",
        "",
        "One `DatasetDict`, one split per benchmark (each an evaluation set, not a "
        "train/test partition, so each split has its own columns):",
        "",
        "```python",
        "from datasets import load_from_disk",
        "",
        'summeval = load_from_disk("PATH")["summeval"]',
        "```",
        "",
        "Columns: every column of the tidy table `data/processed/<benchmark>.parquet` (item "
        "keys, the texts a judge reads, human scores as the mean of the annotators, UniEval's "
        "released predictions where present); `system_id` is a `ClassLabel`. Each judge run "
        "adds `<judge>.<dimension>.<field>` columns joined by the benchmark's item keys, null "
        "where the run did not score the item: `replies` (sampled replies in their released "
        "order), `score` (per-item scores files), and the per-item scores of the run's "
        "`item_scores.parquet`, prefixed by the reply parser (`original.mean` = the paper's "
        "mean of the replies, unread replies counted as 0; `tolerant.*` = unread replies left "
        "out; `first` = the first reply; `mode`). A run with rating probabilities (format "
        "`geval-jsonl`) adds `rating_probs`, a sequence with the probability of each rating of "
        "the dimension's judge scale, lowest rating first (the ratings of each run and "
        "dimension are listed under Judge runs), `weighted_score` (Eq. 1: sum of p(rating) x "
        "rating over the rating mass), `most_likely_rating`, `rating_mass` (sum of the rating "
        "probabilities) and `off_scale_mass` (probability on tokens that are not a rating; "
        "null when not given).",
        "",
        "| split | benchmark | paper table | items | item keys | human dimensions (scale) | "
        "judge runs (items scored) | cite |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, dataset in splits.items():
        benchmark = BENCHMARKS[name]
        dimensions = ", ".join(
            f"{name} ({low:g}-{high:g})"
            for name, (low, high) in benchmark.human_scales.items()
            if name in benchmark.dimension_names
        )
        if benchmark.preferences is not None:  # no per-item human score: say what there is
            questions = ", ".join(benchmark.preferences.questions)
            dimensions = (
                f"none: pairwise preferences ({questions}) in `{benchmark.preferences.table}`"
            )
        runs = ", ".join(f"`{j}` ({n})" for j, n in scored[name].items()) or "none"
        table = benchmark.paper_table or "–"
        lines.append(
            f"| `{name}` | {benchmark.title} | {table} | {dataset.num_rows} | "
            f"{', '.join(benchmark.item_keys)} | {dimensions} | {runs} | "
            f"{', '.join(f'`{key}`' for key in benchmark.citations)} |"
        )
    used = [j for j in judges if any(j in runs for runs in scored.values())]
    if used:
        lines += ["", "## Judge runs", ""]
        for judge in used:
            spec = judges[judge]
            label = spec.label if spec else "(no label: the run is not in the configuration)"
            fixture = spec is not None and spec.status == "fixture"
            status = "FIXTURE (synthetic test data, not a result)" if fixture else ""
            lines += [f"### `{judge}`", "", f"{label}" + (f". **{status}**" if status else ""), ""]
            if spec and spec.paper_metric:
                lines += [f"Faces the paper's `{spec.paper_metric}` rows.", ""]
            if scales.get(judge):
                listed = "; ".join(
                    f"{dimension}: {', '.join(map(str, values))}"
                    for dimension, values in scales[judge].items()
                )
                lines += [f"Ratings of `rating_probs`, lowest first: {listed}.", ""]
            rows = _file_rows(spec) if spec else []
            if rows:
                lines += ["| dimension | file | SHA-256 |", "|---|---|---|", *rows, ""]
    source_ids = list(dict.fromkeys(s for name in splits for s in BENCHMARKS[name].sources))
    sources = [get_source(s) for s in source_ids]
    lines += [
        "",
        "## Sources and licences",
        "",
        "The tidy tables are built from these upstream files, pinned to a commit and verified "
        "by SHA-256 (registry: `geval_repro/data/sources.yaml`). Licences as stated by the "
        "upstream repositories; files without a licence are the authors' public research "
        "releases: check their terms before redistributing this export.",
        "",
        "| source | file | SHA-256 | licence | cite |",
        "|---|---|---|---|---|",
        *(f"| `{s.id}` | {s.url} | `{s.sha256}` | {s.license} | `{s.citation}` |" for s in sources),
        "",
        "Processed tables this export was built from:",
        "",
        "| table | SHA-256 |",
        "|---|---|",
        *(f"| `{name}` | `{digest}` |" for name, digest in inputs.items()),
        "",
        "## Citation",
        "",
        "```bibtex",
        bibtex_entries(
            [
                "liu2023geval",
                *(key for name in splits for key in BENCHMARKS[name].citations),
                *(s.citation for s in sources),
            ]
        ),
        "```",
        "",
    ]
    return "\n".join(lines)


def export_hf(
    processed: PathLike,
    out: PathLike,
    judges: Mapping[str, JudgeSpec | None] | None = None,
    benchmarks: Sequence[str] = NAMES,
) -> dict[str, dict[str, int]]:
    """Write the Hugging Face export of ``benchmarks`` to ``out`` (see the module docstring).

    ``processed``: the folder of the tidy tables (``data/processed``); ``judges``: the runs
    to join (name -> its spec, or None when the configuration lacks it), each read from
    ``<processed>/judges/<name>/``.
    The export is built in a temporary folder beside ``out`` and renamed into place, so a
    failure leaves no partial export. Returns benchmark -> judge -> items scored.
    """
    try:
        from datasets import DatasetDict
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise RuntimeError(INSTALL_HINT) from error

    processed, out = Path(processed), Path(out)
    judges = dict(judges or {})
    folders = {name: processed / "judges" / name for name in judges}
    for name, folder in folders.items():
        if not any((folder / table).is_file() for table in JUDGE_TABLES):
            raise FileNotFoundError(
                f"judge run {name!r}: no processed table ({', '.join(JUDGE_TABLES)}) in "
                f"{folder}; fix: run the pipeline for it first (snakemake judges)"
            )
    splits, scored, inputs = {}, {}, {}
    for name in benchmarks:
        path = processed / f"{name}.parquet"
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} is missing; fix: build the tidy tables first (snakemake tables)"
            )
        inputs[path.name] = sha256(path)
        splits[name], scored[name] = benchmark_dataset(pd.read_parquet(path), folders, name)
    for name, folder in folders.items():
        for table in JUDGE_TABLES:
            if (folder / table).is_file():
                inputs[f"judges/{name}/{table}"] = sha256(folder / table)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.{uuid.uuid4().hex}.tmp")
    staging.mkdir()
    try:
        DatasetDict(splits).save_to_disk(str(staging))
        scales = {name: ratings(folder) for name, folder in folders.items()}
        card = dataset_card(splits, scored, judges, inputs, scales)
        (staging / "README.md").write_text(card, encoding="utf-8")
        (staging / "export.json").write_text(
            json.dumps({"splits": list(splits), "judges_scored": scored}, indent=2) + "\n",
            encoding="utf-8",
        )
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
            staging.rename(out)
            shutil.rmtree(old)
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return scored
