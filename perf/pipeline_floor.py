"""The floor of the mirrored run's CPU: what its outputs cost however fast our own code gets.

Issue 27's target 3 asks for the run of ``perf/time_pipeline.py`` (every output, identical
bytes) in 20 s wall and 30 s CPU on 2 cores. This script measures the parts of that run no
change to this package can take away while the outputs stay byte-identical (the regenerate
test), each on its own:

- **matplotlib drawing every figure file** the run writes (PNG and SVG, and the notebooks'
  inline PNGs): the CPU of each call that writes one (the backends' ``print_png`` and
  ``print_svg``, which :func:`geval_repro.report.figures.save_figure` calls, and
  ``FigureCanvasBase.print_figure``, which the inline backend calls), each drawing the
  figure (ticks, text; the layout with the PNG, which the SVG reuses) for that file and
  encoding it, read in the run itself. The bytes of a file are what that draw gives.
- **The notebooks' Jupyter kernels**: a kernel started, given one empty cell and shut down
  by nbclient, as the notebook jobs do, times the number of notebooks the run executes.
- **METEOR 1.5's JVM** scoring Topical-Chat's responses (the reference jar, as the
  baseline job runs it), alone.
- **Snakemake reading the workflow and its DAG**: a rerun with nothing to do.

The run is the one of ``perf/time_pipeline.py`` (same config, a fresh folder, ``--cores``),
with a ``sitecustomize`` module first on ``PYTHONPATH`` that wraps those three methods in every
Python process of the run (Snakemake, the fork server's jobs, the notebook kernels) and
appends one line per figure file to a log. The wrapper adds a few function calls per file;
nothing else in the run changes. The floor is the sum of those parts; the wall's floor on
``--cores`` cores is that sum divided by the cores.

Usage: ``python perf/pipeline_floor.py [--mirror PATH] [--cores 2]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pandas as pd
from time_pipeline import (
    MAIN_CPU,
    add_run_arguments,
    children_cpu,
    mirror_folder,
    run_command,
    timed,
)

from geval_repro.baselines.meteor_java import meteor_coco
from geval_repro.baselines.references import GROUND_TRUTH_SYSTEM, topical_chat_references
from geval_repro.report.notebooks import execute_notebook

#: Target 3 of issue 27: CPU seconds of the mirrored run.
TARGET_CPU = 30.0
LOG_ENV = "GEVAL_REPRO_FLOOR_LOG"
#: The figure files of a run (results/figures; the report holds copies of them).
FIGURES = (".png", ".svg")

#: Wraps the methods that write a figure file when their modules are first imported:
#: ``FigureCanvasBase.print_figure`` (``savefig``, the notebooks' inline backend) and the
#: backends' ``print_png`` and ``print_svg`` (:func:`geval_repro.report.figures.save_figure`
#: calls them directly); the outermost call logs one line "<CPU s of the calling
#: thread>\t<pid>\t<file>" to the log named by LOG_ENV (one append per line).
SITECUSTOMIZE = f'''
import functools, importlib.abc, importlib.util, os, sys, threading, time

_LOG = os.environ["{LOG_ENV}"]
_DEPTH = threading.local()
_METHODS = {{
    "matplotlib.backend_bases": ("FigureCanvasBase", "print_figure"),
    "matplotlib.backends.backend_agg": ("FigureCanvasAgg", "print_png"),
    "matplotlib.backends.backend_svg": ("FigureCanvasSVG", "print_svg"),
}}


def _wrap(module, owner, name):
    cls = getattr(module, owner)
    original = getattr(cls, name)

    @functools.wraps(original)  # matplotlib passes only the keywords its signature names
    def logged(self, filename, *args, **kwargs):
        depth = getattr(_DEPTH, "value", 0)
        _DEPTH.value = depth + 1
        start = time.thread_time()
        try:
            return original(self, filename, *args, **kwargs)
        finally:
            _DEPTH.value = depth
            if depth == 0:
                seconds = time.thread_time() - start
                line = f"{{seconds:.6f}}\\t{{os.getpid()}}\\t{{filename}}\\n"
                descriptor = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                os.write(descriptor, line.encode())
                os.close(descriptor)

    setattr(cls, name, logged)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _METHODS:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            _wrap(module, *_METHODS[name])

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Finder())
'''


def draws(log: Path) -> pd.DataFrame:
    """The figure files drawn in the run: one row per file (seconds, pid, file)."""
    return pd.read_csv(log, sep="\t", names=["seconds", "pid", "file"])


def kernel_seconds(folder: Path) -> float:
    """CPU seconds of one Jupyter kernel started, given one empty cell and shut down by
    nbclient (:func:`geval_repro.report.notebooks.execute_notebook`); the median of 3."""
    samples = []
    for _ in range(3):
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
        before = children_cpu()
        execute_notebook(notebook, cwd=folder)
        samples.append(children_cpu() - before)
    return sorted(samples)[1]


def meteor_jvm_seconds(data: Path) -> tuple[float, int]:
    """CPU seconds of METEOR 1.5's JVM scoring Topical-Chat's responses (those of the run's
    tidy table, as the baseline job scores them) and how many it scored."""
    table = pd.read_parquet(data / "processed" / "topical_chat.parquet")
    table = table.assign(reference=topical_chat_references(table))
    table = table.loc[table["system_id"] != GROUND_TRUTH_SYSTEM]
    before = children_cpu()
    meteor_coco(table["response"].tolist(), table["reference"].tolist())
    return children_cpu() - before, len(table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser)
    args = parser.parse_args()
    mirror = mirror_folder(args.mirror)
    if mirror is None:
        return 2
    folder = Path(tempfile.mkdtemp(prefix="geval-floor-"))
    shim = folder / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = folder / "draws.tsv"
    saved = dict(os.environ)
    os.environ[LOG_ENV] = str(log)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(shim), os.environ.get("PYTHONPATH", "")) if p
    )
    command = run_command(folder, mirror, args.cores, ["all"])
    done, wall, cpu = timed(command)
    if done.returncode != 0:
        print(done.stderr[-5000:])
        print(f"snakemake failed (exit {done.returncode}); folder kept: {folder}")
        return done.returncode
    main_cpu = float(MAIN_CPU.findall(done.stderr)[-1])
    _, warm_wall, warm_cpu = timed(command)
    os.environ.clear()
    os.environ.update(saved)
    figures = draws(log)
    in_kernels = figures["file"].str.startswith("<")  # the inline backend draws into a buffer
    files = [p for p in (folder / "results" / "figures").rglob("*") if p.suffix in FIGURES]
    if len(files) != (~in_kernels).sum():
        print(f"{(~in_kernels).sum()} figure files drawn, {len(files)} written: {folder} kept")
        return 1
    notebooks = len(list((folder / "results" / "notebooks").glob("*.ipynb")))
    start = time.perf_counter()
    kernel = kernel_seconds(folder)
    jvm, responses = meteor_jvm_seconds(folder / "data")
    parts = {
        f"matplotlib drawing the {int((~in_kernels).sum())} figure files (PNG and SVG)": float(
            figures.loc[~in_kernels, "seconds"].sum()
        ),
        f"matplotlib drawing the notebooks' {int(in_kernels.sum())} inline figures": float(
            figures.loc[in_kernels, "seconds"].sum()
        ),
        f"{notebooks} Jupyter kernels (start, an empty cell, shutdown: {kernel:.2f} s each)": (
            notebooks * kernel
        ),
        f"METEOR 1.5's JVM scoring Topical-Chat's {responses} responses": jvm,
        "Snakemake reading the workflow and the DAG (a rerun with nothing to do)": warm_cpu,
    }
    floor = sum(parts.values())
    print(
        f"the run: {wall:.1f} s wall, {cpu:.1f} s CPU on {args.cores} cores (Snakemake's main "
        f"thread {main_cpu:.1f} s); a rerun with nothing to do {warm_wall:.1f} s wall"
    )
    print(
        "\nits floor (CPU s, each part measured; the floor parts took "
        f"{time.perf_counter() - start:.0f} s to measure after the run):"
    )
    for name, seconds in parts.items():
        print(f"  {seconds:6.1f}  {name}")
    print(
        f"  {floor:6.1f}  in all: {floor / TARGET_CPU:.2f}x target 3's {TARGET_CPU:.0f} s of "
        f"CPU, {floor / cpu:.0%} of the run's CPU; the wall's floor on {args.cores} cores: "
        f"{floor / args.cores:.1f} s"
    )
    shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
