"""Jobs that stop when asked: Ctrl-C (SIGINT) or SIGTERM to Snakemake stops a running judge
job within seconds, its received answers cached, no lock and no job process left, and a
rerun sends only what is missing.

The judge job runs in a process of its own (geval_repro.pipeline.processes); Snakemake's
own handlers pass the signal on through geval_repro.pipeline.jobs.forward_stop_signals,
which this test pins against the installed Snakemake. The replies are the fake server's
(a ``fixture: true`` run), never a judge's real answers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import FIXTURES, REPO_ROOT
from tests.fake_openai_server import FakeOpenAIServer

LIMIT = 24
#: Seconds per answer: the whole run would take 6 s, the stop comes after 3 answers, so a
#: job that went on for 5 s after it would send every request (and fail the test).
LATENCY = 0.25
STOP_WITHIN = 20.0  # seconds from the signal to Snakemake's exit


def _config(tmp_path: Path, mirror_dir: Path, base_url: str) -> Path:
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    config["judges"]["stop-run"] = {
        "benchmark": "qags_xsum",
        "format": "geval-jsonl",
        "label": "FIXTURE: fake-server replies (tests only)",
        "fixture": True,
        "dir": str(tmp_path / "run"),
        "run": {
            "model": "fake-model",
            "base_url": base_url,
            "mode": "logprobs",
            "top_logprobs": 5,
            "limit": LIMIT,
            "concurrency": 1,
            "api_key_env": "GEVAL_TEST_JUDGE_KEY",
        },
    }
    config["judges_to_run"] = ["stop-run"]
    config["mirror"] = str(mirror_dir)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _snakemake(tmp_path: Path, config: Path) -> subprocess.Popen[str]:
    """The workflow up to the judge run, in a session of its own (so only this test's
    signal reaches it, not a terminal's), with Snakemake's lock."""
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--until",
        "ask_judge_stop_run",
        "--cores",
        "all",
        "--configfile",
        str(config),
        "--config",
        f"data_dir={tmp_path / 'data'}",
        f"results_dir={tmp_path / 'results'}",
    ]
    return subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _job_processes(tmp_path: Path) -> list[str]:
    """Command lines of the fork servers and job processes (forked from a server, they carry
    its command line) still running for this test's folder."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if "geval_repro.pipeline.fork_server" in line and str(tmp_path).encode() in environ:
            found.append(line)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_judge_job_stops_within_seconds_and_a_rerun_resumes(
    tmp_path: Path, mirror_dir: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    monkeypatch.setenv("GEVAL_TEST_JUDGE_KEY", "sk-test-STOP-0c1d")
    monkeypatch.setenv("TEST_FOLDER", str(tmp_path))  # marks this test's job processes
    with FakeOpenAIServer(lifetime=240, latency=LATENCY) as server:
        config = _config(tmp_path, mirror_dir, server.base_url)
        snakemake = _snakemake(tmp_path, config)
        deadline = time.monotonic() + 120
        while len(server.requests) < 3:  # the job is sending
            assert snakemake.poll() is None, snakemake.communicate()[0][-4000:]
            assert time.monotonic() < deadline, "the judge job never started sending"
            time.sleep(0.1)
        os.kill(snakemake.pid, number)  # Snakemake alone, as `kill PID` or a scheduler does
        signalled = time.monotonic()
        output, _ = snakemake.communicate(timeout=STOP_WITHIN + 30)
        took = time.monotonic() - signalled
        assert took < STOP_WITHIN, f"stopped after {took:.1f} s:\n{output[-4000:]}"
        assert snakemake.returncode != 0
        sent = len(server.requests)
        assert sent < LIMIT, "the job was not stopped: every request was sent"
        time.sleep(2 * LATENCY)
        assert len(server.requests) == sent, "requests went on after Snakemake exited"
        assert _job_processes(tmp_path) == []
        assert not list((REPO_ROOT / ".snakemake" / "locks").glob("*")), "a lock was left"

        rerun = _snakemake(tmp_path, config)
        output, _ = rerun.communicate(timeout=180)
        assert rerun.returncode == 0, output[-6000:]
        records = (tmp_path / "run" / "consistency.jsonl").read_text().splitlines()
        assert len(records) == LIMIT
        # the answers received before the stop came from the cache: at most the one in
        # flight when the signal came is asked again
        assert LIMIT <= len(server.requests) <= LIMIT + 1, (sent, len(server.requests))
