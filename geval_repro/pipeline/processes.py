"""Jobs that run in a process of their own: the judge runs (they talk to a model server for
minutes and must stop within seconds when asked), the notebooks and the notebooks' report
pages (nbclient and nbconvert import IPython, whose half-finished import a job thread beside
them could see), and the few jobs that compute for several seconds in Python (the
judge-vs-judge tests, the baseline rows, the writer-vs-GPT-3.5 figure): the job threads
share one interpreter lock, so in a thread such a job would stall every other (measured:
the mirrored run's wall time follows the sum of its threads' CPU time).

The other jobs run as threads of one Snakemake process (``force-use-threads`` in the
default profile, a documented Snakemake option): no re-parse of the workflow and no
re-import of pandas and scipy per job.

Protocol of :func:`run_in_process` (called in a job's thread):

1. the job starts ``python -m geval_repro.pipeline.processes`` in a session of its own (so a
   terminal's Ctrl-C reaches it once, through Snakemake) and writes one JSON object on its
   stdin: ``{"call": "<module>:<function>", "kwargs": {...}}``, a function of
   :mod:`geval_repro.pipeline` and plain JSON arguments;
2. the child asks the kernel for SIGTERM when the thread that started it dies (Linux
   ``PR_SET_PDEATHSIG``: even a ``kill -9`` of Snakemake leaves no orphan), logs to its
   stderr, which the job copies line by line into its own log, and calls the function in
   its main thread;
3. Ctrl-C or SIGTERM to Snakemake is passed on to the child
   (:func:`geval_repro.pipeline.jobs.forward_stop_signals`), which stops as the function
   makes it stop (the judge runner: answers received are cached, its server stopped) and
   exits 130 or 143;
4. exit 0: done. Otherwise the job raises :class:`ProcessJobError` (one line on the
   console: the child's last line, ``geval-repro: <error>``, and how it ended).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: The prefix of the child's closing line when its function raised.
FAILED = "geval-repro: "
#: Exit codes of a child stopped by a signal: 128 + its number (the child's own exit) or
#: minus its number (killed by it).
STOPPED = {
    code: signal.Signals(number).name
    for number in (signal.SIGINT, signal.SIGTERM)
    for code in (128 + number, -number)
}
PACKAGE = "geval_repro.pipeline."
#: The start of the child's last log line before it exits 0, followed by its CPU seconds
#: (its own and its waited-for subprocesses'): the job thread's closing line counts only
#: the thread (perf/time_pipeline.py reads both).
PROCESS_CPU = "the job's process used"

_lock = threading.Lock()
_children: set[subprocess.Popen[str]] = set()


class ProcessJobError(RuntimeError):
    """A job's own process failed or was stopped; ``summary`` is its one console line."""

    def __init__(self, summary: str) -> None:
        super().__init__(summary)
        self.summary = summary


def running_children() -> list[subprocess.Popen[str]]:
    """The job processes running now (for passing stop signals on)."""
    with _lock:
        return list(_children)


@contextlib.contextmanager
def _registered(process: subprocess.Popen[str]) -> Iterator[None]:
    with _lock:
        _children.add(process)
    try:
        yield
    finally:
        with _lock:
            _children.discard(process)


def _package_root() -> str:
    """The folder that holds this ``geval_repro`` (the child imports the same code)."""
    return str(Path(__file__).resolve().parents[2])


def _plain(value: object) -> object:
    """The JSON encoder's fallback for a job's arguments: a path as its string, a mapping as
    a dict (the child receives plain values)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-able: pass plain values and paths")


def run_in_process(call: str, kwargs: Mapping[str, Any]) -> None:
    """Run ``call`` (``"<module>:<function>"`` under :mod:`geval_repro.pipeline`) with the
    JSON-able ``kwargs`` (paths and mappings included, as strings and dicts; keys must be
    strings) in a process of its own (module docstring), its output in this job's log.
    Raises :class:`ProcessJobError` when it fails or is stopped."""
    module, _, function = call.partition(":")
    if not module.startswith(PACKAGE) or not function:
        raise ValueError(f"{call!r}: a job process runs a function of {PACKAGE[:-1]} only")
    payload = json.dumps({"call": call, "kwargs": dict(kwargs)}, default=_plain)
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (_package_root(), environment.get("PYTHONPATH", "")) if p
    )
    process = subprocess.Popen(
        [sys.executable, "-m", __name__, str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=environment,
        start_new_session=True,
    )
    last = ""
    with _registered(process):
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(payload)
        process.stdin.close()
        for line in process.stdout:
            sys.stderr.write(line)  # the job thread's stderr is its log (pipeline.jobs)
            if line.strip():
                last = line.strip()
        code = process.wait()
    if code == 0:
        return
    reason = last.removeprefix(FAILED) if last.startswith(FAILED) else f"exit code {code}"
    if code in STOPPED:
        reason = (
            f"stopped by {STOPPED[code]} ({reason}); what it finished is kept (a judge run's "
            "answers are cached): rerun to resume"
        )
    raise ProcessJobError(f"{function}: {reason}")


def _die_with_parent(parent: int) -> None:
    """SIGTERM to this process when the thread that started it dies (Linux); exit when that
    process is already gone."""
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        sys.exit(f"{FAILED}the process that started this job is gone")


def main() -> int:
    """The child's side of the protocol (module docstring)."""
    _die_with_parent(int(sys.argv[1]))
    # SIGTERM ends the function as Ctrl-C does: its finally blocks run (a server stopped).
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=FORMAT, force=True)
    logging.getLogger("geval_repro").setLevel(logging.INFO)
    logging.captureWarnings(True)
    request = json.loads(sys.stdin.read())
    module, _, function = str(request["call"]).partition(":")
    if not module.startswith(PACKAGE):
        print(f"{FAILED}{module} is not a module of {PACKAGE[:-1]}", file=sys.stderr)
        return 2
    target = getattr(importlib.import_module(module), function)
    try:
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


if __name__ == "__main__":
    sys.exit(main())
