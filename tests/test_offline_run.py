"""A run with an upstream file that cannot be fetched: everything else is made, the run
fails, and it ends with one summary naming the missing files and the fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from geval_repro.files.fetch import FIX, MISSING
from geval_repro.registry.sources import get_source
from tests.conftest import PipelineRun, snakemake_process

SHA = "0" * 64
CONFIG = f"""
judges:
  offline-judge:
    benchmark: summeval
    format: geval-released
    label: a judge run on a host that never resolves (tests only)
    files:
      coherence: {{url: "https://nonexistent.invalid/coh.json", sha256: "{SHA}"}}
      fluency: {{url: "https://nonexistent.invalid/flu.json", sha256: "{SHA}"}}
judges_to_run: [offline-judge]
rerun_pairs: []
"""
RELEASED_COHERENCE = get_source("geval4_replies_coh").relpath


@pytest.mark.pipeline
def test_unfetchable_files_are_summarised_once_and_the_rest_is_made(
    tmp_path: Path, mirror_dir: Path
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + f"mirror: {mirror_dir}\n")
    data, results = tmp_path / "data", tmp_path / "results"
    # An earlier run's log (of the released replies, which this config never runs).
    stale = results / "logs" / "fetch" / f"{RELEASED_COHERENCE}.log"
    stale.parent.mkdir(parents=True)
    stale.write_text(
        f"x ERROR geval_repro.files.fetch: {MISSING}judge gpt4-released, coherence: stale\n"
        f"x ERROR geval_repro.files.fetch: {FIX}the stale fix\n"
    )
    os.utime(stale, (time.time() - 3600,) * 2)
    targets = [
        str(data / "processed" / "summeval.parquet"),
        str(data / "processed" / "judges" / "offline-judge" / "replies.parquet"),
    ]
    done = snakemake_process(data, results, config, *targets)
    assert done.returncode != 0
    assert (data / "processed" / "summeval.parquet").is_file()  # keep-going made it
    assert not (data / "processed" / "judges" / "offline-judge").exists()
    manifest = json.loads((results / "run_manifest.json").read_text())
    assert len(manifest["git"]["commit"]) == 40  # the checkout, once per run
    err = done.stderr
    assert "Traceback" not in err, err[-3000:]  # expected failures: one line, no traceback
    running = [line for line in err.splitlines() if line.startswith("fetch: judge offline-judge")]
    assert len(running) == 2 and all("(log: " in line for line in running), err[-3000:]
    assert err.count("upstream file(s) could not be fetched") == 1, err[-3000:]
    summary = err[err.index("upstream file(s) could not be fetched") :]
    assert "nonexistent.invalid/coh.json" in summary and "nonexistent.invalid/flu.json" in summary
    assert "does not resolve" in summary
    assert summary.count("geval-repro mirror DIR") == 1
    assert "\n2 upstream file(s) could not be fetched:" in err
    assert "gpt4-released" not in summary and "stale" not in summary
    assert "This run made 1 of the" in summary  # summeval.parquet, nothing before it
    # The report registers what the run made instead of failing on the missing pages.
    report = tmp_path / "report.html"
    made = snakemake_process(data, results, config, "--report", str(report))
    assert made.returncode == 0, made.stderr[-3000:]
    assert report.is_file()


@pytest.mark.pipeline
def test_tables_2_and_3_are_made_without_summevals_judge_files(
    tmp_path: Path, mirror_dir: Path, pipeline_run: PipelineRun
) -> None:
    """A SummEval judge run whose files cannot be fetched holds back Table 1 and the
    combined table only; the summary names them."""
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + f"mirror: {mirror_dir}\n")
    results = tmp_path / "results"
    done = snakemake_process(pipeline_run.data, results, config, "paper_tables")
    assert done.returncode != 0
    tables = results / "tables"
    assert (tables / "table2_topical_chat.md").is_file()
    assert (tables / "table3_qags.md").is_file()
    assert (results / "figures" / "reproduction_table2_topical_chat.png").is_file()
    assert not (tables / "table1_summeval.md").exists()
    assert not (tables / "correlations.csv").exists()
    summary = done.stderr[done.stderr.index("upstream file(s) could not be fetched") :]
    assert "Table 1 (" in summary and "table1_summeval.md" in summary
    assert "correlations.csv (" in summary
    assert "Table 2" not in summary and "Table 3" not in summary
    assert "of the" in summary and "outputs of a full run" in summary


@pytest.mark.pipeline
def test_judge_pairs_of_other_benchmarks_are_made_without_summevals_judge_files(
    tmp_path: Path, mirror_dir: Path, pipeline_run: PipelineRun
) -> None:
    """A benchmark's judge-vs-judge tests wait only for its own judge runs: without
    SummEval's judge files, Topical-Chat's and QAGS's clusters are made, SummEval's not."""
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG + f"mirror: {mirror_dir}\n")
    results = tmp_path / "results"
    done = snakemake_process(pipeline_run.data, results, config, "judge_pairs")
    assert done.returncode != 0
    figures = results / "figures"
    for benchmark in ("topical_chat", "qags_cnndm", "qags_xsum"):
        assert (figures / f"significance_clusters_{benchmark}.png").is_file(), benchmark
    assert not (figures / "significance_clusters_summeval.png").exists()
    assert not (results / "tables" / "pairwise_significance.csv").exists()
    summary = done.stderr[done.stderr.index("upstream file(s) could not be fetched") :]
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
