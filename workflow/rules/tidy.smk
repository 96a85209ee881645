"""Tidy, validated tables in data/processed (parquet), one rule per upstream table."""

from geval_repro.pipeline import tidy



rule tidy_summeval:
    input:
        raw("summeval"),
    output:
        PROCESSED / "summeval.parquet",
    log:
        LOGS / "tables" / "summeval.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "summeval.tsv",
    run:
        tidy.summeval(input[0], output[0])
        trace(output, input)


rule tidy_summeval_references:
    input:
        raw("summeval_multiref"),
    output:
        PROCESSED / "summeval_references.parquet",
    log:
        LOGS / "tables" / "summeval_references.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "summeval_references.tsv",
    run:
        tidy.summeval_references(input[0], output[0])
        trace(output, input)


rule tidy_summeval_experts:
    input:
        raw("metriceval_scores"),
    output:
        PROCESSED / "summeval_experts.parquet",
    log:
        LOGS / "tables" / "summeval_experts.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "summeval_experts.tsv",
    run:
        tidy.summeval_experts(input[0], output[0])
        trace(output, input)


rule tidy_topical_chat:
    input:
        data=raw("topical_chat"),
        predictions=raw("unieval_pred_topical_chat"),
    output:
        PROCESSED / "topical_chat.parquet",
    log:
        LOGS / "tables" / "topical_chat.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "topical_chat.tsv",
    run:
        tidy.topical_chat(input.data, input.predictions, output[0])
        trace(output, input)


rule tidy_qags:
    input:
        data=lambda wildcards: raw(f"qags_{wildcards.subset}"),
        predictions=lambda wildcards: raw(f"unieval_pred_qags_{wildcards.subset}"),
    output:
        PROCESSED / "qags_{subset}.parquet",
    wildcard_constraints:
        subset="cnndm|xsum",
    log:
        LOGS / "tables" / "qags_{subset}.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "qags_{subset}.tsv",
    run:
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
    benchmark:
        LOGS / "benchmarks" / "tables" / "qags_mturk_{subset}.tsv",
    run:
        tidy.qags_mturk(input[0], wildcards.subset, output[0])
        trace(output, input)


rule tidy_judge:
    input:
        unpack(judge_inputs),
        summeval=PROCESSED / "summeval.parquet",
    output:
        PROCESSED / "judges" / "{judge}" / "{kind}.parquet",
    wildcard_constraints:
        kind="replies|scores",
    log:
        LOGS / "tables" / "judge_{judge}_{kind}.log",
    benchmark:
        LOGS / "benchmarks" / "tables" / "judge_{judge}_{kind}.tsv",
    run:
        spec = config["judges"][wildcards.judge]
        tidy.judge_table(wildcards.judge, spec, judge_inputs(wildcards), input.summeval, output[0])
        trace(output, input, judges=[wildcards.judge])


rule tables:
    input:
        PROCESSED / "summeval.parquet",
        PROCESSED / "summeval_references.parquet",
        PROCESSED / "summeval_experts.parquet",
        PROCESSED / "topical_chat.parquet",
        expand(PROCESSED / "qags_{subset}.parquet", subset=["cnndm", "xsum"]),
        expand(PROCESSED / "qags_mturk_{subset}.parquet", subset=["cnndm", "xsum"]),
        [judge_table_path(judge) for judge in JUDGES],
