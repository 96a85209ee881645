"""Executed notebooks and their report pages (nbclient, nbconvert).

- :func:`execute_notebook` runs a notebook of ``notebooks/`` with nbclient against a run's
  folders, passed through the environment variables :data:`RESULTS_ENV` and
  :data:`PROCESSED_ENV` that the notebooks' parameters cell reads. No execution timing is
  recorded, so the same notebook on the same results gives the same outputs.
- :func:`notebook_page` renders an executed notebook as a report page.

nbclient and nbconvert import IPython, whose half-finished import a job thread beside them
could see: the pipeline calls this module in a process of its own
(:mod:`geval_repro.pipeline.report_jobs`).
"""

from __future__ import annotations

import atexit
import contextlib
import html
import logging
import os
import signal
import tempfile
import threading
import time
from functools import cache
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter

from geval_repro.files.atomic import atomic_path, write_text
from geval_repro.files.paths import PathLike
from geval_repro.report.html_page import PAGE

RESULTS_ENV = "GEVAL_REPRO_RESULTS"
PROCESSED_ENV = "GEVAL_REPRO_PROCESSED"
CELL_TIMEOUT = 900  # seconds
#: Seconds a stopped notebook's job waits for its kernel to be there (to kill it) or for
#: nbclient's thread to end; once the kernel is killed, at most KILLED_WAIT more (nbclient
#: sees it gone within about a second; still starting a kernel, it takes longer: its thread
#: is then left to the job's exit).
STOP_WAIT = 10
KILLED_WAIT = 2
#: Seconds between the waiting thread's looks at whether nbclient's thread has ended (and at
#: a stop signal the operating system handed to the other thread).
WAKE_UP = 0.25

log = logging.getLogger(__name__)


def execute_notebook(
    notebook: nbformat.NotebookNode,
    *,
    cwd: PathLike,
    results_dir: PathLike | None = None,
    processed_dir: PathLike | None = None,
    timeout: int = CELL_TIMEOUT,
) -> nbformat.NotebookNode:
    """Run every cell of ``notebook`` (in place) in a fresh kernel started in ``cwd``.

    ``results_dir`` / ``processed_dir`` (made absolute) override the folders the notebook
    reads; without them it reads its defaults (the repository's folders). A failing cell
    raises :class:`nbclient.exceptions.CellExecutionError`; Ctrl-C or SIGTERM while it runs
    kills the kernel and goes on up (:func:`_execute_in_thread`).
    """
    env = dict(os.environ)
    if results_dir is not None:
        env[RESULTS_ENV] = str(Path(results_dir).resolve())
    if processed_dir is not None:
        env[PROCESSED_ENV] = str(Path(processed_dir).resolve())
    # The kernel talks over IPC sockets in a private folder (not TCP on localhost), its
    # connection file is there too (removed with the folder, however the run ends), and what
    # it writes to its stderr goes to this job's log, not to the console.
    with tempfile.TemporaryDirectory(prefix="geval-kernel-") as folder:
        stderr_path = Path(folder) / "kernel.stderr"
        manager = AsyncKernelManager(
            kernel_name="python3",
            transport="ipc",
            ip=str(Path(folder) / "kernel"),
            connection_file=str(Path(folder) / "kernel.json"),
        )
        client = NotebookClient(
            notebook,
            km=manager,
            timeout=timeout,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        try:
            with stderr_path.open("w", encoding="utf-8") as stderr:
                _execute_in_thread(client, manager, env=env, stderr=stderr)
        finally:
            chatter = stderr_path.read_text(encoding="utf-8", errors="replace").strip()
            if chatter:
                log.info("kernel stderr:\n%s", chatter)
    return notebook


def _execute_in_thread(
    client: NotebookClient, manager: AsyncKernelManager, **kwargs: object
) -> None:
    """``client.execute(**kwargs)``, then the kernel shut down, in a thread of its own (and
    its event loop), waited for in this one.

    Run in the main thread, nbclient puts asyncio handlers of its own in place of the
    process's for Ctrl-C and SIGTERM: with a blocking kernel client (``KernelManager``) its
    loop waits inside zmq, so they never ran and a stop was lost until a SIGKILL; with an
    asynchronous one they shut the kernel down and fail the cell with "Kernel died", then
    leave SIGTERM at its default. In a thread of its own nbclient sets none: the process's
    handlers stay, a stop raises here, the kernel is killed (once it has started, if the
    stop came first), nbclient's thread sees it gone and ends (waited for as long as
    :data:`STOP_WAIT` and :data:`KILLED_WAIT` say), and the stop goes on up.
    """
    failure: list[BaseException] = []
    done = threading.Event()  # not Thread.join: in Python 3.11 a join that a signal's
    # exception interrupts marks the thread as ended while it still runs

    def execute() -> None:
        try:
            try:
                client.execute(**kwargs)
            finally:
                if manager.has_kernel:
                    run_sync(manager.shutdown_kernel)(now=True)
        except BaseException as error:  # handed to the waiting thread, raised there
            failure.append(error)
        finally:
            done.set()

    try:  # a stop that comes while the thread starts is one like any other
        threading.Thread(target=execute, name="nbclient", daemon=True).start()
        while not done.wait(WAKE_UP):  # a signal that lands on nbclient's thread is handled
            pass  # here within WAKE_UP s (one that lands here, at once)
    except BaseException:  # Ctrl-C's KeyboardInterrupt, SIGTERM's SystemExit
        killed: set[int] = set()
        deadline = time.monotonic() + STOP_WAIT
        while not done.is_set() and time.monotonic() < deadline:
            pid = getattr(manager.provisioner, "pid", None)  # None while it starts
            if pid and pid not in killed:
                killed.add(pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                deadline = min(deadline, time.monotonic() + KILLED_WAIT)
            done.wait(WAKE_UP)
        # nbclient leaves an exit hook to shut its kernel down until its thread has: the
        # kernel is killed and its folder goes with execute_notebook's, and the hook would
        # fail on a kernel manager the thread has let go of (a traceback after the stop).
        atexit.unregister(client._cleanup_kernel)
        raise
    if failure:
        raise failure[0]


def execute_notebook_file(
    source: PathLike,
    target: PathLike,
    *,
    results_dir: PathLike,
    processed_dir: PathLike,
) -> None:
    """Execute the notebook file ``source`` (in its folder) into ``target``, atomically.

    A failing cell's error is logged (the job log, see geval_repro.pipeline.jobs) and raised,
    naming the notebook.
    """
    notebook = nbformat.read(source, as_version=4)
    try:
        execute_notebook(
            notebook,
            cwd=Path(source).parent,
            results_dir=results_dir,
            processed_dir=processed_dir,
        )
    except CellExecutionError as error:
        log.error("%s: a cell failed against %s\n%s", source, results_dir, error)
        raise
    with atomic_path(target) as temporary:
        nbformat.write(notebook, str(temporary))
    log.info("executed %s (%d cells) into %s", source, len(notebook.cells), target)


@cache
def _html_exporter() -> HTMLExporter:
    """One HTML exporter (nbconvert's basic template) for every notebook page of the process:
    building one loads its templates (~0.4 s); it gives the same pages as a fresh one."""
    return HTMLExporter(template_name="basic")


def notebook_page(notebook_path: PathLike, out_path: PathLike) -> None:
    """An HTML page of an executed notebook (nbconvert's basic template, no scripts)."""
    body, _ = _html_exporter().from_filename(str(notebook_path))
    title = html.escape(Path(notebook_path).stem)
    write_text(out_path, PAGE.format(title=title, body=body))
