"""Stopping a judge run with SIGINT (Ctrl-C) or SIGTERM (geval_repro.runner.stopping).

A run in its own process, against the fake OpenAI-compatible server made slow, gets the
signal after a few answers: it must end within about two seconds with status 130 / 143 and
one console line, no traceback, no JSONL written (atomic writes: the previous file or none),
no lock left, every answer received in the cache; a rerun then sends only what is missing.
The same for :func:`geval_repro.runner.configured.run_configured_judge` called in the main
thread of a process (how the pipeline's judge jobs will run), and, with the real llama.cpp
server of a ``server:`` block, no server process left (``real_server``). Every reply is the
fake's (or SmolLM2's, for the real-server test): test data, never a judge's answer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from geval_repro.runner.cache import CACHE_FILE
from geval_repro.runner.lock import LOCK_FILE
from tests.fake_openai_server import FakeOpenAIServer
from tests.test_runner_run import _stored_prompts as stored_prompts

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

REPO_ROOT = Path(__file__).resolve().parents[1]
#: From the signal to the process's end; the run itself stops at once, Python's own exit
#: takes about a second on a loaded 2-core machine.
STOP_SECONDS = 3.5
N_ITEMS = 30
#: Seconds per answer of the fake server: with 2 requests per item and 2 at a time, the 26
#: items left after the stop (at the 4th stored answer) would take about 4 s, more than
#: STOP_SECONDS, so a run that ignored the signal would end with status 0 (and fail).
LATENCY = 0.15


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.runner.run import load_items_table

    folder = tmp_path_factory.mktemp("processed")
    raw = tmp_path_factory.mktemp("raw")
    load_items_table(get_benchmark("summeval"), raw, None, mirror_dir).to_parquet(
        folder / "summeval.parquet", index=False
    )
    return folder


def child_env() -> dict[str, str]:
    """The environment of a run's process, read when it starts (after the fixture has set
    GEVAL_REPRO_MIRROR), with this checkout on PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def wait_for(condition, within: float = 90.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def stop_after_answers(process: subprocess.Popen, db: Path, number: int) -> float:
    """Send ``number`` answers' worth of time, then the signal; the seconds until it ended."""
    wait_for(lambda: stored_prompts(db).total() >= 4 or process.poll() is not None)
    assert process.poll() is None, "the run ended before it was stopped"
    sent = time.monotonic()
    process.send_signal(number)
    process.wait(timeout=30)
    return time.monotonic() - sent


def assert_stopped_cleanly(err: str, status: int, seconds: float, number: int, out: Path):
    assert status == 128 + number, err
    assert seconds < STOP_SECONDS, seconds
    assert "Traceback" not in err and "Task was destroyed" not in err and "Unclosed" not in err
    stopped = [line for line in err.splitlines() if "stopped by" in line]
    assert len(stopped) == 1 and signal.Signals(number).name in stopped[0], err
    assert not list(out.glob("*.jsonl")) and not list(out.rglob("*.tmp"))  # nothing partial
    assert not (out / LOCK_FILE).exists() and not (out / "cache" / LOCK_FILE).exists()


def judge_argv(url: str, out: Path, processed: Path) -> list[str]:
    return [
        sys.executable, "-m", "geval_repro.cli", "judge", "--benchmark", "summeval",
        "--dimension", "coherence", "--model", "fake-model", "--base-url", url,
        "--mode", "both", "--n", "2", "--limit", str(N_ITEMS), "--out", str(out),
        "--processed", str(processed), "--concurrency", "2", "--raw-dir", str(out.parent / "r"),
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_judge_stops_within_two_seconds_and_a_rerun_sends_only_what_is_missing(
    tmp_path, processed, number
):
    out = tmp_path / "run"
    db = out / "cache" / CACHE_FILE
    with FakeOpenAIServer(latency=LATENCY) as server:
        argv = judge_argv(server.base_url, out, processed)
        process = subprocess.Popen(argv, env=child_env(), stderr=subprocess.PIPE, text=True)
        try:
            seconds = stop_after_answers(process, db, number)
            err = process.stderr.read()
        finally:
            process.kill()
        assert_stopped_cleanly(err, process.returncode, seconds, number, out)
        stored = stored_prompts(db)
        assert 4 <= stored.total() < N_ITEMS  # what arrived is kept
        before = len(server.requests)
        assert subprocess.run(argv, env=child_env(), capture_output=True).returncode == 0
        resent = Counter(server.requests[before:])
    assert stored + resent == stored_prompts(db)  # each missing answer requested once
    assert stored_prompts(db).total() == N_ITEMS
    assert len((out / "coherence.jsonl").read_text().splitlines()) == N_ITEMS


CONFIGURED = textwrap.dedent(
    """
    import json, logging, sys
    from pathlib import Path
    from geval_repro.config import judge_spec
    from geval_repro.runner.configured import run_configured_judge

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    spec = judge_spec("stopped", json.loads(sys.argv[1]))
    run_configured_judge(
        spec, processed=Path(sys.argv[2]), raw_dir=Path(sys.argv[3]),
        cache_dir=Path(sys.argv[4]), server_log=sys.argv[5],
    )
    print("finished", file=sys.stderr)
    """
)


def configured_argv(spec: dict, processed: Path, tmp_path: Path) -> list[str]:
    return [
        sys.executable, "-c", CONFIGURED, json.dumps(spec), str(processed), str(tmp_path / "raw"),
        str(tmp_path / "cache"), str(tmp_path / "server.log"),
    ]  # fmt: skip


@pytest.mark.slow
def test_run_configured_judge_stops_on_sigterm_in_the_main_thread(tmp_path, processed):
    out = tmp_path / "run"
    with FakeOpenAIServer(latency=LATENCY) as server:
        spec = {
            "benchmark": "summeval",
            "format": "geval-jsonl",
            "label": "FIXTURE: fake-server replies (tests only)",
            "dir": str(out),
            "run": {"model": "fake-model", "base_url": server.base_url, "mode": "both", "n": 2,
                    "concurrency": 2, "limit": N_ITEMS, "dimensions": ["coherence"]},
        }  # fmt: skip
        argv = configured_argv(spec, processed, tmp_path)
        process = subprocess.Popen(argv, env=child_env(), stderr=subprocess.PIPE, text=True)
        try:
            seconds = stop_after_answers(process, tmp_path / "cache" / CACHE_FILE, signal.SIGTERM)
            err = process.stderr.read()
        finally:
            process.kill()
        assert_stopped_cleanly(err, process.returncode, seconds, signal.SIGTERM, out)
        assert f"the answers received are cached in {tmp_path / 'cache'}" in err
        stored = stored_prompts(tmp_path / "cache" / CACHE_FILE).total()
        before = len(server.requests)
        done = subprocess.run(argv, env=child_env(), capture_output=True, text=True)
        assert done.returncode == 0 and "finished" in done.stderr
        assert len(server.requests) - before == N_ITEMS - stored


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.real_server
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_managed_llama_cpp_server_is_stopped_with_the_run(tmp_path, processed, number):
    out = tmp_path / "run"
    spec = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "label": "FIXTURE: fake-server replies (tests only)",
        "dir": str(out),
        "run": {"mode": "both", "n": 20, "seed": 1, "max_tokens": 3, "limit": 16,
                "timeout": 600, "dimensions": ["coherence"],
                "server": {"llama_cpp": {"model": "smollm2-135m", "n_ctx": 2048, "threads": 1}}},
    }  # fmt: skip
    argv = configured_argv(spec, processed, tmp_path)
    db = tmp_path / "cache" / CACHE_FILE
    process = subprocess.Popen(argv, env=child_env(), stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: stored_prompts(db).total() >= 2 or process.poll() is not None, 300)
        servers = children(process.pid)
        assert servers and process.poll() is None
        sent = time.monotonic()
        process.send_signal(number)
        process.wait(timeout=60)
        seconds = time.monotonic() - sent
        err = process.stderr.read()
    finally:
        process.kill()
    assert_stopped_cleanly(err, process.returncode, seconds, number, out)
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in servers)  # no llama_cpp.server left
    assert stored_prompts(db).total() >= 2
