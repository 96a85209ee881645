"""Jobs that run in a process of their own: the judge runs (they talk to a model server for
minutes and must stop within seconds when asked), the notebooks and the notebooks' report
pages (nbclient and nbconvert import IPython, whose half-finished import a job thread beside
them could see), and the jobs that compute or draw for a second or more in Python (the
judge-vs-judge tests, the baseline rows, the writer-vs-GPT-3.5 figure, each judge run's
result tables, sweep, tests against the baselines and sweep figures, each benchmark's
significance-cluster figure): the job threads share one interpreter lock, so in a thread
such a job would stall every other (measured: the mirrored run's wall time follows the sum
of its threads' CPU time). Forked from the run's fork server, such a process starts with
its libraries loaded (a job with nothing to do reports 0.0 s of CPU), not with the 0.6-1.1 s
of a fresh interpreter's imports.

The other jobs run as threads of one Snakemake process (``force-use-threads`` in the
default profile, a documented Snakemake option): no re-parse of the workflow and no
re-import of pandas and scipy per job.

Protocol of :func:`run_in_process` (called in a job's thread):

1. the job asks the run's fork server (:mod:`geval_repro.pipeline.fork_server`, started by
   the first job that needs it, stopped when this process exits) for a process that calls
   ``"<module>:<function>"``, a function of :mod:`geval_repro.pipeline`, with plain JSON
   arguments, in this process's environment and working folder;
2. the server forks it from itself, with the jobs' libraries already imported, in a
   session of its own (so a terminal's Ctrl-C reaches it once, through Snakemake); it
   stops when the server does (Linux ``PR_SET_PDEATHSIG``; the server stops its children
   when this process exits, even by ``kill -9``), logs to a pipe, which the job copies line
   by line into its own log, and calls the function;
3. Ctrl-C or SIGTERM to Snakemake is passed on to the child
   (:func:`geval_repro.pipeline.jobs.forward_stop_signals`), which stops as the function
   makes it stop (the judge runner: answers received are cached, its server stopped) and
   exits 130 or 143;
4. exit 0: done. Otherwise the job raises :class:`ProcessJobError` (one line on the
   console: the child's last line, ``geval-repro: <error>``, and how it ended).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from geval_repro.pipeline import fork_server
from geval_repro.pipeline.fork_server import FAILED, PACKAGE

#: Exit codes of a child stopped by a signal: 128 + its number (the child's own exit) or
#: minus its number (killed by it).
STOPPED = {
    code: signal.Signals(number).name
    for number in (signal.SIGINT, signal.SIGTERM)
    for code in (128 + number, -number)
}


@dataclass(frozen=True)
class JobProcess:
    """A job's process, forked by the fork server: its pid, for passing stop signals on."""

    pid: int


class ProcessJobError(RuntimeError):
    """A job's own process failed or was stopped; ``summary`` is its one console line."""

    def __init__(self, summary: str) -> None:
        super().__init__(summary)
        self.summary = summary


_lock = threading.Lock()
_children: set[JobProcess] = set()


def running_children() -> list[JobProcess]:
    """The job processes running now (for passing stop signals on)."""
    with _lock:
        return list(_children)


@contextlib.contextmanager
def _registered(process: JobProcess) -> Iterator[None]:
    with _lock:
        _children.add(process)
    try:
        yield
    finally:
        with _lock:
            _children.discard(process)


def _package_root() -> str:
    """The folder that holds this ``geval_repro`` (the server and the jobs' own
    subprocesses, a notebook's kernel, import the same code)."""
    return str(Path(__file__).resolve().parents[2])


def _environment() -> dict[str, str]:
    """This process's environment with :func:`_package_root` first on ``PYTHONPATH``."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (_package_root(), environment.get("PYTHONPATH", "")) if p
    )
    return environment


@dataclass(frozen=True)
class _ForkServer:
    """The run's fork server (:mod:`geval_repro.pipeline.fork_server`) and this process's
    end of its socket."""

    process: subprocess.Popen[bytes]
    control: socket.socket

    @classmethod
    def start(cls) -> _ForkServer:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stop_wait = str(fork_server.STOP_WAIT)
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-m", fork_server.__name__, str(theirs.fileno()), stop_wait],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=_environment(),
                start_new_session=True,
            )
        server = cls(process, ours)
        atexit.register(server.stop)
        return server

    def stop(self) -> None:
        """Close the socket: the server stops its children still running, then exits; wait
        for it (its CPU, and its children's, is then this process's children's)."""
        self.control.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=fork_server.STOP_WAIT + 5)


_server: _ForkServer | None = None


def _fork_server() -> _ForkServer:
    """The run's fork server: started on the first call (again if it has exited)."""
    global _server
    with _lock:
        if _server is None or _server.process.poll() is not None:
            _server = _ForkServer.start()
        return _server


def _plain(value: object) -> object:
    """The JSON encoder's fallback for a job's arguments: a path as its string, a mapping as
    a dict (the child receives plain values)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-able: pass plain values and paths")


def _copy_log(stream: TextIO) -> str:
    """Copy the child's log lines to this job thread's stderr (its log, pipeline.jobs);
    return the last line that is not blank."""
    last = ""
    for line in stream:
        sys.stderr.write(line)
        if line.strip():
            last = line.strip()
    return last


def run_in_process(call: str, kwargs: Mapping[str, Any]) -> None:
    """Run ``call`` (``"<module>:<function>"`` under :mod:`geval_repro.pipeline`) with the
    JSON-able ``kwargs`` (paths and mappings included, as strings and dicts; keys must be
    strings) in a process of its own (module docstring), its output in this job's log.
    Raises :class:`ProcessJobError` when it fails or is stopped."""
    module, _, function = call.partition(":")
    if not module.startswith(PACKAGE) or not function:
        raise ValueError(f"{call!r}: a job process runs a function of {PACKAGE[:-1]} only")
    request = json.dumps(
        {
            "call": call,
            "kwargs": dict(kwargs),
            "environment": _environment(),
            "cwd": os.getcwd(),
        },
        default=_plain,
    )
    server = _fork_server()
    ours, theirs = socket.socketpair()
    log_read, log_write = os.pipe()
    with ours, open(log_read, encoding="utf-8", errors="replace") as log_lines:
        try:
            socket.send_fds(server.control, [b"job"], [theirs.fileno(), log_write])
        except OSError as error:
            raise ProcessJobError(f"{function}: the job's fork server is gone ({error})") from None
        finally:
            theirs.close()
            os.close(log_write)
        ours.sendall(request.encode())
        ours.shutdown(socket.SHUT_WR)
        with ours.makefile("r", encoding="ascii") as answers:
            started = answers.readline()
            if not started:
                raise ProcessJobError(f"{function}: the fork server stopped before starting it")
            with _registered(JobProcess(int(started))):
                last = _copy_log(log_lines)
                ended = answers.readline()
    if not ended:
        raise ProcessJobError(f"{function}: the job's fork server stopped while it ran ({last})")
    code = int(ended)
    if code == 0:
        return
    reason = last.removeprefix(FAILED) if last.startswith(FAILED) else f"exit code {code}"
    if code in STOPPED:
        reason = (
            f"stopped by {STOPPED[code]} ({reason}); what it finished is kept (a judge run's "
            "answers are cached): rerun to resume"
        )
    raise ProcessJobError(f"{function}: {reason}")


def in_own_process(function: Callable[..., None]) -> Callable[..., None]:
    """The rule function that runs ``function`` (a module-level function of
    :mod:`geval_repro.pipeline` whose arguments are paths, strings, numbers and mappings) in
    a process of its own (:func:`run_in_process`): called in the job's thread with the same
    arguments, by keyword."""
    call = f"{function.__module__}:{function.__name__}"

    def job(**kwargs: Any) -> None:
        run_in_process(call, kwargs)

    job.__name__ = job.__qualname__ = f"{function.__name__}_in_own_process"
    job.__doc__ = f":func:`{function.__name__}` in a process of its own ({call})."
    return job
