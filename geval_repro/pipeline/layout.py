"""Where a run's files go: one :class:`Layout` built from the config's folders.

The Snakefile and ``workflow/rules/*.smk`` take every path from here; file names come from
the registries (:mod:`geval_repro.registry.outputs` for the run's tables and figures,
:mod:`geval_repro.registry.formats` for a judge's). Folders (defaults ``data/`` and
``results/``):

- ``data/raw/<owner>/<repo>/<commit>/<path>``: verified upstream files;
- ``data/processed/<benchmark>.parquet`` and the other tidy tables;
  ``data/processed/judges/<judge>/<table>.parquet``: a judge's tables;
  ``data/processed/baselines/<benchmark>.parquet``: per-item baseline scores;
- ``data/cache/``: caches (WordNet for nltk, a configured judge's answers, the parsed
  imports of the code digests);
- ``results/tables``, ``results/figures``: what a reader reads (``judges/<judge>/`` per run);
- ``results/work/rows``: the row files the combined tables are made of;
- ``results/logs``: one log per job; ``results/notebooks``, ``results/report``: executed
  notebooks and the report's pages.

Light on purpose: the workflow imports it when it is parsed (no pandas).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geval_repro.config import judge_files, rule_identifier
from geval_repro.registry import outputs
from geval_repro.registry.benchmarks import PAPER_TABLES, Benchmark
from geval_repro.registry.formats import LABEL_SWEEP_FIGURES, SWEEP_FIGURES
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.sources import get_source


def rule_name(prefix: str, name: str) -> str:
    """A rule name for ``name`` (a judge, a notebook): ``<prefix>_<name>`` with every
    character that may not stand in a Python identifier replaced by ``_``
    (:func:`geval_repro.config.rule_identifier`, which the config check makes distinct)."""
    return f"{prefix}_{rule_identifier(name)}"


def one_of(names: Iterable[object]) -> str:
    """A wildcard constraint matching exactly one of ``names`` (nothing when empty)."""
    return "|".join(re.escape(str(n)) for n in names) or "(?!)"


@dataclass(frozen=True)
class Layout:
    """The folders of one run (``data_dir`` and ``results_dir`` of the config)."""

    data: Path
    results: Path

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Layout:
        """The layout of a checked config."""
        return cls(Path(config["data_dir"]), Path(config["results_dir"]))

    @property
    def raw(self) -> Path:
        return self.data / "raw"

    @property
    def processed(self) -> Path:
        return self.data / "processed"

    @property
    def cache(self) -> Path:
        return self.data / "cache"

    @property
    def logs(self) -> Path:
        return self.results / "logs"

    @property
    def tables(self) -> Path:
        return self.results / "tables"

    @property
    def figures(self) -> Path:
        return self.results / "figures"

    @property
    def rows(self) -> Path:
        return self.results / "work" / "rows"

    @property
    def notebooks(self) -> Path:
        return self.results / "notebooks"

    @property
    def report(self) -> Path:
        return self.results / "report"

    def log(self, *parts: str) -> Path:
        """A job's log: ``logs/<parts joined by />.log`` (a part may be a wildcard)."""
        return self.logs.joinpath(*parts[:-1]) / f"{parts[-1]}.log"

    def raw_copy(self, relpath: str) -> Path:
        """The local copy of the upstream file ``relpath`` (may be a wildcard)."""
        return self.raw / relpath

    def raw_file(self, source_id: str) -> Path:
        """The local copy of registry source ``source_id``."""
        return self.raw / get_source(source_id).relpath

    def table(self, name: str) -> Path:
        """A tidy table of ``data/processed`` (a benchmark's, or the human data's)."""
        return self.processed / f"{name}.parquet"

    def baseline_scores(self, benchmark: str) -> Path:
        """The per-item scores of a benchmark's baselines (``benchmark`` may be a
        wildcard)."""
        return self.processed / "baselines" / f"{benchmark}.parquet"

    def benchmark_baseline_scores(self, benchmark: Benchmark) -> list[Path]:
        """The per-item baseline scores of ``benchmark``, or none when it has no
        baselines."""
        return [] if benchmark.baselines is None else [self.baseline_scores(benchmark.name)]

    def pair(self, stem: Path) -> list[Path]:
        """A result table's CSV and Markdown twin."""
        return [stem.with_name(f"{stem.name}.csv"), stem.with_name(f"{stem.name}.md")]

    def figure(self, stem: Path) -> list[Path]:
        """A figure's PNG and SVG."""
        return [stem.with_name(f"{stem.name}.png"), stem.with_name(f"{stem.name}.svg")]

    # --- judges ----------------------------------------------------------------------

    def judge_files(self, spec: JudgeSpec) -> dict[str, Path]:
        """A judge's input files, keyed by dimension (``"*"`` for a scores file)."""
        return {dim: f.path for dim, f in judge_files(spec, self.raw).items()}

    def judge_rating_files(self, spec: JudgeSpec) -> dict[str, Path]:
        """A geval-jsonl run's ``<dimension>.jsonl`` files when it has rating probabilities
        (their coverage goes into its tables' notes), else none."""
        if spec.format.name != "geval-jsonl" or "rating_probs" not in spec.contents:
            return {}
        return self.judge_files(spec)

    def judge_manifest(self, spec: JudgeSpec) -> list[Path]:
        """A geval-jsonl folder's manifest.json (recorded in the provenance, not read)."""
        manifest = spec.manifest_path
        return [manifest] if manifest else []

    def judge_table(self, judge: str, name: str) -> Path:
        """A processed table of a judge (``judge`` may be a wildcard)."""
        return self.processed / "judges" / judge / f"{name}.parquet"

    def judge_tables_of_files(self, spec: JudgeSpec) -> dict[str, Path]:
        """The processed tables read from a judge's files, by name (replies, scores,
        rating_probs: what its format yields)."""
        return {name: self.judge_table(spec.name, name) for name in spec.processed_tables}

    def judge_processed(self, spec: JudgeSpec) -> dict[str, Path]:
        """Every processed table of a judge by name: those of its files, plus
        ``item_scores`` for a judge with replies."""
        tables = self.judge_tables_of_files(spec)
        if spec.has_replies:
            tables["item_scores"] = self.judge_table(spec.name, "item_scores")
        return tables

    @property
    def code_digests(self) -> Path:
        """What the code digests of the jobs' params found in each module
        (:mod:`geval_repro.pipeline.code_digest`), kept between DAG builds."""
        return self.cache / "code_digests.json"

    def judge_cache(self, judge: str) -> Path:
        """The judge runner's cache of a judge's answers."""
        return self.cache / "judge" / judge

    def judge_run_prompts(self, spec: JudgeSpec) -> list[Path]:
        """The prompt files a ``run:`` block reads: its own templates, and the released
        prompts (fetched sources) of the other dimensions it judges where its benchmark has
        released ones (this toolkit's own prompts are package data)."""
        if spec.run is None:
            return []
        own, released = spec.run.prompts, spec.benchmark.prompts.released
        return [
            Path(own[d]) if d in own else self.raw_file(released[d])
            for d in spec.run.dimensions
            if d in own or d in released
        ]

    def judge_tables(self, judge: str) -> Path:
        return self.tables / "judges" / judge

    def judge_figures(self, judge: str) -> Path:
        return self.figures / "judges" / judge

    def judge_correlations(self, judge: str) -> Path:
        """A judge's correlation rows (CSV)."""
        return self.judge_tables(judge) / "correlations.csv"

    def sweep(self, judge: str) -> Path:
        """A judge's replies-per-item sweep (CSV; ``judge`` may be a wildcard)."""
        return self.judge_tables(judge) / f"{outputs.SWEEP}.csv"

    def judge_result_files(self, spec: JudgeSpec) -> list[Path]:
        """The result tables of one judge (CSV and Markdown)."""
        folder = self.judge_tables(spec.name)
        return [path for name in spec.result_tables for path in self.pair(folder / name)]

    def sweep_figures(self, judge: str) -> list[Path]:
        return [p for name in SWEEP_FIGURES for p in self.figure(self.judge_figures(judge) / name)]

    def label_sweep_figures(self, judge: str) -> list[Path]:
        """The figures of a judge's sweep on binary labels (PNG, SVG; ``judge`` may be a
        wildcard)."""
        folder = self.judge_figures(judge)
        return [p for name in LABEL_SWEEP_FIGURES for p in self.figure(folder / name)]

    def judge_outputs(self, spec: JudgeSpec) -> list[Path]:
        """Every result file of one judge (its tables; with a sweep, the sweep and its
        figures)."""
        files = self.judge_result_files(spec)
        if spec.has_sweep:
            files += [self.sweep(spec.name), *self.sweep_figures(spec.name)]
        if spec.has_label_sweep:
            files += [self.sweep(spec.name), *self.label_sweep_figures(spec.name)]
        return files

    def judge_significance(self, judge: str) -> Path:
        """One judge's tests against the best baselines (a work file)."""
        return self.rows / "significance" / f"{judge}.csv"

    # --- the run's tables ----------------------------------------------------------------

    @property
    def correlations(self) -> Path:
        """The stem of the combined correlation table (:meth:`pair`: CSV and Markdown)."""
        return self.tables / outputs.CORRELATIONS

    @property
    def significance_vs_baseline(self) -> Path:
        return self.tables / outputs.SIGNIFICANCE_VS_BASELINE

    @property
    def pairwise_accuracy(self) -> Path:
        return self.tables / outputs.PAIRWISE_ACCURACY

    @property
    def pairwise_significance(self) -> Path:
        return self.tables / outputs.PAIRWISE_SIGNIFICANCE

    @property
    def clusters(self) -> Path:
        """The stem of the significance clusters' table."""
        return self.tables / outputs.SIGNIFICANCE_CLUSTERS

    @property
    def alt_test(self) -> Path:
        """The stem of the alternative annotator test's table."""
        return self.tables / outputs.ALT_TEST

    @property
    def soft_pairwise_accuracy(self) -> Path:
        """The stem of the soft pairwise accuracy's table."""
        return self.tables / outputs.SOFT_PAIRWISE_ACCURACY

    @property
    def soft_pairwise_pairs(self) -> Path:
        """The stem of the soft pairwise accuracy's pair tests (its clusters' table)."""
        return self.tables / outputs.SOFT_PAIRWISE_PAIRS

    @property
    def binary_labels(self) -> Path:
        """The stem of the binary-label statistics' table (SummEdits)."""
        return self.tables / outputs.BINARY_LABELS

    @property
    def binary_rankings(self) -> Path:
        """The stem of the binary-label rankings with significance clusters (SummEdits)."""
        return self.tables / outputs.BINARY_RANKINGS

    @property
    def binary_pairs(self) -> Path:
        """The stem of the binary-label rankings' pair tests (SummEdits)."""
        return self.tables / outputs.BINARY_PAIRS

    @property
    def judge_power(self) -> Path:
        """The stem of the judges' paired-bootstrap and power table."""
        return self.tables / outputs.JUDGE_POWER

    @property
    def judge_biases(self) -> Path:
        """The stem of the judges' biases and reliability table."""
        return self.tables / outputs.JUDGE_BIASES

    @property
    def judge_cards(self) -> Path:
        """The stem of the judge cards' table."""
        return self.tables / outputs.JUDGE_CARDS

    def judge_card(self, judge: str) -> list[Path]:
        """A judge's card and its figure: ``cards/<judge>.md``, ``.png``, ``.svg``."""
        stem = self.results / outputs.CARDS / judge
        return [stem.with_suffix(suffix) for suffix in (".md", ".png", ".svg")]

    @property
    def rerun_agreement(self) -> Path:
        return self.tables / outputs.RERUN_AGREEMENT

    @property
    def sweeps(self) -> Path:
        """Every judge's sweep in one CSV."""
        return self.tables / f"{outputs.SWEEP}.csv"

    def row_file(self, name: str) -> Path:
        """A row file that needs no judge (:data:`~geval_repro.pipeline.targets.ROW_FILES`)."""
        return self.rows / f"{name}.csv"

    def notebook(self, name: str) -> Path:
        """An executed notebook (``name`` may be a wildcard)."""
        return self.notebooks / f"{name}.ipynb"

    @property
    def results_page(self) -> Path:
        """The results page generated from the results folder (``snakemake readme``; the
        README links the committed one)."""
        return self.results / "README.md"

    @property
    def export(self) -> Path:
        """The Hugging Face dataset's folder."""
        return self.results / "hf"

    def paper_rows(self, number: int) -> Path:
        """The rows of paper table ``number`` (a work file; correlations.csv joins them)."""
        return self.rows / f"table{number}.csv"

    def beyond_paper_rows(self) -> Path:
        """The rows of the benchmarks with per-item human scores that no paper table prints
        (a work file; correlations.csv joins them after the paper tables')."""
        return self.rows / "beyond_paper.csv"

    def paper_layout_stem(self, number: int) -> Path:
        """The stem of paper table ``number`` laid out as printed (its CSV and Markdown)."""
        return self.tables / PAPER_TABLES[number].stem

    def paper_layout(self, number: int) -> Path:
        """Paper table ``number`` laid out as printed (Markdown; its cells' CSV beside it)."""
        return self.pair(self.paper_layout_stem(number))[1]

    def benchmark_layout(self, benchmark: str) -> Path:
        """The stem of ``benchmark``'s laid-out table (one the paper does not report)."""
        return self.tables / outputs.BENCHMARK_LAYOUT.format(benchmark=benchmark)

    def reproduction_figure(self, number: int) -> list[Path]:
        return self.figure(self.figures / outputs.REPRODUCTION_FIGURES[number])

    def accuracy_blocks(self, benchmark: str) -> Path:
        """One benchmark's metrics in the item sets their accuracy rows are ranked within,
        with each set's reference rows (a work file)."""
        return self.rows / outputs.PAIRWISE_ACCURACY / f"{benchmark}.csv"

    # --- judge vs judge ------------------------------------------------------------------

    def judge_pairs(self, benchmark: str) -> Path:
        """Every pair of metrics on one benchmark, tested (a work file)."""
        return self.rows / outputs.PAIRWISE_SIGNIFICANCE / f"{benchmark}.csv"

    def significance_clusters(self, benchmark: str) -> Path:
        """The ranking of one benchmark's metrics with significance clusters (a work file)."""
        return self.rows / outputs.SIGNIFICANCE_CLUSTERS / f"{benchmark}.csv"

    def cluster_figure(self, benchmark: str) -> list[Path]:
        """The figure of one benchmark's clusters (``benchmark`` may be a wildcard)."""
        return self.figure(self.figures / outputs.CLUSTER_FIGURE.format(benchmark=benchmark))

    # --- the writer-vs-LLM analysis ----------------------------------------------------

    def writer_vs_llm_rows(self, benchmark: str, judge: str | None = None) -> dict[str, Path]:
        """The work rows of one metric of a benchmark's writer-vs-LLM analysis, by table: a
        judge's (``judge``), or the reference-free measures' (None)."""
        folder = self.rows / benchmark
        folder = folder / "judges" / judge if judge else folder / outputs.REFERENCE_FREE
        return {name: folder / f"{name}.csv" for name in outputs.WRITER_VS_LLM_TABLES}

    def writer_vs_llm_group_means(self, benchmark: str) -> Path:
        """A benchmark's writer-vs-LLM group means (CSV; the figure's input)."""
        return self.tables / benchmark / f"{outputs.WRITER_VS_LLM_TABLES[0]}.csv"

    def writer_vs_llm_folder(self, benchmark: str) -> Path:
        """Where a benchmark's writer-vs-LLM tables go."""
        return self.tables / benchmark

    def writer_vs_llm_tables(self, benchmark: str) -> list[Path]:
        """A benchmark's writer-vs-LLM tables (CSV and Markdown)."""
        folder = self.tables / benchmark
        return [p for name in outputs.WRITER_VS_LLM_TABLES for p in self.pair(folder / name)]

    def writer_vs_llm_preferences(self, benchmark: str) -> Path:
        """A benchmark's writer-vs-LLM preference table (CSV), read by the judge cards."""
        return self.pair(self.tables / benchmark / "preferences")[0]

    def writer_vs_llm_figure(self, benchmark: str) -> list[Path]:
        """The figure of a benchmark's writer-vs-LLM analysis (PNG, SVG)."""
        return self.figure(self.figures / outputs.WRITER_VS_LLM_FIGURE.format(benchmark=benchmark))

    @property
    def human_folder(self) -> Path:
        """Where the human-data tables go."""
        return self.tables / "human"

    def human_tables(self) -> list[Path]:
        human = self.human_folder
        return [path for name in outputs.HUMAN_TABLES for path in self.pair(human / name)]

    @property
    def human_figure(self) -> Path:
        """The stem of the human score distributions' figure."""
        return self.figures / outputs.HUMAN_DISTRIBUTIONS
