"""Rows that need no judge run: UniEval's predictions, the baselines, the human data.

Each job imports its rule function in its run: block (not when the workflow is parsed). The baseline
chain (its tidy inputs, the three baseline_scores_* jobs, baseline_rows) has priority 10: it
is the run's critical path (METEOR 1.5's JVM alone takes ~20 s), so the scheduler starts it
before the readers' jobs (notebooks, figures, report pages)."""


rule unieval_rows:
    input:
        topical_chat=LAYOUT.table("topical_chat"),
        cnndm=LAYOUT.table("qags_cnndm"),
        xsum=LAYOUT.table("qags_xsum"),
    output:
        LAYOUT.rows / "unieval.csv",
    log:
        LAYOUT.logs / "rows" / "unieval.log",
    run:
        from geval_repro.pipeline.unieval_rows import unieval_rows

        unieval_rows(
            input.topical_chat, {"cnndm": input.cnndm, "xsum": input.xsum}, SETTINGS, output[0]
        )


rule baseline_scores_summeval:
    priority: 10
    input:
        summeval=LAYOUT.table("summeval"),
        references=LAYOUT.table("summeval_references"),
    output:
        LAYOUT.baseline_scores("summeval"),
    log:
        LAYOUT.logs / "baselines" / "summeval.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.summeval_scores(input.summeval, input.references, output[0])


rule baseline_scores_topical_chat:
    priority: 10
    input:
        LAYOUT.table("topical_chat"),
    output:
        LAYOUT.baseline_scores("topical_chat"),
    log:
        LAYOUT.logs / "baselines" / "topical_chat.log",
    resources:
        # On a cluster (profiles/slurm): METEOR 1.5's JVM (-Xmx2G) runs beside the Python
        # metrics; 1.6 GB peak measured (docs/cluster.md).
        mem_mb=3000,
        cpus_per_task=2,
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.topical_chat_scores(input[0], LAYOUT.cache / "nltk", output[0])


rule baseline_scores_qags:
    priority: 10
    input:
        cnndm=LAYOUT.table("qags_cnndm"),
        xsum=LAYOUT.table("qags_xsum"),
    output:
        LAYOUT.baseline_scores("qags"),
    log:
        LAYOUT.logs / "baselines" / "qags.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.qags_scores({"cnndm": input.cnndm, "xsum": input.xsum}, output[0])


rule baseline_rows:
    priority: 10
    input:
        summeval=LAYOUT.table("summeval"),
        summeval_scores=LAYOUT.baseline_scores("summeval"),
        topical_chat=LAYOUT.table("topical_chat"),
        topical_chat_scores=LAYOUT.baseline_scores("topical_chat"),
        cnndm=LAYOUT.table("qags_cnndm"),
        xsum=LAYOUT.table("qags_xsum"),
        qags_scores=LAYOUT.baseline_scores("qags"),
    output:
        LAYOUT.rows / "baselines.csv",
    log:
        LAYOUT.logs / "rows" / "baselines.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.baseline_rows(*input, SETTINGS, output[0])


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
