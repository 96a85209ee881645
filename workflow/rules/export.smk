"""Exports for other tools: `snakemake export_hf` writes results/hf/, a Hugging Face dataset
of the tidy benchmarks with every judge run of this run joined by item (see
geval_repro.report.export_hf). Not part of `rule all`: it needs `datasets` (extra `hf`)."""


rule export_hf:
    input:
        [LAYOUT.table(name) for name in BENCHMARK_NAMES],
        [path for judge, spec in JUDGES.items() for path in LAYOUT.judge_processed(judge, spec).values()],
    output:
        directory(LAYOUT.results / "hf"),
    params:
        judges=JUDGES,
    log:
        LAYOUT.logs / "export_hf.log",
    localrule: True
    run:
        from geval_repro.report.export_hf import export_hf

        export_hf(LAYOUT.processed, output[0], params.judges)
