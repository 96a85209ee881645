"""Every job of the workflow runs in a process of its own, forked from the run's fork server
(:mod:`geval_repro.pipeline.fork_server`), this package's own pool: a :class:`Job` names one
function of :mod:`geval_repro.pipeline`, its arguments (typed specs and settings included:
the request is pickled) and its log file.

Why processes: the judges talk to a model server for minutes and must stop within
seconds when asked; the notebooks' nbclient and nbconvert import IPython; most jobs compute
or draw for a second or more in Python, which as threads of one process would take turns on
one interpreter lock. Why forked from a server: a fork of a process that has imported the
job's module starts with pandas, scipy and matplotlib loaded (a fresh interpreter spends
0.6-1.1 s of CPU importing them, more than most jobs compute), for a few milliseconds.
Snakemake itself runs each ``run:`` block as a thread (``force-use-threads`` in the default
profile, a documented option), which waits here for its job's process.

Protocol of :func:`run_in_process` (called in a job's thread):

1. the thread asks the run's fork server (started by the first job, stopped when this
   process exits) for a process that runs the :class:`Job`, in this process's environment
   and working folder;
2. the server imports the job's module (:meth:`Job.prepare`, once per module and run) and
   forks; the child starts a session of its own (a terminal's Ctrl-C reaches it once,
   through Snakemake), stops when the server does (Linux ``PR_SET_PDEATHSIG``; the server
   stops its children when this process exits, even by ``kill -9``) and runs the job
   (:meth:`Job.__call__`): it writes its log file itself, calls the function, writes the
   provenance sidecars of its tables and figures and exits;
3. Ctrl-C or SIGTERM to Snakemake is passed on to the child
   (:func:`geval_repro.pipeline.jobs.forward_stop_signals`), which stops as the function
   makes it stop (the judge runner: answers received are cached, its server stopped) and
   exits 130 or 143;
4. exit 0: done. Otherwise the thread raises :class:`ProcessJobError`: the log's last line
   (``geval-repro: <error>``), how the job ended, and the log's path.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import os
import pickle
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from geval_repro.pipeline import fork_server

#: The package whose functions a job may call.
PACKAGE = "geval_repro.pipeline."
#: Logging of a job's process (its stderr is the job's log).
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Loggers whose INFO records a job log shows (the root logger stays at WARNING for others).
INFO_LOGGERS = ("geval_repro", "pooch", "py.warnings")
#: The prefix of a job's last log line when its function raised.
FAILED = "geval-repro: "
#: The start of a job's last log line when it succeeded: its wall time, then its CPU time
#: (its process since the fork and the subprocesses it waited for; perf/time_pipeline.py
#: reads it).
DONE = "done in"

#: Exit codes of a child stopped by a signal: 128 + its number (the child's own exit) or
#: minus its number (killed by it).
STOPPED = {
    code: signal.Signals(number).name
    for number in (signal.SIGINT, signal.SIGTERM)
    for code in (128 + number, -number)
}

log = logging.getLogger(__name__)


class Trace(Protocol):
    """What a job writes after its function returned: the provenance sidecars of its
    outputs (:class:`geval_repro.pipeline.jobs.Trace`)."""

    def prepare(self) -> None: ...

    def write(self) -> None: ...


@dataclass(frozen=True)
class Job:
    """One job: ``call`` (``"<module>:<function>"``, a function of
    :mod:`geval_repro.pipeline`) with ``kwargs``, logged to ``log``; then ``trace``."""

    call: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    log: Path = Path(os.devnull)
    trace: Trace | None = None

    def __post_init__(self) -> None:
        module, _, function = self.call.partition(":")
        if not module.startswith(PACKAGE) or not function:
            raise ValueError(f"{self.call!r}: a job runs a function of {PACKAGE[:-1]} only")

    @property
    def module(self) -> str:
        return self.call.partition(":")[0]

    @property
    def function(self) -> str:
        return self.call.partition(":")[2]

    def prepare(self) -> None:
        """In the fork server, before the fork: import the job's module (and what its
        sidecars read), so that this job and the next ones start with them."""
        importlib.import_module(self.module)
        if self.trace is not None:
            self.trace.prepare()

    def __call__(self) -> int:
        """In the job's process: send stdout and stderr (its subprocesses' too) and the log
        records (INFO of :data:`INFO_LOGGERS`, warnings) to the log file, call the function,
        write the trace; return the exit code: 0 (the last line :data:`DONE`, its times),
        1 when the function raised (its traceback, then one line :data:`FAILED` ``<error>``),
        130 when interrupted."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for target in (1, 2):
            os.dup2(descriptor, target)
        os.close(descriptor)
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=FORMAT, force=True)
        for name in INFO_LOGGERS:
            logging.getLogger(name).setLevel(logging.INFO)
        logging.captureWarnings(True)
        started = time.perf_counter()
        log.info("start %s", self.call.removeprefix(PACKAGE))
        try:
            getattr(importlib.import_module(self.module), self.function)(**self.kwargs)
            if self.trace is not None:
                self.trace.write()
        except KeyboardInterrupt:
            print(f"{FAILED}interrupted", file=sys.stderr)
            return 128 + signal.SIGINT
        except Exception as error:  # the job's one line; the traceback goes before it
            log.exception("%s failed after %.1f s", self.function, time.perf_counter() - started)
            line = str(getattr(error, "summary", None) or error or type(error).__name__)
            print(f"{FAILED}{line}".splitlines()[0], file=sys.stderr)
            return 1
        finally:
            sys.stdout.flush()
        log.info(
            "%s %.1f s (%.1f s CPU of the job's process and the subprocesses it waited for)",
            DONE,
            time.perf_counter() - started,
            _cpu_seconds(),
        )
        return 0

    def last_line(self) -> str:
        """The log's last line that is not blank ("" when there is none)."""
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return next((line.strip() for line in reversed(lines) if line.strip()), "")


def _cpu_seconds() -> float:
    """User and system CPU seconds of this process and of the subprocesses it waited for (a
    notebook's kernel, METEOR 1.5's JVM); a forked process counts from its fork."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class JobProcess:
    """A job's process, forked by the fork server: its pid, for passing stop signals on."""

    pid: int


class ProcessJobError(RuntimeError):
    """A job's process failed or was stopped; ``summary`` is its one console line."""

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


def run_in_process(job: Job) -> None:
    """Run ``job`` in a process of its own (module docstring). Raises
    :class:`ProcessJobError` when it fails or is stopped."""
    request = pickle.dumps({"job": job, "environment": _environment(), "cwd": os.getcwd()})
    server = _fork_server()
    ours, theirs = socket.socketpair()
    with ours:
        try:
            socket.send_fds(server.control, [b"job"], [theirs.fileno()])
        except OSError as error:
            raise ProcessJobError(
                f"{job.function}: the job's fork server is gone ({error})"
            ) from None
        finally:
            theirs.close()
        ours.sendall(request)
        ours.shutdown(socket.SHUT_WR)
        with ours.makefile("r", encoding="ascii") as answers:
            started = answers.readline()
            if not started:
                raise ProcessJobError(f"{job.function}: the fork server stopped before starting it")
            with _registered(JobProcess(int(started))):
                ended = answers.readline()
    where = f"log: {job.log}"
    if not ended:
        raise ProcessJobError(
            f"{job.function}: the job's fork server stopped while it ran ({where})"
        )
    code = int(ended)
    if code == 0:
        return
    last = job.last_line()
    reason = last.removeprefix(FAILED) if last.startswith(FAILED) else f"exit code {code}"
    if code in STOPPED:
        reason = (
            f"stopped by {STOPPED[code]} ({reason}); what it finished is kept (a judge's "
            "answers are cached): rerun to resume"
        )
    raise ProcessJobError(f"{job.function}: {reason} ({where})")
