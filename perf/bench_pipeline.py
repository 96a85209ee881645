"""Time `snakemake` from the offline mirror to every output: wall, CPU, and the heavy jobs.

The pipeline runs into a fresh temporary folder (nothing is reused), with the default
analysis settings, every judge run the mirror can feed (``workflow/configs/mirrored_data.yaml``)
plus the FIXTURE judge of ``tests/fixtures/config_fixture.yaml`` (synthetic replies standing
in for the released ones, which are not mirrored; only its run time means anything here).

The run's wall time and CPU time (user + system of Snakemake and everything it starts) are
measured around the process. Per-job wall times come from Snakemake's ``benchmark:`` files
(``results/logs/benchmarks/``, written for the heavy rules). Jobs run as threads of one
process (the default profile), so concurrent jobs overlap: their times add up to more than
the wall time, and the ``cpu_time`` column of a benchmark file counts the whole process, so
only the wall time ``s`` is read per job. A warm rerun (nothing to do) is timed too.

Usage: ``python perf/bench_pipeline.py [--mirror PATH] [--cores 2] [--keep]
[--target all ...]``
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
MIRRORED_CONFIG = REPO_ROOT / "workflow" / "configs" / "mirrored_data.yaml"
FIXTURE_CONFIG = REPO_ROOT / "tests" / "fixtures" / "config_fixture.yaml"


def benchmark_seconds(folder: Path) -> dict[str, float]:
    """Wall seconds of each benchmarked job (``results/logs/benchmarks/<job>.tsv``)."""
    times = {}
    for path in sorted(folder.rglob("*.tsv")):
        with path.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        times[str(path.relative_to(folder).with_suffix(""))] = float(rows[-1]["s"])
    return times


def timed(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``command`` in the repository; return it, its wall and its CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


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


def report(jobs: dict[str, float], wall: float, cpu: float, warm: float) -> str:
    """The run's totals and the benchmarked jobs, slowest first."""
    lines = [
        f"cold run: {wall:.1f} s wall, {cpu:.1f} s CPU (user + system)",
        f"warm rerun (nothing to do): {warm:.1f} s wall",
        "",
        f"benchmarked jobs (wall s; {sum(jobs.values()):.0f} s in all, overlapping):",
    ]
    for name, seconds in sorted(jobs.items(), key=lambda item: -item[1]):
        lines.append(f"  {seconds:7.1f}  {name}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=os.environ.get("GEVAL_REPRO_MIRROR"))
    parser.add_argument("--cores", type=int, default=2)
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
    done, wall, cpu = timed(command)
    if done.returncode != 0:
        print(done.stderr[-5000:])
        print(f"snakemake failed (exit {done.returncode}); folder kept: {folder}")
        return done.returncode
    _, warm, _ = timed(command)
    jobs = benchmark_seconds(folder / "results" / "logs" / "benchmarks")
    if not jobs:
        print("no benchmark file found under results/logs/benchmarks: were they removed?")
        return 1
    print(report(jobs, wall, cpu, warm))
    if args.keep:
        print(f"\noutputs kept in {folder}")
    else:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
