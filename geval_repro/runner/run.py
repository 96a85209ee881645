"""One judge run end to end: items, prompts, requests, cache, ``<dimension>.jsonl``, manifest.

Order of work: load the benchmark's tidy table (row order = item order; ``limit`` keeps the
first rows), fill the prompt for each item, build the request bodies, send the ones without
a stored answer (see :mod:`.cache` and :mod:`.client`), then rebuild the output from the
cache, so a rerun or a resumed run writes the same file.

``<dimension>.jsonl`` (format ``geval-jsonl``), one object per item in item order:
the item keys (SummEval ``doc_id``, ``system_id``; others ``item_id``), ``replies`` (the
choices' texts in the order the API returned them), in ``logprobs``/``both`` mode
``level_probs`` (level -> renormalized probability), ``weighted_score`` and
``off_scale_mass`` (null when no generated token is a level; see :mod:`.logprobs`), and
``error`` (only for an item whose request failed: ``replies`` is then empty).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from geval_repro.files.atomic import write_text
from geval_repro.registry.benchmarks import Benchmark, get_benchmark
from geval_repro.runner.cache import (
    CACHE_FILE,
    ResponseCache,
    canonical_json,
    request_key,
    server_name,
)
from geval_repro.runner.prompts import Prompt, benchmark_prompt_path, read_template
from geval_repro.runner.requests import RequestParams, request_body

PLACEHOLDER_KEY = "EMPTY"
CHARS_PER_TOKEN = 4  # the dry run's prompt-token estimate: characters / 4


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs (the command line's flags)."""

    benchmark: str
    dimension: str
    params: RequestParams
    base_url: str
    out: Path
    cache_dir: Path | None = None
    limit: int | None = None
    concurrency: int = 8
    timeout: float = 60.0
    max_attempts: int = 6
    api_key_env: str = "OPENAI_API_KEY"
    raw_dir: Path = Path("data/raw")
    processed: Path | None = None
    prompt_path: Path | None = None
    price_input: float | None = None
    price_output: float | None = None

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit {self.limit}: give at least 1 item, or omit it for all")
        if self.concurrency < 1 or self.max_attempts < 1 or self.timeout <= 0:
            raise ValueError(
                f"--concurrency {self.concurrency}, --max-attempts {self.max_attempts} and "
                f"--timeout {self.timeout} must be positive"
            )

    @property
    def cache_folder(self) -> Path:
        """The cache folder: ``--cache`` or ``<out>/cache``."""
        return self.cache_dir if self.cache_dir is not None else self.out / "cache"


@dataclass(frozen=True)
class Item:
    """One judged text: its key values, request body and cache key."""

    keys: dict[str, Any]
    body: dict[str, Any]
    key: str


@dataclass
class Plan:
    """The run's benchmark, prompt and requests, before anything is sent."""

    benchmark: Benchmark
    prompt: Prompt
    items: list[Item]
    server: str
    ratings: tuple[int, ...]


def load_items_table(benchmark: Benchmark, raw_dir: Path, processed: Path | None):
    """The benchmark's tidy table: ``<processed>/<name>.parquet`` or built from its sources."""
    import pandas as pd

    if processed is not None:
        path = processed / f"{benchmark.name}.parquet"
        if not path.is_file():
            raise ValueError(f"{path} does not exist: build it with the pipeline or omit it")
        return pd.read_parquet(path)
    from geval_repro.files.fetch import fetch_source, resolve_mirror

    mirror = resolve_mirror(None)
    paths = [fetch_source(s, raw_dir, mirror=mirror, progressbar=False) for s in benchmark.sources]
    from geval_repro.load.benchmarks import load_benchmark

    return load_benchmark(benchmark.name, paths)


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def build_plan(options: RunOptions) -> Plan:
    """Items in benchmark order, each with its filled prompt, request body and cache key."""
    benchmark = get_benchmark(options.benchmark)
    dimension = benchmark.dimension(options.dimension)
    path = options.prompt_path or benchmark_prompt_path(
        benchmark.name, dimension.name, options.raw_dir
    )
    prompt = read_template(Path(path))
    table = load_items_table(benchmark, options.raw_dir, options.processed)
    if options.limit is not None:
        table = table.iloc[: options.limit]
    server = server_name(options.base_url)
    keys = list(benchmark.item_keys)
    columns = list(benchmark.texts.values())
    items = []
    for row in table.loc[:, keys + columns].itertuples(index=False):
        values = dict(zip(keys + columns, row, strict=True))
        item_keys = {k: _plain(values[k]) for k in keys}
        texts = {name: values[column] for name, column in benchmark.texts.items()}
        body = request_body(options.params, prompt.fill(texts, str(item_keys)))
        identity = {"benchmark": benchmark.name, **item_keys}
        items.append(Item(item_keys, body, request_key(server, body, identity)))
    return Plan(benchmark, prompt, items, server, dimension.ratings)


def dry_run(options: RunOptions, plan: Plan) -> dict[str, Any]:
    """Requests to send and an estimate of their tokens and cost (nothing is sent).

    Prompt tokens ~ characters / :data:`CHARS_PER_TOKEN` (billed once per request whatever
    ``n``); completion tokens <= ``n * max_tokens`` per request (an upper bound).
    """
    cached: set[str] = set()
    if (options.cache_folder / CACHE_FILE).is_file():
        cache = ResponseCache(options.cache_folder)
        cached = cache.answered([item.key for item in plan.items])
        cache.close()
    pending = [item for item in plan.items if item.key not in cached]
    chars = sum(len(m["content"]) for item in pending for m in item.body["messages"])
    prompt_tokens = round(chars / CHARS_PER_TOKEN)
    completion_tokens = len(pending) * options.params.n * options.params.max_tokens
    estimate: dict[str, Any] = {
        "requests": len(plan.items),
        "cached": len(plan.items) - len(pending),
        "to_send": len(pending),
        "prompt_tokens_estimate": prompt_tokens,
        "completion_tokens_max": completion_tokens,
    }
    if options.price_input is not None and options.price_output is not None:
        estimate["cost_estimate"] = round(
            prompt_tokens / 1e6 * options.price_input
            + completion_tokens / 1e6 * options.price_output,
            2,
        )
    return estimate


async def _send(pending: list[Item], options: RunOptions, key: str, cache: ResponseCache) -> int:
    """Send ``pending`` concurrently, storing each answer as it arrives; return retries."""
    from tqdm import tqdm

    from geval_repro.runner.client import CompletionClient

    client = CompletionClient(
        options.base_url,
        key,
        concurrency=options.concurrency,
        timeout=options.timeout,
        max_attempts=options.max_attempts,
    )
    # rate and ETA on a terminal; off when stderr is not one (logs), see the final summary
    bar = tqdm(total=len(pending), unit="req", file=sys.stderr, disable=None, desc="judge")

    async def one(item: Item) -> None:
        answer = await client.send(item.body)
        if answer.ok:
            cache.store(item.key, item.body, answer.text)
        else:
            cache.store_failure(item.key, item.body, answer.error, answer.text)
        bar.update(1)

    try:
        await asyncio.gather(*(one(item) for item in pending))
    finally:
        bar.close()
        await client.close()
    return client.retries


def item_record(plan: Plan, item: Item, cache: ResponseCache, logprobs: bool) -> dict[str, Any]:
    """The output object of one item, rebuilt from the cache."""
    from geval_repro.runner.logprobs import rating_reading

    record: dict[str, Any] = dict(item.keys)
    text = cache.response(item.key)
    if text is None:
        record["replies"] = []
        record["error"] = cache.failure(item.key) or "no answer stored (the run was interrupted)"
        return record
    choices = json.loads(text)["choices"]
    record["replies"] = [(c.get("message") or {}).get("content") or "" for c in choices]
    if logprobs:
        reading = rating_reading(choices, plan.ratings)
        record["level_probs"] = None if reading is None else reading.level_probs
        record["weighted_score"] = None if reading is None else reading.weighted_score
        record["off_scale_mass"] = None if reading is None else reading.off_scale_mass
    return record


def _git_commit() -> str | None:
    """HEAD of the checkout holding this package, None outside one.

    (Not :func:`geval_repro.report.provenance.git_state`: that module imports Snakemake, seconds.)
    """
    import subprocess

    from geval_repro.registry.sources import REPO_ROOT

    try:
        done = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip() or None


def _toolkit_version() -> str | None:
    try:
        return metadata.version("geval-repro")
    except metadata.PackageNotFoundError:
        return None


def folder_manifest(path: Path, benchmark: str) -> dict[str, Any]:
    """The run folder's ``manifest.json`` so far (checked before anything is sent).

    One folder holds one benchmark's run, a ``<dimension>.jsonl`` per dimension judged, so
    its manifest is ``{"benchmark": ..., "dimensions": {dimension: <that run's manifest>}}``:
    running a second dimension into the folder adds its entry and keeps the others.
    """
    combined: dict[str, Any] = {"benchmark": benchmark, "dimensions": {}}
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            raise ValueError(
                f"{path}: not valid JSON ({error}); delete it and rerun (the cache keeps "
                "every answer, so nothing is requested again)"
            ) from None
        if previous.get("benchmark") != benchmark or not isinstance(
            previous.get("dimensions"), dict
        ):
            raise ValueError(
                f"{path} belongs to another run (benchmark {previous.get('benchmark')!r}, not "
                f"{benchmark!r}); write this run to its own --out folder"
            )
        combined = previous
    return combined


def run_judge(options: RunOptions, plan: Plan | None = None) -> dict[str, Any]:
    """Send what is missing, write ``<dimension>.jsonl`` and ``manifest.json``; a summary."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    plan = plan or build_plan(options)
    combined = folder_manifest(options.out / "manifest.json", plan.benchmark.name)
    key = os.environ.get(options.api_key_env, "")
    cache = ResponseCache(options.cache_folder)
    try:
        answered = cache.answered([item.key for item in plan.items])
        pending = [item for item in plan.items if item.key not in answered]
        retries = asyncio.run(_send(pending, options, key or PLACEHOLDER_KEY, cache))
        sent_keys = {item.key for item in pending}
        records, usage, usage_sent, fingerprints = [], _zero_usage(), _zero_usage(), set()
        for item in plan.items:
            records.append(item_record(plan, item, cache, options.params.wants_logprobs))
            text = cache.response(item.key)
            if text is None:
                continue
            response = json.loads(text)
            _add_usage(usage, response)
            if item.key in sent_keys:
                _add_usage(usage_sent, response)
            if response.get("system_fingerprint"):
                fingerprints.add(response["system_fingerprint"])
    finally:
        cache.close()
    failed = sum("error" in r for r in records)
    no_level = sum(r.get("level_probs", 0) is None and "error" not in r for r in records)
    counts = {
        "items": len(records),
        "sent": len(pending),
        "cached": len(answered),
        "failed": failed,
        "retries": retries,
        "no_rating_token": no_level,
    }
    out = options.out
    write_text(
        out / f"{options.dimension}.jsonl",
        "".join(canonical_json(r) + "\n" for r in records),
    )
    manifest = {
        "tool": "geval-repro judge",
        "toolkit_version": _toolkit_version(),
        "git_commit": _git_commit(),
        "benchmark": plan.benchmark.name,
        "dimension": options.dimension,
        "judge_scale": [min(plan.ratings), max(plan.ratings)],
        "limit": options.limit,
        "model": options.params.model,
        "base_url_host": plan.server,
        "api_key_env": options.api_key_env,
        "api_key_sent": bool(key),
        "request_parameters": options.params.as_dict(),
        "client": {
            "concurrency": options.concurrency,
            "timeout": options.timeout,
            "max_attempts": options.max_attempts,
        },
        "prompt": {
            "file": plan.prompt.path.name,
            "origin": plan.prompt.origin,
            "sha256": plan.prompt.sha256,
        },
        "steps_sha256": plan.prompt.steps.sha256 if plan.prompt.steps else None,
        "started": started,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "usage": usage,
        "usage_sent_this_run": usage_sent,
        "system_fingerprints": sorted(fingerprints),
        "counts": counts,
        "cache": str(cache.path),
    }
    combined["dimensions"][options.dimension] = manifest
    write_text(out / "manifest.json", json.dumps(combined, indent=2, sort_keys=True) + "\n")
    return {**counts, "tokens": usage["total_tokens"], "tokens_sent": usage_sent["total_tokens"]}


def _zero_usage() -> dict[str, int]:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def _add_usage(total: dict[str, int], response: dict[str, Any]) -> None:
    usage = response.get("usage") or {}
    for name in total:
        total[name] += int(usage.get(name) or 0)
