"""Rows that need no judge run: UniEval's predictions, the baselines, the human data.

Each job imports its step in its run: block (not when the workflow is parsed). The baseline
chain (its tidy inputs, the three baseline_scores_* jobs, baseline_rows) has priority 10: it
is the run's critical path (METEOR 1.5's JVM alone takes ~20 s), so the scheduler starts it
before the readers' jobs (notebooks, figures, report pages)."""


rule unieval_rows:
    input:
        topical_chat=PROCESSED / "topical_chat.parquet",
        cnndm=PROCESSED / "qags_cnndm.parquet",
        xsum=PROCESSED / "qags_xsum.parquet",
    output:
        ROWS / "unieval.csv",
    log:
        LOGS / "rows" / "unieval.log",
    run:
        from geval_repro.pipeline.unieval_rows import unieval_rows

        rows = unieval_rows(input.topical_chat, {"cnndm": input.cnndm, "xsum": input.xsum}, config)
        write_rows(rows, output[0])
        trace(output, input)


rule baseline_scores_summeval:
    priority: 10
    input:
        summeval=PROCESSED / "summeval.parquet",
        references=PROCESSED / "summeval_references.parquet",
    output:
        PROCESSED / "baselines" / "summeval.parquet",
    log:
        LOGS / "baselines" / "summeval.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.summeval_scores(input.summeval, input.references, output[0])
        trace(output, input)


rule baseline_scores_topical_chat:
    priority: 10
    input:
        PROCESSED / "topical_chat.parquet",
    output:
        PROCESSED / "baselines" / "topical_chat.parquet",
    log:
        LOGS / "baselines" / "topical_chat.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.topical_chat_scores(input[0], DATA / "cache" / "nltk", output[0])
        trace(output, input)


rule baseline_scores_qags:
    priority: 10
    input:
        cnndm=PROCESSED / "qags_cnndm.parquet",
        xsum=PROCESSED / "qags_xsum.parquet",
    output:
        PROCESSED / "baselines" / "qags.parquet",
    log:
        LOGS / "baselines" / "qags.log",
    run:
        from geval_repro.pipeline import baseline_tables

        baseline_tables.qags_scores({"cnndm": input.cnndm, "xsum": input.xsum}, output[0])
        trace(output, input)


rule baseline_rows:
    priority: 10
    input:
        summeval=PROCESSED / "summeval.parquet",
        summeval_scores=PROCESSED / "baselines" / "summeval.parquet",
        topical_chat=PROCESSED / "topical_chat.parquet",
        topical_chat_scores=PROCESSED / "baselines" / "topical_chat.parquet",
        cnndm=PROCESSED / "qags_cnndm.parquet",
        xsum=PROCESSED / "qags_xsum.parquet",
        qags_scores=PROCESSED / "baselines" / "qags.parquet",
    output:
        ROWS / "baselines.csv",
    log:
        LOGS / "rows" / "baselines.log",
    run:
        from geval_repro.pipeline import baseline_tables

        write_rows(baseline_tables.baseline_rows(*input, config), output[0])
        trace(output, input)


rule human_tables:
    input:
        **{name: PROCESSED / f"{name}.parquet" for name in HUMAN_TABLE_INPUTS},
    output:
        [ROOT_TABLES / "human" / f"{name}.{ext}" for name in HUMAN_TABLES for ext in ("csv", "md")],
        ROOT_FIGURES / "human_distributions.png",
        ROOT_FIGURES / "human_distributions.svg",
        rows=ROWS / "human_ceiling.csv",
    log:
        LOGS / "rows" / "human.log",
    run:
        from geval_repro.pipeline.human_tables import human_tables

        paths = {name: input[name] for name in HUMAN_TABLE_INPUTS}
        ceiling = human_tables(paths, ROOT_TABLES / "human", ROOT_FIGURES / "human_distributions")
        write_rows(ceiling, output.rows)
        trace(output, input)
