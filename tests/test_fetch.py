"""Fetching: verified downloads from a local HTTP server, and the offline mirror."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.config import Settings
from geval_repro.files.fetch import (
    FetchError,
    RemoteFile,
    fetch,
    fetch_failures,
    fetch_source,
    relpath_for_url,
)
from geval_repro.pipeline.processes import Job, ProcessJobError, run_in_process
from geval_repro.registry.sources import load_registry
from tests.conftest import find_or_make_mirror

PAYLOAD = b"doc_id\tscore\n" + b"d1\t4.0\n" * 2000
GOOD_SHA = hashlib.sha256(PAYLOAD).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    """Serves /good, /corrupt (same size, other bytes), /truncated, /slow, and /flaky (a 503
    on its first request, the good file after)."""

    flaky_calls = 0

    def do_GET(self) -> None:
        body = PAYLOAD
        if self.path.endswith("/flaky"):
            type(self).flaky_calls += 1
            if type(self).flaky_calls == 1:
                self.send_error(503)
                return
        elif self.path.endswith("/corrupt"):
            body = PAYLOAD.replace(b"4.0", b"5.0", 1)
        elif self.path.endswith("/truncated"):
            body = PAYLOAD[: len(PAYLOAD) // 2]
        elif self.path.endswith("/slow"):
            time.sleep(3)
        elif not self.path.endswith("/good"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _remote(server: str, name: str, size: int | None = len(PAYLOAD)) -> RemoteFile:
    return RemoteFile(f"{server}/files/{name}", GOOD_SHA, f"local/{name}", size, f"test-{name}")


def test_good_download_is_verified_and_placed(server: str, tmp_path: Path) -> None:
    path = fetch(_remote(server, "good"), tmp_path, retries=0, progressbar=False)
    assert path == tmp_path / "local" / "good"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == GOOD_SHA


def test_corrupted_download_names_file_and_hashes_and_leaves_nothing(
    server: str, tmp_path: Path
) -> None:
    with pytest.raises(FetchError) as info:
        fetch(_remote(server, "corrupt"), tmp_path, retries=0, progressbar=False)
    message = str(info.value)
    assert "test-corrupt" in message
    assert GOOD_SHA in message
    assert hashlib.sha256(PAYLOAD.replace(b"4.0", b"5.0", 1)).hexdigest() in message
    assert not (tmp_path / "local" / "corrupt").exists()
    assert list((tmp_path / "local").iterdir()) == []  # no temporary leftovers


def test_truncated_download_is_refused_by_size(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=r"expected 14013|truncated"):
        fetch(_remote(server, "truncated"), tmp_path, retries=0, progressbar=False)
    assert not (tmp_path / "local" / "truncated").exists()


def test_truncated_download_without_known_size_fails_the_hash(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=GOOD_SHA):
        fetch(_remote(server, "truncated", None), tmp_path, retries=0, progressbar=False)


def test_timeout_is_an_error_naming_url_and_fix(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as info:
        fetch(_remote(server, "slow"), tmp_path, timeout=0.5, retries=0, progressbar=False)
    assert f"{server}/files/slow" in str(info.value)
    assert "GEVAL_REPRO_MIRROR" in str(info.value)
    assert not (tmp_path / "local" / "slow").exists()


def test_retry_recovers_after_a_transient_failure(server: str, tmp_path: Path) -> None:
    path = fetch(_remote(server, "flaky"), tmp_path, retries=1, progressbar=False)
    assert path.read_bytes() == PAYLOAD
    assert _Handler.flaky_calls == 2


def test_without_retries_a_transient_failure_is_an_error(server: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="404"):
        fetch(_remote(server, "missing"), tmp_path, retries=0, progressbar=False)


def test_mirror_is_verified_like_a_download(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    remote = RemoteFile("https://example.invalid/a/b.tsv", GOOD_SHA, "a/b.tsv", len(PAYLOAD), "m")
    (mirror / "a").mkdir(parents=True)
    (mirror / "a" / "b.tsv").write_bytes(PAYLOAD[:-1] + b"X")  # same size, wrong bytes
    with pytest.raises(FetchError, match=GOOD_SHA):
        fetch(remote, tmp_path / "raw", mirror=mirror)
    assert not (tmp_path / "raw" / "a" / "b.tsv").exists()
    (mirror / "a" / "b.tsv").write_bytes(PAYLOAD)
    assert fetch(remote, tmp_path / "raw", mirror=mirror).read_bytes() == PAYLOAD


def test_offline_and_not_in_mirror_names_file_url_and_fix(tmp_path: Path) -> None:
    remote = RemoteFile("http://127.0.0.1:9/x/y.json", GOOD_SHA, "x/y.json", None, "thing")
    with pytest.raises(FetchError) as info:
        fetch(remote, tmp_path / "raw", mirror=tmp_path, retries=0, progressbar=False)
    message = str(info.value)
    assert "thing" in message and "http://127.0.0.1:9/x/y.json" in message
    assert "<mirror>/x/y.json" in message


def test_every_mirrored_source_verifies_from_the_mirror(mirror_dir: Path, tmp_path: Path) -> None:
    mirrored = [s for s in load_registry().values() if s.mirrored]
    assert len(mirrored) == 73  # every row of the mirror's MANIFEST.tsv
    for source in mirrored:
        path = fetch_source(source.id, tmp_path, mirror=mirror_dir)
        assert path.stat().st_size == source.bytes
        assert hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256


def test_registry_covers_the_mirror_manifest(mirror_dir: Path) -> None:
    rows = [line.split("\t") for line in (mirror_dir / "MANIFEST.tsv").read_text().splitlines()[1:]]
    registry = {s.relpath: s for s in load_registry().values()}
    for relpath, sha, size, url, _license in rows:
        assert relpath in registry, relpath
        assert (registry[relpath].sha256, registry[relpath].bytes) == (sha, int(size))
        assert registry[relpath].url == url


def test_relpath_for_url() -> None:
    raw = "https://raw.githubusercontent.com/o/r/abc/results/x.json"
    assert relpath_for_url(raw) == "o/r/abc/results/x.json"
    assert relpath_for_url("https://example.org/d/x.json") == "example.org/d/x.json"
    with pytest.raises(FetchError):
        relpath_for_url("file:///etc/passwd")
    with pytest.raises(FetchError):
        relpath_for_url("https://example.org/../x")


def test_an_unresolvable_host_fails_at_once_without_retries(tmp_path: Path) -> None:
    remote = RemoteFile("https://nonexistent.invalid/x", GOOD_SHA, "x", None, "offline-file")
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"nonexistent\.invalid.*does not resolve") as info:
        fetch(remote, tmp_path / "raw", retries=3, progressbar=False)
    assert time.monotonic() - started < 5  # pooch would wait 1 + 2 + 3 s between retries
    assert "<mirror>/x" in str(info.value)
    assert not (tmp_path / "raw" / "x").exists()


def test_failed_fetches_are_summarised_once(tmp_path: Path) -> None:
    """The fetch jobs' logs (each written by its job's process), read by the summary."""
    logs, raw = tmp_path / "logs" / "fetch", tmp_path / "raw"
    settings = Settings(0, 0, 0, 0, 0, 0.5, download_timeout=5, download_retries=0)
    for name in ("a.json", "b.json"):
        remote = RemoteFile(f"https://nonexistent.invalid/{name}", GOOD_SHA, name, None, name)
        arguments = {"remote": remote, "raw_dir": raw, "mirror": None, "settings": settings}
        job = Job("geval_repro.pipeline.downloads:fetch_file", arguments, logs / f"{name}.log")
        with pytest.raises(ProcessJobError, match="does not resolve"):
            run_in_process(job)
    stale = logs / "c.json.log"  # an old failure of a file fetched since
    stale.write_text((logs / "a.json.log").read_text().replace("a.json", "c.json"))
    (raw / "c.json").parent.mkdir(parents=True, exist_ok=True)
    (raw / "c.json").write_bytes(PAYLOAD)
    missing, fixes = fetch_failures(logs, raw)
    assert [line.split(":")[0] for line in missing] == ["a.json", "b.json"]
    assert all("does not resolve" in line for line in missing)
    assert len(fixes) == 1 and "geval-repro mirror DIR" in fixes[0]


@pytest.fixture(scope="module")
def mirror_server(mirror_dir: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 serving the offline mirror's files."""
    handler = partial(_QuietFiles, directory=str(mirror_dir))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""


def test_mirror_command_fetches_every_source_and_reports_failures(
    mirror_server: str, mirror_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mirror"
    status = main(["mirror", str(out), "--base-url", mirror_server, "--retries", "0"])
    assert status == 1  # the unmirrored sources are not on the server: reported, not skipped
    registry = load_registry()
    unmirrored = {s.id for s in registry.values() if not s.mirrored}
    assert unmirrored
    err = capsys.readouterr().err
    for source_id in unmirrored:
        assert err.count(f"{source_id} not mirrored") == 1  # once, its label once
        assert f"{source_id}: {source_id}" not in err
    ours = (out / "MANIFEST.tsv").read_text().splitlines()
    theirs = (mirror_dir / "MANIFEST.tsv").read_text().splitlines()
    assert ours[0] == theirs[0]
    # the same files, hashes, sizes and URLs (the license column is the registry's wording)
    assert sorted(r.split("\t")[:4] for r in ours[1:]) == sorted(
        r.split("\t")[:4] for r in theirs[1:]
    )
    for line in ours[1:]:
        relpath, sha, size = line.split("\t")[:3]
        data = (out / relpath).read_bytes()
        assert len(data) == int(size) and hashlib.sha256(data).hexdigest() == sha


def test_mirror_command_refuses_corrupt_bytes(tmp_path: Path, server: str) -> None:
    from geval_repro.files.mirror import make_mirror

    source = next(s for s in load_registry().values() if s.mirrored)
    result = make_mirror([source], tmp_path / "m", base_url=f"{server}/nothing-here", retries=0)
    assert result.mirrored == [] and source.id in result.failed
    assert not (tmp_path / "m" / source.relpath).exists()
    assert not (tmp_path / "m" / "MANIFEST.tsv").exists()  # no manifest that lists nothing
    assert not any((tmp_path / "m").iterdir())  # and no empty folders left behind


def test_a_mirror_that_needs_every_source_stops_at_the_first_failure(
    mirror_server: str, tmp_path: Path
) -> None:
    """keep_going=False: the source after a failed one is not fetched though the server has
    it, and no MANIFEST.tsv lists the files verified before the failure."""
    from dataclasses import replace

    from geval_repro.files.mirror import make_mirror

    good, bad, after = [s for s in load_registry().values() if s.mirrored][:3]
    bad = replace(bad, sha256="0" * 64)  # served, but fails verification
    out = tmp_path / "m"
    result = make_mirror([good, bad, after], out, base_url=mirror_server, retries=0)
    assert result.mirrored == [good, after] and list(result.failed) == [bad.id]  # keeps going
    out = tmp_path / "stopped"
    result = make_mirror(
        [good, bad, after], out, base_url=mirror_server, retries=0, keep_going=False
    )
    assert result.mirrored == [good] and list(result.failed) == [bad.id]
    assert (out / good.relpath).is_file() and not (out / after.relpath).exists()
    assert not (out / "MANIFEST.tsv").exists()


def test_tests_make_a_mirror_in_the_cache_when_none_is_set(
    mirror_server: str, tmp_path: Path
) -> None:
    """Without GEVAL_REPRO_MIRROR and ../shared/mirror, the test session fetches one into
    the cache folder (verified) and reuses it; it never writes into the checkout."""
    cache = tmp_path / "cache" / "geval-repro" / "mirror"
    made = find_or_make_mirror(None, tmp_path / "no-shared", cache, base_url=mirror_server)
    assert made == cache.resolve() and (cache / "MANIFEST.tsv").is_file()
    mirrored = {s.relpath for s in load_registry().values() if s.mirrored}
    listed = {line.split("\t")[0] for line in (cache / "MANIFEST.tsv").read_text().splitlines()}
    assert mirrored <= listed
    # reused, not fetched again: a dead server is never asked
    dead = "http://127.0.0.1:9/none"
    assert find_or_make_mirror(None, tmp_path / "no-shared", cache, base_url=dead) == made


def test_tests_without_mirror_or_network_fail_naming_both_ways(tmp_path: Path, server: str) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(pytest.fail.Exception) as failure:
        find_or_make_mirror(None, tmp_path / "no-shared", cache, base_url=f"{server}/nothing")
    message = str(failure.value)
    assert "GEVAL_REPRO_MIRROR" in message and "geval-repro mirror DIR" in message
    assert "raw.githubusercontent.com" in message
    assert not (cache / "MANIFEST.tsv").exists()
