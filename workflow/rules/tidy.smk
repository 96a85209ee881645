"""Tidy, validated tables in data/processed (parquet): one rule for the benchmarks of the
registry, one per other upstream table, one per judge run.

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


rule tidy_summeval_references:
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        LAYOUT.raw_file("summeval_multiref"),
    output:
        LAYOUT.table("summeval_references"),
    log:
        LAYOUT.logs / "tables" / "summeval_references.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.summeval_references(input[0], output[0])


rule tidy_summeval_experts:
    input:
        LAYOUT.raw_file("metriceval_scores"),
    output:
        LAYOUT.table("summeval_experts"),
    log:
        LAYOUT.logs / "tables" / "summeval_experts.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.summeval_experts(input[0], output[0])


rule tidy_qags_mturk:
    input:
        lambda wildcards: LAYOUT.raw_file(f"qags_mturk_{wildcards.subset}"),
    output:
        LAYOUT.processed / "qags_mturk_{subset}.parquet",
    wildcard_constraints:
        subset="cnndm|xsum",
    log:
        LAYOUT.logs / "tables" / "qags_mturk_{subset}.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.qags_mturk(input[0], wildcards.subset, output[0])


# One rule per judge run: its processed tables depend on its format (registry.formats).
for _judge, _spec in JUDGES.items():

    rule:
        name:
            rule_name("tidy_judge", _judge)
        input:
            list(LAYOUT.judge_files(config, _judge).values()),
            LAYOUT.judge_manifest(config, _judge),
            benchmark_table=LAYOUT.table(_spec["benchmark"]),
        output:
            list(LAYOUT.judge_tables_of_files(_judge, _spec).values()),
        params:
            judge=_judge,
            spec=_spec,
            files=LAYOUT.judge_files(config, _judge),
            outs=LAYOUT.judge_tables_of_files(_judge, _spec),
            judges=[_judge],
        log:
            LAYOUT.logs / "tables" / f"judge_{_judge}.log",
        run:
            from geval_repro.pipeline import tidy

            tidy.judge_run(
                params.judge, params.spec, params.files, input.benchmark_table, params.outs
            )


rule tables:
    input:
        [LAYOUT.table(name) for name in (*BENCHMARK_NAMES, "summeval_references")],
        [LAYOUT.table(name) for name in ("summeval_experts", "qags_mturk_cnndm", "qags_mturk_xsum")],
        [
            path
            for judge, spec in JUDGES.items()
            for path in LAYOUT.judge_tables_of_files(judge, spec).values()
        ],
