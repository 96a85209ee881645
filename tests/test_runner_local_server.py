"""The local server's life cycle (geval_repro.runner.server), with the fake OpenAI-compatible
server as the process (tests/fake_openai_server.py run as a module): started on 127.0.0.1 at
a free port, ready when /v1/models answers, stopped on exit, on an exception and when the
process that started it gets SIGTERM, SIGINT or SIGKILL (no orphan); a failed start quotes
the server's log. The model file's checks use a registry entry pointing at a small file. The
machine facts a manifest records (CPU model, llama.cpp's kernel features) are read from
hand-written texts."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from geval_repro.files.digest import sha256_of
from geval_repro.registry.local_models import LOCAL_MODELS
from geval_repro.runner.server import (
    ManagedServer,
    ServerCommand,
    ServerStartError,
    cpu_model,
    ggml_cpu_features,
    local_model_path,
    port_is_free,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
ENV = {"PYTHONPATH": str(REPO_ROOT)}


def fake_command(
    *, elsewhere: bool = False, module: str = "tests.fake_openai_server"
) -> ServerCommand:
    """The fake server's command; ``elsewhere``: it listens on a port the system picks, not
    the one it is given (so it never answers there, and never finds that port taken)."""
    return ServerCommand(
        module=module,
        arguments=lambda port: ["--port", "0" if elsewhere else str(port), "--latency", "0"],
        identity="fake/test",
        model="fake-model",
        description="the fake server",
        environment=ENV,
    )


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return status != "Z"


def gone(pid: int, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_started_answers_and_is_gone_after_the_block(tmp_path):
    with ManagedServer(fake_command(), startup_timeout=30, log_path=tmp_path / "s.log") as server:
        pid = server.process.pid
        assert server.base_url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response:
            assert json.load(response)["data"][0]["id"] == "fake-model"
    assert gone(pid)


def test_gone_after_an_exception_in_the_block():
    with pytest.raises(RuntimeError, match="boom"):
        with ManagedServer(fake_command(), startup_timeout=30) as server:
            pid = server.process.pid
            raise RuntimeError("boom")
    assert gone(pid)


def test_a_server_that_exits_at_once_is_reported_with_its_log(tmp_path):
    command = dataclasses.replace(
        fake_command(), module="tests.no_such_server_module_here", description="a broken server"
    )
    with pytest.raises(ServerStartError, match="exited with status") as caught:
        ManagedServer(command, startup_timeout=30, log_path=tmp_path / "s.log").start()
    assert "No module named tests.no_such_server_module_here" in str(caught.value)
    assert str(tmp_path / "s.log") in str(caught.value)


def test_a_symlink_at_the_servers_log_is_refused_and_what_it_points_to_is_untouched(tmp_path):
    """The log's folder (the pipeline's logs) is not the runner's alone (issue 44)."""
    victim = tmp_path / "precious.txt"
    victim.write_text("precious\n")
    (tmp_path / "server.log").symlink_to(victim)
    server = ManagedServer(fake_command(), startup_timeout=30, log_path=tmp_path / "server.log")
    with pytest.raises(ServerStartError, match=r"server\.log is a symbolic link"):
        server.start()
    assert server.process is None and victim.read_text() == "precious\n"


def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path):
    # It listens on another port than the one it was given: it never answers there.
    server = ManagedServer(fake_command(elsewhere=True), startup_timeout=2, log_path=tmp_path / "l")
    with pytest.raises(ServerStartError, match=r"did not answer .* within 2 s"):
        server.start()
    assert server.process is None  # stopped: no process left behind


# SIGINT raises KeyboardInterrupt as at a terminal, also when the suite was started with SIGINT
# ignored (a shell's background job: its children inherit the ignored signal).
PARENT = textwrap.dedent(
    """
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from geval_repro.runner.server import ManagedServer
    from tests.test_runner_local_server import fake_command
    with ManagedServer(fake_command(), startup_timeout=30) as server:
        print(server.process.pid, flush=True)
        time.sleep(120)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_no_orphan_when_the_starting_process_is_stopped(sig):
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, **ENV},
    )
    try:
        child = int(parent.stdout.readline())
        assert alive(child)
        parent.send_signal(sig)
        parent.wait(timeout=30)
        assert gone(child), f"the server (pid {child}) outlived its parent ({sig.name})"
    finally:
        parent.kill()
        parent.wait()


def test_the_model_file_is_found_through_its_package_and_verified(tmp_path, monkeypatch):
    package = tmp_path / "fake_model_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    weights = package / "tiny.gguf"
    weights.write_bytes(b"GGUF not really a model")
    monkeypatch.syspath_prepend(str(tmp_path))
    model = dataclasses.replace(
        LOCAL_MODELS["smollm2-135m"],
        package="fake_model_pkg",
        file="tiny.gguf",
        sha256=sha256_of(weights),
        bytes=weights.stat().st_size,
    )
    assert local_model_path(model) == weights
    weights.write_bytes(b"GGUF not really a mode!")  # same size, other bytes
    with pytest.raises(ServerStartError, match=r"SHA-256 .* expected"):
        local_model_path(model)
    weights.write_bytes(b"short")
    with pytest.raises(ServerStartError, match="has 5 bytes"):
        local_model_path(model)
    missing = dataclasses.replace(model, package="no_such_model_package")
    with pytest.raises(ServerStartError, match=r"not installed.*\.\[local\]"):
        local_model_path(missing)


def test_a_port_is_in_use_while_something_listens_and_free_once_it_stopped():
    """port_is_free binds as servers do: a listening socket makes the port in use; the
    closed connections a stopped server leaves behind (TIME_WAIT) do not."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    assert not port_is_free(port)
    accepted.close()  # the server's side closes first: its port's connection is in TIME_WAIT
    client.close()
    server.close()
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))  # the TIME_WAIT is there: a plain bind is refused
    assert port_is_free(port)


def test_the_cpu_model_is_read_from_cpuinfo():
    cpuinfo = textwrap.dedent(
        """\
        processor\t: 0
        vendor_id\t: AuthenticAMD
        model name\t: AMD EPYC 7B13 64-Core Processor \t
        flags\t\t: fpu avx2

        processor\t: 1
        model name\t: AMD EPYC 7B13 64-Core Processor
        """
    )
    assert cpu_model(cpuinfo) == "AMD EPYC 7B13 64-Core Processor"
    assert cpu_model("processor\t: 0\nCPU implementer\t: 0x41\n") is None  # ARM: no name


def test_the_kernel_features_are_those_llama_cpp_sets_to_1():
    # llama.cpp 0.3.x's llama_print_system_info() on an AVX2 machine without AVX-512
    info = (
        "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
        "AVX512 = 0 | AVX512_VNNI = 0 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
    )
    assert ggml_cpu_features(info) == [
        "SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2", "LLAMAFILE", "OPENMP", "REPACK"
    ]  # fmt: skip
    assert ggml_cpu_features("CUDA : ARCHS = 890 | USE_GRAPHS = 1 | ") == ["USE_GRAPHS"]
