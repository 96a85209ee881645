"""The closing summary of a run: what this run made (not what was there before it), the
incomplete tables, the fetches this run could not make (not an earlier run's logs), the
committed files its failed jobs removed with the command that restores them, one fix."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from geval_repro.files.fetch import FIX, MISSING
from geval_repro.pipeline.summary import (
    MIRRORED_RUN,
    RunStart,
    closing_summary,
    missing_committed,
)

START = 1_700_000_000.0  # the run's start on the file clock, in these tests


def _failed_fetch(logs: Path, relpath: str, label: str, *, at: float = START + 5) -> None:
    log = logs / f"{relpath}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        f"x ERROR geval_repro.files.fetch: {MISSING}{label}: could not download (offline?)\n"
        f"x ERROR geval_repro.files.fetch: {FIX}set the config key 'mirror'\n",
        encoding="utf-8",
    )
    os.utime(log, (at, at))


def _file(path: Path, *, at: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    os.utime(path, (at, at))
    return path


def _summary(tmp_path: Path, targets, named=None, **kwargs) -> str:
    options = {
        "run": RunStart(START),
        "fetch_logs": tmp_path / "logs",
        "raw_dir": tmp_path / "raw",
        "mirror": None,
        "fetched_any": True,
        **kwargs,
    }
    return closing_summary(targets, named or {}, **options)


def test_counts_what_was_made_and_names_the_incomplete_tables(tmp_path: Path) -> None:
    logs, raw = tmp_path / "logs", tmp_path / "raw"
    _failed_fetch(logs, "o/r/c/a.json", "judge j, coherence")
    _file(raw / "o" / "r" / "c" / "b.json", at=START + 1)
    made = _file(tmp_path / "table2.md", at=START + 10)
    summary = _summary(
        tmp_path,
        [made, tmp_path / "table1.md", tmp_path / "correlations.csv"],
        {"Table 1": [tmp_path / "table1.md"], "Table 2": [made]},
    )
    lines = summary.splitlines()
    assert lines[0] == "1 upstream file(s) could not be fetched:"
    assert lines[1] == "  - judge j, coherence: could not download (offline?)"
    assert "This run made 1 of the 3 outputs of a full run; 2 are missing." in lines
    assert f"Not made: Table 1 ({tmp_path / 'table1.md'}); 1 other output." in lines
    assert [line for line in lines if line.startswith("Fix:")] == [
        "Fix: set the config key 'mirror'"
    ]


def test_the_not_made_counts_add_up_to_the_missing_ones(tmp_path: Path) -> None:
    """The default offline run said "156 are missing" and listed groups of 36 files: every
    missing output is now counted once, under the first group naming it, the rest after."""
    missing = [tmp_path / f"m{i}.csv" for i in range(10)]
    summary = _summary(
        tmp_path,
        missing,
        {"Table 1": missing[:1], "judge j": missing[:4], "judge k": missing[3:5]},
    )
    assert "10 are missing." in summary
    not_made = next(line for line in summary.splitlines() if line.startswith("Not made: "))
    assert not_made == (
        f"Not made: Table 1 ({missing[0]}); judge j (3 files); judge k ({missing[4]}); "
        "5 other outputs."
    )


def test_outputs_older_than_the_run_are_not_counted_as_made(tmp_path: Path) -> None:
    """The issue's case: one job ran, 52 committed files were there; "made" is the one."""
    committed = [_file(tmp_path / f"committed{i}.csv", at=START - 3600) for i in range(52)]
    made = _file(tmp_path / "made.csv", at=START)  # the same instant as the start counts
    targets = [*committed, made, *(tmp_path / f"absent{i}.csv" for i in range(125))]
    summary = _summary(tmp_path, targets, failed=False)
    assert summary == (
        "This run made 1 of the 178 outputs of a full run; 52 were there before it (an "
        "earlier run's, or committed); 125 are missing."
    )


def test_stale_logs_and_logs_of_files_this_config_does_not_fetch_are_not_blamed(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    _failed_fetch(logs, "o/r/c/now.json", "judge mine, coherence")
    _failed_fetch(logs, "o/r/c/old.json", "judge mine, fluency", at=START - 60)  # earlier run
    _failed_fetch(logs, "nlpyang/geval/c/gpt4.json", "judge gpt4-released, coherence")
    summary = _summary(tmp_path, [tmp_path / "x"], fetched={"o/r/c/now.json", "o/r/c/old.json"})
    assert "1 upstream file(s) could not be fetched:" in summary
    assert "judge mine, coherence" in summary
    assert "fluency" not in summary and "gpt4-released" not in summary
    # Without a failure of this run there is no fix to give and nothing blamed.
    quiet = _summary(tmp_path, [tmp_path / "x"], fetched={"o/r/c/old.json"})
    assert "could not be fetched" not in quiet and "Fix:" not in quiet


def test_nothing_fetched_and_no_mirror_gives_the_mirrored_run(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for name in ("a", "b"):
        _failed_fetch(logs, f"o/r/c/{name}.json", name)
    summary = _summary(tmp_path, [tmp_path / "x"], fetched_any=False)
    fixes = [line for line in summary.splitlines() if line.startswith("Fix:")]
    assert len(fixes) == 1 and fixes[0].endswith(MIRRORED_RUN)
    assert "This run made 0 of the 1 outputs of a full run; 1 are missing." in summary


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def test_committed_files_a_failed_job_removed_are_named_with_the_restore_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    results = repo / "results"
    for name in ("a.csv", "b.png", "kept.md", "gone_before.md"):
        _file(results / "tables" / name, at=START - 10)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "results")
    (results / "tables" / "gone_before.md").unlink()
    monkeypatch.chdir(repo)  # the checkout, as Snakemake runs
    before = frozenset(missing_committed([Path("results"), Path("data")]))  # no data/: fine
    assert before == {Path("results/tables/gone_before.md")}
    for name in ("a.csv", "b.png"):  # a failed job's outputs
        (results / "tables" / name).unlink()
    removed = [p for p in missing_committed([Path("results")]) if p not in before]
    assert removed == [Path("results/tables/a.csv"), Path("results/tables/b.png")]
    summary = _summary(tmp_path, [results / "tables" / "a.csv"], removed=removed)
    line = next(line for line in summary.splitlines() if line.startswith("Removed"))
    command = "git checkout -- results/tables/a.csv results/tables/b.png"
    assert f"`{command}`" in line and "2 committed file(s)" in line
    subprocess.run(command.split(), check=True)  # the command restores them
    assert missing_committed([Path("results")]) == [Path("results/tables/gone_before.md")]
    # A folder removed whole before the run: its files were missing at the start.
    shutil.rmtree(results)
    assert len(missing_committed([Path("results")])) == 4
    # Many files: the command restores every deleted tracked file of the run's folders.
    many = [Path(f"results/f{i}.csv") for i in range(12)]
    line = _summary(tmp_path, [], removed=many, folders=[Path("results"), Path("data")])
    assert "and 4 more" in line
    assert "`git ls-files -z --deleted -- results data | xargs -0 git checkout --`" in line


def test_outside_a_git_checkout_no_file_counts_as_committed(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    assert missing_committed([tmp_path / "results", tmp_path / "absent"]) == []
