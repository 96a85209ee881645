"""Shared test fixtures.

Tests that read upstream data use a byte-exact mirror of the upstream files, found in this
order: ``GEVAL_REPRO_MIRROR``; ``../shared/mirror`` beside the checkout (CI's); the mirror
the last pipeline run into ``results/`` read (its ``results/run_manifest.json``: the README's
test command, right after the README's mirrored run, finds the mirror that run was given);
the mirror this test session made earlier in the user's cache
(``$XDG_CACHE_HOME/geval-repro/mirror``, default ``~/.cache/geval-repro/mirror``, outside the
checkout); or, failing all four, one made there now with the project's own verified fetch
(``geval-repro mirror``: every source the offline mirror holds, SHA-256 checked). Without a
mirror and without network, the run stops at the first test that reads upstream files, with
one message naming both ways (``GEVAL_REPRO_MIRROR``, or a networked first run) and a
failing exit status; never a silent skip, and never the same error once for each of the
hundreds of tests that need the mirror, nor once per test worker. Under pytest-xdist's
workers (the project's default options) the controller looks once, before the workers
start (:func:`pytest_cmdline_main`; without a mirror it runs the tests itself), and
:func:`worker_group` decides which tests share a worker.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
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


#: Under pytest-xdist, the mirror the controller found, for its workers (which inherit the
#: controller's environment).
FOUND_MIRROR = "GEVAL_REPRO_TESTS_MIRROR"
#: The end of the message.
STOPPED = "Stopped at the first test that needs the mirror."
#: The run manifest of the README's pipeline run (default results folder): it names the
#: mirror that run read, which the README's test command run right after it then finds.
LAST_RUN_MANIFEST = REPO_ROOT / "results" / "run_manifest.json"


def last_run_mirror(manifest: Path = LAST_RUN_MANIFEST) -> Path | None:
    """The mirror the last pipeline run into ``results/`` read (its run manifest's
    ``mirror``), or None: no run, a downloading run, or an unreadable manifest."""
    import json

    try:
        mirror = json.loads(manifest.read_text(encoding="utf-8")).get("mirror")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(mirror) if isinstance(mirror, str) else None


def _find_mirror() -> Path:
    shared = REPO_ROOT.parent / "shared" / "mirror"
    return find_or_make_mirror(
        os.environ.get("GEVAL_REPRO_MIRROR"), shared, CACHED_MIRROR, ran=last_run_mirror()
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before pytest-xdist starts its workers (its own ``pytest_cmdline_main`` reads the
    options this one sets), the controller finds (or makes) the mirror once and passes it
    on, so that no two workers fetch into the cache at once. Without one, the run goes on
    in this process alone, so that the message is printed once, by the first test that
    needs the mirror (:func:`mirror_dir`), not once per worker. What it fetches is logged
    nowhere: a failure's message names it."""
    os.environ.pop(FOUND_MIRROR, None)  # not an outer test run's
    if not config.getoption("numprocesses", None) or config.getoption("collectonly"):
        return
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            os.environ[FOUND_MIRROR] = str(_find_mirror())
    except pytest.fail.Exception:
        config.option.numprocesses = 0  # no workers: the fixture stops the run, once
    finally:
        logging.disable(logging.NOTSET)


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The mirror of the upstream files (see the module docstring); stops the whole run,
    failing, when there is none and none can be made. A pytest-xdist worker takes the
    controller's (:func:`pytest_cmdline_main`): workers start only when there is one."""
    if FOUND_MIRROR in os.environ:
        return Path(os.environ[FOUND_MIRROR])
    try:
        return _find_mirror()
    except pytest.fail.Exception as failure:
        pytest.exit(f"{failure.msg}. {STOPPED}", returncode=NO_MIRROR_EXIT)


@pytest.fixture
def prompts_from_the_mirror(monkeypatch: pytest.MonkeyPatch, mirror_dir: Path) -> None:
    """GEVAL_REPRO_MIRROR set to the tests' mirror, for the runs that fetch SummEval's
    released prompts (CI sets none: the mirror is found beside the checkout)."""
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))


def find_or_make_mirror(
    env: str | None,
    shared: Path,
    cache: Path,
    base_url: str | None = None,
    ran: Path | None = None,
) -> Path:
    """``env`` (which must be a mirror), else ``shared``, ``ran`` (the mirror the last
    pipeline run read) or ``cache`` if one holds a MANIFEST.tsv, else a mirror made in
    ``cache`` with ``geval-repro mirror``'s fetch (from the real URLs, or ``base_url``);
    ``pytest.fail`` naming both ways when it cannot be."""
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
    for path in (shared, *([ran] if ran is not None else []), cache):
        if _has_manifest(path):
            return path.resolve()
    sources = [s for s in load_registry().values() if s.mirrored]
    # The tests need every source: the first that cannot be fetched ends the attempt (without
    # network, asking for the rest would only add pooch's back-off, a second per source).
    result = make_mirror(sources, cache, base_url=base_url, retries=1, keep_going=False)
    if result.failed:
        (error,) = result.failed.values()
        pytest.fail(
            f"no mirror of the upstream files, and one of the {len(sources)} files the tests "
            f"need could not be fetched into {cache} ({error.summary}). Either run the tests "
            "once on a machine that reaches raw.githubusercontent.com (the mirror is then kept "
            "in that folder), or point GEVAL_REPRO_MIRROR at a mirror made with `geval-repro "
            "mirror DIR` on such a machine"
        )
    return cache.resolve()


@dataclass(frozen=True)
class PipelineRun:
    """A finished ``snakemake`` run into a temporary folder (mirror + fixture judge)."""

    data: Path
    results: Path
    config: Path


def snakemake_process(
    data: Path, results: Path, configfile: Path, *extra: str, checkout: Path = REPO_ROOT
) -> subprocess.CompletedProcess[str]:
    """Run the workflow from the repository (or from ``checkout``, a copy of it, with its
    own package first on ``PYTHONPATH``) into ``data``/``results``; return the process."""
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
    environment = {**os.environ, "PYTHONPATH": str(checkout)} if checkout != REPO_ROOT else None
    return subprocess.run(
        command, cwd=checkout, env=environment, capture_output=True, text=True, check=False
    )


def copy_of_the_checkout(root: Path) -> Path:
    """A copy of the checkout in ``root/checkout``, without its data, results, caches and
    environment (a test edits its package or registry there)."""
    copy = root / "checkout"
    top = {".git", ".venv", "data", "results", ".snakemake", ".pytest_cache"}

    def ignored(folder: str, names: list[str]) -> list[str]:
        at_top = Path(folder) == REPO_ROOT
        return [n for n in names if n == "__pycache__" or (at_top and n in top)]

    shutil.copytree(REPO_ROOT, copy, ignore=ignored)
    return copy


def run_in_folder(
    folder: Path, command: list[str], timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (a Python process: a small workflow's ``snakemake``, a snippet) in
    ``folder`` with this checkout's package importable (at most ``timeout`` s); return the
    process."""
    return subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=timeout,
    )


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


#: The test modules that use a pipeline run (PIPELINE_FIXTURES): under pytest-xdist one
#: worker runs them all, so the shared run is made once per session (checked when collecting).
PIPELINE_MODULES = frozenset(
    {
        "test_notebooks.py",
        "test_offline_run.py",
        "test_pipeline.py",
        "test_pipeline_summedits_judge.py",
        "test_pipeline_writer_vs_llm.py",
        "test_regenerate.py",
    }
)
#: The marker expression of the project's pytest options (pyproject.toml's addopts).
DEFAULT_SELECTION = "not real_server and not slurm"
#: The modules that start the one-node SLURM cluster (fixed ports): one worker runs them.
SLURM_MODULES = frozenset({"test_slurm_cluster.py", "test_slurm_judge.py"})
#: Modules whose tests are spread over the workers one by one: each test takes a minute or
#: more of its own llama.cpp server, its module's fixtures (a server start) a few seconds.
SPREAD_MODULES = frozenset({"test_real_server.py"})
#: The worker groups that take longest, in wall seconds of the default selection on 2 cores
#: with 3 workers (December 2026; most of these tests wait on a stopped job, a hung server or
#: a retry). The scheduler hands the groups out longest first, so that no long group is left
#: to the end while the other workers idle; the rest follow by number of tests (as
#: pytest-xdist orders them). Rough values are enough: they only order the groups.
GROUP_SECONDS = {
    "pipeline": 142,
    "tests/test_judge_run_rule.py": 40,
    "tests/test_baselines_rouge_reference.py": 37,
    "tests/test_job_stops.py": 35,
    "tests/test_runner_faults.py": 33,
    "tests/test_runner_stopping.py": 22,
    "tests/test_runner_run.py": 22,
    "tests/test_stats_bootstrap.py": 21,
    "tests/test_runner_servers.py": 19,
    "tests/test_figure_layout.py": 19,
    "tests/test_fork_server.py": 17,
    "tests/test_joblog.py": 3,
    "tests/test_baselines_meteor_java.py": 11,
    "tests/test_stats_permutation_ties.py": 10,
    "tests/test_no_mirror.py": 7,
    "tests/test_figures.py": 6,
    "tests/test_install.py": 6,
    "tests/test_extending.py": 6,
    "tests/test_baselines_meteor.py": 6,
    "tests/test_stats_permutation.py": 4,
    "tests/test_fetch.py": 4,
    "tests/test_runner_local_server.py": 4,
    "tests/test_offline_fetch.py": 4,
}


def worker_group(nodeid: str) -> str:
    """The pytest-xdist group of a test: ``pipeline``, ``slurm``, the test itself in
    SPREAD_MODULES, else its module (whose module-scoped fixtures are then made once)."""
    module = nodeid.split("::", 1)[0]
    name = module.rsplit("/", 1)[-1]
    if name in PIPELINE_MODULES:
        return "pipeline"
    if name in SLURM_MODULES:
        return "slurm"
    return nodeid if name in SPREAD_MODULES else module


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` on the default selection (:data:`DEFAULT_SELECTION`): one worker more
    than the cores this process may use (``--maxprocesses`` caps it), since many of those
    tests mostly wait (a stopped judge, a hung server, a retry's back-off) while the
    pipeline worker keeps the cores busy. The real-server and SLURM tests keep one worker
    per core (their servers and jobs use the cores); ``PYTEST_XDIST_AUTO_NUM_WORKERS``
    decides when set (pytest-xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0))
    return cores + 1 if config.option.markexpr == DEFAULT_SELECTION else cores


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's scope scheduling with :func:`worker_group` as the scope: each group's
    tests run in one worker, the groups spread over the workers longest first
    (:data:`GROUP_SECONDS`; the ``pipeline`` group, the shared run, the regeneration and the
    reruns, before all), then the others in pytest-xdist's order (most tests first)."""
    from xdist.scheduler import LoadScopeScheduling

    # each moved to the queue's front in turn: the longest ends up first
    shortest_first = sorted(GROUP_SECONDS, key=GROUP_SECONDS.get)

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            for group in shortest_first:
                if group in self.workqueue:
                    self.workqueue.move_to_end(group, last=False)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that use a pipeline run are marked ``pipeline``; every ``pipeline`` and
    ``real_server`` test is also ``slow``, so ``pytest -m "not slow"`` is the fast loop. A
    pipeline test outside PIPELINE_MODULES stops the collection, naming its module."""
    for item in items:
        if PIPELINE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.pipeline)
            if worker_group(item.nodeid) != "pipeline":
                raise pytest.UsageError(
                    f"{item.nodeid} uses a pipeline run: add its module to PIPELINE_MODULES "
                    "in tests/conftest.py (one test worker makes the run)"
                )
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
