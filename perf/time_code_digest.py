"""What the code digests in the rules' params (geval_repro.pipeline.code_digest) add to
building the DAG: ``snakemake -n`` with the mirrored config into an empty folder (every job
planned), run alternately from this checkout and from a checkout without them (``--base``,
e.g. ``git worktree add --detach /tmp/base <commit before>``), each with its own package
first on ``PYTHONPATH``; the CPU of each run (its process and children), then the medians,
their difference and ratio. Also the digests alone in this process: every job module's,
parsed from scratch (cold, no cache) and with the parses kept (warm, as every DAG build
after the first).

Usage: ``python perf/time_code_digest.py --base PATH [--mirror PATH] [--repeats 7]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from geval_repro.pipeline.code_digest import CodeDigests

REPO = Path(__file__).resolve().parents[1]


def dry_run_cpu(checkout: Path, mirror: Path, folder: Path) -> float:
    """CPU seconds of ``snakemake -n`` of the mirrored config run from ``checkout``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [
            sys.executable,
            *("-m", "snakemake", "-n", "--quiet", "--configfile"),
            "workflow/configs/mirrored_data.yaml",
            "--config",
            f"mirror={mirror}",
            f"data_dir={folder / 'data'}",
            f"results_dir={folder / 'results'}",
        ],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        check=True,
        capture_output=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def digests_seconds(cache: Path | None) -> float:
    """CPU seconds of the digests of every job module the rules name."""
    modules = {
        call.split(":")[0]
        for smk in (REPO / "workflow" / "rules").glob("*.smk")
        for call in re.findall(r'JOBS\.job\("(\w+:\w+)"\)', smk.read_text(encoding="utf-8"))
    }
    started = time.process_time()
    digests = CodeDigests(cache=cache)
    for module in sorted(modules):
        digests.digest(module)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="a checkout without digests")
    parser.add_argument("--mirror", type=Path, default=REPO.parent / "shared" / "mirror")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "data" / "cache" / "code_digests.json"
        cold = [digests_seconds(None) for _ in range(3)]
        digests_seconds(cache)
        warm = [digests_seconds(cache) for _ in range(args.repeats)]
        cold_s, warm_s = statistics.median(cold), statistics.median(warm)
        print(f"digests alone: cold {cold_s:.3f} s, warm {warm_s:.3f} s CPU")
        dry_run_cpu(REPO, args.mirror, folder)  # keeps the parses, as any earlier run
        times: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(args.repeats):
            times["with"].append(dry_run_cpu(REPO, args.mirror, folder))
            times["without"].append(dry_run_cpu(args.base.resolve(), args.mirror, folder))
    with_, without = (statistics.median(times[k]) for k in ("with", "without"))
    print(f"snakemake -n CPU, medians of {args.repeats}: with digests {with_:.2f} s, ", end="")
    print(f"without {without:.2f} s")
    print(f"added {with_ - without:+.3f} s, ratio {with_ / without:.3f}")


if __name__ == "__main__":
    main()
