"""Throughput and client CPU of the judge runner against the FAKE server (no real API).

The fake OpenAI-compatible server (tests/fake_openai_server.py) runs in its own process
with a fixed latency per answer (default 50 ms), so the client's CPU time is measured
alone. For each concurrency, distinct request bodies (in the shape of a logprobs request)
go through the runner's hot path, :class:`CompletionClient.send` plus the SQLite cache's
``store``: requests per second, the ratio to concurrency 1, and client CPU per request
(``time.process_time``, which includes importing nothing: the client is built first, and
``concurrency`` warm-up requests open its connections, as the first requests of a long run
do).

The reference is the same requests sent with bare aiohttp (no SDK, no retry protocol, no
cache): its CPU per request is what any client must pay for HTTP here, and the ratio ours /
reference is the cost of the ``openai`` SDK's HTTP client (httpx over aiohttp), our retry
protocol, deadline and size cap, and the cache. The fake server's CPU per request is printed
too (read from ``/proc``), to show whether the server or the client limits the rate.

Usage: ``python perf/time_runner.py [--latency 0.05] [--requests 128] [--concurrency 1 8 32]``

``--real`` (needs the local extra, docs/local-model.md): the runner against the REAL local
server, llama-cpp-python's ``llama_cpp.server`` with SmolLM2-135M, on the first
``--documents`` SummEval documents x 16 systems (coherence, mode ``logprobs``, concurrency 1,
a fresh server and an empty cache for each measurement). For the requests in the order the
runner sends them (grouped by document) and in a shuffled order (every item its own group),
it prints: the run's wall time against the sum of the server's own time for the same
requests (its ``openai-processing-ms`` response header: the whole handling of a request,
log-probabilities included) and against llama.cpp's compute alone (the ``total time`` of
its ``llama_perf_context_print`` lines), the server's start-up time, and the prompt tokens
it evaluated (its ``prompt eval ... tokens``) against the prompt tokens sent (``usage``):
the prefix cache's reuse. The requests go through a recording proxy (tests/recording_proxy.py)
that reads the headers; its own forwarding time counts against the runner. Target (issue 16):
wall <= 1.10 x the server's time, plus the start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from geval_repro.runner.cache import ResponseCache, request_key, server_name
from geval_repro.runner.client import CompletionClient

REPO_ROOT = Path(__file__).resolve().parents[1]
PROMPT = "You will be given one summary written for a news article. " * 30


TARGET_RATIO, TARGET_CPU_MS = 20.0, 1.0


def request_bodies(n: int, tag: str) -> list[dict]:
    """``n`` distinct request bodies in the shape of a logprobs request."""
    return [
        {
            "model": "fake",
            "messages": [{"role": "user", "content": f"{PROMPT} {tag} item {i}"}],
            "n": 1,
            "temperature": 1.0,
            "max_tokens": 5,
            "logprobs": True,
            "top_logprobs": 5,
        }
        for i in range(n)
    ]


async def measure(base_url: str, concurrency: int, n: int, cache: ResponseCache, tag: str):
    """Wall seconds and CPU seconds for ``n`` requests at ``concurrency`` (the runner's path)."""
    client = CompletionClient(base_url, "EMPTY", concurrency=concurrency, timeout=30)
    server = server_name(base_url)
    bodies = request_bodies(n, tag)

    async def one(body: dict) -> None:
        answer = await client.send(body)
        assert answer.ok, answer.error
        cache.store(request_key(server, body), body, answer.text)

    await asyncio.gather(*(one(body) for body in request_bodies(concurrency, f"warm-up {tag}")))
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(body) for body in bodies))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await client.close()
    return wall, cpu


async def measure_reference(base_url: str, concurrency: int, n: int, tag: str):
    """Wall and CPU seconds for the same requests through bare aiohttp (the reference)."""
    import aiohttp

    bodies = request_bodies(n, tag)
    semaphore = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(body: dict) -> None:
            async with semaphore:
                url = f"{base_url}/chat/completions"
                async with session.post(url, json=body) as response:
                    json.loads(await response.text())["choices"]

        await asyncio.gather(*(one(body) for body in request_bodies(concurrency, f"warm-up {tag}")))
        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(body) for body in bodies))
        return time.perf_counter() - wall, time.process_time() - cpu


def llama_timings(log: str) -> tuple[float, int]:
    """(seconds of llama.cpp compute, prompt tokens evaluated) summed over a server log's
    ``llama_perf_context_print`` lines."""
    import re

    seconds = sum(float(m) for m in re.findall(r"total time =\s+([0-9.]+) ms", log)) / 1000
    tokens = sum(int(m) for m in re.findall(r"prompt eval time =.*?/\s+([0-9]+) tokens", log))
    return seconds, tokens


def measure_real(documents: int, threads: int, shuffled: bool, seed: int) -> dict[str, float]:
    """One run against a fresh local server (see the module docstring); its measurements."""
    import random

    from geval_repro.runner.dispatch import ChainRule, Lane, dispatch
    from geval_repro.runner.requests import RequestParams
    from geval_repro.runner.run import RunOptions, build_plan
    from geval_repro.runner.server import llama_cpp_server
    from tests.recording_proxy import RecordingProxy

    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as folder,
        llama_cpp_server(
            "smollm2-135m", n_ctx=4096, threads=threads, log_path=Path(folder) / "server.log"
        ) as server,
    ):
        startup = time.perf_counter() - started
        proxy = RecordingProxy(server.base_url.removesuffix("/v1"))
        options = RunOptions(
            benchmark="summeval",
            dimension="coherence",
            params=RequestParams("smollm2-135m", "logprobs", 1, 1.0, 1.0, 5, 20),
            base_urls=(proxy.base_url,),
            out=Path(folder) / "out",
            limit=16 * documents,
            concurrency=1,
            timeout=600,
            raw_dir=Path(folder) / "raw",
        )
        plan = build_plan(options)
        groups = plan.groups
        if shuffled:
            items = list(plan.items)
            random.Random(seed).shuffle(items)
            groups = [[item] for item in items]
        cache = ResponseCache(Path(folder) / "cache")
        client = CompletionClient(proxy.base_url, "EMPTY", concurrency=1, timeout=600)
        rule = ChainRule(1, options.server)
        before = len(server.log_text())

        async def go() -> None:
            try:
                await dispatch(groups, [Lane("local", client)], rule, cache, 1)
            finally:
                await client.close()

        wall = time.perf_counter()
        asyncio.run(go())
        wall = time.perf_counter() - wall
        cache.close()
        proxy.stop()
        handled = (
            sum(float(e.headers.get("openai-processing-ms", 0)) for e in proxy.exchanges) / 1000
        )
        sent = sum(
            json.loads(e.text)["usage"]["prompt_tokens"]
            for e in proxy.exchanges
            if e.path.endswith("/chat/completions")
        )
        compute, evaluated = llama_timings(server.log_text()[before:])
    return {
        "requests": len(plan.items),
        "startup": startup,
        "wall": wall,
        "server": handled,
        "compute": compute,
        "evaluated": evaluated,
        "sent": sent,
    }


def main_real(documents: int, threads: int, repeats: int) -> None:
    """Print the real-server measurements (module docstring), each order ``repeats`` times."""
    print(
        f"REAL llama_cpp.server, SmolLM2-135M, {threads} thread(s): SummEval coherence, "
        f"{documents} documents x 16 systems, mode logprobs, concurrency 1"
    )
    print(
        "order     requests  start-up s  wall s  server s  wall/server  llama compute s  "
        "wall/compute  prompt tokens evaluated/sent"
    )
    for repeat in range(repeats):
        for shuffled in (False, True):
            m = measure_real(documents, threads, shuffled, seed=repeat)
            print(
                f"{'shuffled' if shuffled else 'grouped':<9} {m['requests']:>8}  "
                f"{m['startup']:10.1f}  {m['wall']:6.1f}  {m['server']:8.1f}  "
                f"{m['wall'] / m['server']:11.2f}  {m['compute']:15.1f}  "
                f"{m['wall'] / m['compute']:12.2f}  "
                f"{m['evaluated']:>7} / {m['sent']:<7} = {m['evaluated'] / m['sent']:.3f}",
                flush=True,
            )
    print("target (issue 16): wall <= 1.10 x server time, plus the start-up")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--requests", type=int, default=128, help="requests per concurrency > 1")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--real", action="store_true", help="the real local server instead")
    parser.add_argument("--documents", type=int, default=2, help="--real: SummEval documents")
    parser.add_argument("--threads", type=int, default=1, help="--real: server threads")
    parser.add_argument("--repeats", type=int, default=2, help="--real: runs of each order")
    args = parser.parse_args()
    if args.real:
        main_real(args.documents, args.threads, args.repeats)
        return
    fake = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai_server", "--latency", str(args.latency)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = fake.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as folder:
            cache = ResponseCache(Path(folder))
            base = None
            print(f"fake server latency {args.latency * 1000:.0f} ms (FAKE answers)")
            print(
                "concurrency  requests  req/s  x sequential  client CPU ms/req  "
                "reference CPU ms/req  ours/reference  server CPU ms/req"
            )
            for c in args.concurrency:
                n = max(16, args.requests // 4) if c == 1 else args.requests * max(1, c // 8)
                served = process_cpu(fake.pid)
                wall, cpu = asyncio.run(measure(base_url, c, n, cache, f"c{c}"))
                served = process_cpu(fake.pid) - served
                _, ref_cpu = asyncio.run(measure_reference(base_url, c, n, f"r{c}"))
                rate = n / wall
                base = base or rate
                print(
                    f"{c:>11}  {n:>8}  {rate:5.0f}  {rate / base:12.1f}  {cpu / n * 1000:17.2f}  "
                    f"{ref_cpu / n * 1000:20.2f}  {cpu / ref_cpu:14.1f}  "
                    f"{served / n * 1000:16.2f}"
                )
            print(
                f"targets (issue 10): >= {TARGET_RATIO:.0f}x sequential at concurrency 32, "
                f"< {TARGET_CPU_MS:.0f} ms client CPU per request"
            )
            cache.close()
    finally:
        fake.kill()
        fake.wait()


if __name__ == "__main__":
    main()
