"""The benchmark registry (geval_repro.registry.benchmarks) against independent sources.

The paper's printed tables (a transcription, data/paper_tables.csv read as plain CSV), the
released SummEval prompts (their "(1-5)" / "(1-3)" scales) and the tidy tables' pandera
schemas each say something the registry must agree with.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from geval_repro.load.benchmarks import BENCHMARK_LOADERS, TABLE_LOADERS
from geval_repro.load.judge_runs import FORMAT_LOADERS
from geval_repro.registry.baselines import BASELINES, get_protocol
from geval_repro.registry.benchmarks import (
    AVERAGES,
    BENCHMARKS,
    NAMES,
    PAPER_TABLES,
    SUMMEVAL_PROMPTS,
    get_benchmark,
    human_scale,
    table_title,
)
from geval_repro.registry.formats import NAMES as FORMAT_NAMES
from geval_repro.registry.paper import PAPER_TABLES_PATH
from geval_repro.registry.sources import load_registry
from geval_repro.runner.prompts import PROMPTS_DIR

#: The benchmarks of the paper's Tables 1-3 (the registry also holds writer_vs_llm).
PAPER_NAMES = tuple(name for name in NAMES if BENCHMARKS[name].paper_table is not None)

PROMPT_FILES = {
    "coherence": "coh_detailed.txt",
    "consistency": "con_detailed.txt",
    "fluency": "flu_detailed.txt",
    "relevance": "rel_detailed.txt",
}


def _printed() -> list[dict[str, str]]:
    with open(PAPER_TABLES_PATH, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_benchmarks_are_listed_in_the_papers_table_order() -> None:
    assert NAMES == (
        "summeval",
        "topical_chat",
        "qags_cnndm",
        "qags_xsum",
        "dialsummeval",
        "sfres",
        "sfhot",
        "summedits",
        "writer_vs_llm",
    )
    assert PAPER_NAMES == NAMES[:4]
    tables = [BENCHMARKS[name].paper_table for name in PAPER_NAMES]
    assert tables == sorted(tables) == [1, 2, 3, 3]


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_dimensions_are_the_printed_columns(name: str) -> None:
    printed = [row for row in _printed() if row["benchmark"] == name]
    columns = list(dict.fromkeys(row["dimension"] for row in printed if row["dimension"] != "AVG"))
    assert set(columns) == set(get_benchmark(name).dimension_names)
    assert {int(row["table"]) for row in printed} == {get_benchmark(name).paper_table}


def test_the_average_pseudo_benchmark_is_printed_for_qags() -> None:
    assert {name: a.parts for name, a in AVERAGES.items()} == {
        "qags_avg": ("qags_cnndm", "qags_xsum")
    }
    assert any(row["benchmark"] == "qags_avg" for row in _printed())


@pytest.mark.parametrize("name", [*NAMES, *AVERAGES])
def test_printed_coefficients_are_those_of_the_transcribed_tables(name: str) -> None:
    printed = {row["coefficient"] for row in _printed() if row["benchmark"] == name}
    parts = AVERAGES[name].parts if name in AVERAGES else (name,)
    assert set(get_benchmark(parts[0]).printed_coefficients) == printed


def test_paper_tables_are_titled_as_the_paper_heads_them() -> None:
    assert [table_title(n) for n in PAPER_TABLES] == [
        "Table 1: SummEval, summary-level",
        "Table 2: Topical-Chat, turn-level",
        "Table 3: QAGS, dataset-level",
    ]


def test_every_benchmark_names_a_registered_baseline_protocol() -> None:
    named = {name: get_benchmark(name).baselines for name in PAPER_NAMES}
    assert {name: b.protocol for name, b in named.items() if b} == {
        "summeval": "multiref-rouge",
        "topical_chat": "usr-word-overlap",
        "qags_cnndm": "rouge-vs-source",
        "qags_xsum": "rouge-vs-source",
    }
    assert get_benchmark("writer_vs_llm").baselines is None
    for name, baselines in named.items():
        assert baselines is not None and baselines.protocol_variant
        assert get_protocol(baselines.protocol) is BASELINES[baselines.protocol]
        assert baselines.references in (None, *get_benchmark(name).other_tables)
    with pytest.raises(ValueError, match=r"unknown baseline protocol 'bleurt'.*multiref-rouge"):
        get_protocol("bleurt")


@pytest.mark.parametrize("name", NAMES)
def test_every_dimension_has_a_prompt_released_or_shipped(name: str) -> None:
    prompts = get_benchmark(name).prompts
    sources = load_registry()
    for dimension in get_benchmark(name).dimension_names:
        if dimension in prompts.released:
            assert prompts.released[dimension] in sources
        else:
            assert (PROMPTS_DIR / str(prompts.folder) / f"{dimension}.txt").is_file()


def test_every_further_table_has_its_loader_and_source() -> None:
    sources = load_registry()
    named = {t: s for b in BENCHMARKS.values() for t, s in b.other_tables.items()}
    assert set(named) == set(TABLE_LOADERS)
    assert set(named.values()) <= set(sources)


@pytest.mark.parametrize("name", NAMES)
def test_keys_texts_and_dimensions_are_columns_of_the_tidy_schema(name: str) -> None:
    benchmark = get_benchmark(name)
    columns = set(BENCHMARK_LOADERS[name].schema.columns)
    assert set(benchmark.item_keys) <= columns
    assert set(benchmark.texts.values()) <= columns
    assert set(benchmark.human_dimensions) <= columns
    if benchmark.group_key is not None:
        assert benchmark.group_key in columns


@pytest.mark.parametrize("dimension", sorted(PROMPT_FILES))
def test_summeval_judge_scales_are_the_released_prompts(mirror_dir: Path, dimension: str) -> None:
    prompt = next(mirror_dir.glob(f"nlpyang/geval/*/prompts/summeval/{PROMPT_FILES[dimension]}"))
    found = re.search(rf"{dimension.capitalize()} \((\d)-(\d)\)", prompt.read_text())
    assert found, f"no scale in {prompt}"
    expected = (int(found.group(1)), int(found.group(2)))
    assert get_benchmark("summeval").dimension(dimension).judge_scale == expected


def test_levels_follow_the_papers_protocol() -> None:
    # Summary level for SummEval (per document), turn level for Topical-Chat, dataset level
    # for QAGS (one correlation over all items).
    assert get_benchmark("summeval").level == "summary"
    assert get_benchmark("summeval").group_key == "doc_id"
    assert get_benchmark("topical_chat").level_name == "turn"
    assert {get_benchmark(n).level_name for n in ("qags_cnndm", "qags_xsum")} == {"dataset"}
    assert {get_benchmark(n).level for n in PAPER_NAMES[1:]} == {"global"}


def test_unknown_names_are_refused_with_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="use one of"):
        get_benchmark("summ_eval")
    with pytest.raises(ValueError, match=r"no dimension 'fluency'.*naturalness"):
        get_benchmark("topical_chat").dimension("fluency")


@pytest.mark.parametrize("name", NAMES)
def test_every_benchmark_cites_entries_of_the_bibliography(name: str) -> None:
    from geval_repro.report.export_hf import CITATIONS_PATH

    keys = set(re.findall(r"(?m)^@\w+\{([^,\s]+),", CITATIONS_PATH.read_text(encoding="utf-8")))
    cited = BENCHMARKS[name].citations
    assert cited, f"{name} cites no paper for its texts and human judgements"
    assert set(cited) <= keys, f"{name}: {set(cited) - keys} not in {CITATIONS_PATH.name}"


def test_every_benchmark_and_format_has_its_loader() -> None:
    assert set(BENCHMARK_LOADERS) == set(NAMES)
    assert set(FORMAT_LOADERS) == set(FORMAT_NAMES)


def test_writer_vs_llm_is_judged_on_summevals_prompts_and_has_preferences_only() -> None:
    # Zhang et al.'s judgements: pairwise preferences (no per-item human score), judged with
    # SummEval's four released prompts on their scales (Tables 1-3 print nothing of it).
    entry, summeval = get_benchmark("writer_vs_llm"), get_benchmark("summeval")
    assert entry.paper_table is None and not entry.has_human_scores
    assert all(get_benchmark(n).has_human_scores for n in PAPER_NAMES)
    assert entry.prompts == SUMMEVAL_PROMPTS == summeval.prompts
    assert {d.name: d.judge_scale for d in entry.dimensions} == {
        "coherence": (1, 5),
        "consistency": (1, 5),
        "fluency": (1, 3),
        "relevance": (1, 5),
    }
    assert entry.human_dimensions == () and entry.human_scales == {}
    assert entry.texts == {"Document": "article", "Summary": "summary"}
    assert entry.item_keys == ("item_id",) and entry.item_key_type is str
    preferences = entry.preferences
    assert preferences is not None and preferences.table in entry.other_tables
    assert set(preferences.questions) <= set(TABLE_LOADERS[preferences.table].schema.columns)
    with pytest.raises(ValueError, match="pairwise human preferences"):
        human_scale("writer_vs_llm", "coherence")


def _spelled_names() -> dict[str, int]:
    """Module (relative to geval_repro/) -> how many string constants outside docstrings
    equal a benchmark's name, for every module outside registry/."""
    import ast

    found: dict[str, int] = {}
    package = Path(__file__).resolve().parents[1] / "geval_repro"
    for path in sorted(package.rglob("*.py")):
        if path.parent.name == "registry":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        count = sum(
            isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in docstrings
            for node in ast.walk(tree)
        )
        if count:
            found[str(path.relative_to(package))] = count
    return found


def test_benchmark_names_are_spelled_where_the_registry_says_only() -> None:
    """The places the registry's docstring names: code registered under a benchmark's name
    or reading its file format (load/), and the writer-vs-LLM tables' benchmark column; ten
    string constants for the first five benchmarks (53, then 20, before), and two for each
    benchmark added since (its loader's key, its schema's registry entry)."""
    spelled = _spelled_names()
    assert {m for m in spelled if not m.startswith("load/")} <= {"tables/writer_vs_llm.py"}
    assert sum(spelled.values()) <= 10 + 2 * (len(BENCHMARKS) - 5), spelled
