"""Where the pipeline's jobs keep pandas' strings: in Python objects, not in Arrow arrays.

pandas 3 gives string columns the ``str`` dtype and, when pyarrow is installed, stores them
in Arrow arrays (option ``mode.string_storage``, "auto"). A job's frames are small (tens of
thousands of rows at most) and its pandas time goes to merges, group-bys, lookups and
``take`` on string keys, where each call on an Arrow-backed column goes through pyarrow's
compute functions and converts back; with the strings in Python objects
(``mode.string_storage = "python"``) the same calls cost less. The dtype stays ``str``,
missing values NaN, and every value the same: every committed file regenerates byte for
byte (tests/test_regenerate.py), and parquet files are written from Arrow arrays whatever the
storage (:func:`geval_repro.files.atomic.write_parquet`), so their bytes do not change
either. The results-level jobs take about 6 % less CPU, the whole mirrored run 2-5 %
(docs/performance.md).

Set once per run, at the fork server's start (:func:`geval_repro.pipeline.fork_server.main`),
so every job forked from it has it, on this machine and on a cluster's node alike; the
schemas accept either storage (:data:`geval_repro.load.schemas.STR_DTYPES`). Never on
import: a notebook or a script that imports the package keeps its own pandas options.
"""

from __future__ import annotations

#: pandas' ``mode.string_storage`` in the pipeline's jobs.
JOB_STRING_STORAGE = "python"


def store_strings_in_python() -> None:
    """Set pandas' ``mode.string_storage`` to :data:`JOB_STRING_STORAGE` in this process
    (frames made before keep their storage)."""
    import pandas as pd

    pd.set_option("mode.string_storage", JOB_STRING_STORAGE)
