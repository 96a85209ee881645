"""Per-job logs: records and stderr of each thread land in that thread's file only."""

from __future__ import annotations

import logging
import re
import sys
import threading
import warnings
from pathlib import Path

import pytest

from geval_repro.pipeline.jobs import LoggedRun, job_log
from tests.conftest import run_in_folder

REPO_ROOT = Path(__file__).resolve().parents[1]


def _job(path: Path, tag: str, barrier: threading.Barrier, errors: list[BaseException]) -> None:
    logger = logging.getLogger(f"geval_repro.test.{tag}")
    try:
        with job_log(path, tag):
            for step in range(50):
                barrier.wait()  # both jobs are inside their blocks and interleave
                logger.info("%s record %d", tag, step)
                print(f"{tag} stderr {step}", file=sys.stderr)
    except BaseException as error:  # surfaced in the main thread
        errors.append(error)


def test_two_threads_log_to_two_files_without_mixing(tmp_path: Path) -> None:
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []
    paths = {tag: tmp_path / f"{tag}.log" for tag in ("alpha", "beta")}
    threads = [
        threading.Thread(target=_job, args=(paths[tag], tag, barrier, errors)) for tag in paths
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for tag, other in [("alpha", "beta"), ("beta", "alpha")]:
        text = paths[tag].read_text()
        assert len(re.findall(rf"{tag} record \d+", text)) == 50
        assert len(re.findall(rf"{tag} stderr \d+", text)) == 50
        assert other not in text
        assert "done in" in text
    assert "ThreadStderr" not in type(sys.stderr).__name__  # restored after the last job


def test_warnings_go_to_the_log(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    with job_log(path):
        warnings.warn("a warning worth reading", UserWarning, stacklevel=1)
    assert "a warning worth reading" in path.read_text()


def test_an_error_is_logged_and_names_the_log(tmp_path: Path) -> None:
    path = tmp_path / "failing.log"
    with pytest.raises(ValueError, match="bad input") as caught:
        with job_log(path):
            raise ValueError("bad input")
    assert f"log: {path}" in caught.value.__notes__
    text = path.read_text()
    assert "failed after" in text and "ValueError: bad input" in text


def _rules_with_run_blocks() -> list[tuple[str, bool]]:
    """(file:rule, has a log:) for every rule of workflow/rules with a run: block."""
    found = []
    for smk in sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=    rule|rule)", smk.read_text()):
            header = re.match(r"\s*rule\s*(\w*):", block)
            if not header or "    run:" not in block:
                continue
            name = header.group(1) or re.search(r"name:\s*\n\s*(.+)", block).group(1)
            found.append((f"{smk.name}:{name}", "    log:" in block))
    return found


def test_every_rule_with_a_run_block_has_a_log() -> None:
    rules = _rules_with_run_blocks()
    assert len(rules) > 20
    missing = [name for name, has_log in rules if not has_log]
    assert not missing, f"rules without a log: file: {missing}"


def test_a_wrapped_run_function_logs_to_the_jobs_first_log(tmp_path: Path) -> None:
    def body(input, output, params, wildcards, threads, resources, log, rule, *rest):
        logging.getLogger("geval_repro.test").info("rows written: %d", 42)
        print("progress 50%", file=sys.stderr)

    path = tmp_path / "logs" / "step.log"
    LoggedRun(body)([], [], None, None, 1, None, [str(path)], "step", None, None)
    text = path.read_text()
    assert "start rule step" in text and "rows written: 42" in text
    assert "progress 50%" in text and "done in" in text
    assert LoggedRun(body).__code__ is body.__code__  # what snakemake --lint measures


def test_preload_imports_the_job_libraries_in_a_fresh_interpreter() -> None:
    """The Snakefile's onstart imports the jobs' large libraries before any job thread runs;
    in a fresh interpreter none of them is loaded before and all of them are after."""
    code = (
        "import sys\n"
        "from geval_repro.pipeline.jobs import JOB_LIBRARIES, preload_job_libraries\n"
        "before = [n for n in JOB_LIBRARIES if n in sys.modules]\n"
        "preload_job_libraries()\n"
        "print(before, [n for n in JOB_LIBRARIES if n not in sys.modules])\n"
    )
    done = run_in_folder(REPO_ROOT, [sys.executable, "-c", code])
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[] []"


def test_the_log_gives_the_jobs_own_cpu_time_beside_its_wall_time(tmp_path: Path) -> None:
    import time

    path = tmp_path / "job.log"
    with job_log(path):
        time.sleep(0.4)  # wall time, no CPU
        deadline = time.thread_time() + 0.2
        while time.thread_time() < deadline:  # 0.2 s of CPU in this thread
            pass
    done = re.search(r"done in ([\d.]+) s \(([\d.]+) s CPU in the job's thread", path.read_text())
    assert done, path.read_text()
    wall, cpu = float(done.group(1)), float(done.group(2))
    assert wall >= 0.5 and 0.15 <= cpu <= wall - 0.3


TINY_WORKFLOW = """
from geval_repro.pipeline.jobs import LoggedRun, log_every_run


rule all:
    input:
        "out/a.txt",


rule a:
    output:
        "out/a.txt",
    params:
        word="tracked",
    log:
        "logs/a.log",
    run:
        import logging

        logging.getLogger("geval_repro.tiny").info("params %s", params.word)
        with open(output[0], "w") as handle:
            handle.write(params.word)


def after(input, output, params):
    with open("after.txt", "w") as handle:
        handle.write(f"{list(output)} {params.word}")


log_every_run(workflow.rules, after=after)
assert all(isinstance(r.run_func, LoggedRun) for r in workflow.rules if r.is_run)
"""


@pytest.mark.slow
@pytest.mark.parametrize("threads", [True, False], ids=["as-threads", "as-processes"])
def test_the_installed_snakemake_calls_wrapped_run_functions_by_their_names(
    tmp_path: Path, threads: bool
) -> None:
    """Pins what pipeline.jobs relies on in Snakemake: a rule's run function is the
    attribute ``run_func``, its parameters are named ``input, output, params, ..., log,
    rule``, and it is called with them, as threads (``--force-use-threads``) or in spawned
    job processes. A Snakemake release that changes this fails here first."""
    (tmp_path / "Snakefile").write_text(TINY_WORKFLOW)
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--nolock", "-s", "Snakefile"]
    done = run_in_folder(tmp_path, [*command, *(["--force-use-threads"] if threads else [])])
    assert done.returncode == 0, done.stderr[-3000:]
    log = (tmp_path / "logs" / "a.log").read_text()
    assert "start rule a" in log and "params tracked" in log and "done in" in log
    assert (tmp_path / "after.txt").read_text() == "['out/a.txt'] tracked"


def test_a_console_line_waits_for_snakemakes_line_to_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Snakemake's console handler writes a message and its newline in two writes, under
    the handler's lock; a job's console line must not land between them."""
    import io
    import time

    from geval_repro.pipeline.jobs import SNAKEMAKE_LOGGER, console

    stream = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", stream)
    halfway = threading.Event()

    class TwoWrites(logging.Handler):  # as snakemake.logging.ColorizingTextHandler.emit
        def emit(self, record: logging.LogRecord) -> None:
            stream.write(record.getMessage())
            halfway.set()
            time.sleep(0.3)
            stream.write("\n")

    logger = logging.getLogger(SNAKEMAKE_LOGGER)
    handler = TwoWrites()
    logger.addHandler(handler)
    try:
        snakemake = threading.Thread(target=logger.warning, args=("Execute 1 jobs...",))
        snakemake.start()
        assert halfway.wait(5)
        console("fetch: judge j, coherence: could not download")
        snakemake.join()
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue().splitlines() == [
        "Execute 1 jobs...",
        "fetch: judge j, coherence: could not download",
    ]


def test_a_job_process_ends_its_log_with_its_cpu_time(capsys: pytest.CaptureFixture[str]) -> None:
    """A job run in a process of its own says the CPU it used (its thread's closing line
    cannot: perf/time_pipeline.py adds the two), counted from its fork: the libraries it
    uses were imported by the fork server (a fresh interpreter spends 0.6 s or more on
    them)."""
    from geval_repro.pipeline.fork_server import PROCESS_CPU
    from geval_repro.pipeline.processes import run_in_process

    run_in_process("geval_repro.pipeline.report_jobs:write_pages", {"pages": {}, "config": {}})
    lines = capsys.readouterr().err.splitlines()
    assert "wrote 0 report pages" in lines[-2]
    used = re.search(re.escape(PROCESS_CPU) + r" ([\d.]+) s of CPU$", lines[-1])
    assert used and 0 <= float(used.group(1)) < 0.3


def test_a_job_process_receives_paths_and_mappings_as_plain_values(tmp_path: Path) -> None:
    """run_in_process sends a path as its string and any mapping as a dict; anything else
    that JSON cannot hold is refused before a process starts, naming its type."""
    from types import MappingProxyType

    from geval_repro.pipeline.processes import run_in_process

    template = tmp_path / "caption.rst"
    template.write_text("{{ snakemake.config['where'] }}\n", encoding="utf-8")
    md = tmp_path / "t.md"
    md.write_text("| a |\n|---|\n| 1 |\n", encoding="utf-8")
    page = {
        "kind": "table",
        "source": md,
        "csv": tmp_path / "absent.csv",
        "template": template,
        "wildcards": MappingProxyType({}),
        "caption": tmp_path / "caption.txt",
    }
    config = MappingProxyType({"where": tmp_path / "results"})
    run_in_process(
        "geval_repro.pipeline.report_jobs:write_pages",
        {"pages": {str(tmp_path / "t.html"): page}, "config": config},
    )
    assert (tmp_path / "caption.txt").read_text() == f"{tmp_path / 'results'}\n"
    assert "<td>1</td>" in (tmp_path / "t.html").read_text()
    with pytest.raises(TypeError, match="set is not JSON-able"):
        run_in_process("geval_repro.pipeline.report_jobs:write_pages", {"pages": {1, 2}})
