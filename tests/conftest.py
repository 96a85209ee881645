"""Shared test fixtures.

Tests that read upstream data use a byte-exact mirror of the upstream files, found in this
order: ``GEVAL_REPRO_MIRROR``; ``../shared/mirror`` beside the checkout (CI's); the mirror
this test session made earlier in the user's cache (``$XDG_CACHE_HOME/geval-repro/mirror``,
default ``~/.cache/geval-repro/mirror``, outside the checkout); or, failing all three, one
made there now with the project's own verified fetch (``geval-repro mirror``: every source
the offline mirror holds, SHA-256 checked). Without a mirror and without network, the run
stops at the first test that reads upstream files, with one message naming both ways
(``GEVAL_REPRO_MIRROR``, or a networked first run) and a failing exit status; never a silent
skip, and never the same error once for each of the hundreds of tests that need the mirror.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from geval_repro.config import Settings, judge_spec
from geval_repro.registry.judges import JudgeSpec

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


CACHED_MIRROR = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "geval-repro" / "mirror"
)


def _has_manifest(path: Path) -> bool:
    return (path / "MANIFEST.tsv").is_file()


#: The exit status of a test run stopped for want of a mirror (pytest's "tests failed").
NO_MIRROR_EXIT = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The mirror of the upstream files (see the module docstring); stops the whole run,
    failing, when there is none and none can be made."""
    shared = REPO_ROOT.parent / "shared" / "mirror"
    try:
        return find_or_make_mirror(os.environ.get("GEVAL_REPRO_MIRROR"), shared, CACHED_MIRROR)
    except pytest.fail.Exception as failure:
        pytest.exit(
            f"{failure.msg}. Stopped at the first test that needs the mirror.",
            returncode=NO_MIRROR_EXIT,
        )


def find_or_make_mirror(
    env: str | None, shared: Path, cache: Path, base_url: str | None = None
) -> Path:
    """``env`` (which must be a mirror), else ``shared`` or ``cache`` if one holds a
    MANIFEST.tsv, else a mirror made in ``cache`` with ``geval-repro mirror``'s fetch (from
    the real URLs, or ``base_url``); ``pytest.fail`` naming both ways when it cannot be."""
    from geval_repro.files.mirror import make_mirror
    from geval_repro.registry.sources import load_registry

    if env:
        if not _has_manifest(Path(env)):
            pytest.fail(
                f"GEVAL_REPRO_MIRROR={env} holds no MANIFEST.tsv: not a mirror. Point it at a "
                "mirror made with `geval-repro mirror DIR` on a machine that reaches "
                "raw.githubusercontent.com, or unset it to use ../shared/mirror or the cache"
            )
        return Path(env).resolve()
    for path in (shared, cache):
        if _has_manifest(path):
            return path.resolve()
    sources = [s for s in load_registry().values() if s.mirrored]
    result = make_mirror(sources, cache, base_url=base_url, retries=1)
    if result.failed:
        first = next(iter(result.failed.values()))
        pytest.fail(
            f"no mirror of the upstream files, and {len(result.failed)} of {len(sources)} could "
            f"not be fetched into {cache} (e.g. {first.summary}). Either run the tests once on "
            "a machine that reaches raw.githubusercontent.com (the mirror is then kept in that "
            "folder), or point GEVAL_REPRO_MIRROR at a mirror made with `geval-repro mirror "
            "DIR` on such a machine"
        )
    return cache.resolve()


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


def spec(name: str = "j", **entry: object) -> JudgeSpec:
    """The typed spec of a test judge run: ``entry`` over a geval-released run with a
    placeholder file per dimension of its benchmark (default SummEval) and a label, built
    by the config's own :func:`geval_repro.config.judge_spec`."""
    from geval_repro.registry.benchmarks import get_benchmark

    benchmark = str(entry.get("benchmark", "summeval"))
    dimensions = get_benchmark(benchmark).dimension_names
    base: dict[str, object] = {
        "benchmark": benchmark,
        "format": "geval-released",
        "label": f"test run {name}",
    }
    if not any(key in entry for key in ("files", "file", "dir")):
        base["files"] = {d: {"path": f"{name}/{d}.json"} for d in dimensions}
    if entry.get("format") == "scores" and "columns" not in entry:
        keys = get_benchmark(benchmark).item_keys
        base["columns"] = {**{k: k for k in keys}, **{d: d for d in dimensions}}
    return judge_spec(name, {**base, **entry})
