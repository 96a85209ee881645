"""geval-repro: reproduce G-Eval's meta-evaluation (Liu et al., EMNLP 2023).

Run `snakemake --cores 4`. Configuration: workflow/config.yaml (schema in
geval_repro/data/config.schema.yaml, reference in docs/configuration.md); offline use:
--config mirror=PATH or GEVAL_REPRO_MIRROR=PATH. Every rule calls one function of
geval_repro.pipeline; paths come from geval_repro.pipeline.layout.
"""

from snakemake.utils import min_version

from geval_repro.config import Settings, check_config, remote_files
from geval_repro.files.fetch import resolve_mirror
from geval_repro.pipeline.jobs import every_job_logged_and_traced, preload_job_libraries
from geval_repro.pipeline.layout import Layout

min_version("8.20")


configfile: "workflow/config.yaml"


check_config(config)  # the JSON schema (registry names filled in) and cross-references

LAYOUT = Layout.from_config(config)
SETTINGS = Settings.from_config(config)
MIRROR = resolve_mirror(config.get("mirror"))
REMOTES = remote_files(config)
JUDGES = {judge: config["judges"][judge] for judge in config["judges_to_run"]}


include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/judge_runs.smk"
include: "workflow/rules/tidy.smk"
include: "workflow/rules/judges.smk"
include: "workflow/rules/rows.smk"
include: "workflow/rules/correlations.smk"
include: "workflow/rules/judge_pairs.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/export.smk"


rule all:
    default_target: True
    input:
        rules.tables.input,
        rules.judges.input,
        rules.paper_tables.input,
        rules.judge_pairs.input,
        rules.human_tables.output,
        rules.notebooks.input,
        rules.readme_results.output,
        rules.report_assets.input,


# Every job writes its records, warnings and stderr to its log: file, and a provenance
# sidecar beside each table and figure it makes (geval_repro.pipeline.jobs).
every_job_logged_and_traced(workflow.rules, config=config, layout=LAYOUT)


onstart:
    # The checkout, packages and config of this run, once (sidecars hold no git commit).
    from geval_repro.pipeline.summary import start_run
    from geval_repro.report.provenance import write_run_manifest

    # The closing summary speaks of this run only: what it wrote after its manifest.
    start_run(LAYOUT, write_run_manifest(LAYOUT.results / "run_manifest.json", config))
    # Jobs run as threads: their large libraries are imported here first, in the main thread.
    preload_job_libraries()


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
