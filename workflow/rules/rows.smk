"""Rows that need no judge: UniEval's predictions, the baselines, the human data.

The baseline chain (its tidy inputs, one baseline_scores job per benchmark with baselines,
baseline_rows) has priority 10: it is the run's critical path (METEOR 1.5's JVM alone takes
~20 s), so the scheduler starts it before the readers' jobs (notebooks, figures, report
pages)."""


rule unieval_rows:
    input:
        **TARGETS.unieval_benchmarks,
    output:
        LAYOUT.row_file("unieval"),
    params:
        job=JOBS.job("unieval_rows:unieval_rows"),
    log:
        LAYOUT.log("rows", "unieval"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            tables=dict(input.items()),
            settings=SETTINGS,
            out=output[0],
        )


rule baseline_scores:
    """The per-item scores of one benchmark's baselines (its protocol in
    geval_repro.registry.baselines)."""
    priority: 10
    input:
        unpack(lambda wildcards: TARGETS.baseline_inputs(wildcards.benchmark)),
    output:
        LAYOUT.baseline_scores("{benchmark}"),
    wildcard_constraints:
        benchmark=one_of(TARGETS.with_baselines),
    params:
        job=JOBS.job("baseline_tables:baseline_scores"),
        benchmark=lambda wildcards: TARGETS.benchmarks[wildcards.benchmark],
    log:
        LAYOUT.log("baselines", "{benchmark}"),
    resources:
        # On a cluster (profiles/slurm): Topical-Chat's METEOR 1.5 JVM (-Xmx2G) runs beside
        # the Python metrics, 1.6 GB peak measured (docs/cluster.md); the other benchmarks'
        # jobs (ROUGE) take less, for a few seconds.
        mem_mb=3000,
        cpus_per_task=2,
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            benchmark=params.benchmark,
            tables=dict(input.items()),
            cache=LAYOUT.cache,
            out=output[0],
        )


rule baseline_rows:
    priority: 10
    input:
        tables=[LAYOUT.table(name) for name in TARGETS.correlated_baselines],
        scores=[LAYOUT.baseline_scores(name) for name in TARGETS.correlated_baselines],
    output:
        LAYOUT.row_file("baselines"),
    params:
        job=JOBS.job("baseline_tables:baseline_rows"),
        benchmarks=TARGETS.correlated_baselines,
        tables={name: LAYOUT.table(name) for name in TARGETS.correlated_baselines},
        scores={name: LAYOUT.baseline_scores(name) for name in TARGETS.correlated_baselines},
    log:
        LAYOUT.log("rows", "baselines"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            benchmarks=params.benchmarks,
            tables=params.tables,
            scores=params.scores,
            settings=SETTINGS,
            out=output[0],
        )


rule binary_label_table:
    """ROC AUC and balanced accuracy of every baseline, reference metric and judge run of
    the benchmarks of binary human labels (SummEdits), per domain and averaged; the metrics'
    rankings with significance clusters and their pair tests."""
    input:
        tables=[LAYOUT.table(name) for name in TARGETS.labelled_benchmarks],
        scores=[LAYOUT.baseline_scores(name) for name in TARGETS.labelled_benchmarks],
        processed=[
            path
            for tables in TARGETS.processed_of(TARGETS.labelled).values()
            for path in tables.values()
        ],
    output:
        LAYOUT.pair(LAYOUT.binary_labels),
        LAYOUT.pair(LAYOUT.binary_rankings),
        LAYOUT.pair(LAYOUT.binary_pairs),
    params:
        job=JOBS.job("binary_tables:binary_label_table"),
        benchmarks=TARGETS.labelled_benchmarks,
        tables={name: LAYOUT.table(name) for name in TARGETS.labelled_benchmarks},
        scores={name: LAYOUT.baseline_scores(name) for name in TARGETS.labelled_benchmarks},
        specs=TARGETS.specs(TARGETS.labelled),
        entries=TARGETS.entries_of(TARGETS.labelled),
        processed=TARGETS.processed_of(TARGETS.labelled),
        judges=TARGETS.labelled,
        stems=(LAYOUT.binary_labels, LAYOUT.binary_rankings, LAYOUT.binary_pairs),
    log:
        LAYOUT.log("rows", "binary_labels"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            benchmarks=params.benchmarks,
            tables=params.tables,
            scores=params.scores,
            settings=SETTINGS,
            stems=params.stems,
            judges=params.judges,
            specs=params.specs,
            processed=params.processed,
        )


for _benchmark, _entry in TARGETS.labelled_benchmarks.items():
    _judges = TARGETS.on_benchmark(_benchmark)

    rule:
        """A benchmark of binary labels laid out as its own paper's table: its domains and
        their mean per statistic, one row per metric."""
        name:
            f"benchmark_layout_{_benchmark}"
        input:
            LAYOUT.pair(LAYOUT.binary_labels)[0],
        output:
            LAYOUT.pair(LAYOUT.benchmark_layout(_benchmark)),
        params:
            job=JOBS.job("binary_tables:write_binary_layout"),
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
                rows=input[0],
                benchmark=params.benchmark,
                specs=params.specs,
                stem=params.stem,
            )


rule human_tables:
    input:
        **TARGETS.human_inputs,
    output:
        LAYOUT.human_tables(),
        LAYOUT.figure(LAYOUT.human_figure),
        rows=LAYOUT.row_file("human_ceiling"),
    params:
        job=JOBS.job("human_tables:human_tables"),
    log:
        LAYOUT.log("rows", "human"),
    run:
        JOBS.run(
            params.job,
            log,
            input,
            output,
            processed=dict(input.items()),
            out_dir=LAYOUT.human_folder,
            figure_stem=LAYOUT.human_figure,
            rows=output.rows,
        )
