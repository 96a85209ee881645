"""Time `snakemake` from the offline mirror to every output: wall, CPU, and the heavy jobs.

The pipeline runs into a fresh temporary folder (nothing is reused), with the default
analysis settings, every judge run the mirror can feed (``workflow/configs/mirrored_data.yaml``)
plus the FIXTURE judge of ``tests/fixtures/config_fixture.yaml`` (synthetic replies standing
in for the released ones, which are not mirrored; only its run time means anything here).

The run's wall time and CPU time (user + system of Snakemake and everything it starts) are
measured around the process, and Snakemake's main thread's CPU time (the DAG, the
scheduler's rounds, each job's bookkeeping) from inside it (:data:`LAUNCHER`). Per-job times
come from the last line of each job's log (``geval_repro.pipeline.processes``: "done in
<wall> s (<cpu> s CPU of the job's process and the subprocesses it waited for)"): every job
runs in a process of its own, forked from the run's fork server, so concurrent jobs overlap
and their wall times add up to more than the run's; the CPU column is the job's process
since its fork and the subprocesses it waited for (a notebook's kernel, METEOR 1.5's JVM);
the fork server's own imports are counted in the run's total only. Snakemake's
``benchmark:`` files are not used: under threads their ``cpu_time`` counts the whole
process, and Snakemake samples each benchmarked job's process tree twice a second (psutil
reading /proc smaps), which cost ~4 s of CPU per mirrored run. A warm rerun (nothing to do)
is timed too.

Usage: ``python perf/time_pipeline.py [--mirror PATH] [--cores 2] [--keep]
[--target all ...]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from geval_repro.config import DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH, load_config
from geval_repro.pipeline.processes import DONE

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE_CONFIG = REPO_ROOT / "tests" / "fixtures" / "config_fixture.yaml"


#: Starts Snakemake's command line as ``python -m snakemake`` does and, at exit, writes the
#: CPU time of its main thread to stderr: the DAG, the scheduler's rounds and each job's
#: bookkeeping (the job threads, which wait for their processes, and the scheduler's timer
#: threads are not in it). Reading it changes nothing in the run.
MAIN_THREAD = "snakemake main thread CPU:"
LAUNCHER = (
    "import atexit, sys, time\n"
    f"atexit.register(lambda: print('{MAIN_THREAD}', time.thread_time(), file=sys.stderr))\n"
    "from snakemake.cli import main\n"
    "sys.argv[0] = 'snakemake'\n"
    "main()\n"
)
MAIN_CPU = re.compile(re.escape(MAIN_THREAD) + r" ([\d.]+)")
CLOSING = re.compile(re.escape(DONE) + r" ([\d.]+) s \(([\d.]+) s CPU")


def job_seconds(logs: Path) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of each job, from its log's closing line (its process's CPU)."""
    times = {}
    for path in sorted(logs.rglob("*.log")):
        text = path.read_text(encoding="utf-8", errors="replace")
        done = CLOSING.search(text)
        if done:
            name = str(path.relative_to(logs).with_suffix(""))
            times[name] = (float(done.group(1)), float(done.group(2)))
    return times


def children_cpu() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``command`` in the repository; return it, its wall and its CPU seconds."""
    before = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    return done, wall, children_cpu() - before


def benchmark_config(folder: Path) -> Path:
    """A config file: the mirrored judge runs plus the fixture judge, default settings."""
    mirrored = load_config(DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH)
    fixture = yaml.safe_load(FIXTURE_CONFIG.read_text(encoding="utf-8"))
    config = {
        "judges": {**mirrored["judges"], **fixture["judges"]},
        "judges_to_run": [*mirrored["judges_to_run"], *fixture["judges_to_run"]],
    }
    path = folder / "bench_config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """``--mirror`` (default: GEVAL_REPRO_MIRROR, else ../shared/mirror) and ``--cores``."""
    parser.add_argument("--mirror", default=os.environ.get("GEVAL_REPRO_MIRROR"))
    parser.add_argument("--cores", type=int, default=2)


def mirror_folder(argument: str | None) -> Path | None:
    """The mirror ``--mirror`` names (else ../shared/mirror); None, saying so, if it is not
    one."""
    mirror = Path(argument or REPO_ROOT.parent / "shared" / "mirror")
    if not (mirror / "MANIFEST.tsv").is_file():
        print(f"no offline mirror at {mirror}: pass --mirror or set GEVAL_REPRO_MIRROR")
        return None
    return mirror


def run_command(folder: Path, mirror: Path, cores: int, targets: list[str]) -> list[str]:
    """The timed Snakemake command: :data:`LAUNCHER` making ``targets`` on ``cores`` from
    ``mirror`` into ``folder`` (data/, results/), with :func:`benchmark_config`'s config."""
    return [
        sys.executable,
        "-c",
        LAUNCHER,
        *targets,
        "--cores",
        str(cores),
        "--configfile",
        str(benchmark_config(folder)),
        "--config",
        f"data_dir={folder / 'data'}",
        f"results_dir={folder / 'results'}",
        f"mirror={mirror.resolve()}",
    ]


def report(
    jobs: dict[str, tuple[float, float]], wall: float, cpu: float, main_cpu: float, warm: float
) -> str:
    """The run's totals and the jobs of at least half a second, slowest first."""
    jobs_cpu = sum(c for _, c in jobs.values())
    lines = [
        f"cold run: {wall:.1f} s wall, {cpu:.1f} s CPU (user + system)",
        f"  of which Snakemake's main thread {main_cpu:.1f} s, the jobs {jobs_cpu:.1f} s, the "
        f"rest {cpu - main_cpu - jobs_cpu:.1f} s (the fork server's imports, Snakemake's "
        "threads, process start-up)",
        f"warm rerun (nothing to do): {warm:.1f} s wall",
        "",
        f"jobs (wall s overlapping, {sum(w for w, _ in jobs.values()):.0f} s in all; CPU s of "
        f"the job's process, {jobs_cpu:.0f} s in all):",
    ]
    for name, (seconds, job_cpu) in sorted(jobs.items(), key=lambda item: -item[1][0]):
        if seconds >= 0.5:
            lines.append(f"  {seconds:7.1f}  {job_cpu:6.1f}  {name}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser)
    parser.add_argument("--target", action="append", default=None, help="default: all")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    mirror = mirror_folder(args.mirror)
    if mirror is None:
        return 2
    folder = Path(tempfile.mkdtemp(prefix="geval-bench-"))
    command = run_command(folder, mirror, args.cores, args.target or ["all"])
    done, wall, cpu = timed(command)
    if done.returncode != 0:
        print(done.stderr[-5000:])
        print(f"snakemake failed (exit {done.returncode}); folder kept: {folder}")
        return done.returncode
    _, warm, _ = timed(command)
    jobs = job_seconds(folder / "results" / "logs")
    if not jobs:
        print(
            "no job log under results/logs ends with 'done in ...': see "
            "geval_repro.pipeline.processes"
        )
        return 1
    main_cpu = float(MAIN_CPU.findall(done.stderr)[-1])
    print(report(jobs, wall, cpu, main_cpu, warm))
    if args.keep:
        print(f"\noutputs kept in {folder}")
    else:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
