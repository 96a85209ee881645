"""Where a judge job runs under a cluster profile (``on_cluster``) and what it asks for
(``resources``, the estimates of :func:`geval_repro.registry.judges.job_resources`), from the
config to the workflow's rule. The job on a compute node itself: tests/test_slurm_judge.py."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import yaml

from geval_repro.config import ConfigError, check_config, judge_spec, load_config
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.targets import Targets
from geval_repro.registry.judges import job_resources
from tests.conftest import FIXTURES, REPO_ROOT

SERVER = {"llama_cpp": {"model": "smollm2-135m", "n_ctx": 2048, "threads": 1}}
MB = 2**20


def with_run(benchmark: str = "qags_xsum", **run) -> dict:
    config = load_config()
    config["judges"]["mine"] = {
        "benchmark": benchmark,
        "format": "geval-jsonl",
        "label": "x",
        "dir": "runs/not-made-yet",
        "run": {"mode": "logprobs", **run},
    }
    config["judges_to_run"] = ["mine"]
    return config


def spec_of(config: dict):
    check_config(config)
    return judge_spec("mine", config["judges"]["mine"])


def test_a_block_with_a_server_goes_to_a_compute_node_unless_it_says_otherwise():
    assert spec_of(with_run(server=SERVER)).run.on_cluster is True
    assert spec_of(with_run(server=SERVER, on_cluster=False)).run.on_cluster is False
    assert spec_of(with_run(model="m", base_url="http://api:1/v1")).run.on_cluster is False
    hosted = with_run(model="m", base_url="http://api:1/v1", on_cluster=True)
    with pytest.raises(ConfigError, match="needs resources: runtime"):
        check_config(hosted)  # no server: its time cannot be estimated
    hosted["judges"]["mine"]["run"]["resources"] = {"runtime": 90}
    assert spec_of(hosted).run.on_cluster is True


def test_the_estimates_by_hand():
    # SmolLM2-135M: a 98,362,432-byte file; KV cache 2 x 30 layers x 3 heads x 64 x 2 bytes
    # = 23,040 bytes per token; a vocabulary of 49,152. n_ctx 2048, mode logprobs:
    # 98,362,432 + 2048 x 23,040 + 4 x 2048 x 49,152 x 4 = 1,756,161,088 bytes = 1,674.8 MB.
    assert 98_362_432 + 2048 * 23_040 + 4 * 2048 * 49_152 * 4 == 1_756_161_088
    run = spec_of(with_run(server=SERVER, limit=6))
    # 800 (job) + 500 (server) + 1,675; 5 min + 2 x 6 items x 1 dimension x 4.5 s (n <= 20)
    assert job_resources(run.run, run.benchmark) == {"mem_mb": 2975, "runtime": 6}
    # mode sample holds no logits: 800 + 500 + ceil(145,548,352 / 2^20 = 138.8)
    sample = spec_of(with_run(server=SERVER, limit=6, mode="sample", n=20))
    assert job_resources(sample.run, sample.benchmark)["mem_mb"] == 800 + 500 + 139
    # SummEval in full, 4 dimensions, n = 40: 5 + 2 x 1,600 x 4 x 4.5 s x 2 / 60 s = 1,925
    full = spec_of(with_run("summeval", server=SERVER, mode="both", n=40))
    assert job_resources(full.run, full.benchmark)["runtime"] == 5 + math.ceil(
        2 * 1600 * 4 * 4.5 * 2 / 60
    )


def test_given_resources_win_and_reach_the_rule():
    resources = {
        "runtime": 600,
        "mem_mb": 64_000,
        "gpu": 1,
        "gpu_model": "a100",
        "slurm_partition": "gpu",
        "slurm_account": "my_account",
        "slurm_extra": "--exclusive",
    }
    config = with_run(server=SERVER, resources=resources)
    run = spec_of(config)
    assert job_resources(run.run, run.benchmark) == resources
    targets = Targets.from_config(config, Layout.from_config(config))
    assert not targets.runs_locally("mine") and targets.resources("mine") == resources
    local = with_run(model="m", base_url="http://api:1/v1")
    targets = Targets.from_config(local, Layout.from_config(local))
    assert targets.runs_locally("mine") and targets.resources("mine") == {}


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"model": "m", "resources": {"mem_mb": 9}}, "apply to a job on a compute node"),
        ({"server": SERVER, "on_cluster": False, "resources": {"runtime": 9}},
         "add on_cluster: true or drop them"),
        ({"server": SERVER, "resources": {"gpu": 1, "gres": "gpu:1"}}, "not both"),
        ({"server": SERVER, "resources": {"gres": "gpu 1"}}, "gres"),
        ({"server": SERVER, "resources": {"mem": 9}}, "mem"),
        ({"server": SERVER, "resources": {}}, "resources"),
        ({"server": SERVER, "on_cluster": "yes"}, "on_cluster"),
    ],
)  # fmt: skip
def test_bad_cluster_keys_are_named(run, message):
    with pytest.raises(ConfigError, match=message):
        check_config(with_run(**run))


#: The judge rule's localrule and resources as Snakemake parses them.
RULE_PROBE = """
import json, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

config = ConfigSettings(configfiles=[Path(sys.argv[1])])
with SnakemakeApi(OutputSettings()) as api:
    workflow = api.workflow(ResourceSettings(), config, snakefile=Path("Snakefile"))._workflow
    rules = {}
    for rule in workflow.rules:
        if rule.name.startswith("ask_judge_"):
            resources = {}
            for key, value in rule.resources.items():
                try:
                    resources[key] = value.value
                except ValueError:  # computed per job (tmpdir)
                    pass
            rules[rule.name] = [rule.name in workflow._localrules, resources]
    print(json.dumps(rules))
"""


@pytest.mark.slow
def test_the_workflow_sends_a_server_job_to_a_node_and_keeps_an_api_job(tmp_path):
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    entry = {"benchmark": "qags_xsum", "format": "geval-jsonl", "label": "x"}
    config["judges"]["on-node"] = {
        **entry,
        "dir": str(tmp_path / "a"),
        "run": {"mode": "logprobs", "limit": 6, "server": SERVER},
    }
    config["judges"]["on-submitter"] = {
        **entry,
        "dir": str(tmp_path / "b"),
        "run": {"mode": "logprobs", "model": "m", "base_url": "http://api:1/v1"},
    }
    config["judges_to_run"] = ["on-node", "on-submitter"]
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [sys.executable, "-c", RULE_PROBE, str(path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rules = json.loads(done.stdout.splitlines()[-1])
    local, resources = rules["ask_judge_on_node"]
    assert local is False
    assert resources["mem_mb"] == 2975 and resources["runtime"] == 6  # by hand, above
    local, resources = rules["ask_judge_on_submitter"]
    assert local is True and "mem_mb" not in resources and "runtime" not in resources


def test_docs_cluster_name_the_keys_and_the_journal():
    text = " ".join((REPO_ROOT / "docs" / "cluster.md").read_text().split())
    for phrase in ("on_cluster", "slurm_extra", "journal_mode=DELETE", "retries: 1"):
        assert phrase in text, phrase
