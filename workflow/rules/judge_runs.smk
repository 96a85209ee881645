"""Judge runs the pipeline makes: a geval-jsonl judge with a run: block is run with the judge
runner (geval_repro.runner.configured) into its dir; its cache is data/cache/judge/<judge>.
The run block is a param, so changing any of its keys reruns the job (the cache keeps every
answer already received); the API key is read from the environment only. A run: block with
server: starts that local server for the job (only when an answer is missing) and stops it;
the job then takes the server's threads."""


for _judge in RUN_JUDGES:

    rule:
        name:
            rule_name("judge_run", _judge)
        input:
            benchmark_table=LAYOUT.table(JUDGES[_judge]["benchmark"]),
            prompts=LAYOUT.judge_run_prompts(JUDGES[_judge]),
        output:
            list(LAYOUT.judge_files(config, _judge).values()),
            LAYOUT.judge_manifest(config, _judge),
        params:
            judge=_judge,
            spec=JUDGES[_judge],
            cache=LAYOUT.cache / "judge" / _judge,
        log:
            run=LAYOUT.logs / "judges" / f"{_judge}_run.log",
            server=LAYOUT.logs / "judges" / f"{_judge}_server.log",
        threads: server_threads(JUDGES[_judge])
        localrule: True  # it calls a server (API or local), as downloads do: the submit node
        run:
            from geval_repro.runner.configured import run_configured_judge

            run_configured_judge(
                params.judge,
                params.spec,
                processed=LAYOUT.processed,
                raw_dir=LAYOUT.raw,
                cache_dir=params.cache,
                mirror=MIRROR,
                server_log=log.server,
            )
