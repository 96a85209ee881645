"""The whole workflow on the offline mirror plus the FIXTURE judge run.

Checks the outputs a reader relies on: every table and figure is written, the fixture's
rows are never labelled as results, the published numbers that UniEval's released
predictions and the baselines reproduce are reproduced, and a rerun gives identical files.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from geval_repro.registry.paper import PAPER
from tests.conftest import FIXTURES, PipelineRun, run_snakemake, snakemake_process


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "logs" not in p.parts
    }


def test_every_output_is_written(pipeline_run: PipelineRun) -> None:
    tables = pipeline_run.results / "tables"
    for name in ["correlations", "rerun_agreement"]:
        assert (tables / f"{name}.csv").is_file() and (tables / f"{name}.md").is_file()
    for name in ["table1_summeval", "table2_topical_chat", "table3_qags"]:
        assert (tables / f"{name}.md").read_text().startswith(f"Table {name[5]}:")
    judge = tables / "judges" / "fixture-gpt4"
    for name in ["main", "one_reply", "parsers", "diagnostics", "rollups", "significance"]:
        assert (judge / f"{name}.csv").is_file() and (judge / f"{name}.md").is_file()
    figures = pipeline_run.results / "figures"
    for stem in ["sweep_spearman", "sweep_kendall", "tie_rate"]:
        for ext in ["png", "svg"]:
            assert (figures / "judges" / "fixture-gpt4" / f"{stem}.{ext}").stat().st_size > 1000
    assert (figures / "human_distributions.png").is_file()
    for ext in ["png", "svg"]:
        for stem in ["table1_summeval", "table2_topical_chat", "table3_qags"]:
            assert (figures / f"reproduction_{stem}.{ext}").stat().st_size > 1000
    processed = pipeline_run.data / "processed"
    replies = pd.read_parquet(processed / "judges" / "fixture-gpt4" / "replies.parquet")
    assert len(replies) == 4 * 16 * 4 * 20
    # fixture judges of every benchmark, and the geval-jsonl run with level probabilities
    for judge in ["fixture-topical-chat", "fixture-qags-cnndm", "fixture-qags-xsum"]:
        for name in ["correlations", "main", "significance", "rollups"]:
            assert (tables / "judges" / judge / f"{name}.csv").is_file(), (judge, name)
        assert (figures / "judges" / judge / "sweep_spearman.png").is_file()
    jsonl = tables / "judges" / "fixture-jsonl"
    items = pd.read_csv(jsonl / "rating_items.csv")
    assert len(items) == 4 * 16 * 4 and items["passed"].notna().all()
    assert (jsonl / "main.csv").is_file() and (jsonl / "sweep.csv").is_file()


def test_judge_rows_face_the_best_baseline_on_every_benchmark(pipeline_run: PipelineRun) -> None:
    tables = pipeline_run.results / "tables"
    tests = pd.read_csv(tables / "significance_vs_baseline.csv")
    assert (tables / "significance_vs_baseline.md").is_file()
    judges = {
        "fixture-gpt4": ("summeval", "inputs"),
        "fixture-topical-chat": ("topical_chat", "items"),
        "fixture-qags-cnndm": ("qags_cnndm", "items"),
        "fixture-qags-xsum": ("qags_xsum", "items"),
        "fixture-jsonl": ("summeval", "inputs"),
        "gpt4-metriceval-run1": ("summeval", "inputs"),
    }
    for judge, (benchmark, unit) in judges.items():
        rows = tests[tests["judge"] == judge]
        assert not rows.empty and set(rows["benchmark"]) == {benchmark}, judge
        assert set(rows["unit"]) == {unit} and rows["pvalue"].between(0, 1).all(), judge
        assert set(rows["status"]) == {"recomputed" if judge.startswith("gpt4") else "fixture"}
    chat = tests[tests["benchmark"] == "topical_chat"]
    assert (chat["n_items"] <= 300).all()  # the baselines score the 300 non-ground-truth turns
    assert set(tests["baseline"]) <= {
        "ROUGE-1",
        "ROUGE-2",
        "ROUGE-L",
        "BLEU-4",
        "METEOR",
        "METEOR 1.5",
    }
    for name in ["table1_summeval", "table2_topical_chat", "table3_qags"]:
        text = (tables / f"{name}.md").read_text()
        assert "Significance against the best recomputed baseline" in text, name


def test_every_job_logged_what_it_did(pipeline_run: PipelineRun) -> None:
    logs = pipeline_run.results / "logs"
    files = list(logs.rglob("*.log"))
    assert len(files) > 40
    empty = [str(p.relative_to(logs)) for p in files if p.stat().st_size == 0]
    assert not empty, f"empty logs: {empty}"
    for path in files:
        assert "done in" in path.read_text(), path
    baselines = (logs / "rows" / "baselines.log").read_text()
    assert "baseline rows: 100%" in baselines  # tqdm progress, through the job's stderr
    assert "human_ceiling" in (logs / "rows" / "human.log").read_text()
    assert "human_ceiling" not in baselines  # another job's records stay out
    summeval = (logs / "tables" / "summeval.log").read_text()
    assert "read and validated 1600 rows" in summeval
    # each job's own wall and CPU time, of its process (perf/time_pipeline.py reads them; no
    # benchmark files)
    for text in ((logs / "rows" / "human.log").read_text(), baselines):
        closing = re.search(r"done in ([\d.]+) s \(([\d.]+) s CPU of the job's process", text)
        assert closing and 0 < float(closing.group(2)), text[-500:]
    assert not (logs / "benchmarks").exists()


def test_fixture_rows_are_never_results(pipeline_run: PipelineRun) -> None:
    rows = pd.read_csv(pipeline_run.results / "tables" / "correlations.csv")
    fixture = rows[rows["metric"].str.startswith("fixture-")]
    assert len(fixture) > 0
    assert set(fixture["status"]) == {"fixture"}
    assert rows.loc[rows["status"] == "fixture", "metric"].str.startswith("fixture-").all()
    tables = pipeline_run.results / "tables"
    main = (tables / "table1_summeval.md").read_text()
    assert "| fixture-gpt4 | mean-of-20/original | fixture |" in main
    assert "| fixture-jsonl | probability-weighted rating (Eq. 1) | fixture |" in main
    assert "| fixture-jsonl | most likely rating | fixture |" in main
    chat = (tables / "table2_topical_chat.md").read_text()
    assert "| fixture-topical-chat | mean-of-20/original | fixture |" in chat
    qags = (tables / "table3_qags.md").read_text()
    assert "| fixture-qags-cnndm | mean-of-20/original | fixture |" in qags
    assert "| fixture-qags-cnndm + fixture-qags-xsum | mean-of-20/original | fixture |" in qags
    # judge rows follow the paper's level per benchmark and face the printed G-Eval-4 value
    # (plus SummEval's system level, which the paper does not print)
    levels = fixture.groupby("benchmark")["level"].unique().map(list).to_dict()
    assert levels == {
        "summeval": ["summary", "system"],
        "topical_chat": ["global"],
        "qags_cnndm": ["global"],
        "qags_xsum": ["global"],
        "qags_avg": ["global"],
    }
    faced = fixture[(fixture["benchmark"] == "qags_avg") & (fixture["coefficient"] == "pearson")]
    assert faced.loc[faced["variant"] == "mean-of-20/original", "paper_value"].iloc[0] == 0.599


def test_printed_numbers_are_reproduced_where_the_data_allow(pipeline_run: PipelineRun) -> None:
    rows = pd.read_csv(pipeline_run.results / "tables" / "correlations.csv")
    # the G-Eval paper's printed numbers (SummEval's own Table 2 is another paper's, on 17
    # systems: tests/test_committed_cells.py)
    geval = rows["paper"].fillna("").str.startswith(PAPER)
    recomputed = rows[(rows["status"] == "recomputed") & rows["paper_value"].notna() & geval]

    def deltas(metric: str, benchmark: str, variant: str | None = None) -> pd.Series:
        part = recomputed[(recomputed["metric"] == metric) & (recomputed["benchmark"] == benchmark)]
        if variant is not None:
            part = part[part["variant"] == variant]
        assert len(part) > 0, (metric, benchmark, variant)
        return part.set_index(["dimension", "coefficient"])["delta"].abs()

    # Table 3, UniEval from its released predictions, and ROUGE-2 on CNN/DM: to rounding.
    assert (deltas("UniEval", "qags_cnndm") <= 0.0005 + 1e-9).all()
    assert (deltas("UniEval", "qags_xsum") <= 0.0005 + 1e-9).all()
    assert (deltas("ROUGE-2", "qags_cnndm") <= 0.0005 + 1e-9).all()
    # Table 1, ROUGE-2 with the mean over the 11 references (BARTScore's protocol).
    rouge2 = deltas("ROUGE-2", "summeval", "11 references, mean")
    assert (rouge2.drop("AVG", level=0) <= 0.0005 + 1e-9).all()
    # Table 2's UniEval Spearman column does not come from UniEval's released predictions.
    chat = deltas("UniEval", "topical_chat")
    assert (chat.xs("spearman", level="coefficient") > 0.1).all()


def test_every_printed_number_has_a_row(pipeline_run: PipelineRun) -> None:
    from geval_repro.registry.paper import paper_table

    rows = pd.read_csv(pipeline_run.results / "tables" / "correlations.csv")
    printed = paper_table()
    keys = [rows["benchmark"], rows["dimension"], rows["coefficient"], rows["paper_value"].round(4)]
    have = set(zip(*keys, strict=True))
    for row in printed.itertuples():
        assert (row.benchmark, row.dimension, row.coefficient, round(row.value, 4)) in have, row


def test_judge_pairs_cover_every_benchmark(pipeline_run: PipelineRun) -> None:
    """Every pair of metrics on every benchmark is tested, the judge runs (fixtures
    included, labelled) beside the baselines; each benchmark has its cluster figure."""
    tables = pipeline_run.results / "tables"
    pairs = pd.read_csv(tables / "pairwise_significance.csv")
    clusters = pd.read_csv(tables / "significance_clusters.csv")
    assert (tables / "pairwise_significance.md").is_file()
    assert (tables / "significance_clusters.md").is_file()
    coefficients = pairs.groupby("benchmark")["coefficient"].unique().map(sorted).to_dict()
    assert coefficients == {
        "summeval": ["kendall", "spearman"],
        "topical_chat": ["pearson", "spearman"],
        "qags_cnndm": ["kendall", "pearson", "spearman"],
        "qags_xsum": ["kendall", "pearson", "spearman"],
        "dialsummeval": ["kendall", "spearman"],  # the registry's other_coefficients
        "sfres": ["kendall", "pearson", "spearman"],
        "sfhot": ["kendall", "pearson", "spearman"],
    }
    metrics = clusters.groupby("benchmark")["metric"].unique().map(set).to_dict()
    assert {"fixture-gpt4", "fixture-jsonl", "gpt4-metriceval-run1", "ROUGE-2"} <= metrics[
        "summeval"
    ]
    assert {"fixture-topical-chat", "UniEval", "METEOR 1.5"} <= metrics["topical_chat"]
    assert {"fixture-qags-xsum", "UniEval", "ROUGE-L"} <= metrics["qags_xsum"]
    summeval = clusters[clusters["benchmark"] == "summeval"]
    assert set(summeval.loc[summeval["kind"] == "baseline", "variant"]) == {"11 references, mean"}
    fixture = pairs["metric_a"].str.startswith("fixture-") | pairs["metric_b"].str.startswith(
        "fixture-"
    )
    assert (pairs.loc[fixture, "status"] == "fixture").all()
    assert (pairs.loc[~fixture, "status"] == "recomputed").all()
    tested = pairs["pvalue"].notna()
    assert pairs.loc[tested, "pvalue"].between(0, 1).all()
    assert (pairs.loc[tested, "pvalue_holm"] >= pairs.loc[tested, "pvalue"]).all()
    n_tables = len(pairs.groupby(["benchmark", "dimension", "coefficient"]))
    assert len(clusters.groupby(["benchmark", "dimension", "coefficient"])) == n_tables
    figures = pipeline_run.results / "figures"
    for benchmark in coefficients:
        for ext in ("png", "svg"):
            assert (figures / f"significance_clusters_{benchmark}.{ext}").stat().st_size > 1000


#: Jobs with random procedures (bootstrap CIs, permutation tests; seeded from the config):
#: the tables of a judge run with replies (summary level), with level probabilities and at
#: the global level, the UniEval rows and the rerun agreement; the judge-vs-judge tests of
#: a summary-level and a global-level benchmark; and the combined tables.
SEEDED_JOBS = (
    "judge_tables_fixture_gpt4",
    "judge_tables_fixture_jsonl",
    "judge_tables_fixture_topical_chat",
    "unieval_rows",
    "rerun_agreement",
    "judge_averages",
    "judge_pairs_summeval",
    "judge_pairs_qags_xsum",
    "pairwise_significance",
    "correlations",
)


def seeded_targets(run: PipelineRun) -> list[str]:
    """The jobs a determinism check reruns: :data:`SEEDED_JOBS`, and every judge run's sweep
    (random reply subsets). As targets with ``--force``, only these jobs run; the jobs
    downstream of them (sweep figures, report pages, notebooks) are not rerun: their files are
    functions of these jobs' files, drawn without randomness, and tests/test_regenerate.py
    compares the same rules' figures, drawn in other processes, with the committed ones bit
    for bit."""
    judges = yaml.safe_load(run.config.read_text())["judges_to_run"]
    swept = [j for j in judges if (run.results / "tables" / "judges" / j / "sweep.csv").is_file()]
    assert {"fixture-gpt4", "fixture-topical-chat", "fixture-jsonl"} <= set(swept)
    targets = list(SEEDED_JOBS)
    for judge in swept:
        targets.append(str(run.results / "tables" / "judges" / judge / "sweep.csv"))
    return targets


def test_rerun_gives_identical_files(pipeline_run: PipelineRun) -> None:
    before = _digest(pipeline_run.results)
    targets = seeded_targets(pipeline_run)
    run_snakemake(pipeline_run.data, pipeline_run.results, pipeline_run.config, "--force", *targets)
    after = _digest(pipeline_run.results)
    assert before == after


def test_a_follow_up_command_without_the_runs_options_rewrites_nothing(
    pipeline_run: PipelineRun, tmp_path: Path
) -> None:
    """What a newcomer did: after a run, `snakemake readme` typed without that run's options
    (here: the fixture config without the MetricEval judges the run made). It rewrote the
    tables without those judges' rows; now it is refused in one line, before any job, naming
    the judges it would leave out and the command with the options they were made with."""
    before = {p: p.stat().st_mtime_ns for p in pipeline_run.results.rglob("*") if p.is_file()}
    config = tmp_path / "config.yaml"
    config.write_text((FIXTURES / "config_fixture.yaml").read_text())
    done = snakemake_process(pipeline_run.data, pipeline_run.results, config, "readme")
    assert done.returncode == 1, done.stderr[-3000:]
    refusal = [line for line in done.stderr.splitlines() if line.startswith("geval-repro:")]
    assert len(refusal) == 1, done.stderr[-3000:]
    assert refusal[0].startswith(f"geval-repro: nothing was run: {pipeline_run.results} holds")
    assert "without the judges gpt4-metriceval-run1, gpt4-metriceval-run2" in refusal[0]
    assert "Traceback" not in done.stderr
    after = {p: p.stat().st_mtime_ns for p in pipeline_run.results.rglob("*") if p.is_file()}
    assert after == before  # not one file written, the run manifest included


@pytest.mark.pipeline
@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("judges_to_run: [nobody]\n", "nobody"),
        ("seed: -3\n", "seed: -3 is less than the minimum of 0"),
        ("mirror: /nonexistent-mirror\n", "mirror directory /nonexistent-mirror does not exist"),
    ],
)
def test_invalid_config_fails_early_with_its_message_alone(
    tmp_path: Path, bad: str, said: str
) -> None:
    """No traceback: Snakemake's report of an exception with its frames (Snakefile, line;
    config.py, line) was printed under the message."""
    config = tmp_path / "bad.yaml"
    config.write_text(bad)
    done = snakemake_process(tmp_path / "data", tmp_path / "results", config, "-n")
    assert done.returncode == 1
    assert "geval-repro: " in done.stderr and said in done.stderr, done.stderr
    assert 'File "' not in done.stderr and "Error in file" not in done.stderr, done.stderr
