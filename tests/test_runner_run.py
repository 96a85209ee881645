"""The judge runner end to end against the fake OpenAI-compatible server (no real API).

SummEval, Topical-Chat and QAGS-CNN/DM items come from the offline mirror; replies are the
fake server's (deterministic, derived from each prompt's hash), so every output here is a
labelled test fixture, never a judge's real answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.runner.cache import CACHE_FILE
from geval_repro.runner.client import CompletionClient
from geval_repro.runner.prompts import sha256_text, steps_path
from geval_repro.runner.requests import RequestParams
from geval_repro.runner.run import RunOptions, load_items_table, run_judge
from tests.fake_openai_server import FakeOpenAIServer, distribution

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

REPO_ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-DISTINCT-7f3a9c41e0"


@pytest.fixture
def server():
    with FakeOpenAIServer(lifetime=120) as fake:
        yield fake


@pytest.fixture(scope="session")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """data/processed-like folder with summeval.parquet built from the mirror."""
    folder = tmp_path_factory.mktemp("processed")
    raw = tmp_path_factory.mktemp("raw")
    table = load_items_table(get_benchmark("summeval"), raw, None, mirror_dir)
    table.to_parquet(folder / "summeval.parquet", index=False)
    return folder


def options(server, out: Path, **changes) -> RunOptions:
    values = {
        "benchmark": "summeval",
        "dimension": "coherence",
        "params": RequestParams("fake-model", "logprobs", 1, 1.0, 1.0, 5, 5),
        "base_urls": (server.base_url,),
        "out": out,
        "limit": 4,
        "concurrency": 1,
        "timeout": 5.0,
        "max_attempts": 3,
        "raw_dir": out.parent / "raw",
    }
    values.update(changes)
    return RunOptions(**values)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_summeval_from_mirror_logprobs_and_manifest(server, tmp_path, mirror_dir, monkeypatch):
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    out = tmp_path / "run"
    summary = run_judge(options(server, out, params=RequestParams("m", "both", 3, 1, 1, 5, 5)))
    assert summary["sent"] == 4 and summary["failed"] == 0
    rows = records(out / "coherence.jsonl")
    table = load_items_table(get_benchmark("summeval"), tmp_path / "raw", None).iloc[:4]
    assert [(r["doc_id"], r["system_id"]) for r in rows] == list(
        zip(table["doc_id"], table["system_id"], strict=True)
    )
    # The released coherence prompt filled with the first item's texts was sent.
    assert server.requests[0].endswith("- Coherence:")
    assert table["system_output"].iloc[0] in server.requests[0]
    for row, prompt in zip(rows, server.requests, strict=True):
        assert len(row["replies"]) == 3
        # The fake's top-5 at the level token: levels 1-5 and off-scale " " / "The" by hash;
        # the expected mass is recomputed here from the fake's distribution, not the runner.
        top = sorted(distribution(prompt).items(), key=lambda kv: -kv[1])[:5]
        valid = {t: p for t, p in top if t.strip().isdigit()}
        expected = sum(int(t) * p for t, p in valid.items()) / sum(valid.values())
        assert row["weighted_score"] == pytest.approx(expected, abs=1e-12)
        assert row["off_scale_mass"] == pytest.approx(1 - sum(valid.values()), abs=1e-12)
        assert sum(row["level_probs"].values()) == pytest.approx(1.0)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["benchmark"] == "summeval"
    manifest = manifest["dimensions"]["coherence"]
    assert manifest["prompt"]["sha256"] == (
        "87ae7311d8edfc8e39a9674672496ef42e4bc768f38e927f294293b9d0ba4973"
    )
    assert manifest["request_parameters"]["n"] == 3
    assert manifest["system_fingerprints"] == ["fp_fake"]
    assert manifest["counts"]["sent"] == 4
    assert manifest["base_url_host"] == server.base_url.removeprefix("http://")
    # the checkout the run was made from: its commit, and whether tracked files differ
    assert re.fullmatch(r"[0-9a-f]{40}", manifest["git_commit"])
    assert manifest["git_dirty"] in (True, False)


@pytest.mark.parametrize(
    ("benchmark", "dimension", "keys", "ending"),
    [
        ("topical_chat", "groundedness", ["item_id"], "- Groundedness:"),
        ("qags_cnndm", "consistency", ["item_id"], "- Consistency:"),
    ],
)
def test_other_benchmarks_use_toolkit_prompts(
    server, tmp_path, mirror_dir, monkeypatch, benchmark, dimension, keys, ending
):
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    out = tmp_path / "run"
    params = RequestParams("m", "sample", 2, 1, 1, 5, 5)
    run_judge(options(server, out, benchmark=benchmark, dimension=dimension, params=params))
    rows = records(out / f"{dimension}.jsonl")
    assert [r["item_id"] for r in rows] == [0, 1, 2, 3]
    assert all(set(r) == {*keys, "replies"} and len(r["replies"]) == 2 for r in rows)
    assert server.requests[0].endswith(ending)
    assert "geval-repro toolkit prompt" not in server.requests[0]  # the header is not sent
    assert "{{" not in server.requests[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dimensions"][dimension]["prompt"]["origin"] == "geval-repro"
    # A second dimension run into the same folder joins the manifest, keeping the first.
    other = "consistency" if dimension != "consistency" else None
    if benchmark == "topical_chat":
        other = "naturalness"
    if other is not None:
        run_judge(options(server, out, benchmark=benchmark, dimension=other, params=params))
        both = json.loads((out / "manifest.json").read_text())["dimensions"]
        assert set(both) == {dimension, other}
        assert both[dimension] == manifest["dimensions"][dimension]
    # A folder holding another benchmark's run is refused before anything is written.
    sent = len(server.requests)
    with pytest.raises(ValueError, match="belongs to another run"):
        run_judge(options(server, out, benchmark="summeval", dimension="coherence", params=params))
    assert len(server.requests) == sent
    assert not (out / "coherence.jsonl").exists()


@pytest.mark.parametrize(("mode", "n"), [("logprobs", 1), ("sample", 3), ("both", 3)])
def test_writer_vs_llm_with_the_released_summeval_prompt_in_every_mode(
    server, tmp_path, mirror_dir, monkeypatch, mode, n
):
    # Zhang et al.'s summaries judged with SummEval's released fluency prompt (unchanged, on
    # its 1-3 scale; it shows the summary only): the first 4 items, keyed by their string
    # item_id.
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    out = tmp_path / "run"
    params = RequestParams("m", mode, n, 1, 1, 5, 5)
    run_judge(options(server, out, benchmark="writer_vs_llm", dimension="fluency", params=params))
    table = load_items_table(get_benchmark("writer_vs_llm"), tmp_path / "raw", None).iloc[:4]
    rows = records(out / "fluency.jsonl")
    assert [r["item_id"] for r in rows] == table["item_id"].tolist()
    assert all(len(r["replies"]) == n for r in rows)
    assert all(("level_probs" in r) == (mode != "sample") for r in rows)
    assert server.requests[0].endswith("- Fluency (1-3):")
    assert table["summary"].iloc[0] in server.requests[0]
    assert table["article"].iloc[0] not in server.requests[0]  # the released prompt has none
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["benchmark"] == "writer_vs_llm"
    released = get_benchmark("writer_vs_llm").prompts.released["fluency"]
    assert manifest["dimensions"]["fluency"]["prompt"]["sha256"] == (
        "cd996012a744fea5007ba49e8508c1407eee4df05f39b395a4ad9d073f72ca7b"  # sources.yaml
    )
    assert released == "summeval_prompt_flu"


def test_retries_429_and_500_then_success(server):
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async def go():
        client = CompletionClient(
            server.base_url, "k", concurrency=1, backoff_base=0.01, seed=1, sleep=record
        )
        try:
            return await client.send({"model": "m", "messages": [{"role": "user", "content": "x"}]})
        finally:
            await client.close()

    server.faults.extend(["429", "500"])
    answer = asyncio.run(go())
    assert answer.ok and json.loads(answer.text)["choices"][0]["message"]["content"]
    assert len(server.requests) == 3
    assert waits[0] == pytest.approx(0.1)  # the server's Retry-After
    assert 0.01 * 2 * 0.5 <= waits[1] < 0.01 * 2 * 1.5  # backoff of attempt 2, with jitter


def test_timeouts_are_retried_then_reported(server):
    server.slow_seconds = 1.0
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}

    async def go(attempts: int):
        client = CompletionClient(
            server.base_url, "k", timeout=0.3, max_attempts=attempts, backoff_base=0.01
        )
        try:
            return await client.send(body)
        finally:
            await client.close()

    server.faults.append("slow")
    assert asyncio.run(go(2)).ok
    server.faults.extend(["slow", "slow"])
    failed = asyncio.run(go(2))
    assert not failed.ok and "timed out" in failed.error and "2 attempts" in failed.error


def test_a_refused_connection_is_reported_as_such_not_as_a_timeout():
    import socket

    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}

    async def go():
        client = CompletionClient(
            f"http://127.0.0.1:{port}/v1", "secret-key", max_attempts=2, backoff_base=0.01
        )
        try:
            return await client.send(body)
        finally:
            await client.close()

    failed = asyncio.run(go())
    assert not failed.ok and failed.error.startswith("connection error: ")
    assert str(port) in failed.error and "2 attempts" in failed.error


def test_malformed_response_is_a_reported_failure_then_retried(server, tmp_path, processed):
    out = tmp_path / "run"
    server.faults.append("malformed")
    summary = run_judge(options(server, out, processed=processed))
    assert summary["failed"] == 1
    rows = records(out / "coherence.jsonl")
    assert len(rows) == 4
    assert rows[0]["replies"] == [] and "unreadable response" in rows[0]["error"]
    assert all("error" not in r for r in rows[1:])
    count = len(server.requests)
    summary = run_judge(options(server, out, processed=processed))
    assert summary == {**summary, "sent": 1, "cached": 3, "failed": 0}
    assert len(server.requests) == count + 1
    assert all("error" not in r for r in records(out / "coherence.jsonl"))


def test_api_key_is_written_nowhere(server, tmp_path, processed, monkeypatch, capfd):
    monkeypatch.setenv("MY_JUDGE_KEY", KEY)
    out = tmp_path / "run"
    server.faults.extend(["401", "500", "500", "500"])  # a key-echoing error, a failed item
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "fluency", "--model", "m",
        "--base-url", server.base_url, "--mode", "logprobs", "--limit", "3", "--out", str(out),
        "--processed", str(processed), "--api-key-env", "MY_JUDGE_KEY", "--concurrency", "1",
        "--max-attempts", "3", "--raw-dir", str(tmp_path / "raw"),
    ]  # fmt: skip
    assert main(argv) == 1  # failed items: exit status 1
    assert server.auth[0] == f"Bearer {KEY}"  # the key was used...
    rows = records(out / "fluency.jsonl")
    assert "HTTP 401" in rows[0]["error"] and "***" in rows[0]["error"]
    assert "HTTP 500" in rows[1]["error"]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == CACHE_FILE for p in written)
    for path in written:  # ...and appears in no file: outputs, manifest, cache (and its WAL)
        assert KEY.encode() not in path.read_bytes(), path
    captured = capfd.readouterr()
    assert KEY not in captured.out and KEY not in captured.err
    assert "failed 2" in captured.err


def test_dry_run_sends_nothing(server, tmp_path, processed, capsys):
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "relevance", "--model", "m",
        "--base-url", server.base_url, "--mode", "sample", "--limit", "10", "--out",
        str(tmp_path / "run"), "--processed", str(processed), "--dry-run",
        "--price-input", "2", "--price-output", "8", "--raw-dir", str(tmp_path / "raw"),
    ]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert server.requests == [] and not (tmp_path / "run").exists()
    assert set(report) == {"benchmark", "dimensions", "total"}  # one shape for any dimensions
    estimate = report["dimensions"]["relevance"]
    assert estimate["requests"] == 10 and estimate["to_send"] == 10
    assert estimate["completion_tokens_max"] == 10 * 20 * 5  # items x n x max_tokens
    expected_cost = estimate["prompt_tokens_estimate"] * 2 / 1e6 + 1000 * 8 / 1e6
    assert estimate["cost_estimate_usd"] == pytest.approx(expected_cost, abs=0.006)
    # A server returning one choice per request (llama.cpp's) needs n = 20 requests per item,
    # each billing its prompt: the dry run's upper bound counts them (issue 50's 16 vs 320).
    assert estimate["requests_at_most"] == 10 * 20
    assert estimate["prompt_tokens_at_most"] == 20 * estimate["prompt_tokens_estimate"]
    most = 20 * estimate["prompt_tokens_estimate"] * 2 / 1e6 + 1000 * 8 / 1e6
    assert estimate["cost_at_most_usd"] == pytest.approx(most, abs=0.006)
    assert report["total"] == {
        **estimate,
        "cost_estimate_usd": report["total"]["cost_estimate_usd"],
        "cost_at_most_usd": report["total"]["cost_at_most_usd"],
    }
    assert report["total"]["cost_estimate_usd"] == pytest.approx(expected_cost, abs=0.006)
    assert report["total"]["cost_at_most_usd"] == pytest.approx(most, abs=0.006)
    # Several dimensions and no prices: the same shape, the cost null and the note says why.
    unpriced = [a for a in argv if a not in ("--price-input", "2", "--price-output", "8")]
    unpriced[unpriced.index("relevance")] = "all"
    assert main(unpriced) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert set(report) == {"benchmark", "dimensions", "total"} and len(report["dimensions"]) == 4
    assert report["total"]["requests"] == 40 and report["total"]["cost_estimate_usd"] is None
    assert report["total"]["requests_at_most"] == 40 * 20
    assert report["total"]["cost_at_most_usd"] is None
    assert all(e["cost_estimate_usd"] is None for e in report["dimensions"].values())
    assert "pass --price-input and --price-output" in captured.err
    assert "top-up requests" in captured.err and "requests_at_most" in captured.err


def _stored_prompts(db: Path) -> Counter[str]:
    """The prompts of the stored answers, with multiplicity (one per item)."""
    if not db.is_file():
        return Counter()
    connection = sqlite3.connect(db)
    try:
        rows = connection.execute("SELECT request FROM responses").fetchall()
    except sqlite3.OperationalError:  # the run is still creating its tables
        return Counter()
    finally:
        connection.close()
    return Counter(json.loads(r[0])["messages"][-1]["content"] for r in rows)


@pytest.mark.slow
def test_killed_run_resumes_without_repeating_requests(tmp_path, processed):
    server = FakeOpenAIServer(latency=0.05, lifetime=120)
    out, n_items = tmp_path / "run", 40
    argv = [
        sys.executable, "-m", "geval_repro.cli", "judge", "--benchmark", "summeval",
        "--dimension", "coherence", "--model", "m", "--base-url", server.base_url,
        "--mode", "both", "--n", "2", "--limit", str(n_items), "--out", str(out),
        "--processed", str(processed), "--concurrency", "2", "--raw-dir", str(tmp_path / "raw"),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    try:
        process = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
        db = out / "cache" / CACHE_FILE
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len(_stored_prompts(db)) >= 10:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert not (out / "coherence.jsonl").exists()  # killed before the output was written
        stored = _stored_prompts(db)
        assert 10 <= stored.total() < n_items
        before = len(server.requests)
        assert subprocess.run(argv, env=env, capture_output=True).returncode == 0
        resent = Counter(server.requests[before:])
        # The rerun sent exactly the requests without a stored answer, each once (two items
        # with the same text are two requests: they count twice in both multisets).
        assert stored + resent == _stored_prompts(db)
        assert _stored_prompts(db).total() == n_items
        rows = records(out / "coherence.jsonl")
        assert len(rows) == n_items and all("error" not in r for r in rows)
        first = (out / "coherence.jsonl").read_bytes()
        count = len(server.requests)
        assert subprocess.run(argv, env=env, capture_output=True).returncode == 0
        assert len(server.requests) == count  # everything cached
        assert (out / "coherence.jsonl").read_bytes() == first
    finally:
        server.stop()


def test_frozen_steps_hash_is_recorded_and_edited_steps_stop_the_run(
    server, tmp_path, processed, capsys
):
    template = tmp_path / "coh.txt"
    template.write_text(
        "Rate the summary.\n\nEvaluation Steps:\n\n{{Evaluation Steps}}\n\n"
        "Source Text:\n\n{{Document}}\n\nSummary:\n\n{{Summary}}\n\n- Coherence:"
    )
    text = "1. Read the article.\n2. Rate the summary."
    record = {"model": "m", "text": text, "sha256": sha256_text(text)}
    steps_path(template).write_text(json.dumps(record))
    out = tmp_path / "run"
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "m",
        "--base-url", server.base_url, "--mode", "sample", "--n", "1", "--limit", "2",
        "--out", str(out), "--processed", str(processed), "--prompt", str(template),
    ]  # fmt: skip
    assert main(argv) == 0
    assert "Evaluation Steps:\n\n1. Read the article.\n2. Rate" in server.requests[0]
    manifest = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
    assert manifest["steps_sha256"] == sha256_text(text)
    steps_path(template).write_text(json.dumps({**record, "text": text + "\n3. Added."}))
    capsys.readouterr()
    assert main([*argv[:-2], "--prompt", str(template), "--limit", "3"]) == 2
    assert "edited after they were frozen" in capsys.readouterr().err
    assert len(server.requests) == 2  # nothing was sent


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--limit", "0"], "--limit 0"),
        (["--concurrency", "0"], "must be positive"),
        (["--mode", "logprobs", "--n", "3"], "--mode both"),
        (["--dimension", "fluency", "--benchmark", "qags_cnndm"], "no dimension 'fluency'"),
        (["--base-url", "localhost"], "has no host"),
    ],
)
def test_bad_flags_are_named_and_nothing_is_written(tmp_path, processed, capsys, flags, message):
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "m",
        "--base-url", "http://127.0.0.1:9/v1", "--mode", "sample", "--out", str(tmp_path / "o"),
        "--processed", str(processed), "--raw-dir", str(tmp_path / "raw"), *flags,
    ]  # fmt: skip
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("mode", "n"), [("sample", 2), ("logprobs", 1), ("both", 2)], ids=["sample", "logprobs", "both"]
)
def test_dialsummeval_is_judged_in_every_mode(server, tmp_path, mirror_dir, monkeypatch, mode, n):
    # The toolkit's DialSummEval prompt filled with the first item's dialogue (one turn per
    # line) and summary; the items keyed (doc_id, system_id), the reference (A) not among them.
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    out = tmp_path / "run"
    params = RequestParams("m", mode, n, 1, 1, 5, 5)
    summary = run_judge(
        options(server, out, benchmark="dialsummeval", dimension="consistency", params=params)
    )
    assert summary["sent"] == 4 and summary["failed"] == 0
    rows = records(out / "consistency.jsonl")
    table = load_items_table(get_benchmark("dialsummeval"), tmp_path / "raw", None).iloc[:4]
    assert [(r["doc_id"], r["system_id"]) for r in rows] == list(
        zip(table["doc_id"], table["system_id"], strict=True)
    )
    assert "A" not in {r["system_id"] for r in rows}
    assert all(len(r["replies"]) == n for r in rows)
    prompt = server.requests[0]
    assert prompt.endswith("- Consistency:") and "{{" not in prompt
    assert table["summary"].iloc[0] in prompt and table["dialogue"].iloc[0] in prompt
    assert "\n" in table["dialogue"].iloc[0] and "|" not in prompt.split("Dialogue:")[-1][:40]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dimensions"]["consistency"]["prompt"]["origin"] == "geval-repro"


@pytest.mark.parametrize(
    ("mode", "n"), [("sample", 2), ("logprobs", 1), ("both", 2)], ids=["sample", "logprobs", "both"]
)
def test_summedits_is_judged_in_every_mode(server, tmp_path, mirror_dir, monkeypatch, mode, n):
    # The toolkit's SummEdits consistency prompt filled with the first items' document and
    # summary (the news domain's, in file order); the items keyed by item_id.
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    out = tmp_path / "run"
    params = RequestParams("m", mode, n, 1, 1, 5, 5)
    summary = run_judge(
        options(server, out, benchmark="summedits", dimension="consistency", params=params)
    )
    assert summary["sent"] == 4 and summary["failed"] == 0
    rows = records(out / "consistency.jsonl")
    table = load_items_table(get_benchmark("summedits"), tmp_path / "raw", None).iloc[:4]
    assert [r["item_id"] for r in rows] == table["item_id"].tolist()
    assert all(r["item_id"].startswith("news/") for r in rows)
    assert all(len(r["replies"]) == n for r in rows)
    prompt = server.requests[0]
    assert prompt.endswith("- Consistency:") and "{{" not in prompt
    assert table["summary"].iloc[0] in prompt and table["source"].iloc[0] in prompt
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dimensions"]["consistency"]["prompt"]["origin"] == "geval-repro"
