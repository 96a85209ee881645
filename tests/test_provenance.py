"""Provenance sidecars: input hashes, config, packages, git state; deterministic bytes."""

from __future__ import annotations

import copy
import hashlib
import json
import platform
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy
import pandas
import pytest

from geval_repro.config import judge_files, judge_spec, load_config
from geval_repro.files.checkout import git_state
from geval_repro.registry.sources import get_source
from geval_repro.report import provenance
from geval_repro.report.provenance import (
    Provenance,
    ProvenanceError,
    differences,
    read_provenance,
    sidecar_path,
    write_provenance,
)

# Mirror path of the Topical-Chat conversion and its SHA-256 as listed in the mirror's
# MANIFEST.tsv (independent of geval_repro/data/sources.yaml).
TOPICAL_CHAT_RELPATH = (
    "maszhongming/UniEval/d33e7b6cfebe97b2bafe435adbd818230d5a416a/"
    "reproduce/data/dialogue/topical_chat.json"
)
TOPICAL_CHAT_SHA256 = "f6361daa6fe162f636d2071a60322a784acd770be0bf3a6920ac949d751b978a"
# MetricEval's per-item scores, SHA-256 as listed in the mirror's MANIFEST.tsv.
METRICEVAL_SCORES_SHA256 = "c34947ab97228a6bca1cdf25fb0e9a287b0a69dbae7f7c06f8439b29c634b93a"


@pytest.fixture
def config() -> dict:
    return copy.deepcopy(load_config())


def _output(tmp_path: Path, name: str = "table.csv", text: str = "a,b\n1,2\n") -> Path:
    path = tmp_path / "results" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_raw_input_resolves_to_the_registry_hash_of_the_file_read(mirror_dir, tmp_path, config):
    raw_file = mirror_dir / TOPICAL_CHAT_RELPATH
    output = _output(tmp_path)
    (sidecar,) = write_provenance([output], [raw_file], Provenance.from_config(config, mirror_dir))
    record = read_provenance(sidecar)
    assert sidecar == tmp_path / "results" / "table.csv.provenance.json"
    (entry,) = record["inputs"]
    assert entry["kind"] == "source"
    assert entry["id"] == "topical_chat"
    assert entry["relpath"] == TOPICAL_CHAT_RELPATH
    assert entry["sha256"] == TOPICAL_CHAT_SHA256
    assert entry["sha256"] == hashlib.sha256(raw_file.read_bytes()).hexdigest()
    assert record["output"] == {
        "name": "table.csv",
        "sha256": hashlib.sha256(b"a,b\n1,2\n").hexdigest(),
        "bytes": 8,
    }


def test_judge_files_by_url_and_by_local_path(mirror_dir, tmp_path, config):
    raw_dir = tmp_path / "raw"
    local = tmp_path / "runs" / "coh.json"
    local.parent.mkdir()
    local.write_bytes(b'[{"all_responses": ["3"]}]')
    config["judges"]["local-run"] = {
        "benchmark": "summeval",
        "format": "geval-released",
        "label": "a local run",
        "paper_metric": "G-Eval-4",
        "files": {"coherence": {"path": str(local)}},
    }
    # A registry source must be present to be hashed: the released replies are not in the
    # mirror, so a copy of MetricEval's scores (the file of gpt4-metriceval-run1) stands in.
    released = raw_dir / get_source("metriceval_scores").relpath
    released.parent.mkdir(parents=True)
    shutil.copyfile(mirror_dir / get_source("metriceval_scores").relpath, released)
    output = _output(tmp_path)
    write_provenance(
        [output],
        [released, local],
        Provenance.from_config(config, raw_dir),
        judges=["gpt4-metriceval-run1", "local-run"],
    )
    record = read_provenance(sidecar_path(output))
    by_kind = {entry["kind"]: entry for entry in record["inputs"]}
    assert set(by_kind) == {"source", "local"}  # a judge's registry file is a source
    assert by_kind["source"]["id"] == "metriceval_scores"
    assert by_kind["source"]["sha256"] == METRICEVAL_SCORES_SHA256
    assert by_kind["local"] == {
        "kind": "local",
        "path": str(local),
        "sha256": hashlib.sha256(local.read_bytes()).hexdigest(),
    }
    run = "gpt4-metriceval-run1"
    assert record["config"]["judges"][run] == config["judges"][run]
    assert sorted(record["config"]["judges"]) == [run, "local-run"]


def test_a_judge_file_outside_the_registry_is_recorded_by_url(tmp_path, config):
    url = "https://example.org/runs/my_coh.json"
    content = b'[{"all_responses": ["3"]}]'
    sha256 = hashlib.sha256(content).hexdigest()
    config["judges"]["url-run"] = {
        "benchmark": "summeval",
        "format": "geval-released",
        "label": "a run fetched by URL",
        "paper_metric": "G-Eval-4",
        "files": {"coherence": {"url": url, "sha256": sha256}},
    }
    raw_dir = tmp_path / "raw"
    run = judge_spec("url-run", config["judges"]["url-run"])
    (fetched,) = [f.path for f in judge_files(run, raw_dir).values()]
    fetched.parent.mkdir(parents=True)
    fetched.write_bytes(content)
    output = _output(tmp_path)
    write_provenance(
        [output], [fetched], Provenance.from_config(config, raw_dir), judges=["url-run"]
    )
    (entry,) = read_provenance(sidecar_path(output))["inputs"]
    assert entry["kind"] == "judge-file"
    assert (entry["url"], entry["sha256"]) == (url, sha256)


def test_runs_sharing_a_file_are_named_by_the_rule(mirror_dir, tmp_path, config):
    shared = mirror_dir / get_source("metriceval_scores").relpath
    scores = _output(tmp_path, "scores.parquet", "gpt-3.5 scores")
    write_provenance(
        [scores],
        [shared],
        Provenance.from_config(config, mirror_dir),
        judges=["gpt35-metriceval-run1"],
    )
    table = _output(tmp_path, "correlations.csv", "x\n")
    write_provenance([table], [scores], Provenance.from_config(config, mirror_dir))
    record = read_provenance(sidecar_path(table))
    assert list(record["config"]["judges"]) == ["gpt35-metriceval-run1"]
    assert [entry["id"] for entry in record["inputs"]] == ["metriceval_scores"]


def test_inputs_are_taken_over_transitively_from_upstream_sidecars(mirror_dir, tmp_path, config):
    processed = _output(tmp_path, "topical_chat.parquet", "not really parquet")
    write_provenance(
        [processed], [mirror_dir / TOPICAL_CHAT_RELPATH], Provenance.from_config(config, mirror_dir)
    )
    table = _output(tmp_path, "table2.md", "| x |\n")
    write_provenance([table], [processed], Provenance.from_config(config, mirror_dir))
    upstream = read_provenance(sidecar_path(processed))["inputs"]
    assert read_provenance(sidecar_path(table))["inputs"] == upstream


def test_an_input_without_origin_is_an_error_naming_it(mirror_dir, tmp_path, config):
    stray = _output(tmp_path, "stray.parquet")
    with pytest.raises(ProvenanceError, match=r"stray\.parquet.*write_provenance"):
        write_provenance([_output(tmp_path)], [stray], Provenance.from_config(config, mirror_dir))
    unknown_raw = mirror_dir / "someone" / "repo" / "file.json"
    with pytest.raises(ProvenanceError, match=r"file\.json.*sources\.yaml"):
        write_provenance(
            [_output(tmp_path)], [unknown_raw], Provenance.from_config(config, mirror_dir)
        )


def test_identical_inputs_give_identical_bytes_and_locations_do_not_count(
    mirror_dir, tmp_path, config
):
    raw_file = mirror_dir / TOPICAL_CHAT_RELPATH
    output = _output(tmp_path)
    write_provenance([output], [raw_file], Provenance.from_config(config, mirror_dir))
    first = sidecar_path(output).read_bytes()
    moved = config | {"results_dir": "/elsewhere", "data_dir": "/x", "mirror": "/m"}
    write_provenance([output], [raw_file], Provenance.from_config(moved, mirror_dir))
    assert sidecar_path(output).read_bytes() == first
    reseeded = config | {"seed": config["seed"] + 1}
    write_provenance([output], [raw_file], Provenance.from_config(reseeded, mirror_dir))
    changed = differences(json.loads(first), read_provenance(sidecar_path(output)))
    assert changed == [f"config.seed: {config['seed']} != {config['seed'] + 1}"]


def test_config_and_packages_recorded(mirror_dir, tmp_path, config):
    output = _output(tmp_path)
    write_provenance(
        [output, sidecar_path(output)],  # a sidecar among the outputs is skipped
        [mirror_dir / TOPICAL_CHAT_RELPATH],
        Provenance.from_config(config, mirror_dir),
        config_keys=["seed", "bootstrap"],
    )
    record = read_provenance(sidecar_path(output))
    assert record["config"] == {"seed": config["seed"], "bootstrap": config["bootstrap"]}
    assert record["packages"]["numpy"] == numpy.__version__
    assert record["packages"]["pandas"] == pandas.__version__
    # what the baselines are scored with (ROUGE, BLEU, METEOR 1.0 and 1.5), not rouge-score,
    # the tests' reference for ROUGE
    assert {"rouge-score-rs", "sacrebleu", "nltk", "pycocoevalcap"} <= set(record["packages"])
    assert "rouge-score" not in record["packages"]
    assert {"python", "scipy", "snakemake", "krippendorff"} <= set(record["packages"])
    assert "git" not in record  # in the run manifest, once per run


@pytest.fixture
def versions_read_afresh() -> Iterator[None]:
    """The per-process record of the versions emptied before and after the test."""
    provenance._installed_versions.cache_clear()
    yield
    provenance._installed_versions.cache_clear()


@pytest.mark.usefixtures("versions_read_afresh")
def test_what_is_not_installed_is_recorded_as_absent(monkeypatch):
    monkeypatch.setattr(provenance, "PACKAGES", ("numpy", "no-such-package-geval-test"))
    monkeypatch.setenv("PATH", "/nonexistent")  # no java
    versions = provenance.package_versions()
    assert versions == {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "no-such-package-geval-test": "absent",
        "java": "absent",
    }


@pytest.mark.usefixtures("versions_read_afresh")
def test_the_java_runtime_is_recorded_as_it_names_itself(monkeypatch):
    """The Java runtime METEOR 1.5's jar runs on, as ``java -version`` names it; a line that
    the JVM prints first for JAVA_TOOL_OPTIONS is passed over."""
    for variable in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"):
        monkeypatch.delenv(variable, raising=False)  # each makes the JVM speak first
    said = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
    first = said.stderr.splitlines()[0]  # e.g. openjdk version "17.0.15" 2025-04-15
    assert first.split()[1:2] == ["version"]
    assert provenance.package_versions()["java"] == first
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Xss2m")
    provenance._installed_versions.cache_clear()
    assert provenance.package_versions()["java"] == first


def test_several_outputs_of_one_call_each_get_the_sidecar_of_a_call_of_their_own(
    mirror_dir, tmp_path, config
):
    """One call resolves the inputs once for all its outputs: each sidecar is the one a call
    for that output alone writes, with its own output record."""
    inputs = [mirror_dir / TOPICAL_CHAT_RELPATH]
    outputs = [_output(tmp_path, f"t{i}.csv", f"a\n{i}\n") for i in range(3)]
    together = write_provenance(outputs, inputs, Provenance.from_config(config, mirror_dir))
    texts = [sidecar.read_text() for sidecar in together]
    for output, text in zip(outputs, texts, strict=True):
        (alone,) = write_provenance([output], inputs, Provenance.from_config(config, mirror_dir))
        assert alone.read_text() == text
        assert (
            json.loads(text)["output"]["sha256"] == hashlib.sha256(output.read_bytes()).hexdigest()
        )
    assert len(set(texts)) == 3


def test_differences_ignore_git_and_report_changed_output(tmp_path):
    base = {
        "format": 1,
        "output": {"name": "t.csv", "sha256": "aa", "bytes": 1},
        "inputs": [{"id": "x"}],
        "git": {"commit": "1" * 40, "dirty": False},
    }
    later = copy.deepcopy(base) | {"git": {"commit": "2" * 40, "dirty": True}}
    assert differences(base, later) == []
    later["output"]["sha256"] = "bb"
    later["inputs"] = [{"id": "y"}]
    assert differences(base, later) == [
        "inputs: only in committed [{'id': 'x'}]; only in regenerated [{'id': 'y'}]",
        "output.sha256: 'aa' != 'bb'",
    ]


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    return subprocess.run([*command, *args], check=True, capture_output=True, text=True).stdout


def test_git_state_commit_and_dirty_flag(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None}
    _git(tmp_path, "init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "t.csv").write_text("a\n")
    _git(tmp_path, "add", "code.py", "results/t.csv")
    _git(tmp_path, "commit", "-q", "-m", "init")
    head = _git(tmp_path, "log", "-1", "--format=%H").strip()
    assert git_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "results" / "t.csv").write_text("b\n")  # a generated output changed
    (tmp_path / "untracked.txt").write_text("?\n")
    assert git_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_state(tmp_path) == {"commit": head, "dirty": True}


def test_git_state_is_none_below_a_checkouts_root(tmp_path):
    """A package folder inside some other checkout (an installed wheel in a virtual
    environment there) is not that checkout: its commit is not recorded."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    _git(tmp_path, "add", "code.py")
    _git(tmp_path, "commit", "-q", "-m", "init")
    inner = tmp_path / ".venv" / "lib" / "site-packages"
    inner.mkdir(parents=True)
    assert git_state(inner) == {"commit": None, "dirty": None}


def test_run_manifest_records_the_checkout_once(tmp_path, config):
    from geval_repro.registry.sources import REPO_ROOT
    from geval_repro.report.provenance import write_run_manifest

    path = write_run_manifest(tmp_path / "results" / "run_manifest.json", config)
    record = json.loads(path.read_text())
    head = _git(REPO_ROOT, "rev-parse", "HEAD").strip()
    assert record["git"]["commit"] == head
    assert isinstance(record["git"]["dirty"], bool)
    assert record["packages"]["numpy"] == numpy.__version__
    assert record["config"]["seed"] == config["seed"]
    assert "data_dir" not in record["config"]  # locations do not change an output
