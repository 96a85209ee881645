"""What one run of the workflow makes: its judge runs sorted by what they yield, the inputs
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

from geval_repro.config import judge_specs
from geval_repro.pipeline.layout import Layout
from geval_repro.registry import outputs
from geval_repro.registry.benchmarks import AVERAGES, BENCHMARKS, PAPER_TABLES, SCORED_BENCHMARKS
from geval_repro.registry.judges import JudgeSpec, job_resources


@dataclass(frozen=True)
class Targets:
    """The judge runs of a run and the lists derived from them (see the module docstring).

    ``judges``: the runs to evaluate, by name (``judges_to_run``); ``entries``: their
    config entries as written (a judge job's process rebuilds its spec from its entry).
    """

    layout: Layout
    judges: Mapping[str, JudgeSpec]
    entries: Mapping[str, Mapping[str, Any]]
    configured_rerun_pairs: tuple[tuple[str, str], ...]

    @classmethod
    def from_config(cls, config: Mapping[str, Any], layout: Layout) -> Targets:
        """The targets of a config that :func:`geval_repro.config.check_config` accepted."""
        judges = judge_specs(config)
        return cls(
            layout=layout,
            judges=judges,
            entries={name: config["judges"][name] for name in judges},
            configured_rerun_pairs=tuple(tuple(pair) for pair in config["rerun_pairs"]),
        )

    # --- judge runs by what they yield ---------------------------------------------------

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
    def correlated(self) -> list[str]:
        """The runs on a benchmark with per-item human scores: correlation rows, tests
        against the baselines (a run on a benchmark of pairwise preferences gets neither)."""
        return [n for n, spec in self.judges.items() if spec.benchmark.has_human_scores]

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

    def on_benchmark(self, benchmark: str) -> list[str]:
        """The runs on ``benchmark`` (its judge-vs-judge tests wait for these only)."""
        return [name for name, spec in self.judges.items() if spec.benchmark.name == benchmark]

    def in_table(self, number: int) -> list[str]:
        """The runs whose rows paper table ``number`` shows (the table waits for these only)."""
        return [n for n, spec in self.judges.items() if spec.benchmark.paper_table == number]

    @property
    def averaged(self) -> list[str]:
        """The runs on a benchmark the paper averages over (QAGS: CNN/DM and XSum)."""
        parts = {name for average in AVERAGES.values() for name in average.parts}
        return [name for name, spec in self.judges.items() if spec.benchmark.name in parts]

    def threads(self, name: str) -> int:
        """The CPU threads the judge run ``name`` takes: its local server's (``threads``,
        default every CPU), or 1 for a remote server."""
        run = self.judges[name].run
        if run is None or run.server is None:
            return 1
        return int(run.server.threads or os.cpu_count() or 1)

    def runs_locally(self, name: str) -> bool:
        """Whether the job of judge run ``name`` stays on the submitting node under a cluster
        profile (its rule's ``localrule``): unless its ``run:`` block is ``on_cluster``."""
        run = self.judges[name].run
        return run is None or not run.on_cluster

    def resources(self, name: str) -> dict[str, int | str]:
        """The resources the job of judge run ``name`` asks a compute node for
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
        """Every processed table read from the judge runs' files."""
        layout = self.layout
        return [p for s in self.judges.values() for p in layout.judge_tables_of_files(s).values()]

    def processed_of(self, names: list[str]) -> dict[str, dict[str, Path]]:
        """Each run's processed tables by name (for the rules that read several runs)."""
        return {name: self.layout.judge_processed(self.judges[name]) for name in names}

    @property
    def row_files(self) -> list[Path]:
        """The row files that need no judge run; every paper table takes the rows of its
        benchmarks from them."""
        rows = self.layout.rows
        return [rows / f"{name}.csv" for name in ROW_FILES]

    @property
    def reader_outputs(self) -> dict[str, list[Path]]:
        """What the closing summary names when it is missing (geval_repro.pipeline.summary)."""
        layout = self.layout
        return {
            **{f"Table {n}": [layout.paper_layout(n)] for n in PAPER_TABLES},
            "correlations.csv": [layout.tables / f"{outputs.CORRELATIONS}.csv"],
            "pairwise_significance.csv": [layout.tables / f"{outputs.PAIRWISE_SIGNIFICANCE}.csv"],
            **{f"judge run {j}": layout.judge_outputs(s) for j, s in self.judges.items()},
        }


#: The row files that need no judge run (results/work/rows/<name>.csv).
ROW_FILES: tuple[str, ...] = ("unieval", "baselines", "human_ceiling", "judge_averages")


#: The tidy tables the human-data tables read (geval_repro.pipeline.human_tables): every
#: scored benchmark's, SummEval's expert ratings and QAGS's MTurk answers.
HUMAN_INPUTS: tuple[str, ...] = (
    *SCORED_BENCHMARKS,
    "summeval_experts",
    "summeval_annotated_experts",
    "qags_mturk_cnndm",
    "qags_mturk_xsum",
)


def unieval_benchmarks() -> tuple[str, ...]:
    """The benchmarks whose tidy tables hold UniEval's released predictions."""
    return tuple(name for name, b in BENCHMARKS.items() if b.unieval_predictions)


def tidy_tables() -> dict[str, str]:
    """Every further tidy table of the benchmarks (their ``other_tables``): table name ->
    the source id it is made from."""
    return {name: source for b in BENCHMARKS.values() for name, source in b.other_tables.items()}
