"""Config of judge runs with a local server, pinned run files, and how their rows are labelled
(status toolkit-run, partial-run and coverage notes)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.config import (
    DEFAULT_CONFIG_PATH,
    ConfigError,
    check_config,
    judge_spec,
    judge_specs,
    load_config,
)
from geval_repro.files.digest import sha256_of
from geval_repro.files.fetch import FetchError
from geval_repro.pipeline import tidy
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.targets import Targets
from geval_repro.registry.judges import status_of
from geval_repro.runner.configured import request_params
from geval_repro.tables.judge_rows import coverage_note, with_coverage

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCAL_CONFIG = REPO_ROOT / "workflow" / "configs" / "local_model.yaml"


def with_judge(**judge) -> dict:
    config = load_config()
    config["judges"]["mine"] = {"benchmark": "summeval", "format": "geval-jsonl", "label": "x"}
    config["judges"]["mine"].update(judge)
    return config


def run(**keys) -> dict:
    return with_judge(dir="runs/not-made-yet", run={"mode": "logprobs", **keys})


def test_the_local_model_config_is_valid_and_sized_for_two_cores():
    config = load_config(DEFAULT_CONFIG_PATH, LOCAL_CONFIG)  # checked as merged
    targets = Targets.from_config(config, Layout.from_config(config))
    for name, spec in judge_specs(config).items():
        assert spec.run is not None
        assert request_params(spec.run).model == "smollm2-135m"  # the server's model
        assert spec.status == "toolkit-run"
        if spec.benchmark.name == "writer_vs_llm":
            # every summary, one request each: the first-position reading with a
            # two-thread server, alone on 2 cores (docs/local-model.md)
            assert spec.run.mode == "logprobs" and spec.run.first_position == "logit_bias"
            assert spec.run.limit is None
            assert targets.threads(name) == 2
        else:  # labelled subsets, two one-thread servers side by side
            # G-Eval's forms with 20 replies, SummEdits' Yes/No prompt with 5 (its answer is
            # read from the reply's first word, P(Yes) from one distribution:
            # docs/local-model.md)
            replies = 5 if spec.prompt_variant == "yes-no" else 20
            assert spec.run.mode == "both" and spec.run.n == replies
            assert (spec.run.limit is None) is (spec.run.sample is not None)  # one subset
            assert targets.threads(name) == 1
            if spec.run.sample is not None:  # a seeded subset: its seed is the run's
                assert spec.run.seed is not None


def test_the_gpu_config_judges_every_writer_vs_llm_summary_on_a_server() -> None:
    config = load_config(DEFAULT_CONFIG_PATH, LOCAL_CONFIG.with_name("writer_vs_llm_gpu.yaml"))
    (spec,) = judge_specs(config).values()
    assert spec.benchmark.name == "writer_vs_llm" and spec.run is not None
    assert spec.run.server is None and spec.run.base_urls == ("http://127.0.0.1:8000/v1",)
    assert spec.run.limit is None and spec.run.mode == "both" and spec.run.n == 20
    assert spec.run.dimensions == spec.benchmark.dimension_names


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"server": {"llama_cpp": {"model": "smollm2-135m"}}, "base_url": "http://x:1/v1"},
         "both server"),
        ({"server": {"llama_cpp": {"model": "smollm2-135m"}}, "model": "other"},
         "not the local server's model"),
        ({"server": {"llama_cpp": {"model": "gpt-5"}}}, "server"),
        ({}, "needs model"),
        ({"model": "m", "first_position": "logit_bias", "mode": "both"}, "first_position"),
        ({"model": "m", "server": {"vllm": {}}}, "server"),
        ({"model": "m", "se_target": 0.3}, "se_target samples replies"),  # mode logprobs
        ({"model": "m", "mode": "sample", "se_target": 0}, "se_target"),
        ({"model": "m", "mode": "sample", "se_target": 0.3, "batch": 1}, "batch"),
        ({"model": "m", "mode": "sample", "se_target": 0.3, "n": 3}, "maximum n 3"),
        ({"model": "m", "mode": "sample", "sample": 5}, "give seed"),
        ({"model": "m", "mode": "sample", "sample": 0, "seed": 1}, "sample"),
    ],
)  # fmt: skip
def test_bad_run_blocks_are_refused(keys, message):
    config = run(**keys)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


def test_an_adaptive_run_block_reaches_the_runner_and_gets_no_fixed_n_sweep():
    config = run(model="m", mode="sample", se_target=0.25, batch=5, n=30)
    check_config(config)
    judge = judge_spec("mine", config["judges"]["mine"])
    assert (judge.run.se_target, judge.run.batch, judge.run.n) == (0.25, 5, 30)
    assert judge.has_replies and not judge.has_sweep
    fixed = judge_spec("mine", run(model="m", mode="sample", n=20)["judges"]["mine"])
    assert fixed.has_sweep


def test_several_base_urls():
    config = run(model="m", base_url=["http://a:8000/v1", "http://b:8000/v1"])
    check_config(config)
    run_spec = judge_spec("mine", config["judges"]["mine"]).run
    assert run_spec is not None
    assert run_spec.base_urls == ("http://a:8000/v1", "http://b:8000/v1")


def test_pinned_run_files_are_verified_when_read(tmp_path, mirror_dir):
    lines = [{"doc_id": "x", "system_id": "M11", "replies": ["3"]}]
    run_file = tmp_path / "coherence.jsonl"
    run_file.write_text("".join(json.dumps(r) + "\n" for r in lines))
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{}\n")
    spec = {
        "files": {"coherence": {"path": str(run_file), "sha256": sha256_of(run_file)}},
        "manifest": {"path": str(manifest), "sha256": "0" * 64},
        "toolkit_run": True,
    }
    config = with_judge(**copy.deepcopy(spec))
    check_config(config)
    judge = judge_spec("mine", config["judges"]["mine"])
    assert judge.pinned_files == {str(run_file): sha256_of(run_file), str(manifest): "0" * 64}
    assert judge.status == "toolkit-run"
    with pytest.raises(FetchError, match=r"manifest.json has SHA-256 .* pins 0000"):
        tidy.judge_files(judge, {}, tmp_path / "unused.parquet", {})
    with pytest.raises(ConfigError, match="manifest: applies"):
        check_config(with_judge(dir=str(tmp_path), manifest={"path": str(manifest)}))


def test_statuses():
    assert status_of(fixture=True, toolkit_run=True) == "fixture"
    assert status_of(fixture=False, toolkit_run=True) == "toolkit-run"
    assert status_of(fixture=False, toolkit_run=False) == "recomputed"
    # a run: block makes a toolkit run without saying so
    made = judge_spec("mine", run(model="m")["judges"]["mine"])
    assert made.status == "toolkit-run"


def test_coverage_goes_into_every_note_of_the_rating_rows_of_the_dimension():
    eq1 = "probability-weighted rating (Eq. 1)"
    rows = pd.DataFrame(
        {
            "dimension": ["coherence", "fluency", "AVG", "coherence", "AVG"],
            "variant": [
                eq1,
                "most likely rating",
                eq1,
                "mean-of-20/original",
                "first-reply/original",
            ],
            "note": ["label; partial run: 80 of 1600 items", "label", "", "label", ""],
        }
    )
    noted = with_coverage(rows, {"coherence": (80, 35), "fluency": (80, 80)})
    assert noted["note"][0] == (
        "label; partial run: 80 of 1600 items; coverage: a rating token in 35 of 80 items "
        "(44%); the others have no probability-weighted score (left out, never 0)"
    )
    assert noted["note"][1].endswith(coverage_note(80, 80))
    assert noted["note"][2].startswith("coherence coverage: a rating token in 35 of 80")
    # the coverage is the log-probabilities': the replies' rows keep their notes
    assert noted["note"][3] == "label" and noted["note"][4] == ""
