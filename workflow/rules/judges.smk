"""Judges: per-item scores, result tables, the tests against the best baseline, the sweep
and its figures."""


rule judge_item_scores:
    input:
        LAYOUT.judge_table("{judge}", "replies"),
        manifests=lambda wildcards: LAYOUT.judge_manifest(SPECS[wildcards.judge]),
    output:
        LAYOUT.judge_table("{judge}", "item_scores"),
    wildcard_constraints:
        judge=one_of(TARGETS.with_replies),
    params:
        job=JOBS.job("judge_tables:build_item_scores"),
        judges=lambda wildcards: [wildcards.judge],
        answers=lambda wildcards: SPECS[wildcards.judge].answers,
    log:
        LAYOUT.log("judges", "{judge}_item_scores"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            replies_path=input[0],
            out=output[0],
            manifests=list(input.manifests),
            answers=params.answers,
        )


# One rule per judge: its result tables depend on what its format yields.
for _judge, _spec in SPECS.items():

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
            job=JOBS.job("judge_tables:write_result_tables"),
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            processed=LAYOUT.judge_processed(_spec),
            run_files=LAYOUT.judge_rating_files(_spec),
            out=LAYOUT.judge_tables(_judge),
            judges=[_judge],
        log:
            LAYOUT.log("judges", f"{_judge}_tables"),
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                spec=params.spec,
                processed=params.processed,
                benchmark_table=input.benchmark_table,
                settings=SETTINGS,
                out_dir=params.out,
                run_files=params.run_files,
            )


# One rule per judge with correlation rows: its tests against the best baselines.
for _judge in TARGETS.correlated:
    _spec = SPECS[_judge]

    rule:
        """The judge's rows against the best recomputed baseline: paired permutation tests."""
        name:
            rule_name("judge_significance", _judge)
        input:
            **LAYOUT.judge_processed(_spec),
            benchmark_table=LAYOUT.table(_spec.benchmark.name),
            baseline_rows=LAYOUT.row_file("baselines"),
            baseline_scores=LAYOUT.benchmark_baseline_scores(_spec.benchmark),
        output:
            LAYOUT.judge_significance(_judge),
        params:
            job=JOBS.job("significance:judge_significance"),
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            processed=LAYOUT.judge_processed(_spec),
            judges=[_judge],
        log:
            LAYOUT.log("judges", f"{_judge}_significance"),
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                spec=params.spec,
                processed=params.processed,
                benchmark_table=input.benchmark_table,
                baseline_rows=input.baseline_rows,
                baseline_scores=input.baseline_scores,  # empty: no baselines
                settings=SETTINGS,
                out=output[0],
            )


rule judge_sweep:
    input:
        replies=LAYOUT.judge_table("{judge}", "replies"),
        benchmark_table=lambda wildcards: LAYOUT.table(SPECS[wildcards.judge].benchmark.name),
    output:
        LAYOUT.sweep("{judge}"),
    wildcard_constraints:
        judge=one_of(TARGETS.every_swept),
    params:
        job=JOBS.job("judge_tables:sweep_table"),
        judges=lambda wildcards: [wildcards.judge],
        spec=lambda wildcards: SPECS[wildcards.judge],
    log:
        LAYOUT.log("judges", "{judge}_sweep"),
    threads: 1
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            spec=params.spec,
            replies_path=input.replies,
            benchmark_table=input.benchmark_table,
            settings=SETTINGS,
            out=output[0],
        )


rule judge_sweep_figures:
    input:
        LAYOUT.sweep("{judge}"),
    output:
        LAYOUT.sweep_figures("{judge}"),
    wildcard_constraints:
        judge=one_of(TARGETS.swept),
    params:
        job=JOBS.job("judge_tables:draw_sweep_figures"),
        entries=lambda wildcards: TARGETS.entries_of([wildcards.judge]),
        spec=lambda wildcards: SPECS[wildcards.judge],
        out=lambda wildcards: LAYOUT.judge_figures(wildcards.judge),
        judges=lambda wildcards: [wildcards.judge],
    log:
        LAYOUT.log("judges", "{judge}_sweep_figures"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            sweep_path=input[0],
            spec=params.spec,
            out_dir=params.out,
        )


rule judge_label_sweep_figures:
    input:
        LAYOUT.sweep("{judge}"),
    output:
        LAYOUT.label_sweep_figures("{judge}"),
    wildcard_constraints:
        judge=one_of(TARGETS.label_swept),
    params:
        job=JOBS.job("judge_tables:draw_label_sweep_figures"),
        entries=lambda wildcards: TARGETS.entries_of([wildcards.judge]),
        spec=lambda wildcards: SPECS[wildcards.judge],
        out=lambda wildcards: LAYOUT.judge_figures(wildcards.judge),
        judges=lambda wildcards: [wildcards.judge],
    log:
        LAYOUT.log("judges", "{judge}_label_sweep_figures"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            sweep_path=input[0],
            spec=params.spec,
            out_dir=params.out,
        )


rule rerun_agreement:
    input:
        scores=[LAYOUT.judge_table(j, "scores") for pair in TARGETS.rerun_pairs for j in pair],
        benchmarks=TARGETS.rerun_benchmark_tables,
    output:
        LAYOUT.pair(LAYOUT.rerun_agreement),
    params:
        job=JOBS.job("rerun_agreement:rerun_agreement"),
        pairs=TARGETS.rerun_pairs,
        specs=TARGETS.specs(TARGETS.scored),
        entries=TARGETS.entries_of(TARGETS.scored),
        scores={j: LAYOUT.judge_table(j, "scores") for j in TARGETS.scored},
        tables={j: LAYOUT.table(SPECS[j].benchmark.name) for j in TARGETS.scored},
    log:
        LAYOUT.log("rerun_agreement"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            pairs=params.pairs,
            specs=params.specs,
            scores_paths=params.scores,
            benchmark_tables=params.tables,
            settings=SETTINGS,
            stem=LAYOUT.rerun_agreement,
        )


rule sweep_all:
    input:
        [LAYOUT.sweep(judge) for judge in TARGETS.every_swept],
    output:
        LAYOUT.sweeps,
    params:
        job=JOBS.job("judge_tables:combine_sweeps"),
    log:
        LAYOUT.log("sweep_all"),
    localrule: True
    run:
        JOBS.run(params.job, log, input, output, parts=input, out=output[0])


rule judges:
    input:
        [LAYOUT.judge_outputs(spec) for spec in SPECS.values()],
        [rules.rerun_agreement.output] if TARGETS.rerun_pairs else [],
        [rules.sweep_all.output] if TARGETS.every_swept else [],
