"""The pipeline's jobs keep pandas' strings in Python objects (geval_repro.pipeline.
string_storage): set by the fork server, the parent of every job, before it imports any
job's module; a parquet file's bytes do not depend on which storage wrote it, and the
schemas take strings in either. That every output is the same
either way is tests/test_regenerate.py's comparison (the committed files were written with
Arrow-backed strings; the pipeline now reads and writes them with Python ones).

The storage is a process-wide pandas option: the checks of what sets it run in interpreters
of their own.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pytest

from geval_repro.files.atomic import write_parquet
from geval_repro.load.schemas import item_scores_schema
from tests.conftest import REPO_ROOT, run_in_folder


def _python_prints(code: str) -> str:
    done = run_in_folder(REPO_ROOT, [sys.executable, "-c", textwrap.dedent(code)], timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_the_fork_server_sets_python_strings_before_it_serves() -> None:
    printed = _python_prints(
        """
        import socket, sys
        import pandas as pd
        from geval_repro.pipeline import fork_server

        before = pd.get_option("mode.string_storage")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        fork_server.serve = lambda control, wait: print(
            before, pd.get_option("mode.string_storage")
        )
        sys.argv = ["fork_server", str(theirs.fileno()), "1"]
        fork_server.main()
        """
    )
    assert printed == "auto python"


def test_the_schemas_accept_strings_in_either_storage_and_nothing_else() -> None:
    """pandera's ``str`` takes the storage in effect when pandera was imported (Arrow arrays
    in this process); the schemas' string columns take Python-backed strings too, and still
    refuse numbers."""
    schema = item_scores_schema("summeval")
    columns = {
        "judge": ["j", "j"],
        "benchmark": ["summeval"] * 2,
        "dimension": ["coherence"] * 2,
        "doc_id": ["d1", "d1"],
        "system_id": ["M1", "M2"],
        "score": [1.5, 2.0],
    }
    for storage in ("pyarrow", "python"):
        with pd.option_context("mode.string_storage", storage):
            table = pd.DataFrame(columns)
        assert table["doc_id"].dtype.storage == storage
        assert schema.validate(table) is not None
    numbers = pd.DataFrame({**columns, "doc_id": [1, 2]})
    with pytest.raises(pa.errors.SchemaError, match="doc_id"):
        schema.validate(numbers)


def test_a_parquet_file_is_the_same_whichever_string_storage_wrote_it(tmp_path: Path) -> None:
    frame = {
        "text": ["a", None, "ccc"],
        "mixed": pd.Series(["x", None, "z"], dtype=object),
        "n": [1, 2, 3],
    }
    arrow = pd.DataFrame(frame)
    assert arrow["text"].dtype.storage == "pyarrow"
    with pd.option_context("mode.string_storage", "python"):
        python = pd.DataFrame(frame)
    assert python["text"].dtype.storage == "python"
    write_parquet(arrow, tmp_path / "arrow.parquet")
    write_parquet(python, tmp_path / "python.parquet")
    assert (tmp_path / "arrow.parquet").read_bytes() == (tmp_path / "python.parquet").read_bytes()
    back = pd.read_parquet(tmp_path / "python.parquet")
    assert back["text"].tolist()[0] == "a" and np.isnan(back["text"].tolist()[1])
    assert python["text"].dtype.storage == "python"  # the caller's frame is left as it was
