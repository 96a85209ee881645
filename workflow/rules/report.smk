"""What readers get from a run: executed notebooks, the README results section, the report.

- ``notebook``: executes ``notebooks/<name>.ipynb`` with nbclient against this run's folders
  (``GEVAL_REPRO_RESULTS`` / ``GEVAL_REPRO_PROCESSED``) into ``results/notebooks/<name>.ipynb``.
- ``readme_results``: the README results section generated from results/
  (``results/readme_results.md``); ``snakemake readme`` copies it into README.md between
  the markers.
- ``snakemake --report results/report.html``: every table, figure and notebook of the run,
  each with a caption from ``workflow/report/*.rst``. The report shows files under
  ``results/report/``: tables rendered to HTML (with a banner on fixture tables), copies of
  the figures and the executed notebooks as HTML, so that everything is shown inline.

Every rule here is a local rule: each is short, and none needs a compute node.
"""

import html
import os
import shutil
from pathlib import Path

import nbformat
import pandas as pd
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from geval_repro.atomic import atomic_path, write_text
from geval_repro.readme_results import render_section, update_readme


report: "../report/workflow.rst"


TABLES = RESULTS / "tables"
FIGURES = RESULTS / "figures"
REPORT = RESULTS / "report"
NOTEBOOK_TIMEOUT = 900  # seconds per cell

PROCESSED_TABLES = [
    PROCESSED / f"{name}.parquet"
    for name in (
        "summeval",
        "summeval_references",
        "summeval_experts",
        "topical_chat",
        "qags_cnndm",
        "qags_xsum",
        "qags_mturk_cnndm",
        "qags_mturk_xsum",
    )
]
PAPER_TABLES = ["table1_summeval", "table2_topical_chat", "table3_qags"]
HUMAN_TABLES = ["agreement", "qags_mturk", "score_distributions"]
JUDGE_TABLES = ["main", "one_reply", "diagnostics", "parsers", "rollups"]
JUDGE_FIGURES = ["sweep_spearman", "sweep_kendall", "tie_rate"]


def judge_tables(judge, ext):
    return [TABLES / "judges" / judge / f"{name}.{ext}" for name in JUDGE_TABLES]


def judge_figures(judge, ext="png"):
    return [FIGURES / "judges" / judge / f"{name}.{ext}" for name in JUDGE_FIGURES]


NOTEBOOK_INPUTS = {
    "01_data_tour": PROCESSED_TABLES,
    "02_summeval_recount": [
        TABLES / "correlations.csv",
        TABLES / "table1_summeval.md",
        *(t for j in JUDGES for t in judge_tables(j, "csv") + judge_tables(j, "md")),
    ],
    "03_sweep": [
        TABLES / "sweep.csv",
        *(TABLES / "judges" / j / "sweep.csv" for j in JUDGES),
        *(f for j in JUDGES for f in judge_figures(j)),
    ],
    "04_topical_chat_qags": [
        TABLES / "correlations.csv",
        TABLES / "table2_topical_chat.md",
        TABLES / "table3_qags.md",
        *(TABLES / "human" / f"{name}.md" for name in HUMAN_TABLES),
        FIGURES / "human_distributions.png",
    ],
}

# Report entries: (file shown, caption in workflow/report/, category, subcategory).
REPORT_TABLES = {
    "correlations": ("correlations.rst", "Tables: ours vs the paper", "All rows"),
    **{
        name: (f"{name}.rst", "Tables: ours vs the paper", "Paper layout")
        for name in PAPER_TABLES
    },
    **{
        f"human/{name}": (f"human_{name}.rst", "Human judgements", "Tables")
        for name in HUMAN_TABLES
    },
}
REPORT_FIGURES = {
    "human_distributions": ("human_distributions.rst", "Human judgements", "Figures"),
}

HTML_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #bbb; padding: 2px 6px; text-align: right; }}
th {{ background: #eee; }}
.fixture {{ background: #fdd; border: 2px solid #c00; padding: 0.5em; font-weight: bold; }}
</style></head>
<body>
{body}
</body></html>
"""
FIXTURE_BANNER = (
    '<p class="fixture">FIXTURE: rows with status "fixture" come from synthetic test data '
    "(tests/fixtures), not from the released replies. They are not results.</p>"
)


def has_fixture_rows(csv_path):
    """Whether a table's CSV twin has rows with status ``fixture``."""
    if not os.path.isfile(csv_path):
        return False
    table = pd.read_csv(csv_path)
    return "status" in table.columns and bool((table["status"] == "fixture").any())


def render_table_page(md_path, csv_path, out_path):
    """An HTML page of a Markdown table, naming its source files; fixture tables get a banner."""
    body = [f"<p>Source: <code>{html.escape(str(md_path))}</code>"]
    if os.path.isfile(csv_path):
        body.append(f" (machine-readable: <code>{html.escape(str(csv_path))}</code>)")
    body.append("</p>")
    if has_fixture_rows(csv_path):
        body.append(FIXTURE_BANNER)
    body.append(markdown2html_mistune(Path(md_path).read_text(encoding="utf-8")))
    write_text(out_path, HTML_PAGE.format(title=html.escape(Path(md_path).name), body="".join(body)))


def execute_notebook(source, target, results_dir, processed_dir):
    """Run a notebook top to bottom in the notebooks/ folder against the given folders."""
    notebook = nbformat.read(source, as_version=4)
    env = {
        **os.environ,
        "GEVAL_REPRO_RESULTS": str(Path(results_dir).resolve()),
        "GEVAL_REPRO_PROCESSED": str(Path(processed_dir).resolve()),
        "MPLBACKEND": "Agg",
    }
    client = NotebookClient(
        notebook,
        timeout=NOTEBOOK_TIMEOUT,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(Path(source).parent)}},
    )
    client.execute(env=env)
    with atomic_path(target) as temporary:
        nbformat.write(notebook, str(temporary))


rule notebooks:
    """Every notebook, executed against this run."""
    input:
        expand(RESULTS / "notebooks" / "{notebook}.ipynb", notebook=NOTEBOOK_INPUTS),


rule notebook:
    input:
        notebook="notebooks/{notebook}.ipynb",
        results=lambda wildcards: NOTEBOOK_INPUTS[wildcards.notebook],
    output:
        RESULTS / "notebooks" / "{notebook}.ipynb",
    wildcard_constraints:
        notebook="|".join(NOTEBOOK_INPUTS),
    localrule: True
    run:
        execute_notebook(input.notebook, output[0], RESULTS, PROCESSED)


rule readme_results:
    """The README results section, from results/ (see geval_repro.readme_results)."""
    input:
        TABLES / "correlations.csv",
        *(TABLES / f"{name}.md" for name in PAPER_TABLES),
        *(TABLES / "judges" / j / "main.csv" for j in JUDGES),
        *(TABLES / "judges" / j / "main.md" for j in JUDGES),
        *(TABLES / "human" / f"{name}.md" for name in HUMAN_TABLES),
        FIGURES / "human_distributions.png",
        "data/sources.yaml",
    output:
        RESULTS / "readme_results.md",
    localrule: True
    run:
        write_text(output[0], render_section(RESULTS, link=os.path.relpath(RESULTS)))


rule readme:
    """Copy the generated results section into README.md: `snakemake readme`."""
    input:
        RESULTS / "readme_results.md",
    localrule: True
    run:
        if update_readme("README.md", Path(input[0]).read_text(encoding="utf-8")):
            print("README.md: results section updated")


rule report_assets:
    """Everything the report shows (`snakemake --report results/report.html` after a run)."""
    input:
        expand(REPORT / "tables" / "{table}.html", table=REPORT_TABLES),
        expand(REPORT / "figures" / "{figure}.png", figure=REPORT_FIGURES),
        expand(
            REPORT / "tables" / "judges" / "{judge}" / "{table}.html",
            judge=JUDGES,
            table=JUDGE_TABLES,
        ),
        expand(
            REPORT / "figures" / "judges" / "{judge}" / "{figure}.png",
            judge=JUDGES,
            figure=JUDGE_FIGURES,
        ),
        expand(REPORT / "notebooks" / "{notebook}.html", notebook=NOTEBOOK_INPUTS),


for key, (caption, category, subcategory) in REPORT_TABLES.items():

    rule:
        name:
            f"report_table_{key.replace('/', '_')}"
        input:
            md=TABLES / f"{key}.md",
        output:
            report(
                REPORT / "tables" / f"{key}.html",
                caption=f"../report/{caption}",
                category=category,
                subcategory=subcategory,
            ),
        params:
            csv=TABLES / f"{key}.csv",
        localrule: True
        run:
            render_table_page(input.md, params.csv, output[0])


for key, (caption, category, subcategory) in REPORT_FIGURES.items():

    rule:
        name:
            f"report_figure_{key}"
        input:
            FIGURES / f"{key}.png",
        output:
            report(
                REPORT / "figures" / f"{key}.png",
                caption=f"../report/{caption}",
                category=category,
                subcategory=subcategory,
            ),
        localrule: True
        run:
            shutil.copyfile(input[0], output[0])


for table in JUDGE_TABLES:

    rule:
        name:
            f"report_judge_{table}"
        input:
            md=TABLES / "judges" / "{judge}" / f"{table}.md",
        output:
            report(
                REPORT / "tables" / "judges" / "{judge}" / f"{table}.html",
                caption=f"../report/judge_{table}.rst",
                category="SummEval recount: {judge}",
                subcategory="Tables",
            ),
        params:
            csv=lambda wildcards, table=table: TABLES / "judges" / wildcards.judge / f"{table}.csv",
        wildcard_constraints:
            judge="[^/]+",
        localrule: True
        run:
            render_table_page(input.md, params.csv, output[0])


for figure in JUDGE_FIGURES:

    rule:
        name:
            f"report_judge_{figure}"
        input:
            FIGURES / "judges" / "{judge}" / f"{figure}.png",
        output:
            report(
                REPORT / "figures" / "judges" / "{judge}" / f"{figure}.png",
                caption=f"../report/judge_{figure}.rst",
                category="SummEval recount: {judge}",
                subcategory="Figures",
            ),
        wildcard_constraints:
            judge="[^/]+",
        localrule: True
        run:
            shutil.copyfile(input[0], output[0])


rule report_notebook:
    input:
        RESULTS / "notebooks" / "{notebook}.ipynb",
    output:
        report(
            REPORT / "notebooks" / "{notebook}.html",
            caption="../report/notebook.rst",
            category="Notebooks",
        ),
    localrule: True
    run:
        body, _ = HTMLExporter(template_name="basic").from_filename(input[0])
        write_text(output[0], HTML_PAGE.format(title=wildcards.notebook, body=body))
