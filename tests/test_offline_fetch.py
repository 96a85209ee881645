"""A run from an empty data folder with a judge whose files cannot be fetched: everything
else is made, the run fails, and it ends with one summary naming the missing files and the
fix. It makes its own data, so it runs apart from the shared pipeline run's worker
(tests/test_offline_run.py holds the runs on the shared run's data)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from geval_repro.files.fetch import FIX, MISSING
from geval_repro.registry.sources import get_source
from tests.conftest import snakemake_process

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
    # Snakemake names each failed job's error: its one line (the traceback is in the log)
    running = [line for line in err.splitlines() if line.startswith("fetch_file: judge offline-")]
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
