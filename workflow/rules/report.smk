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
  One job per group of pages (``report_pages_<group>``: the run's tables and figures, each
  judge run's, each notebook) writes them, with their captions rendered for each page under
  ``results/report/captions/``. Only pages that exist are registered
  (geval_repro.report_flags.reported), so the report also works after a keep-going run that
  could not make everything: it shows the groups whose sources were all made.

Uses RESULTS, LOGS, PROCESSED, ROOT_TABLES, ROOT_FIGURES, JUDGES (Snakefile) and WITH_REPLIES,
PAPER_LAYOUTS, HUMAN_TABLES, RERUN_PAIRS (common.smk); each report entry needs its caption in
workflow/report/. The helpers live in geval_repro.report_pages and .readme_results (imported
in the run: blocks: parsing the workflow imports neither nbconvert nor pandas). Every rule
here is a local rule: each is short and none needs a compute node.
"""

import os
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


# Every page of the report, by group and path under results/report/: the run's tables
# (HTML) and figures (copies), each judge run's tables and figures, the executed notebooks
# (HTML). One job per group: a group's pages take milliseconds, a judge run whose files
# could not be made (a keep-going run) costs only its own pages, and each notebook's page
# (~1 s of HTML conversion) is made as soon as that notebook has run.
CAPTION_TEMPLATES = Path(workflow.basedir) / "workflow" / "report"
REPORT_PAGE_GROUPS = {
    "main": {
        **{
            str(REPORT_DIR / "tables" / f"{key}.html"): report_page(
                "table", ROOT_TABLES / f"{table}.md", key, category, subcategory,
                csv=ROOT_TABLES / f"{table}.csv",
            )
            for key, (table, category, subcategory) in REPORT_TABLES.items()
        },
        **{
            str(REPORT_DIR / "figures" / f"{key}.png"): report_page(
                "figure", ROOT_FIGURES / f"{figure}.png", key, category, subcategory
            )
            for key, (figure, category, subcategory) in REPORT_FIGURES.items()
        },
    },
    **{
        f"judge_{judge}".replace("-", "_").replace(".", "_"): {
            **{
                str(REPORT_DIR / "tables" / "judges" / judge / f"{table}.html"): report_page(
                    "table", ROOT_TABLES / "judges" / judge / f"{table}.md", f"judge_{table}",
                    f"Judge run {judge}", "Tables",
                    csv=ROOT_TABLES / "judges" / judge / f"{table}.csv", judge=judge,
                )
                for table in tables
            },
            **{
                str(REPORT_DIR / "figures" / "judges" / judge / f"{figure}.png"): report_page(
                    "figure", ROOT_FIGURES / "judges" / judge / f"{figure}.png",
                    f"judge_{figure}", f"Judge run {judge}", "Figures", judge=judge,
                )
                for figure in figures
            },
        }
        for judge, (tables, figures) in REPORT_JUDGE_FILES.items()
    },
    **{
        f"notebook_{notebook}": {
            str(REPORT_DIR / "notebooks" / f"{notebook}.html"): report_page(
                "notebook", RESULTS / "notebooks" / f"{notebook}.ipynb", "notebook",
                "Notebooks", notebook=notebook,
            )
        }
        for notebook in NOTEBOOK_INPUTS
    },
}


for group, pages in REPORT_PAGE_GROUPS.items():
    captions = {path: report_caption(path) for path in pages}

    rule:
        """The report pages of one group, each with its caption.

        A job has no {judge} or {notebook} wildcard for a caption template to read, so it
        renders each page's caption itself (geval_repro.report_pages.render_caption: the
        same template, judge run and config) beside the pages, and each page is registered
        with its rendered caption, category and subcategory."""
        name:
            f"report_pages_{group}"
        input:
            [page["source"] for page in pages.values()],
        output:
            [
                reported(
                    path,
                    caption=captions[path],
                    category=page["category"],
                    subcategory=page["subcategory"],
                )
                for path, page in pages.items()
            ],
            list(captions.values()),
        params:
            pages={path: {**page, "caption": str(captions[path])} for path, page in pages.items()},
        log:
            LOGS / "report" / f"pages_{group}.log",
        localrule: True
        run:
            from geval_repro.report_pages import write_report_pages

            write_report_pages(params.pages, config)


rule report_assets:
    """Everything the report shows (then `snakemake --report results/report.html`)."""
    input:
        [getattr(rules, f"report_pages_{group}").output for group in REPORT_PAGE_GROUPS],
