"""What readers get from a run: executed notebooks, the results page, the report.

- ``notebook``: executes ``notebooks/<name>.ipynb`` against this run's folders into
  ``results/notebooks/<name>.ipynb``.
- ``readme``: the results page (``results/README.md``, which README.md links) generated
  from the results folder (geval_repro.report.readme).
- ``snakemake --report results/report.html`` (after a run): every table, figure and notebook
  of the run, each with a caption from ``workflow/report/*.rst``, from the pages that the
  jobs ``report_pages_<group>`` write under ``results/report/``
  (geval_repro.pipeline.report_layout says which). Only pages that exist are flagged for the
  report (geval_repro.pipeline.report_layout.made), so the report also works after a
  keep-going run that could not make everything.

Every rule here is a local rule: each is short and none needs a compute node.
"""

from geval_repro.pipeline.report_layout import (
    CAPTION_TEMPLATES,
    caption_path,
    made,
    notebook_inputs,
    notebook_source,
    page_groups,
)


report: "../report/workflow.rst"


NOTEBOOK_INPUTS = notebook_inputs(LAYOUT, SPECS)
REPORT_PAGE_GROUPS = page_groups(LAYOUT, SPECS, rerun_pairs=bool(TARGETS.rerun_pairs))


rule notebooks:
    """Every notebook, executed against this run."""
    input:
        [LAYOUT.notebook(name) for name in NOTEBOOK_INPUTS],


rule notebook:
    input:
        notebook=notebook_source("{notebook}"),
        results=lambda wildcards: NOTEBOOK_INPUTS[wildcards.notebook],
    output:
        LAYOUT.notebook("{notebook}"),
    params:
        job=lambda wildcards: JOBS.job(
            "report_jobs:notebook", notebook=notebook_source(wildcards.notebook)
        ),
    log:
        LAYOUT.log("notebooks", "{notebook}"),
    wildcard_constraints:
        notebook=one_of(NOTEBOOK_INPUTS),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            source=input.notebook,
            target=output[0],
            results=LAYOUT.results,
            processed=LAYOUT.processed,
        )


rule readme:
    """The results page, from results/ (see geval_repro.report.readme)."""
    input:
        TARGETS.readme_inputs,
    output:
        LAYOUT.results_page,
    log:
        LAYOUT.log("readme"),
    params:
        job=JOBS.job("readme:write_page"),
        labels={name: spec.label for name, spec in SPECS.items()},
    localrule: True
    run:
        JOBS.run(
            params.job, log, results=LAYOUT.results, out=output[0], labels=params.labels
        )


for _group, _pages in REPORT_PAGE_GROUPS.items():
    _captions = {path: caption_path(LAYOUT, path) for path in _pages}

    rule:
        """The report pages of one group, each with its caption rendered for the page (its
        judge or notebook: geval_repro.report.pages.render_caption)."""
        name:
            f"report_pages_{_group}"
        input:
            [page.source for page in _pages.values()],
        output:
            [
                report(
                    path,
                    caption=_captions[path],
                    category=page.category,
                    subcategory=page.subcategory,
                )
                if made(path)
                else path
                for path, page in _pages.items()
            ],
            list(_captions.values()),
        params:
            job=JOBS.job("report_jobs:report_pages"),
            pages={
                str(path): page.job_spec(CAPTION_TEMPLATES, _captions[path])
                for path, page in _pages.items()
            },
        log:
            LAYOUT.log("report", f"pages_{_group}"),
        localrule: True
        run:
            JOBS.run(params.job, log, pages=params.pages, config=config)


rule report_assets:
    """Everything the report shows (then `snakemake --report results/report.html`)."""
    input:
        [path for pages in REPORT_PAGE_GROUPS.values() for path in pages],
