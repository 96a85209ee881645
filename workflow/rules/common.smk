"""Helpers and constants shared by the rules."""

from geval_repro.config import judge_files
from geval_repro.sources import get_source


def raw(source_id):
    """Local path of registry source ``source_id`` (fetched by rule fetch)."""
    return str(RAW / get_source(source_id).relpath)


def judge_inputs(wildcards):
    """Local paths of a judge run's files, keyed by dimension ("*" for a scores file)."""
    return {dim: str(f.path) for dim, f in judge_files(config, wildcards.judge, RAW).items()}


def judge_table_path(judge):
    """The processed table of a judge run: replies or item scores, by format."""
    kind = "replies" if config["judges"][judge]["format"] == "geval-released" else "scores"
    return PROCESSED / "judges" / judge / f"{kind}.parquet"


RELEASED = [j for j in JUDGES if config["judges"][j]["format"] == "geval-released"]
SCORED = [j for j in JUDGES if config["judges"][j]["format"] == "scores"]
JUDGE_TABLES = ROOT_TABLES / "judges"
RELEASED_TABLES = [
    "correlations",
    "main",
    "one_reply",
    "parsers",
    "diagnostics",
    "rollups",
    "significance",
]
SWEEP_FIGURES = ["sweep_spearman", "sweep_kendall", "tie_rate"]


def one_of(names):
    """A wildcard constraint matching exactly one of ``names`` (nothing when empty)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def judge_outputs(judge):
    """Every result file of one judge run."""
    tables = JUDGE_TABLES / judge
    if judge in SCORED:
        return [tables / "correlations.csv", tables / "correlations.md"]
    figures = ROOT_FIGURES / "judges" / judge
    return [
        *[tables / f"{name}.{ext}" for name in RELEASED_TABLES for ext in ("csv", "md")],
        tables / "sweep.csv",
        *[figures / f"{name}.{ext}" for name in SWEEP_FIGURES for ext in ("png", "svg")],
    ]


RERUN_PAIRS = [
    pair for pair in config["rerun_pairs"] if all(name in SCORED for name in pair)
]


ROWS = RESULTS / "work" / "rows"
HUMAN_TABLE_INPUTS = [
    "summeval",
    "summeval_experts",
    "topical_chat",
    "qags_cnndm",
    "qags_xsum",
    "qags_mturk_cnndm",
    "qags_mturk_xsum",
]
HUMAN_TABLES = [
    "summeval_expert_agreement",
    "summeval_human_ceiling",
    "qags_mturk_vs_unieval",
    "qags_worker_agreement",
    "score_distributions",
    "human_tie_rates",
]
PAPER_LAYOUTS = {1: "table1_summeval", 2: "table2_topical_chat", 3: "table3_qags"}


def write_rows(rows, path):
    """Write intermediate correlation rows (CSV, atomically, shape-checked)."""
    from geval_repro.correlation_table import check_rows
    from geval_repro.atomic import write_text

    check_rows(rows)
    write_text(path, rows.to_csv(index=False, lineterminator="\n"))


def trace(output, input, judges=()):
    """Write the provenance sidecar of every output (see geval_repro.provenance)."""
    from geval_repro.provenance import write_provenance

    write_provenance(output, input, config=config, raw_dir=RAW, judges=judges)
