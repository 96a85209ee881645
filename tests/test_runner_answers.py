"""What a server answers is checked before it is cached (issue 44).

A 200 answer that does not fit (``usage`` a list or a string, ``system_fingerprint`` an
object, a log-probability without its ``token``, or a string, a list, NaN or 1000 for one,
old-style choices with ``text`` and no ``message``) is that item's failure: counted, named,
never cached, requested again by the next run, never a traceback; exit status 1 (one such
answer already in a cache: tests/test_runner_faults.py's bad cached row). More
choices than asked are cut to the first ``n`` and counted. A server that times out on most
requests while answering now and then is dropped like one that cannot be reached. Every
reply is the fake server's (tests/fake_openai_server.py): test data, never a judge's answer.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.runner.cache import CACHE_FILE
from tests import runner_cli
from tests.fake_openai_server import EXTRA_CHOICES, MALFORMED, FakeOpenAIServer, reply_level
from tests.runner_cli import rows, summeval_processed

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    return summeval_processed(tmp_path_factory, mirror_dir)


def judge_argv(server_url: str, out: Path, processed: Path, *extra: str) -> list[str]:
    """The shared command in mode both, with 7 candidates per position."""
    return runner_cli.judge_argv(
        server_url, out, processed, "--mode", "both", "--top-logprobs", "7", *extra
    )


def stored(out: Path) -> int:
    """The answers in the run's cache."""
    connection = sqlite3.connect(out / "cache" / CACHE_FILE)
    try:
        return connection.execute("SELECT count(*) FROM responses").fetchone()[0]
    finally:
        connection.close()


#: What the item's error names, per malformation of the fake server.
NAMED = {
    "usage-list": "usage is a list",
    "usage-string": "usage is text",
    "fingerprint-object": "system_fingerprint is an object",
    "logprob-no-token": "has no 'token'",
    "logprob-string": "logprob is text",
    "logprob-list": "logprob is a list",
    "logprob-nan": "logprob is NaN",
    "logprob-1000": "logprob is 1000",
}


@pytest.mark.parametrize("fault", sorted(MALFORMED))
def test_a_badly_formed_answer_is_the_items_failure_never_cached(
    tmp_path, processed, capsys, fault
):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        server.faults.append(fault)  # the first item's answer
        assert main(judge_argv(server.base_url, out, processed)) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and "failed 1," in err
        first, *others = rows(out / "coherence.jsonl")
        assert "unreadable response" in first["error"] and NAMED[fault] in first["error"]
        assert f"  1 x {first['error']}" in err  # counted and named on the console
        assert all("error" not in r and r["weighted_score"] is not None for r in others)
        assert stored(out) == 2  # the bad answer was not cached
        sent = len(server.requests)
        assert main(judge_argv(server.base_url, out, processed)) == 0  # requested again
        assert len(server.requests) == sent + 1
    assert all("error" not in r for r in rows(out / "coherence.jsonl"))


def test_old_style_choices_without_a_message_are_an_items_failure_naming_them(
    tmp_path, processed, capsys
):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        server.faults.append("text-choices")
        assert main(judge_argv(server.base_url, out, processed, "--mode", "sample")) == 1
    first = rows(out / "coherence.jsonl")[0]
    assert first["replies"] == []  # not [""]: the old-style reply is no chat reply
    assert "'text' and no 'message'" in first["error"] and "/chat/completions" in first["error"]
    assert "Traceback" not in capsys.readouterr().err


def test_more_choices_than_n_are_cut_to_n_and_counted_in_the_manifest(tmp_path, processed, capsys):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        server.faults.append("extra-choices")
        argv = judge_argv(server.base_url, out, processed, "--n", "3", "--seed", "1")
        assert main(argv) == 0
        prompt, seed = server.requests[0], server.bodies[0]["seed"]
    records = rows(out / "coherence.jsonl")
    assert [len(r["replies"]) for r in records] == [3, 3, 3]
    assert records[0]["replies"] == [reply_level(prompt, i, seed) for i in range(3)]  # the first
    manifest = json.loads((out / "manifest.json").read_text())
    obtained = manifest["dimensions"]["coherence"]["n_obtained"]
    assert obtained["extra_choices_dropped"] == EXTRA_CHOICES - 3
    assert obtained["responses_with_extra_choices"] == 1
    err = capsys.readouterr().err
    assert f"returned more choices than asked ({EXTRA_CHOICES} for 3)" in err
    assert f"{EXTRA_CHOICES - 3} dropped" in err and "returned all 3 replies" not in err


def test_a_server_that_times_out_on_most_requests_is_dropped(tmp_path, processed, capsys):
    """Two requests of three hang: never three timeouts in a row, so only the bound on the
    share of timeouts (half of the last 20 attempts) drops it."""
    out = tmp_path / "run"
    with FakeOpenAIServer(cycle=["hang", "hang", None]) as server:
        started = time.monotonic()
        argv = judge_argv(server.base_url, out, processed, "--mode", "sample", "--limit", "40")
        assert main([*argv, "--timeout", "0.3", "--max-attempts", "1"]) == 1
        assert len(server.requests) < 25  # dropped after about 20 attempts, not all 40
    assert time.monotonic() - started < 20
    records = rows(out / "coherence.jsonl")
    assert any("no server could be reached" in r.get("error", "") for r in records)
    dispatch = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
    (reason,) = dispatch["dispatch"]["dropped"].values()
    assert "of its last 20 attempts" in reason and "--timeout 0.3" in reason
    assert "Traceback" not in capsys.readouterr().err
