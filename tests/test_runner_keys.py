"""The API key against what a server sends back and where it may go (issue 44).

A server's text is untrusted: it may hold the key JSON-escaped (``\\u0073\\u006b...``),
which ``json.loads`` turns back into the key; the key must then be in no file (outputs,
manifest, cache and its WAL), not on the console and not in a job's log, in part, in full
or escaped (a reply that echoes it so: tests/test_runner_faults.py's echoed key). A key
never goes over plain ``http://`` to a host other than this machine, and a key typed where
its variable's name belongs is refused without being repeated. Every reply is the fake
server's (tests/fake_openai_server.py): test data, never a judge's answer. No test here
reaches a hosted API: the real host names are checked by the key policy alone
(:func:`geval_repro.runner.keys.server_key`, no network), and the command-line tests run
with every name lookup and connection outside this machine refused and no HTTP client
allowed to be built.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import socket
import sqlite3
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.config import judge_spec
from geval_repro.runner.cache import CACHE_FILE
from geval_repro.runner.keys import MIN_FRAGMENT, KeyRefused, redact, server_key
from geval_repro.runner.probe import is_local
from tests.fake_openai_server import FakeOpenAIServer, escaped
from tests.runner_cli import (
    assert_key_nowhere,
    fragments,
    judge_argv,
    one_line,
    rows,
    summeval_processed,
)

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

KEY = "sk-test-ESCAPED-8d41c2"
KEY_ENV = "KEYS_TEST_KEY"


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    return summeval_processed(tmp_path_factory, mirror_dir)


# --- the key sent back JSON-escaped --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # each by hand: the key behind JSON escapes, whole or in part, mixed with plain
        # characters, behind an escape of an escape, in percent-encoding and in HTML
        # character references; the text around it kept, the escapes around it too
        (f'{{"c": "a {escaped(KEY)} b"}}', '{"c": "a *** b"}'),
        (f'{{"c": "{escaped(KEY[:9])}"}}', '{"c": "***"}'),
        (f'{{"c": "{KEY[:4]}{escaped(KEY[4:12])}\\n"}}', '{"c": "***\\n"}'),
        (f'"\\u00e9 {escaped(KEY)[:30]}{KEY[5:]}"', '"\\u00e9 ***"'),
        ('"x ' + escaped(KEY).replace("\\", "\\\\") + ' y"', '"x *** y"'),
        ("a=" + "".join(f"%{ord(c):02X}" for c in KEY) + "&b", "a=***&b"),
        ("<p>" + "".join(f"&#{ord(c)};" for c in KEY) + "</p>", "<p>***</p>"),
        ("<p>" + "".join(f"&#x{ord(c):x};" for c in KEY[:8]) + "</p>", "<p>***</p>"),
        (f'"{escaped(KEY[:7])} is shorter than a stretch"', None),
        ('"\\u0031 \\n rating 1"', None),
    ],
)
def test_redact_masks_the_key_behind_escapes_and_keeps_the_rest(text, expected):
    assert redact(text, KEY) == (text if expected is None else expected)


def test_redact_masks_the_key_in_hexadecimal_and_base64():
    hexadecimal = KEY.encode().hex()
    assert redact(f"id {hexadecimal} end", KEY) == "id *** end"
    assert redact(f"id {hexadecimal.upper()[:16]} end", KEY) == "id *** end"  # 8 bytes of it
    # three bytes before the key: base64's groups 1 to 7 are its first 21 bytes, group 0 is
    # "abc" and group 8 its last byte with padding, which decodes to that byte: the whole
    # run of base64 goes, padding and all
    encoded = base64.b64encode(b"abc" + KEY.encode()).decode()
    assert base64.b64decode(encoded[32:]) == KEY.encode()[-1:]
    assert redact(f"Basic {encoded}", KEY) == "Basic ***"
    for before in (b"a", b"ab"):  # the other two alignments, and the URL-safe alphabet
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(before + KEY.encode()).decode()
            assert "***" in redact(text, KEY) and len(redact(text, KEY)) < len(text) - 20


@pytest.mark.parametrize("length", range(MIN_FRAGMENT, 26))
def test_redact_masks_every_base64_of_the_key_whole(length):
    """Keys of 8 bytes and longer, in base64 at each of its three alignments (0-3 other
    bytes before, 0-2 after), either alphabet, padded or not: the whole run of base64 is
    masked, none of its characters left to decode a byte of the key from. Until now a key
    of 8-10 bytes at some alignments was missed, and the groups at a longer key's ends,
    which mix its first or last byte with the bytes around it, were left."""
    key = (KEY * 2)[:length]
    for before in (b"", b"a", b"ab", b"abc"):
        for after in (b"", b"z", b"yz"):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                encoded = encode(before + key.encode() + after).decode()
                for text in (encoded, encoded.rstrip("=")):
                    assert redact(f'{{"t": "{text}"}}', key) == '{"t": "***"}', text


def test_redacted_json_stays_json_and_decodes_without_the_key():
    """Random JSON strings holding a stretch of the key, each character of it written as
    itself or as an escape, between random text: the redacted text still parses, its
    value is the text around the stretch with ``***`` for the stretch, and holds no stretch
    of the key."""
    generator = random.Random(44)
    around = ["a", " ", "\\n", "\\u00e9", "x", "\\\\", '\\"']
    for _ in range(300):
        start = generator.randrange(len(KEY) - MIN_FRAGMENT + 1)
        end = generator.randrange(start + MIN_FRAGMENT, len(KEY) + 1)
        inner = "".join(
            generator.choice([c, f"\\u{ord(c):04x}", f"\\u{ord(c):04X}"]) for c in KEY[start:end]
        )
        prefix, suffix = (
            "".join(generator.choices(around, k=generator.randrange(0, 8))) for _ in range(2)
        )
        text = f'{{"content": "{prefix}{inner}{suffix}"}}'
        value = json.loads(redact(text, KEY))["content"]
        assert value == json.loads(f'"{prefix}"') + "***" + json.loads(f'"{suffix}"'), text
        assert not any(part in value for part in fragments(KEY))


def test_a_reply_spelling_the_key_token_by_token_is_masked_in_its_log_probabilities(
    tmp_path, processed, monkeypatch, capfd
):
    """Each token is shorter than a stretch of the key, so no text holds one; the tokens
    together (and their bytes) do, and are masked before the answer is cached."""
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        server.faults.append("echo-tokens")
        argv = judge_argv(server.base_url, out, processed, "--api-key-env", KEY_ENV)
        assert main([*argv, "--mode", "both", "--top-logprobs", "7"]) == 0
    assert rows(out / "coherence.jsonl")[0]["replies"] == ["Your key is ***"]
    connection = sqlite3.connect(out / "cache" / CACHE_FILE)
    stored = [json.loads(text) for (text,) in connection.execute("SELECT response FROM responses")]
    connection.close()
    for answer in stored:
        for choice in answer["choices"]:
            entries = choice["logprobs"]["content"]
            spelled = "".join(e["token"] for e in entries)
            spelled_bytes = bytes(b for e in entries for b in e.get("bytes") or []).decode()
            for text in (spelled, spelled_bytes):
                assert not any(part in text for part in fragments(KEY)), text
    assert "".join(e["token"] for e in stored[0]["choices"][0]["logprobs"]["content"]).startswith(
        "Your key is "
    )  # the tokens before the key are kept
    captured = capfd.readouterr()
    assert_key_nowhere(KEY, tmp_path, captured.out, captured.err)


def test_an_error_body_holding_the_key_json_escaped_is_redacted_everywhere(
    tmp_path, processed, monkeypatch, capfd
):
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    with FakeOpenAIServer(always="500-key-escaped") as server:
        argv = judge_argv(server.base_url, out, processed, "--api-key-env", KEY_ENV)
        assert main([*argv, "--max-attempts", "2"]) == 1
    errors = [r["error"] for r in rows(out / "coherence.jsonl")]
    assert len(errors) == 3 and all("HTTP 500" in e and "rejected the key ***" in e for e in errors)
    captured = capfd.readouterr()
    assert "rejected the key ***" in captured.err  # the error is shown, without the key
    assert_key_nowhere(KEY, tmp_path, captured.out, captured.err)


def test_a_models_list_holding_the_key_json_escaped_is_in_no_manifest_cache_or_probe_output(
    tmp_path, processed, monkeypatch, capfd
):
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    with FakeOpenAIServer(models_echo_key=True) as server:
        assert main(judge_argv(server.base_url, out, processed, "--api-key-env", KEY_ENV)) == 0
        manifest = json.loads((out / "manifest.json").read_text())
        (probe,) = manifest["dimensions"]["coherence"]["probe"].values()
        assert probe["models"] == ["fake-model", "***"]
        for flags in ([], ["--json"]):
            argv = ["probe", "--base-url", server.base_url, "--model", "fake-model"]
            assert main([*argv, "--api-key-env", KEY_ENV, *flags]) == 0
            captured = capfd.readouterr()
            assert "fake-model, ***" in captured.out or '"***"' in captured.out
            assert_key_nowhere(KEY, out, captured.out, captured.err)
    assert (out / "cache" / CACHE_FILE).is_file()
    assert_key_nowhere(KEY, tmp_path)


def test_a_pipeline_run_writes_the_key_json_escaped_nowhere(
    tmp_path, processed, monkeypatch, mirror_dir, caplog
):
    from geval_repro.runner.configured import run_configured_judge

    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer(models_echo_key=True) as server:
        server.faults.extend(["echo-escaped", "500-key-escaped", "500-key-escaped"])
        entry = {
            "benchmark": "summeval",
            "format": "geval-jsonl",
            "label": "FIXTURE: fake-server replies (tests only)",
            "fixture": True,
            "dir": str(tmp_path / "run"),
            "run": {
                "model": "fake-model", "base_url": server.base_url, "mode": "sample", "n": 1,
                "limit": 3, "concurrency": 1, "max_attempts": 2, "api_key_env": KEY_ENV,
                "dimensions": ["coherence"],
            },
        }  # fmt: skip
        caplog.set_level(logging.INFO)
        with pytest.raises(RuntimeError, match="requests failed"):  # the 500s: one item
            run_configured_judge(
                judge_spec("keys", entry),
                processed=processed,
                raw_dir=tmp_path / "raw",
                cache_dir=tmp_path / "cache",
                mirror=mirror_dir,
            )
    replies = [r["replies"] for r in rows(tmp_path / "run" / "coherence.jsonl")]
    assert replies[0] == ["Your key is ***. 3"]
    assert "rejected the key ***" in caplog.text
    assert_key_nowhere(KEY, tmp_path, caplog.text)


# --- never over plain HTTP to another machine ----------------------------------------------


@pytest.mark.parametrize(
    ("url", "named", "environ"),
    [
        ("http://api.openai.com/v1", None, {"OPENAI_API_KEY": KEY}),  # the default key
        ("http://api.openai.com/v1", "OPENAI_API_KEY", {"OPENAI_API_KEY": KEY}),
        ("http://api.example.com/v1", KEY_ENV, {KEY_ENV: KEY}),
        ("http://gpu-node:8000/v1", KEY_ENV, {KEY_ENV: KEY}),  # a private network's name
        ("http://10.1.2.3:8000/v1", KEY_ENV, {KEY_ENV: KEY}),
        ("HTTP://192.168.0.5/v1", KEY_ENV, {KEY_ENV: KEY}),
    ],
)
def test_a_key_over_plain_http_to_another_machine_is_refused_naming_the_url_and_https(
    url, named, environ
):
    with pytest.raises(KeyRefused) as caught:
        server_key(url, named, is_local(url), environ)
    message = str(caught.value)
    assert url in message and "https://" in message and "\n" not in message
    assert not any(part in message for part in fragments(KEY))


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/v1", "http://127.8.9.1/v1", "http://localhost:8000/v1",
     "http://[::1]:8000/v1", "https://gpu-node:8000/v1", "https://api.example.com/v1"],
)  # fmt: skip
def test_a_named_key_goes_over_https_or_to_this_machine(url):
    assert server_key(url, KEY_ENV, is_local(url), {KEY_ENV: KEY}).value == KEY


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


@pytest.fixture
def no_network(monkeypatch):
    """No name lookup and no connection outside this machine, and no HTTP client at all: a
    test that names a real host can reach nothing, even if the code under test is broken."""
    lookup, connect = socket.getaddrinfo, socket.socket.connect

    def local_lookup(host, *args, **kwargs):
        if str(host) not in LOOPBACK_NAMES:
            raise socket.gaierror(socket.EAI_NONAME, "refused by the test: not this machine")
        return lookup(host, *args, **kwargs)

    def local_connect(self, address):
        if isinstance(address, tuple) and address[0] not in LOOPBACK_NAMES:
            raise ConnectionRefusedError("refused by the test: not this machine")
        return connect(self, address)

    def no_client(*args, **kwargs):
        raise AssertionError("an HTTP client was built: something would have been sent")

    monkeypatch.setattr(socket, "getaddrinfo", local_lookup)
    monkeypatch.setattr(socket.socket, "connect", local_connect)
    monkeypatch.setattr("geval_repro.runner.client.CompletionClient.__init__", no_client)


@pytest.mark.parametrize(
    ("url", "flags"),
    [
        ("http://api.openai.com/v1", []),  # $OPENAI_API_KEY, the default
        ("http://judge.invalid/v1", ["--api-key-env", "OPENAI_API_KEY"]),
    ],
)
def test_the_judge_refuses_a_key_over_plain_http_in_one_line_before_anything(
    tmp_path, processed, monkeypatch, capfd, no_network, url, flags
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "run"
    assert main([*judge_argv(url, out, processed), *flags]) == 2
    captured = capfd.readouterr()
    line = one_line(captured.err)
    assert url in line and "https://" in line and "nothing was sent" in line.lower()
    assert not out.exists()
    assert_key_nowhere(KEY, None, captured.out, captured.err)


@pytest.mark.parametrize("command", ["probe", "steps"])
def test_probe_and_steps_refuse_a_key_over_plain_http(
    tmp_path, monkeypatch, capsys, no_network, command
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    criteria = tmp_path / "c.txt"
    criteria.write_text("Rate it.\n\nEvaluation Steps:\n\n{{Evaluation Steps}}\n")
    argv = {
        "probe": ["probe", "--model", "gpt-4o"],
        "steps": ["steps", "--criteria", str(criteria), "--model", "gpt-4o"],
    }[command]
    assert main([*argv, "--base-url", "http://api.openai.com/v1"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "http://api.openai.com/v1" in line and "https://" in line


# --- a key typed where the variable's name belongs -----------------------------------------

TYPED_KEYS = (
    "gsk_" + "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF",  # a valid variable name, and a key
    "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vW7",  # not a variable name
    "hf_Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC",
    "AKIAIOSFODNN7EXAMPLE0a1b2c3d4e5f6",
    "my key",
)


@pytest.mark.parametrize("value", TYPED_KEYS)
def test_a_key_given_as_the_variables_name_is_refused_without_repeating_it(
    tmp_path, processed, capfd, value
):
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        probe = ["probe", "--base-url", server.base_url, "--model", "m"]
        for argv in (judge_argv(server.base_url, out, processed), probe):
            assert main([*argv, "--api-key-env", value]) == 2
            captured = capfd.readouterr()
            line = one_line(captured.err)
            assert "--api-key-env" in line and "name of an environment variable" in line
            for text in (captured.out, captured.err):
                assert not any(value[i : i + 6] in text for i in range(len(value) - 5))
        assert server.paths == []  # nothing was asked
    assert not out.exists()


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "MY_JUDGE_KEY_2", "_k", "vllm_key", "HF_TOKEN"])
def test_a_variable_name_is_taken(name):
    from geval_repro.runner.keys import check_key_variable

    check_key_variable(name)  # no error
