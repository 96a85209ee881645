"""Reasoning models as they are (issue 49, item 1), against a fake server that behaves as
OpenAI's reasoning models do (tests/fake_openai_server.py, ``reasoning=True``): HTTP 400 with
OpenAI's own messages for ``max_tokens`` and a temperature other than 1, reasoning tokens
spent before a long reply that ends in its rating, a reply cut off while thinking when the
budget is too small. Every reply is the fake's: test data, never a judge's answer. Expected
values come from the fake's constants and functions, or from what the server received."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.load.jsonl import load_geval_jsonl
from geval_repro.pipeline.judge_tables import build_item_scores
from geval_repro.runner.fields import REASONING_MAX_TOKENS, ServerFields, refused_field
from geval_repro.scoring.parse import RATING_PARSERS
from geval_repro.tables.judge_rows import beyond_the_paper, parser_comparison
from tests.fake_openai_server import (
    REASONING_ANSWER_TOKENS,
    FakeOpenAIServer,
    reasoning_reply,
    reply_level,
)
from tests.runner_cli import judge_argv, one_line, rows, summeval_processed

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

MAX_TOKENS_400 = (
    'HTTP 400: {"error": {"message": "Unsupported parameter: \'max_tokens\' is not supported '
    'with this model. Use \'max_completion_tokens\' instead.", "type": '
    '"invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}'
)
TEMPERATURE_400 = (
    'HTTP 400: {"error": {"message": "Unsupported value: \'temperature\' does not support 0.7 '
    'with this model. Only the default (1) value is supported.", "type": '
    '"invalid_request_error", "code": "unsupported_value"}}'
)


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    return summeval_processed(tmp_path_factory, mirror_dir)


def test_the_refused_field_is_read_from_the_servers_400():
    assert refused_field(MAX_TOKENS_400) == "max_tokens"
    assert refused_field(TEMPERATURE_400) == "temperature"  # no 'param': the quoted name
    assert refused_field('HTTP 400: {"error": {"message": "top_logprobs must be <= 5"}}') is None
    assert refused_field("HTTP 500: 'temperature' is broken") is None  # only a 400 refuses


def test_a_body_is_sent_as_the_server_accepts_it():
    fields = ServerFields().refusing("max_tokens", "m").refusing("temperature", "t")
    body = {"model": "m", "n": 3, "temperature": 0.7, "top_p": 1.0, "max_tokens": 5, "seed": 1}
    assert fields.apply(body) == {
        "model": "m", "n": 3, "top_p": 1.0, "max_completion_tokens": 5, "seed": 1
    }  # fmt: skip
    assert ServerFields().refusing("n", "x").apply(body)["n"] == 1
    assert ServerFields().budget(None) == 5 and ServerFields(reasoning=True).budget(None) == 8192
    assert ServerFields(reasoning=True).budget(300) == 300  # given: as given


def test_a_reasoning_model_is_run_as_it_is(tmp_path, processed, capsys):
    """Without a flag: max_completion_tokens instead of max_tokens, no temperature (0.7 asked),
    the automatic reasoning budget; the manifest and the console say what was left out and
    why; the replies are the model's long replies; a rerun contacts no server."""
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning=True) as server:
        argv = judge_argv(server.base_url, out, processed, "--n", "3", "--temperature", "0.7")
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert server.bodies, "the run sent nothing"
        for body in server.bodies:
            assert "max_tokens" not in body and "temperature" not in body
            assert body["max_completion_tokens"] == REASONING_MAX_TOKENS
        assert "left out temperature 0.7: left out: the server samples at its default (1)" in err
        assert "left out max_tokens: sent as max_completion_tokens" in err
        entry = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
        fields = entry["request_fields"]
        assert set(fields["left_out"]) == {"max_tokens", "temperature"}
        assert "Only the default (1) value is supported" in fields["left_out"]["temperature"]
        assert fields["reasoning"] is True and fields["completion_budget"] == 8192
        assert fields["reasoning_tokens"] == server.think_tokens  # the probe's full reply
        assert fields["reply_tokens"] == server.think_tokens + REASONING_ANSWER_TOKENS
        for record, prompt in zip(rows(out / "coherence.jsonl"), server.requests, strict=True):
            assert "error" not in record
            assert record["replies"] == [reasoning_reply(reply_level(prompt, i)) for i in range(3)]
        seen = list(server.paths)
        assert main(argv) == 0  # everything cached: no probe, nothing sent
        assert server.paths == seen


def test_a_reply_cut_off_while_thinking_is_the_items_failure(tmp_path, processed, capsys):
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning=True, think_tokens=900) as server:
        assert main(judge_argv(server.base_url, out, processed, "--max-tokens", "500")) == 1
        err = capsys.readouterr().err
        assert all(b["max_completion_tokens"] == 500 for b in server.bodies)
    records = rows(out / "coherence.jsonl")
    assert len(records) == 3
    for record in records:
        assert record["error"].startswith("cut off while thinking: finish_reason length")
        assert "500 tokens, 500 of them reasoning tokens" in record["error"]
    assert "3 x cut off while thinking" in err
    entry = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
    assert entry["counts"]["failed"] == 3


@pytest.mark.parametrize("mode", ["logprobs", "both"])
def test_a_mode_that_needs_log_probabilities_stops_before_any_item(
    tmp_path, processed, capsys, mode
):
    with FakeOpenAIServer(reasoning=True) as server:
        argv = judge_argv(server.base_url, tmp_path / "run", processed, "--mode", mode)
        assert main(argv) == 2
        assert not server.bodies
    line = one_line(capsys.readouterr().err)
    assert "refuses logprobs" in line and "Fix: --mode sample" in line


def test_a_server_that_refuses_n_gets_one_reply_per_request(tmp_path, processed):
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning=True, refuse_n=True) as server:
        assert main(judge_argv(server.base_url, out, processed, "--n", "3")) == 0
        assert [b["n"] for b in server.bodies] == [1] * 9  # 3 items x 3 requests
    for record in rows(out / "coherence.jsonl"):
        assert len(record["replies"]) == 3 and "error" not in record
    entry = json.loads((out / "manifest.json").read_text())["dimensions"]["coherence"]
    assert "n" in entry["request_fields"]["left_out"]


def test_the_dry_run_counts_the_reasoning_tokens_the_probe_saw(tmp_path, processed, capsys):
    """After a one-item run (which stores what the probe learned in the cache), a dry run of
    three items prices the two not cached at n x the probe's full reply: 960 completion tokens
    each, 900 of them reasoning."""
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning=True) as server:
        assert main(judge_argv(server.base_url, out, processed, "--limit", "1", "--n", "2")) == 0
        capsys.readouterr()
        sent = len(server.paths)
        argv = judge_argv(server.base_url, out, processed, "--n", "2", "--dry-run")
        assert main([*argv, "--price-input", "1", "--price-output", "10"]) == 0
        assert len(server.paths) == sent  # the dry run sent nothing
    report = json.loads(capsys.readouterr().out)["dimensions"]["coherence"]
    assert report["to_send"] == 2
    assert report["completion_tokens_estimate"] == 2 * 2 * 960
    assert report["reasoning_tokens_estimate"] == 2 * 2 * 900
    assert report["completion_tokens_max"] == 2 * 2 * 8192
    expected = report["prompt_tokens_estimate"] / 1e6 * 1 + 2 * 2 * 960 / 1e6 * 10
    assert report["cost_estimate_usd"] == round(expected, 2)


def test_the_probe_command_reports_a_server_that_refuses_n(capsys):
    """``geval-repro probe`` answers (exit 0) and says which fields the server refuses."""
    with FakeOpenAIServer(reasoning=True, refuse_n=True) as server:
        argv = ["probe", "--base-url", server.base_url, "--model", "fake-model"]
        assert main(argv) == 0
    out = capsys.readouterr().out
    fields = next(line for line in out.splitlines() if "request fields:" in line)
    assert "max_tokens: sent as max_completion_tokens" in fields
    assert "n: one reply per request" in fields
    assert "logprobs: the mode needs log-probabilities" in fields
    assert "reasoning: yes" in out


@pytest.mark.parametrize(("reasoning", "found"), [(True, "refused"), (False, "accepted")])
def test_the_probe_command_finds_whether_a_temperature_other_than_1_is_accepted(
    capsys, reasoning, found
):
    """The command asks at 0.7 (not 1): a reasoning model's 400 is learned and shown with
    the value asked; a server that samples at 0.7 is reported as accepting it."""
    with FakeOpenAIServer(reasoning=reasoning) as server:
        assert main(["probe", "--base-url", server.base_url, "--model", "fake-model"]) == 0
        temperatures = [b.get("temperature") for b in server.probes]  # the accepted ones
    assert temperatures == ([None] * len(temperatures) if reasoning else [0.7] * len(temperatures))
    out = capsys.readouterr().out
    assert f"temperature other than 1: asked 0.7, {found}" in out
    fields = next(line for line in out.splitlines() if "request fields:" in line)
    assert ("temperature 0.7: left out: the server samples at its default (1)" in fields) is (
        reasoning
    )


def test_a_reasoning_runs_replies_are_read_with_final_in_the_pipelines_item_scores(
    tmp_path, processed
):
    """The manifest records the parsers (``final`` beside the released two); the pipeline's
    item scores read the replies with all three, the ``parser`` column saying which: the
    released parser finds no number at the start of a reasoning reply (scored 0, as
    released), ``final`` reads the rating the fake wrote last. A manifest of a model that
    answers at once keeps the released two."""
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning=True) as server:
        assert main(judge_argv(server.base_url, out, processed, "--n", "2")) == 0
        prompts = list(server.requests)
    manifest = out / "manifest.json"
    entry = json.loads(manifest.read_text())["dimensions"]["coherence"]
    assert entry["reply_parsers"] == ["original", "tolerant", "final"]
    human = pd.read_parquet(processed / "summeval.parquet")
    loaded = load_geval_jsonl(
        out / "coherence.jsonl", "r", "coherence", human, "summeval", reads=("replies",)
    )
    loaded["replies"].to_parquet(tmp_path / "replies.parquet")
    build_item_scores(tmp_path / "replies.parquet", tmp_path / "items.parquet", [manifest])
    items = pd.read_parquet(tmp_path / "items.parquet")
    assert list(dict.fromkeys(items["parser"])) == ["original", "tolerant", "final"]
    final = items[items["parser"] == "final"].set_index(["doc_id", "system_id"])["mean"]
    written = {  # the JSONL is in request order
        (r["doc_id"], r["system_id"]): (float(reply_level(p, 0)) + float(reply_level(p, 1))) / 2
        for r, p in zip(rows(out / "coherence.jsonl"), prompts, strict=True)
    }
    assert final.to_dict() == pytest.approx(written)
    assert (items[items["parser"] == "original"]["mean"] == 0.0).all()  # no leading number
    build_item_scores(tmp_path / "replies.parquet", tmp_path / "plain.parquet")
    assert set(pd.read_parquet(tmp_path / "plain.parquet")["parser"]) == {"original", "tolerant"}


def test_final_rows_are_beyond_the_paper_and_compared_with_the_released_parser():
    rows = pd.DataFrame(
        {
            "benchmark": "summeval", "dimension": "coherence", "metric": "r", "level": "summary",
            "coefficient": "spearman", "variant": [f"mean-of-2/{p}" for p in RATING_PARSERS],
            "value": [0.1, 0.25, 0.5],
        }
    )  # fmt: skip
    wide = parser_comparison(rows)
    assert wide.loc[0, "final_minus_original"] == pytest.approx(0.4)
    assert wide.loc[0, "tolerant_minus_original"] == pytest.approx(0.15)
    assert beyond_the_paper("mean-of-2/final") and not beyond_the_paper("mean-of-2/original")
    two = parser_comparison(rows.iloc[:2])  # a run read with the released two only
    assert "final" not in two and "final_minus_original" not in two
