"""Judges whose answers the pipeline asks for: a geval-jsonl judge with a run: block is run
with the judge runner into its dir, in the job's own process, so Ctrl-C or SIGTERM stops it
within seconds; its cache is data/cache/judge/<judge>. The run block is its only param
(with the judge's name and cache), so changing any of its keys reruns the job (the cache
keeps every answer already received: a rerun asks only for what it has not received), and
nothing else of the judge's entry does. Its JOBS.run names its function alone, without the
digest of the runner's code (no params.job, as the fetch): a new toolkit never sends a
judge's requests again by itself (with a hosted model they cost money); --forcerun
ask_judge_<judge> does, on purpose. The API key is read from the environment only. A run: block with server: starts that local server
for the job (only when an answer is missing) and stops it; the job then takes the server's
threads. Under a cluster profile the job runs on the submitting node, or with on_cluster
(the default with server:) on a compute node with the resources it asks for
(TARGETS.runs_locally, TARGETS.resources; docs/cluster.md)."""


for _judge in TARGETS.made_here:

    rule:
        name:
            rule_name("ask_judge", _judge)
        input:
            benchmark_table=LAYOUT.table(SPECS[_judge].benchmark.name),
            prompts=LAYOUT.judge_run_prompts(SPECS[_judge]),
        output:
            list(LAYOUT.judge_files(SPECS[_judge]).values()),
            LAYOUT.judge_manifest(SPECS[_judge]),
        params:
            judge=_judge,
            run=TARGETS.entries[_judge]["run"],
            spec=SPECS[_judge],
            cache=LAYOUT.judge_cache(_judge),
        log:
            run=LAYOUT.log("judges", f"{_judge}_run"),
            server=LAYOUT.log("judges", f"{_judge}_server"),
        threads: TARGETS.threads(_judge)
        resources:
            **TARGETS.resources(_judge),
        localrule: TARGETS.runs_locally(_judge)
        run:
            JOBS.run(
                "judge_runner:ask_judge",
                log,
                spec=params.spec,
                processed=LAYOUT.processed,
                raw_dir=LAYOUT.raw,
                cache_dir=params.cache,
                mirror=TARGETS.mirror,
                server_log=log.server,
            )
