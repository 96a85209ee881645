"""Exports for other tools: `snakemake export_hf` writes results/hf/, a Hugging Face dataset
of the tidy benchmarks with every judge run of this run joined by item (see
geval_repro.report.export_hf). Not part of `rule all`: it needs `datasets` (extra `hf`)."""


rule export_hf:
    input:
        [LAYOUT.table(name) for name in BENCHMARK_NAMES],
        [path for tables in TARGETS.processed_of(list(JUDGES)).values() for path in tables.values()],
    output:
        directory(LAYOUT.results / "hf"),
    params:
        judges=JUDGES,
        entries=TARGETS.entries,
    log:
        LAYOUT.logs / "export_hf.log",
    localrule: True
    run:
        from geval_repro.pipeline.exports import export_hf

        export_hf(LAYOUT.processed, output[0], params.judges)
