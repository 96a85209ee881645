"""Tidy, validated tables in data/processed (parquet): one rule for the benchmarks of the
registry, one for the further tables they name, one per judge."""


rule tidy_benchmark:
    """A benchmark's tidy table from its upstream files (geval_repro.load.benchmarks)."""
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        lambda wildcards: [
            LAYOUT.raw_file(s) for s in TARGETS.benchmarks[wildcards.benchmark].sources
        ],
    output:
        LAYOUT.table("{benchmark}"),
    wildcard_constraints:
        benchmark=one_of(TARGETS.benchmarks),
    params:
        job=JOBS.job("tidy:benchmark"),
    log:
        LAYOUT.log("tables", "{benchmark}"),
    run:
        JOBS.run(
            params.job, log, input, output, name=wildcards.benchmark, sources=input, out=output[0]
        )


rule tidy_other_table:
    """A further tidy table of a benchmark (its other_tables: SummEval's references and
    expert ratings, QAGS's MTurk answers) from its upstream file."""
    priority: 10  # SummEval's references are the baselines' inputs: see rows.smk
    input:
        lambda wildcards: LAYOUT.raw_file(TARGETS.other_tables[wildcards.table]),
    output:
        LAYOUT.table("{table}"),
    wildcard_constraints:
        table=one_of(TARGETS.other_tables),
    params:
        job=JOBS.job("tidy:other_table"),
    log:
        LAYOUT.log("tables", "{table}"),
    run:
        JOBS.run(
            params.job, log, input, output, name=wildcards.table, raw=input[0], out=output[0]
        )


# One rule per judge: its processed tables depend on its format (registry.formats).
for _judge, _spec in SPECS.items():

    rule:
        name:
            rule_name("tidy_judge", _judge)
        input:
            list(LAYOUT.judge_files(_spec).values()),
            LAYOUT.judge_manifest(_spec),
            benchmark_table=LAYOUT.table(_spec.benchmark.name),
        output:
            list(LAYOUT.judge_tables_of_files(_spec).values()),
        params:
            job=JOBS.job("tidy:judge_files"),
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            files=LAYOUT.judge_files(_spec),
            outs=LAYOUT.judge_tables_of_files(_spec),
            judges=[_judge],
        log:
            LAYOUT.log("tables", f"judge_{_judge}"),
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                spec=params.spec,
                files=params.files,
                benchmark_table=input.benchmark_table,
                outs=params.outs,
            )


rule tables:
    input:
        [LAYOUT.table(name) for name in (*TARGETS.benchmarks, *TARGETS.other_tables)],
        TARGETS.processed_judge_tables,
