"""Judge runs the pipeline makes: a geval-jsonl judge with a run: block is run with the judge
runner into its dir, in a process of its own (geval_repro.pipeline.judge_runs), so Ctrl-C or
SIGTERM stops it within seconds; its cache is data/cache/judge/<judge>. The run block is its
only param (with the judge's name and cache), so changing any of its keys reruns the job
(the cache keeps every answer already received), and nothing else of the judge's entry
does; the API key is read from the environment only. A run: block with server: starts that
local server for the job (only when an answer is missing) and stops it; the job then takes
the server's threads. Under a cluster profile the job runs on the submitting node, or with
on_cluster (the default with server:) on a compute node with the resources it asks for
(TARGETS.runs_locally, TARGETS.resources; docs/cluster.md)."""


for _judge in TARGETS.made_here:

    rule:
        name:
            rule_name("judge_run", _judge)
        input:
            benchmark_table=LAYOUT.table(JUDGES[_judge].benchmark.name),
            prompts=LAYOUT.judge_run_prompts(JUDGES[_judge]),
        output:
            list(LAYOUT.judge_files(JUDGES[_judge]).values()),
            LAYOUT.judge_manifest(JUDGES[_judge]),
        params:
            judge=_judge,
            run=TARGETS.entries[_judge]["run"],
            cache=LAYOUT.cache / "judge" / _judge,
        log:
            run=LAYOUT.logs / "judges" / f"{_judge}_run.log",
            server=LAYOUT.logs / "judges" / f"{_judge}_server.log",
        threads: TARGETS.threads(_judge)
        resources:
            **TARGETS.resources(_judge),
        localrule: TARGETS.runs_locally(_judge)
        run:
            from geval_repro.pipeline.judge_runs import judge_run

            judge_run(
                params.judge,
                TARGETS.entries[params.judge],
                processed=LAYOUT.processed,
                raw_dir=LAYOUT.raw,
                cache_dir=params.cache,
                mirror=MIRROR,
                server_log=log.server,
            )
