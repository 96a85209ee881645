"""geval-repro: reproduce G-Eval's meta-evaluation (Liu et al., EMNLP 2023).

Run `snakemake --cores 4`. Configuration: workflow/config.yaml (schema in
geval_repro/data/config.schema.yaml, reference in docs/configuration.md); offline use:
--config mirror=PATH or GEVAL_REPRO_MIRROR=PATH. Every rule calls one function of
geval_repro.pipeline; paths come from geval_repro.pipeline.layout.
"""

from snakemake.utils import min_version

from geval_repro.config import Settings, check_config, remote_files
from geval_repro.files.fetch import resolve_mirror
from geval_repro.pipeline.jobs import every_job_logged_and_traced
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.targets import Targets

min_version("8.20")


configfile: "workflow/config.yaml"


check_config(config)  # the JSON schema (registry names filled in) and cross-references

LAYOUT = Layout.from_config(config)
SETTINGS = Settings.from_config(config)
MIRROR = resolve_mirror(config.get("mirror"))
REMOTES = remote_files(config)
TARGETS = Targets.from_config(config, LAYOUT)
JUDGES = TARGETS.judges  # name -> geval_repro.registry.judges.JudgeSpec


include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/judge_runs.smk"
include: "workflow/rules/tidy.smk"
include: "workflow/rules/judges.smk"
include: "workflow/rules/rows.smk"
include: "workflow/rules/correlations.smk"
include: "workflow/rules/judge_pairs.smk"
include: "workflow/rules/writer_vs_llm.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/export.smk"


rule all:
    default_target: True
    input:
        rules.tables.input,
        rules.judges.input,
        rules.paper_tables.input,
        rules.judge_pairs.input,
        rules.writer_vs_llm.input,
        rules.human_tables.output,
        rules.notebooks.input,
        rules.readme_results.output,
        rules.report_assets.input,


# Every job writes its records, warnings and stderr to its log: file, and a provenance
# sidecar beside each table and figure it makes (geval_repro.pipeline.jobs).
every_job_logged_and_traced(workflow.rules, config=config, layout=LAYOUT)


onstart:
    # The jobs' pandas strings in Python objects, the run's manifest (the checkout,
    # packages and config, once), the start the closing summary counts from, the jobs'
    # large libraries imported in the main thread, Ctrl-C and SIGTERM passed on to the jobs
    # that run in a process of their own, and no rate limit on job starts on this machine
    # (its timer wakes the scheduler every second).
    from geval_repro.pipeline.jobs import start_workflow

    start_workflow(config, LAYOUT, workflow)


onsuccess:
    # One line: how many of a full run's outputs this run made.
    from geval_repro.pipeline.summary import print_closing_summary

    print_closing_summary(
        rules.all.input, READER_OUTPUTS, layout=LAYOUT, mirror=MIRROR, failed=False
    )


onerror:
    # Once, after the jobs that could run have run (keep-going): what is missing and why.
    from geval_repro.pipeline.summary import print_closing_summary

    print_closing_summary(
        rules.all.input, READER_OUTPUTS, layout=LAYOUT, mirror=MIRROR, fetched=REMOTES
    )
