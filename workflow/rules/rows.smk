"""Rows that need no judge run: UniEval's predictions, the baselines, the human data.

Each job imports its rule function in its run: block (not when the workflow is parsed). The
baseline chain (its tidy inputs, one baseline_scores job per family, baseline_rows) has
priority 10: it is the run's critical path (METEOR 1.5's JVM alone takes ~20 s), so the
scheduler starts it before the readers' jobs (notebooks, figures, report pages)."""

from geval_repro.pipeline.targets import HUMAN_INPUTS, unieval_benchmarks


UNIEVAL_BENCHMARKS = unieval_benchmarks()


rule unieval_rows:
    input:
        **{name: LAYOUT.table(name) for name in UNIEVAL_BENCHMARKS},
    output:
        LAYOUT.rows / "unieval.csv",
    log:
        LAYOUT.logs / "rows" / "unieval.log",
    run:
        from geval_repro.pipeline.unieval_rows import unieval_rows

        unieval_rows(dict(input.items()), SETTINGS, output[0])


rule baseline_scores:
    """The per-item scores of one baseline family (registry.benchmarks.BASELINE_FAMILIES)."""
    priority: 10
    input:
        unpack(
            lambda wildcards: {name: LAYOUT.table(name) for name in baseline_inputs(wildcards.family)}
        ),
    output:
        LAYOUT.baseline_scores("{family}"),
    wildcard_constraints:
        family=one_of(BASELINE_FAMILIES),
    log:
        LAYOUT.logs / "baselines" / "{family}.log",
    resources:
        # On a cluster (profiles/slurm): Topical-Chat's METEOR 1.5 JVM (-Xmx2G) runs beside
        # the Python metrics, 1.6 GB peak measured (docs/cluster.md); the other families'
        # jobs (ROUGE) take less, for a few seconds.
        mem_mb=3000,
        cpus_per_task=2,
    run:
        from geval_repro.pipeline.baseline_tables import baseline_scores

        baseline_scores(wildcards.family, dict(input.items()), LAYOUT.cache, output[0])


rule baseline_rows:
    priority: 10
    input:
        tables=[LAYOUT.table(name) for family in BASELINE_FAMILIES.values() for name in family],
        scores=[LAYOUT.baseline_scores(family) for family in BASELINE_FAMILIES],
    output:
        LAYOUT.rows / "baselines.csv",
    params:
        tables={
            name: LAYOUT.table(name) for family in BASELINE_FAMILIES.values() for name in family
        },
        scores={family: LAYOUT.baseline_scores(family) for family in BASELINE_FAMILIES},
    log:
        LAYOUT.logs / "rows" / "baselines.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.baseline_rows_job(
            tables=params.tables, scores=params.scores, config=config, out=output[0]
        )


rule human_tables:
    input:
        **{name: LAYOUT.table(name) for name in HUMAN_INPUTS},
    output:
        LAYOUT.human_tables(),
        LAYOUT.figure(LAYOUT.human_figure),
        rows=LAYOUT.rows / "human_ceiling.csv",
    log:
        LAYOUT.logs / "rows" / "human.log",
    run:
        from geval_repro.pipeline.human_tables import human_tables

        human_tables(
            {name: input[name] for name in HUMAN_INPUTS},
            LAYOUT.tables / "human",
            LAYOUT.human_figure,
            output.rows,
        )
