"""Time `snakemake --cores 4` from the offline mirror to every output, and each job in it.

The pipeline runs into a fresh temporary folder (nothing is reused), with the default
analysis settings, every judge run the mirror can feed (``workflow/configs/mirrored_data.yaml``)
plus the FIXTURE judge of ``tests/fixtures/config_fixture.yaml`` (synthetic replies standing
in for the released ones, which are not mirrored; only its run time means anything here).

Job times come from Snakemake's log: each job's start line and its ``Finished jobid`` line
carry a timestamp (1 s resolution). Local jobs with a ``run:`` block run in threads of the
Snakemake process, so concurrent jobs' times overlap and add up to more than the wall time.

Usage: ``python perf/bench_pipeline.py [--mirror PATH] [--cores 4] [--keep]
[--target all ...]``
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
MIRRORED_CONFIG = REPO_ROOT / "workflow" / "configs" / "mirrored_data.yaml"
FIXTURE_CONFIG = REPO_ROOT / "tests" / "fixtures" / "config_fixture.yaml"

STAMP = re.compile(r"^\[(\w{3} \w{3}\s+\d+ \d\d:\d\d:\d\d \d{4})\]$")
START = re.compile(r"^(?:local)?rule (\S+):$")
JOBID = re.compile(r"^\s+jobid: (\d+)$")
WILDCARDS = re.compile(r"^\s+wildcards: (.*)$")
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\S+)\)$")


@dataclass
class Job:
    """One job of the run: its rule, wildcards and start/end times (epoch seconds)."""

    rule: str
    wildcards: str
    start: float
    end: float | None = None

    @property
    def seconds(self) -> float:
        return float("nan") if self.end is None else self.end - self.start


def _epoch(stamp: str) -> float:
    return time.mktime(time.strptime(" ".join(stamp.split()), "%a %b %d %H:%M:%S %Y"))


def parse_jobs(log: str) -> dict[int, Job]:
    """Jobs by id from a Snakemake log (the text it prints to stderr)."""
    jobs: dict[int, Job] = {}
    stamp: float | None = None
    pending: Job | None = None
    for line in log.splitlines():
        if match := STAMP.match(line):
            stamp, pending = _epoch(match.group(1)), None
        elif (match := START.match(line)) and stamp is not None:
            pending = Job(rule=match.group(1), wildcards="", start=stamp)
        elif pending is not None and (match := WILDCARDS.match(line)):
            pending.wildcards = match.group(1)
        elif pending is not None and (match := JOBID.match(line)):
            jobs[int(match.group(1))] = pending
        elif (match := FINISHED.match(line)) and stamp is not None:
            job = jobs.get(int(match.group(1)))
            if job is not None:
                job.end = stamp
    return jobs


def benchmark_config(folder: Path) -> Path:
    """A config file: the mirrored judge runs plus the fixture judge, default settings."""
    mirrored = yaml.safe_load(MIRRORED_CONFIG.read_text(encoding="utf-8"))
    fixture = yaml.safe_load(FIXTURE_CONFIG.read_text(encoding="utf-8"))
    config = {
        "judges": fixture["judges"],
        "judges_to_run": [*mirrored["judges_to_run"], *fixture["judges_to_run"]],
    }
    path = folder / "bench_config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def report(jobs: dict[int, Job], wall: float) -> str:
    """Per-job and per-rule times, slowest first."""
    lines = [f"wall time: {wall:.1f} s, {len(jobs)} jobs", "", "per rule (jobs, sum, max s):"]
    rules: dict[str, list[float]] = {}
    for job in jobs.values():
        rules.setdefault(job.rule, []).append(job.seconds)
    for rule, times in sorted(rules.items(), key=lambda item: -sum(item[1])):
        lines.append(f"  {rule:32s} {len(times):4d} {sum(times):8.0f} {max(times):8.0f}")
    lines += ["", "per job (s):"]
    for job in sorted(jobs.values(), key=lambda j: -j.seconds):
        lines.append(f"  {job.seconds:6.0f}  {job.rule}  {job.wildcards}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=os.environ.get("GEVAL_REPRO_MIRROR"))
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--target", action="append", default=None, help="default: all")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    mirror = Path(args.mirror or REPO_ROOT.parent / "shared" / "mirror")
    if not (mirror / "MANIFEST.tsv").is_file():
        print(f"no offline mirror at {mirror}: pass --mirror or set GEVAL_REPRO_MIRROR")
        return 2
    folder = Path(tempfile.mkdtemp(prefix="geval-bench-"))
    command = [
        sys.executable,
        "-m",
        "snakemake",
        *(args.target or ["all"]),
        "--cores",
        str(args.cores),
        "--configfile",
        str(benchmark_config(folder)),
        "--config",
        f"data_dir={folder / 'data'}",
        f"results_dir={folder / 'results'}",
        f"mirror={mirror.resolve()}",
    ]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr[-5000:])
        print(f"snakemake failed (exit {done.returncode}); folder kept: {folder}")
        return done.returncode
    jobs = parse_jobs(done.stderr)
    if not jobs:
        print("no job found in Snakemake's log: has its format changed?")
        return 1
    print(report(jobs, wall))
    if args.keep:
        print(f"\noutputs kept in {folder}")
    else:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
