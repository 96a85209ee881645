"""Exports for other tools: `snakemake export_hf` writes results/hf/, a Hugging Face dataset
of the tidy benchmarks with every judge of this run joined by item (see
geval_repro.report.export_hf). Not part of `rule all`: it needs `datasets` (extra `hf`)."""


rule export_hf:
    input:
        [LAYOUT.table(name) for name in TARGETS.benchmarks],
        [path for tables in TARGETS.processed_of(list(SPECS)).values() for path in tables.values()],
    output:
        directory(LAYOUT.export),
    params:
        job=JOBS.job("exports:export_hf"),
        specs=SPECS,
        entries=TARGETS.entries,
    log:
        LAYOUT.log("export_hf"),
    localrule: True
    run:
        JOBS.run(
            params.job,
            log,
            processed=LAYOUT.processed,
            out=output[0],
            specs=params.specs,
        )
