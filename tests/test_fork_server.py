"""Jobs in a process of their own are forked from the run's fork server
(geval_repro.pipeline.fork_server): one server per process that asks for jobs, each job a
child of it in a session of its own; a job whose parent process dies, even by SIGKILL, does
not outlive it (nor does the server or a notebook's kernel); a notebook job stops on Ctrl-C
and SIGTERM with its kernel; a failing job says why in one line and the server goes on.
Stops passed on by Snakemake: tests/test_job_stops.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tests.conftest import REPO_ROOT, run_in_folder

pytestmark = pytest.mark.slow

#: A driver process: runs notebook jobs (``execute_notebook`` of a notebook that sleeps) as
#: the pipeline's job threads do and prints each job's outcome as one JSON line.
DRIVER = textwrap.dedent(
    """
    import json, sys, threading
    from pathlib import Path
    from geval_repro.pipeline import fork_server
    from geval_repro.pipeline.processes import Job, ProcessJobError, run_in_process

    fork_server.STOP_WAIT = float(sys.argv[2])  # what the server waits before SIGKILL
    printing = threading.Lock()  # print() writes the line and its end apart

    def job(notebook, target):
        try:
            run_in_process(
                Job(
                    "geval_repro.pipeline.report_jobs:notebook",
                    {"source": notebook, "target": target, "results": ".", "processed": "."},
                    Path(target + ".log"),
                )
            )
            outcome = "done"
        except ProcessJobError as error:
            outcome = error.summary
        with printing:
            print(json.dumps({"target": target, "outcome": outcome}), flush=True)

    threads = [threading.Thread(target=job, args=pair) for pair in json.loads(sys.argv[1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    """
)


def _sleeping_notebook(path: Path, seconds: float) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(f"import time\ntime.sleep({seconds})")]
    nbformat.write(notebook, str(path))
    return path


def _children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(condition: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"not within {seconds} s: {what}")


def _start_driver(
    tmp_path: Path, jobs: int, seconds: float, stop_wait: float = 30.0
) -> subprocess.Popen[str]:
    pairs = [
        (str(_sleeping_notebook(tmp_path / f"n{i}.ipynb", seconds)), str(tmp_path / f"o{i}.ipynb"))
        for i in range(jobs)
    ]
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, json.dumps(pairs), str(stop_wait)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )


def _server_and_jobs(driver: int, jobs: int) -> tuple[int, list[int]] | None:
    """The driver's fork server and its ``jobs`` job processes, once all are running."""
    servers = [p for p in _children(driver) if "geval_repro.pipeline.fork_server" in _cmdline(p)]
    if len(servers) != 1:
        return None
    children = [p for p in _children(servers[0]) if _alive(p)]
    return (servers[0], children) if len(children) == jobs else None


def _session_leaders(pids: list[int]) -> bool:
    """Whether each of ``pids`` leads a session of its own (a child calls setsid a moment
    after the fork)."""
    try:
        return all(os.getsid(pid) == pid for pid in pids)
    except ProcessLookupError:
        return False


def test_jobs_are_children_of_one_server_each_in_a_session_of_its_own(tmp_path: Path) -> None:
    driver = _start_driver(tmp_path, jobs=2, seconds=1.5)
    try:
        server, jobs = _wait_for(
            lambda: _server_and_jobs(driver.pid, 2), 60, "one server running both jobs"
        )
        assert os.getsid(server) == server  # not in the driver's session
        _wait_for(lambda: _session_leaders(jobs), 30, "each job in a session of its own")
        out, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, err[-3000:]
    outcomes = [json.loads(line)["outcome"] for line in out.splitlines()]
    assert outcomes == ["done", "done"]
    assert all((tmp_path / f"o{i}.ipynb").is_file() for i in range(2))
    assert not _alive(server), "the fork server outlived its process"


def test_a_killed_parent_leaves_no_server_job_or_kernel_behind(tmp_path: Path) -> None:
    """SIGKILL to the process that asked for the job: the server's socket closes, it sends
    SIGTERM to the job and SIGKILL after its stop wait (here 2 s), the kernel follows its
    parent."""
    driver = _start_driver(tmp_path, jobs=1, seconds=120, stop_wait=2)
    try:
        server, (job,) = _wait_for(lambda: _server_and_jobs(driver.pid, 1), 60, "the job running")
        kernels = _wait_for(lambda: _children(job), 60, "the job's kernel running")
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        for pid in (server, job, *kernels):
            _wait_for(lambda pid=pid: not _alive(pid), 30, f"process {pid} gone")
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()


def _kernel_folder(kernel: int) -> Path | None:
    """The private folder of a notebook job's kernel (its IPC sockets), from the connection
    file on its command line (which is in that folder too); None while the kernel's process
    is still between fork and exec (its command line is then the job's, with no ``-f``)."""
    arguments = _cmdline(kernel).split()
    if "-f" not in arguments:
        return None
    connection_file = Path(arguments[arguments.index("-f") + 1])
    folder = Path(json.loads(connection_file.read_text())["ip"]).parent
    assert connection_file.parent == folder  # removed with it, however the job ends
    return folder


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_notebook_job_stops_on_a_stop_signal_with_its_kernel(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """The signal Snakemake passes on to a job's process (Ctrl-C or SIGTERM) while its
    notebook's cell runs: the job stops within seconds, named as stopped by that signal, its
    kernel and the kernel's folder gone, no notebook written (the server's SIGKILL, 30 s
    later, plays no part)."""
    driver = _start_driver(tmp_path, jobs=1, seconds=120)
    try:
        _, (job,) = _wait_for(lambda: _server_and_jobs(driver.pid, 1), 60, "the job running")
        (kernel,) = _wait_for(lambda: _children(job), 60, "the job's kernel running")
        folder = _wait_for(lambda: _kernel_folder(kernel), 30, "the kernel's folder")
        time.sleep(1)  # the cell is running
        os.kill(job, stop)
        try:
            out, err = driver.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the notebook job did not stop within 15 s of {stop.name}")
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    (line,) = out.splitlines()
    assert f"stopped by {stop.name}" in json.loads(line)["outcome"], err
    _wait_for(lambda: not _alive(kernel), 10, "the kernel gone")
    assert not folder.exists()
    assert not (tmp_path / "o0.ipynb").exists()


class _NotebookClient:
    """A stand-in for nbclient's client: its ``execute`` is each test's; its exit hook (which
    nbclient registers while it sets a kernel up) does nothing."""

    def _cleanup_kernel(self) -> None:
        pass


def test_a_stop_signal_that_lands_on_nbclients_thread_ends_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The operating system may hand a process's signal to any thread that does not block
    it; Python runs the handler in the main thread, which waits for nbclient's thread:
    it must look within a moment, not when nbclient is done (here: 30 s)."""
    from geval_repro.report import notebooks

    class Stop(Exception):
        pass

    def stop(number: int, frame: object) -> None:
        raise Stop

    release = threading.Event()

    class Client(_NotebookClient):  # waiting on a kernel when the signal comes to its thread
        def execute(self, **kwargs: object) -> None:
            time.sleep(0.5)  # the main thread is waiting by now
            signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)
            release.wait(30)

    class Manager:  # no kernel started
        provisioner = None
        has_kernel = False

    monkeypatch.setattr(notebooks, "STOP_WAIT", 0.1)
    previous = signal.signal(signal.SIGUSR1, stop)
    started = time.monotonic()
    try:
        with pytest.raises(Stop):
            notebooks._execute_in_thread(Client(), Manager())  # type: ignore[arg-type]
        assert time.monotonic() - started < 5
    finally:
        release.set()
        signal.signal(signal.SIGUSR1, previous)


EXIT_HOOK_AFTER_A_STOP = """
import atexit, signal, threading
from geval_repro.report import notebooks

class Client:  # nbclient: its kernel set up (and the exit hook for it registered), then a cell
    def _cleanup_kernel(self):
        print("nbclient's exit hook ran")

    def execute(self, **kwargs):
        atexit.register(self._cleanup_kernel)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        threading.Event().wait(30)

class Manager:  # no kernel process
    provisioner = None
    has_kernel = False

notebooks.STOP_WAIT = 0.1
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    notebooks._execute_in_thread(Client(), Manager())
except KeyboardInterrupt:
    print("stopped")
"""


def test_nbclients_exit_hook_does_not_run_after_a_stop() -> None:
    """Stopped, the process exits with nbclient's thread still running: the exit hook
    nbclient registered for its kernel (the kernel is killed, and its folder goes with
    execute_notebook's) must not run then; it fails on a kernel manager that nbclient's
    thread may have let go of already. The stop comes as soon as nbclient's thread runs,
    while the waiting thread may still be starting it."""
    done = subprocess.run(
        [sys.executable, "-c", EXIT_HOOK_AFTER_A_STOP], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr


def test_a_stop_before_the_kernel_has_started_kills_it_once_it_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while nbclient is still starting the kernel: the waiting thread kills the
    kernel as soon as it is there (here a stand-in process), not only one that was there
    when the stop came."""
    from geval_repro.report import notebooks

    class Stop(Exception):
        pass

    def stop(number: int, frame: object) -> None:
        raise Stop

    release = threading.Event()
    kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

    class Provisioner:
        pid: int | None = None

    class Manager:
        provisioner = Provisioner()
        has_kernel = False

    class Client(_NotebookClient):
        def execute(self, **kwargs: object) -> None:
            time.sleep(0.3)  # the main thread is waiting by now
            signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)  # the stop
            time.sleep(0.5)
            Manager.provisioner.pid = kernel.pid  # then the kernel is up
            release.wait(30)

    monkeypatch.setattr(notebooks, "STOP_WAIT", 3)
    monkeypatch.setattr(notebooks, "KILLED_WAIT", 0.5)  # the stand-in's thread never ends
    previous = signal.signal(signal.SIGUSR1, stop)
    try:
        with pytest.raises(Stop):
            notebooks._execute_in_thread(Client(), Manager())  # type: ignore[arg-type]
        assert kernel.wait(timeout=5) == -signal.SIGKILL
    finally:
        release.set()
        signal.signal(signal.SIGUSR1, previous)
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait()


def test_a_failing_job_says_why_in_its_last_line(tmp_path: Path) -> None:
    """An unknown function: the job fails with the child's one line and its log's path,
    the server keeps serving (a second job in the same process is made)."""
    script = textwrap.dedent(
        """
        from pathlib import Path
        from geval_repro.pipeline.processes import Job, ProcessJobError, run_in_process
        pages = "geval_repro.pipeline.report_jobs:"
        try:
            run_in_process(Job(pages + "no_such_function", {}, Path("a.log")))
        except ProcessJobError as error:
            print(error.summary)
        run_in_process(Job(pages + "report_pages", {"pages": {}, "config": {}}, Path("b.log")))
        print("second job done")
        """
    )
    done = run_in_folder(tmp_path, [sys.executable, "-c", script], timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "no_such_function: module 'geval_repro.pipeline.report_jobs' has no attribute "
        "'no_such_function' (log: a.log)",
        "second job done",
    ]
