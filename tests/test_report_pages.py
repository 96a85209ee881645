"""Executed notebooks and report pages (geval_repro.report.notebooks and .pages)."""

from __future__ import annotations

from pathlib import Path

import jinja2
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from geval_repro.pipeline.processes import Job, run_in_process
from geval_repro.report.notebooks import execute_notebook, execute_notebook_file, notebook_page
from geval_repro.report.pages import (
    FIXTURE_BANNER,
    has_fixture_rows,
    render_caption,
    table_page,
    write_report_pages,
)

TABLE_MD = "| dimension | value |\n|---|---|\n| coherence | 0.512 |\n"


def _notebook(*sources: str) -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_code_cell(source) for source in sources]
    for index, cell in enumerate(cells):
        cell["id"] = f"cell-{index}"
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return notebook


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_table_page_shows_the_table_and_its_sources(tmp_path):
    md = _write(tmp_path / "main.md", TABLE_MD)
    csv = _write(tmp_path / "main.csv", "dimension,value,status\ncoherence,0.512,recomputed\n")
    table_page(md, csv, tmp_path / "page.html")
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<td>coherence</td>" in page and "<td>0.512</td>" in page
    assert str(md) in page and str(csv) in page
    assert FIXTURE_BANNER not in page
    assert "<script" not in page


def test_fixture_tables_get_the_banner(tmp_path):
    md = _write(tmp_path / "main.md", TABLE_MD)
    csv = _write(tmp_path / "main.csv", "value,status\n0.5,recomputed\n0.7,fixture\n")
    assert has_fixture_rows(csv)
    table_page(md, csv, tmp_path / "page.html")
    assert FIXTURE_BANNER in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_tables_without_status_or_csv_have_no_fixture_rows(tmp_path):
    assert not has_fixture_rows(tmp_path / "absent.csv")
    assert not has_fixture_rows(_write(tmp_path / "empty.csv", ""))
    assert not has_fixture_rows(_write(tmp_path / "t.csv", "a,b\nfixture,1\n"))
    md = _write(tmp_path / "paper.md", TABLE_MD)
    table_page(md, tmp_path / "absent.csv", tmp_path / "page.html")
    assert "machine-readable" not in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_execute_notebook_passes_the_folders_and_runs_in_cwd(tmp_path):
    results = tmp_path / "results"
    notebook = _notebook(
        "import os, pathlib\n"
        "print(os.environ['GEVAL_REPRO_RESULTS'])\n"
        "print(os.environ['GEVAL_REPRO_PROCESSED'])\n"
        "print(pathlib.Path.cwd())"
    )
    execute_notebook(notebook, cwd=tmp_path, results_dir=results, processed_dir="data")
    (output,) = notebook.cells[0]["outputs"]
    assert output["text"].splitlines() == [
        str(results.resolve()),
        str(Path("data").resolve()),
        str(tmp_path),
    ]
    assert "execution" not in notebook.cells[0]["metadata"]  # no timing recorded


def test_the_kernel_runs_over_ipc_and_its_chatter_stays_in_the_log(tmp_path, capfd):
    source = tmp_path / "chatty.ipynb"
    code = "import sys\nprint('kernel says hi', file=sys.__stderr__)\nprint(2)"
    nbformat.write(_notebook(code), str(source))
    log, target = tmp_path / "notebook.log", tmp_path / "out" / "chatty.ipynb"
    arguments = {"source": source, "target": target, "results": tmp_path, "processed": tmp_path}
    run_in_process(Job("geval_repro.pipeline.report_jobs:notebook", arguments, log))
    console = capfd.readouterr()
    assert "TCP" not in console.err and "kernel says hi" not in console.err
    assert "kernel says hi" in log.read_text(encoding="utf-8")
    executed = nbformat.read(str(target), as_version=4)
    assert executed.cells[0]["outputs"][-1]["text"] == "2\n"


def test_a_failing_cell_is_logged_and_leaves_no_output(tmp_path, caplog):
    source = tmp_path / "nb" / "broken.ipynb"
    source.parent.mkdir()
    nbformat.write(_notebook("x = 1", "raise RuntimeError('table missing')"), str(source))
    target = tmp_path / "out" / "broken.ipynb"
    with pytest.raises(CellExecutionError, match="table missing"):
        execute_notebook_file(source, target, results_dir=tmp_path, processed_dir=tmp_path)
    assert not target.exists()
    assert "broken.ipynb: a cell failed" in caplog.text


def test_executed_notebook_file_and_its_page(tmp_path):
    source = tmp_path / "nb" / "ok.ipynb"
    source.parent.mkdir()
    nbformat.write(_notebook("print(6 * 7)"), str(source))
    target = tmp_path / "out" / "ok.ipynb"
    execute_notebook_file(source, target, results_dir=tmp_path, processed_dir=tmp_path)
    executed = nbformat.read(str(target), as_version=4)
    assert executed.cells[0]["outputs"][0]["text"] == "42\n"
    notebook_page(target, tmp_path / "ok.html")
    page = (tmp_path / "ok.html").read_text(encoding="utf-8")
    assert "42" in page and "<title>ok</title>" in page
    assert 'src="http' not in page


def test_notebook_pages_from_the_shared_exporter_equal_fresh_conversions(tmp_path):
    from nbconvert import HTMLExporter

    for name, code in [("a", "print('first')"), ("b", "x = [1, 2]\nx")]:
        source = tmp_path / f"{name}.ipynb"
        notebook = _notebook(code, "# a heading in code")
        notebook.cells.append(nbformat.v4.new_markdown_cell(f"**{name}** in *Markdown*"))
        nbformat.write(notebook, str(source))
        notebook_page(source, tmp_path / f"{name}.html")
        fresh, _ = HTMLExporter(template_name="basic").from_filename(str(source))
        page = (tmp_path / f"{name}.html").read_text(encoding="utf-8")
        assert fresh in page and f"<strong>{name}</strong>" in fresh


CAPTIONS = Path(__file__).resolve().parents[1] / "workflow" / "report"
CONFIG = {"judges": {"run-a": {"label": "Label of run A", "paper_metric": "G-Eval-4"}}}


def test_a_caption_is_rendered_for_its_judge_run(tmp_path):
    out = tmp_path / "caption.rst"
    render_caption(CAPTIONS / "judge_main.rst", out, config=CONFIG, wildcards={"judge": "run-a"})
    text = out.read_text(encoding="utf-8")
    assert text.startswith("Judge ``run-a``\n(Label of run A), main table")
    assert "row\n``G-Eval-4`` of the" in text and "{{" not in text
    with pytest.raises(jinja2.UndefinedError, match="judge"):  # a template name the page lacks
        render_caption(CAPTIONS / "judge_main.rst", out, config=CONFIG, wildcards={})


def test_report_pages_are_written_with_their_captions(tmp_path):
    md = _write(tmp_path / "main.md", TABLE_MD)
    figure = _write(tmp_path / "figure.png", "not really a PNG")
    pages = {
        str(tmp_path / "report" / "main.html"): {
            "kind": "table",
            "source": str(md),
            "csv": str(tmp_path / "main.csv"),
            "template": str(CAPTIONS / "judge_main.rst"),
            "wildcards": {"judge": "run-a"},
            "caption": str(tmp_path / "captions" / "main.rst"),
        },
        str(tmp_path / "report" / "figure.png"): {
            "kind": "figure",
            "source": str(figure),
            "csv": None,
            "template": str(CAPTIONS / "reproduction.rst"),
            "wildcards": {},
            "caption": str(tmp_path / "captions" / "figure.rst"),
        },
    }
    write_report_pages(pages, CONFIG)
    assert "0.512" in (tmp_path / "report" / "main.html").read_text(encoding="utf-8")
    assert (tmp_path / "report" / "figure.png").read_bytes() == figure.read_bytes()
    assert "``run-a``" in (tmp_path / "captions" / "main.rst").read_text(encoding="utf-8")
    reproduction = (CAPTIONS / "reproduction.rst").read_text(encoding="utf-8")
    assert (tmp_path / "captions" / "figure.rst").read_text(encoding="utf-8") == reproduction


def test_the_landing_page_lists_every_status_and_the_judge_runs(tmp_path: Path) -> None:
    """workflow/report/workflow.rst, rendered as Snakemake renders it and parsed as the
    report's reStructuredText: the status list names every status the tables hold, and the
    judge runs are a list of their own, not a run-on paragraph."""
    from docutils.core import publish_doctree
    from docutils.nodes import bullet_list

    from geval_repro.config import DEFAULT_CONFIG_PATH, load_config
    from geval_repro.tables.rows import STATUSES

    config = load_config(DEFAULT_CONFIG_PATH)
    config["judges_to_run"] = ["gpt4-released", "gpt4-metriceval-run1"]
    out = tmp_path / "workflow.rst"
    render_caption(CAPTIONS / "workflow.rst", out, config=config, wildcards={})
    tree = publish_doctree(out.read_text(encoding="utf-8"), settings_overrides={"report_level": 5})
    lists = [node.astext() for node in tree.findall(bullet_list)]
    statuses = next(text for text in lists if "recomputed" in text)
    assert all(f"{status}:" in statuses or f"{status}," in statuses for status in STATUSES)
    judges = next(text for text in lists if "gpt4-released" in text)
    assert judges.splitlines()[0].startswith("gpt4-released: ")
    assert len([line for line in judges.splitlines() if line]) == 2, judges


def test_a_group_of_table_pages_is_written_with_its_captions(tmp_path):
    """A table page and its caption, rendered for the page's judge
    (geval_repro.pipeline.report_jobs.report_pages)."""
    from geval_repro.pipeline.report_jobs import report_pages

    md = _write(tmp_path / "main.md", TABLE_MD)
    caption = _write(tmp_path / "caption.rst", "Table of {{ snakemake.wildcards.judge }}.\n")
    page = {
        "kind": "table",
        "source": str(md),
        "csv": str(tmp_path / "absent.csv"),
        "template": str(caption),
        "wildcards": {"judge": "j"},
        "caption": str(tmp_path / "page.rst"),
    }
    report_pages({str(tmp_path / "page.html"): page}, {})
    assert "<td>coherence</td>" in (tmp_path / "page.html").read_text(encoding="utf-8")
    assert (tmp_path / "page.rst").read_text(encoding="utf-8") == "Table of j.\n"
