"""What readers get from a run: executed notebooks and the pages of the Snakemake report.

- :func:`execute_notebook` runs a notebook of ``notebooks/`` with nbclient against a run's
  folders, passed through the environment variables :data:`RESULTS_ENV` and
  :data:`PROCESSED_ENV` that the notebooks' parameters cell reads. No execution timing is
  recorded, so the same notebook on the same results gives the same outputs.
- :func:`table_page` renders a Markdown table the pipeline wrote to a self-contained HTML
  page naming its source files; a table whose CSV twin holds rows of status ``fixture``
  gets a banner saying they are synthetic test data. :func:`notebook_page` renders an
  executed notebook. The report registers these pages, so it shows everything inline.
- :func:`write_report_pages` writes a group of pages in one job (the run's tables and
  figures, one judge run's, one notebook's), each with its caption rendered for the page
  (:func:`render_caption`).
"""

from __future__ import annotations

import html
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pandas as pd
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from geval_repro.files.atomic import atomic_path, write_text
from geval_repro.files.paths import PathLike

RESULTS_ENV = "GEVAL_REPRO_RESULTS"
PROCESSED_ENV = "GEVAL_REPRO_PROCESSED"
CELL_TIMEOUT = 900  # seconds

log = logging.getLogger(__name__)
FIXTURE = "fixture"

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #bbb; padding: 2px 6px; }}
th {{ background: #eee; }}
.fixture {{ background: #fdd; border: 2px solid #c00; padding: 0.5em; font-weight: bold; }}
</style></head>
<body>
{body}
</body></html>
"""
FIXTURE_BANNER = (
    '<p class="fixture">FIXTURE: rows with status "fixture" come from synthetic test data '
    "(tests/fixtures), not from any released judge output. They are not results.</p>"
)


def execute_notebook(
    notebook: nbformat.NotebookNode,
    *,
    cwd: PathLike,
    results_dir: PathLike | None = None,
    processed_dir: PathLike | None = None,
    timeout: int = CELL_TIMEOUT,
) -> nbformat.NotebookNode:
    """Run every cell of ``notebook`` (in place) in a fresh kernel started in ``cwd``.

    ``results_dir`` / ``processed_dir`` (made absolute) override the folders the notebook
    reads; without them it reads its defaults (the repository's folders). A failing cell
    raises :class:`nbclient.exceptions.CellExecutionError`.
    """
    env = dict(os.environ)
    if results_dir is not None:
        env[RESULTS_ENV] = str(Path(results_dir).resolve())
    if processed_dir is not None:
        env[PROCESSED_ENV] = str(Path(processed_dir).resolve())
    # The kernel talks over IPC sockets in a private folder (not TCP on localhost), and what
    # it writes to its stderr goes to this job's log, not to the console.
    with tempfile.TemporaryDirectory(prefix="geval-kernel-") as folder:
        stderr_path = Path(folder) / "kernel.stderr"
        manager = KernelManager(
            kernel_name="python3", transport="ipc", ip=str(Path(folder) / "kernel")
        )
        client = NotebookClient(
            notebook,
            km=manager,
            timeout=timeout,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        try:
            with stderr_path.open("w", encoding="utf-8") as stderr:
                client.execute(env=env, stderr=stderr)
        finally:
            if manager.has_kernel:
                manager.shutdown_kernel(now=True)
            chatter = stderr_path.read_text(encoding="utf-8", errors="replace").strip()
            if chatter:
                log.info("kernel stderr:\n%s", chatter)
    return notebook


def execute_notebook_file(
    source: PathLike,
    target: PathLike,
    *,
    results_dir: PathLike,
    processed_dir: PathLike,
) -> None:
    """Execute the notebook file ``source`` (in its folder) into ``target``, atomically.

    A failing cell's error is logged (the job log, see geval_repro.pipeline.jobs) and raised,
    naming the notebook.
    """
    notebook = nbformat.read(source, as_version=4)
    try:
        execute_notebook(
            notebook,
            cwd=Path(source).parent,
            results_dir=results_dir,
            processed_dir=processed_dir,
        )
    except CellExecutionError as error:
        log.error("%s: a cell failed against %s\n%s", source, results_dir, error)
        raise
    with atomic_path(target) as temporary:
        nbformat.write(notebook, str(temporary))
    log.info("executed %s (%d cells) into %s", source, len(notebook.cells), target)


def has_fixture_rows(csv_path: PathLike) -> bool:
    """Whether a table's CSV twin exists, is not empty and has rows with status ``fixture``."""
    if not Path(csv_path).is_file() or Path(csv_path).stat().st_size == 0:
        return False
    table = pd.read_csv(csv_path)
    return "status" in table.columns and bool((table["status"] == FIXTURE).any())


def table_page(md_path: PathLike, csv_path: PathLike, out_path: PathLike) -> None:
    """An HTML page of the Markdown table ``md_path`` naming its source files, with the
    fixture banner when ``csv_path`` has fixture rows."""
    body = [f"<p>Source: <code>{html.escape(str(md_path))}</code>"]
    if Path(csv_path).is_file():
        body.append(f" (machine-readable: <code>{html.escape(str(csv_path))}</code>)")
    body.append("</p>")
    if has_fixture_rows(csv_path):
        body.append(FIXTURE_BANNER)
    body.append(markdown2html_mistune(Path(md_path).read_text(encoding="utf-8")))
    title = html.escape(Path(md_path).name)
    write_text(out_path, PAGE.format(title=title, body="".join(body)))


@cache
def _html_exporter() -> HTMLExporter:
    """One HTML exporter (nbconvert's basic template) for every notebook page of the process:
    building one loads its templates (~0.4 s); it gives the same pages as a fresh one."""
    return HTMLExporter(template_name="basic")


_EXPORTER_LOCK = threading.Lock()  # report jobs run as threads; one conversion at a time


def notebook_page(notebook_path: PathLike, out_path: PathLike) -> None:
    """An HTML page of an executed notebook (nbconvert's basic template, no scripts)."""
    with _EXPORTER_LOCK:
        body, _ = _html_exporter().from_filename(str(notebook_path))
    title = html.escape(Path(notebook_path).stem)
    write_text(out_path, PAGE.format(title=title, body=body))


def render_caption(
    template: PathLike,
    out_path: PathLike,
    *,
    config: Mapping[str, Any],
    wildcards: Mapping[str, str],
) -> None:
    """Render the report caption ``template`` for one page into ``out_path``.

    The template is Jinja as Snakemake renders it (same block settings), reading
    ``snakemake.config`` and ``snakemake.wildcards``; here the wildcards are the page's (its
    judge run or notebook), so one job can make the pages of every judge run. A name the
    template uses but the page lacks is an error, not an empty string.
    """
    import jinja2

    env = jinja2.Environment(
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    snakemake = SimpleNamespace(config=config, wildcards=SimpleNamespace(**wildcards))
    text = Path(template).read_text(encoding="utf-8")
    write_text(out_path, env.from_string(text).render(snakemake=snakemake))


def write_report_pages(pages: Mapping[str, Mapping[str, Any]], config: Mapping[str, Any]) -> None:
    """Write the report pages of one group and their rendered captions.

    ``pages`` maps a page's path to its ``kind`` (``table``: :func:`table_page` of the
    Markdown ``source`` and its ``csv``; ``figure``: a copy of the PNG ``source``;
    ``notebook``: :func:`notebook_page` of the executed notebook ``source``), its caption
    ``template``, the page's ``wildcards`` and where its ``caption`` goes.
    """
    for path, page in pages.items():
        if page["kind"] == "table":
            table_page(page["source"], page["csv"], path)
        elif page["kind"] == "figure":
            with atomic_path(path) as temporary:
                shutil.copyfile(page["source"], temporary)
        elif page["kind"] == "notebook":
            notebook_page(page["source"], path)
        else:
            raise ValueError(f"report page {path}: unknown kind {page['kind']!r}")
        render_caption(
            page["template"], page["caption"], config=config, wildcards=page["wildcards"]
        )
    log.info("wrote %d report pages and their captions", len(pages))
