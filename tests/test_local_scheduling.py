"""A run on this machine has no limit on job starts per timespan
(:func:`geval_repro.pipeline.jobs.drop_local_rate_limit`, called from the Snakefile's
``onstart``): the installed Snakemake's scheduler then schedules no re-evaluation rounds, and
with the limit it does (the control: the test can fail). A cluster run keeps its limit."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from geval_repro.pipeline.jobs import drop_local_rate_limit
from tests.conftest import run_in_folder

#: ``python -m snakemake`` that counts the scheduler's re-evaluation timers (a private
#: method of Snakemake 9.27's JobScheduler: a release that renames it fails here first).
COUNTING_LAUNCHER = """
import atexit, sys
from snakemake.scheduling.job_scheduler import JobScheduler
calls = []
original = JobScheduler._schedule_reevalutation
def counted(self, delay):
    calls.append(delay)
    original(self, delay)
JobScheduler._schedule_reevalutation = counted
atexit.register(lambda: print("re-evaluations:", len(calls), file=sys.stderr))
from snakemake.cli import main
sys.argv[0] = "snakemake"
main()
"""

#: Three jobs in a chain, each about half a second: each round the limit's timer starts
#: would come a second later, while the run goes on.
CHAIN = """
{onstart}

rule all:
    input:
        "c.txt",


rule step:
    input:
        lambda wildcards: [] if wildcards.name == "a" else [chr(ord(wildcards.name) - 1) + ".txt"],
    output:
        "{{name}}.txt",
    run:
        import time

        time.sleep(0.6)
        open(output[0], "w").write(wildcards.name)
"""
ONSTART = """
onstart:
    from geval_repro.pipeline.jobs import drop_local_rate_limit

    drop_local_rate_limit(workflow)
"""


@pytest.mark.parametrize("dropped", [True, False], ids=["limit-dropped", "control-with-limit"])
def test_a_local_run_schedules_no_rounds_for_a_rate_limit(tmp_path: Path, dropped: bool) -> None:
    (tmp_path / "Snakefile").write_text(CHAIN.format(onstart=ONSTART if dropped else ""))
    command = [sys.executable, "-c", COUNTING_LAUNCHER, "--cores", "1", "--nolock"]
    done = run_in_folder(tmp_path, [*command, "--force-use-threads"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "c.txt").read_text() == "c"  # every job of the chain ran
    rounds = int(re.findall(r"re-evaluations: (\d+)", done.stderr)[-1])
    if dropped:
        assert rounds == 0
    else:
        assert rounds >= 3  # at least one per scheduling round


def test_a_cluster_run_keeps_its_limit() -> None:
    limiter = object()
    cluster = SimpleNamespace(local_exec=False, scheduler=SimpleNamespace(job_rate_limiter=limiter))
    drop_local_rate_limit(cluster)
    assert cluster.scheduler.job_rate_limiter is limiter
    local = SimpleNamespace(local_exec=True, scheduler=SimpleNamespace(job_rate_limiter=limiter))
    drop_local_rate_limit(local)
    assert local.scheduler.job_rate_limiter is None


def test_a_snakemake_without_the_limiter_attribute_stops_the_run_naming_it() -> None:
    other = SimpleNamespace(local_exec=True, scheduler=SimpleNamespace())
    with pytest.raises(RuntimeError, match=r"job_rate_limiter.*requirements\.lock"):
        drop_local_rate_limit(other)
