"""Configuration: the schema, cross-references, and judge file resolution."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from geval_repro.config import (
    DEFAULT_CONFIG_PATH,
    MIRRORED_CONFIG_PATH,
    ConfigError,
    check_config,
    judge_files,
    judge_spec,
    load_config,
    remote_files,
)
from geval_repro.registry.sources import get_source


@pytest.fixture
def config() -> dict:
    return load_config()


def test_default_config_runs_the_released_gpt4_replies(config: dict) -> None:
    assert config["judges_to_run"][0] == "gpt4-released"
    judge = config["judges"]["gpt4-released"]
    assert judge["format"] == "geval-released"
    assert sorted(judge["files"]) == ["coherence", "consistency", "fluency", "relevance"]


def test_default_judge_files_are_the_registry_entries(config: dict) -> None:
    files = judge_files(judge_spec("gpt4-released", config["judges"]["gpt4-released"]), Path("raw"))
    for dimension, short in [("coherence", "coh"), ("consistency", "con"), ("fluency", "flu")]:
        source = get_source(f"geval4_replies_{short}")
        remote = files[dimension].remote
        assert remote is not None
        assert (remote.url, remote.sha256, remote.relpath) == (
            source.url,
            source.sha256,
            source.relpath,
        )
        assert files[dimension].path == Path("raw") / source.relpath


def test_remote_files_cover_registry_and_judges(config: dict) -> None:
    remotes = remote_files(config)
    assert get_source("summeval").relpath in remotes
    assert get_source("geval4_replies_rel").relpath in remotes


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c.update(seed=-1), "seed"),
        (lambda c: c["bootstrap"].update(n_resamples="many"), "n_resamples"),
        (lambda c: c.update(judges_to_run=["nobody"]), "nobody"),
        (lambda c: c["judges"]["gpt4-released"].update(format="csv"), "format"),
        (
            lambda c: c["judges"]["gpt4-released"]["files"].update(
                coherence={"url": "https://x/y.json", "sha256": "abc"}
            ),
            "files/coherence",
        ),
        (
            lambda c: c["judges"]["gpt4-released"]["files"].update(
                coherence={"source": "no_such_id"}
            ),
            "no_such_id",
        ),
        (lambda c: c.update(unexpected=1), "unexpected"),
    ],
)
def test_invalid_configs_name_the_key(config: dict, mutate, message: str) -> None:
    broken = copy.deepcopy(config)
    mutate(broken)
    with pytest.raises(ConfigError, match=message):
        check_config(broken)


def test_a_local_path_judge_is_read_as_is(config: dict) -> None:
    extra = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text())
    extra["judges"]["mine"] = {
        "benchmark": "summeval",
        "format": "geval-released",
        "label": "mine",
        "files": {"fluency": {"path": "runs/flu.json"}},
    }
    extra["judges_to_run"] = ["mine"]
    check_config(extra)
    files = judge_files(judge_spec("mine", extra["judges"]["mine"]), Path("raw"))
    assert files["fluency"].path == Path("runs/flu.json")
    assert files["fluency"].remote is None


def _judge(config: dict, **entry) -> dict:
    extra = copy.deepcopy(config)
    extra["judges"]["mine"] = {"label": "mine", **entry}
    return extra


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        # a typo inside a judge entry is refused, with the close name suggested
        (
            {
                "benchmark": "summeval",
                "format": "geval-released",
                "fixtrue": True,
                "files": {"fluency": {"path": "f.json"}},
            },
            r"mine: unknown key\(s\) 'fixtrue' \(did you mean 'fixture'\?\)",
        ),
        (
            {
                "benchmark": "summeval",
                "format": "geval-released",
                "paper_metirc": "G-Eval-4",
                "files": {"fluency": {"path": "f.json"}},
            },
            r"did you mean 'paper_metric'",
        ),
        # a dimension of another benchmark
        (
            {
                "benchmark": "topical_chat",
                "format": "geval-released",
                "files": {"fluency": {"path": "f.json"}},
            },
            r"Topical-Chat has no dimension\(s\) \['fluency'\]; its dimensions are "
            r"\['naturalness', 'coherence', 'engagingness', 'groundedness'\]",
        ),
        ({"benchmark": "qags", "format": "scores"}, r"benchmark: 'qags' is not one of"),
        (
            {
                "benchmark": "qags_xsum",
                "format": "scores",
                "file": {"path": "s.csv"},
                "columns": {"doc_id": "d", "consistency": "c"},
            },
            r"columns must name the QAGS-XSum item key\(s\) \['item_id'\]",
        ),
        (
            {"benchmark": "summeval", "format": "geval-released", "file": {"path": "f.json"}},
            r"give exactly one of \['files'\]",
        ),
        (
            {"benchmark": "summeval", "format": "geval-jsonl", "dir": "no/such/folder"},
            r"dir 'no/such/folder' is not a folder",
        ),
        (
            {
                "benchmark": "summeval",
                "format": "geval-jsonl",
                "reads": ["level_probs"],
                "columns": {"a": "b"},
                "files": {"fluency": {"path": "f.jsonl"}},
            },
            r"\['columns'\] do not apply to this format",
        ),
    ],
)
def test_judge_entries_are_checked_against_the_registries(
    config: dict, entry: dict, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        check_config(_judge(config, **entry))


def test_registry_names_fill_the_schema() -> None:
    from geval_repro.config import config_schema

    judge = config_schema()["$defs"]["judge"]["properties"]
    assert judge["benchmark"]["enum"] == [
        "summeval",
        "topical_chat",
        "qags_cnndm",
        "qags_xsum",
        "dialsummeval",
        "sfres",
        "sfhot",
        "summedits",
        "writer_vs_llm",
    ]
    assert judge["format"]["enum"] == ["geval-released", "scores", "geval-jsonl"]


def test_a_jsonl_folder_gives_one_file_per_present_dimension(config: dict, tmp_path: Path) -> None:
    for name in ("naturalness.jsonl", "groundedness.jsonl", "manifest.json", "notes.jsonl"):
        (tmp_path / name).write_text("{}\n")
    extra = _judge(config, benchmark="topical_chat", format="geval-jsonl", dir=str(tmp_path))
    extra["judges_to_run"] = ["mine"]
    check_config(extra)
    files = judge_files(judge_spec("mine", extra["judges"]["mine"]), Path("raw"))
    assert files == {
        "naturalness": files["naturalness"],
        "groundedness": files["groundedness"],
    }
    assert files["groundedness"].path == tmp_path / "groundedness.jsonl"
    assert judge_spec("mine", extra["judges"]["mine"]).manifest_path == tmp_path / "manifest.json"


def test_an_overlay_merges_as_snakemake_merges_a_configfile(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        "seed: 7\n"
        "bootstrap: {n_resamples: 10}\n"
        "judges_to_run: [gpt4-metriceval-run1]\n"
        "judges:\n"
        "  gpt4-metriceval-run1: {label: relabelled}\n"
    )
    default = load_config()
    merged = load_config(DEFAULT_CONFIG_PATH, overlay)
    assert merged["seed"] == 7 and merged["bootstrap"] == {"n_resamples": 10}
    assert merged["judges_to_run"] == ["gpt4-metriceval-run1"]  # a list is replaced
    judge = merged["judges"]["gpt4-metriceval-run1"]  # a mapping is merged key by key
    assert judge["label"] == "relabelled"
    assert {k: v for k, v in judge.items() if k != "label"} == {
        k: v for k, v in default["judges"]["gpt4-metriceval-run1"].items() if k != "label"
    }
    assert set(merged["judges"]) == set(default["judges"])
    overlay.write_text("judges_to_run: [not-a-judge]\n")
    with pytest.raises(ConfigError, match=r"overlay\.yaml over .*config\.yaml.*not-a-judge"):
        load_config(DEFAULT_CONFIG_PATH, overlay)


def test_the_mirrored_overlay_adds_the_toolkit_runs() -> None:
    merged = load_config(DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH)
    overlay = yaml.safe_load(MIRRORED_CONFIG_PATH.read_text())
    assert merged["judges_to_run"] == overlay["judges_to_run"]
    assert set(merged["judges"]) == set(load_config()["judges"]) | set(overlay["judges"])
