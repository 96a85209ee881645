"""The runner's cache key and store: every parameter counts, no credential is kept."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from geval_repro.runner import cache as cache_module
from geval_repro.runner.answers import read_completion
from geval_repro.runner.cache import (
    CACHE_FILE,
    ResponseCache,
    file_system,
    journal_mode,
    request_key,
    server_name,
)

BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "Rate ü"}],
    "n": 20,
    "temperature": 1.0,
    "top_p": 1.0,
    "max_tokens": 5,
}


def test_server_name_drops_the_scheme_and_refuses_credentials():
    assert server_name("https://api.example.com:8443/v1/") == "api.example.com:8443/v1"
    assert server_name("http://localhost:8000/v1") == "localhost:8000/v1"
    with pytest.raises(ValueError, match="no host"):
        server_name("localhost")
    with pytest.raises(ValueError, match=r"https://\*\*\*@api.example.com:8443/v1/ holds a user"):
        server_name("https://user:pw@api.example.com:8443/v1/")


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


MOUNT_TABLE = """\
overlay / overlay rw,relatime 0 0
proc /proc proc rw 0 0
srv:/export {shared} nfs4 rw,vers=4.2 0 0
/dev/sdb1 /mnt/my\\040disk lustre rw 0 0
"""


def _header_journal(path) -> int:
    """Bytes 18-19 of an SQLite file's header (the file format's read/write versions):
    1 for a rollback journal, 2 for WAL (sqlite.org/fileformat.html)."""
    header = path.read_bytes()[:20]
    assert header[18] == header[19]
    return header[18]


def test_the_file_system_of_a_folder_is_its_longest_mount_point(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text(MOUNT_TABLE.format(shared="/work/shared"))
    assert file_system(Path("/work/shared/cache/x"), mounts) == "nfs4"
    assert file_system(Path("/work/shared"), mounts) == "nfs4"
    assert file_system(Path("/work/sharedness"), mounts) == "overlay"  # not a parent
    assert file_system(Path("/mnt/my disk/cache"), mounts) == "lustre"  # an escaped space
    assert file_system(Path("/proc/1"), mounts) == "proc"
    assert file_system(Path("/work"), tmp_path / "absent") is None


def test_a_cache_on_a_shared_file_system_keeps_a_rollback_journal(tmp_path, monkeypatch):
    local, shared = tmp_path / "local", tmp_path / "shared"
    mounts = tmp_path / "mounts"
    mounts.write_text(MOUNT_TABLE.format(shared=tmp_path.resolve() / "shared"))
    monkeypatch.setattr(cache_module, "MOUNTS", mounts)
    for folder in (local, shared):
        cache = ResponseCache(folder)
        cache.store("k", BODY, '{"choices": []}')
        cache.close()
    assert journal_mode(local) == "WAL" and _header_journal(local / CACHE_FILE) == 2
    assert journal_mode(shared) == "DELETE" and _header_journal(shared / CACHE_FILE) == 1
    assert not (shared / f"{CACHE_FILE}-wal").exists()
    # A WAL cache moved onto the shared file system is converted when opened, answers kept.
    moved = shared / "moved"
    moved.mkdir()
    (moved / CACHE_FILE).write_bytes((local / CACHE_FILE).read_bytes())
    assert _header_journal(moved / CACHE_FILE) == 2
    cache = ResponseCache(moved)
    try:
        assert cache.response("k") == '{"choices": []}'
        (synchronous,) = cache._db.execute("PRAGMA synchronous").fetchone()
        assert synchronous == 2  # FULL
    finally:
        cache.close()
    assert _header_journal(moved / CACHE_FILE) == 1
