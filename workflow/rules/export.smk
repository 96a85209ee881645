"""Exports for other tools: `snakemake export_hf` writes results/hf/, a Hugging Face dataset
of the tidy benchmarks with every judge run of this run joined by item (see
geval_repro.export_hf). Not part of `rule all`: it needs `datasets` (extra `hf`)."""

from geval_repro.benchmarks import NAMES as BENCHMARK_NAMES


rule export_hf:
    input:
        [PROCESSED / f"{name}.parquet" for name in BENCHMARK_NAMES],
        [path for judge in JUDGES for path in judge_processed(judge).values()],
    output:
        directory(RESULTS / "hf"),
    params:
        judges={judge: judge_spec(judge) for judge in JUDGES},
    log:
        LOGS / "export_hf.log",
    localrule: True
    run:
        from geval_repro.export_hf import export_hf

        export_hf(PROCESSED, output[0], params.judges)
