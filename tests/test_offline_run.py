"""Runs on the shared pipeline run's data with an upstream file that cannot be fetched:
what does not depend on it is made, the run fails and its summary names what is missing
(tests/test_offline_fetch.py: the same from an empty data folder)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import PipelineRun, snakemake_process
from tests.test_offline_fetch import CONFIG


@dataclass(frozen=True)
class OfflineRun:
    """A run of Table 1-3's and the judge-vs-judge targets with :data:`CONFIG`'s judge,
    whose files cannot be fetched: its results folder and its console (stderr)."""

    results: Path
    stderr: str


@pytest.fixture(scope="module")
def offline_run(
    mirror_dir: Path, pipeline_run: PipelineRun, tmp_path_factory: pytest.TempPathFactory
) -> OfflineRun:
    """``paper_tables`` and ``judge_pairs`` in one run on the shared run's data (what each
    test below reads of it does not depend on the other target); the run fails. The tests
    read which files were made, not their values: the fewest resamples the config allows."""
    root = tmp_path_factory.mktemp("offline")
    config = root / "config.yaml"
    few = {"bootstrap": {"n_resamples": 10}, "permutation": {"n_resamples": 10}}
    config.write_text(CONFIG + f"mirror: {mirror_dir}\n" + yaml.safe_dump(few))
    results = root / "results"
    done = snakemake_process(pipeline_run.data, results, config, "paper_tables", "judge_pairs")
    assert done.returncode != 0
    return OfflineRun(results, done.stderr)


@pytest.mark.pipeline
def test_tables_2_and_3_are_made_without_summevals_judge_files(offline_run: OfflineRun) -> None:
    """A SummEval judge run whose files cannot be fetched holds back Table 1 and the
    combined table only; the summary names them."""
    results = offline_run.results
    tables = results / "tables"
    assert (tables / "table2_topical_chat.md").is_file()
    assert (tables / "table3_qags.md").is_file()
    assert (results / "figures" / "reproduction_table2_topical_chat.png").is_file()
    assert not (tables / "table1_summeval.md").exists()
    assert not (tables / "correlations.csv").exists()
    stderr = offline_run.stderr
    summary = stderr[stderr.index("upstream file(s) could not be fetched") :]
    assert "Table 1 (" in summary and "table1_summeval.md" in summary
    assert "correlations.csv (" in summary
    assert "Table 2" not in summary and "Table 3" not in summary
    assert "of the" in summary and "outputs of a full run" in summary


@pytest.mark.pipeline
def test_judge_pairs_of_other_benchmarks_are_made_without_summevals_judge_files(
    offline_run: OfflineRun,
) -> None:
    """A benchmark's judge-vs-judge tests wait only for its own judge runs: without
    SummEval's judge files, Topical-Chat's and QAGS's clusters are made, SummEval's not."""
    results = offline_run.results
    figures = results / "figures"
    for benchmark in ("topical_chat", "qags_cnndm", "qags_xsum"):
        assert (figures / f"significance_clusters_{benchmark}.png").is_file(), benchmark
    assert not (figures / "significance_clusters_summeval.png").exists()
    assert not (results / "tables" / "pairwise_significance.csv").exists()
    stderr = offline_run.stderr
    summary = stderr[stderr.index("upstream file(s) could not be fetched") :]
    assert "pairwise_significance.csv (" in summary


@pytest.mark.pipeline
def test_a_failed_job_that_removes_committed_files_is_named_with_the_restore_command(
    tmp_path: Path, pipeline_run: PipelineRun
) -> None:
    """Snakemake deletes a failed job's outputs, committed or not: the summary names the
    committed ones and the command that restores them; a later run that makes the one job
    says it made its two files (the tidy tables of the shared data were there before it)."""
    repo = tmp_path / "checkout"
    results = repo / "results"
    figure = Path("figures") / "reproduction_table3_qags"
    committed = [results / figure.with_suffix(ext) for ext in (".png", ".svg")]
    for path in committed:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(pipeline_run.results / path.relative_to(results), path)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "results"], check=True)
    rows = results / "work" / "rows" / "table3.csv"
    rows.parent.mkdir(parents=True)
    rows.write_text("")  # a corrupt input, newer than the committed figure
    config = pipeline_run.config
    done = snakemake_process(pipeline_run.data, results, config, str(committed[0]))
    assert done.returncode != 0
    assert not any(path.exists() for path in committed)  # Snakemake removed them
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("Removed by a failed"))
    assert "2 committed file(s)" in line
    command = line.split("`")[1]
    assert command == f"git checkout -- {committed[0]} {committed[1]}"
    subprocess.run(command.split(), cwd=repo, check=True)
    assert all(path.is_file() for path in committed)
    # The cause fixed: one job, two files made of a full run's outputs.
    for name in ("table3.csv", "table3.csv.provenance.json"):
        shutil.copy(pipeline_run.results / "work" / "rows" / name, rows.parent / name)
    done = snakemake_process(pipeline_run.data, results, config, str(committed[0]))
    assert done.returncode == 0, done.stderr[-3000:]
    made = [ln for ln in done.stderr.splitlines() if ln.startswith("This run made")]
    assert len(made) == 1 and made[0].startswith("This run made 2 of the "), made
    assert "Removed by a failed job" not in done.stderr
