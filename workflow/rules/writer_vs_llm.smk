"""The writer-vs-LLM analysis (the G-Eval paper's "Will G-Eval prefer LLM-based outputs?") of
every benchmark of pairwise human preferences (PREFERENCE_JUDGES: its runs, by the registry's
preferences): each judge run's rows and the reference-free measures' rows (work files), the
three tables of them all, and the figure in the paper's layout. A benchmark's tables wait
for the judge runs on it only. Each job imports its rule function in its run: block."""


from geval_repro.registry.benchmarks import BENCHMARKS


for _benchmark, _judges in PREFERENCE_JUDGES.items():
    _pairs = LAYOUT.table(BENCHMARKS[_benchmark].preferences.table)

    for _judge in _judges:
        _spec = JUDGES[_judge]

        rule:
            """One judge run's writer-vs-LLM rows (each of its G-Eval scores)."""
            name:
                rule_name("writer_vs_llm_rows", _judge)
            input:
                **LAYOUT.judge_processed(_spec),
                benchmark_table=LAYOUT.table(_benchmark),
                pairs_table=_pairs,
            output:
                list(LAYOUT.writer_vs_llm_rows(_benchmark, _judge).values()),
            params:
                spec=_spec,
                entries=TARGETS.entries_of([_judge]),
                processed=LAYOUT.judge_processed(_spec),
                outs=LAYOUT.writer_vs_llm_rows(_benchmark, _judge),
                judges=[_judge],
            log:
                LAYOUT.logs / _benchmark / f"{_judge}_rows.log",
            run:
                from geval_repro.pipeline.writer_vs_llm import judge_rows

                judge_rows(
                    params.spec,
                    params.processed,
                    input.benchmark_table,
                    input.pairs_table,
                    SETTINGS,
                    params.outs,
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
            benchmark=BENCHMARKS[_benchmark],
            outs=LAYOUT.writer_vs_llm_rows(_benchmark),
        log:
            LAYOUT.logs / _benchmark / "reference_free_rows.log",
        run:
            from geval_repro.pipeline.writer_vs_llm import surface_rows

            surface_rows(
                params.benchmark, input.benchmark_table, input.pairs_table, SETTINGS, params.outs
            )

    _metrics = [LAYOUT.writer_vs_llm_rows(_benchmark, j) for j in _judges]
    _metrics.append(LAYOUT.writer_vs_llm_rows(_benchmark))

    rule:
        """A benchmark's writer-vs-LLM tables: every judge run's rows, then the measures'."""
        name:
            f"writer_vs_llm_tables_{_benchmark}"
        input:
            [path for rows in _metrics for path in rows.values()],
        output:
            LAYOUT.writer_vs_llm_tables(_benchmark),
        params:
            parts={name: [rows[name] for rows in _metrics] for name in outputs.WRITER_VS_LLM_TABLES},
            out=LAYOUT.tables / _benchmark,
            judges=_judges,
        log:
            LAYOUT.logs / _benchmark / "tables.log",
        localrule: True
        run:
            from geval_repro.pipeline.writer_vs_llm import combine

            combine(params.parts, params.out)

    rule:
        """The paper's figure: each author's mean score per human preference group."""
        name:
            f"writer_vs_llm_figure_{_benchmark}"
        input:
            LAYOUT.tables / _benchmark / "group_means.csv",
        output:
            png=LAYOUT.writer_vs_llm_figure(_benchmark)[0],
            svg=LAYOUT.writer_vs_llm_figure(_benchmark)[1],
        params:
            judges=_judges,
        log:
            LAYOUT.logs / _benchmark / "figure.log",
        localrule: True
        run:
            from geval_repro.pipeline.writer_vs_llm import figure_job

            figure_job(group_means=input[0], png=output.png, svg=output.svg)


rule writer_vs_llm:
    """Every benchmark's writer-vs-LLM tables and figure."""
    input:
        [LAYOUT.writer_vs_llm_tables(b) for b in PREFERENCE_JUDGES],
        [LAYOUT.writer_vs_llm_figure(b) for b in PREFERENCE_JUDGES],
