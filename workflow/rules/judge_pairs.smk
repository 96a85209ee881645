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
            job=JOBS.job("judge_pairs:benchmark_pairs"),
            benchmark=TARGETS.benchmarks[_benchmark],
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            processed=TARGETS.processed_of(_judges),
            judges=_judges,
        log:
            LAYOUT.log("judge_pairs", _benchmark),
        run:
            JOBS.run(
                params.job,
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
        job=JOBS.job("judge_pairs:draw_cluster_figure"),
        judges=lambda wildcards: TARGETS.scored_benchmarks[wildcards.benchmark],
    log:
        LAYOUT.log("judge_pairs", "{benchmark}_figure"),
    localrule: True
    run:
        JOBS.run(
            params.job,
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
        job=JOBS.job("judge_pairs:combine_pairs"),
        judges=list(SPECS),
    log:
        LAYOUT.log("pairwise_significance"),
    localrule: True
    run:
        JOBS.run(
            params.job,
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
        LAYOUT.pair(LAYOUT.alt_test) if TARGETS.annotated_benchmarks else [],
        LAYOUT.pair(LAYOUT.soft_pairwise_accuracy) if TARGETS.system_benchmarks else [],
        LAYOUT.pair(LAYOUT.judge_cards) if TARGETS.correlated else [],


rule alt_test:
    """The alternative annotator test of every metric on the benchmarks with individual
    annotators (three or more per item) and a margin epsilon."""
    input:
        benchmark_tables=[LAYOUT.table(b) for b in TARGETS.annotated_benchmarks],
        annotator_tables=[
            LAYOUT.table(TARGETS.benchmarks[b].annotator_table) for b in TARGETS.annotated_benchmarks
        ],
        baseline_scores=[
            path
            for b in TARGETS.annotated_benchmarks
            for path in LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
        ],
        processed=[
            path
            for judges in TARGETS.annotated_benchmarks.values()
            for tables in TARGETS.processed_of(judges).values()
            for path in tables.values()
        ],
    output:
        LAYOUT.pair(LAYOUT.alt_test),
    params:
        job=JOBS.job("judge_cards:alt_test_table"),
        benchmarks={b: TARGETS.benchmarks[b] for b in TARGETS.annotated_benchmarks},
        benchmark_tables={b: LAYOUT.table(b) for b in TARGETS.annotated_benchmarks},
        annotator_tables={
            b: LAYOUT.table(TARGETS.benchmarks[b].annotator_table)
            for b in TARGETS.annotated_benchmarks
        },
        baseline_scores={
            b: LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
            for b in TARGETS.annotated_benchmarks
        },
        specs={b: TARGETS.specs(j) for b, j in TARGETS.annotated_benchmarks.items()},
        processed=TARGETS.processed_of(
            [j for judges in TARGETS.annotated_benchmarks.values() for j in judges]
        ),
        judges=[j for judges in TARGETS.annotated_benchmarks.values() for j in judges],
    log:
        LAYOUT.log("alt_test"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            benchmarks=params.benchmarks,
            benchmark_tables=params.benchmark_tables,
            annotator_tables=params.annotator_tables,
            baseline_scores=params.baseline_scores,
            specs=params.specs,
            processed=params.processed,
            settings=SETTINGS,
            stem=LAYOUT.alt_test,
        )


rule soft_pairwise_accuracy:
    """Soft pairwise accuracy of every metric on the benchmarks whose systems share
    documents."""
    input:
        benchmark_tables=[LAYOUT.table(b) for b in TARGETS.system_benchmarks],
        baseline_scores=[
            path
            for b in TARGETS.system_benchmarks
            for path in LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
        ],
        processed=[
            path
            for judges in TARGETS.system_benchmarks.values()
            for tables in TARGETS.processed_of(judges).values()
            for path in tables.values()
        ],
    output:
        LAYOUT.pair(LAYOUT.soft_pairwise_accuracy),
        LAYOUT.pair(LAYOUT.soft_pairwise_pairs),
    params:
        job=JOBS.job("judge_cards:spa_table"),
        benchmarks={b: TARGETS.benchmarks[b] for b in TARGETS.system_benchmarks},
        benchmark_tables={b: LAYOUT.table(b) for b in TARGETS.system_benchmarks},
        baseline_scores={
            b: LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
            for b in TARGETS.system_benchmarks
        },
        specs={b: TARGETS.specs(j) for b, j in TARGETS.system_benchmarks.items()},
        processed=TARGETS.processed_of(
            [j for judges in TARGETS.system_benchmarks.values() for j in judges]
        ),
        judges=[j for judges in TARGETS.system_benchmarks.values() for j in judges],
    log:
        LAYOUT.log("soft_pairwise_accuracy"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            benchmarks=params.benchmarks,
            benchmark_tables=params.benchmark_tables,
            baseline_scores=params.baseline_scores,
            specs=params.specs,
            processed=params.processed,
            settings=SETTINGS,
            stem=LAYOUT.soft_pairwise_accuracy,
            pairs_stem=LAYOUT.soft_pairwise_pairs,
        )


rule judge_cards:
    """Every judge's card: the table of all judges' numbers and one page and figure each."""
    input:
        correlations=LAYOUT.pair(LAYOUT.correlations)[0],
        vs_baseline=LAYOUT.pair(LAYOUT.significance_vs_baseline)[0],
        ceiling=LAYOUT.row_file("human_ceiling"),
        alt_test=LAYOUT.pair(LAYOUT.alt_test)[0],
        spa=LAYOUT.pair(LAYOUT.soft_pairwise_accuracy)[0],
        power=LAYOUT.pair(LAYOUT.judge_power)[0],
        biases=LAYOUT.pair(LAYOUT.judge_biases)[0],
        reruns=LAYOUT.pair(LAYOUT.rerun_agreement)[:1] if TARGETS.rerun_pairs else [],
        sweep=[LAYOUT.sweeps] if TARGETS.every_swept else [],
        binary_labels=LAYOUT.pair(LAYOUT.binary_labels)[:1] if TARGETS.labelled else [],
        manifests=[p for j in TARGETS.carded for p in LAYOUT.judge_manifest(SPECS[j])],
        preferences=[LAYOUT.writer_vs_llm_preferences(b) for b in TARGETS.preference_benchmarks],
        preference_manifests=[
            p
            for b in TARGETS.preference_benchmarks
            for j in TARGETS.on_benchmark(b)
            for p in LAYOUT.judge_manifest(SPECS[j])
        ],
        processed=[
            path for tables in TARGETS.processed_of(TARGETS.carded).values() for path in tables.values()
        ],
    output:
        LAYOUT.pair(LAYOUT.judge_cards),
        [path for judge in TARGETS.carded for path in LAYOUT.judge_card(judge)],
    params:
        job=JOBS.job("judge_cards:judge_cards"),
        specs=TARGETS.specs(TARGETS.correlated),
        labelled=TARGETS.specs(TARGETS.labelled),
        processed=TARGETS.processed_of(TARGETS.carded),
        cards={judge: LAYOUT.judge_card(judge) for judge in TARGETS.carded},
        tables={
            "correlations": LAYOUT.pair(LAYOUT.correlations)[0],
            "vs_baseline": LAYOUT.pair(LAYOUT.significance_vs_baseline)[0],
            "ceiling": LAYOUT.row_file("human_ceiling"),
            "alt_test": LAYOUT.pair(LAYOUT.alt_test)[0],
            "spa": LAYOUT.pair(LAYOUT.soft_pairwise_accuracy)[0],
            "power": LAYOUT.pair(LAYOUT.judge_power)[0],
            "biases": LAYOUT.pair(LAYOUT.judge_biases)[0],
            **({"reruns": LAYOUT.pair(LAYOUT.rerun_agreement)[0]} if TARGETS.rerun_pairs else {}),
            **({"sweep": LAYOUT.sweeps} if TARGETS.every_swept else {}),
            **({"binary_labels": LAYOUT.pair(LAYOUT.binary_labels)[0]} if TARGETS.labelled else {}),
        },
        manifests={
            j: LAYOUT.judge_manifest(SPECS[j])[0]
            for j in TARGETS.carded
            if LAYOUT.judge_manifest(SPECS[j])
        },
        preferences={b: LAYOUT.writer_vs_llm_preferences(b) for b in TARGETS.preference_benchmarks},
        preference_manifests={
            j: LAYOUT.judge_manifest(SPECS[j])[0]
            for b in TARGETS.preference_benchmarks
            for j in TARGETS.on_benchmark(b)
            if LAYOUT.judge_manifest(SPECS[j])
        },
        judges=TARGETS.carded,
    log:
        LAYOUT.log("judge_cards"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            specs=params.specs,
            processed=params.processed,
            tables=params.tables,
            manifests=params.manifests,
            preferences=params.preferences,
            preference_manifests=params.preference_manifests,
            stem=LAYOUT.judge_cards,
            cards=params.cards,
            labelled=params.labelled,
        )


rule judge_power:
    """Each judge against the best baseline and the human ceiling: paired bootstrap, power."""
    input:
        benchmark_tables=[LAYOUT.table(b) for b in TARGETS.correlated_benchmarks],
        annotator_tables=[
            LAYOUT.table(TARGETS.benchmarks[b].annotator_table)
            for b in TARGETS.correlated_benchmarks
            if TARGETS.benchmarks[b].annotator_table
        ],
        baseline_scores=[
            path
            for b in TARGETS.correlated_benchmarks
            for path in LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
        ],
        processed=[
            path for tables in TARGETS.processed_of(TARGETS.correlated).values() for path in tables.values()
        ],
        vs_baseline=LAYOUT.pair(LAYOUT.significance_vs_baseline)[0],
    output:
        LAYOUT.pair(LAYOUT.judge_power),
    params:
        job=JOBS.job("judge_cards:power_table"),
        benchmarks={b: TARGETS.benchmarks[b] for b in TARGETS.correlated_benchmarks},
        benchmark_tables={b: LAYOUT.table(b) for b in TARGETS.correlated_benchmarks},
        annotator_tables={
            b: LAYOUT.table(TARGETS.benchmarks[b].annotator_table)
            for b in TARGETS.correlated_benchmarks
            if TARGETS.benchmarks[b].annotator_table
        },
        baseline_scores={
            b: LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[b])
            for b in TARGETS.correlated_benchmarks
        },
        specs={b: TARGETS.specs(j) for b, j in TARGETS.correlated_benchmarks.items()},
        processed=TARGETS.processed_of(TARGETS.correlated),
        judges=TARGETS.correlated,
    log:
        LAYOUT.log("judge_power"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            benchmarks=params.benchmarks,
            benchmark_tables=params.benchmark_tables,
            annotator_tables=params.annotator_tables,
            baseline_scores=params.baseline_scores,
            specs=params.specs,
            processed=params.processed,
            vs_baseline=input.vs_baseline,
            settings=SETTINGS,
            stem=LAYOUT.judge_power,
        )


rule judge_biases:
    """What each judge favours (length, parse failures) and its split-half reliability."""
    input:
        benchmark_tables=[LAYOUT.table(b) for b in TARGETS.correlated_benchmarks],
        processed=[
            path for tables in TARGETS.processed_of(TARGETS.correlated).values() for path in tables.values()
        ],
    output:
        LAYOUT.pair(LAYOUT.judge_biases),
    params:
        job=JOBS.job("judge_cards:bias_table"),
        benchmarks={b: TARGETS.benchmarks[b] for b in TARGETS.correlated_benchmarks},
        benchmark_tables={b: LAYOUT.table(b) for b in TARGETS.correlated_benchmarks},
        specs={b: TARGETS.specs(j) for b, j in TARGETS.correlated_benchmarks.items()},
        processed=TARGETS.processed_of(TARGETS.correlated),
        judges=TARGETS.correlated,
    log:
        LAYOUT.log("judge_biases"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            judges=params.judges,
            benchmarks=params.benchmarks,
            benchmark_tables=params.benchmark_tables,
            specs=params.specs,
            processed=params.processed,
            stem=LAYOUT.judge_biases,
        )
