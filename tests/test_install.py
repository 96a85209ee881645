"""A non-editable install runs without the checkout: the wheel ships the package data (the
sources registry, the paper's tables, CITATIONS.bib, the config schema), and
``geval-repro recount`` works from a folder outside the checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from geval_repro.cli import main
from tests.conftest import FIXTURES, REPO_ROOT

PACKAGE_DATA = {
    "sources.yaml",
    "paper_tables.csv",
    "summeval_table2.csv",
    "summeval_table3.csv",
    "CITATIONS.bib",
    "config.schema.yaml",
}


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.slow
def test_wheel_install_recounts_outside_the_checkout(
    mirror_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # Build from a copy of the sources, so the checkout gets no build/ folder.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, source / name)
    shutil.copytree(
        REPO_ROOT / "geval_repro",
        source / "geval_repro",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    env = {**os.environ, "GEVAL_REPRO_MIRROR": str(mirror_dir)}
    env.pop("PYTHONPATH", None)
    wheels, site, work = tmp_path / "wheels", tmp_path / "site", tmp_path / "work"
    work.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", str(source), "-w", str(wheels)], tmp_path, env)
    (wheel,) = wheels.glob("geval_repro-*.whl")
    names = {Path(n).name for n in zipfile.ZipFile(wheel).namelist() if "/data/" in n}
    assert PACKAGE_DATA <= names
    _run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], tmp_path, env)

    env["PYTHONPATH"] = str(site)
    found = _run(
        [
            sys.executable,
            "-c",
            "import geval_repro, geval_repro.config as c, geval_repro.registry.paper as p;"
            "print(geval_repro.__file__); print(c.SCHEMA_PATH); print(len(p.paper_table()))",
        ],
        work,
        env,
    ).split()
    assert all(Path(path).is_relative_to(site) for path in found[:2]), found
    assert int(found[2]) > 300  # every printed number of Tables 1-3
    config = REPO_ROOT / "workflow" / "config.yaml"
    _run(
        [
            sys.executable,
            "-c",
            "import sys, pathlib; from geval_repro.config import load_config;"
            "load_config(pathlib.Path(sys.argv[1]))",
            str(config),
        ],
        work,
        env,
    )

    fixture = FIXTURES / "judge_fixture" / "gpt4_coh_fixture.json"
    argv = ["recount", str(fixture), "--dimension", "coherence", "--json"]
    installed = json.loads(
        _run([sys.executable, "-m", "geval_repro.cli", *argv, "--raw-dir", "raw"], work, env)
    )
    assert (work / "raw").is_dir()  # fetched under the working directory, not the package
    assert not (site / "data").exists()
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    assert main([*argv, "--raw-dir", str(tmp_path / "raw")]) == 0
    assert installed == json.loads(capsys.readouterr().out)
    assert installed["n_items"] == 64
