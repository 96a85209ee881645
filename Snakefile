"""geval-repro: reproduce G-Eval's meta-evaluation (Liu et al., EMNLP 2023).

Run `snakemake --cores 4`. Configuration: workflow/config.yaml (schema in
geval_repro/data/config.schema.yaml); offline use: --config mirror=PATH or
GEVAL_REPRO_MIRROR=PATH.
"""

import sys
from pathlib import Path

from snakemake.utils import min_version

from geval_repro.config import check_config, remote_files
from geval_repro.fetch import resolve_mirror
from geval_repro.joblog import log_every_run, preload_job_libraries

min_version("8.20")


configfile: "workflow/config.yaml"


check_config(config)  # the JSON schema (registry names filled in) and cross-references

DATA = Path(config["data_dir"])
RAW = DATA / "raw"
PROCESSED = DATA / "processed"
RESULTS = Path(config["results_dir"])
LOGS = RESULTS / "logs"
ROOT_TABLES = RESULTS / "tables"
ROOT_FIGURES = RESULTS / "figures"
MIRROR = resolve_mirror(config.get("mirror"))
REMOTES = remote_files(config)
JUDGES = config["judges_to_run"]


include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/judge_runs.smk"
include: "workflow/rules/tidy.smk"
include: "workflow/rules/judges.smk"
include: "workflow/rules/rows.smk"
include: "workflow/rules/correlations.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/export.smk"


rule all:
    default_target: True
    input:
        rules.tables.input,
        rules.judges.input,
        rules.correlations.output,
        rules.paper_layout.output,
        rules.baseline_significance.output,
        rules.reproduction_figure.output,
        rules.human_tables.output,
        rules.notebooks.input,
        rules.readme_results.output,
        rules.report_assets.input,


# Every run: job writes its records, warnings and stderr to its log: file (geval_repro.joblog).
log_every_run(workflow.rules)


onstart:
    # The checkout, packages and config of this run, once (sidecars hold no git commit).
    from geval_repro.provenance import write_run_manifest

    write_run_manifest(RESULTS / "run_manifest.json", config)
    # Jobs run as threads: their large libraries are imported here first, in the main thread.
    preload_job_libraries()


onerror:
    # Once, after the jobs that could run have run (keep-going): what is missing and why.
    from geval_repro.fetch import fetch_failures

    missing, fixes = fetch_failures(LOGS / "fetch", RAW)
    if missing:
        lines = [f"{len(missing)} upstream file(s) could not be fetched:"]
        lines += [f"  - {line}" for line in missing]
        lines += ["Every output not depending on them was made. Fix:"]
        lines += [f"  {fix}" for fix in fixes]
        lines += [f"(details in {LOGS / 'fetch'}/)"]
        print("\n".join(lines), file=sys.stderr)
