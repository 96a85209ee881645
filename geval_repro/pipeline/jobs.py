"""What every job of the workflow does around its rule function: a log file, safe when jobs run as
threads, and a provenance sidecar beside each table and figure it makes.

Every ``run:`` job runs inside ``with job_log(log[0]):``: the Snakefile wraps each rule's
run function once with :class:`LoggedRun` (so the rule files stay one call long and a new
rule gets its log without boilerplate). After the rule function returns, :class:`Tracer` writes the
provenance sidecar (:mod:`geval_repro.report.provenance`) of every output under the
processed tables, the result tables and figures and the row files; the rule names the
judge runs its outputs rest on in ``params.judges``. An expected failure
(:data:`EXPECTED_FAILURES`: a file that cannot be fetched) is one line on the console and
its traceback stays in the job's log; Snakemake is told through ``SpawnedJobError``, which
it reports without a traceback.

While the block runs, every logging
record emitted *from that thread* (library modules log with ``logging.getLogger(__name__)``)
and everything the thread writes to ``sys.stderr`` (tqdm progress bars, ``print(...,
file=sys.stderr)``) go to that file, and warnings are logged as records. Records are routed
by thread (a filter on the emitting thread's id), so two jobs running in two threads of one
Snakemake process (``force-use-threads``) never write into each other's log. The file gets a
first line naming the job and a last line with the wall time, or the error that ended the
job; the error raised keeps a note naming the log.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TextIO

from snakemake.exceptions import SpawnedJobError

from geval_repro.files.fetch import FetchError
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.processes import ProcessJobError, running_children
from geval_repro.pipeline.string_storage import store_strings_in_python

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Loggers whose INFO records a job log shows (the root logger stays at WARNING for others).
INFO_LOGGERS = ("geval_repro", "pooch", "py.warnings")

_lock = threading.Lock()
_streams: dict[int, TextIO] = {}  # thread id -> that thread's job log stream
_active = 0
_saved_stderr: TextIO | None = None

log = logging.getLogger(__name__)

# The large libraries and the package modules the threaded jobs' rule functions import (the
# Snakefile and rules import none of them, so that parsing stays light): imported once by
# preload_job_libraries before jobs start, so that no job thread sees another's import half
# done. (nbclient and nbconvert, which import IPython, run in jobs of their own process:
# geval_repro.pipeline.processes; the report's table and figure pages need neither.)
JOB_LIBRARIES = (
    "numpy",
    "pandas",
    "pyarrow.parquet",
    "pandera.pandas",
    "matplotlib.figure",
    "geval_repro.load",
    "geval_repro.tables.rows",
    "geval_repro.report.table_files",
    "geval_repro.report.pages",
)


class _ThreadStderr:
    """Stands in for ``sys.stderr``: writes go to the calling thread's job log, if any."""

    def __init__(self, fallback: TextIO) -> None:
        self.fallback = fallback

    def _target(self) -> TextIO:
        return _streams.get(threading.get_ident(), self.fallback)

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        return getattr(self.fallback, name)


def _thread_filter(ident: int):
    def accept(record: logging.LogRecord) -> bool:
        return record.thread == ident

    return accept


def _start(stream: TextIO) -> None:
    """Register this thread's stream; the first active job installs the stderr proxy."""
    global _active, _saved_stderr
    with _lock:
        _streams[threading.get_ident()] = stream
        if _active == 0:
            _saved_stderr = sys.stderr
            sys.stderr = _ThreadStderr(sys.stderr)
            logging.captureWarnings(True)
            for name in INFO_LOGGERS:
                logger = logging.getLogger(name)
                if logger.level == logging.NOTSET or logger.level > logging.INFO:
                    logger.setLevel(logging.INFO)
        _active += 1


def _stop() -> None:
    """Unregister this thread; the last job to finish restores ``sys.stderr``."""
    global _active, _saved_stderr
    with _lock:
        _streams.pop(threading.get_ident(), None)
        _active -= 1
        if _active == 0:
            if isinstance(sys.stderr, _ThreadStderr) and _saved_stderr is not None:
                sys.stderr = _saved_stderr
            _saved_stderr = None
            logging.captureWarnings(False)


@contextmanager
def job_log(path: str | Path, name: str = "") -> Iterator[TextIO]:
    """Send this thread's log records, warnings and stderr to ``path`` while the block runs.

    Yields the log's text stream (e.g. for a subprocess's output). An exception leaving the
    block is written to the log with its traceback and re-raised with a note naming the log.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stream = path.open("w", encoding="utf-8", buffering=1)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(_thread_filter(threading.get_ident()))
    root = logging.getLogger()
    root.addHandler(handler)
    _start(stream)
    started, cpu = time.perf_counter(), time.thread_time()
    log.info("start %s", name or path.stem)
    try:
        yield stream
    except BaseException as error:
        log.exception("failed after %.1f s", time.perf_counter() - started)
        if hasattr(error, "add_note"):
            error.add_note(f"log: {path}")
        raise
    else:
        log.info(
            "done in %.1f s (%.1f s CPU in the job's thread, without subprocesses)",
            time.perf_counter() - started,
            time.thread_time() - cpu,
        )
    finally:
        _stop()
        root.removeHandler(handler)
        handler.close()
        stream.close()


class LoggedRun:
    """A rule's ``run:`` function, executed inside :func:`job_log` of the job's first log.

    Snakemake compiles a ``run:`` block into a function whose parameters are named
    (``input, output, params, wildcards, threads, resources, log, rule, ...``) and calls it
    with them in that order; the arguments are bound to those names
    (:func:`inspect.signature`), so a reordering in a later Snakemake is still read right
    (tests/test_joblog.py runs a workflow through the installed Snakemake to pin this).
    ``__code__`` is the wrapped function's, so ``snakemake --lint`` still judges the rule's
    own body.
    """

    def __init__(
        self, func: Callable[..., object], after: Callable[..., None] | None = None
    ) -> None:
        self.func = func
        self.after = after
        self.signature = inspect.signature(func)

    @property
    def __code__(self):  # read by snakemake's linter
        return self.func.__code__

    def __call__(self, *args: object, **kwargs: object) -> object:
        bound = self.signature.bind(*args, **kwargs).arguments
        log_files, rule = bound["log"], bound["rule"]
        where = f"log: {log_files[0]}" if log_files else "no log"
        try:
            if not log_files:
                return self._run(*args, **kwargs)
            with job_log(log_files[0], f"rule {rule}"):
                return self._run(*args, **kwargs)
        except EXPECTED_FAILURES as error:
            # Expected and explained (no network, a file missing from the mirror): one line
            # on the console, the traceback in the log, the fix once in the closing summary.
            console(f"{rule}: {getattr(error, 'summary', error)} ({where})")
            raise SpawnedJobError(str(error)) from None
        except Exception:
            console(f"{rule} failed ({where}); its traceback follows")
            raise

    def _run(self, *args: object, **kwargs: object) -> object:
        result = self.func(*args, **kwargs)
        if self.after is not None:
            bound = self.signature.bind(*args, **kwargs).arguments
            self.after(bound["input"], bound["output"], bound["params"])
        return result


#: Failures a job explains itself: reported in one console line, without a traceback.
EXPECTED_FAILURES: tuple[type[Exception], ...] = (FetchError, ProcessJobError)


#: The logger whose handlers print Snakemake's own console lines (snakemake/logging.py).
SNAKEMAKE_LOGGER = "snakemake.logging"


def console(line: str) -> None:
    """Print ``line`` on the console (the process's stderr, not the job thread's log) as a
    line of its own: in one write, so lines of jobs in other threads never interleave, and
    holding the locks of Snakemake's log handlers, which write a message and its newline in
    two writes under them (a job's line once landed between "Execute 1 jobs..." and its
    newline)."""
    stream = sys.__stderr__
    with ExitStack() as held:
        for handler in logging.getLogger(SNAKEMAKE_LOGGER).handlers:
            handler.acquire()
            held.callback(handler.release)
        stream.write(line + "\n")
        stream.flush()


class Tracer:
    """Writes the provenance sidecars of a job's outputs that lie under ``traced`` folders
    (:func:`geval_repro.report.provenance.write_provenance`), naming the judge runs of the
    rule's ``params.judges``."""

    def __init__(self, config: Mapping[str, Any], raw_dir: Path, traced: Sequence[Path]) -> None:
        self.config = config
        self.raw_dir = raw_dir
        self.traced = [folder.resolve() for folder in traced]

    def __call__(self, input: Sequence[str], output: Sequence[str], params: Any) -> None:
        outputs = [path for path in output if self._traced(Path(path))]
        if not outputs:
            return
        from geval_repro.report.provenance import write_provenance

        judges = getattr(params, "judges", ()) or ()
        write_provenance(outputs, input, config=self.config, raw_dir=self.raw_dir, judges=judges)

    def _traced(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(folder) for folder in self.traced)


def log_every_run(rules, after: Callable[..., None] | None = None) -> None:
    """Wrap the run function of every rule with a ``run:`` block in :class:`LoggedRun`
    (calling ``after(input, output, params)`` when the rule function has returned)."""
    for rule in rules:
        if rule.is_run and not isinstance(rule.run_func, LoggedRun):
            rule.run_func = LoggedRun(rule.run_func, after)


def every_job_logged_and_traced(rules, *, config: Mapping[str, Any], layout: Layout) -> None:
    """The Snakefile's one call: every job logged, and its tables and figures traced (the
    processed tables, the row files, the result tables and figures of ``layout``)."""
    traced = [layout.processed, layout.rows, layout.tables, layout.figures]
    log_every_run(rules, after=Tracer(config, layout.raw, traced))


def preload_job_libraries(names: tuple[str, ...] = JOB_LIBRARIES) -> None:
    """Import ``names`` in the calling thread: the Snakefile's ``onstart``, in the main
    thread, before any job thread starts (it runs only when there are jobs to run).

    Jobs import their rule functions in their ``run:`` blocks; as threads of one process they could
    otherwise import the same large packages at the same moment, and Python's per-module
    import locks can then, in rare lock orders, hand one thread a partially initialized
    module. After this, the jobs' imports of these packages find them loaded.
    """
    for name in names:
        importlib.import_module(name)


def forward_stop_signals() -> None:
    """Pass Ctrl-C (SIGINT) and SIGTERM on to the jobs that run in processes of their own
    (:mod:`geval_repro.pipeline.processes`), then handle them as before (Snakemake: cancel,
    or finish the running jobs and exit). Called in the main thread from the Snakefile's
    ``onstart``, after Snakemake has installed its own SIGTERM handler, which this one calls;
    a job thread waiting for its process then returns within the seconds the process takes
    to stop, so Snakemake exits and releases its lock."""
    for number in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(number)

        def forward(signum: int, frame: object, previous: object = previous) -> None:
            for process in running_children():
                try:
                    os.kill(process.pid, signum)  # the child stops what it started itself
                except ProcessLookupError:
                    pass
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        signal.signal(number, forward)


def drop_local_rate_limit(workflow: Any) -> None:
    """When ``workflow`` (the Snakefile's ``workflow``) runs its jobs on this machine, take
    away its scheduler's limit on job starts per timespan (``--max-jobs-per-timespan``,
    default 100 per second), which is there for cluster and cloud submissions; left to a
    cluster run (``--executor slurm``).

    With a limit, Snakemake (9.27) ends every scheduling round by starting a timer that
    triggers another round after the timespan, whether or not the limit held a job back, so
    each finished job adds a round per second until the run ends (4,257 rounds in a run of
    about 160 jobs), and each round looks up the size of every input of every ready job. No
    option turns the limit off; the Snakefile's ``onstart`` runs after the scheduler is made
    and before it schedules. On a Snakemake without ``scheduler.job_rate_limiter`` this
    stops the run, naming the attribute (``tests/test_local_scheduling.py`` checks the
    installed one)."""
    if not workflow.local_exec:
        return
    if not hasattr(workflow.scheduler, "job_rate_limiter"):
        raise RuntimeError(
            "this Snakemake's scheduler has no job_rate_limiter: install the version "
            "requirements.lock pins, or drop drop_local_rate_limit from the Snakefile's onstart"
        )
    workflow.scheduler.job_rate_limiter = None


def start_workflow(config: Mapping[str, Any], layout: Layout, workflow: Any) -> None:
    """The Snakefile's ``onstart`` (in the main thread, when there are jobs to run): the
    jobs' pandas strings in Python objects (:mod:`geval_repro.pipeline.string_storage`),
    the run's manifest
    (:func:`geval_repro.report.provenance.write_run_manifest`), the start the closing summary
    counts from (:func:`geval_repro.pipeline.summary.start_run`), the jobs' large libraries
    imported (:func:`preload_job_libraries`), the stop signals passed on
    (:func:`forward_stop_signals`) and, for a run on this machine, no rate limit on job
    starts (:func:`drop_local_rate_limit`)."""
    store_strings_in_python()
    from geval_repro.pipeline.summary import start_run
    from geval_repro.report.provenance import write_run_manifest

    start_run(layout, write_run_manifest(layout.results / "run_manifest.json", config))
    preload_job_libraries()
    forward_stop_signals()
    drop_local_rate_limit(workflow)
