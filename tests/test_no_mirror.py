"""The README's test command without a mirror and without network: the run stops at the
first test that needs the mirror, with one message naming GEVAL_REPRO_MIRROR, and fails.

Each case runs pytest in a subprocess on a tiny test file beside a copy of
``tests/conftest.py`` in a temporary checkout (so ``../shared/mirror`` is a folder of the
test's choosing), with the cache in an empty folder and every download sent to a closed
port (the proxy variables), so no network is reached.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NO_MIRROR_EXIT, REPO_ROOT

TINY = """
from pathlib import Path

RAN = Path(__file__).with_name("ran.txt")


def _ran(name):
    with RAN.open("a") as handle:
        handle.write(name + "\\n")


def test_a_plain_one():
    _ran("plain")


def test_needs_the_mirror(mirror_dir):
    _ran("first mirror test")
    Path(__file__).with_name("mirror.txt").write_text(str(mirror_dir))


def test_needs_it_too(mirror_dir):
    _ran("second mirror test")


def test_another_plain_one():
    _ran("second plain")
"""
CLOSED_PORT = "http://127.0.0.1:9"  # nothing listens on the discard port


def _run(
    tmp_path: Path, *, env_mirror: str | None, options: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess, Path]:
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "tests" / "conftest.py", checkout / "tests" / "conftest.py")
    (checkout / "tests" / "test_tiny.py").write_text(TINY)
    (tmp_path / "shared" / "mirror").mkdir(parents=True)  # ../shared/mirror: empty
    (tmp_path / "cache").mkdir()  # $XDG_CACHE_HOME: empty
    env = {
        key: value
        for key, value in os.environ.items()
        if key.lower() not in {"geval_repro_mirror", "no_proxy", "http_proxy", "https_proxy"}
    }
    env |= {
        "PYTHONPATH": str(REPO_ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HTTP_PROXY": CLOSED_PORT,
        "HTTPS_PROXY": CLOSED_PORT,
        "http_proxy": CLOSED_PORT,
        "https_proxy": CLOSED_PORT,
    }
    if env_mirror is not None:
        env["GEVAL_REPRO_MIRROR"] = env_mirror
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options, "tests"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return done, checkout / "tests" / "ran.txt"


@pytest.mark.slow
@pytest.mark.parametrize("env_mirror", [None, "empty"], ids=["unset", "empty-folder"])
def test_without_a_mirror_the_run_stops_at_the_first_test_that_needs_it(
    tmp_path: Path, env_mirror: str | None
) -> None:
    if env_mirror is not None:
        env_mirror = str(tmp_path / env_mirror)
        Path(env_mirror).mkdir()
    done, ran = _run(tmp_path, env_mirror=env_mirror)
    output = done.stdout + done.stderr
    assert done.returncode == NO_MIRROR_EXIT, output
    assert ran.read_text().splitlines() == ["plain"], output  # stopped there
    assert output.count("GEVAL_REPRO_MIRROR") == 1, output  # one message
    assert "Stopped at the first test that needs the mirror" in output
    assert "geval-repro mirror DIR" in output
    assert "Traceback" not in output, output
    assert len(output.splitlines()) < 15, output


@pytest.mark.slow
def test_with_test_workers_the_run_fails_with_the_message_once_and_stops(tmp_path: Path) -> None:
    """The project's default options run pytest-xdist workers: the controller looks for the
    mirror once, and without one runs the tests itself, so the message is printed once (it
    was printed once per worker) and the run stops at the first test that needs it."""
    done, ran = _run(tmp_path, env_mirror=None, options=("-n", "2"))
    output = done.stdout + done.stderr
    assert done.returncode == NO_MIRROR_EXIT, output
    assert ran.read_text().splitlines() == ["plain"], output
    assert output.count("GEVAL_REPRO_MIRROR") == 1, output
    assert "Stopped at the first test that needs the mirror" in output
    assert "geval-repro mirror DIR" in output
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    assert len(output.splitlines()) < 15, output


@pytest.mark.slow
@pytest.mark.parametrize("options", [(), ("-n", "2")], ids=["serial", "workers"])
def test_after_a_mirrored_pipeline_run_the_tests_find_its_mirror(
    tmp_path: Path, options: tuple[str, ...]
) -> None:
    """The README's test command right after the README's mirrored run, offline, with no
    GEVAL_REPRO_MIRROR and nothing at ../shared/mirror: the tests read the mirror that run
    was given from its results/run_manifest.json."""
    mirror = tmp_path / "somewhere" / "mirror"
    mirror.mkdir(parents=True)
    (mirror / "MANIFEST.tsv").write_text("path\tsha256\tbytes\tupstream\tlicense\n")
    results = tmp_path / "checkout" / "results"
    results.mkdir(parents=True)
    (results / "run_manifest.json").write_text(json.dumps({"format": 1, "mirror": str(mirror)}))
    done, ran = _run(tmp_path, env_mirror=None, options=options)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert sorted(ran.read_text().splitlines()) == sorted(
        ["plain", "first mirror test", "second mirror test", "second plain"]
    ), output
    assert (tmp_path / "checkout" / "tests" / "mirror.txt").read_text() == str(mirror)
