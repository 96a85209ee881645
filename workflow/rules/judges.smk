"""Judge runs: per-item scores, correlation tables, diagnostics, the sweep and its figures."""

from geval_repro.figures import sweep_figures
from geval_repro.pipeline import judge_tables
from geval_repro.table_files import concat_csv
from geval_repro.pipeline.rerun_agreement import rerun_agreement

rule judge_item_scores:
    input:
        PROCESSED / "judges" / "{judge}" / "replies.parquet",
    output:
        PROCESSED / "judges" / "{judge}" / "item_scores.parquet",
    log:
        LOGS / "judges" / "{judge}_item_scores.log",
    benchmark:
        LOGS / "benchmarks" / "judges" / "{judge}_item_scores.tsv",
    run:
        judge_tables.build_item_scores(input[0], output[0])
        trace(output, input, judges=[wildcards.judge])


rule judge_released_tables:
    input:
        item_scores=PROCESSED / "judges" / "{judge}" / "item_scores.parquet",
        replies=PROCESSED / "judges" / "{judge}" / "replies.parquet",
        summeval=PROCESSED / "summeval.parquet",
    output:
        expand(JUDGE_TABLES / "{{judge}}" / "{name}.{ext}", name=RELEASED_TABLES, ext=["csv", "md"]),
    wildcard_constraints:
        judge=one_of(RELEASED),
    params:
        spec=lambda wildcards: config["judges"][wildcards.judge],
        out=lambda wildcards: JUDGE_TABLES / wildcards.judge,
    log:
        LOGS / "judges" / "{judge}_tables.log",
    benchmark:
        LOGS / "benchmarks" / "judges" / "{judge}_tables.tsv",
    run:
        judge_tables.released_tables(wildcards.judge, params.spec, *input, config, params.out)
        trace(output, input, judges=[wildcards.judge])


rule judge_scores_tables:
    input:
        scores=PROCESSED / "judges" / "{judge}" / "scores.parquet",
        summeval=PROCESSED / "summeval.parquet",
    output:
        JUDGE_TABLES / "{judge}" / "correlations.csv",
        JUDGE_TABLES / "{judge}" / "correlations.md",
    wildcard_constraints:
        judge=one_of(SCORED),
    params:
        spec=lambda wildcards: config["judges"][wildcards.judge],
        out=lambda wildcards: JUDGE_TABLES / wildcards.judge,
    log:
        LOGS / "judges" / "{judge}_tables.log",
    benchmark:
        LOGS / "benchmarks" / "judges" / "{judge}_tables.tsv",
    run:
        judge_tables.scores_tables(wildcards.judge, params.spec, *input, config, params.out)
        trace(output, input, judges=[wildcards.judge])


rule judge_sweep:
    input:
        replies=PROCESSED / "judges" / "{judge}" / "replies.parquet",
        summeval=PROCESSED / "summeval.parquet",
    output:
        JUDGE_TABLES / "{judge}" / "sweep.csv",
    log:
        LOGS / "judges" / "{judge}_sweep.log",
    benchmark:
        LOGS / "benchmarks" / "judges" / "{judge}_sweep.tsv",
    threads: 1
    run:
        judge_tables.sweep_table(input.replies, input.summeval, config, output[0])
        trace(output, input, judges=[wildcards.judge])


rule judge_sweep_figures:
    input:
        JUDGE_TABLES / "{judge}" / "sweep.csv",
    output:
        expand(
            ROOT_FIGURES / "judges" / "{{judge}}" / "{name}.{ext}",
            name=SWEEP_FIGURES,
            ext=["png", "svg"],
        ),
    params:
        spec=lambda wildcards: config["judges"][wildcards.judge],
        out=lambda wildcards: ROOT_FIGURES / "judges" / wildcards.judge,
    log:
        LOGS / "judges" / "{judge}_sweep_figures.log",
    benchmark:
        LOGS / "benchmarks" / "judges" / "{judge}_sweep_figures.tsv",
    localrule: True
    run:
        sweep_figures(input[0], spec=params.spec, out_dir=params.out)
        trace(output, input, judges=[wildcards.judge])


rule rerun_agreement:
    input:
        scores=[
            PROCESSED / "judges" / name / "scores.parquet" for pair in RERUN_PAIRS for name in pair
        ],
        summeval=PROCESSED / "summeval.parquet",
    output:
        ROOT_TABLES / "rerun_agreement.csv",
        ROOT_TABLES / "rerun_agreement.md",
    log:
        LOGS / "rerun_agreement.log",
    benchmark:
        LOGS / "benchmarks" / "rerun_agreement.tsv",
    run:
        rerun_agreement(
            RERUN_PAIRS,
            {name: PROCESSED / "judges" / name / "scores.parquet" for name in SCORED},
            input.summeval,
            config,
            ROOT_TABLES / "rerun_agreement",
        )
        trace(output, input)


rule sweep_all:
    input:
        [JUDGE_TABLES / judge / "sweep.csv" for judge in RELEASED],
    output:
        ROOT_TABLES / "sweep.csv",
    log:
        LOGS / "sweep_all.log",
    localrule: True
    run:
        concat_csv(input, output[0])
        trace(output, input)


rule judges:
    input:
        [judge_outputs(judge) for judge in JUDGES],
        [rules.rerun_agreement.output] if RERUN_PAIRS else [],
        [rules.sweep_all.output] if RELEASED else [],


