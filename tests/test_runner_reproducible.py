"""A judge run's files as a rerun makes them again (issue 28, item 1).

A rerun whose answers are all cached writes the same ``<dimension>.jsonl`` and the same
``manifest.json``, byte for byte: it keeps the entry of the run that obtained the answers
(no timestamps, git commit or port of the rerun), also into a new folder (the manifest then
comes from the cache) and also when a managed local server would listen on another port
(its port is never recorded). The committed SmolLM2 answers are cached only on the machine
that made them, so the run here is a small one against the fake server (its replies are test
data, never a judge's answer). And the documented local-model command writes its runs and
results outside the committed files.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import yaml

from geval_repro.config import DEFAULT_CONFIG_PATH, load_config
from geval_repro.runner.requests import RequestParams
from geval_repro.runner.run import RunOptions, run_judge
from tests.fake_openai_server import FakeOpenAIServer
from tests.test_runner_servers import processed  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

REPO_ROOT = Path(__file__).resolve().parents[1]
LOCAL_CONFIG = REPO_ROOT / "workflow" / "configs" / "local_model.yaml"


def options(url: str, out: Path, cache: Path, processed: Path, **changes) -> RunOptions:  # noqa: F811
    values = {
        "benchmark": "summeval",
        "dimension": "coherence",
        "params": RequestParams("fake-model", "both", 2, 1.0, 1.0, 5, 5),
        "base_urls": (url,),
        "out": out,
        "cache_dir": cache,
        "limit": 4,
        "concurrency": 1,
        "processed": processed,
        "raw_dir": out.parent / "raw",
        "seed": 3,
    }
    return RunOptions(**{**values, **changes})


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_cached_rerun_reproduces_the_manifest_byte_for_byte(tmp_path, processed):  # noqa: F811
    cache = tmp_path / "cache"
    with FakeOpenAIServer() as server:
        first = options(server.base_url, tmp_path / "a", cache, processed)
        run_judge(first)
        run_judge(options(server.base_url, tmp_path / "a", cache, processed, dimension="fluency"))
        made = files(tmp_path / "a")
        assert {"coherence.jsonl", "fluency.jsonl", "manifest.json"} <= set(made)
        time.sleep(1.1)  # the rerun's clock reads another second
        sent = len(server.requests)
        for dimension in ("coherence", "fluency"):  # into the same folder
            run_judge(options(server.base_url, tmp_path / "a", cache, processed,
                              dimension=dimension))  # fmt: skip
        assert files(tmp_path / "a") == made
        for path in (tmp_path / "a").iterdir():  # removed, as Snakemake does before a rerun
            if path.is_file():
                path.unlink()
        for dimension in ("coherence", "fluency"):
            run_judge(options(server.base_url, tmp_path / "a", cache, processed,
                              dimension=dimension))  # fmt: skip
        assert files(tmp_path / "a") == made
        assert len(server.requests) == sent  # nothing was sent


def test_a_managed_server_is_named_without_its_port_and_its_rerun_matches(tmp_path, processed):  # noqa: F811
    """Each start of a managed server listens on another port: the manifest names it by its
    identity only, and a rerun against a restart finds every answer and writes the same."""
    managed = {"identity": "llama_cpp.server/fake@0123456789abcdef", "model": "fake-model"}
    cache = tmp_path / "cache"
    with FakeOpenAIServer() as server:
        port = server.base_url.split(":")[-1].split("/")[0]
        run_judge(
            options(server.base_url, tmp_path / "a", cache, processed,
                    server_id=managed["identity"], managed_server=managed)
        )  # fmt: skip
    made = files(tmp_path / "a")
    assert port not in made["manifest.json"].decode()
    assert made["manifest.json"].count(managed["identity"].encode()) >= 3  # servers, probe...
    with FakeOpenAIServer() as restarted:  # another port
        assert restarted.base_url != server.base_url
        run_judge(
            options(restarted.base_url, tmp_path / "b", cache, processed,
                    server_id=managed["identity"], managed_server=managed)
        )  # fmt: skip
        assert restarted.requests == []
    assert files(tmp_path / "b") == made


def test_the_local_model_command_writes_outside_the_committed_files():
    """`snakemake --configfile workflow/configs/local_model.yaml` (docs/local-model.md) writes
    its runs and results into folders that hold no committed file and that git ignores."""
    config = load_config(DEFAULT_CONFIG_PATH, LOCAL_CONFIG)
    default = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text())
    assert config["results_dir"] != default["results_dir"]
    folders = [config["results_dir"]] + [
        config["judges"][j]["dir"] for j in config["judges_to_run"]
    ]
    for folder in folders:
        committed = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "ls-files", "--", folder],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert committed == "", (folder, committed)
        ignored = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "check-ignore", "-q", f"{folder}/x"], check=False
        )
        assert ignored.returncode == 0, f"{folder} is not ignored by git"


def test_the_examples_output_folder_is_ignored_but_committed_runs_are_not():
    """`--out runs/...` (README.md's example, serve's printed command) writes into a folder git
    ignores; the committed toolkit runs under data/runs/ stay tracked."""

    def ignored(path: str) -> bool:
        return (
            subprocess.run(
                ["git", "-C", str(REPO_ROOT), "check-ignore", "-q", path], check=False
            ).returncode
            == 0
        )

    assert ignored("runs/gpt4o/coherence.jsonl")
    assert not ignored("data/runs/smollm2-135m/summeval/coherence.jsonl")
