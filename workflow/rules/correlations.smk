"""The rows of each paper table, the combined correlation table, the paper-layout Tables 1-3,
the laid-out tables of the benchmarks the paper does not report, the judge-vs-baseline table and the reproduction figures. A paper table waits only for the
judges of its own benchmarks (TARGETS.in_table), so a run without SummEval's judge files
still makes Tables 2 and 3. The pairwise accuracies are ranked within the rows on the same
items: one job per benchmark places its metrics in those item sets (it waits only for the
judges on that benchmark)."""


rule judge_averages:
    """Rows of the paper's averages over subsets (QAGS Average) from paired judges."""
    input:
        [LAYOUT.judge_correlations(j) for j in TARGETS.averaged],
    output:
        LAYOUT.row_file("judge_averages"),
    params:
        job=JOBS.job("judge_tables:subset_averages"),
        correlations={j: LAYOUT.judge_correlations(j) for j in TARGETS.averaged},
        specs=TARGETS.specs(TARGETS.averaged),
        entries=TARGETS.entries_of(TARGETS.averaged),
    log:
        LAYOUT.log("judge_averages"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            correlations=params.correlations,
            specs=params.specs,
            out=output[0],
        )


for _number in TARGETS.paper_tables:
    _judges = TARGETS.in_table(_number)

    rule:
        """The rows of one paper table, with the printed numbers this run does not
        recompute."""
        name:
            f"paper_table_rows_{_number}"
        input:
            TARGETS.row_files,
            [LAYOUT.judge_correlations(j) for j in _judges],
        output:
            LAYOUT.paper_rows(_number),
        params:
            job=JOBS.job("correlations:paper_table_rows"),
            number=_number,
        log:
            LAYOUT.log("rows", f"table{_number}"),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                parts=input,
                number=params.number,
                out=output[0],
            )

    rule:
        """Paper table n laid out as printed, with its judge cells' tests against the
        baseline."""
        name:
            f"paper_layout_{_number}"
        input:
            rows=LAYOUT.paper_rows(_number),
            significance=[LAYOUT.judge_significance(j) for j in _judges],
        output:
            LAYOUT.pair(LAYOUT.paper_layout_stem(_number)),
        params:
            job=JOBS.job("correlations:write_paper_layout"),
            number=_number,
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            stem=LAYOUT.paper_layout_stem(_number),
        log:
            LAYOUT.log(f"paper_layout_table{_number}"),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                rows=input.rows,
                significance=input.significance,
                number=params.number,
                specs=params.specs,
                stem=params.stem,
            )

    rule:
        """Does it reproduce? Every recomputed cell of paper table n against its printed
        value."""
        name:
            f"reproduction_figure_{_number}"
        input:
            LAYOUT.paper_rows(_number),
        output:
            LAYOUT.reproduction_figure(_number),
        params:
            job=JOBS.job("correlations:reproduction_figure"),
            number=_number,
        log:
            LAYOUT.log(f"reproduction_figure_table{_number}"),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                rows=input[0],
                number=params.number,
                png=output[0],
                svg=output[1],
            )


rule beyond_paper_rows:
    """The rows of the benchmarks with per-item human scores that no paper table prints."""
    input:
        TARGETS.row_files,
        [LAYOUT.judge_correlations(j) for j in TARGETS.beyond_paper],
    output:
        LAYOUT.beyond_paper_rows(),
    params:
        job=JOBS.job("correlations:beyond_paper_rows"),
    log:
        LAYOUT.log("rows", "beyond_paper"),
    localrule: True
    run:
        JOBS.run(params.job, log, input, output, parts=input, out=output[0])


for _benchmark, _entry in TARGETS.beyond_paper_benchmarks.items():
    _judges = TARGETS.on_benchmark(_benchmark)

    rule:
        """A benchmark the paper does not report laid out in its tables' style, with its
        judge cells' tests against the baseline."""
        name:
            f"benchmark_layout_{_benchmark}"
        input:
            rows=LAYOUT.beyond_paper_rows(),
            significance=[LAYOUT.judge_significance(j) for j in _judges],
        output:
            LAYOUT.pair(LAYOUT.benchmark_layout(_benchmark)),
        params:
            job=JOBS.job("correlations:write_benchmark_layout"),
            benchmark=_entry,
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            stem=LAYOUT.benchmark_layout(_benchmark),
        log:
            LAYOUT.log("benchmark_layout", _benchmark),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                rows=input.rows,
                significance=input.significance,
                benchmark=params.benchmark,
                specs=params.specs,
                stem=params.stem,
            )


rule correlations:
    input:
        [LAYOUT.paper_rows(n) for n in TARGETS.paper_tables],
        LAYOUT.beyond_paper_rows(),
    output:
        LAYOUT.pair(LAYOUT.correlations),
    params:
        job=JOBS.job("correlations:combine"),
    log:
        LAYOUT.log("correlations"),
    localrule: True
    run:
        JOBS.run(
            params.job, log, input, output, parts=input, stem=LAYOUT.correlations
        )


rule significance_vs_baseline:
    """Every judge row against the best recomputed baseline (one job per judge makes them)."""
    input:
        [LAYOUT.judge_significance(j) for j in TARGETS.correlated],
    output:
        LAYOUT.pair(LAYOUT.significance_vs_baseline),
    params:
        job=JOBS.job("significance:combine_significance"),
    log:
        LAYOUT.log("significance_vs_baseline"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            parts=input,
            stem=LAYOUT.significance_vs_baseline,
        )


for _benchmark, _judges in TARGETS.scored_benchmarks.items():

    rule:
        """One benchmark's metrics in the item sets their accuracies are ranked within, with
        each set's reference rows (a constant metric, a random order)."""
        name:
            f"accuracy_blocks_{_benchmark}"
        input:
            benchmark_table=LAYOUT.table(_benchmark),
            baseline_scores=LAYOUT.benchmark_baseline_scores(TARGETS.benchmarks[_benchmark]),
            processed=[
                path for tables in TARGETS.processed_of(_judges).values() for path in tables.values()
            ],
        output:
            LAYOUT.accuracy_blocks(_benchmark),
        params:
            job=JOBS.job("correlations:benchmark_accuracy_blocks"),
            benchmark=TARGETS.benchmarks[_benchmark],
            specs=TARGETS.specs(_judges),
            entries=TARGETS.entries_of(_judges),
            processed=TARGETS.processed_of(_judges),
            judges=_judges,
        log:
            LAYOUT.log("pairwise_accuracy", _benchmark),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                benchmark=params.benchmark,
                benchmark_table=input.benchmark_table,
                baseline_scores=input.baseline_scores,  # empty for a benchmark without baselines
                specs=params.specs,
                processed=params.processed,
                out=output[0],
            )


rule pairwise_accuracy:
    """Every metric's acc_eq and tie-calibrated acc*_eq, per benchmark and dimension, ranked
    among the rows on the same items, beside their reference rows."""
    input:
        correlations=LAYOUT.pair(LAYOUT.correlations)[0],
        blocks=[LAYOUT.accuracy_blocks(b) for b in TARGETS.scored_benchmarks],
    output:
        LAYOUT.pair(LAYOUT.pairwise_accuracy),
    params:
        job=JOBS.job("correlations:write_pairwise_accuracy"),
    log:
        LAYOUT.log("pairwise_accuracy"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            correlations=input.correlations,
            blocks=input.blocks,
            stem=LAYOUT.pairwise_accuracy,
        )


rule paper_tables:
    """Everything about the paper's tables: the combined table, the paper layouts, the
    judge-vs-baseline tests, the reproduction figures and the pairwise accuracies."""
    input:
        rules.correlations.output,
        rules.pairwise_accuracy.output,
        rules.significance_vs_baseline.output,
        [path for n in TARGETS.paper_tables for path in LAYOUT.pair(LAYOUT.paper_layout_stem(n))],
        TARGETS.benchmark_layouts,
        [path for n in TARGETS.paper_tables for path in LAYOUT.reproduction_figure(n)],
