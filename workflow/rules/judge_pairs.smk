"""Judge vs judge: every pair of metrics on a benchmark and dimension, judges and baselines
alike, tested (paired permutation test, Holm's correction within each table), the metrics'
ranking with its significance clusters, and one figure per benchmark. A benchmark's job
waits only for the judges on that benchmark (TARGETS.scored_benchmarks), so a run without
SummEval's judge files still makes the other benchmarks' clusters."""


for _benchmark, _judges in TARGETS.scored_benchmarks.items():

    rule:
        """Every pair of metrics on one benchmark, and their ranking with clusters."""
        name:
            f"judge_pairs_{_benchmark}"
        input:
            benchmark_table=LAYOUT.table(_benchmark),
            baseline_scores=LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[_benchmark]),
            processed=[
                path for tables in TARGETS.processed_of(_judges).values() for path in tables.values()
            ],
        output:
            pairs=LAYOUT.judge_pairs(_benchmark),
            clusters=LAYOUT.significance_clusters(_benchmark),
        params:
            benchmark=TARGETS.benchmarks[_benchmark],
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            processed=TARGETS.processed_of(_judges),
            judges=_judges,
        log:
            LAYOUT.log("judge_pairs", _benchmark),
        run:
            JOBS.run(
                "judge_pairs:benchmark_pairs",
                log,
                input,
                output,
                judges=params.judges,
                benchmark=params.benchmark,
                benchmark_table=input.benchmark_table,
                baseline_scores=input.baseline_scores,  # empty: no baselines
                specs=params.specs,
                processed=params.processed,
                settings=SETTINGS,
                pairs_out=output.pairs,
                clusters_out=output.clusters,
            )


rule significance_clusters_figure:
    """One benchmark's metrics ranked, with their significance clusters."""
    input:
        LAYOUT.significance_clusters("{benchmark}"),
    output:
        LAYOUT.cluster_figure("{benchmark}"),
    wildcard_constraints:
        benchmark=one_of(TARGETS.scored_benchmarks),
    params:
        judges=lambda wildcards: TARGETS.scored_benchmarks[wildcards.benchmark],
    log:
        LAYOUT.log("judge_pairs", "{benchmark}_figure"),
    localrule: True
    run:
        JOBS.run(
            "judge_pairs:draw_cluster_figure",
            log,
            input,
            output,
            judges=params.judges,
            clusters=input[0],
            benchmark=wildcards.benchmark,
            png=output[0],
            svg=output[1],
        )


rule pairwise_significance:
    """Every benchmark's pairs and rankings in two tables."""
    input:
        pairs=[LAYOUT.judge_pairs(b) for b in TARGETS.scored_benchmarks],
        clusters=[LAYOUT.significance_clusters(b) for b in TARGETS.scored_benchmarks],
    output:
        LAYOUT.pair(LAYOUT.pairwise_significance),
        LAYOUT.pair(LAYOUT.clusters),
    params:
        judges=list(SPECS),
    log:
        LAYOUT.log("pairwise_significance"),
    localrule: True
    run:
        JOBS.run(
            "judge_pairs:combine_pairs",
            log,
            input,
            output,
            judges=params.judges,
            pairs=input.pairs,
            clusters=input.clusters,
            pairs_stem=LAYOUT.pairwise_significance,
            clusters_stem=LAYOUT.clusters,
        )


rule judge_pairs:
    """Everything about judge vs judge: the two tables and every benchmark's figure."""
    input:
        rules.pairwise_significance.output,
        [path for b in TARGETS.scored_benchmarks for path in LAYOUT.cluster_figure(b)],
