"""Judge runs made by the pipeline from a config ``run:`` block, against the fake server.

Every reply here is the fake OpenAI-compatible server's (derived from each prompt's hash):
the runs are labelled ``fixture: true`` and their rows carry status ``fixture``, never a
judge's real answer. Items and human scores come from the offline mirror.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from geval_repro.config import ConfigError, check_config, judge_files, judge_spec, load_config
from geval_repro.files.fetch import fetch_source
from geval_repro.pipeline import tidy
from geval_repro.pipeline.judge_tables import build_item_scores, write_result_tables
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.runner.configured import run_configured_judge
from tests.conftest import FIXTURES, REPO_ROOT, settings, snakemake_process
from tests.fake_openai_server import FakeOpenAIServer

KEY = "sk-test-RULE-5b8e21c7d4"
SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
EQ1 = "probability-weighted rating (Eq. 1)"
#: benchmark -> (limit, dimensions): SummEval's first 48 items are 3 documents x 16 systems
#: (a summary-level value needs 3 documents: docs/protocol.md).
RUNS = {
    "summeval": (48, ["coherence", "fluency"]),
    "topical_chat": (30, ["engagingness"]),
    "qags_cnndm": (30, ["consistency"]),
    "qags_xsum": (30, ["consistency"]),
}
SETTINGS = settings(seed=7, bootstrap_resamples=20, permutation_resamples=20, pass_threshold=0.75)


@pytest.fixture
def server():
    with FakeOpenAIServer(lifetime=240) as fake:
        yield fake


def tidy_table(benchmark: str, raw: Path, mirror: Path, out: Path) -> Path:
    """The benchmark's tidy table, made by the pipeline's tidy step from the mirror."""
    path = out / f"{benchmark}.parquet"
    files = [
        str(fetch_source(s, raw, mirror=mirror, progressbar=False))
        for s in get_benchmark(benchmark).sources
    ]
    tidy.benchmark(benchmark, files, path)
    return path


def spec_for(benchmark: str, folder: Path, base_url: str) -> dict:
    limit, dimensions = RUNS[benchmark]
    return {
        "benchmark": benchmark,
        "format": "geval-jsonl",
        "label": "FIXTURE: fake-server replies (tests only)",
        "paper_metric": "G-Eval-4",
        "fixture": True,
        "dir": str(folder),
        "run": {
            "model": "fake-model",
            "base_url": base_url,
            "mode": "both",
            "n": 2,
            "top_logprobs": 7,
            "concurrency": 4,
            "limit": limit,
            "api_key_env": "GEVAL_TEST_JUDGE_KEY",
            "dimensions": dimensions,
        },
    }


def expected_rows(records: list[dict], human: pd.DataFrame, benchmark: str, dimension: str):
    """scipy on the runner's own weighted scores and the human scores of the same items."""
    entry = get_benchmark(benchmark)
    keys = list(entry.item_keys)
    scored = [r for r in records if r["weighted_score"] is not None]  # no level token: out
    judged = pd.DataFrame(
        [{**{k: r[k] for k in keys}, "judge": r["weighted_score"]} for r in scored]
    )
    pairs = judged.merge(human[[*keys, dimension]], on=keys)
    assert len(pairs) == len(scored) >= 20
    values = {}
    for name, function in SCIPY.items():
        if entry.level == "global":
            values[name] = function(pairs["judge"], pairs[dimension])[0]
            continue
        per_doc = [
            function(group["judge"], group[dimension])[0]
            for _, group in pairs.groupby("doc_id")
            if group[dimension].nunique() > 1 and group["judge"].nunique() > 1
        ]
        values[name] = float(np.mean(per_doc))
    return values, len(pairs)


@pytest.mark.slow
def test_runs_on_each_benchmark_flow_through_the_pipeline_to_tables(
    server, tmp_path, mirror_dir, monkeypatch
):
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    monkeypatch.setenv("GEVAL_TEST_JUDGE_KEY", KEY)
    raw, processed = tmp_path / "raw", tmp_path / "processed"
    processed.mkdir()
    for benchmark in RUNS:
        human_path = tidy_table(benchmark, raw, mirror_dir, processed)
        human = pd.read_parquet(human_path)
        name = f"fixture-run-{benchmark}"
        entry = spec_for(benchmark, tmp_path / "runs" / name, server.base_url)
        spec = judge_spec(name, entry)
        summaries = run_configured_judge(
            spec, processed=processed, raw_dir=raw, cache_dir=tmp_path / "cache" / name
        )
        limit, dimensions = RUNS[benchmark]
        assert list(summaries) == dimensions
        assert all(s["items"] == limit and s["failed"] == 0 for s in summaries.values())
        manifest = json.loads((Path(entry["dir"]) / "manifest.json").read_text())
        assert set(manifest["dimensions"]) == set(dimensions)
        assert manifest["dimensions"][dimensions[0]]["limit"] == limit

        # The pipeline's steps: the format's tidy step, item scores, the result tables.
        files = {d: str(f.path) for d, f in judge_files(spec, raw).items()}
        assert list(files) == dimensions
        outs = {t: processed / "judges" / name / f"{t}.parquet" for t in spec.processed_tables}
        assert set(outs) == {"replies", "rating_probs"}  # mode both: replies and ratings
        tidy.judge_files(spec, files, human_path, outs)
        item_scores = processed / "judges" / name / "item_scores.parquet"
        build_item_scores(outs["replies"], item_scores)
        tables = tmp_path / "tables" / name
        write_result_tables(
            spec, {**outs, "item_scores": item_scores}, human_path, SETTINGS, tables
        )
        rows = pd.read_csv(tables / "correlations.csv")
        assert (rows["status"] == "fixture").all()
        level = get_benchmark(benchmark).level
        # the benchmark's level, and for SummEval (summary level) the system level besides
        assert set(rows["level"]) == ({level, "system"} if level == "summary" else {level})
        rows = rows[rows["level"] == level]
        for dimension in dimensions:
            records = [
                json.loads(line)
                for line in (Path(entry["dir"]) / f"{dimension}.jsonl").read_text().splitlines()
            ]
            assert len(records) == limit
            expected, n_items = expected_rows(records, human, benchmark, dimension)
            for coefficient, value in expected.items():
                row = rows[
                    (rows["dimension"] == dimension)
                    & (rows["variant"] == EQ1)
                    & (rows["coefficient"] == coefficient)
                ]
                assert len(row) == 1, (benchmark, dimension, coefficient)
                assert row["value"].iloc[0] == pytest.approx(value, abs=1e-9)
                assert row["n_items"].iloc[0] == n_items
                total = len(human)
                assert f"partial run: {n_items} of {total} items" in row["note"].iloc[0]
        if benchmark == "summeval":
            assert set(rows.loc[rows["variant"] == EQ1, "n_groups"].dropna()) <= {1, 2, 3}
    for path in tmp_path.rglob("*"):  # the key was sent but is written nowhere
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert server.auth and all(a == f"Bearer {KEY}" for a in server.auth)


def run_config(tmp_path: Path, **run_changes) -> dict:
    config = load_config()
    run = {"model": "m", "mode": "logprobs", **run_changes}
    config["judges"]["mine"] = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "label": "mine",
        "dir": str(tmp_path / "not-made-yet"),
        "run": run,
    }
    return config


def test_run_block_needs_no_existing_folder_and_lists_its_files(tmp_path):
    config = run_config(tmp_path, dimensions=["fluency"])
    check_config(config)
    spec = judge_spec("mine", config["judges"]["mine"])
    files = judge_files(spec, tmp_path)
    assert {d: f.path for d, f in files.items()} == {
        "fluency": tmp_path / "not-made-yet" / "fluency.jsonl"
    }
    assert spec.processed_tables == ("rating_probs",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n": 3}, "--mode both"),
        ({"dimensions": ["naturalness"]}, "not SummEval dimensions"),
        ({"api_key": "sk-secret-value"}, "did you mean 'api_key_env'"),
        ({"top_logprobs": 40}, "40 is greater than the maximum of 20"),
        ({"temperatur": 1}, "did you mean 'temperature'"),
        ({"limit": 2.5}, "whole number"),
        ({"prompts": {"coherence": "x.txt"}, "dimensions": ["fluency"]}, "does not judge"),
    ],
)
def test_bad_run_blocks_are_named(tmp_path, change, message):
    with pytest.raises(ConfigError) as error:
        check_config(run_config(tmp_path, **change))
    assert message in str(error.value)
    assert "sk-secret-value" not in str(error.value)


def test_run_block_needs_a_dir_and_reads_the_mode_writes(tmp_path):
    config = run_config(tmp_path, mode="sample")
    config["judges"]["mine"]["reads"] = ["level_probs"]
    with pytest.raises(ConfigError, match="mode sample does not write"):
        check_config(config)
    config = run_config(tmp_path)
    spec = config["judges"]["mine"]
    spec["files"] = {"coherence": {"path": "x.jsonl"}}
    del spec["dir"]
    with pytest.raises(ConfigError, match="needs format geval-jsonl and dir"):
        check_config(config)


def contents_written_since(folder: Path, since: float) -> dict[Path, bytes]:
    """The bytes of the files under ``folder`` (below 50 MB) last written at or after
    ``since`` (a ``time.time()``), without those another test's run removes meanwhile (its
    locks, its job markers)."""
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            try:
                status = path.stat()
                if status.st_mtime >= since and status.st_size < 50_000_000:
                    found[path] = path.read_bytes()
            except FileNotFoundError:
                continue
    return found


def snakemake_config(tmp_path: Path, mirror_dir: Path, base_url: str, limit: int) -> Path:
    """The fixture config reduced to one configured run (SummEval coherence, fake server)."""
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    config["judges"]["fixture-run"] = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "label": "FIXTURE: fake-server replies (tests only)",
        "fixture": True,
        "dir": str(tmp_path / "run"),
        "run": {
            "model": "fake-model",
            "base_url": base_url,
            "mode": "logprobs",
            "top_logprobs": 7,
            "limit": limit,
            "api_key_env": "GEVAL_TEST_JUDGE_KEY",
            "dimensions": ["coherence"],
        },
    }
    config["judges_to_run"] = ["fixture-run"]
    config["mirror"] = str(mirror_dir)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.slow
def test_snakemake_rule_runs_the_judge_and_reruns_only_on_a_changed_parameter(
    server, tmp_path, mirror_dir, monkeypatch
):
    monkeypatch.setenv("GEVAL_TEST_JUDGE_KEY", KEY)
    # Snakemake keeps its records in the checkout's .snakemake (the runs' working folder),
    # beside those of the other tests' runs: the scan at the end reads what changed there
    # since now (coarse file clocks: 2 s earlier).
    metadata, started = REPO_ROOT / ".snakemake", time.time() - 2
    data, results = tmp_path / "data", tmp_path / "results"
    config = snakemake_config(tmp_path, mirror_dir, server.base_url, limit=3)
    until = ("--until", "ask_judge_fixture_run")
    done = snakemake_process(data, results, config, *until)
    assert done.returncode == 0, done.stderr[-6000:]
    rows = (tmp_path / "run" / "coherence.jsonl").read_text().splitlines()
    assert len(rows) == 3 and len(server.requests) == 3
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["dimensions"]["coherence"]["request_parameters"]["top_logprobs"] == 7
    assert (data / "cache" / "judge" / "fixture-run").is_dir()
    log = (results / "logs" / "judges" / "fixture-run_run.log").read_text()
    assert "judge fixture-run, coherence: 3 items, sent 3, cached 0, failed 0" in log
    usage = manifest["dimensions"]["coherence"]["usage"]["total_tokens"]
    assert usage > 0  # the token counts are named for what they count (prompt + completion)
    assert (
        f"tokens (prompt + completion, as the server counted them): {usage} for this run's "
        f"requests, {usage} for every answer in the output" in log
    )

    dry = snakemake_process(data, results, config, "-n", *until)
    assert dry.returncode == 0 and re.search(r"^total\s+0$", dry.stdout, re.M)  # up to date

    config = snakemake_config(tmp_path, mirror_dir, server.base_url, limit=4)
    dry = snakemake_process(data, results, config, "-n", *until)
    assert dry.returncode == 0, dry.stderr[-3000:]
    reasons = dry.stdout[dry.stdout.index("Reasons:") :]  # the profile prints no job blocks
    assert re.search(r"params have changed[^:]*:\s*ask_judge_fixture_run", reasons), reasons
    # On to the run's tables: the rule's files flow through the pipeline's rules.
    done = snakemake_process(data, results, config, "--until", "judge_tables_fixture_run")
    assert done.returncode == 0, done.stderr[-6000:]
    assert len(server.requests) == 4  # the first three answers came from the cache
    rows = pd.read_csv(results / "tables" / "judges" / "fixture-run" / "correlations.csv")
    assert set(rows["status"]) == {"fixture"} and set(rows["level"]) == {"summary", "system"}
    assert rows["note"].str.contains("partial run: 4 of 1600 items").any()
    # Another label (an entry key outside run:) reruns the run's tables, not the run.
    relabelled = yaml.safe_load(config.read_text())
    relabelled["judges"]["fixture-run"]["label"] = "FIXTURE: fake-server replies, relabelled"
    config.write_text(yaml.safe_dump(relabelled))
    dry = snakemake_process(data, results, config, "-n", "--until", "judge_tables_fixture_run")
    assert dry.returncode == 0, dry.stderr[-3000:]
    reasons = dry.stdout[dry.stdout.index("Reasons:") :]
    assert re.search(r"params have changed[^:]*:\s*tidy_judge_fixture_run", reasons), reasons
    assert "ask_judge_fixture_run" not in reasons  # and the tables follow their input
    written = {**contents_written_since(tmp_path, 0), **contents_written_since(metadata, started)}
    assert any(path.is_relative_to(metadata) for path in written)  # the runs' records
    for path, content in written.items():
        assert KEY.encode() not in content, path


def test_failed_requests_stop_the_job_naming_the_items(
    server, tmp_path, mirror_dir, monkeypatch, caplog
):
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    monkeypatch.setenv("GEVAL_TEST_JUDGE_KEY", KEY)
    processed = tmp_path / "processed"
    processed.mkdir()
    tidy_table("qags_xsum", tmp_path / "raw", mirror_dir, processed)
    entry = spec_for("qags_xsum", tmp_path / "run", server.base_url)
    entry["run"].update(limit=3, concurrency=1, max_attempts=1)
    spec = judge_spec("x", entry)
    server.faults.extend(["ok", "401"])  # the second item: an error echoing the key
    with pytest.raises(RuntimeError, match=r"consistency: 1 items.*Rerun to retry"):
        run_configured_judge(
            spec, processed=processed, raw_dir=tmp_path / "raw", cache_dir=tmp_path / "c"
        )
    assert "item {'item_id': 1}: HTTP 401" in caplog.text
    assert KEY not in caplog.text
    sent = len(server.requests)
    summaries = run_configured_judge(
        spec, processed=processed, raw_dir=tmp_path / "raw", cache_dir=tmp_path / "c"
    )
    assert summaries["consistency"]["sent"] == 1 and len(server.requests) == sent + 1


def test_readme_run_block_example_is_a_valid_config():
    readme = (REPO_ROOT / "docs" / "judge-runner.md").read_text()
    block = next(b for b in readme.split("```yaml\n")[1:] if "\n    run:\n" in b).split("```")[0]
    config = load_config()
    example = yaml.safe_load(block)
    config["judges"].update(example["judges"])
    config["judges_to_run"] = example["judges_to_run"]
    check_config(config)
    (name,) = example["judges"]
    assert config["judges"][name]["run"]["api_key_env"] == "OPENAI_API_KEY"
