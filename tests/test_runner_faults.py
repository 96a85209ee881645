"""The judge runner under faults, against the fake OpenAI-compatible server (issue 24).

Each test makes one fault (a server that leaks the key, hangs, trickles, sends a huge body,
asks to wait a day, cannot be reached; a damaged cache; a full disk; two runs into one
folder; a damaged manifest; a template without placeholders) and checks what a user sees:
a bounded wall time, one clear line naming the file or server and the fix, the documented
exit status (docs/judge-runner.md), nothing lost, and the key in no file written and not on
the console, not even in part. Every reply is the fake's (derived from each prompt's hash):
test data, never a judge's answer. Timeouts are set small by options, never slept out.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.runner.cache import CACHE_FILE, ResponseCache, no_space
from geval_repro.runner.keys import MIN_FRAGMENT, KeyRefused, redact, server_key
from geval_repro.runner.lock import LOCK_FILE
from tests.fake_openai_server import KEY_AT, MALFORMED, FakeOpenAIServer
from tests.runner_cli import (
    assert_key_nowhere,
    fragments,
    judge_argv,
    one_line,
    rows,
    summeval_processed,
)

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

REPO_ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-SECRET-1234"  # 19 characters, as in the issue
KEY_ENV = "FAULTS_TEST_KEY"


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    return summeval_processed(tmp_path_factory, mirror_dir)


# --- the key ---------------------------------------------------------------------------


def test_redact_removes_the_key_and_every_long_stretch_of_it():
    # hand-made: the whole key, a prefix cut at 18 of 19 characters, a middle stretch of 8
    assert redact(f"a {KEY} b", KEY) == "a *** b"
    assert redact(f"body ...{KEY[:18]}...", KEY) == "body ...***..."
    assert redact(f"x{KEY[5:13]}y", KEY) == "x***y"
    assert (
        redact(f"{KEY[:7]} is shorter than a fragment", KEY)
        == f"{KEY[:7]} is shorter than a fragment"
    )
    assert redact("two: " + KEY + " and " + KEY[3:12], KEY) == "two: *** and ***"
    assert redact("rating 1", "1") == "rating 1"  # a placeholder key corrupts nothing


def _brute_force_redact(text: str, secret: str) -> str:
    """Every character covered by an occurrence of some MIN_FRAGMENT-stretch of ``secret``,
    found by trying every position of the text against every stretch; runs of covered
    characters become ***."""
    covered = [False] * len(text)
    for start in range(len(text)):
        if any(text.startswith(part, start) for part in fragments(secret)):
            for i in range(start, start + MIN_FRAGMENT):
                covered[i] = True
    out, i = [], 0
    while i < len(text):
        if covered[i]:
            while i < len(text) and covered[i]:
                i += 1
            out.append("***")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def test_redact_agrees_with_a_brute_force_reference():
    import random

    generator = random.Random(5)
    alphabet = 'ab-sk_T1 {}":'
    for _ in range(300):
        pieces = []
        for _ in range(generator.randrange(1, 6)):
            if generator.random() < 0.5:
                start = generator.randrange(len(KEY))
                pieces.append(KEY[start : start + generator.randrange(1, len(KEY) + 1)])
            else:
                pieces.append("".join(generator.choices(alphabet, k=generator.randrange(0, 12))))
        text = "".join(pieces)
        assert redact(text, KEY) == _brute_force_redact(text, KEY), text


@pytest.mark.parametrize(
    ("url", "named", "environ", "expected"),
    [
        ("https://api.openai.com/v1", None, {"OPENAI_API_KEY": KEY}, (KEY, "OPENAI_API_KEY")),
        ("http://127.0.0.1:8000/v1", None, {"OPENAI_API_KEY": KEY}, (None, None)),
        ("http://127.0.0.1:8000/v1", "OPENAI_API_KEY", {"OPENAI_API_KEY": KEY},
         (KEY, "OPENAI_API_KEY")),
        ("http://gpu-node:8000/v1", KEY_ENV, {}, (None, KEY_ENV)),
        ("https://api.example.com/v1", KEY_ENV, {KEY_ENV: KEY}, (KEY, KEY_ENV)),
    ],
)  # fmt: skip
def test_a_key_goes_only_where_the_user_named_one(url, named, environ, expected):
    from geval_repro.runner.probe import is_local

    key = server_key(url, named, is_local(url), environ)
    assert (key.value, key.variable) == expected


@pytest.mark.parametrize(
    ("named", "environ", "message"),
    [
        (None, {"OPENAI_API_KEY": KEY}, "no key is named for it"),  # the OpenAI key stays home
        (KEY_ENV, {}, f"${KEY_ENV} is not set"),
    ],
)
def test_a_hosted_server_without_its_key_is_refused(named, environ, message):
    with pytest.raises(KeyRefused, match=message.replace("$", r"\$")):
        server_key("https://api.example.com/v1", named, False, environ)


def test_the_key_at_character_290_of_an_error_body_is_not_written_even_in_part(
    tmp_path, processed, monkeypatch, capfd
):
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    with FakeOpenAIServer(always="500-key") as server:
        started = time.monotonic()
        status = main(
            judge_argv(server.base_url, out, processed, "--api-key-env", KEY_ENV,
                       "--max-attempts", "2")
        )  # fmt: skip
        assert server.auth and all(a == f"Bearer {KEY}" for a in server.auth)  # it was sent
    assert status == 1 and time.monotonic() - started < 30
    errors = [r["error"] for r in rows(out / "coherence.jsonl")]
    assert len(errors) == 3 and all("HTTP 500" in e and "***" in e for e in errors)
    assert KEY_AT + len(KEY) > 300  # the server put the key across the 300-character cut
    captured = capfd.readouterr()
    assert_key_nowhere(KEY, tmp_path, captured.out, captured.err)


@pytest.mark.parametrize("fault", ["echo", "echo-escaped"])  # as sent; JSON-escaped (issue 44)
def test_a_reply_that_echoes_the_key_is_redacted_before_it_is_cached(
    tmp_path, processed, monkeypatch, capfd, fault
):
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        server.faults.append(fault)
        assert main(judge_argv(server.base_url, out, processed, "--api-key-env", KEY_ENV)) == 0
    assert rows(out / "coherence.jsonl")[0]["replies"] == ["Your key is ***. 3"]
    captured = capfd.readouterr()
    assert_key_nowhere(KEY, tmp_path, captured.out, captured.err)


def test_the_hosted_key_is_not_sent_to_a_local_server_unless_named(
    tmp_path, processed, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, tmp_path / "a", processed)) == 0
        assert server.auth and set(server.auth) == {""}  # no Authorization header at all
        entry = json.loads((tmp_path / "a" / "manifest.json").read_text())["dimensions"]
        assert entry["coherence"]["api_key_sent"] is False
        server.auth.clear()
        argv = judge_argv(server.base_url, tmp_path / "b", processed)
        assert main([*argv, "--api-key-env", "OPENAI_API_KEY"]) == 0  # named: sent
        assert set(server.auth) == {f"Bearer {KEY}"}
    assert_key_nowhere(KEY, tmp_path)


def test_the_openai_key_is_not_sent_to_another_hosted_api(tmp_path, processed, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    argv = judge_argv("https://api.example.com/v1", tmp_path / "run", processed)
    assert main(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert "no key is named for it" in line and "--api-key-env" in line
    assert not (tmp_path / "run").exists()


# --- waits ---------------------------------------------------------------------------------


def test_a_retry_after_beyond_the_cap_fails_at_once_naming_the_demand(tmp_path, processed, capsys):
    with FakeOpenAIServer(always="429-forever") as server:
        started = time.monotonic()
        status = main(judge_argv(server.base_url, tmp_path / "run", processed, "--max-wait", "5"))
        assert len(server.requests) == 3  # one request per item: no wait, no retry
    assert status == 1 and time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert "3 x HTTP 429" in err and "wait 100000 s" in err and "--max-wait" in err


def test_a_trickling_server_is_cut_off_by_the_total_deadline(tmp_path, processed, capsys):
    with FakeOpenAIServer(trickle_seconds=0.05) as server:  # ~15 s for one answer
        server.faults.append("trickle")
        started = time.monotonic()
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--timeout", "1")
        status = main([*argv, "--max-attempts", "1"])
    assert status == 1 and time.monotonic() - started < 8
    first = rows(tmp_path / "run" / "coherence.jsonl")[0]
    assert "timed out" in first["error"] and "whole request" in first["error"]


def test_a_hung_server_is_dropped_and_progress_is_shown(tmp_path, processed, capsys):
    with FakeOpenAIServer(always="hang") as server:  # the probe answers, the items never
        started = time.monotonic()
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--timeout", "0.5")
        status = main([*argv, "--limit", "6", "--progress-seconds", "0.5"])
    assert status == 1 and time.monotonic() - started < 20
    records = rows(tmp_path / "run" / "coherence.jsonl")
    assert len(records) == 6 and all("error" in r for r in records)
    assert any("timed out 3 times in a row" in r["error"] for r in records)
    err = capsys.readouterr().err
    assert "items done" in err  # a sign of life while it waited (stderr is not a terminal)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["dimensions"]["coherence"]["dispatch"]["dropped"]


def test_a_server_that_never_answers_stops_the_run_at_the_probe(tmp_path, processed, capsys):
    with FakeOpenAIServer(hang_all=True) as server:
        started = time.monotonic()
        status = main(judge_argv(server.base_url, tmp_path / "run", processed, "--timeout", "1"))
        assert server.requests == []
    assert status == 2 and time.monotonic() - started < 6
    line = one_line(capsys.readouterr().err)
    assert server.base_url in line and "cannot be reached" in line and "timed out" in line


def test_a_dead_server_fails_fast_with_exit_2_naming_the_address(tmp_path, processed, capsys):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    started = time.monotonic()
    status = main([*judge_argv(url, tmp_path / "run", processed), "--dimension", "all"])
    assert status == 2 and time.monotonic() - started < 5
    line = one_line(capsys.readouterr().err)
    assert url in line and "cannot be reached" in line and "geval-repro serve" in line
    assert not (tmp_path / "run").exists()  # nothing written, not even a folder


def test_a_base_url_without_v1_gets_a_hint(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        root = server.base_url.removesuffix("/v1")
        assert main(judge_argv(root, tmp_path / "run", processed)) == 2
        assert server.requests == []
    line = one_line(capsys.readouterr().err)
    assert "HTTP 404" in line and f"try --base-url {root}/v1" in line


# --- sizes and templates ----------------------------------------------------------------


@pytest.mark.parametrize("fault", ["huge", "huge-chunked"])
def test_a_huge_response_is_not_read(tmp_path, processed, capsys, fault):
    with FakeOpenAIServer(huge_bytes=20 * 2**20) as server:
        server.faults.append(fault)
        started = time.monotonic()
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--max-response-mb", "1")
        assert main(argv) == 1
    assert time.monotonic() - started < 15
    first = rows(tmp_path / "run" / "coherence.jsonl")[0]
    assert "larger than 1 MiB" in first["error"] and "--max-response-mb" in first["error"]
    cache = tmp_path / "run" / "cache"
    assert sum(p.stat().st_size for p in cache.iterdir()) < 2**20  # nothing of it was kept


@pytest.mark.parametrize("text", ["", "Rate the summary 1-5.\n\n- Coherence:"])
def test_a_template_without_placeholders_is_refused_before_sending(
    tmp_path, processed, capsys, text
):
    template = tmp_path / "t.txt"
    template.write_text(text)
    with FakeOpenAIServer() as server:
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--prompt", str(template))
        assert main(argv) == 2
        assert server.requests == [] and server.probes == []
    line = one_line(capsys.readouterr().err)
    assert str(template) in line and "{{Document}}" in line


# --- the cache and the manifest -----------------------------------------------------------


def test_a_damaged_cache_is_named_with_the_command_that_sets_it_aside(tmp_path, processed, capsys):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed)) == 0
        database = out / "cache" / CACHE_FILE
        size = database.stat().st_size
        with open(database, "r+b") as handle:  # keep the header, garble the pages after it
            handle.seek(100)
            handle.write(b"\x00garbage" * ((size - 100) // 8))
        capsys.readouterr()
        assert main(judge_argv(server.base_url, out, processed)) == 2
        line = one_line(capsys.readouterr().err)
        assert str(database) in line and f"mv {out / 'cache'} {out / 'cache'}.damaged" in line
        before = len(server.requests)
        (out / "cache").rename(out / "cache.damaged")  # the fix, as printed
        assert main(judge_argv(server.base_url, out, processed)) == 0
        assert len(server.requests) == before + 3  # requested again


def _logprobs_of_1000(text: str) -> str:
    """An answer whose log-probabilities are 1000, as an earlier version cached it without
    checking it (issue 44: the rerun crashed with OverflowError)."""
    answer = json.loads(text)
    MALFORMED["logprob-1000"](answer)
    return json.dumps(answer)


@pytest.mark.parametrize(
    ("damage", "flags"),
    [
        (lambda text: '{"choices": [{"mess', ()),  # a row cut short in place
        (_logprobs_of_1000, ("--mode", "both", "--top-logprobs", "7")),
    ],
    ids=["cut-short", "logprobs-of-1000"],
)
def test_a_bad_cached_row_is_skipped_counted_and_requested_again(
    tmp_path, processed, capsys, damage, flags
):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed, *flags)) == 0
        written = (out / "coherence.jsonl").read_bytes()
        connection = sqlite3.connect(out / "cache" / CACHE_FILE)
        with connection:
            (text,) = connection.execute(
                "SELECT response FROM responses WHERE rowid = 1"
            ).fetchone()
            connection.execute("UPDATE responses SET response = ? WHERE rowid = 1", (damage(text),))
        connection.close()
        before = len(server.requests)
        capsys.readouterr()
        assert main(judge_argv(server.base_url, out, processed, *flags)) == 0
        assert len(server.requests) == before + 1  # that answer only
    err = capsys.readouterr().err
    assert "1 stored answer(s) are not readable completions" in err and "Traceback" not in err
    assert (out / "coherence.jsonl").read_bytes() == written  # the same answer again


def test_a_manifest_that_is_a_json_list_is_named_with_the_fix(tmp_path, processed, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text("[]\n")
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, out, processed)) == 2
        assert server.requests == []
    line = one_line(capsys.readouterr().err)
    assert "manifest.json: a JSON list" in line and "mv " in line


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[bool]:
    """``folder`` as a tmpfs of ``size`` when this process may mount one (yields True), else
    an ordinary folder (yields False: the caller patches the writes instead)."""
    folder.mkdir(parents=True)
    mounted = False
    if os.geteuid() == 0:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
        )
        mounted = done.returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], check=True)


def test_a_full_disk_is_one_line_exit_3_and_keeps_what_was_stored(
    tmp_path, processed, capsys, monkeypatch
):
    disk = tmp_path / "disk"
    with small_disk(disk, "160k") as mounted, FakeOpenAIServer() as server:
        if not mounted:  # no tmpfs here: the cache's writes fail after the first answers
            original = ResponseCache.store

            def store(self, *args):
                if len(server.requests) > 3:
                    raise no_space(self.path, sqlite3.OperationalError("database or disk is full"))
                return original(self, *args)

            monkeypatch.setattr(ResponseCache, "store", store)
        argv = judge_argv(server.base_url, disk / "run", processed, "--mode", "both", "--n", "20")
        assert main([*argv, "--limit", "40"]) == 3
        line = one_line(capsys.readouterr().err)
        assert "no space left" in line and str(disk / "run") in line and "free space" in line
        assert not (disk / "run" / "coherence.jsonl").exists()  # nothing partial
        assert not list((disk / "run").rglob("*.tmp"))
        stored = sqlite3.connect(disk / "run" / "cache" / CACHE_FILE)
        kept = stored.execute("SELECT count(*) FROM responses").fetchone()[0]
        stored.close()
        assert 0 < kept < 40


def test_a_full_disk_when_the_output_is_written_is_exit_3(tmp_path, processed, capsys, monkeypatch):
    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr("geval_repro.runner.run.write_text", full)
    with FakeOpenAIServer() as server:
        assert main(judge_argv(server.base_url, tmp_path / "run", processed)) == 3
    line = one_line(capsys.readouterr().err)
    assert f"cannot write {tmp_path / 'run' / 'coherence.jsonl'}: no space left" in line


# --- two runs, one folder -------------------------------------------------------------------


def _subprocess_judge(argv: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "geval_repro.cli", *argv],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition, within: float = 60.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_a_second_run_into_the_same_folder_stops_naming_the_first(tmp_path, processed, capsys):
    out = tmp_path / "run"
    with FakeOpenAIServer(latency=0.2) as server:
        first = _subprocess_judge(judge_argv(server.base_url, out, processed, "--limit", "12"))
        try:
            _wait_for(lambda: len(server.requests) >= 1)
            started = time.monotonic()
            second = judge_argv(server.base_url, out, processed, "--dimension", "fluency")
            assert main(second) == 2
            assert time.monotonic() - started < 5
            line = one_line(capsys.readouterr().err)
            assert f"{out} is in use by another run (process {first.pid}" in line
            assert "--dimension coherence" in line and "wait for it to finish" in line
            assert first.wait(timeout=60) == 0
        finally:
            first.kill()
        assert len(server.requests) == 12  # the second sent nothing
        assert not (out / LOCK_FILE).exists()
        assert main(second) == 0  # once the first is done
    dimensions = json.loads((out / "manifest.json").read_text())["dimensions"]
    assert set(dimensions) == {"coherence", "fluency"}  # no entry lost


def test_a_killed_holder_leaves_no_lock(tmp_path):
    code = (
        "import sys, time; from pathlib import Path; from geval_repro.runner.lock import "
        "folder_lock\nwith folder_lock(Path(sys.argv[1])):\n    print('held', flush=True)\n"
        "    time.sleep(60)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path / "out")],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        from geval_repro.runner.lock import FolderInUse, folder_lock

        with pytest.raises(FolderInUse, match=f"process {holder.pid}"):
            with folder_lock(tmp_path / "out"):
                pass
        holder.kill()
        holder.wait(timeout=10)
        with folder_lock(tmp_path / "out"):  # the kernel released it with the process
            with folder_lock(tmp_path / "out"):  # nested in one process: fine
                pass
    finally:
        holder.kill()


# --- a judge file that is not what its run wrote ------------------------------------------------


def _judged_folder(tmp_path: Path, processed: Path) -> Path:
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        argv = judge_argv(server.base_url, out, processed, "--mode", "both", "--n", "2")
        assert main([*argv, "--limit", "4"]) == 0
    return out


def _tidy(entry: dict, out: Path, processed: Path, tmp_path: Path) -> None:
    """The pipeline's step that reads a judge run (geval_repro.pipeline.tidy.judge_files), for
    the config entry ``entry``."""
    from geval_repro.config import judge_spec
    from geval_repro.pipeline.tidy import judge_files

    spec = judge_spec("mine", {"label": "a run of the fake server", **entry})
    outs = {"replies": tmp_path / "replies.parquet", "rating_probs": tmp_path / "ratings.parquet"}
    judge_files(spec, {"coherence": out / "coherence.jsonl"}, processed / "summeval.parquet", outs)


def test_a_truncated_judge_file_is_refused_naming_the_file_and_the_fix(tmp_path, processed):
    out = _judged_folder(tmp_path, processed)
    spec = {"benchmark": "summeval", "format": "geval-jsonl", "dir": str(out)}
    _tidy(spec, out, processed, tmp_path)  # as written: read
    path = out / "coherence.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]))  # lost its last 2 of 4 lines
    with pytest.raises(ValueError) as caught:
        _tidy(spec, out, processed, tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{path} does not match its manifest {out / 'manifest.json'}")
    assert "it has 2 items where the run wrote 4" in message
    assert f"Fix: rerun the judge into {out}" in message
    # the same through a files: run with its manifest pinned beside
    pinned = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "files": {"coherence": {"path": str(path)}},
        "manifest": {"path": str(out / "manifest.json")},
    }
    with pytest.raises(ValueError, match="where the run wrote 4"):
        _tidy(pinned, out, processed, tmp_path)
    # a line edited in place: same count, another hash
    edited = lines[1].replace('"replies":[', '"replies":["5",', 1)
    path.write_text(lines[0] + edited + "".join(lines[2:]))
    with pytest.raises(ValueError, match="its 4 items were changed after the run"):
        _tidy(spec, out, processed, tmp_path)


def test_another_tools_manifest_is_not_checked(tmp_path, processed):
    out = _judged_folder(tmp_path, processed)
    (out / "manifest.json").write_text(json.dumps({"generator": "someone else's tool"}))
    path = out / "coherence.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))
    _tidy({"benchmark": "summeval", "format": "geval-jsonl", "dir": str(out)}, out, processed,
          tmp_path)  # fmt: skip


def test_probe_of_a_dead_server_is_exit_2_with_one_line(capsys):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    started = time.monotonic()
    assert main(["probe", "--base-url", url, "--model", "m"]) == 2
    assert time.monotonic() - started < 5
    line = one_line(capsys.readouterr().err)
    assert url in line and "cannot be reached" in line
    # --json: a script reading stdout gets the error as JSON too (it got nothing before)
    assert main(["probe", "--base-url", url, "--model", "m", "--json"]) == 2
    captured = capsys.readouterr()
    answer = json.loads(captured.out)
    assert answer["base_url"] == url and answer["model"] == "m"
    assert "cannot be reached" in answer["error"] and answer["error"] in one_line(captured.err)
