"""The combined correlation table and the paper-layout Tables 1-3 (each job imports its
step in its run: block, not when the workflow is parsed)."""


rule judge_averages:
    """Rows of the paper's averages over subsets (QAGS Average) from paired judge runs."""
    input:
        [JUDGE_TABLES / judge / "correlations.csv" for judge in JUDGES],
    output:
        ROWS / "judge_averages.csv",
    params:
        correlations={judge: JUDGE_TABLES / judge / "correlations.csv" for judge in JUDGES},
        specs={judge: judge_spec(judge) for judge in JUDGES},
    log:
        LOGS / "judge_averages.log",
    localrule: True
    run:
        from geval_repro.pipeline.judge_tables import subset_average_rows

        write_rows(subset_average_rows(params.correlations, params.specs), output[0])
        trace(output, input)


rule correlations:
    input:
        ROWS / "unieval.csv",
        ROWS / "baselines.csv",
        ROWS / "human_ceiling.csv",
        ROWS / "judge_averages.csv",
        [JUDGE_TABLES / judge / "correlations.csv" for judge in JUDGES],
    output:
        ROOT_TABLES / "correlations.csv",
        ROOT_TABLES / "correlations.md",
    log:
        LOGS / "correlations.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import combine

        combine(input, ROOT_TABLES / "correlations")
        trace(output, input)


rule baseline_significance:
    """Each judge row against the best recomputed baseline: paired permutation tests."""
    input:
        [path for judge in JUDGES for path in judge_processed(judge).values()],
        [human_table(judge) for judge in JUDGES],
        rows=ROWS / "baselines.csv",
        scores=[PROCESSED / "baselines" / f"{stem}.parquet" for stem in BASELINE_SCORE_FILES],
    output:
        ROOT_TABLES / "significance_vs_baseline.csv",
        ROOT_TABLES / "significance_vs_baseline.md",
    params:
        specs={judge: judge_spec(judge) for judge in JUDGES},
        processed={judge: judge_processed(judge) for judge in JUDGES},
        humans={judge_spec(j)["benchmark"]: human_table(j) for j in JUDGES},
        scores={stem: PROCESSED / "baselines" / f"{stem}.parquet" for stem in BASELINE_SCORE_FILES},
    log:
        LOGS / "baseline_significance.log",
    run:
        from geval_repro.pipeline.baseline_significance import baseline_significance
        from geval_repro.table_files import write_pair

        table = baseline_significance(
            params.specs, params.processed, params.humans, input.rows, params.scores, config
        )
        write_pair(table, ROOT_TABLES / "significance_vs_baseline")
        trace(output, input, judges=JUDGES)


rule paper_layout:
    input:
        ROOT_TABLES / "correlations.csv",
        ROOT_TABLES / "significance_vs_baseline.csv",
    output:
        [ROOT_TABLES / f"{stem}.md" for stem in PAPER_LAYOUTS.values()],
    log:
        LOGS / "paper_layout.log",
    localrule: True
    run:
        from geval_repro.pipeline.correlations import write_paper_layouts

        write_paper_layouts(
            input[0], {n: ROOT_TABLES / stem for n, stem in PAPER_LAYOUTS.items()}, input[1]
        )
        trace(output, input)


rule reproduction_figure:
    """Does it reproduce? Every recomputed cell against its printed value (Tables 1-3)."""
    input:
        ROOT_TABLES / "correlations.csv",
    output:
        png=ROOT_FIGURES / "reproduction.png",
        svg=ROOT_FIGURES / "reproduction.svg",
    log:
        LOGS / "reproduction_figure.log",
    localrule: True
    run:
        from geval_repro.figures import reproduction_figures

        reproduction_figures(input[0], output.png, output.svg)
        trace(output, input)
