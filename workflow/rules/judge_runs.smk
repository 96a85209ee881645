"""Judge runs the pipeline makes: a geval-jsonl judge with a run: block is run with the judge
runner (geval_repro.runner.configured) into its dir; its cache is data/cache/judge/<judge>.
The run block is a param, so changing any of its keys reruns the job (the cache keeps every
answer already received); the API key is read from the environment only."""

from geval_repro.runner.prompts import SUMMEVAL_PROMPT_SOURCES


def judge_run_prompts(judge):
    """The prompt files a configured run reads (SummEval's are fetched sources)."""
    spec = judge_spec(judge)
    own = spec["run"].get("prompts") or {}
    return [
        own[d] if d in own else raw(SUMMEVAL_PROMPT_SOURCES[d])
        for d in run_dimensions(spec)
        if d in own or spec["benchmark"] == "summeval"
    ]


for _judge in RUN_JUDGES:

    rule:
        name:
            f"judge_run_{re.sub(r'[^A-Za-z0-9_]', '_', _judge)}"
        input:
            benchmark_table=human_table(_judge),
            prompts=judge_run_prompts(_judge),
        output:
            list(judge_inputs_of(_judge).values()),
            judge_provenance_inputs_of(_judge),
        params:
            judge=_judge,
            spec=judge_spec(_judge),
            cache=DATA / "cache" / "judge" / _judge,
        log:
            LOGS / "judges" / f"{_judge}_run.log",
        localrule: True  # it calls a server (API or local), as downloads do: the submit node
        run:
            run_configured_judge(
                params.judge,
                params.spec,
                processed=PROCESSED,
                raw_dir=RAW,
                cache_dir=params.cache,
            )
