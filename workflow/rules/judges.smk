"""Judge runs: per-item scores, correlation tables, diagnostics, the sweep and its figures.

Each job imports its step in its run: block, so parsing the workflow imports no pandas,
scipy or matplotlib."""

rule judge_item_scores:
    input:
        PROCESSED / "judges" / "{judge}" / "replies.parquet",
    output:
        PROCESSED / "judges" / "{judge}" / "item_scores.parquet",
    log:
        LOGS / "judges" / "{judge}_item_scores.log",
    run:
        from geval_repro.pipeline import judge_tables

        judge_tables.build_item_scores(input[0], output[0])
        trace(output, input, judges=[wildcards.judge])


# One rule per judge run: its result tables depend on what its format yields.
for _judge in JUDGES:

    rule:
        name:
            f"judge_tables_{re.sub(r'[^A-Za-z0-9_]', '_', _judge)}"
        input:
            **judge_processed(_judge),
            human=human_table(_judge),
        output:
            judge_result_files(_judge),
        params:
            judge=_judge,
            spec=judge_spec(_judge),
            processed=judge_processed(_judge),
            out=JUDGE_TABLES / _judge,
        log:
            LOGS / "judges" / f"{_judge}_tables.log",
        run:
            from geval_repro.pipeline import judge_tables

            judge_tables.judge_tables(
                params.judge, params.spec, params.processed, input.human, config, params.out
            )
            trace(output, input, judges=[params.judge])


rule judge_sweep:
    input:
        replies=PROCESSED / "judges" / "{judge}" / "replies.parquet",
        human=lambda wildcards: human_table(wildcards.judge),
    output:
        JUDGE_TABLES / "{judge}" / "sweep.csv",
    log:
        LOGS / "judges" / "{judge}_sweep.log",
    threads: 1
    run:
        from geval_repro.pipeline import judge_tables

        judge_tables.sweep_table(input.replies, input.human, config, output[0])
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
        spec=lambda wildcards: judge_spec(wildcards.judge),
        out=lambda wildcards: ROOT_FIGURES / "judges" / wildcards.judge,
    log:
        LOGS / "judges" / "{judge}_sweep_figures.log",
    localrule: True
    run:
        from geval_repro.figures import sweep_figures

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
    run:
        from geval_repro.pipeline.rerun_agreement import rerun_agreement

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
        [JUDGE_TABLES / judge / "sweep.csv" for judge in WITH_REPLIES],
    output:
        ROOT_TABLES / "sweep.csv",
    log:
        LOGS / "sweep_all.log",
    localrule: True
    run:
        from geval_repro.table_files import concat_csv

        concat_csv(input, output[0])
        trace(output, input)


rule judges:
    input:
        [judge_outputs(judge) for judge in JUDGES],
        [rules.rerun_agreement.output] if RERUN_PAIRS else [],
        [rules.sweep_all.output] if WITH_REPLIES else [],


