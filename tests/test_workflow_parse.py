"""Parsing the workflow stays light: a warm rerun (nothing to do) and every job's start pay
for the Snakefile and workflow/rules/*.smk, so they import only what parsing needs; a job
imports its rule function (pandas, scipy, matplotlib, nbconvert ...) in its run: block."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE_CONFIG = REPO_ROOT / "tests" / "fixtures" / "config_fixture.yaml"
# Not numpy: Snakemake itself imports it (yte, for its reports).
HEAVY = ["pandas", "pandera", "pyarrow", "scipy", "matplotlib", "nbconvert", "nbclient", "pooch"]
# Snakemake imports every installed executor plugin when it starts; what a plugin imports by
# itself is not the workflow's doing (the slurm extra's plugin imports pandas and pyarrow).
DRY_RUN = f"""
import importlib, pkgutil, sys
for plugin in pkgutil.iter_modules():
    if plugin.name.startswith("snakemake_executor_plugin_"):
        importlib.import_module(plugin.name)
by_plugins = set(sys.modules)
from snakemake.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
else:
    code = 0
print("HEAVY=" + ",".join(m for m in {HEAVY!r} if m in set(sys.modules) - by_plugins))
sys.exit(code)
"""


@pytest.mark.pipeline
def test_parsing_the_workflow_imports_no_heavy_module(tmp_path: Path) -> None:
    """``snakemake -n`` of every rule (fixture judges of every format, so every generated
    rule) leaves pandas, scipy, matplotlib & co. unloaded."""
    command = [
        sys.executable,
        "-c",
        DRY_RUN,
        "all",
        "-n",
        "--quiet",
        "--nolock",
        "--cores",
        "1",
        "--configfile",
        str(FIXTURE_CONFIG),
        "--config",
        f"data_dir={tmp_path / 'data'}",
        f"results_dir={tmp_path / 'results'}",
        f"mirror={tmp_path}",  # dry run: nothing is fetched
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = [line for line in done.stdout.splitlines() if line.startswith("HEAVY=")]
    assert loaded == ["HEAVY="], f"parsing the workflow imported {loaded}: import them in run:"
