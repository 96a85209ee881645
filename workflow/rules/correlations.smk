"""The rows of each paper table, the combined correlation table, the paper-layout Tables 1-3,
the judge-vs-baseline table and the reproduction figures. A paper table waits only for the
judge runs of its own benchmarks (TABLE_JUDGES), so a run without SummEval's judge files
still makes Tables 2 and 3. The pairwise accuracies are ranked within the rows on the same
items: one job per benchmark places its metrics in those item sets (it waits only for the
judge runs on that benchmark, BENCHMARK_JUDGES). Each job imports its rule function in its
run: block."""


from geval_repro.registry.benchmarks import BENCHMARKS


rule judge_averages:
    """Rows of the paper's averages over subsets (QAGS Average) from paired judge runs."""
    input:
        [LAYOUT.judge_tables(j) / "correlations.csv" for j in TARGETS.averaged],
    output:
        LAYOUT.rows / "judge_averages.csv",
    params:
        correlations={j: LAYOUT.judge_tables(j) / "correlations.csv" for j in TARGETS.averaged},
        specs=TARGETS.specs(TARGETS.averaged),
        entries=TARGETS.entries_of(TARGETS.averaged),
    log:
        LAYOUT.logs / "judge_averages.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_tables import subset_averages

        subset_averages(params.correlations, params.specs, output[0])


rule paper_table_rows:
    """The rows of one paper table, with the printed numbers this run does not recompute."""
    input:
        TARGETS.row_files,
        lambda wildcards: [
            LAYOUT.judge_tables(j) / "correlations.csv" for j in TABLE_JUDGES[int(wildcards.n)]
        ],
    output:
        LAYOUT.rows / "table{n}.csv",
    wildcard_constraints:
        n=one_of(outputs.PAPER_LAYOUTS),
    log:
        LAYOUT.logs / "rows" / "table{n}.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import paper_table_rows

        paper_table_rows(input, int(wildcards.n), output[0])


rule correlations:
    input:
        [LAYOUT.paper_rows(n) for n in outputs.PAPER_LAYOUTS],
    output:
        LAYOUT.pair(LAYOUT.tables / outputs.CORRELATIONS),
    log:
        LAYOUT.logs / "correlations.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import combine

        combine(input, LAYOUT.tables / outputs.CORRELATIONS)


rule significance_vs_baseline:
    """Every judge row against the best recomputed baseline (one job per run makes them)."""
    input:
        [LAYOUT.judge_significance(j) for j in CORRELATED],
    output:
        LAYOUT.pair(LAYOUT.tables / outputs.SIGNIFICANCE_VS_BASELINE),
    log:
        LAYOUT.logs / "significance_vs_baseline.log",
    localrule: True
    run:
        from geval_repro.pipeline.significance import combine_significance

        combine_significance(input, LAYOUT.tables / outputs.SIGNIFICANCE_VS_BASELINE)


rule paper_layout:
    """Paper table n laid out as printed, with its judge cells' tests against the baseline."""
    input:
        rows=LAYOUT.rows / "table{n}.csv",
        significance=lambda wildcards: [
            LAYOUT.judge_significance(j) for j in TABLE_JUDGES[int(wildcards.n)]
        ],
    output:
        LAYOUT.tables / "table{n}_{stem}.md",
    wildcard_constraints:
        n=one_of(outputs.PAPER_LAYOUTS),
        stem=one_of(s.partition("_")[2] for s in outputs.PAPER_LAYOUTS.values()),
    params:
        judges=lambda wildcards: TARGETS.specs(TABLE_JUDGES[int(wildcards.n)]),
        entries=lambda wildcards: TARGETS.entries_of(TABLE_JUDGES[int(wildcards.n)]),
    log:
        LAYOUT.logs / "paper_layout_table{n}_{stem}.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import write_paper_layout

        write_paper_layout(
            input.rows, input.significance, int(wildcards.n), params.judges, output[0]
        )


rule reproduction_figure:
    """Does it reproduce? Every recomputed cell of paper table n against its printed value."""
    input:
        LAYOUT.rows / "table{n}.csv",
    output:
        png=LAYOUT.figures / "reproduction_table{n}_{stem}.png",
        svg=LAYOUT.figures / "reproduction_table{n}_{stem}.svg",
    wildcard_constraints:
        n=one_of(outputs.PAPER_LAYOUTS),
        stem=one_of(s.partition("_")[2] for s in outputs.PAPER_LAYOUTS.values()),
    log:
        LAYOUT.logs / "reproduction_figure_table{n}_{stem}.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import reproduction_figure

        reproduction_figure(input[0], int(wildcards.n), output.png, output.svg)


for _benchmark, _judges in BENCHMARK_JUDGES.items():

    rule:
        """One benchmark's metrics in the item sets their accuracies are ranked within, with
        each set's reference rows (a constant metric, a random order)."""
        name:
            f"accuracy_blocks_{_benchmark}"
        input:
            benchmark_table=LAYOUT.table(_benchmark),
            baseline_scores=LAYOUT.benchmark_baseline_scores(BENCHMARKS[_benchmark]),
            processed=[
                path for tables in TARGETS.processed_of(_judges).values() for path in tables.values()
            ],
        output:
            LAYOUT.accuracy_blocks(_benchmark),
        params:
            benchmark=BENCHMARKS[_benchmark],
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            processed=TARGETS.processed_of(_judges),
            judges=_judges,
        log:
            LAYOUT.logs / "pairwise_accuracy" / f"{_benchmark}.log",
        localrule: True
        run:
            from geval_repro.pipeline.correlations import benchmark_accuracy_blocks

            benchmark_accuracy_blocks(
                params.benchmark,
                input.benchmark_table,
                input.baseline_scores,  # empty for a benchmark without baselines
                params.specs,
                params.processed,
                output[0],
            )


rule pairwise_accuracy:
    """Every metric's acc_eq and tie-calibrated acc*_eq, per benchmark and dimension, ranked
    among the rows on the same items, beside their reference rows."""
    input:
        correlations=LAYOUT.tables / f"{outputs.CORRELATIONS}.csv",
        blocks=[LAYOUT.accuracy_blocks(b) for b in BENCHMARK_JUDGES],
    output:
        LAYOUT.pair(LAYOUT.tables / outputs.PAIRWISE_ACCURACY),
    log:
        LAYOUT.logs / "pairwise_accuracy.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import write_pairwise_accuracy

        write_pairwise_accuracy(
            input.correlations, input.blocks, LAYOUT.tables / outputs.PAIRWISE_ACCURACY
        )


rule paper_tables:
    """Everything about the paper's tables: the combined table, the paper layouts, the
    judge-vs-baseline tests, the reproduction figures and the pairwise accuracies."""
    input:
        rules.correlations.output,
        rules.pairwise_accuracy.output,
        rules.significance_vs_baseline.output,
        [LAYOUT.paper_layout(n) for n in outputs.PAPER_LAYOUTS],
        [path for n in outputs.PAPER_LAYOUTS for path in LAYOUT.reproduction_figure(n)],
