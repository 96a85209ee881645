"""Helpers and constants shared by the rules.

Judge runs: what each run yields (its processed tables, result tables and whether it has a
sweep) comes from the format registry, geval_repro.judge.formats; the benchmark's tidy table
a run joins from the benchmark registry, geval_repro.benchmarks.
"""

from geval_repro.config import judge_files, judge_manifest
from geval_repro.judge.formats import (
    SWEEP_FIGURES,
    has_replies,
    processed_tables,
    result_tables,
)
from geval_repro.runner.configured import run_configured_judge, run_dimensions
from geval_repro.sources import get_source


def raw(source_id):
    """Local path of registry source ``source_id`` (fetched by rule fetch)."""
    return str(RAW / get_source(source_id).relpath)


def judge_spec(judge):
    """The config entry of judge run ``judge``."""
    return config["judges"][judge]


def judge_inputs_of(judge):
    """Local paths of a judge run's files, keyed by dimension ("*" for a scores file)."""
    return {dim: str(f.path) for dim, f in judge_files(config, judge, RAW).items()}


def judge_provenance_inputs_of(judge):
    """A geval-jsonl folder's manifest.json, recorded in the provenance (not read)."""
    manifest = judge_manifest(config, judge)
    return [str(manifest)] if manifest else []


def human_table(judge):
    """The tidy table of the benchmark the judge run scores."""
    return PROCESSED / f"{judge_spec(judge)['benchmark']}.parquet"


def judge_processed(judge):
    """The processed tables of a judge run, by name (plus item_scores for replies)."""
    folder = PROCESSED / "judges" / judge
    tables = {name: folder / f"{name}.parquet" for name in processed_tables(judge_spec(judge))}
    if has_replies(judge_spec(judge)):
        tables["item_scores"] = folder / "item_scores.parquet"
    return tables


WITH_REPLIES = [j for j in JUDGES if has_replies(judge_spec(j))]
SCORED = [j for j in JUDGES if judge_spec(j)["format"] == "scores"]
RUN_JUDGES = [j for j in JUDGES if "run" in judge_spec(j)]  # made by rules/judge_runs.smk
JUDGE_TABLES = ROOT_TABLES / "judges"
PROCESSED_JUDGE_TABLES = sorted({t for j in JUDGES for t in processed_tables(judge_spec(j))})


def one_of(names):
    """A wildcard constraint matching exactly one of ``names`` (nothing when empty)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def judge_result_files(judge):
    """The result tables of one judge run (CSV and Markdown)."""
    return [
        JUDGE_TABLES / judge / f"{name}.{ext}"
        for name in result_tables(judge_spec(judge))
        for ext in ("csv", "md")
    ]


def judge_outputs(judge):
    """Every result file of one judge run."""
    outputs = judge_result_files(judge)
    if has_replies(judge_spec(judge)):
        figures = ROOT_FIGURES / "judges" / judge
        outputs += [
            JUDGE_TABLES / judge / "sweep.csv",
            *[figures / f"{name}.{ext}" for name in SWEEP_FIGURES for ext in ("png", "svg")],
        ]
    return outputs


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
# The per-item baseline score files (data/processed/baselines/<stem>.parquet).
BASELINE_SCORE_FILES = ["summeval", "topical_chat", "qags"]


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


def report_page(kind, source, template, category, subcategory=None, csv=None, **wildcards):
    """One page of the report (rules/report.smk): how it is made from ``source``, its caption
    template (workflow/report/<template>.rst) and where the report files it."""
    return {
        "kind": kind,
        "source": str(source),
        "csv": str(csv) if csv is not None else None,
        "template": str(CAPTION_TEMPLATES / f"{template}.rst"),
        "category": category,
        "subcategory": subcategory,
        "wildcards": wildcards,
    }


def report_caption(page):
    """Where the rules report_pages_<group> write the caption of ``page`` (its template
    rendered for the page's judge run or notebook), as an absolute path: `snakemake --report`
    reads it there."""
    relative = Path(page).resolve().relative_to(REPORT_DIR.resolve())
    return REPORT_DIR.resolve() / "captions" / relative.with_suffix(".rst")
