"""The judge runner against a real server: llama-cpp-python's ``llama_cpp.server`` serving
SmolLM2-135M-Instruct (the ``local`` extra), started on 127.0.0.1 by the runner's own
:mod:`geval_repro.runner.server`.

Marked ``real_server`` (and ``slow``): deselected by default (``pyproject.toml``), run with
``python -m pytest -m real_server`` (CI does, after installing ``.[local]``). They FAIL, not
skip, when the server cannot start. The test keeps the server's raw answers itself (a
recording proxy between the runner and the server) and checks the runner's output against
them: Eq. 1 recomputed by hand from the returned top log-probabilities, the replies and
their number after top-up, a rerun that sends nothing, a context overflow recorded per
item, the server process gone afterwards, and the kernel features the manifest records
equal to those the server printed when it loaded the model.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from geval_repro.cli import main
from geval_repro.registry.benchmarks import BENCHMARKS, get_benchmark
from geval_repro.runner.run import load_items_table
from geval_repro.runner.server import ServerStartError, ggml_cpu_features, llama_cpp_server
from tests.recording_proxy import RecordingProxy

pytestmark = [pytest.mark.real_server, pytest.mark.usefixtures("prompts_from_the_mirror")]

MODEL = "smollm2-135m"
MODES = {"sample": 2, "logprobs": 1, "both": 2}  # mode -> n (small: fast)
LIMIT = 2


def _start(n_ctx: int):
    try:
        return llama_cpp_server(MODEL, n_ctx=n_ctx, threads=1).__enter__()
    except ServerStartError as error:  # a failure, never a skip
        pytest.fail(f"the real server could not start: {error}")


@pytest.fixture(scope="module")
def server():
    running = _start(2048)
    yield running
    running.stop()


@pytest.fixture
def proxy(server):
    recording = RecordingProxy(server.base_url.removesuffix("/v1"))
    yield recording
    recording.stop()


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    folder = tmp_path_factory.mktemp("processed")
    raw = tmp_path_factory.mktemp("raw")
    for name in BENCHMARKS:
        table = load_items_table(get_benchmark(name), raw, None, mirror_dir)
        table.to_parquet(folder / f"{name}.parquet", index=False)
    return folder


def hand_eq1(choices: list[dict], ratings: tuple[int, ...]) -> float | None:
    """Eq. 1 from raw choices, by hand: at each choice's first generated token whose text is
    a rating, the probability of every listed rating candidate; averaged over the choices
    that have such a token; sum_s p(s) s / sum_s p(s)."""
    masses = []
    for choice in choices:
        for position in (choice.get("logprobs") or {}).get("content") or []:
            if position["token"].strip() not in {str(r) for r in ratings}:
                continue
            mass = dict.fromkeys(ratings, 0.0)
            for candidate in position["top_logprobs"]:
                text = candidate["token"].strip()
                if text.isdigit() and int(text) in ratings:
                    mass[int(text)] += math.exp(candidate["logprob"])
            masses.append(mass)
            break
    if not masses:
        return None
    mean = {r: sum(m[r] for m in masses) / len(masses) for r in ratings}
    return sum(r * p for r, p in mean.items()) / sum(mean.values())


def _judge(proxy, processed, out: Path, benchmark: str, mode: str, *extra: str) -> int:
    dimension = get_benchmark(benchmark).dimension_names[0]
    argv = [
        "judge", "--benchmark", benchmark, "--dimension", dimension, "--model", MODEL,
        "--base-url", proxy.base_url, "--mode", mode, "--n", str(MODES[mode]),
        "--limit", str(LIMIT), "--out", str(out), "--processed", str(processed),
        "--concurrency", "1", "--seed", "7", "--max-tokens", "3", "--timeout", "900", *extra,
    ]  # fmt: skip
    return main(argv)


@pytest.mark.parametrize("benchmark", list(BENCHMARKS))
def test_every_mode_against_the_servers_own_answers(proxy, processed, tmp_path, benchmark):
    entry = get_benchmark(benchmark)
    dimension = entry.dimension_names[0]
    ratings = entry.dimension(dimension).ratings
    for mode, n in MODES.items():
        out = tmp_path / mode
        start = len(proxy.completions())
        assert _judge(proxy, processed, out, benchmark, mode) == 0
        exchanged = proxy.completions()[start:]
        assert not any(s.get("logprobs") for s, _ in exchanged[1:] if s["n"] < n)
        rows = [json.loads(line) for line in (out / f"{dimension}.jsonl").read_text().splitlines()]
        assert len(rows) == LIMIT
        # Concurrency 1: the items' requests arrive in item order, each item's back to back.
        pending = list(exchanged)
        for row in rows:
            mine = []
            while sum(len(r["choices"]) for _, r in mine) < n:
                mine.append(pending.pop(0))
            assert len(row["replies"]) == n  # after top-up
            choices = [c for _, response in mine for c in response["choices"]]
            assert row["replies"] == [c["message"]["content"] for c in choices]
            if mode != "sample":
                first = mine[0][1]["choices"]
                expected = hand_eq1(first, ratings)
                if expected is None:
                    assert row["weighted_score"] is None and row["level_probs"] is None
                else:
                    assert row["weighted_score"] == pytest.approx(expected, abs=1e-9)
            if n > 1:  # llama.cpp returns one choice: the second reply is a top-up request
                assert [s["n"] for s, _ in mine] == [n, n - 1] and "seed" in mine[1][0]
        # A rerun sends nothing: no probe, no completion.
        before = len(proxy.records)
        assert _judge(proxy, processed, out, benchmark, mode) == 0
        assert len(proxy.records) == before


def test_context_overflow_is_recorded_per_item_and_the_server_stops(processed, tmp_path, capsys):
    small = _start(512)  # a SummEval coherence prompt is about 850 tokens
    pid = small.process.pid
    try:
        argv = [
            "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", MODEL,
            "--base-url", small.base_url, "--mode", "logprobs", "--limit", "2",
            "--out", str(tmp_path / "run"), "--processed", str(processed),
            "--concurrency", "1", "--timeout", "900",
        ]  # fmt: skip
        assert main(argv) == 1
    finally:
        small.stop()
    rows = [json.loads(line) for line in (tmp_path / "run" / "coherence.jsonl").open()]
    assert all("HTTP 400" in r["error"] and "context" in r["error"] for r in rows)
    err = capsys.readouterr().err
    assert "2 x HTTP 400" in err and "does not fit in the model's context" in err
    assert not Path(f"/proc/{pid}").exists()


def test_the_manifest_records_the_kernels_the_server_printed(server):
    printed = [
        line
        for line in server.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.startswith("CPU : ")
    ]
    assert printed, f"no 'CPU : ' line in the server's log {server.log_path}"
    described = server.describe()
    assert described["ggml_cpu_features"] == ggml_cpu_features(printed[0])
    assert "AVX2" in described["ggml_cpu_features"]  # the documented build sets it
    assert described["cpu"]  # Linux names its CPU
