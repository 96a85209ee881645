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
reference is the cost of the official ``openai`` SDK's request building, our retry
protocol and the cache. The fake server's CPU per request is printed too (read from
``/proc``), to show whether the server or the client limits the rate.

Usage: ``python perf/time_runner.py [--latency 0.05] [--requests 128] [--concurrency 1 8 32]``
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


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--requests", type=int, default=128, help="requests per concurrency > 1")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args()
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
