"""geval-repro: reproduce G-Eval's meta-evaluation (Liu et al., EMNLP 2023).

Run `snakemake --cores 4`. Configuration: workflow/config.yaml (schema in
geval_repro/data/config.schema.yaml, reference in docs/configuration.md); offline use:
--config mirror=PATH or GEVAL_REPRO_MIRROR=PATH. The workflow imports geval_repro.config and
geval_repro.pipeline only: every path comes from LAYOUT (geval_repro.pipeline.layout), every
list and wildcard constraint from TARGETS (geval_repro.pipeline.targets), and every rule's
run: block is one call, JOBS.run(params.job, ...), of a function of geval_repro.pipeline, which
runs in a process of its own and writes the rule's log: file (geval_repro.pipeline.jobs); the
rule's params.job, JOBS.job("<module>:<function>"), carries the digest of the code it runs, so
a change of that code reruns the job (geval_repro.pipeline.code_digest).
"""

from snakemake.utils import min_version

from geval_repro.config import Settings, check_config
from geval_repro.pipeline.jobs import Jobs, stop_on_config_error
from geval_repro.pipeline.layout import Layout, one_of, rule_name
from geval_repro.pipeline.targets import Targets

min_version("8.20.7")


configfile: "workflow/config.yaml"


# A bad config or a missing mirror folder: its message alone, no traceback.
with stop_on_config_error():
    check_config(config)  # the JSON schema (registry names filled in) and cross-references
    LAYOUT = Layout.from_config(config)
    SETTINGS = Settings.from_config(config)
    TARGETS = Targets.from_config(config, LAYOUT)
    JOBS = Jobs.from_config(config, LAYOUT)
SPECS = TARGETS.judges  # judge name -> its geval_repro.registry.judges.JudgeSpec


include: "workflow/rules/fetch.smk"
include: "workflow/rules/judge_runner.smk"
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
        rules.binary_label_table.output,
        rules.notebooks.input,
        rules.readme.output,
        rules.report_assets.input,


onstart:
    # The run's manifest (the checkout, packages and config, once), the start the closing
    # summary counts from, and Ctrl-C and SIGTERM passed on to the jobs' processes.
    from geval_repro.pipeline.jobs import start_workflow

    start_workflow(config, LAYOUT, TARGETS.mirror)


onsuccess:
    # One line: how many of a full run's outputs this run made.
    from geval_repro.pipeline.summary import print_closing_summary

    print_closing_summary(
        rules.all.input, TARGETS.reader_outputs, layout=LAYOUT, mirror=TARGETS.mirror, failed=False
    )


onerror:
    # Once, after the jobs that could run have run (keep-going): what is missing and why.
    from geval_repro.pipeline.summary import print_closing_summary

    print_closing_summary(
        rules.all.input,
        TARGETS.reader_outputs,
        layout=LAYOUT,
        mirror=TARGETS.mirror,
        fetched=TARGETS.remotes,
    )
