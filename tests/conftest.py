"""Shared test fixtures.

Tests that read upstream data use the byte-exact offline mirror. It is found through
``GEVAL_REPRO_MIRROR`` or, failing that, ``../shared/mirror`` beside the checkout. A missing
mirror is a test failure, never a silent skip: CI must exercise the real files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from geval_repro.config import Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The offline mirror directory (fails the test when it is missing)."""
    env = os.environ.get("GEVAL_REPRO_MIRROR")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "mirror"
    if not (path / "MANIFEST.tsv").is_file():
        pytest.fail(
            f"offline mirror not found at {path}: set GEVAL_REPRO_MIRROR to the folder that "
            "holds MANIFEST.tsv (CI uses ../shared/mirror)"
        )
    return path.resolve()


@dataclass(frozen=True)
class PipelineRun:
    """A finished ``snakemake`` run into a temporary folder (mirror + fixture judge)."""

    data: Path
    results: Path
    config: Path


def snakemake_process(
    data: Path, results: Path, configfile: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """Run the workflow from the repository into ``data``/``results``; return the process."""
    command = [
        sys.executable,
        "-m",
        "snakemake",
        *extra,
        "--cores",
        "all",  # as the workflow profile: no more jobs than cores (CI has 2)
        "--nolock",
        "--configfile",
        str(configfile),
        "--config",
        f"data_dir={data}",
        f"results_dir={results}",
    ]
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False)


def run_snakemake(data: Path, results: Path, configfile: Path, *extra: str) -> None:
    """Run the workflow from the repository into ``data``/``results``; fail the test on error."""
    completed = snakemake_process(data, results, configfile, *extra)
    if completed.returncode != 0:
        pytest.fail(f"snakemake failed:\n{completed.stdout[-4000:]}\n{completed.stderr[-8000:]}")


@pytest.fixture(scope="session")
def pipeline_run(mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> PipelineRun:
    """The whole pipeline on the mirror, with the FIXTURE judge and the MetricEval runs."""
    root = tmp_path_factory.mktemp("pipeline")
    config = root / "config.yaml"
    config.write_text(
        (FIXTURES / "config_fixture.yaml").read_text()
        + "\n".join(
            [
                "mirror: " + str(mirror_dir),
                "rerun_pairs:",
                "  - [gpt4-metriceval-run1, gpt4-metriceval-run2]",
                "",
            ]
        )
    )
    text = config.read_text().replace(
        "judges_to_run:\n  - fixture-gpt4\n",
        "judges_to_run:\n  - fixture-gpt4\n  - gpt4-metriceval-run1\n  - gpt4-metriceval-run2\n",
    )
    config.write_text(text)
    run_snakemake(root / "data", root / "results", config)
    return PipelineRun(root / "data", root / "results", config)


PIPELINE_FIXTURES = {"pipeline_run", "fixture_run", "regenerated"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that use a pipeline run are marked ``pipeline``; every ``pipeline`` and
    ``real_server`` test is also ``slow``, so ``pytest -m "not slow"`` is the fast loop."""
    for item in items:
        if PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.pipeline)
        if item.get_closest_marker("pipeline") or item.get_closest_marker("real_server"):
            item.add_marker(pytest.mark.slow)


def settings(**values: object) -> Settings:
    """The analysis settings of a test: every field 0 / off unless given."""
    base: dict[str, object] = {
        "seed": 0,
        "bootstrap_resamples": 0,
        "permutation_resamples": 0,
        "sweep_draws": 0,
        "sweep_max_n": 20,
        "pass_threshold": 0.75,
        "download_timeout": 60.0,
        "download_retries": 0,
    }
    return Settings(**{**base, **values})
