"""A local OpenAI-compatible server that a run starts and stops: llama-cpp-python's server.

Protocol of :class:`ManagedServer` (used as a context manager):

1. start: the command runs from this interpreter with its output going to a log file
   (opened without following a link: :func:`geval_repro.runner.lock.open_no_follow`); the
   port is the one given, else a free one on 127.0.0.1 (asked from the kernel, then given to
   the server). The
   child asks the kernel to send it SIGTERM when the thread that started it dies (Linux
   ``PR_SET_PDEATHSIG``), so even a ``kill -9`` of this process leaves no orphan server;
2. ready: ``GET <base>/models`` is polled until it answers 200, within ``startup_timeout``
   seconds. If the process exits first or the time runs out, :class:`ServerStartError`
   quotes the tail of the server's log;
3. stop (``__exit__``, so also after an exception or Ctrl-C): SIGTERM, then SIGKILL after
   ``grace`` seconds (:data:`STOP_GRACE` when the run was interrupted: a server busy with a
   request the client gave up would otherwise finish it first); the process is waited for.
   While a server runs in the main thread and SIGTERM has its default action, SIGTERM to
   this process raises ``SystemExit`` so that the stop runs too (a run that handles
   SIGTERM itself, :mod:`geval_repro.runner.stopping`, keeps its handler).

:func:`llama_cpp_server` builds the ``python -m llama_cpp.server`` command for a model of
:mod:`geval_repro.registry.local_models`: the GGUF file is found through its installed
package and its size and SHA-256 are checked first (:func:`local_model_path`). The server
answers to the model's registry name (``--model_alias``), so requests name ``model:
smollm2-135m``. Its identity in the response cache is :func:`server_identity` (model and
file hash, not the port, which changes every start): a rerun finds its answers again. What
the manifest records about it (:meth:`ManagedServer.describe`) includes the machine's CPU
(:func:`cpu_model`) and the instruction sets llama.cpp's kernels were built with
(:func:`ggml_cpu_features`): the same model, seed and request give other log-probabilities
on a build with other kernels (docs/local-model.md).
"""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import util
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from geval_repro.files.digest import sha256_of
from geval_repro.registry.local_models import LocalModel, get_local_model
from geval_repro.runner.lock import SymlinkRefused, open_no_follow

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
#: Seconds a server may take to stop after SIGTERM when the run was interrupted.
STOP_GRACE = 1.0
INSTALL_HINT = (
    'install the local extra: CMAKE_ARGS="..." pip install --no-cache-dir -c requirements.lock '
    '-e ".[local]" (the build flags and why: docs/local-model.md)'
)
#: Runs the server module with a parent-death signal set first (Linux; elsewhere a no-op).
#: argv[1] is the pid of the starting process: if it is already gone, the child exits.
_CHILD = (
    "import ctypes, os, runpy, signal, sys\n"
    "parent = int(sys.argv.pop(1))\n"
    "try:\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG\n"
    "except (AttributeError, OSError):\n"
    "    pass\n"
    "if os.getppid() != parent:\n"
    "    sys.exit('geval-repro: the process that started this server is gone')\n"
    "module = sys.argv.pop(1)\n"
    "sys.argv[0] = module\n"
    "runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
)


class ServerStartError(RuntimeError):
    """The local server could not be started (the message quotes its log)."""


def port_is_free(port: int) -> bool:
    """Whether nothing listens on ``port`` of 127.0.0.1, so a server may bind it. Bound as
    servers bind (``SO_REUSEADDR``, as uvicorn does): the closed connections of a server
    that just stopped (TIME_WAIT) leave the port free."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def local_model_path(model: LocalModel) -> Path:
    """The model's file inside its installed package, after checking its size and SHA-256."""
    spec = util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise ServerStartError(
            f"local model {model.name}: package {model.package} ({model.distribution}"
            f"=={model.version}) is not installed; {INSTALL_HINT}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / model.file
    if not path.is_file():
        raise ServerStartError(
            f"local model {model.name}: {path} is missing from the installed package; "
            f"reinstall {model.distribution}=={model.version}"
        )
    size = path.stat().st_size
    actual = sha256_of(path) if size == model.bytes else None
    if actual != model.sha256:
        found = f"SHA-256 {actual}" if actual else f"{size} bytes"
        raise ServerStartError(
            f"local model {model.name}: {path} has {found}, expected {model.bytes} bytes "
            f"with SHA-256 {model.sha256} ({model.distribution}=={model.version}); reinstall "
            "that version (pip install -c requirements.lock ...)"
        )
    return path


def server_identity(model: LocalModel) -> str:
    """The server's name in cache keys and manifests: model and file hash, never the port."""
    return f"llama_cpp.server/{model.name}@{model.sha256[:16]}"


def _log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    tail = text.strip().splitlines()[-lines:]
    return "\n".join(f"    {line}" for line in tail) or "    (empty log)"


@dataclass(frozen=True)
class ServerCommand:
    """What to run: a module of this interpreter and its arguments for a given port."""

    module: str
    arguments: Callable[[int], list[str]]
    identity: str
    model: str
    description: str
    environment: Mapping[str, str] | None = None
    details: Mapping[str, Any] | None = None


class ManagedServer:
    """A local server process for the duration of a ``with`` block (module docstring)."""

    def __init__(
        self,
        command: ServerCommand,
        *,
        startup_timeout: float = 180.0,
        grace: float = 10.0,
        log_path: str | os.PathLike[str] | None = None,
        port: int | None = None,
    ) -> None:
        self.command = command
        self.startup_timeout = startup_timeout
        self.grace = grace
        if port is not None and not port_is_free(port):
            raise ServerStartError(f"port {port} of {HOST} is in use: give another port")
        self.port = port if port is not None else free_port()
        self.base_url = f"http://{HOST}:{self.port}/v1"
        self._own_log = log_path is None
        if log_path is None:
            handle, name = tempfile.mkstemp(prefix="geval-repro-server-", suffix=".log")
            os.close(handle)
            log_path = Path(name)
        self.log_path = Path(log_path)
        self.process: subprocess.Popen[bytes] | None = None
        self._previous_sigterm: Any = None
        self._keep_log = False

    @property
    def identity(self) -> str:
        return self.command.identity

    @property
    def model(self) -> str:
        return self.command.model

    def describe(self) -> dict[str, Any]:
        """What the manifest records about this server (never its port)."""
        return {"identity": self.identity, **(self.command.details or {})}

    def __enter__(self) -> ManagedServer:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        interrupted = isinstance(error, KeyboardInterrupt | SystemExit)
        self.stop(grace=STOP_GRACE if interrupted else None)

    def start(self) -> None:
        """Start the process and wait until it answers (see the module docstring)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        argv = [
            sys.executable,
            "-c",
            _CHILD,
            str(os.getpid()),
            self.command.module,
            *self.command.arguments(self.port),
        ]
        env = {**os.environ, **(self.command.environment or {})}
        try:  # the log's folder (the pipeline's logs) is not the runner's alone
            handle = open_no_follow(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        except SymlinkRefused as error:
            raise ServerStartError(f"the server's log: {error}") from None
        with open(handle, "wb") as output:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=env
            )
        self._trap_sigterm()
        log.info(
            "started %s (pid %d) at %s; its log: %s",
            self.command.description,
            self.process.pid,
            self.base_url,
            self.log_path,
        )
        try:
            self._wait_ready()
        except BaseException:
            self._keep_log = True
            self.stop()
            raise

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        url = f"{self.base_url}/models"
        while True:
            status = self.process.poll()
            if status is not None:
                raise ServerStartError(
                    f"{self.command.description} exited with status {status} before it "
                    f"answered; the end of its log ({self.log_path}):\n{_log_tail(self.log_path)}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"{self.command.description} did not answer {url} within "
                    f"{self.startup_timeout:.0f} s; the end of its log ({self.log_path}):\n"
                    f"{_log_tail(self.log_path)}"
                )
            time.sleep(0.2)

    def stop(self, grace: float | None = None) -> None:
        """Stop the process (SIGTERM, then SIGKILL after ``grace`` seconds, default the
        server's) and wait for it; idempotent."""
        process, self.process = self.process, None
        self._restore_sigterm()
        if process is not None and process.poll() is not None:
            self._keep_log = True  # it ended by itself: its log says why
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=self.grace if grace is None else grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.info("stopped %s (pid %d)", self.command.description, process.pid)
        if self._own_log and not self._keep_log:
            self.log_path.unlink(missing_ok=True)

    def log_text(self) -> str:
        """The server's log so far (its timings, for the benchmark script)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def _trap_sigterm(self) -> None:
        """In the main thread, turn SIGTERM into ``SystemExit`` so that ``stop`` runs (unless
        SIGTERM already has a handler: it then stops the run, and ``__exit__`` the server)."""
        if threading.current_thread() is not threading.main_thread():
            return  # the child's parent-death signal still stops it with this thread
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return

        def terminate(number: int, frame: FrameType | None) -> None:
            raise SystemExit(128 + number)

        self._previous_sigterm = signal.signal(signal.SIGTERM, terminate)

    def _restore_sigterm(self) -> None:
        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self._previous_sigterm)
            self._previous_sigterm = None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity: a cluster job's own where the cluster
    binds them, not the node's), or the machine's where the affinity is unknown."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def cpu_model(cpuinfo: str | None = None) -> str | None:
    """The CPU's ``model name`` in ``cpuinfo`` (default: this machine's ``/proc/cpuinfo``);
    None where it names none (not Linux, or a CPU whose cpuinfo has no such line)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    found = re.search(r"^model name\s*:\s*(.+?)\s*$", cpuinfo, re.MULTILINE)
    return found.group(1) if found else None


def ggml_cpu_features(system_info: str | None = None) -> list[str]:
    """The names set to 1 in llama.cpp's system information (``CPU : SSE3 = 1 | AVX = 1 |
    AVX512 = 0 | ...``; default: the installed llama-cpp-python's
    ``llama_print_system_info()``): the instruction sets and options its CPU kernels were
    built with, which decide how the logits are summed."""
    if system_info is None:
        from llama_cpp import llama_cpp as library

        system_info = library.llama_print_system_info().decode("utf-8", errors="replace")
    return re.findall(r"(\w+) = 1\b", system_info)


def _version(distribution: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def llama_cpp_server(
    model_name: str,
    *,
    n_ctx: int = 8192,
    threads: int | None = None,
    startup_timeout: float = 180.0,
    log_path: str | os.PathLike[str] | None = None,
    port: int | None = None,
) -> ManagedServer:
    """A :class:`ManagedServer` running ``llama_cpp.server`` with a registered local model.

    Checks first that ``llama_cpp.server`` is installed and the model file is intact (size
    and SHA-256). ``threads`` defaults to the number of CPUs this process may run on
    (:func:`usable_cpus`); ``n_ctx`` is the context in tokens (a longer prompt is refused per
    item, see :mod:`geval_repro.runner.run`); ``port`` defaults to a free one.
    """
    model = get_local_model(model_name)
    if util.find_spec("llama_cpp") is None:
        raise ServerStartError(
            f"llama-cpp-python is not installed in {sys.executable}; {INSTALL_HINT}"
        )
    path = local_model_path(model)
    threads = threads or usable_cpus()

    def arguments(port: int) -> list[str]:
        return [
            "--model", str(path), "--model_alias", model.name, "--host", HOST,
            "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
            "--n_threads_batch", str(threads), "--verbose", "true",
        ]  # fmt: skip

    command = ServerCommand(
        module="llama_cpp.server",
        arguments=arguments,
        identity=server_identity(model),
        model=model.name,
        description=f"llama_cpp.server ({model.name}, n_ctx {n_ctx}, {threads} threads)",
        details={
            "server": "llama_cpp.server",
            "llama_cpp_python": _version("llama-cpp-python"),
            "model": model.name,
            "model_file": model.file,
            "model_sha256": model.sha256,
            "model_distribution": f"{model.distribution}=={model.version}",
            "n_ctx": n_ctx,
            "threads": threads,
            "cpu": cpu_model(),
            "ggml_cpu_features": ggml_cpu_features(),
        },
    )
    return ManagedServer(command, startup_timeout=startup_timeout, log_path=log_path, port=port)
