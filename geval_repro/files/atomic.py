"""Atomic file output: write to a temporary file beside the target, then rename.

A failed step never leaves a partial or corrupt file at the final path: the bytes go to
``<dir>/.<name>.<random>.tmp`` and reach ``path`` only through ``os.replace`` once the
writer has finished without error (and, where given, the written file passed ``verify``).
"""

from __future__ import annotations

import contextlib
import filecmp
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a table is written: parsing the workflow needs none
    import pandas as pd

log = logging.getLogger(__name__)
_UMASK = os.umask(0)
os.umask(_UMASK)
USUAL_MODE = 0o666 & ~_UMASK
"""The mode of a newly created file under the process umask (``mkstemp`` makes 0600)."""


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path; on success rename it to ``path``, on error delete it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, USUAL_MODE)  # mkstemp makes 0600; give the usual mode
        os.replace(temporary, target)
        log.info("wrote %s (%d bytes)", target, target.stat().st_size)
    finally:
        temporary.unlink(missing_ok=True)


def replace_if_changed(path: str | os.PathLike[str], write: Callable[[Path], object]) -> bool:
    """Write ``path`` through ``write`` (given a temporary path beside it), atomically, but
    leave an existing ``path`` untouched (bytes and modification time) when the new bytes
    equal its own. True when ``path`` was written, False when it already held those bytes.

    For files that tools outside a workflow rewrite but a workflow reads (the notebooks): a
    rewrite with the same bytes and a new time would make Snakemake plan the jobs that read
    them again."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.") as folder:
        draft = Path(folder) / target.name
        write(draft)
        if target.is_file() and filecmp.cmp(draft, target, shallow=False):
            return False
        with atomic_path(target) as temporary:
            os.replace(draft, temporary)
    return True


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) atomically."""
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def write_parquet(
    df: pd.DataFrame,
    path: str | os.PathLike[str],
    verify: Callable[[pd.DataFrame], object] | None = None,
) -> None:
    """Write ``df`` as parquet atomically; ``verify`` re-reads the file and may raise.

    String columns (dtype ``str``) are written from Arrow arrays whichever storage they have
    in memory (pandas' ``mode.string_storage``: Python objects in the pipeline's jobs,
    :mod:`geval_repro.pipeline.string_storage`), so a file's bytes do not depend on the
    process that wrote it."""
    import pandas as pd

    columns = {
        name: pd.StringDtype("pyarrow", na_value=dtype.na_value)  # the same dtype in Arrow
        for name, dtype in df.dtypes.items()
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "python"
    }
    with atomic_path(path) as temporary:
        (df.astype(columns) if columns else df).to_parquet(temporary, index=False)
        if verify is not None:
            verify(pd.read_parquet(temporary))
    log.info("%s: %d rows x %d columns", Path(path).name, len(df), df.shape[1])
