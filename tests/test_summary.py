"""The closing summary of a run that could not make everything: counts, the incomplete
tables, one fix, and the mirrored run when nothing could be fetched and no mirror is set."""

from __future__ import annotations

from pathlib import Path

from geval_repro.files.fetch import FIX, MISSING
from geval_repro.pipeline.summary import MIRRORED_RUN, closing_summary


def _failed_fetch(logs: Path, relpath: str, label: str) -> None:
    log = logs / f"{relpath}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        f"x ERROR geval_repro.files.fetch: {MISSING}{label}: could not download (offline?)\n"
        f"x ERROR geval_repro.files.fetch: {FIX}set the config key 'mirror'\n",
        encoding="utf-8",
    )


def test_counts_what_was_made_and_names_the_incomplete_tables(tmp_path: Path) -> None:
    logs, raw = tmp_path / "logs", tmp_path / "raw"
    _failed_fetch(logs, "o/r/c/a.json", "judge j, coherence")
    (raw / "o" / "r" / "c").mkdir(parents=True)
    (raw / "o" / "r" / "c" / "b.json").write_text("{}")
    made = tmp_path / "table2.md"
    made.write_text("x")
    summary = closing_summary(
        [made, tmp_path / "table1.md", tmp_path / "correlations.csv"],
        {"Table 1": [tmp_path / "table1.md"], "Table 2": [made]},
        fetch_logs=logs,
        raw_dir=raw,
        mirror=None,
        fetched_any=True,
    )
    lines = summary.splitlines()
    assert lines[0] == "1 upstream file(s) could not be fetched:"
    assert lines[1] == "  - judge j, coherence: could not download (offline?)"
    assert "Made 1 of the 3 outputs of a full run." in lines
    assert f"Not made: Table 1 ({tmp_path / 'table1.md'})." in lines
    assert [line for line in lines if line.startswith("Fix:")] == [
        "Fix: set the config key 'mirror'"
    ]


def test_nothing_fetched_and_no_mirror_gives_the_mirrored_run(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for name in ("a", "b"):
        _failed_fetch(logs, f"o/r/c/{name}.json", name)
    summary = closing_summary(
        [tmp_path / "x"],
        {},
        fetch_logs=logs,
        raw_dir=tmp_path / "raw",
        mirror=None,
        fetched_any=False,
    )
    fixes = [line for line in summary.splitlines() if line.startswith("Fix:")]
    assert len(fixes) == 1 and fixes[0].endswith(MIRRORED_RUN)
    assert "Made 0 of the 1 outputs of a full run." in summary
