"""What readers get from a run: executed notebooks, the README results section, the report.

- ``notebook``: executes ``notebooks/<name>.ipynb`` with nbclient against this run's folders
  (``GEVAL_REPRO_RESULTS`` / ``GEVAL_REPRO_PROCESSED``) into ``results/notebooks/<name>.ipynb``.
- ``readme_results``: the README results section generated from results/
  (``results/readme_results.md``); ``snakemake readme`` copies it into README.md between
  the markers.
- ``snakemake --report results/report.html`` (after a run): every table, figure and notebook
  of the run, each with a caption from ``workflow/report/*.rst``. The report shows files
  under ``results/report/``: tables rendered to HTML (with a banner on fixture tables),
  copies of the figures and the executed notebooks as HTML, so everything shows inline.
  Only pages that exist are registered (geval_repro.report_flags.reported), so the report
  also works after a keep-going run that could not make everything.

Uses RESULTS, LOGS, PROCESSED, ROOT_TABLES, ROOT_FIGURES, JUDGES (Snakefile) and WITH_REPLIES,
PAPER_LAYOUTS, HUMAN_TABLES, RERUN_PAIRS (common.smk); each report entry needs its caption in
workflow/report/. The helpers live in geval_repro.report_pages and .readme_results (imported
in the run: blocks: parsing the workflow imports neither nbconvert nor pandas). Every rule
here is a local rule: each is short and none needs a compute node.
"""

import os
import shutil
from pathlib import Path

from geval_repro.judge.formats import RESULTS as FORMAT_RESULTS
from geval_repro.report_flags import reported


report: "../report/workflow.rst"


REPORT_DIR = RESULTS / "report"
# Tables of a judge run with a caption each (workflow/report/judge_<name>.rst): every result
# table any format yields (geval_repro.judge.formats), and the sweep figures.
REPORT_JUDGE_TABLES = list(dict.fromkeys(t for tables in FORMAT_RESULTS.values() for t in tables))
REPORT_JUDGE_FIGURES = list(SWEEP_FIGURES)


# Per judge run: the captioned tables it writes and its figures (only runs with replies have
# a sweep), from the format registry.
REPORT_JUDGE_FILES = {
    judge: (
        list(result_tables(judge_spec(judge))),
        REPORT_JUDGE_FIGURES if has_replies(judge_spec(judge)) else [],
    )
    for judge in JUDGES
}


NOTEBOOK_INPUTS = {
    "01_data_tour": [
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
    ],
    "02_summeval_recount": [
        ROOT_TABLES / "correlations.csv",
        ROOT_TABLES / "table1_summeval.md",
        *(
            ROOT_TABLES / "judges" / j / f"{name}.{ext}"
            for j in JUDGES
            for name in REPORT_JUDGE_FILES[j][0]
            for ext in ("csv", "md")
        ),
    ],
    "03_sweep": [
        *(ROOT_TABLES / "judges" / j / "sweep.csv" for j in WITH_REPLIES),
        # it finds the runs through their correlations.csv (readme_results.judges_in)
        *(ROOT_TABLES / "judges" / j / "correlations.csv" for j in WITH_REPLIES),
        *(
            ROOT_FIGURES / "judges" / j / f"{name}.png"
            for j in WITH_REPLIES
            for name in REPORT_JUDGE_FILES[j][1]
        ),
    ],
    "04_topical_chat_qags": [
        ROOT_TABLES / "correlations.csv",
        ROOT_TABLES / "table2_topical_chat.md",
        ROOT_TABLES / "table3_qags.md",
        *(ROOT_TABLES / "human" / f"{name}.md" for name in HUMAN_TABLES),
        ROOT_FIGURES / "human_distributions.png",
    ],
}

# Report entries outside the judge runs: key -> (table under results/tables, without its
# extension; category; subcategory). The caption of entry KEY is workflow/report/KEY.rst.
REPORT_TABLES = {
    "correlations": ("correlations", "Tables: ours vs the paper", "All rows"),
    **{
        name: (name, "Tables: ours vs the paper", "Paper layout")
        for name in PAPER_LAYOUTS.values()
    },
    "significance_vs_baseline": (
        "significance_vs_baseline",
        "Tables: ours vs the paper",
        "Judges vs the best baseline",
    ),
    **(
        {"rerun_agreement": ("rerun_agreement", "Judge runs", "Run-to-run agreement")}
        if RERUN_PAIRS
        else {}
    ),
    **{
        f"human_{name}": (f"human/{name}", "Human judgements", "Tables")
        for name in HUMAN_TABLES
    },
}
REPORT_FIGURES = {
    "reproduction": ("reproduction", "Tables: ours vs the paper", "Does it reproduce?"),
    "human_distributions": ("human_distributions", "Human judgements", "Figures"),
}


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
    log:
        LOGS / "notebooks" / "{notebook}.log",
    benchmark:
        LOGS / "benchmarks" / "notebooks" / "{notebook}.tsv",
    wildcard_constraints:
        notebook="|".join(NOTEBOOK_INPUTS),
    localrule: True
    run:
        from geval_repro.report_pages import execute_notebook_file

        execute_notebook_file(
            input.notebook, output[0], results_dir=RESULTS, processed_dir=PROCESSED
        )


rule readme_results:
    """The README results section, from results/ (see geval_repro.readme_results)."""
    input:
        ROOT_TABLES / "correlations.csv",
        *(ROOT_TABLES / f"{name}.md" for name in PAPER_LAYOUTS.values()),
        *(ROOT_TABLES / "judges" / j / "correlations.csv" for j in JUDGES),
        *(
            ROOT_TABLES / "judges" / j / f"{t}.csv"
            for j in WITH_REPLIES
            for t in ("main", "one_reply")
        ),
        *(ROOT_FIGURES / "judges" / j / "sweep_spearman.png" for j in WITH_REPLIES),
        *(ROOT_TABLES / "human" / f"{name}.md" for name in HUMAN_TABLES),
        ROOT_FIGURES / "human_distributions.png",
        "geval_repro/data/sources.yaml",
    output:
        RESULTS / "readme_results.md",
    log:
        LOGS / "readme_results.log",
    params:
        labels={name: config["judges"][name]["label"] for name in JUDGES},
    localrule: True
    run:
        from geval_repro.atomic import write_text
        from geval_repro.readme_results import render_section

        section = render_section(RESULTS, link=os.path.relpath(RESULTS), labels=params.labels)
        write_text(output[0], section)


rule readme:
    """Copy the generated results section into README.md: `snakemake readme`. Refuses a
    results folder outside the repository (a test run must never rewrite the README)."""
    input:
        RESULTS / "readme_results.md",
    log:
        LOGS / "readme.log",
    localrule: True
    run:
        from geval_repro.readme_results import results_link, update_readme

        results_link(RESULTS, "README.md")
        if update_readme("README.md", Path(input[0]).read_text(encoding="utf-8")):
            print("README.md: results section updated")


rule report_assets:
    """Everything the report shows (then `snakemake --report results/report.html`)."""
    input:
        expand(REPORT_DIR / "tables" / "{table}.html", table=REPORT_TABLES),
        expand(REPORT_DIR / "figures" / "{figure}.png", figure=REPORT_FIGURES),
        [
            REPORT_DIR / "tables" / "judges" / j / f"{name}.html"
            for j in JUDGES
            for name in REPORT_JUDGE_FILES[j][0]
        ],
        [
            REPORT_DIR / "figures" / "judges" / j / f"{name}.png"
            for j in JUDGES
            for name in REPORT_JUDGE_FILES[j][1]
        ],
        expand(REPORT_DIR / "notebooks" / "{notebook}.html", notebook=NOTEBOOK_INPUTS),


for key, (table, category, subcategory) in REPORT_TABLES.items():

    rule:
        name:
            f"report_table_{key}"
        input:
            md=ROOT_TABLES / f"{table}.md",
        output:
            reported(
                REPORT_DIR / "tables" / f"{key}.html",
                caption=f"../report/{key}.rst",
                category=category,
                subcategory=subcategory,
            ),
        params:
            csv=ROOT_TABLES / f"{table}.csv",
        log:
            LOGS / "report" / f"table_{key}.log",
        localrule: True
        run:
            from geval_repro.report_pages import table_page

            table_page(input.md, params.csv, output[0])


for key, (figure, category, subcategory) in REPORT_FIGURES.items():

    rule:
        name:
            f"report_figure_{key}"
        input:
            ROOT_FIGURES / f"{figure}.png",
        output:
            reported(
                REPORT_DIR / "figures" / f"{key}.png",
                caption=f"../report/{key}.rst",
                category=category,
                subcategory=subcategory,
            ),
        log:
            LOGS / "report" / f"figure_{key}.log",
        localrule: True
        run:
            shutil.copyfile(input[0], output[0])


# One rule per judge run and page, its {judge} wildcard constrained to that run (captions read
# snakemake.wildcards.judge), so that each page's report flag follows its own file.
for judge, (tables, figures) in REPORT_JUDGE_FILES.items():
    for table in tables:

        rule:
            name:
                f"report_judge_{table}_{judge}".replace("-", "_").replace(".", "_")
            input:
                md=ROOT_TABLES / "judges" / "{judge}" / f"{table}.md",
            output:
                reported(
                    REPORT_DIR / "tables" / "judges" / "{judge}" / f"{table}.html",
                    made=REPORT_DIR / "tables" / "judges" / judge / f"{table}.html",
                    caption=f"../report/judge_{table}.rst",
                    category="Judge run {judge}",
                    subcategory="Tables",
                ),
            params:
                csv=lambda wildcards, table=table: (
                    ROOT_TABLES / "judges" / wildcards.judge / f"{table}.csv"
                ),
            log:
                LOGS / "report" / "judges" / "{judge}" / f"{table}.log",
            wildcard_constraints:
                judge=re.escape(judge),
            localrule: True
            run:
                from geval_repro.report_pages import table_page

                table_page(input.md, params.csv, output[0])

    for figure in figures:

        rule:
            name:
                f"report_judge_{figure}_{judge}".replace("-", "_").replace(".", "_")
            input:
                ROOT_FIGURES / "judges" / "{judge}" / f"{figure}.png",
            output:
                reported(
                    REPORT_DIR / "figures" / "judges" / "{judge}" / f"{figure}.png",
                    made=REPORT_DIR / "figures" / "judges" / judge / f"{figure}.png",
                    caption=f"../report/judge_{figure}.rst",
                    category="Judge run {judge}",
                    subcategory="Figures",
                ),
            log:
                LOGS / "report" / "judges" / "{judge}" / f"{figure}.log",
            wildcard_constraints:
                judge=re.escape(judge),
            localrule: True
            run:
                shutil.copyfile(input[0], output[0])


for notebook in NOTEBOOK_INPUTS:

    rule:
        name:
            f"report_notebook_{notebook}"
        input:
            RESULTS / "notebooks" / "{notebook}.ipynb",
        output:
            reported(
                REPORT_DIR / "notebooks" / "{notebook}.html",
                made=REPORT_DIR / "notebooks" / f"{notebook}.html",
                caption="../report/notebook.rst",
                category="Notebooks",
            ),
        log:
            LOGS / "report" / "notebooks" / "{notebook}.log",
        wildcard_constraints:
            notebook=re.escape(notebook),
        localrule: True
        run:
            from geval_repro.report_pages import notebook_page

            notebook_page(input[0], output[0])
