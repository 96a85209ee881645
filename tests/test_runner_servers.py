"""Server differences the judge runner handles, against fake OpenAI-compatible servers.

The fake server's variants stand for what a real server does (tests/fake_openai_server.py):
one choice per request (llama.cpp), no log-probabilities, a context limit, a server that
cannot be reached. Every reply is the fake's (derived from each prompt's hash): test data,
never a judge's answer. Expected values come from the fake's own functions or from what the
server received, never from the runner's code.
"""

from __future__ import annotations

import itertools
import json
import socket
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.runner.probe import ProbeResult
from geval_repro.runner.requests import RequestParams
from geval_repro.runner.run import RunOptions, Session, load_items_table, run_judge
from tests.fake_openai_server import FakeOpenAIServer, distribution, reply_level

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """summeval.parquet and topical_chat.parquet built from the mirror."""
    folder = tmp_path_factory.mktemp("processed")
    raw = tmp_path_factory.mktemp("raw")
    for name in ("summeval", "topical_chat"):
        table = load_items_table(get_benchmark(name), raw, None, mirror_dir)
        table.to_parquet(folder / f"{name}.parquet", index=False)
    return folder


def options(base_urls, out: Path, processed: Path, **changes) -> RunOptions:
    values = {
        "benchmark": "summeval",
        "dimension": "coherence",
        "params": RequestParams("fake-model", "both", 3, 1.0, 1.0, 5, 5),
        "base_urls": tuple(base_urls),
        "out": out,
        "limit": 4,
        "concurrency": 1,
        "timeout": 5.0,
        "max_attempts": 2,
        "processed": processed,
        "raw_dir": out.parent / "raw",
    }
    values.update(changes)
    return RunOptions(**values)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_fewer_choices_than_n_are_topped_up_and_a_rerun_sends_nothing(tmp_path, processed):
    out = tmp_path / "run"
    with FakeOpenAIServer(max_choices=1) as server:
        summary = run_judge(options([server.base_url], out, processed))
        assert summary["failed"] == 0 and summary["sent"] == 12  # 4 items x 3 requests
        rows = records(out / "coherence.jsonl")
        prompts = server.requests
        # Each item's three requests went out back to back (one item after the other).
        assert [prompts[i] for i in range(0, 12, 3)] == [prompts[i + 2] for i in range(0, 12, 3)]
        for k, row in enumerate(rows):
            first, *topups = server.bodies[3 * k : 3 * k + 3]
            assert [b["n"] for b in (first, *topups)] == [3, 2, 1]  # the replies still missing
            assert "seed" not in first and len({b["seed"] for b in topups}) == 2
            assert all("logprobs" not in b for b in topups)  # default: first response only
            expected = [reply_level(prompts[3 * k], 0)] + [
                reply_level(prompts[3 * k], 0, b["seed"]) for b in topups
            ]
            assert row["replies"] == expected
        manifest = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
        obtained = manifest["n_obtained"]
        assert obtained["first_request_choices"] == {"1": 4}
        assert obtained["topup_requests"] == 8 and obtained["replies_per_item"] == {"3": 4}
        assert "top-ups" in obtained["how"]
        name = server.base_url.removeprefix("http://")
        assert manifest["probe"][name]["choices_for_n"] == 1
        assert manifest["cache_answered_by"] == [{"servers": [name]}]
        first_bytes = (out / "coherence.jsonl").read_bytes()
        sent = len(server.requests), len(server.probes)
        again = run_judge(options([server.base_url], out, processed))
        assert (len(server.requests), len(server.probes)) == sent  # no probe, no request
        assert again["sent"] == 0 and again["cached"] == 12
        assert (out / "coherence.jsonl").read_bytes() == first_bytes
        # The manifest removed (as Snakemake removes a job's outputs before rerunning it):
        # the rerun restores the entry of the run that obtained the answers, from the cache.
        written = (out / "manifest.json").read_bytes()
        (out / "manifest.json").unlink()
        run_judge(options([server.base_url], out, processed))
        assert (out / "manifest.json").read_bytes() == written


def test_topup_logprobs_when_asked(tmp_path, processed):
    with FakeOpenAIServer(max_choices=1) as server:
        run_judge(options([server.base_url], tmp_path / "run", processed, topup_logprobs=True))
        assert all(b["logprobs"] is True for b in server.bodies)


def test_a_server_that_honours_n_gets_one_request_per_item(tmp_path, processed):
    with FakeOpenAIServer() as server:
        summary = run_judge(options([server.base_url], tmp_path / "run", processed))
        assert summary["sent"] == 4 and [b["n"] for b in server.bodies] == [3] * 4
        manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
        obtained = manifest["dimensions"]["coherence"]["n_obtained"]
        assert obtained["topup_requests"] == 0 and obtained["how"].startswith("one request")


def test_a_server_without_logprobs_is_refused_before_any_item(tmp_path, processed):
    with FakeOpenAIServer(logprobs_supported=False) as server:
        with pytest.raises(ValueError, match=r"no log-probabilities.*--mode sample") as caught:
            run_judge(options([server.base_url], tmp_path / "run", processed))
        assert server.base_url.removeprefix("http://") in str(caught.value)
        assert server.requests == [] and not (tmp_path / "run" / "coherence.jsonl").exists()


def test_a_top_logprobs_the_server_refuses_stops_the_run_naming_the_fix(tmp_path, processed):
    with FakeOpenAIServer(max_top_logprobs=3) as server:
        with pytest.raises(ValueError, match=r"top_logprobs 5: .*at most 3.*--top-logprobs"):
            run_judge(options([server.base_url], tmp_path / "run", processed))
        assert server.requests == []


def test_fewer_candidates_than_asked_is_a_recorded_warning(tmp_path, processed, capsys):
    """The fake lists at most its 7 tokens: asked for 10, it lists 7."""
    params = RequestParams("fake-model", "logprobs", 1, 1.0, 1.0, 5, 10)
    with FakeOpenAIServer() as server:
        run_judge(options([server.base_url], tmp_path / "run", processed, params=params))
    assert "lists 7 candidates when asked for top_logprobs 10" in capsys.readouterr().err
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert any("lists 7 candidates" in w for w in manifest["dimensions"]["coherence"]["warnings"])


def test_a_response_without_logprobs_stops_the_run_at_once(tmp_path, processed):
    """A server that passed the probe (here: a probe result given) and then answers without
    log-probabilities: the run stops at the first such response and writes nothing."""
    with FakeOpenAIServer(logprobs_supported=False) as server:
        session = Session({server.base_url: ProbeResult("fake", "fake-model")})
        with pytest.raises(ValueError, match="returned no log-probabilities"):
            run_judge(options([server.base_url], tmp_path / "run", processed), session=session)
        assert len(server.requests) == 1
        assert not (tmp_path / "run" / "coherence.jsonl").exists()


def test_items_are_spread_by_shared_text_and_a_dead_server_is_left_out(tmp_path, processed):
    """48 SummEval items (3 documents x 16 systems) over two servers and a third that refuses
    connections: the dead server's document goes to the others, and every document's items
    are sent by one server."""
    with socket.socket() as probe:  # a port nothing listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        urls = [a.base_url, b.base_url]
        session = Session({u: ProbeResult(u, "fake-model", choices_for_n=3) for u in urls})
        session.probes[dead] = ProbeResult(dead, "fake-model")
        run = options([dead, *urls], tmp_path / "run", processed, limit=48)
        summary = run_judge(run, session=session)
        assert summary["failed"] == 0 and len(a.requests) + len(b.requests) == 48
        table = pd.read_parquet(processed / "summeval.parquet").iloc[:48]
        for document in set(table["source"]):
            senders = [s for s in (a, b) if any(document in p for p in s.requests)]
            assert len(senders) == 1, "a document's items were split over servers"
        manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
        dispatch = manifest["dimensions"]["coherence"]["dispatch"]
        assert list(dispatch["dropped"]) == [dead.removeprefix("http://")]
        assert "connection error" in dispatch["dropped"][dead.removeprefix("http://")]


def test_requests_go_out_grouped_by_conversation(tmp_path, processed, monkeypatch):
    """Topical-Chat rows shuffled: the requests still go out one conversation at a time."""
    table = pd.read_parquet(processed / "topical_chat.parquet").iloc[:18]
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    table.sample(frac=1.0, random_state=3).to_parquet(shuffled / "topical_chat.parquet")
    with FakeOpenAIServer() as server:
        run = options(
            [server.base_url],
            tmp_path / "run",
            shuffled,
            benchmark="topical_chat",
            dimension="engagingness",
            limit=None,
        )
        run_judge(run)
        histories = [next(h for h in table["history"] if h in p) for p in server.requests]
        changes = sum(x != y for x, y in itertools.pairwise(histories))
        assert changes == table["history"].nunique() - 1


def test_context_overflow_is_recorded_per_item_with_the_fix(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        argv = [
            "judge", "--benchmark", "summeval", "--dimension", "fluency", "coherence",
            "--model", "fake-model", "--base-url", server.base_url, "--mode", "sample",
            "--n", "1", "--limit", "4", "--processed", str(processed),
            "--api-key-env", "NO_SUCH_KEY_VARIABLE",
        ]  # fmt: skip
        assert main([*argv, "--out", str(tmp_path / "sizes")]) == 0
        server.context_chars = max(map(len, server.requests)) - 1  # the longest do not fit
        assert main([*argv, "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    rows = records(tmp_path / "run" / "coherence.jsonl")
    failed = [r for r in rows if "error" in r]
    assert failed and all("context_length_exceeded" in r["error"] for r in failed)
    assert all(r["replies"] == [] for r in failed) and len(failed) < len(rows)
    assert f"{len(failed)} x HTTP 400" in err  # each distinct error with its count
    assert "does not fit in the model's context" in err and "n_ctx" in err


def test_distinct_errors_are_counted_on_the_console(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        server.faults.extend(["401", "500", "500", "401"])
        argv = [
            "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "m",
            "--base-url", server.base_url, "--mode", "sample", "--n", "1", "--limit", "3",
            "--out", str(tmp_path / "run"), "--processed", str(processed),
            "--max-attempts", "2", "--concurrency", "1",
        ]  # fmt: skip
        assert main(argv) == 1
    err = capsys.readouterr().err
    assert "failed 3," in err  # 401 at once; 500 twice (two attempts); 401 at once
    assert "  2 x HTTP 401" in err and "  1 x HTTP 500" in err


def _no_client(monkeypatch) -> None:
    """Make any attempt to build an HTTP client fail the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a client was built: something would have been sent")

    monkeypatch.setattr("geval_repro.runner.client.CompletionClient.__init__", refuse)


def test_no_key_and_a_hosted_api_is_refused_before_sending(
    tmp_path, processed, monkeypatch, capsys
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _no_client(monkeypatch)
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "gpt-4o",
        "--mode", "sample", "--limit", "2", "--out", str(tmp_path / "run"),
        "--processed", str(processed),
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "$OPENAI_API_KEY is not set and https://api.openai.com/v1 is a hosted API" in err
    assert "nothing was sent" in err and not (tmp_path / "run").exists()


def test_a_host_that_does_not_resolve_fails_at_once(tmp_path, processed, monkeypatch, capsys):
    def unknown(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    _no_client(monkeypatch)
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "m",
        "--base-url", "https://llm.example.org/v1", "--mode", "sample", "--limit", "2",
        "--out", str(tmp_path / "run"), "--processed", str(processed),
        "--api-key-env", "OPENAI_API_KEY",
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "does not resolve" in err and "Nothing was sent" in err
    assert err.count("does not resolve") == 1  # said once


def test_dimension_all_writes_one_file_each_and_probes_once(tmp_path, processed):
    with FakeOpenAIServer() as server:
        argv = [
            "judge", "--benchmark", "topical_chat", "--dimension", "all", "--model", "m",
            "--base-url", server.base_url, "--mode", "logprobs", "--limit", "3",
            "--out", str(tmp_path / "run"), "--processed", str(processed),
        ]  # fmt: skip
        assert main(argv) == 0
        assert len(server.probes) == 2  # one probe (its two requests) for four dimensions
    names = get_benchmark("topical_chat").dimension_names
    assert sorted(p.stem for p in (tmp_path / "run").glob("*.jsonl")) == sorted(names)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert set(manifest["dimensions"]) == set(names)


def test_first_position_reading_biases_the_rating_tokens(tmp_path, processed):
    """Off by default; asked for, the request carries a logit bias on the rating tokens
    (their ids from the server's tokenizer), and the reading is the fake's distribution at
    the first position renormalized over the ratings it lists."""
    with FakeOpenAIServer() as server:
        params = RequestParams("fake-model", "logprobs", 1, 1.0, 1.0, 5, 7)
        run_judge(options([server.base_url], tmp_path / "plain", processed, params=params))
        assert all("logit_bias" not in b for b in server.bodies)
        server.bodies.clear()
        server.requests.clear()
        run = options(
            [server.base_url], tmp_path / "first", processed, params=params,
            first_position="logit_bias",
        )  # fmt: skip
        run_judge(run)
        assert {json.dumps(b["logit_bias"], sort_keys=True) for b in server.bodies} == {
            json.dumps({str(100 + r): 100 for r in range(1, 6)}, sort_keys=True)
        }
        assert all(b["max_tokens"] == 1 for b in server.bodies)
        for row, prompt in zip(
            records(tmp_path / "first" / "coherence.jsonl"), server.requests, strict=True
        ):
            top = sorted(distribution(prompt).items(), key=lambda kv: -kv[1])[:7]
            valid = {int(t): p for t, p in top if t.strip().isdigit()}
            expected = sum(r * p for r, p in valid.items()) / sum(valid.values())
            assert row["weighted_score"] == pytest.approx(expected, abs=1e-12)
        manifest = json.loads((tmp_path / "first" / "manifest.json").read_text())
        reading = manifest["dimensions"]["coherence"]["first_position_reading"]
        assert reading["method"] == "logit_bias" and len(reading["logit_bias"]) == 5


def test_coverage_is_reported_and_an_item_without_a_rating_token_has_no_score(tmp_path, processed):
    """The fake's off-scale tokens (" ", "The") as the only candidates: no rating token."""
    with FakeOpenAIServer() as server:
        params = RequestParams("fake-model", "logprobs", 1, 1.0, 1.0, 5, 1)
        summary = run_judge(options([server.base_url], tmp_path / "run", processed, params=params))
    rows = records(tmp_path / "run" / "coherence.jsonl")
    unrated = [r for r in rows if r["level_probs"] is None]
    assert all(r["weighted_score"] is None for r in unrated)  # no score, never 0
    cover = summary["coverage"]
    assert cover["items_answered"] == 4
    assert cover["items_with_rating_token"] == 4 - len(unrated)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["dimensions"]["coherence"]["coverage"] == cover


def test_probe_command_reports_what_the_server_supports(capsys):
    with FakeOpenAIServer(max_choices=1) as server:
        assert main(["probe", "--base-url", server.base_url, "--model", "fake-model"]) == 0
    out = capsys.readouterr().out
    assert "several choices (n): no: 1 of 3" in out
    assert "log-probabilities: yes; asked top_logprobs 20, listed 7 candidates" in out
    assert "seed: honoured" in out and "models served: fake-model" in out


def test_steps_without_a_key_for_a_hosted_api_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _no_client(monkeypatch)
    criteria = tmp_path / "c.txt"
    criteria.write_text("Rate it.\n\nEvaluation Steps:\n\n{{Evaluation Steps}}\n")
    assert main(["steps", "--criteria", str(criteria), "--model", "gpt-4o"]) == 2
    assert "is a hosted API" in capsys.readouterr().err


def test_first_position_with_dimension_all_on_topical_chat_and_a_later_run(tmp_path, processed):
    """Groundedness (0-1) needs the token id of rating 0, which the 1-3 dimensions before it
    never asked for; a folder whose cache holds only those ids (as an earlier version left
    it) must not stay broken."""
    argv = [
        "judge", "--benchmark", "topical_chat", "--dimension", "all", "--model", "fake-model",
        "--mode", "logprobs", "--first-position", "logit_bias", "--limit", "3",
        "--processed", str(processed), "--concurrency", "1",
    ]  # fmt: skip
    with FakeOpenAIServer() as server:
        out = tmp_path / "run"
        assert main([*argv, "--base-url", server.base_url, "--out", str(out)]) == 0
        groundedness = [b for b in server.bodies if "- Groundedness" in b["messages"][0]["content"]]
        assert groundedness and all(
            b["logit_bias"] == {"100": 100, "101": 100} for b in groundedness
        )
        sent = len(server.requests)
        assert main([*argv, "--base-url", server.base_url, "--out", str(out)]) == 0
        assert len(server.requests) == sent  # a later run into the same folder: all cached
        # A cache whose meta lacks rating 0 (written before the fix) is completed, not refused.
        from geval_repro.runner.cache import ResponseCache, server_name

        broken = tmp_path / "broken"
        cache = ResponseCache(broken / "cache")
        meta = f"rating_tokens:{server_name(server.base_url)}:fake-model"
        cache.set_meta(meta, {"1": 101, "2": 102, "3": 103})
        cache.close()
        only = [a if a != "all" else "groundedness" for a in argv]
        assert main([*only, "--base-url", server.base_url, "--out", str(broken)]) == 0
        cache = ResponseCache(broken / "cache")
        assert cache.meta(meta) == {"0": 100, "1": 101, "2": 102, "3": 103}
        cache.close()


@pytest.mark.parametrize(("owned_by", "expected"), [("me", 1), (None, 8)])
def test_concurrency_is_automatic_from_what_the_server_is(tmp_path, processed, capsys, owned_by,
                                                           expected):  # fmt: skip
    argv = [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "fake-model",
        "--mode", "sample", "--n", "1", "--limit", "2", "--processed", str(processed),
        "--out", str(tmp_path / "run"),
    ]  # fmt: skip
    with FakeOpenAIServer(owned_by=owned_by) as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["dimensions"]["coherence"]["client"]["concurrency"] == expected
    said = "--concurrency 1 (automatic: llama-cpp-python's server answers one request at a time)"
    assert (said in capsys.readouterr().err) == (owned_by == "me")
