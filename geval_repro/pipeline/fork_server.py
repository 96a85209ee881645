"""The parent of the jobs that run in a process of their own: one process per Snakemake run
that forks each job's process from itself, as multiprocessing's "forkserver" does, after
importing the job's module and the libraries it uses (:func:`_preload`: once per module and
run). The jobs of a module after its first then start with pandas, matplotlib or nbconvert
loaded (a fresh interpreter spent 0.6-1.1 s of CPU importing them, more than most of these
jobs compute); a job's CPU count starts at zero at the fork.

Started by :mod:`geval_repro.pipeline.processes` (the first job that needs it) as
``python -m geval_repro.pipeline.fork_server FD STOP_WAIT``, in a session of its own, with
``FD`` one end of a Unix ``SOCK_SEQPACKET`` socket pair whose other end only that Snakemake
process holds. Before anything else it sets pandas' strings in Python objects
(:mod:`geval_repro.pipeline.string_storage`), which its children inherit. Protocol:

1. a job sends one message on that socket carrying two file descriptors: one end of a stream
   socket of its own (the request) and the write end of a pipe (its log); then writes the
   request, a JSON object ``{"call": "<module>:<function>", "kwargs": {...}, "environment":
   {...}, "cwd": "..."}``, on the stream socket and shuts down its writing side;
2. the server imports what the job needs (:func:`_preload`) and forks; it answers
   ``<pid>\\n`` at once and ``<exit code>\\n`` (as :attr:`subprocess.Popen.returncode`:
   minus the signal's number if a signal ended it) when it has reaped the child, then
   closes the request's socket;
3. the child (:func:`_run_child`) starts a session of its own (Ctrl-C in a terminal reaches
   it once, through Snakemake), asks the kernel for SIGTERM when the server dies (Linux
   ``PR_SET_PDEATHSIG``), takes the job's environment and working folder, writes stdout and
   stderr to the log pipe, sets the signal handlers of a fresh interpreter (SIGINT:
   KeyboardInterrupt; SIGTERM: ends the function as Ctrl-C does, exit 143), calls the
   function (:func:`run_call`) and exits with its code.

The server blocks SIGINT and SIGTERM: a stop reaches the jobs (Snakemake passes it on,
:func:`geval_repro.pipeline.jobs.forward_stop_signals`), which stop and are reaped as usual.
When its socket closes (Snakemake exits, or is killed), the server sends SIGTERM to the
children still running, waits for them (at most ``STOP_WAIT`` s, then SIGKILL) and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import logging
import os
import resource
import selectors
import signal
import socket
import sys
import time
from typing import Any

from geval_repro.pipeline.string_storage import store_strings_in_python

log = logging.getLogger(__name__)

#: What the server imports, besides the job's module, before it forks the first job of that
#: module: the libraries its process functions import when called (once per run; the judge
#: runner is left to the judge run's own process: a judge run lasts minutes).
_SAVING = ("matplotlib.backends.backend_agg", "matplotlib.backends.backend_svg")
PRELOAD = {
    "geval_repro.pipeline.judge_pairs": ("geval_repro.report.cluster_figure", *_SAVING),
    "geval_repro.pipeline.judge_tables": _SAVING,
    "geval_repro.pipeline.report_jobs": ("geval_repro.report.notebooks",),
    "geval_repro.pipeline.writer_vs_llm": _SAVING,
}
#: The package whose functions a job may call.
PACKAGE = "geval_repro.pipeline."
#: Logging of a job's process (its stderr is the job's log).
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: The prefix of the child's closing line when its function raised.
FAILED = "geval-repro: "
#: The start of the child's last log line before it exits 0, followed by its CPU seconds
#: (its own since the fork and its waited-for subprocesses'): the job thread's closing line
#: counts only the thread (perf/time_pipeline.py reads both).
PROCESS_CPU = "the job's process used"
#: Seconds the server waits for its children to stop after its socket closed (a judge run
#: stops within seconds: tests/test_job_stops.py).
STOP_WAIT = 30.0
#: Blocked in the server (and so in each child until its handlers are set: a stop sent right
#: after the fork waits for them instead of being lost).
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: The largest control message (the server receives two descriptors and a short tag).
_MESSAGE = 64


def run_call(request: dict[str, Any]) -> int:
    """Call ``request["call"]`` with ``request["kwargs"]`` with the job's logging set up (to
    stderr: INFO of geval_repro, WARNING of the rest); return the exit code: 0 (and the CPU
    line :data:`PROCESS_CPU` last), 1 when the function raised (its traceback, then one line
    ``geval-repro: <error>``), 130 when interrupted."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=FORMAT, force=True)
    logging.getLogger("geval_repro").setLevel(logging.INFO)
    logging.captureWarnings(True)
    module, _, function = str(request["call"]).partition(":")
    if not module.startswith(PACKAGE):
        print(f"{FAILED}{module} is not a module of {PACKAGE[:-1]}", file=sys.stderr)
        return 2
    try:
        target = getattr(importlib.import_module(module), function)
        target(**request["kwargs"])
    except KeyboardInterrupt:
        print(f"{FAILED}interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Exception as error:  # the job's one line; the traceback goes before it
        log.exception("%s failed", request["call"])
        print(f"{FAILED}{error}".splitlines()[0], file=sys.stderr)
        return 1
    print(f"{PROCESS_CPU} {_cpu_seconds():.1f} s of CPU", file=sys.stderr)
    return 0


def _cpu_seconds() -> float:
    """User and system CPU seconds of this process and of the subprocesses it waited for (a
    notebook's kernel, METEOR 1.5's JVM)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _stop(number: int, frame: object) -> None:
    """SIGTERM in a job's process: end the function as Ctrl-C does (finally blocks run)."""
    sys.exit(128 + number)


def _run_child(request: dict[str, Any], log_fd: int, server: int) -> int:
    """The forked child's side (module docstring, step 3); returns its exit code. ``server``:
    the server's pid (gone already: exit)."""
    os.setsid()
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != server:
        return 1
    for target in (1, 2):
        os.dup2(log_fd, target)
    os.close(log_fd)
    os.environ.clear()
    os.environ.update(request["environment"])
    os.chdir(request["cwd"])
    for number, handler in (
        (signal.SIGCHLD, signal.SIG_DFL),
        (signal.SIGINT, signal.default_int_handler),
        (signal.SIGTERM, _stop),
    ):
        signal.signal(number, handler)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # one sent since the fork: now
        return run_call(request)
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except SystemExit as stop:  # SIGTERM's handler
        return stop.code if isinstance(stop.code, int) else 1


def _preload(call: str) -> None:
    """Import the module of ``call`` and its :data:`PRELOAD` in the server (once), so that
    this job and the next ones of the module start with them; an import that fails is left
    to the child, which reports it."""
    module = call.partition(":")[0]
    if not module.startswith(PACKAGE) or module in sys.modules:
        return
    with contextlib.suppress(Exception):
        for name in (module, *PRELOAD.get(module, ())):
            importlib.import_module(name)
    gc.freeze()  # a child's garbage collections then leave the server's objects unwritten


def _fork(request_socket: socket.socket, log_fd: int, others: list[int]) -> int:
    """Read the job's request, fork its process; in the parent return the child's pid."""
    try:
        with request_socket.makefile("rb") as stream:
            request = json.loads(stream.read())
    except (OSError, ValueError):
        os.close(log_fd)
        raise
    _preload(str(request["call"]))
    sys.stdout.flush()
    sys.stderr.flush()
    server = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the server's loop
        code = 1
        try:
            signal.set_wakeup_fd(-1)  # the server's, closed next
            for fd in others:
                os.close(fd)
            request_socket.close()
            code = _run_child(request, log_fd, server)
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    os.close(log_fd)
    return pid


def _reap(jobs: dict[int, socket.socket], *, block: bool = False) -> None:
    """Reap the children that ended; tell each one's job its exit code."""
    while jobs:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        request_socket = jobs.pop(pid, None)
        if request_socket is not None:
            with contextlib.suppress(OSError):
                request_socket.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
            request_socket.close()


def _stop_children(jobs: dict[int, socket.socket], stop_wait: float) -> None:
    """SIGTERM to the children still running; reap them (SIGKILL after ``stop_wait`` s)."""
    for pid in list(jobs):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + stop_wait
    while jobs and time.monotonic() < deadline:
        _reap(jobs)
        time.sleep(0.05)
    for pid in list(jobs):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _reap(jobs, block=True)


def serve(control: socket.socket, stop_wait: float) -> None:
    """Fork a child for each job request on ``control`` (module docstring) until it closes;
    then stop the children still running (SIGKILL after ``stop_wait`` s)."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)  # wakes the selector
    signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
    jobs: dict[int, socket.socket] = {}
    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj == wake_read:
                    with contextlib.suppress(BlockingIOError):
                        while os.read(wake_read, 512):
                            pass
                    continue
                message, fds, _, _ = socket.recv_fds(control, _MESSAGE, 2)
                if not message:  # Snakemake closed its end or exited
                    _stop_children(jobs, stop_wait)
                    return
                request_socket = socket.socket(fileno=fds[0])
                others = [control.fileno(), selector.fileno(), wake_read, wake_write]
                others += [s.fileno() for s in jobs.values()]
                try:
                    pid = _fork(request_socket, fds[1], others)
                    request_socket.sendall(f"{pid}\n".encode())
                except (OSError, ValueError) as error:  # the job gave up; its thread reports
                    print(f"fork server: a job request failed: {error}", file=sys.stderr)
                    request_socket.close()
                    continue
                jobs[pid] = request_socket
            _reap(jobs)


def main() -> int:
    """``python -m geval_repro.pipeline.fork_server FD STOP_WAIT``: serve the jobs' requests
    on the socket ``FD`` until it closes."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # before any thread starts
    store_strings_in_python()  # before the first job's module is imported; forks inherit it
    control = socket.socket(fileno=int(sys.argv[1]))
    serve(control, float(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
