"""Per-job logs: every job runs in a process of its own (geval_repro.pipeline.processes),
which writes its rule's log: file itself: a first line naming the job, its records and
stderr, a last line with its wall and CPU time or its error; a failed job raises, naming
the log, and the server goes on."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from geval_repro.pipeline.jobs import Jobs, _plain
from geval_repro.pipeline.processes import DONE, Job, ProcessJobError, run_in_process
from tests.conftest import REPO_ROOT

PAGES = "geval_repro.pipeline.report_jobs:report_pages"


def test_a_job_writes_its_log_with_its_records_and_times(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "pages.log"
    run_in_process(Job(PAGES, {"pages": {}, "config": {}}, path))
    lines = path.read_text().splitlines()
    assert lines[0].endswith("start report_jobs:report_pages")
    assert any("wrote 0 report pages" in line for line in lines)
    done = re.search(rf"{DONE} ([\d.]+) s \(([\d.]+) s CPU of the job's process", lines[-1])
    assert done, lines[-1]
    # Forked from a server that imported the job's module: a job with nothing to do uses
    # almost no CPU (a fresh interpreter spends 0.6 s or more importing its libraries).
    assert 0 <= float(done.group(2)) < 0.3


def test_two_jobs_at_once_write_two_logs(tmp_path: Path) -> None:
    paths = [tmp_path / f"job{i}.log" for i in range(2)]
    threads = [
        threading.Thread(target=run_in_process, args=(Job(PAGES, {"pages": {}, "config": {}}, p),))
        for p in paths
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for path in paths:
        text = path.read_text()
        assert text.count("start report_jobs") == 1 and text.count(DONE) == 1


def test_a_failing_job_names_its_log_and_keeps_its_traceback_there(tmp_path: Path) -> None:
    path = tmp_path / "failing.log"
    with pytest.raises(ProcessJobError) as caught:
        run_in_process(Job(PAGES, {"pages": {"x.html": {"kind": "nothing"}}, "config": {}}, path))
    assert f"(log: {path})" in caught.value.summary
    text = path.read_text()
    assert "Traceback" in text and text.splitlines()[-1].startswith("geval-repro: ")
    run_in_process(Job(PAGES, {"pages": {}, "config": {}}, tmp_path / "next.log"))  # goes on


def test_a_job_runs_functions_of_the_pipeline_only() -> None:
    with pytest.raises(ValueError, match=r"a job runs a function of geval_repro\.pipeline only"):
        Job("os:system", {"command": "true"})


def test_snakemakes_file_names_reach_a_job_as_plain_strings() -> None:
    class IOFile(str):  # as snakemake.io._IOFile: a str with attributes
        flags = "temp"

    plain = _plain({"paths": [IOFile("a.csv")], "table": IOFile("t.parquet"), "n": 3})
    assert plain == {"paths": ["a.csv"], "table": "t.parquet", "n": 3}
    assert type(plain["table"]) is str and type(plain["paths"][0]) is str


def test_only_outputs_under_the_traced_folders_get_a_sidecar(tmp_path: Path) -> None:
    jobs = Jobs(provenance=None, traced=((tmp_path / "tables").resolve(),))  # type: ignore[arg-type]
    assert jobs._traced(tmp_path / "tables" / "t.csv")
    assert not jobs._traced(tmp_path / "logs" / "t.log")


def _rules_with_run_blocks() -> list[tuple[str, str]]:
    """(file:rule, its block) for every rule of workflow/rules with a run: block."""
    found = []
    for smk in sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=    rule|rule)", smk.read_text()):
            header = re.match(r"\s*rule\s*(\w*):", block)
            if not header or "    run:" not in block:
                continue
            name = header.group(1) or re.search(r"name:\s*\n\s*(.+)", block).group(1)
            found.append((f"{smk.name}:{name}", block))
    return found


def test_every_rule_with_a_run_block_has_a_log_and_runs_one_job() -> None:
    rules = _rules_with_run_blocks()
    assert len(rules) > 20
    missing = [name for name, block in rules if "    log:" not in block]
    assert not missing, f"rules without a log: file: {missing}"
    for name, block in rules:
        head, body = block.split("run:\n", 1)
        indent = len(head.rsplit("\n", 1)[1]) + 4
        lines = []
        for line in body.splitlines():
            if line.strip() and len(line) - len(line.lstrip()) < indent:
                break
            lines.append(line)
        calls = re.findall(r"^\s+(\w[\w.]*)\(", "\n".join(lines), flags=re.MULTILINE)
        assert calls == ["JOBS.run"], f"{name}: its run: block is one JOBS.run(...), not {calls}"
