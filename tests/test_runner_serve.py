"""``geval-repro serve``: the local model for ``geval-repro judge --base-url`` (real server).

Starts llama-cpp-python's server with SmolLM2-135M (the local extra), runs ``judge`` against
it from the command line (no key sent, ``--concurrency`` 1 by itself), then stops it with
SIGINT: exit status 0, the process and its server gone, the port free again. A port in use
is refused with one line. Needs the local extra; fails, never skips, without it. SmolLM2's
replies here are test data of the machinery, never a judge's result.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.runner.server import free_port, port_is_free
from tests.test_runner_stopping import alive, children

pytestmark = pytest.mark.real_server

REPO_ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def test_serve_then_judge_then_ctrl_c(tmp_path, mirror_dir, monkeypatch, capfd):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SERVE-not-for-local-servers")
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "geval_repro.cli", "serve", "--port", str(port), "--threads", "1",
         "--n-ctx", "2048"],
        env=ENV, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = serve.stderr.readline()
        assert first.startswith(f"serving smollm2-135m at http://127.0.0.1:{port}/v1"), first
        command = serve.stderr.readline().strip()
        assert command.startswith(f"geval-repro judge --base-url http://127.0.0.1:{port}/v1")
        servers = children(serve.pid)
        out = tmp_path / "run"
        argv = [
            "judge", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "smollm2-135m",
            "--benchmark", "qags_xsum", "--dimension", "consistency", "--mode", "sample",
            "--n", "2", "--seed", "1", "--max-tokens", "3", "--limit", "2", "--out", str(out),
            "--mirror", str(mirror_dir), "--raw-dir", str(tmp_path / "raw"), "--timeout", "600",
        ]  # fmt: skip
        assert main(argv) == 0
        err = capfd.readouterr().err
        assert "--concurrency 1 (automatic: llama-cpp-python's server" in err
        entry = json.loads((out / "manifest.json").read_text())["dimensions"]["consistency"]
        assert entry["api_key_sent"] is False and entry["client"]["concurrency"] == 1
        started = time.monotonic()
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=30) == 0
        assert time.monotonic() - started < 5
        assert "stopped the server (SIGINT)" in serve.stderr.read()
    finally:
        serve.kill()
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert servers and not any(alive(pid) for pid in servers)
    assert port_is_free(port)


def test_serve_on_a_port_in_use_says_so(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"port {port} of 127.0.0.1 is in use: give another port" in err
