"""Judge vs judge: every pair of metrics on a benchmark and dimension, judges and baselines
alike, tested (paired permutation test, Holm's correction within each table), the metrics'
ranking with its significance clusters, and one figure per benchmark. A benchmark's job
waits only for the judge runs on that benchmark (BENCHMARK_JUDGES), so a run without
SummEval's judge files still makes the other benchmarks' clusters. Each job imports its
step in its run: block."""


from geval_repro.registry.benchmarks import BENCHMARKS


for _benchmark, _judges in BENCHMARK_JUDGES.items():

    rule:
        """Every pair of metrics on one benchmark, and their ranking with clusters."""
        name:
            f"judge_pairs_{_benchmark}"
        input:
            benchmark_table=LAYOUT.table(_benchmark),
            baseline_scores=LAYOUT.benchmark_baseline_scores(BENCHMARKS[_benchmark]),
            processed=[
                path for tables in TARGETS.processed_of(_judges).values() for path in tables.values()
            ],
        output:
            pairs=LAYOUT.judge_pairs(_benchmark),
            clusters=LAYOUT.significance_clusters(_benchmark),
        params:
            benchmark=BENCHMARKS[_benchmark],
            entries=TARGETS.entries_of(_judges),
            processed=TARGETS.processed_of(_judges),
            judges=_judges,
        log:
            LAYOUT.logs / "judge_pairs" / f"{_benchmark}.log",
        run:
            from geval_repro.pipeline.judge_pairs import benchmark_pairs_job

            benchmark_pairs_job(
                benchmark=params.benchmark.name,
                benchmark_table=input.benchmark_table,
                baseline_scores=list(input.baseline_scores),  # empty: no baselines
                judges=params.judges,
                processed=params.processed,
                config=config,
                pairs_out=output.pairs,
                clusters_out=output.clusters,
            )


rule significance_clusters_figure:
    """One benchmark's metrics ranked, with their significance clusters."""
    input:
        LAYOUT.significance_clusters("{benchmark}"),
    output:
        png=LAYOUT.cluster_figure("{benchmark}")[0],
        svg=LAYOUT.cluster_figure("{benchmark}")[1],
    wildcard_constraints:
        benchmark=one_of(BENCHMARK_JUDGES),
    params:
        judges=lambda wildcards: BENCHMARK_JUDGES[wildcards.benchmark],
    log:
        LAYOUT.logs / "judge_pairs" / "{benchmark}_figure.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_pairs import cluster_figure_job

        cluster_figure_job(
            clusters=input[0], benchmark=wildcards.benchmark, png=output.png, svg=output.svg
        )


rule pairwise_significance:
    """Every benchmark's pairs and rankings in two tables."""
    input:
        pairs=[LAYOUT.judge_pairs(b) for b in BENCHMARK_JUDGES],
        clusters=[LAYOUT.significance_clusters(b) for b in BENCHMARK_JUDGES],
    output:
        LAYOUT.pair(LAYOUT.tables / outputs.PAIRWISE_SIGNIFICANCE),
        LAYOUT.pair(LAYOUT.tables / outputs.SIGNIFICANCE_CLUSTERS),
    params:
        judges=list(JUDGES),
    log:
        LAYOUT.logs / "pairwise_significance.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_pairs import combine_pairs

        combine_pairs(
            input.pairs,
            input.clusters,
            LAYOUT.tables / outputs.PAIRWISE_SIGNIFICANCE,
            LAYOUT.tables / outputs.SIGNIFICANCE_CLUSTERS,
        )


rule judge_pairs:
    """Everything about judge vs judge: the two tables and every benchmark's figure."""
    input:
        rules.pairwise_significance.output,
        [path for b in BENCHMARK_JUDGES for path in LAYOUT.cluster_figure(b)],
