"""The parent of the workflow's job processes: one process per Snakemake run that forks each
job's process from itself, as multiprocessing's "forkserver" does, after importing the job's
module (:meth:`geval_repro.pipeline.processes.Job.prepare`: once per module and run). The
jobs of a module after its first then start with pandas, matplotlib or nbconvert loaded (a
fresh interpreter spent 0.6-1.1 s of CPU importing them, more than most of these jobs
compute); a job's CPU count starts at zero at the fork.

Started by :mod:`geval_repro.pipeline.processes` (the first job) as
``python -m geval_repro.pipeline.fork_server FD STOP_WAIT``, in a session of its own, with
``FD`` one end of a Unix ``SOCK_SEQPACKET`` socket pair whose other end only that Snakemake
process holds. Before anything else it sets pandas' strings in Python objects
(:mod:`geval_repro.pipeline.string_storage`), which its children inherit. Protocol:

1. a job sends one message on that socket carrying one file descriptor: one end of a stream
   socket of its own; then writes the request on it, a pickled mapping ``{"job": <Job>,
   "environment": {...}, "cwd": "..."}``, and shuts down its writing side;
2. the server prepares the job (imports its module) and forks; it answers ``<pid>\\n`` at
   once and ``<exit code>\\n`` (as :attr:`subprocess.Popen.returncode`: minus the signal's
   number if a signal ended it) when it has reaped the child, then closes the request's
   socket;
3. the child (:func:`_run_child`) starts a session of its own (Ctrl-C in a terminal reaches
   it once, through Snakemake), asks the kernel for SIGTERM when the server dies (Linux
   ``PR_SET_PDEATHSIG``), takes the job's environment and working folder, sets the signal
   handlers of a fresh interpreter (SIGINT: KeyboardInterrupt; SIGTERM: ends the job as
   Ctrl-C does, exit 143), runs the job (which writes its own log) and exits with its code.

The server blocks SIGINT and SIGTERM: a stop reaches the jobs (Snakemake passes it on,
:func:`geval_repro.pipeline.jobs.forward_stop_signals`), which stop and are reaped as usual.
When its socket closes (Snakemake exits, or is killed), the server sends SIGTERM to the
children still running, waits for them (at most ``STOP_WAIT`` s, then SIGKILL) and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import pickle
import selectors
import signal
import socket
import sys
import time
from typing import Any

from geval_repro.pipeline.string_storage import store_strings_in_python

#: Seconds the server waits for its children to stop after its socket closed (a judge
#: stops within seconds: tests/test_job_stops.py).
STOP_WAIT = 30.0
#: Blocked in the server (and so in each child until its handlers are set: a stop sent right
#: after the fork waits for them instead of being lost).
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: The largest control message (the server receives one descriptor and a short tag).
_MESSAGE = 64


def _stop(number: int, frame: object) -> None:
    """SIGTERM in a job's process: end the job as Ctrl-C does (finally blocks run)."""
    sys.exit(128 + number)


def _run_child(request: dict[str, Any], server: int) -> int:
    """The forked child's side (module docstring, step 3); returns its exit code. ``server``:
    the server's pid (gone already: exit)."""
    os.setsid()
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != server:
        return 1
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
        return int(request["job"]())
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except SystemExit as stop:  # SIGTERM's handler
        return stop.code if isinstance(stop.code, int) else 1


def _prepare(job: Any) -> None:
    """Prepare ``job`` in the server (import its module, once per module), so that this job
    and the next ones start with what it imports; a failure is left to the child, which
    reports it in its log."""
    with contextlib.suppress(Exception):
        job.prepare()
    gc.freeze()  # a child's garbage collections then leave the server's objects unwritten


def _fork(request_socket: socket.socket, others: list[int]) -> int:
    """Read the job's request, fork its process; in the parent return the child's pid."""
    with request_socket.makefile("rb") as stream:
        request = pickle.loads(stream.read())
    _prepare(request["job"])
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
            code = _run_child(request, server)
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
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
                message, fds, _, _ = socket.recv_fds(control, _MESSAGE, 1)
                if not message:  # Snakemake closed its end or exited
                    _stop_children(jobs, stop_wait)
                    return
                request_socket = socket.socket(fileno=fds[0])
                others = [control.fileno(), selector.fileno(), wake_read, wake_write]
                others += [s.fileno() for s in jobs.values()]
                try:
                    pid = _fork(request_socket, others)
                    request_socket.sendall(f"{pid}\n".encode())
                except Exception as error:  # a request that cannot be read: its thread reports
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
