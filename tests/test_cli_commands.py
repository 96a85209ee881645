"""What the command line tells a newcomer: a described ``--help`` with an example per
command, ``--version``, help text and defaults for every ``judge`` option, the mirror used
by ``judge --dry-run`` as by every other command, the closest name for a misspelt
dimension, and ``recount`` on a JSON Lines file (no empty ``data/`` left behind)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from geval_repro.cli import build_parser, main
from geval_repro.registry.benchmarks import BENCHMARKS

REPO_ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("recount", "judge", "probe", "serve", "steps", "export", "mirror")


def _subparser(name: str) -> argparse.ArgumentParser:
    actions = build_parser()._subparsers._group_actions[0]
    return actions.choices[name]


def test_help_describes_the_toolkit_with_an_example_per_command():
    text = build_parser().format_help()
    assert "G-Eval (Liu et al., EMNLP 2023)" in text and "``" not in text  # no raw docstring
    examples = text.split("examples:", 1)[1]
    for command in COMMANDS:
        assert f"geval-repro {command} " in examples, command
        assert _subparser(command).format_help()  # each command has its own help


def test_version():
    done = subprocess.run(
        [sys.executable, "-m", "geval_repro.cli", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert done.stdout.startswith("geval-repro ") and done.stdout.split()[1][0].isdigit()


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_description_and_every_option_help(command):
    """`geval-repro mirror --help` said nothing of what the command does, nor of DIR and
    --retries (nor did export and steps)."""
    parser = _subparser(command)
    assert parser.description and len(parser.description) > 80, command
    for action in parser._actions:
        assert action.help, f"{command} {action.option_strings or action.dest}: no help text"


@pytest.mark.parametrize("command", ["judge", "serve"])
def test_every_judge_and_serve_option_has_help_and_says_its_default(command):
    parser = _subparser(command)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{action.option_strings} has no help text"
        takes_value = action.nargs != 0
        if takes_value and action.default is not None and not action.required:
            shown = str(action.default).removesuffix(".0")
            assert "default" in action.help and shown in action.help, action.option_strings
    text = " ".join(parser.format_help().split())
    if command == "judge":
        for benchmark in BENCHMARKS.values():
            assert ", ".join(benchmark.dimension_names) in text
        assert "USD" in text
        assert "default: automatic, from the probe: 1 for llama-cpp-python's server" in text


@pytest.fixture
def no_env_mirror(monkeypatch):
    monkeypatch.delenv("GEVAL_REPRO_MIRROR", raising=False)


def _dry_run(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "m",
        "--mode", "sample", "--limit", "3", "--out", str(tmp_path / "run"), "--dry-run",
        "--raw-dir", str(tmp_path / "raw"), "--price-input", "1", "--price-output", "2", *extra,
    ]  # fmt: skip


def test_dry_run_reads_the_mirror_flag(tmp_path, mirror_dir, no_env_mirror, capsys):
    assert main(_dry_run(tmp_path, "--mirror", str(mirror_dir))) == 0
    estimate = json.loads(capsys.readouterr().out)["dimensions"]["coherence"]
    assert estimate["requests"] == 3 and estimate["cost_estimate_usd"] is not None


def test_dry_run_reads_the_configs_mirror(tmp_path, mirror_dir, no_env_mirror, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(f"mirror: {mirror_dir}\n")
    assert main(_dry_run(tmp_path, "--config", str(config))) == 0
    assert json.loads(capsys.readouterr().out)["total"]["to_send"] == 3


def test_a_misspelt_dimension_gets_the_closest_name(tmp_path, capsys):
    argv = _dry_run(tmp_path)
    argv[argv.index("coherence")] = "coherance"
    assert main(argv) == 2
    assert "did you mean 'coherence'?" in capsys.readouterr().err
    fixture = REPO_ROOT / "tests" / "fixtures" / "judge_fixture" / "gpt4_coh_fixture.json"
    assert main(["recount", str(fixture), "--dimension", "fluenzy"]) == 2
    assert "did you mean 'fluency'?" in capsys.readouterr().err


def test_recount_on_json_lines_says_so_and_leaves_no_data_folder(
    tmp_path, monkeypatch, no_env_mirror, capsys
):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "coherence.jsonl"
    run.write_text('{"doc_id": "d", "replies": ["1"]}\n{"doc_id": "e", "replies": ["2"]}\n')
    assert main(["recount", str(run), "--dimension", "coherence"]) == 2
    err = capsys.readouterr().err
    assert "looks like JSON Lines" in err and "geval-jsonl" in err
    assert not (tmp_path / "data").exists()
    assert main(["recount", str(tmp_path / "missing.json"), "--dimension", "coherence"]) == 2
    assert not (tmp_path / "data").exists()


def test_an_offline_dry_run_without_a_mirror_says_what_failed_once(
    tmp_path, no_env_mirror, monkeypatch, capfd
):
    import socket

    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    assert main(_dry_run(tmp_path)) == 2
    err = capfd.readouterr().err
    assert err.count("could not download") == 1 and "GEVAL_REPRO_MIRROR" in err
    assert "For this command: --mirror DIR." in err
    assert not (tmp_path / "raw").exists()  # no empty folder left behind
