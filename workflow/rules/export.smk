"""Exports for other tools: `snakemake export_hf` writes results/hf/, a Hugging Face dataset
of the tidy benchmarks with every judge run of this run joined by item (see
geval_repro.export_hf). Not part of `rule all`: it needs `datasets` (extra `hf`)."""

from geval_repro.benchmarks import NAMES as BENCHMARK_NAMES


rule export_hf:
    input:
        [PROCESSED / f"{name}.parquet" for name in BENCHMARK_NAMES],
        [judge_table_path(judge) for judge in JUDGES],
        [PROCESSED / "judges" / judge / "item_scores.parquet" for judge in RELEASED],
    output:
        directory(RESULTS / "hf"),
    params:
        judges={judge: config["judges"][judge] for judge in JUDGES},
    log:
        LOGS / "export_hf.log",
    localrule: True
    run:
        from geval_repro.export_hf import export_hf

        export_hf(PROCESSED, output[0], params.judges)
