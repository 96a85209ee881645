"""Lists the rules share: the judge runs by what they yield, the outputs a reader names.

Every path comes from LAYOUT (geval_repro.pipeline.layout); what a judge run yields comes
from the format registry (geval_repro.registry.formats)."""

from geval_repro.pipeline.layout import BASELINE_SCORE_FILES, rule_name
from geval_repro.registry import outputs
from geval_repro.registry.benchmarks import AVERAGES, NAMES as BENCHMARK_NAMES, table_of
from geval_repro.registry.formats import SWEEP_FIGURES, has_replies, processed_tables
from geval_repro.runner.configured import server_threads


AVERAGED_BENCHMARKS = {b for parts in AVERAGES.values() for b in parts}
WITH_REPLIES = [j for j, spec in JUDGES.items() if has_replies(spec)]
SCORED = [j for j, spec in JUDGES.items() if spec["format"] == "scores"]
RUN_JUDGES = [j for j, spec in JUDGES.items() if "run" in spec]  # made by judge_runs.smk
PROCESSED_JUDGE_TABLES = sorted({t for spec in JUDGES.values() for t in processed_tables(spec)})
RERUN_PAIRS = [pair for pair in config["rerun_pairs"] if all(j in SCORED for j in pair)]
# The judge runs whose rows each paper table shows (a table waits for these only).
TABLE_JUDGES = {
    number: [j for j, spec in JUDGES.items() if table_of(spec["benchmark"]) == number]
    for number in outputs.PAPER_LAYOUTS
}
# The judge runs on each benchmark (its judge-vs-judge tests wait for these only).
BENCHMARK_JUDGES = {
    b: [j for j, spec in JUDGES.items() if spec["benchmark"] == b] for b in BENCHMARK_NAMES
}
# The judge runs on a benchmark the paper averages over (QAGS: CNN/DM and XSum).
AVERAGED_JUDGES = [j for j, spec in JUDGES.items() if spec["benchmark"] in AVERAGED_BENCHMARKS]
# The row files that need no judge run; every paper table takes the rows of its benchmarks.
ROW_FILES = [
    LAYOUT.rows / f"{name}.csv"
    for name in ("unieval", "baselines", "human_ceiling", "judge_averages")
]
# The tidy tables the human-data tables read.
HUMAN_INPUTS = [*BENCHMARK_NAMES, "summeval_experts", "qags_mturk_cnndm", "qags_mturk_xsum"]
# What the closing summary names when it is missing (geval_repro.pipeline.summary).
READER_OUTPUTS = {
    **{f"Table {n}": [LAYOUT.paper_layout(n)] for n in outputs.PAPER_LAYOUTS},
    "correlations.csv": [LAYOUT.tables / f"{outputs.CORRELATIONS}.csv"],
    "pairwise_significance.csv": [LAYOUT.tables / f"{outputs.PAIRWISE_SIGNIFICANCE}.csv"],
    **{f"judge run {j}": LAYOUT.judge_outputs(j, spec) for j, spec in JUDGES.items()},
}


def one_of(names):
    """A wildcard constraint matching exactly one of ``names`` (nothing when empty)."""
    return "|".join(re.escape(str(n)) for n in names) or "(?!)"
