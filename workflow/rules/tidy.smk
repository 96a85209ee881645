"""Tidy, validated tables in data/processed (parquet): one rule for the benchmarks of the
registry, one for the further tables they name, one per judge run.

Each job imports geval_repro.pipeline.tidy (pandas, pandera) in its run: block, not the parse."""

from geval_repro.registry.benchmarks import get_benchmark


rule tidy_benchmark:
    """A benchmark's tidy table from its upstream files (geval_repro.load.benchmarks)."""
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        lambda wildcards: [
            LAYOUT.raw_file(s) for s in get_benchmark(wildcards.benchmark).sources
        ],
    output:
        LAYOUT.processed / "{benchmark}.parquet",
    wildcard_constraints:
        benchmark=one_of(BENCHMARK_NAMES),
    log:
        LAYOUT.logs / "tables" / "{benchmark}.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.benchmark(wildcards.benchmark, input, output[0])


rule tidy_other_table:
    """A further tidy table of a benchmark (its other_tables: SummEval's references and
    expert ratings, QAGS's MTurk answers) from its upstream file."""
    priority: 10  # SummEval's references are the baselines' inputs: see rows.smk
    input:
        lambda wildcards: LAYOUT.raw_file(OTHER_TABLES[wildcards.table]),
    output:
        LAYOUT.processed / "{table}.parquet",
    wildcard_constraints:
        table=one_of(OTHER_TABLES),
    log:
        LAYOUT.logs / "tables" / "{table}.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.other_table(wildcards.table, input[0], output[0])


# One rule per judge run: its processed tables depend on its format (registry.formats).
for _judge, _spec in JUDGES.items():

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
            spec=_spec,
            entries=TARGETS.entries_of([_judge]),
            files=LAYOUT.judge_files(_spec),
            outs=LAYOUT.judge_tables_of_files(_spec),
            judges=[_judge],
        log:
            LAYOUT.logs / "tables" / f"judge_{_judge}.log",
        run:
            from geval_repro.pipeline import tidy

            tidy.judge_run(params.spec, params.files, input.benchmark_table, params.outs)


rule tables:
    input:
        [LAYOUT.table(name) for name in (*BENCHMARK_NAMES, *OTHER_TABLES)],
        TARGETS.processed_judge_tables,
