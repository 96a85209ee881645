"""Snakemake reruns a job when the package code it runs changes, and only then (the code
digest in its rule's params, geval_repro.pipeline.code_digest): SummEval's tidy table made
from the mirror by a copy of the checkout, then dry runs after edits of that copy's
package. The fetch does not rerun when its code changes (its outputs are the verified
upstream files)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from geval_repro.pipeline.code_digest import CodeDigests
from tests.conftest import FIXTURES, copy_of_the_checkout, snakemake_process

#: Modules of the copy: one the tidy job runs, one neither the tidy nor the fetch job runs.
TIDY_RUNS = "geval_repro/load/summeval.py"
NEITHER_RUNS = "geval_repro/report/judge_card.py"
FETCH = "geval_repro/pipeline/downloads.py"


def _jobs(output: str) -> dict[str, int]:
    """The jobs per rule of a run's (or dry run's) first ``Job stats`` table."""
    if "Job stats:" not in output:
        return {}
    table = output.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", table, flags=re.MULTILINE))
    counts.pop("total")
    return {rule: int(count) for rule, count in counts.items()}


def _planned(copy: Path, data: Path, results: Path, config: Path, target: Path) -> dict[str, int]:
    """The jobs per rule a dry run plans for ``target``."""
    done = snakemake_process(data, results, config, "-n", str(target), checkout=copy)
    assert done.returncode == 0, done.stderr[-4000:]
    planned = _jobs(done.stdout + done.stderr)
    if planned:
        assert "params have changed since last execution" in done.stdout + done.stderr
    return planned


@pytest.mark.pipeline
def test_a_job_reruns_when_the_code_it_runs_changes(tmp_path: Path, mirror_dir: Path) -> None:
    copy = copy_of_the_checkout(tmp_path)
    package = copy / "geval_repro"
    covered = CodeDigests(package).files("geval_repro.pipeline.tidy")
    assert TIDY_RUNS in covered and NEITHER_RUNS not in covered and FETCH not in covered
    assert NEITHER_RUNS not in CodeDigests(package).files("geval_repro.pipeline.downloads")

    config = tmp_path / "config.yaml"
    config.write_text((FIXTURES / "config_fixture.yaml").read_text() + f"mirror: {mirror_dir}\n")
    data, results = tmp_path / "data", tmp_path / "results"
    target = data / "processed" / "summeval.parquet"
    made = snakemake_process(data, results, config, str(target), checkout=copy)
    assert made.returncode == 0, made.stderr[-4000:]
    assert _jobs(made.stdout + made.stderr) == {"fetch": 1, "tidy_benchmark": 1}

    def planned() -> dict[str, int]:
        return _planned(copy, data, results, config, target)

    assert planned() == {}
    loader = copy / TIDY_RUNS
    original = loader.read_bytes()
    loader.write_bytes(original + b"# an edit of the loader\n")
    assert planned() == {"tidy_benchmark": 1}  # the fetch's output stays
    loader.write_bytes(original)
    assert planned() == {}  # the code it was made with again
    for module in (FETCH, NEITHER_RUNS):
        (copy / module).write_bytes((copy / module).read_bytes() + b"# an edit\n")
        assert planned() == {}, module
