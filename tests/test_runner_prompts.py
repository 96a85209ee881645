"""Prompt templates of the runner: released SummEval files, this toolkit's prompts, frozen steps."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.registry.benchmarks import BENCHMARKS, get_benchmark
from geval_repro.runner.prompts import (
    PROMPTS_DIR,
    TOOLKIT_HEADER,
    benchmark_prompt_path,
    read_template,
    sha256_text,
    steps_path,
)
from tests.fake_openai_server import FakeOpenAIServer

REPO_ROOT = Path(__file__).resolve().parents[1]
TOOLKIT_PROMPTS = [
    (name, dimension)
    for name, benchmark in BENCHMARKS.items()
    if not benchmark.prompts.released  # SummEval's and writer_vs_llm's are the released ones
    for dimension in benchmark.dimensions
]


@pytest.mark.parametrize(("name", "dimension"), TOOLKIT_PROMPTS, ids=lambda v: str(v)[:20])
def test_toolkit_prompts_match_the_registry(name, dimension, tmp_path):
    path = benchmark_prompt_path(name, dimension.name, tmp_path)
    assert path.read_text(encoding="utf-8").startswith(TOOLKIT_HEADER)
    prompt = read_template(path)
    assert prompt.origin == "geval-repro" and TOOLKIT_HEADER not in prompt.template
    assert prompt.placeholders == set(get_benchmark(name).texts)  # every text is shown
    low, high = dimension.judge_scale
    title = dimension.name.capitalize()
    assert f"{title} ({low}-{high})" in prompt.template  # the registry's scale is asked for
    assert prompt.template.endswith(f"- {title}:")


def test_summeval_prompts_are_the_released_files(mirror_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    pinned = {  # geval_repro/data/sources.yaml
        "coherence": "87ae7311d8edfc8e39a9674672496ef42e4bc768f38e927f294293b9d0ba4973",
        "fluency": "cd996012a744fea5007ba49e8508c1407eee4df05f39b395a4ad9d073f72ca7b",
    }
    for dimension, sha256 in pinned.items():
        prompt = read_template(benchmark_prompt_path("summeval", dimension, tmp_path))
        assert prompt.sha256 == sha256 and prompt.origin == "released"
        assert "\r" not in prompt.template  # read like the released script: text mode
    filled = prompt.fill({"Document": "D", "Summary": "the {{Document}} summary"})
    assert "the {{Document}} summary" in filled  # inserted texts are not re-substituted


def test_prompts_are_package_data():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["geval_repro"]
    files = [p.relative_to(PROMPTS_DIR.parent).as_posix() for p in PROMPTS_DIR.rglob("*.txt")]
    assert len(files) == 13  # Topical-Chat 4, QAGS 1, DialSummEval 4, SFRES / SFHOT 3, SummEdits 1
    folders = {b.prompts.folder for b in BENCHMARKS.values() if b.prompts.folder}
    assert folders == {p.parent.name for p in PROMPTS_DIR.rglob("*.txt")}
    assert all(any(fnmatch.fnmatch(f, pattern) for pattern in patterns) for f in files)


TEMPLATE = (
    "Rate the summary.\n\nEvaluation Criteria:\n\nCoherence (1-5) - structure.\n\n"
    "Evaluation Steps:\n\n{{Evaluation Steps}}\n\nSummary:\n\n{{Summary}}\n\n- Coherence:"
)


def test_frozen_steps_fill_the_template_and_a_tampered_file_stops(tmp_path):
    path = tmp_path / "coh.txt"
    path.write_text(TEMPLATE)
    with pytest.raises(ValueError, match="geval-repro steps"):
        read_template(path)  # the steps were never frozen
    text = "1. Read.\n2. Rate."
    record = {"model": "m", "text": text, "sha256": sha256_text(text)}
    steps_path(path).write_text(json.dumps(record))
    prompt = read_template(path)
    assert prompt.steps.sha256 == sha256_text(text)
    assert "Evaluation Steps:\n\n1. Read.\n2. Rate.\n\nSummary:\n\nS" in prompt.fill(
        {"Summary": "S"}
    )
    steps_path(path).write_text(json.dumps({**record, "text": text + "\n3. Edited."}))
    with pytest.raises(ValueError, match="edited after they were frozen"):
        read_template(path)


def test_steps_command_freezes_the_models_steps(tmp_path, capsys):
    path = tmp_path / "coh.txt"
    path.write_text(TEMPLATE)
    with FakeOpenAIServer(lifetime=60) as server:
        argv = ["steps", "--criteria", str(path), "--model", "m", "--base-url", server.base_url]
        assert main(argv) == 0
        assert main(argv) == 2  # frozen: not replaced without --force
        asked = server.requests[0]
    assert "--force" in capsys.readouterr().err
    record = json.loads(steps_path(path).read_text())
    assert asked.startswith("Rate the summary.") and "{{" not in asked
    assert re.fullmatch(r"[1-5]", record["text"])  # the fake model's reply
    assert record["sha256"] == sha256_text(record["text"]) and record["model"] == "m"
    assert read_template(path).steps.text == record["text"]
