"""The runner's cache key and store: every parameter counts, no credential is kept."""

from __future__ import annotations

import hashlib
import json

import pytest

from geval_repro.runner.cache import ResponseCache, request_key, server_name
from geval_repro.runner.client import read_completion

BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "Rate ü"}],
    "n": 20,
    "temperature": 1.0,
    "top_p": 1.0,
    "max_tokens": 5,
}


def test_server_name_drops_scheme_and_credentials():
    assert server_name("https://user:pw@api.example.com:8443/v1/") == "api.example.com:8443/v1"
    assert server_name("http://localhost:8000/v1") == "localhost:8000/v1"
    with pytest.raises(ValueError, match="no host"):
        server_name("localhost")


def test_key_is_sha256_of_canonical_json_and_changes_with_every_field():
    # Independent canonical form: sorted keys, no spaces, UTF-8 kept.
    text = (
        '{"body":{"max_tokens":5,"messages":[{"content":"Rate ü","role":"user"}],"model":"m",'
        '"n":20,"temperature":1.0,"top_p":1.0},"server":"h/v1"}'
    )
    assert request_key("h/v1", BODY) == hashlib.sha256(text.encode()).hexdigest()
    assert request_key("h/v1", dict(reversed(BODY.items()))) == request_key("h/v1", BODY)
    changed = [
        request_key("other/v1", BODY),
        *(request_key("h/v1", {**BODY, field: value}) for field, value in [
            ("model", "m2"), ("n", 1), ("temperature", 0.0), ("top_p", 0.9), ("max_tokens", 6),
            ("messages", [{"role": "user", "content": "Rate u"}]), ("logprobs", True),
        ]),
    ]  # fmt: skip
    assert len({request_key("h/v1", BODY), *changed}) == len(changed) + 1
    # Two items with the same text get two keys (sampled independently).
    first = request_key("h/v1", BODY, {"benchmark": "summeval", "doc_id": "d", "system_id": "M1"})
    second = request_key("h/v1", BODY, {"benchmark": "summeval", "doc_id": "d", "system_id": "M2"})
    assert len({first, second, request_key("h/v1", BODY)}) == 3


def test_answers_replace_failures_and_persist(tmp_path):
    cache = ResponseCache(tmp_path)
    cache.store_failure("k", BODY, "HTTP 500: boom")
    assert cache.failure("k") == "HTTP 500: boom" and cache.answered(["k"]) == set()
    cache.store("k", BODY, '{"choices": []}')
    cache.close()
    reopened = ResponseCache(tmp_path)
    assert reopened.answered(["k", "x"]) == {"k"} and reopened.failure("k") is None
    assert reopened.response("k") == '{"choices": []}'
    reopened.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "Expecting value"),
        (json.dumps({"error": "x"}), "no 'choices'"),
        (json.dumps({"choices": []}), "empty"),
        (json.dumps({"choices": [{"message": {"content": 3}}]}), "not text"),
    ],
)
def test_unreadable_completions_are_rejected(text, message):
    with pytest.raises(ValueError, match=message):
        read_completion(text)
