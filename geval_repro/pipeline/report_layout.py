"""What the report shows and what each notebook reads: the report's pages by group, and the
inputs of each notebook (light: the workflow builds both when it is parsed).

A report page is a table rendered to HTML, a copy of a figure or an executed notebook as
HTML, under ``results/report/``, each with a caption template
(``workflow/report/<template>.rst``). Pages come in groups, one job each
(``report_pages_<group>``): the run's own tables and figures (``main``), each judge's,
each notebook's; so a keep-going run that lacks one judge's files still reports the rest.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geval_repro.pipeline.layout import Layout, rule_name
from geval_repro.registry import outputs
from geval_repro.registry.benchmarks import (
    BENCHMARKS,
    LABELLED_BENCHMARKS,
    LAID_OUT_BENCHMARKS,
    PREFERENCE_BENCHMARKS,
    SCORED_BENCHMARKS,
    released_benchmark,
)
from geval_repro.registry.formats import LABEL_SWEEP_FIGURES, SWEEP_FIGURES
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.sources import REPO_ROOT

#: The caption templates of the report's pages.
CAPTION_TEMPLATES = REPO_ROOT / "workflow" / "report"

#: The notebooks of notebooks/, in reading order.
NOTEBOOKS: tuple[str, ...] = (
    "01_data_tour",
    "02_summeval_recount",
    "03_sweep",
    "04_topical_chat_qags",
    "05_writer_vs_llm",
)
#: The tidy tables the data tour reads: every benchmark's, then the further tables each
#: names.
DATA_TOUR_TABLES: tuple[str, ...] = (
    *BENCHMARKS,
    *(name for benchmark in BENCHMARKS.values() for name in benchmark.other_tables),
)
MAIN = "Tables: ours vs the paper"
HUMAN = "Human judgements"
WRITER_VS_LLM = "Does a judge prefer LLM-written summaries?"
JUDGE_VS_JUDGE = "Judge vs judge: every pair of metrics"
CARDS = "Judge cards: may a judge replace a human rater?"


@dataclass(frozen=True)
class Page:
    """One report page: its ``kind`` (table, figure, notebook), ``source`` (and a table's
    ``csv``), caption ``template`` (a file name under workflow/report/, without ``.rst``),
    where the report files it, and the wildcards its caption reads (its judge or
    notebook)."""

    kind: str
    source: Path
    template: str
    category: str
    subcategory: str | None = None
    csv: Path | None = None
    wildcards: Mapping[str, str] | None = None

    def job_spec(self, templates: Path, caption: Path) -> dict[str, Any]:
        """The page as its job reads it (:func:`geval_repro.report.pages.write_report_pages`):
        the caption template's path and where the rendered caption goes."""
        return {
            "kind": self.kind,
            "source": str(self.source),
            "csv": str(self.csv) if self.csv is not None else None,
            "template": str(templates / f"{self.template}.rst"),
            "caption": str(caption),
            "wildcards": dict(self.wildcards or {}),
        }


def notebook_inputs(layout: Layout, judges: Mapping[str, JudgeSpec]) -> dict[str, list]:
    """What each notebook reads (its job waits for these). ``judges``: the runs by name."""
    swept = [j for j, spec in judges.items() if spec.has_sweep]
    label_swept = [j for j, spec in judges.items() if spec.has_label_sweep]
    return {
        "01_data_tour": [layout.table(name) for name in DATA_TOUR_TABLES],
        "02_summeval_recount": [
            layout.tables / f"{outputs.CORRELATIONS}.csv",
            layout.paper_layout(1),
            *(p for spec in judges.values() for p in layout.judge_result_files(spec)),
            layout.cluster_figure(released_benchmark().name)[0],
        ],
        "03_sweep": [
            *(layout.judge_tables(j) / "sweep.csv" for j in swept),
            # it finds the runs through their correlations.csv (report.readme.judges_in)
            *(layout.judge_tables(j) / "correlations.csv" for j in swept),
            *(layout.judge_figures(j) / f"{f}.png" for j in swept for f in SWEEP_FIGURES),
            *(layout.judge_tables(j) / "sweep.csv" for j in label_swept),
            *(layout.label_sweep_figures(j)[0] for j in label_swept),
            *(layout.pair(layout.binary_labels)[:1] if label_swept else []),
        ],
        "04_topical_chat_qags": [
            layout.tables / f"{outputs.CORRELATIONS}.csv",
            *(layout.pair(layout.binary_labels)[:1] if LABELLED_BENCHMARKS else []),
            layout.paper_layout(2),
            layout.paper_layout(3),
            *(p for p in layout.human_tables() if p.suffix == ".md"),
            layout.human_figure.with_suffix(".png"),
        ],
        "05_writer_vs_llm": [
            *(p for b in PREFERENCE_BENCHMARKS for p in layout.writer_vs_llm_tables(b)),
            *(layout.writer_vs_llm_figure(b)[0] for b in PREFERENCE_BENCHMARKS),
        ],
    }


def _main_pages(layout: Layout, rerun_pairs: bool) -> dict[Path, Page]:
    """The run's own tables and figures."""
    tables = {  # caption key -> (table stem under results/tables, subcategory)
        outputs.CORRELATIONS: (outputs.CORRELATIONS, "All rows"),
        **{stem: (stem, "Paper layout") for stem in outputs.PAPER_LAYOUTS.values()},
        outputs.SIGNIFICANCE_VS_BASELINE: (
            outputs.SIGNIFICANCE_VS_BASELINE,
            "Judges vs the best baseline",
        ),
        outputs.PAIRWISE_ACCURACY: (outputs.PAIRWISE_ACCURACY, "Pairwise accuracy with ties"),
        outputs.PAIRWISE_SIGNIFICANCE: (outputs.PAIRWISE_SIGNIFICANCE, JUDGE_VS_JUDGE),
        outputs.SIGNIFICANCE_CLUSTERS: (outputs.SIGNIFICANCE_CLUSTERS, JUDGE_VS_JUDGE),
        outputs.JUDGE_CARDS: (outputs.JUDGE_CARDS, CARDS),
        outputs.ALT_TEST: (outputs.ALT_TEST, CARDS),
        outputs.SOFT_PAIRWISE_ACCURACY: (outputs.SOFT_PAIRWISE_ACCURACY, CARDS),
        outputs.SOFT_PAIRWISE_PAIRS: (outputs.SOFT_PAIRWISE_PAIRS, CARDS),
        outputs.JUDGE_POWER: (outputs.JUDGE_POWER, CARDS),
        outputs.JUDGE_BIASES: (outputs.JUDGE_BIASES, CARDS),
        outputs.BINARY_LABELS: (outputs.BINARY_LABELS, "Binary labels (SummEdits)"),
        outputs.BINARY_RANKINGS: (outputs.BINARY_RANKINGS, "Binary labels (SummEdits)"),
        outputs.BINARY_PAIRS: (outputs.BINARY_PAIRS, "Binary labels (SummEdits)"),
    }
    pages = {
        layout.report / "tables" / f"{key}.html": Page(
            "table",
            layout.tables / f"{stem}.md",
            key,
            MAIN,
            subcategory,
            csv=layout.tables / f"{stem}.csv",
        )
        for key, (stem, subcategory) in tables.items()
    }
    if rerun_pairs:
        stem = outputs.RERUN_AGREEMENT
        pages[layout.report / "tables" / f"{stem}.html"] = Page(
            "table",
            layout.tables / f"{stem}.md",
            stem,
            "Judges",
            "Run-to-run agreement",
            csv=layout.tables / f"{stem}.csv",
        )
    for name in outputs.HUMAN_TABLES:
        pages[layout.report / "tables" / f"human_{name}.html"] = Page(
            "table",
            layout.tables / "human" / f"{name}.md",
            f"human_{name}",
            HUMAN,
            "Tables",
            csv=layout.tables / "human" / f"{name}.csv",
        )
    for benchmark in LAID_OUT_BENCHMARKS:
        csv, markdown = layout.pair(layout.benchmark_layout(benchmark))
        pages[layout.report / "tables" / f"{markdown.stem}.html"] = Page(
            "table",
            markdown,
            "benchmark_layout",
            MAIN,
            "Paper layout",
            csv=csv,
            wildcards={"benchmark": benchmark},
        )
    for number, stem in outputs.REPRODUCTION_FIGURES.items():
        pages[layout.report / "figures" / f"{stem}.png"] = Page(
            "figure",
            layout.reproduction_figure(number)[0],
            "reproduction",
            MAIN,
            "Does it reproduce?",
            wildcards={"table": str(number)},
        )
    for benchmark in SCORED_BENCHMARKS:
        png = layout.cluster_figure(benchmark)[0]
        pages[layout.report / "figures" / png.name] = Page(
            "figure",
            png,
            "significance_clusters_figure",
            MAIN,
            JUDGE_VS_JUDGE,
            wildcards={"benchmark": benchmark},
        )
    pages[layout.report / "figures" / f"{outputs.HUMAN_DISTRIBUTIONS}.png"] = Page(
        "figure", layout.human_figure.with_suffix(".png"), "human_distributions", HUMAN, "Figures"
    )
    for benchmark in PREFERENCE_BENCHMARKS:
        pages.update(_writer_vs_llm_pages(layout, benchmark))
    return pages


def _writer_vs_llm_pages(layout: Layout, benchmark: str) -> dict[Path, Page]:
    """A benchmark's writer-vs-LLM tables and figure (captions ``writer_vs_llm_<table>``)."""
    wildcards = {"benchmark": benchmark}
    folder = layout.tables / benchmark
    pages = {
        layout.report / "tables" / benchmark / f"{name}.html": Page(
            "table",
            folder / f"{name}.md",
            f"writer_vs_llm_{name}",
            WRITER_VS_LLM,
            "Tables",
            csv=folder / f"{name}.csv",
            wildcards=wildcards,
        )
        for name in outputs.WRITER_VS_LLM_TABLES
    }
    png = layout.writer_vs_llm_figure(benchmark)[0]
    pages[layout.report / "figures" / png.name] = Page(
        "figure", png, "writer_vs_llm_figure", WRITER_VS_LLM, "Figures", wildcards=wildcards
    )
    return pages


def _judge_pages(layout: Layout, spec: JudgeSpec) -> dict[Path, Page]:
    """One judge's tables, its card's figure (on a benchmark with human scores) and (with
    replies) its sweep figures."""
    judge = spec.name
    category = f"Judge {judge}"
    pages = {
        layout.report / "tables" / "judges" / judge / f"{table}.html": Page(
            "table",
            layout.judge_tables(judge) / f"{table}.md",
            f"judge_{table}",
            category,
            "Tables",
            csv=layout.judge_tables(judge) / f"{table}.csv",
            wildcards={"judge": judge},
        )
        for table in spec.result_tables
    }
    if spec.benchmark.has_human_scores or spec.benchmark.labels is not None:
        pages[layout.report / "figures" / "judges" / judge / "card.png"] = Page(
            "figure",
            layout.judge_card(judge)[1],
            "judge_card",
            category,
            "Figures",
            wildcards={"judge": judge},
        )
    figures = SWEEP_FIGURES if spec.has_sweep else ()
    figures += LABEL_SWEEP_FIGURES if spec.has_label_sweep else ()
    for figure in figures:
        pages[layout.report / "figures" / "judges" / judge / f"{figure}.png"] = Page(
            "figure",
            layout.judge_figures(judge) / f"{figure}.png",
            f"judge_{figure}",
            category,
            "Figures",
            wildcards={"judge": judge},
        )
    return pages


def page_groups(
    layout: Layout, judges: Mapping[str, JudgeSpec], rerun_pairs: bool
) -> dict[str, dict[Path, Page]]:
    """Every page of the report by group (its job is ``report_pages_<group>``)."""
    groups = {"main": _main_pages(layout, rerun_pairs)}
    for judge, spec in judges.items():
        groups[rule_name("judge", judge)] = _judge_pages(layout, spec)
    for notebook in NOTEBOOKS:
        groups[rule_name("notebook", notebook)] = {
            layout.report / "notebooks" / f"{notebook}.html": Page(
                "notebook",
                layout.notebooks / f"{notebook}.ipynb",
                "notebook",
                "Notebooks",
                wildcards={"notebook": notebook},
            )
        }
    return groups


def caption_path(layout: Layout, page: Path) -> Path:
    """Where the job of ``page``'s group writes its rendered caption, as an absolute path
    (`snakemake --report` reads it there)."""
    relative = page.resolve().relative_to(layout.report.resolve())
    return layout.report.resolve() / "captions" / relative.with_suffix(".rst")


def made(path: str | os.PathLike[str]) -> bool:
    """Whether the page ``path`` exists when the workflow is parsed: only then does its rule
    flag it with Snakemake's ``report(...)``, so that `snakemake --report` registers only
    what earlier runs made (after a keep-going run that could not make everything, the
    report shows the rest instead of failing on the first missing page). Running jobs
    ignores the flag, so a run that makes a page flags it for the next `--report`."""
    return os.path.exists(path)


def notebook_source(name: str) -> Path:
    """The notebook ``name`` of notebooks/ (may be a wildcard)."""
    return Path("notebooks") / f"{name}.ipynb"
