"""Rule functions of the notebooks and the report pages. A notebook's job, and a page
group's with a notebook page, run in a process of their own
(:mod:`geval_repro.pipeline.processes`: nbclient and nbconvert import IPython, whose
half-finished import a job thread beside them could see); the pages of tables and figures
are written in the job's thread (no process to start, no libraries to import again)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from geval_repro.pipeline.processes import in_own_process, run_in_process
from geval_repro.report.pages import write_report_pages


def execute_notebook(source: str, target: str, results: str, processed: str) -> None:
    """Execute the notebook ``source`` against this run's folders (``results``,
    ``processed``) into ``target`` (:func:`geval_repro.report.notebooks.execute_notebook_file`)."""
    from geval_repro.report.notebooks import execute_notebook_file

    execute_notebook_file(source, target, results_dir=results, processed_dir=processed)


#: The notebook job: :func:`execute_notebook` in a process of its own.
notebook = in_own_process(execute_notebook)


def report_pages(pages: Mapping[str, Mapping[str, Any]], config: Mapping[str, Any]) -> None:
    """Write one group of report pages and their captions (``config``: the run's config,
    which the captions read as Snakemake's own report does): in a process of its own when a
    page is a notebook's, else in this thread."""
    if not any(page["kind"] == "notebook" for page in pages.values()):
        write_report_pages(pages, config)
        return
    run_in_process(
        f"{__name__}:write_pages",
        {"pages": {str(path): page for path, page in pages.items()}, "config": config},
    )


def write_pages(pages: Mapping[str, Mapping[str, Any]], config: Mapping[str, Any]) -> None:
    """The report job's process (:func:`geval_repro.report.pages.write_report_pages`)."""
    write_report_pages(pages, config)
