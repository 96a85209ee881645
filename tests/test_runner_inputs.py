"""What the judge runner is given, and the files it makes (issue 44).

A dry run sends nothing and writes nothing, and says what a run would have to ask first; a
symlink where the runner makes a file in a folder it does not own alone (the run's lock,
the cache's database) is refused, and what it points to is left untouched; an empty cache
file is a damaged cache, not a new one; a binary template, a port out of range, a
credential in a URL and a number that is not finite are refused in one line naming the
file, the URL or the flag. Every reply is the fake server's (tests/fake_openai_server.py):
test data, never a judge's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.runner.cache import CACHE_FILE
from geval_repro.runner.lock import LOCK_FILE
from tests.fake_openai_server import FakeOpenAIServer
from tests.runner_cli import judge_argv, one_line, summeval_processed

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    return summeval_processed(tmp_path_factory, mirror_dir)


def status(argv: list[str]) -> int:
    """The command's exit status, whether it returns it or exits with it (a usage error)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code)


# --- a dry run -------------------------------------------------------------------------------


def test_a_dry_run_with_a_first_position_reading_sends_nothing_and_writes_nothing(
    tmp_path, processed, capsys
):
    out, cache = tmp_path / "run", tmp_path / "cache"
    flags = ("--mode", "logprobs", "--first-position", "logit_bias", "--cache", str(cache))
    with FakeOpenAIServer() as server:
        argv = judge_argv(server.base_url, out, processed, *flags)
        assert main([*argv, "--dry-run"]) == 0
        assert server.paths == []  # not the tokenizer, not the probe, nothing
        assert not out.exists() and not cache.exists()
        captured = capsys.readouterr()
        estimate = json.loads(captured.out)["dimensions"]["coherence"]
        assert estimate["to_send"] == 3 and estimate["completion_tokens_max"] == 3  # 1 each
        assert "would first ask" in captured.err and "/extras/tokenize" in captured.err
        assert "token ids of the ratings 1, 2, 3, 4, 5" in captured.err
        assert "nothing was sent" in captured.err
        # once a run has asked (the ids are in the cache), a dry run finds every answer
        assert main(argv) == 0
        asked = len(server.paths)
        capsys.readouterr()
        assert main([*argv, "--dry-run"]) == 0
        assert len(server.paths) == asked
        captured = capsys.readouterr()
    assert json.loads(captured.out)["dimensions"]["coherence"]["cached"] == 3
    assert "tokenize" not in captured.err


# --- files in folders the runner does not own alone ------------------------------------------


@pytest.mark.parametrize("where", ["out", "cache"])
def test_a_symlink_at_the_lock_file_is_refused_and_what_it_points_to_is_untouched(
    tmp_path, processed, capsys, where
):
    out, cache = tmp_path / "run", tmp_path / "cache"
    folder = out if where == "out" else cache
    folder.mkdir()
    victim = tmp_path / "precious.txt"
    victim.write_text("precious\n")
    (folder / LOCK_FILE).symlink_to(victim)
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed, "--cache", str(cache))) == 2
        assert server.paths == []
    line = one_line(capsys.readouterr().err)
    assert str(folder / LOCK_FILE) in line and "symbolic link" in line
    assert victim.read_text() == "precious\n" and (folder / LOCK_FILE).is_symlink()


@pytest.mark.parametrize("name", [CACHE_FILE, f"{CACHE_FILE}-wal", f"{CACHE_FILE}-journal"])
def test_a_symlink_at_the_cache_database_is_refused_and_what_it_points_to_is_untouched(
    tmp_path, processed, capsys, name
):
    out, cache = tmp_path / "run", tmp_path / "cache"
    cache.mkdir()
    victim = tmp_path / "empty-file"
    victim.write_bytes(b"")
    (cache / name).symlink_to(victim)
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed, "--cache", str(cache))) == 2
        assert server.requests == []
    line = one_line(capsys.readouterr().err)
    assert str(cache / name) in line and "symbolic link" in line
    assert victim.read_bytes() == b""


def test_an_empty_cache_file_is_damaged_not_new(tmp_path, processed, capsys):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed)) == 0
        database = out / "cache" / CACHE_FILE
        assert not list(database.parent.glob(f"{CACHE_FILE}-*"))  # closed: no WAL left
        database.write_bytes(b"")  # cut to nothing (a copy that failed, a full disk)
        sent = len(server.paths)
        capsys.readouterr()
        assert main(judge_argv(server.base_url, out, processed)) == 2
        assert len(server.paths) == sent  # nothing sent again, no probe
    line = one_line(capsys.readouterr().err)
    assert str(database) in line and "empty" in line
    assert f"mv {out / 'cache'} {out / 'cache'}.damaged" in line


# --- messages that name what is wrong --------------------------------------------------------


def test_a_binary_template_is_refused_naming_the_file(tmp_path, processed, capsys):
    template = tmp_path / "picture.png"
    template.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    argv = judge_argv("http://127.0.0.1:9/v1", tmp_path / "run", processed)
    assert main([*argv, "--prompt", str(template)]) == 2
    line = one_line(capsys.readouterr().err)
    assert str(template) in line and "UTF-8" in line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", ["judge", "probe"])
def test_a_port_out_of_range_is_refused_naming_the_url(tmp_path, processed, capsys, command):
    url = "http://127.0.0.1:99999/v1"
    argv = {
        "judge": judge_argv(url, tmp_path / "run", processed),
        "probe": ["probe", "--base-url", url, "--model", "m"],
    }[command]
    assert main(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert url in line and "99999" in line and "1-65535" in line


def test_a_credential_in_a_url_is_refused_without_showing_it(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        url = server.base_url.replace("http://", "http://judge:hunter2secret@")
        assert main(judge_argv(url, tmp_path / "run", processed)) == 2
        assert main(["probe", "--base-url", url, "--model", "m"]) == 2
        assert server.paths == []
    err = capsys.readouterr().err
    assert "hunter2secret" not in err and "judge:" not in err
    assert err.count("user name or password") == 2 and "--api-key-env" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "flags",
    [
        ["--temperature", "nan"],
        ["--temperature", "inf"],
        ["--top-p", "nan"],
        ["--timeout", "inf"],
        ["--max-wait", "nan"],
        ["--max-response-mb", "inf"],
        ["--progress-seconds", "nan"],
        ["--dry-run", "--price-input", "nan", "--price-output", "1"],
    ],
)
def test_a_number_that_is_not_finite_is_refused_naming_the_flag(tmp_path, processed, capsys, flags):
    with FakeOpenAIServer() as server:
        assert status([*judge_argv(server.base_url, tmp_path / "run", processed), *flags]) == 2
        assert server.paths == []
    err = capsys.readouterr().err
    bad = flags[flags.index("nan" if "nan" in flags else "inf") - 1]
    assert f"argument {bad}: not a finite number" in err
    assert "Traceback" not in err and not (tmp_path / "run").exists()


# --- a seeded subset of the documents --------------------------------------------------------


def test_sample_judges_every_system_of_the_documents_the_seed_draws(tmp_path, processed):
    out = tmp_path / "run"
    table = pd.read_parquet(processed / "summeval.parquet")
    documents = list(dict.fromkeys(table["doc_id"]))  # in benchmark order
    drawn = {documents[i] for i in np.random.default_rng(7).choice(len(documents), 2, False)}
    with FakeOpenAIServer() as server:
        argv = [a for a in judge_argv(server.base_url, out, processed) if a not in ("--limit", "3")]
        assert main([*argv, "--sample", "2", "--seed", "7"]) == 0
    rows = [json.loads(line) for line in (out / "coherence.jsonl").read_text().splitlines()]
    assert {r["doc_id"] for r in rows} == drawn and len(rows) == 2 * 16  # 16 systems each
    assert [r["doc_id"] for r in rows] == sorted(
        (r["doc_id"] for r in rows), key=documents.index
    )  # benchmark order
    manifest = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
    assert manifest["sample"] == {"inputs": 2, "of": "doc_id", "seed": 7}


def test_sample_without_a_seed_or_beyond_the_documents_is_refused(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--dry-run")
        assert status([*argv, "--sample", "2"]) == 2
        assert "--sample 2" in one_line(capsys.readouterr().err)
        assert status([*argv, "--sample", "101", "--seed", "1"]) == 2
        err = one_line(capsys.readouterr().err)
        assert "--sample 101" in err and "100 values of doc_id" in err
        assert server.paths == []
