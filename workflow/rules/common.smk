"""Lists the rules share, all from TARGETS (geval_repro.pipeline.targets): the judge runs by
what they yield and the inputs each table waits for. Every path comes from LAYOUT
(geval_repro.pipeline.layout).

A rule that reads judge specs (geval_repro.registry.judges.JudgeSpec: params spec or specs)
also takes their config entries as written (params entries, or run for a judge run's run:
block): Snakemake compares params of builtin types only, so those make a changed entry
rerun the job."""

from geval_repro.pipeline.layout import one_of, rule_name
from geval_repro.pipeline.targets import tidy_tables
from geval_repro.registry import outputs
from geval_repro.registry.benchmarks import (
    BASELINE_FAMILIES,
    NAMES as BENCHMARK_NAMES,
    PAPER_TABLES,
    baseline_inputs,
)
from geval_repro.registry.formats import SWEEP_FIGURES


OTHER_TABLES = tidy_tables()
WITH_REPLIES = TARGETS.with_replies
SCORED = TARGETS.scored
RERUN_PAIRS = TARGETS.rerun_pairs
TABLE_JUDGES = {n: TARGETS.in_table(n) for n in PAPER_TABLES}
BENCHMARK_JUDGES = {b: TARGETS.on_benchmark(b) for b in BENCHMARK_NAMES}
READER_OUTPUTS = TARGETS.reader_outputs

