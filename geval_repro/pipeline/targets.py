"""What one run of the workflow makes: its judges sorted by what they yield, the inputs
each table waits for, and the outputs a reader names (the lists ``workflow/rules/*.smk``
take, so that no rule file classifies anything itself).

Built once from the checked config (:meth:`Targets.from_config`) beside the
:class:`~geval_repro.pipeline.layout.Layout`. Light on purpose: the workflow builds it when
it is parsed (no pandas).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geval_repro.config import judge_specs, remote_files
from geval_repro.files.fetch import RemoteFile, resolve_mirror
from geval_repro.pipeline.layout import Layout
from geval_repro.registry.benchmarks import (
    AVERAGES,
    BENCHMARKS,
    LAID_OUT_BENCHMARKS,
    PAPER_TABLES,
    SCORED_BENCHMARKS,
    Benchmark,
)
from geval_repro.registry.judges import JudgeSpec, job_resources
from geval_repro.registry.sources import REGISTRY_PATH


@dataclass(frozen=True)
class Targets:
    """The judges of a run and the lists derived from them (see the module docstring).

    ``judges``: the specs of the judges to evaluate, by name (``judges_to_run``);
    ``entries``: their config entries as written (a rule's param, so that a changed entry
    reruns its jobs; no job reads them); ``remotes``: every upstream file the run fetches,
    by relative path; ``mirror``: the offline mirror it copies them from (None: download).
    """

    layout: Layout
    judges: Mapping[str, JudgeSpec]
    entries: Mapping[str, Mapping[str, Any]]
    configured_rerun_pairs: tuple[tuple[str, str], ...]
    remotes: Mapping[str, RemoteFile]
    mirror: Path | None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], layout: Layout) -> Targets:
        """The targets of a config that :func:`geval_repro.config.check_config` accepted."""
        judges = judge_specs(config)
        return cls(
            layout=layout,
            judges=judges,
            entries={name: config["judges"][name] for name in judges},
            configured_rerun_pairs=tuple(tuple(pair) for pair in config["rerun_pairs"]),
            remotes=remote_files(config),
            mirror=resolve_mirror(config.get("mirror")),
        )

    # --- benchmarks ----------------------------------------------------------------------

    @property
    def benchmarks(self) -> Mapping[str, Benchmark]:
        """Every benchmark of the registry, by name (each gets its tidy table)."""
        return BENCHMARKS

    @property
    def other_tables(self) -> dict[str, str]:
        """Every further tidy table of the benchmarks (their ``other_tables``): table name ->
        the source id it is made from."""
        return {n: source for b in BENCHMARKS.values() for n, source in b.other_tables.items()}

    @property
    def with_baselines(self) -> dict[str, Benchmark]:
        """The benchmarks with model-free baselines, by name."""
        return {name: b for name, b in BENCHMARKS.items() if b.baselines is not None}

    @property
    def correlated_baselines(self) -> dict[str, Benchmark]:
        """The benchmarks with model-free baselines and per-item human scores (their
        correlation rows), by name."""
        return {n: b for n, b in self.with_baselines.items() if b.has_human_scores}

    @property
    def labelled_benchmarks(self) -> dict[str, Benchmark]:
        """The benchmarks of binary human labels (the binary-label table), by name."""
        return {n: b for n, b in BENCHMARKS.items() if b.labels is not None}

    def baseline_inputs(self, benchmark: str) -> dict[str, Path]:
        """The tidy tables a benchmark's baseline protocol reads, by name: its own, then its
        table of references (if any)."""
        baselines = BENCHMARKS[benchmark].baselines
        references = None if baselines is None else baselines.references
        names = [benchmark] if references is None else [benchmark, references]
        return {name: self.layout.table(name) for name in names}

    @property
    def unieval_benchmarks(self) -> dict[str, Path]:
        """The tidy tables that hold UniEval's released predictions, by benchmark."""
        return {n: self.layout.table(n) for n, b in BENCHMARKS.items() if b.unieval_predictions}

    @property
    def human_inputs(self) -> dict[str, Path]:
        """The tidy tables the human-data tables read (geval_repro.pipeline.human_tables):
        every scored benchmark's, then their further tables of human judgements
        (``human_tables`` in the registry)."""
        scored = [BENCHMARKS[name] for name in SCORED_BENCHMARKS]
        names = [*SCORED_BENCHMARKS, *(t for b in scored for t in b.human_tables.values())]
        return {name: self.layout.table(name) for name in names}

    @property
    def paper_tables(self) -> tuple[int, ...]:
        """The numbers of the paper's correlation tables."""
        return tuple(PAPER_TABLES)

    @property
    def scored_benchmarks(self) -> dict[str, list[str]]:
        """Each benchmark with per-item human scores -> the judges on it."""
        return {name: self.on_benchmark(name) for name in SCORED_BENCHMARKS}

    @property
    def correlated_benchmarks(self) -> dict[str, list[str]]:
        """Each benchmark with per-item human scores and judges on it -> those judges."""
        scored = self.scored_benchmarks
        return {name: judges for name, judges in scored.items() if judges}

    @property
    def annotated_benchmarks(self) -> dict[str, list[str]]:
        """Each benchmark with a table of individual annotators and a margin for the
        alternative annotator test (:attr:`Benchmark.annotator_table`) -> the judges on it."""
        return {
            name: self.on_benchmark(name)
            for name in SCORED_BENCHMARKS
            if BENCHMARKS[name].annotator_table is not None
        }

    @property
    def system_benchmarks(self) -> dict[str, list[str]]:
        """Each scored benchmark whose systems share documents (soft pairwise accuracy;
        :attr:`Benchmark.system_documents`) -> the judges on it."""
        return {
            name: self.on_benchmark(name)
            for name in SCORED_BENCHMARKS
            if BENCHMARKS[name].system_documents is not None
        }

    @property
    def preference_benchmarks(self) -> dict[str, Benchmark]:
        """The benchmarks of pairwise human preferences (the writer-vs-LLM analysis)."""
        return {n: b for n, b in BENCHMARKS.items() if b.preferences is not None}

    # --- judges by what they yield ---------------------------------------------------

    @property
    def with_replies(self) -> list[str]:
        """The runs with reply texts (item scores, a sweep and its figures)."""
        return [name for name, spec in self.judges.items() if spec.has_replies]

    @property
    def swept(self) -> list[str]:
        """The runs whose replies-per-item sweep is made (replies, on a benchmark with
        per-item human scores)."""
        return [name for name, spec in self.judges.items() if spec.has_sweep]

    @property
    def label_swept(self) -> list[str]:
        """The runs whose replies-per-item sweep on binary labels is made (replies, on a
        benchmark of binary human labels)."""
        return [name for name, spec in self.judges.items() if spec.has_label_sweep]

    @property
    def every_swept(self) -> list[str]:
        """The runs of :attr:`swept`, then of :attr:`label_swept` (a sweep table each, all
        combined in one)."""
        return [*self.swept, *self.label_swept]

    @property
    def correlated(self) -> list[str]:
        """The runs on a benchmark with per-item human scores: correlation rows, tests
        against the baselines (a run on a benchmark of pairwise preferences gets neither)."""
        return [n for n, spec in self.judges.items() if spec.benchmark.has_human_scores]

    @property
    def labelled(self) -> list[str]:
        """The runs on a benchmark of binary human labels (their rows join the binary-label
        table)."""
        return [n for n, spec in self.judges.items() if spec.benchmark.labels is not None]

    @property
    def carded(self) -> list[str]:
        """The runs that get a judge card: those of :attr:`correlated`, then of
        :attr:`labelled`."""
        return [*self.correlated, *self.labelled]

    @property
    def scored(self) -> list[str]:
        """The runs of per-item scores (format ``scores``)."""
        return [name for name, spec in self.judges.items() if "item_scores" in spec.contents]

    @property
    def made_here(self) -> list[str]:
        """The runs the workflow makes with the judge runner (a ``run:`` block)."""
        return [name for name, spec in self.judges.items() if spec.run is not None]

    @property
    def rerun_pairs(self) -> list[tuple[str, str]]:
        """The configured pairs of re-runs of one judge whose two runs are both scored here."""
        scored = set(self.scored)
        return [p for p in self.configured_rerun_pairs if all(j in scored for j in p)]

    @property
    def rerun_benchmark_tables(self) -> list[Path]:
        """The tidy tables of the benchmarks of :attr:`rerun_pairs`."""
        names = {self.judges[j].benchmark.name for pair in self.rerun_pairs for j in pair}
        return [self.layout.table(name) for name in sorted(names)]

    def on_benchmark(self, benchmark: str) -> list[str]:
        """The runs on ``benchmark`` (its judge-vs-judge tests wait for these only)."""
        return [name for name, spec in self.judges.items() if spec.benchmark.name == benchmark]

    def in_table(self, number: int) -> list[str]:
        """The runs whose rows paper table ``number`` shows (the table waits for these only)."""
        return [n for n, spec in self.judges.items() if spec.benchmark.paper_table == number]

    @property
    def beyond_paper(self) -> list[str]:
        """The runs on a benchmark with per-item human scores that no paper table prints
        (their rows join correlations.csv after the paper tables')."""
        return [
            n
            for n, spec in self.judges.items()
            if spec.benchmark.paper_table is None and spec.benchmark.has_human_scores
        ]

    @property
    def beyond_paper_benchmarks(self) -> dict[str, Benchmark]:
        """The benchmarks with per-item human scores that no paper table prints (each gets a
        laid-out table of its correlation rows), by name."""
        return {n: b for n, b in BENCHMARKS.items() if b.paper_table is None and b.has_human_scores}

    @property
    def benchmark_layouts(self) -> list[Path]:
        """The laid-out tables (CSV, Markdown) of every benchmark the paper does not report
        (``LAID_OUT_BENCHMARKS``: :attr:`beyond_paper_benchmarks` and those of binary labels)."""
        layout = self.layout
        return [p for n in LAID_OUT_BENCHMARKS for p in layout.pair(layout.benchmark_layout(n))]

    @property
    def averaged(self) -> list[str]:
        """The runs on a benchmark the paper averages over (QAGS: CNN/DM and XSum)."""
        parts = {name for average in AVERAGES.values() for name in average.parts}
        return [name for name, spec in self.judges.items() if spec.benchmark.name in parts]

    def threads(self, name: str) -> int:
        """The CPU threads the judge ``name`` takes: its local server's (``threads``,
        default every CPU), or 1 for a remote server."""
        run = self.judges[name].run
        if run is None or run.server is None:
            return 1
        return int(run.server.threads or os.cpu_count() or 1)

    def runs_locally(self, name: str) -> bool:
        """Whether the job of judge ``name`` stays on the submitting node under a cluster
        profile (its rule's ``localrule``): unless its ``run:`` block is ``on_cluster``."""
        run = self.judges[name].run
        return run is None or not run.on_cluster

    def resources(self, name: str) -> dict[str, int | str]:
        """The resources the job of judge ``name`` asks a compute node for
        (:func:`geval_repro.registry.judges.job_resources`); none for a job on the
        submitting node."""
        spec = self.judges[name]
        if spec.run is None or not spec.run.on_cluster:
            return {}
        return job_resources(spec.run, spec.benchmark)

    def specs(self, names: list[str]) -> dict[str, JudgeSpec]:
        """The specs of ``names``, by name."""
        return {name: self.judges[name] for name in names}

    def entries_of(self, names: list[str]) -> dict[str, Mapping[str, Any]]:
        """The config entries of ``names`` as written, by name: the param by which a rule
        that reads their specs reruns when an entry changes (Snakemake compares params of
        builtin types only, not the specs)."""
        return {name: self.entries[name] for name in names}

    # --- files ---------------------------------------------------------------------------

    @property
    def processed_judge_tables(self) -> list[Path]:
        """Every processed table read from the judges' files."""
        layout = self.layout
        return [p for s in self.judges.values() for p in layout.judge_tables_of_files(s).values()]

    def processed_of(self, names: list[str]) -> dict[str, dict[str, Path]]:
        """Each run's processed tables by name (for the rules that read several runs)."""
        return {name: self.layout.judge_processed(self.judges[name]) for name in names}

    @property
    def row_files(self) -> list[Path]:
        """The row files that need no judge; every paper table takes the rows of its
        benchmarks from them."""
        return [self.layout.row_file(name) for name in ROW_FILES]

    @property
    def readme_inputs(self) -> list[Path]:
        """What the results page (:mod:`geval_repro.report.readme`) reads."""
        layout = self.layout
        swept = self.swept
        return [
            layout.pair(layout.correlations)[0],
            *(layout.pair(layout.judge_cards)[:1] if self.correlated else []),
            *(layout.paper_layout(n) for n in PAPER_TABLES),
            *(p for p in self.benchmark_layouts if p.suffix == ".md"),
            *(layout.judge_correlations(j) for j in self.correlated),
            *(layout.judge_tables(j) / f"{t}.csv" for j in swept for t in ("main", "one_reply")),
            *(layout.sweep_figures(j)[0] for j in swept),
            *(p for p in layout.human_tables() if p.suffix == ".md"),
            layout.human_figure.with_suffix(".png"),
            *(p for b in self.preference_benchmarks for p in layout.writer_vs_llm_tables(b)),
            *(layout.writer_vs_llm_figure(b)[0] for b in self.preference_benchmarks),
            *(layout.pair(layout.binary_labels)[:1] if self.labelled_benchmarks else []),
            REGISTRY_PATH,  # the sources it cites
        ]

    @property
    def reader_outputs(self) -> dict[str, list[Path]]:
        """What the closing summary names when it is missing (geval_repro.pipeline.summary)."""
        layout = self.layout
        return {
            **{f"Table {n}": [layout.paper_layout(n)] for n in PAPER_TABLES},
            "correlations.csv": [layout.pair(layout.correlations)[0]],
            "pairwise_significance.csv": [layout.pair(layout.pairwise_significance)[0]],
            **{f"judge {j}": layout.judge_outputs(s) for j, s in self.judges.items()},
        }


#: The row files that need no judge (results/work/rows/<name>.csv).
ROW_FILES: tuple[str, ...] = ("unieval", "baselines", "human_ceiling", "judge_averages")
