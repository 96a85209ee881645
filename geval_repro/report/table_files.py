"""Result tables on disk, written atomically: a CSV and its Markdown twin side by side
(:func:`write_pair`), a laid-out table's cells beside its Markdown (:func:`write_layout`), a
checked row file of the correlation table's shape (:func:`write_rows`),
and CSVs of one shape concatenated (:func:`concat_csv`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from geval_repro.files.atomic import write_text
from geval_repro.report.markdown import to_markdown
from geval_repro.tables.rows import COLUMNS, check_rows

log = logging.getLogger(__name__)


def write_pair(df: pd.DataFrame, stem: str | os.PathLike[str], legend: str = "") -> None:
    """Write ``<stem>.csv`` and ``<stem>.md`` (``legend``, if any, as a paragraph under the
    Markdown table); correlation-shaped tables are checked first."""
    if list(df.columns) == COLUMNS:
        check_rows(df)
    stem = Path(stem)
    log.info("table %s: %d rows", stem.name, len(df))
    write_text(stem.with_name(stem.name + ".csv"), df.to_csv(index=False, lineterminator="\n"))
    markdown = to_markdown(df) + (f"\n{legend}\n" if legend else "")
    write_text(stem.with_name(stem.name + ".md"), markdown)


def write_layout(cells: pd.DataFrame, markdown: str, stem: str | os.PathLike[str]) -> None:
    """Write a laid-out table: ``<stem>.csv`` (its cells, as the Markdown shows them) and
    ``<stem>.md`` (``markdown``: the table with its legends)."""
    stem = Path(stem)
    write_text(stem.with_name(stem.name + ".csv"), cells.to_csv(index=False, lineterminator="\n"))
    write_text(stem.with_name(stem.name + ".md"), markdown)


def write_rows(rows: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write rows of the correlation table's shape to a CSV (checked first): the row files
    the combined table is made of."""
    check_rows(rows)
    write_text(path, rows.to_csv(index=False, lineterminator="\n"))


def concat_csv(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str]) -> None:
    """Concatenate CSV tables of one shape (e.g. the sweeps of several judges) into ``out``."""
    table = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
    log.info("concatenated %d tables: %d rows", len(paths), len(table))
    write_text(out, table.to_csv(index=False, lineterminator="\n"))
