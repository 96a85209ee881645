"""The pages of the Snakemake report: tables, figures and executed notebooks.

- :func:`table_page` renders a Markdown table the pipeline wrote to a self-contained HTML
  page naming its source files (mistune, with its table plugin); a table whose CSV twin
  holds rows of status ``fixture`` gets a banner saying they are synthetic test data. The
  report registers these pages, so it shows everything inline.
- :func:`write_report_pages` writes a group of pages in one job (the run's tables and
  figures, one judge run's, one notebook's), each with its caption rendered for the page
  (:func:`render_caption`); a notebook's page comes from :mod:`.notebooks`, imported only
  then (nbconvert).

Nothing here imports IPython: table and figure pages are written in a job's thread.
"""

from __future__ import annotations

import html
import logging
import shutil
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mistune
import pandas as pd

from geval_repro.files.atomic import atomic_path, write_text
from geval_repro.files.paths import PathLike
from geval_repro.report.html_page import PAGE

log = logging.getLogger(__name__)
FIXTURE = "fixture"

FIXTURE_BANNER = (
    '<p class="fixture">FIXTURE: rows with status "fixture" come from synthetic test data '
    "(tests/fixtures), not from any released judge output. They are not results.</p>"
)


@cache
def _markdown() -> Any:
    """mistune's Markdown-to-HTML renderer: pipe tables, strikethrough, bare URLs as links;
    HTML in a cell is shown as text (escaped)."""
    return mistune.create_markdown(plugins=["strikethrough", "table", "url"])


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
    body.append(_markdown()(Path(md_path).read_text(encoding="utf-8")))
    title = html.escape(Path(md_path).name)
    write_text(out_path, PAGE.format(title=title, body="".join(body)))


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
    ``notebook``: :func:`.notebooks.notebook_page` of the executed notebook ``source``), its
    caption ``template``, the page's ``wildcards`` and where its ``caption`` goes.
    """
    for path, page in pages.items():
        if page["kind"] == "table":
            table_page(page["source"], page["csv"], path)
        elif page["kind"] == "figure":
            with atomic_path(path) as temporary:
                shutil.copyfile(page["source"], temporary)
        elif page["kind"] == "notebook":
            from geval_repro.report.notebooks import notebook_page

            notebook_page(page["source"], path)
        else:
            raise ValueError(f"report page {path}: unknown kind {page['kind']!r}")
        render_caption(
            page["template"], page["caption"], config=config, wildcards=page["wildcards"]
        )
    log.info("wrote %d report pages and their captions", len(pages))
