"""Judge runs: per-item scores, result tables, the tests against the best baseline, the
sweep and its figures. Each job imports its rule function in its run: block, so parsing the workflow
imports no pandas, scipy or matplotlib."""


rule judge_item_scores:
    input:
        LAYOUT.processed / "judges" / "{judge}" / "replies.parquet",
    output:
        LAYOUT.processed / "judges" / "{judge}" / "item_scores.parquet",
    wildcard_constraints:
        judge=one_of(WITH_REPLIES),
    params:
        judges=lambda wildcards: [wildcards.judge],
    log:
        LAYOUT.logs / "judges" / "{judge}_item_scores.log",
    run:
        from geval_repro.pipeline import judge_tables

        judge_tables.build_item_scores(input[0], output[0])


# One rule per judge run: its result tables depend on what its format yields.
for _judge, _spec in JUDGES.items():

    rule:
        name:
            rule_name("judge_tables", _judge)
        input:
            **LAYOUT.judge_processed(_spec),
            benchmark_table=LAYOUT.table(_spec.benchmark.name),
            run_files=list(LAYOUT.judge_rating_files(_spec).values()),
        output:
            LAYOUT.judge_result_files(_spec),
        params:
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            processed=LAYOUT.judge_processed(_spec),
            run_files=LAYOUT.judge_rating_files(_spec),
            judges=[_judge],
        log:
            LAYOUT.logs / "judges" / f"{_judge}_tables.log",
        run:
            from geval_repro.pipeline import judge_tables

            judge_tables.result_tables_job(
                judge=params.spec.name,
                processed=params.processed,
                benchmark_table=input.benchmark_table,
                config=config,
                out_dir=LAYOUT.judge_tables(params.spec.name),
                run_files=params.run_files,
            )


# One rule per run with correlation rows: its tests against the best baselines.
for _judge in CORRELATED:
    _spec = JUDGES[_judge]

    rule:
        """The run's rows against the best recomputed baseline: paired permutation tests."""
        name:
            rule_name("judge_significance", _judge)
        input:
            **LAYOUT.judge_processed(_spec),
            benchmark_table=LAYOUT.table(_spec.benchmark.name),
            baseline_rows=LAYOUT.rows / "baselines.csv",
            baseline_scores=LAYOUT.benchmark_baseline_scores(_spec.benchmark),
        output:
            LAYOUT.judge_significance(_judge),
        params:
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            processed=LAYOUT.judge_processed(_spec),
            judges=[_judge],
        log:
            LAYOUT.logs / "judges" / f"{_judge}_significance.log",
        run:
            from geval_repro.pipeline.significance import significance_job

            significance_job(
                judge=params.spec.name,
                processed=params.processed,
                benchmark_table=input.benchmark_table,
                baseline_rows=input.baseline_rows,
                baseline_scores=list(input.baseline_scores),  # empty: no baselines
                config=config,
                out=output[0],
            )


rule judge_sweep:
    input:
        replies=LAYOUT.processed / "judges" / "{judge}" / "replies.parquet",
        benchmark_table=lambda wildcards: LAYOUT.table(JUDGES[wildcards.judge].benchmark.name),
    output:
        LAYOUT.tables / "judges" / "{judge}" / "sweep.csv",
    wildcard_constraints:
        judge=one_of(SWEPT),
    params:
        judges=lambda wildcards: [wildcards.judge],
    log:
        LAYOUT.logs / "judges" / "{judge}_sweep.log",
    threads: 1
    run:
        from geval_repro.pipeline import judge_tables

        judge_tables.sweep_job(
            replies_path=input.replies,
            benchmark_table=input.benchmark_table,
            config=config,
            out=output[0],
        )


rule judge_sweep_figures:
    input:
        LAYOUT.tables / "judges" / "{judge}" / "sweep.csv",
    output:
        expand(
            LAYOUT.figures / "judges" / "{{judge}}" / "{name}.{ext}",
            name=SWEEP_FIGURES,
            ext=["png", "svg"],
        ),
    wildcard_constraints:
        judge=one_of(SWEPT),
    params:
        entries=lambda wildcards: TARGETS.entries_of([wildcards.judge]),
        out=lambda wildcards: LAYOUT.judge_figures(wildcards.judge),
        judges=lambda wildcards: [wildcards.judge],
    log:
        LAYOUT.logs / "judges" / "{judge}_sweep_figures.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_tables import sweep_figures_job

        sweep_figures_job(
            sweep_path=input[0],
            judge=wildcards.judge,
            entry=config["judges"][wildcards.judge],
            out_dir=params.out,
        )


rule rerun_agreement:
    input:
        scores=[LAYOUT.processed / "judges" / j / "scores.parquet" for pair in RERUN_PAIRS for j in pair],
        benchmarks=sorted({LAYOUT.table(JUDGES[j].benchmark.name) for pair in RERUN_PAIRS for j in pair}),
    output:
        LAYOUT.pair(LAYOUT.tables / outputs.RERUN_AGREEMENT),
    params:
        pairs=RERUN_PAIRS,
        specs=TARGETS.specs(SCORED),
        entries=TARGETS.entries_of(SCORED),
        scores={j: LAYOUT.processed / "judges" / j / "scores.parquet" for j in SCORED},
        tables={j: LAYOUT.table(JUDGES[j].benchmark.name) for j in SCORED},
    log:
        LAYOUT.logs / "rerun_agreement.log",
    run:
        from geval_repro.pipeline.rerun_agreement import rerun_agreement

        rerun_agreement(
            params.pairs,
            params.specs,
            params.scores,
            params.tables,
            SETTINGS,
            LAYOUT.tables / outputs.RERUN_AGREEMENT,
        )


rule sweep_all:
    input:
        [LAYOUT.judge_tables(judge) / "sweep.csv" for judge in SWEPT],
    output:
        LAYOUT.tables / f"{outputs.SWEEP}.csv",
    log:
        LAYOUT.logs / "sweep_all.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_tables import combine_sweeps

        combine_sweeps(input, output[0])


rule judges:
    input:
        [LAYOUT.judge_outputs(spec) for spec in JUDGES.values()],
        [rules.rerun_agreement.output] if RERUN_PAIRS else [],
        [rules.sweep_all.output] if SWEPT else [],
