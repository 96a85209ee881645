"""Rule functions of the notebooks and the report pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from geval_repro.files.paths import PathLike
from geval_repro.report.notebooks import execute_notebook_file
from geval_repro.report.pages import write_report_pages


def notebook(source: PathLike, target: PathLike, results: PathLike, processed: PathLike) -> None:
    """Execute the notebook ``source`` against this run's folders (``results``,
    ``processed``) into ``target`` (:func:`geval_repro.report.notebooks.execute_notebook_file`)."""
    execute_notebook_file(source, target, results_dir=results, processed_dir=processed)


def report_pages(pages: Mapping[str, Mapping[str, Any]], config: Mapping[str, Any]) -> None:
    """Write one group of report pages and their captions (``config``: the run's config as
    written, which the captions read as Snakemake's own report does, and nothing else)."""
    write_report_pages(pages, config)
