"""The writer-vs-LLM analysis (the G-Eval paper's "Will G-Eval prefer LLM-based outputs?") of
every benchmark of pairwise human preferences (TARGETS.preference_benchmarks): each judge's
rows and the reference-free measures' rows (work files), the three tables of them all, and
the figure in the paper's layout. A benchmark's tables wait for the judges on it only."""


for _benchmark, _entry in TARGETS.preference_benchmarks.items():
    _pairs = LAYOUT.table(_entry.preferences.table)
    _judges = TARGETS.on_benchmark(_benchmark)

    for _judge in _judges:
        _spec = SPECS[_judge]

        rule:
            """One judge's writer-vs-LLM rows (each of its G-Eval scores)."""
            name:
                rule_name("writer_vs_llm_rows", _judge)
            input:
                **LAYOUT.judge_processed(_spec),
                benchmark_table=LAYOUT.table(_benchmark),
                pairs_table=_pairs,
            output:
                list(LAYOUT.writer_vs_llm_rows(_benchmark, _judge).values()),
            params:
                job=JOBS.job("writer_vs_llm:judge_rows"),
                spec=_spec,
                entries=TARGETS.entries_of([_judge]),
                processed=LAYOUT.judge_processed(_spec),
                outs=LAYOUT.writer_vs_llm_rows(_benchmark, _judge),
                judges=[_judge],
            log:
                LAYOUT.log(_benchmark, f"{_judge}_rows"),
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
                    pairs_table=input.pairs_table,
                    settings=SETTINGS,
                    outs=params.outs,
                )

    rule:
        """The writer-vs-LLM rows of the reference-free measures (length, novel bigrams)."""
        name:
            f"writer_vs_llm_reference_free_{_benchmark}"
        input:
            benchmark_table=LAYOUT.table(_benchmark),
            pairs_table=_pairs,
        output:
            list(LAYOUT.writer_vs_llm_rows(_benchmark).values()),
        params:
            job=JOBS.job("writer_vs_llm:surface_rows"),
            benchmark=_entry,
            outs=LAYOUT.writer_vs_llm_rows(_benchmark),
        log:
            LAYOUT.log(_benchmark, "reference_free_rows"),
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                benchmark=params.benchmark,
                benchmark_table=input.benchmark_table,
                pairs_table=input.pairs_table,
                settings=SETTINGS,
                outs=params.outs,
            )

    _metrics = [LAYOUT.writer_vs_llm_rows(_benchmark, j) for j in _judges]
    _metrics.append(LAYOUT.writer_vs_llm_rows(_benchmark))

    rule:
        """A benchmark's writer-vs-LLM tables: every judge's rows, then the measures'."""
        name:
            f"writer_vs_llm_tables_{_benchmark}"
        input:
            [path for rows in _metrics for path in rows.values()],
        output:
            LAYOUT.writer_vs_llm_tables(_benchmark),
        params:
            job=JOBS.job("writer_vs_llm:combine"),
            parts={name: [rows[name] for rows in _metrics] for name in _metrics[-1]},
            out=LAYOUT.writer_vs_llm_folder(_benchmark),
            judges=_judges,
        log:
            LAYOUT.log(_benchmark, "tables"),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                parts=params.parts,
                out_dir=params.out,
            )

    rule:
        """The paper's figure: each author's mean score per human preference group."""
        name:
            f"writer_vs_llm_figure_{_benchmark}"
        input:
            LAYOUT.writer_vs_llm_group_means(_benchmark),
        output:
            LAYOUT.writer_vs_llm_figure(_benchmark),
        params:
            job=JOBS.job("writer_vs_llm:figure"),
            judges=_judges,
        log:
            LAYOUT.log(_benchmark, "figure"),
        localrule: True
        run:
            JOBS.run(
                params.job,
                log,
                input,
                output,
                judges=params.judges,
                group_means=input[0],
                png=output[0],
                svg=output[1],
            )


rule writer_vs_llm:
    """Every benchmark's writer-vs-LLM tables and figure."""
    input:
        [LAYOUT.writer_vs_llm_tables(b) for b in TARGETS.preference_benchmarks],
        [LAYOUT.writer_vs_llm_figure(b) for b in TARGETS.preference_benchmarks],
