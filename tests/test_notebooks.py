"""The notebooks: built from notebooks/build_notebooks.py, committed with their outputs, and
executed (nbclient) against a pipeline run on the mirror plus the fixture judge. The shared
pipeline run executes them through its ``notebook`` rule (notebooks/<name>.ipynb, in a fresh
kernel in notebooks/, reading that run's folders: geval_repro.report.notebooks.execute_notebook)
into results/notebooks/; the tests read those executed copies instead of executing the
notebooks a second time, and build the Snakemake report of the same run."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from tests.conftest import PipelineRun, run_snakemake

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO_ROOT / "notebooks"
READER_TARGETS = ("all", "notebooks", "readme", "report_assets")


def _builder():
    spec = importlib.util.spec_from_file_location(
        "build_notebooks", NOTEBOOK_DIR / "build_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILDER = _builder()
NAMES = list(BUILDER.NOTEBOOKS)


@pytest.fixture(scope="session")
def fixture_run(pipeline_run: PipelineRun) -> Path:
    """The shared pipeline run (mirror + fixture judge), readers' outputs included."""
    return pipeline_run.results.parent


def _text_outputs(notebook: nbformat.NotebookNode) -> str:
    """Every stream, Markdown and plain-text output of a notebook, joined."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts.append(output.get("text", "") + data.get("text/markdown", ""))
            parts.append(data.get("text/plain", ""))
    return "\n".join(parts)


def _images(notebook: nbformat.NotebookNode) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in notebook.cells
        for output in cell.get("outputs", [])
    )


def _errors(notebook: nbformat.NotebookNode) -> list[str]:
    return [
        f"{output['ename']}: {output['evalue']}"
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output["output_type"] == "error"
    ]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_is_the_generated_one(name):
    committed = nbformat.read(str(NOTEBOOK_DIR / f"{name}.ipynb"), as_version=4)
    built = BUILDER.build(name)
    assert [(c.cell_type, c.id, c.source) for c in committed.cells] == [
        (c.cell_type, c.id, c.source) for c in built.cells
    ], f"notebooks/{name}.ipynb is stale: run python notebooks/build_notebooks.py --execute"
    assert committed.cells[1].metadata.get("tags") == ["parameters"]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_keeps_its_outputs(name):
    committed = nbformat.read(str(NOTEBOOK_DIR / f"{name}.ipynb"), as_version=4)
    unexecuted = [c.id for c in committed.cells if c.cell_type == "code" and not c.execution_count]
    assert not unexecuted, (
        f"notebooks/{name}.ipynb has cells without outputs {unexecuted}: after a full pipeline "
        "run, run python notebooks/build_notebooks.py --execute"
    )
    assert _errors(committed) == []


def test_an_unknown_notebook_is_an_error_listing_the_notebooks(capsys):
    with pytest.raises(SystemExit) as stopped:
        BUILDER.main(["01_data_tour", "01_data_trip"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "no notebook named 01_data_trip (the notebooks: 01_data_tour, 02_" in err


def test_notebooks_are_written_as_nbformat_writes_them(tmp_path, monkeypatch):
    monkeypatch.setattr(BUILDER, "HERE", tmp_path / "notebooks")
    (tmp_path / "notebooks").mkdir()
    assert BUILDER.main(["03_sweep", "01_data_tour"]) == 0
    for name in ("03_sweep", "01_data_tour"):
        nbformat.write(BUILDER.build(name), str(tmp_path / f"{name}.ipynb"))
        written = (tmp_path / "notebooks" / f"{name}.ipynb").read_bytes()
        assert written == (tmp_path / f"{name}.ipynb").read_bytes()
    assert sorted(p.name for p in (tmp_path / "notebooks").iterdir()) == [
        "01_data_tour.ipynb",
        "03_sweep.ipynb",
    ]


def test_a_rebuild_with_the_same_bytes_keeps_the_notebook_and_its_time(
    tmp_path, monkeypatch, capsys
):
    """build_notebooks.py rewrites a notebook only when its bytes change: the pipeline's
    notebook jobs read notebooks/*.ipynb, so a new time alone would make the next run plan
    them again (a newcomer's rebuild then made 5 jobs out of date)."""
    monkeypatch.setattr(BUILDER, "HERE", tmp_path)
    assert BUILDER.main(["03_sweep"]) == 0
    path = tmp_path / "03_sweep.ipynb"
    old = 1_000_000_000_000_000_000
    os.utime(path, ns=(old, old))
    capsys.readouterr()
    assert BUILDER.main(["03_sweep"]) == 0
    assert path.stat().st_mtime_ns == old
    assert capsys.readouterr().out == f"{path} unchanged\n"
    path.write_text(path.read_text() + " ")  # stale by one byte
    assert BUILDER.main(["03_sweep"]) == 0
    assert path.stat().st_mtime_ns != old and capsys.readouterr().out == f"wrote {path}\n"
    nbformat.write(BUILDER.build("03_sweep"), str(tmp_path / "expected.ipynb"))
    assert path.read_bytes() == (tmp_path / "expected.ipynb").read_bytes()


@pytest.mark.parametrize(
    ("stop", "status", "said"),
    [
        (
            CellExecutionError("...", "FileNotFoundError", "../data/processed/summeval.parquet"),
            1,
            "01_data_tour: a cell failed (FileNotFoundError: ../data/processed/summeval.parquet);"
            " notebooks/01_data_tour.ipynb is left as it was. The notebooks read results/ and "
            "data/processed/ of a pipeline run: if a file they name is missing, run the "
            "pipeline first (README.md), then this again.\n",
        ),
        (
            KeyboardInterrupt(),
            130,
            "stopped in 01_data_tour; notebooks/01_data_tour.ipynb is left as it was\n",
        ),
    ],
    ids=["failing-cell", "ctrl-c"],
)
def test_a_notebook_that_does_not_run_through_is_one_line_and_left_as_it_was(
    tmp_path, monkeypatch, capsys, stop, status, said
):
    def execute(notebook, *, cwd):
        raise stop

    monkeypatch.setattr(BUILDER, "HERE", tmp_path)
    monkeypatch.setattr(BUILDER, "execute_notebook", execute)
    (tmp_path / "01_data_tour.ipynb").write_text("as it was")
    assert BUILDER.main(["--execute", "01_data_tour", "02_summeval_recount"]) == status
    assert capsys.readouterr().err == said
    assert [p.name for p in tmp_path.iterdir()] == ["01_data_tour.ipynb"]
    assert (tmp_path / "01_data_tour.ipynb").read_text() == "as it was"


# What each notebook must say when run against the fixture run (synthetic judge, offline).
EXPECTED = {
    "01_data_tour": [
        "1,600 summaries: 100 documents x 16 systems",
        "360 responses: 60 contexts x 6 responders",
        "= **4.30**",
    ],
    "02_summeval_recount": [
        "`fixture-gpt4` (FIXTURE)",
        "`gpt4-metriceval-run1` (recomputed)",
        "The recount of the released G-Eval-4 replies is not in this folder",
        "FIXTURE: `fixture-gpt4` is synthetic test data",
    ],
    "03_sweep": [
        "Only the fixture judge ran",
        "FIXTURE: `fixture-gpt4` is synthetic test data",
    ],
    "04_topical_chat_qags": ["Rows by benchmark and status"],
    "05_writer_vs_llm": [
        "`fixture-writer-vs-llm` (fixture)",
        "FIXTURE: `fixture-writer-vs-llm` is synthetic test data",
        "No toolkit run in this results folder",
    ],
}
MIN_IMAGES = {
    "01_data_tour": 1,
    "02_summeval_recount": 4,
    "03_sweep": 3,
    "04_topical_chat_qags": 5,
    "05_writer_vs_llm": 1,
}


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_against_the_fixture_run(name, fixture_run):
    """What notebooks/<name>.ipynb says when run against the fixture run (executed by the
    run's ``notebook`` rule)."""
    executed = fixture_run / "results" / "notebooks" / f"{name}.ipynb"
    notebook = nbformat.read(str(executed), as_version=4)
    committed = nbformat.read(str(NOTEBOOK_DIR / f"{name}.ipynb"), as_version=4)
    assert [c.source for c in notebook.cells] == [c.source for c in committed.cells]
    assert all(c.execution_count for c in notebook.cells if c.cell_type == "code")
    assert _errors(notebook) == []
    text = _text_outputs(notebook)
    for expected in EXPECTED[name]:
        assert expected in text
    assert "not in this results folder" not in text  # every file it reads was written
    assert _images(notebook) >= MIN_IMAGES[name]


def test_pipeline_executes_the_notebooks_and_builds_the_report(fixture_run, pipeline_run):
    results = fixture_run / "results"
    for name in NAMES:
        executed = nbformat.read(str(results / "notebooks" / f"{name}.ipynb"), as_version=4)
        assert _errors(executed) == []
        assert all(c.execution_count for c in executed.cells if c.cell_type == "code")
    section = (results / "README.md").read_text(encoding="utf-8")
    assert "> **Fixture run.**" in section
    report = fixture_run / "report.html"
    run_snakemake(
        pipeline_run.data,
        pipeline_run.results,
        pipeline_run.config,
        *READER_TARGETS,
        "--report",
        str(report),
    )
    html = report.read_text(encoding="utf-8")
    assert "Judge fixture-gpt4" in html  # the fixture judge's category
    assert "is <strong>not</strong> part of" in html  # the released recount is not in it
    assert "synthetic test data" in html  # captions and the fixture banner
    # the profile's stylesheet: content from the top left, not centred under the sidebar
    assert "justify-content: flex-start" in html


def test_notebook_data_selection_keeps_one_level_per_plot_and_names_the_status():
    """Notebook 02's selection (its helpers cell holds these functions' source): one
    correlation level per plot, titled with the level and the run's status."""
    import pandas as pd

    rows = pd.DataFrame(
        {
            "benchmark": "summeval",
            "level": ["summary", "summary", "system", "system", "summary"],
            "coefficient": ["spearman", "kendall", "spearman", "kendall", "pearson"],
            "status": "toolkit-run",
            "value": [0.4, 0.3, 0.8, 0.6, 0.5],
        }
    )
    panels = BUILDER.level_panels(rows, ("spearman", "kendall"), ["summary", "system"])
    assert [(level, coefficient) for level, coefficient, _ in panels] == [
        ("summary", "spearman"),
        ("summary", "kendall"),
        ("system", "spearman"),
        ("system", "kendall"),
    ]
    for level, coefficient, part in panels:
        assert set(part["level"]) == {level} and set(part["coefficient"]) == {coefficient}
    assert BUILDER.run_of(rows) == ("summeval", "toolkit-run")
    assert BUILDER.run_of(rows.assign(status="fixture")) == ("summeval", "fixture")
    title = BUILDER.plot_title("r", "toolkit-run", "main", "SummEval", "system", "ρ", "summary")
    assert title == "r (toolkit-run), main: SummEval, system-level ρ (the paper prints none)"
    title = BUILDER.plot_title("f", "fixture", "main", "SummEval", "summary", "ρ", "summary")
    assert title == "f (FIXTURE), main: SummEval, summary-level ρ"
    helpers = BUILDER.build("02_summeval_recount").cells[2].source
    for function in ("run_of", "status_label", "level_panels", "plot_title"):
        assert f"\ndef {function}(" in helpers


def test_committed_notebook_02_shows_summevals_runs_with_their_status_and_level():
    """The committed notebook 02 (executed against results/) heads each SummEval run with
    its status as its correlation rows give it, shows no run of another benchmark as its
    own, and its tables carry the level column."""
    import pandas as pd

    committed = nbformat.read(str(NOTEBOOK_DIR / "02_summeval_recount.ipynb"), as_version=4)
    text = _text_outputs(committed)
    results = REPO_ROOT / "results" / "tables" / "judges"
    for path in sorted(results.glob("*/correlations.csv")):
        rows = pd.read_csv(path)
        benchmark, status = BUILDER.run_of(rows)
        heading = f"### `{path.parent.name}` ({BUILDER.status_label(status)})"
        assert (heading in text) == (benchmark == "summeval"), heading
    assert "`smollm2-135m-summeval` (toolkit-run)" in text
    assert "(recomputed)" not in text.split("### `smollm2-135m-summeval`")[1].split("###")[0]
    assert "`smollm2-135m-qags-xsum` (QAGS-XSum, toolkit-run)" in text  # named as elsewhere
    tables = [
        output["data"]["text/plain"]
        for cell in committed.cells
        for output in cell.get("outputs", [])
        if "text/html" in output.get("data", {}) and "coefficient" in output["data"]["text/plain"]
    ]
    assert tables and all(re.search(r"\blevel\b", table) for table in tables)
