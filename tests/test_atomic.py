"""Atomic writes: a failing writer leaves neither the target nor a temporary file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from geval_repro.files.atomic import atomic_path, write_parquet, write_text


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
