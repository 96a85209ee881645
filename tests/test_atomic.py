"""Atomic writes: a failing writer leaves neither the target nor a temporary file."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.files.atomic import atomic_path, replace_if_changed, write_parquet, write_text


def test_success_replaces_the_target(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.txt"
    write_text(target, "old")
    write_text(target, "new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]


def test_failure_keeps_the_old_target_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("writer failed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_parquet_verification_failure_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "t.parquet"

    def refuse(df: pd.DataFrame) -> None:
        raise ValueError(f"{len(df)} rows, expected 3")

    with pytest.raises(ValueError, match="2 rows, expected 3"):
        write_parquet(pd.DataFrame({"a": [1, 2]}), target, verify=refuse)
    assert list(tmp_path.iterdir()) == []


def test_replace_if_changed_keeps_a_file_with_the_same_bytes_and_its_time(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "nb.ipynb"
    assert replace_if_changed(target, lambda path: path.write_text("one"))  # a new file
    assert target.read_text() == "one" and (target.stat().st_mode & 0o777) != 0o600
    old = 1_000_000_000_000_000_000  # a time in 2001, in ns
    os.utime(target, ns=(old, old))
    assert not replace_if_changed(target, lambda path: path.write_text("one"))
    assert target.stat().st_mtime_ns == old  # untouched: Snakemake sees nothing new
    assert replace_if_changed(target, lambda path: path.write_text("two"))
    assert target.read_text() == "two" and target.stat().st_mtime_ns != old
    assert sorted(p.name for p in target.parent.iterdir()) == ["nb.ipynb"]  # no draft left


def test_replace_if_changed_leaves_the_file_when_the_writer_fails(tmp_path: Path) -> None:
    target = tmp_path / "nb.ipynb"
    target.write_text("old")

    def fail(path: Path) -> None:
        path.write_text("half")
        raise RuntimeError("writer failed")

    with pytest.raises(RuntimeError):
        replace_if_changed(target, fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]
