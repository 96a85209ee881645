"""The config check of judge entries against what would go wrong later (issue 44).

Caught by :func:`geval_repro.config.check_config`, in the toolkit's own words, before
Snakemake builds a rule or a job writes a file: a key typed where ``api_key_env`` wants a
variable's name (refused without repeating it), two judges whose names become one rule name
or whose runs share one ``dir`` (Snakemake's ``CreateRuleException`` and
``AmbiguousRuleException`` otherwise), a run's ``dir`` whose ``..`` lead out of the checkout
(an absolute one is the user's choice, said in the job's log), a number that is not finite.
"""

from __future__ import annotations

import logging

import pytest

from geval_repro.config import ConfigError, check_config, judge_spec, load_config
from tests.fake_openai_server import FakeOpenAIServer

TYPED_KEY = "gsk_Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF"


def with_judges(**entries: dict) -> dict:
    """The default config with ``entries`` (name -> run: changes and entry changes) added
    as geval-jsonl judges with a run: block, all of them to run."""
    config = load_config()
    for name, changes in entries.items():
        changes = dict(changes)
        run = {"model": "m", "mode": "logprobs", **changes.pop("run", {})}
        config["judges"][name] = {
            "benchmark": "summeval",
            "format": "geval-jsonl",
            "label": name,
            "dir": f"runs/{name}",
            "run": run,
            **changes,
        }
    config["judges_to_run"] = list(entries)
    return config


@pytest.mark.parametrize("value", [TYPED_KEY, "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vW7", "my key"])
def test_a_key_in_api_key_env_is_refused_without_repeating_it(value):
    with pytest.raises(ConfigError) as caught:
        check_config(with_judges(mine={"run": {"api_key_env": value}}))
    message = str(caught.value)
    assert "judges/mine/run/api_key_env" in message or "judge 'mine'" in message
    assert "name of an environment variable" in message
    assert not any(value[i : i + 6] in message for i in range(len(value) - 5))


def test_two_judges_that_become_one_rule_name_are_named_by_the_config_check():
    with pytest.raises(ConfigError) as caught:
        check_config(with_judges(**{"my-run": {}, "my_run": {"dir": "runs/other"}}))
    message = str(caught.value)
    assert "'my-run'" in message and "'my_run'" in message and "judge_run_my_run" in message
    assert "rename one" in message


def test_two_judge_runs_sharing_one_dir_are_named_by_the_config_check():
    config = with_judges(a={"dir": "runs/shared"}, b={"dir": "runs/./shared/"})
    with pytest.raises(ConfigError) as caught:
        check_config(config)
    message = str(caught.value)
    assert "'a'" in message and "'b'" in message and "runs/shared" in message
    assert "own dir" in message


def test_a_run_dir_outside_the_checkout_is_refused_unless_absolute(tmp_path):
    with pytest.raises(ConfigError) as caught:
        check_config(with_judges(mine={"dir": "../../elsewhere/run"}))
    message = str(caught.value)
    assert "'../../elsewhere/run'" in message and "outside the checkout" in message
    assert "absolute path" in message
    check_config(with_judges(mine={"dir": str(tmp_path / "elsewhere")}))  # the user's choice
    check_config(with_judges(mine={"dir": "runs/../runs/mine"}))  # still inside


def test_an_absolute_run_dir_outside_the_checkout_is_said_in_the_log(
    tmp_path, mirror_dir, caplog, monkeypatch
):
    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.runner.configured import run_configured_judge
    from geval_repro.runner.run import load_items_table

    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    processed = tmp_path / "processed"
    processed.mkdir()
    table = load_items_table(get_benchmark("summeval"), tmp_path / "raw", None, mirror_dir)
    table.to_parquet(processed / "summeval.parquet", index=False)
    with FakeOpenAIServer() as server:
        run = {"model": "fake-model", "base_url": server.base_url, "mode": "sample", "n": 1,
               "limit": 2, "dimensions": ["fluency"]}  # fmt: skip
        config = with_judges(mine={"dir": str(tmp_path / "run"), "run": run})
        check_config(config)
        caplog.set_level(logging.INFO)
        run_configured_judge(
            judge_spec("mine", config["judges"]["mine"]),
            processed=processed,
            raw_dir=tmp_path / "raw",
            cache_dir=tmp_path / "cache",
            mirror=mirror_dir,
        )
    assert f"writes into {tmp_path / 'run'}, outside the checkout" in caplog.text
    assert "absolute dir" in caplog.text


@pytest.mark.parametrize(("key", "value"), [("temperature", float("nan")), ("top_p", float("nan")),
                                            ("timeout", float("inf"))])  # fmt: skip
def test_a_number_that_is_not_finite_is_refused_by_the_config_check(key, value):
    with pytest.raises(ConfigError, match=rf"run: .*{key}.* not a finite number"):
        check_config(with_judges(mine={"run": {key: value}}))
