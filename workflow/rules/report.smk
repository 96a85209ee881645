"""What readers get from a run: executed notebooks, the README results section, the report.

- ``notebook``: executes ``notebooks/<name>.ipynb`` against this run's folders into
  ``results/notebooks/<name>.ipynb``.
- ``readme_results``: the README results section generated from results/
  (``results/readme_results.md``); ``snakemake readme`` copies it into README.md between
  the markers.
- ``snakemake --report results/report.html`` (after a run): every table, figure and notebook
  of the run, each with a caption from ``workflow/report/*.rst``, from the pages that the
  jobs ``report_pages_<group>`` write under ``results/report/``
  (geval_repro.pipeline.report_layout says which). Only pages that exist are registered
  (geval_repro.pipeline.report_layout.reported), so the report also works after a keep-going run that
  could not make everything.

Every rule here is a local rule: each is short and none needs a compute node.
"""

from geval_repro.pipeline.report_layout import (
    caption_path,
    notebook_inputs,
    page_groups,
    reported,
)


report: "../report/workflow.rst"


NOTEBOOK_INPUTS = notebook_inputs(LAYOUT, JUDGES)
REPORT_PAGE_GROUPS = page_groups(LAYOUT, JUDGES, rerun_pairs=bool(RERUN_PAIRS))
CAPTION_TEMPLATES = Path(workflow.basedir) / "workflow" / "report"


rule notebooks:
    """Every notebook, executed against this run."""
    input:
        expand(LAYOUT.notebooks / "{notebook}.ipynb", notebook=NOTEBOOK_INPUTS),


rule notebook:
    input:
        notebook="notebooks/{notebook}.ipynb",
        results=lambda wildcards: NOTEBOOK_INPUTS[wildcards.notebook],
    output:
        LAYOUT.notebooks / "{notebook}.ipynb",
    log:
        LAYOUT.logs / "notebooks" / "{notebook}.log",
    wildcard_constraints:
        notebook=one_of(NOTEBOOK_INPUTS),
    localrule: True
    run:
        from geval_repro.pipeline.report_jobs import notebook

        notebook(
            source=input.notebook,
            target=output[0],
            results=LAYOUT.results,
            processed=LAYOUT.processed,
        )


rule readme_results:
    """The README results section, from results/ (see geval_repro.report.readme)."""
    input:
        LAYOUT.tables / f"{outputs.CORRELATIONS}.csv",
        [LAYOUT.paper_layout(n) for n in outputs.PAPER_LAYOUTS],
        [LAYOUT.judge_tables(j) / "correlations.csv" for j in CORRELATED],
        [LAYOUT.judge_tables(j) / f"{t}.csv" for j in SWEPT for t in ("main", "one_reply")],
        [LAYOUT.judge_figures(j) / "sweep_spearman.png" for j in SWEPT],
        [p for p in LAYOUT.human_tables() if p.suffix == ".md"],
        LAYOUT.human_figure.with_suffix(".png"),
        [p for b in PREFERENCE_JUDGES for p in LAYOUT.writer_vs_llm_tables(b)],
        [LAYOUT.writer_vs_llm_figure(b)[0] for b in PREFERENCE_JUDGES],
        "geval_repro/data/sources.yaml",
    output:
        LAYOUT.results / "readme_results.md",
    log:
        LAYOUT.logs / "readme_results.log",
    params:
        labels={name: spec.label for name, spec in JUDGES.items()},
    localrule: True
    run:
        from geval_repro.pipeline.readme import write_section

        write_section(LAYOUT.results, output[0], labels=params.labels)


rule readme:
    """Copy the generated results section into README.md: `snakemake readme`. Refuses a
    results folder outside the repository (a test run must never rewrite the README)."""
    input:
        LAYOUT.results / "readme_results.md",
    log:
        LAYOUT.logs / "readme.log",
    localrule: True
    run:
        from geval_repro.pipeline.readme import copy_section_into_readme

        copy_section_into_readme(input[0], LAYOUT.results, "README.md")


for _group, _pages in REPORT_PAGE_GROUPS.items():
    _captions = {path: caption_path(LAYOUT, path) for path in _pages}

    rule:
        """The report pages of one group, each with its caption rendered for the page (its
        judge run or notebook: geval_repro.report.pages.render_caption)."""
        name:
            f"report_pages_{_group}"
        input:
            [page.source for page in _pages.values()],
        output:
            [
                reported(
                    path,
                    caption=_captions[path],
                    category=page.category,
                    subcategory=page.subcategory,
                )
                for path, page in _pages.items()
            ],
            list(_captions.values()),
        params:
            pages={
                str(path): page.job_spec(CAPTION_TEMPLATES, _captions[path])
                for path, page in _pages.items()
            },
        log:
            LAYOUT.logs / "report" / f"pages_{_group}.log",
        localrule: True
        run:
            from geval_repro.pipeline.report_jobs import report_pages

            report_pages(params.pages, config)


rule report_assets:
    """Everything the report shows (then `snakemake --report results/report.html`)."""
    input:
        [getattr(rules, f"report_pages_{group}").output for group in REPORT_PAGE_GROUPS],
