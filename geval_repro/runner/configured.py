"""A judge run described in the config: a ``geval-jsonl`` judge's ``run:`` block.

The block holds the flags of ``geval-repro judge`` (``model``, ``base_url``, ``mode``, ``n``,
``temperature``, ``top_p``, ``max_tokens``, ``top_logprobs``, ``concurrency``, ``limit``,
``timeout``, ``max_attempts``, ``api_key_env``) plus ``dimensions`` (default: every
dimension of the benchmark) and ``prompts`` (per dimension a template instead of the
default one). Defaults are the command line's (:data:`RUN_DEFAULTS`; ``n`` 20, 1 in
``logprobs`` mode). The rule ``judge_run_<judge>`` calls :func:`run_configured_judge`, which
runs each dimension into the judge's ``dir`` (``<dimension>.jsonl``) with one cache for the
judge; the runner keeps one ``manifest.json`` with each dimension's manifest in it.

The API key is read from the environment variable ``api_key_env`` by the runner; neither the
key nor anything derived from it is written (the manifests record the variable's name and
whether a key was sent).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from geval_repro.registry.formats import run_dimensions
from geval_repro.runner.requests import RequestParams

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The command line's defaults of the ``run:`` keys (``n`` depends on the mode).
RUN_DEFAULTS: dict[str, Any] = {
    "base_url": "https://api.openai.com/v1",
    "temperature": 1.0,
    "top_p": 1.0,
    "max_tokens": 5,
    "top_logprobs": 20,
    "concurrency": 8,
    "limit": None,
    "timeout": 60.0,
    "max_attempts": 6,
    "api_key_env": "OPENAI_API_KEY",
}


def request_params(run: Mapping[str, Any]) -> RequestParams:
    """The request parameters of a ``run:`` block (raises ``ValueError`` naming a bad one)."""
    values = {**RUN_DEFAULTS, **run}
    n = run.get("n", 1 if run["mode"] == "logprobs" else 20)
    return RequestParams(
        model=run["model"],
        mode=run["mode"],
        n=n,
        temperature=float(values["temperature"]),
        top_p=float(values["top_p"]),
        max_tokens=values["max_tokens"],
        top_logprobs=values["top_logprobs"],
    )


def _log_failures(path: Path, judge: str, dimension: str, first: int = 5) -> None:
    """Log the first ``first`` failed items of a written ``<dimension>.jsonl`` (their keys and
    the runner's error, which never holds the key)."""
    failures = [
        record
        for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        if "error" in record
    ]
    for record in failures[:first]:
        keys = {k: v for k, v in record.items() if k not in ("replies", "error")}
        log.warning("judge %s, %s, item %s: %s", judge, dimension, keys, record["error"])


def _outside_event_loop(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, in a worker thread when this thread runs an event loop.

    The runner starts its own loop (``asyncio.run``), which cannot nest in a running one
    (Snakemake runs ``run:`` jobs in a thread with a running loop).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return function(*args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def run_configured_judge(
    judge: str,
    spec: Mapping[str, Any],
    *,
    processed: Path,
    raw_dir: Path,
    cache_dir: Path,
) -> dict[str, dict[str, Any]]:
    """Run every dimension of ``spec["run"]`` into ``spec["dir"]``; the summaries by dimension.

    ``processed`` holds the benchmark's tidy table, ``raw_dir`` the fetched sources (the
    released SummEval prompts), ``cache_dir`` the judge's response cache. Progress and each
    dimension's summary are logged. Raises ``RuntimeError`` after the last dimension when
    some requests failed: the files are then incomplete (the failed items carry ``error``),
    and rerunning sends only the failed requests (the answers are in the cache).
    """
    from geval_repro.runner.run import RunOptions, run_judge

    run = spec["run"]
    values = {**RUN_DEFAULTS, **run}
    params = request_params(run)
    out = Path(spec["dir"])
    if not os.environ.get(values["api_key_env"]):
        log.warning(
            "$%s is not set: sending a placeholder key (fine for a local server without "
            "authentication)",
            values["api_key_env"],
        )
    summaries: dict[str, dict[str, Any]] = {}
    for dimension in run_dimensions(spec):
        prompt = (run.get("prompts") or {}).get(dimension)
        options = RunOptions(
            benchmark=spec["benchmark"],
            dimension=dimension,
            params=params,
            base_url=values["base_url"],
            out=out,
            cache_dir=cache_dir,
            limit=values["limit"],
            concurrency=values["concurrency"],
            timeout=float(values["timeout"]),
            max_attempts=values["max_attempts"],
            api_key_env=values["api_key_env"],
            raw_dir=raw_dir,
            processed=processed,
            prompt_path=Path(prompt) if prompt else None,
        )
        log.info(
            "judge %s: %s %s, model %s, mode %s, n %d%s",
            judge,
            spec["benchmark"],
            dimension,
            params.model,
            params.mode,
            params.n,
            f", first {options.limit} items" if options.limit else "",
        )
        summary = _outside_event_loop(run_judge, options)
        log.info(
            "judge %s, %s: %d items, sent %d, cached %d, failed %d, retries %d, no level "
            "token %d, tokens %d sent / %d in output",
            judge,
            dimension,
            summary["items"],
            summary["sent"],
            summary["cached"],
            summary["failed"],
            summary["retries"],
            summary["no_rating_token"],
            summary["tokens_sent"],
            summary["tokens"],
        )
        if summary["failed"]:
            _log_failures(out / f"{dimension}.jsonl", judge, dimension)
        summaries[dimension] = summary
    failed = {d: s["failed"] for d, s in summaries.items() if s["failed"]}
    if failed:
        raise RuntimeError(
            f"judge {judge}: requests failed ({', '.join(f'{d}: {n}' for d, n in failed.items())}"
            f" items; the first errors are in this job's log). Rerun to retry them: the "
            f"answers received are cached in {cache_dir} and are not requested again"
        )
    return summaries
