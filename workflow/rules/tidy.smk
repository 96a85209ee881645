"""Tidy, validated tables in data/processed (parquet), one rule per upstream table.

Each job imports geval_repro.pipeline.tidy (pandas, pandera) in its run: block, not the parse."""


rule tidy_summeval:
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        raw("summeval"),
    output:
        PROCESSED / "summeval.parquet",
    log:
        LOGS / "tables" / "summeval.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.summeval(input[0], output[0])
        trace(output, input)


rule tidy_summeval_references:
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        raw("summeval_multiref"),
    output:
        PROCESSED / "summeval_references.parquet",
    log:
        LOGS / "tables" / "summeval_references.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.summeval_references(input[0], output[0])
        trace(output, input)


rule tidy_summeval_experts:
    input:
        raw("metriceval_scores"),
    output:
        PROCESSED / "summeval_experts.parquet",
    log:
        LOGS / "tables" / "summeval_experts.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.summeval_experts(input[0], output[0])
        trace(output, input)


rule tidy_topical_chat:
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        data=raw("topical_chat"),
        predictions=raw("unieval_pred_topical_chat"),
    output:
        PROCESSED / "topical_chat.parquet",
    log:
        LOGS / "tables" / "topical_chat.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.topical_chat(input.data, input.predictions, output[0])
        trace(output, input)


rule tidy_qags:
    priority: 10  # the baselines' inputs: see rows.smk
    input:
        data=lambda wildcards: raw(f"qags_{wildcards.subset}"),
        predictions=lambda wildcards: raw(f"unieval_pred_qags_{wildcards.subset}"),
    output:
        PROCESSED / "qags_{subset}.parquet",
    wildcard_constraints:
        subset="cnndm|xsum",
    log:
        LOGS / "tables" / "qags_{subset}.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.qags(input.data, input.predictions, wildcards.subset, output[0])
        trace(output, input)


rule tidy_qags_mturk:
    input:
        lambda wildcards: raw(f"qags_mturk_{wildcards.subset}"),
    output:
        PROCESSED / "qags_mturk_{subset}.parquet",
    wildcard_constraints:
        subset="cnndm|xsum",
    log:
        LOGS / "tables" / "qags_mturk_{subset}.log",
    run:
        from geval_repro.pipeline import tidy

        tidy.qags_mturk(input[0], wildcards.subset, output[0])
        trace(output, input)


# One rule per judge run: its processed tables depend on its format (judge.formats).
for _judge in JUDGES:

    rule:
        name:
            f"tidy_judge_{re.sub(r'[^A-Za-z0-9_]', '_', _judge)}"
        input:
            list(judge_inputs_of(_judge).values()),
            judge_provenance_inputs_of(_judge),
            human=human_table(_judge),
        output:
            **{
                name: PROCESSED / "judges" / _judge / f"{name}.parquet"
                for name in processed_tables(judge_spec(_judge))
            },
        params:
            judge=_judge,
            spec=judge_spec(_judge),
            files=judge_inputs_of(_judge),
            outs={
                name: PROCESSED / "judges" / _judge / f"{name}.parquet"
                for name in processed_tables(judge_spec(_judge))
            },
        log:
            LOGS / "tables" / f"judge_{_judge}.log",
        run:
            from geval_repro.pipeline import tidy

            tidy.judge_tables(params.judge, params.spec, params.files, input.human, params.outs)
            trace(output, input, judges=[params.judge])


rule tables:
    input:
        PROCESSED / "summeval.parquet",
        PROCESSED / "summeval_references.parquet",
        PROCESSED / "summeval_experts.parquet",
        PROCESSED / "topical_chat.parquet",
        expand(PROCESSED / "qags_{subset}.parquet", subset=["cnndm", "xsum"]),
        expand(PROCESSED / "qags_mturk_{subset}.parquet", subset=["cnndm", "xsum"]),
        [
            PROCESSED / "judges" / judge / f"{name}.parquet"
            for judge in JUDGES
            for name in processed_tables(judge_spec(judge))
        ],
