"""A judge run described in the config: a ``geval-jsonl`` judge's ``run:`` block.

The block holds the flags of ``geval-repro judge`` (``model``, ``base_url``, ``mode``, ``n``,
``temperature``, ``top_p``, ``max_tokens``, ``top_logprobs``, ``concurrency``, ``limit``,
``timeout``, ``max_attempts``, ``api_key_env``, ``seed``, ``topup_logprobs``,
``first_position``) plus ``dimensions`` (default: every dimension of the benchmark),
``prompts`` (per dimension a template instead of the default one) and ``server`` (a local
server the job starts and stops, :mod:`geval_repro.runner.server`; the model is then the
server's). ``base_url`` may list several servers of one model. Defaults are the command
line's (:data:`geval_repro.registry.judges.RUN_DEFAULTS`; ``n`` 20, 1 in ``logprobs``
mode). The rule ``judge_run_<judge>`` calls :func:`run_configured_judge` (in a process of
its own), which runs each dimension into the judge's ``dir`` (``<dimension>.jsonl``) with
one cache for the judge; the runner keeps one ``manifest.json`` with each dimension's
manifest in it. A local server is started only when
some answer is missing from the cache: a rerun with every answer cached starts none.

The API key is read from the environment variable ``api_key_env`` by the runner, and a
local server (``server:``, or a ``base_url`` on this machine) gets one only when the block
names ``api_key_env`` (:mod:`geval_repro.runner.keys`); neither the key nor anything derived
from it is written (the manifests record the variable's name and whether a key was sent).
Without ``concurrency`` the probe decides (1 for llama-cpp-python's server).

Called in the main thread of a process, SIGINT and SIGTERM stop the run within about two
seconds (:mod:`geval_repro.runner.stopping`): the answers received are in the cache, no
partial file is written, a local server is stopped, the folder's lock released, one line is
logged, and :class:`geval_repro.runner.stopping.Interrupted` (a ``SystemExit`` with status
130 or 143) is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import logging
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec, RunSpec
from geval_repro.registry.sources import REPO_ROOT
from geval_repro.runner.requests import RequestParams

if TYPE_CHECKING:
    from geval_repro.runner.run import RunOptions

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Where a managed server's runs are planned before it has a port (the cache key holds the
#: server's identity, not its URL).
MANAGED_URL = "http://127.0.0.1/v1"


def request_params(run: RunSpec) -> RequestParams:
    """The request parameters of a ``run:`` block (raises ``ValueError`` naming a bad one)."""
    return RequestParams(
        model=run.model,
        mode=run.mode,  # type: ignore[arg-type]  # RequestParams checks it
        n=run.n,
        temperature=run.temperature,
        top_p=run.top_p,
        max_tokens=run.max_tokens,
        top_logprobs=run.top_logprobs,
    )


def run_options(
    run: RunSpec,
    benchmark: str,
    dimension: str,
    *,
    out: Path,
    cache_dir: Path | None,
    raw_dir: Path,
    processed: Path | None,
    mirror: Path | None,
    **more: Any,
) -> RunOptions:
    """The judge runner's options for one ``dimension`` of ``run`` on ``benchmark``, writing
    into ``out``: the one place they are made, for a ``run:`` block
    (:func:`run_configured_judge`) and for ``geval-repro judge`` (which makes its
    :class:`~geval_repro.registry.judges.RunSpec` from its flags). ``more``: the options a
    ``run:`` block does not set (prices, a managed server's identity, waits)."""
    from geval_repro.runner.run import RunOptions

    prompt = run.prompts.get(dimension)
    options: dict[str, Any] = {
        "benchmark": benchmark,
        "dimension": dimension,
        "params": request_params(run),
        "base_urls": run.base_urls,
        "out": out,
        "cache_dir": cache_dir,
        "limit": run.limit,
        "sample": run.sample,
        "concurrency": run.concurrency,
        "timeout": run.timeout,
        "max_attempts": run.max_attempts,
        "api_key_env": run.api_key_env,
        "raw_dir": raw_dir,
        "processed": processed,
        "prompt_path": Path(prompt) if prompt else None,
        "mirror": mirror,
        "seed": run.seed,
        "topup_logprobs": run.topup_logprobs,
        "first_position": run.first_position,
        "se_target": run.se_target,
        "batch": run.batch,
        "prompt_variant": run.prompt_variant,
    }
    return RunOptions(**{**options, **more})


def _per_stratum(benchmark: Benchmark) -> str:
    """`` per (domain, split, label)`` for a benchmark sampled per stratum, else empty."""
    from geval_repro.runner.subset import strata_of  # numpy and pandas: only when logging

    strata = strata_of(benchmark)
    return f" per ({', '.join(strata)})" if strata else ""


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


def managed_server(run: RunSpec, log_path: str | os.PathLike[str] | None):
    """The local server of a ``run:`` block's ``server`` entry (not started), or None."""
    local = run.server
    if local is None:
        return None
    from geval_repro.runner.server import llama_cpp_server

    return llama_cpp_server(
        local.model,
        n_ctx=local.n_ctx,
        threads=local.threads,
        startup_timeout=float(local.startup_timeout),
        log_path=log_path,
    )


def summary_lines(judge: str, dimension: str, summary: Mapping[str, Any]) -> list[str]:
    """A dimension's closing lines: counts, coverage, each distinct error with its count,
    and the cause and fix of known errors."""
    cover = summary.get("coverage")
    covered = (
        ""
        if cover is None or not cover["items_answered"]
        else f", rating token in {cover['items_with_rating_token']} of "
        f"{cover['items_answered']} answered items (coverage {cover['share']:.0%})"
    )
    lines = [
        f"judge {judge}, {dimension}: {summary['items']} items, sent {summary['sent']}, cached "
        f"{summary['cached']}, failed {summary['failed']}, retries {summary['retries']} "
        f"(requests sent and answered from the cache; items failed){covered}; tokens "
        f"(prompt + completion, as the server counted them): {summary['tokens_sent']} for "
        f"this run's requests, {summary['tokens']} for every answer in the output; "
        f"{summary['n_obtained']['how']}"
    ]
    lines += [f"  left out {line}" for line in (summary.get("left_out") or {}).values()]
    lines += [f"  {count} x {error}" for error, count in summary["errors"].items()]
    lines += summary["advice"]
    return lines


def _stops_cleanly(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` (:func:`run_configured_judge`) stopped by SIGINT or SIGTERM as the module
    docstring says, with one log line naming the cache."""

    @functools.wraps(function)
    def stopping(spec: JudgeSpec, *args: Any, **kwargs: Any) -> T:
        from geval_repro.runner.stopping import Interrupted, stop_on_signals

        try:
            with stop_on_signals():
                return function(spec, *args, **kwargs)
        except Interrupted as stop:
            log.error(
                "judge %s: stopped by %s; the answers received are cached in %s: rerun to "
                "send only what is missing",
                spec.name,
                stop.signal_name,
                kwargs.get("cache_dir"),
            )
            raise

    return stopping


@_stops_cleanly
def run_configured_judge(
    spec: JudgeSpec,
    *,
    processed: Path,
    raw_dir: Path,
    cache_dir: Path,
    mirror: Path | None = None,
    server_log: str | os.PathLike[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Run every dimension of ``spec.run`` into ``spec.dir``; the summaries by dimension.

    ``processed`` holds the benchmark's tidy table, ``raw_dir`` the fetched sources (the
    released SummEval prompts; from ``mirror`` when given), ``cache_dir`` the judge's response
    cache, ``server_log`` where a managed server writes its log. Progress and each
    dimension's summary are logged, and so is a ``dir`` outside the checkout (an absolute
    one: the config check refuses a relative one that leads out). Raises ``RuntimeError``
    after the last dimension when some requests failed: the files are then incomplete (the
    failed items carry ``error``), and rerunning sends only the failed requests (the answers
    are in the cache).
    """
    from geval_repro.runner.run import Session, build_plan, pending_items, run_judge

    judge, run = spec.name, spec.run
    if run is None or spec.dir is None:
        raise ValueError(f"judge {judge} has no run: block (or no dir:): nothing to run")
    params = request_params(run)
    out = Path(spec.dir)
    if out.is_absolute() and not out.resolve().is_relative_to(REPO_ROOT.resolve()):
        log.info(
            "judge %s writes into %s, outside the checkout (an absolute dir: in the config: "
            "the user's choice)",
            judge,
            out,
        )
    server = managed_server(run, server_log)
    urls = (MANAGED_URL,) if server is not None else run.base_urls
    options_by_dimension = {
        dimension: run_options(
            run,
            spec.benchmark.name,
            dimension,
            out=out,
            cache_dir=cache_dir,
            raw_dir=raw_dir,
            processed=processed,
            mirror=mirror,
            base_urls=urls,
            server_id=None if server is None else server.identity,
            managed_server=None if server is None else server.describe(),
        )
        for dimension in run.dimensions
    }
    if run.api_key_env is not None and not os.environ.get(run.api_key_env):
        log.warning("$%s is not set: no key is sent (fine for a local server)", run.api_key_env)
    summaries: dict[str, dict[str, Any]] = {}
    session = Session()
    with contextlib.ExitStack() as stack:
        if server is not None and run.first_position is not None:
            urls = (stack.enter_context(server).base_url,)  # the tokenizer is asked first
        plans = {}
        for dimension, options in options_by_dimension.items():
            options = dataclasses.replace(options, base_urls=urls)
            options_by_dimension[dimension] = options
            plans[dimension] = _outside_event_loop(build_plan, options)
        missing = sum(len(pending_items(o, plans[d])) for d, o in options_by_dimension.items())
        if server is not None and missing and urls == (MANAGED_URL,):
            log.info("judge %s: %d items lack answers; starting the local server", judge, missing)
            urls = (stack.enter_context(server).base_url,)
        elif server is not None and not missing:
            log.info("judge %s: every answer is cached; no server started", judge)
        for dimension, options in options_by_dimension.items():
            options = dataclasses.replace(options, base_urls=urls)
            log.info(
                "judge %s: %s %s, model %s, mode %s, n %d%s%s",
                judge,
                spec.benchmark.name,
                dimension,
                params.model,
                params.mode,
                params.n,
                f", {options.sample} {spec.benchmark.input_key} values drawn with seed "
                f"{options.seed}{_per_stratum(spec.benchmark)}"
                if options.sample
                else "",
                f", first {options.limit} items" if options.limit else "",
            )
            summary = _outside_event_loop(run_judge, options, plans[dimension], session)
            for line in summary_lines(judge, dimension, summary):
                log.info("%s", line)
            if summary["failed"]:
                _log_failures(out / f"{dimension}.jsonl", judge, dimension)
            summaries[dimension] = summary
    failed = {d: s["failed"] for d, s in summaries.items() if s["failed"]}
    if failed:
        advice = [line for s in summaries.values() for line in s["advice"]]
        raise RuntimeError(
            f"judge {judge}: requests failed ({', '.join(f'{d}: {n}' for d, n in failed.items())}"
            f" items; the first errors are in this job's log). Rerun to retry them: the "
            f"answers received are cached in {cache_dir} and are not requested again"
            + "".join(f"\n{line}" for line in dict.fromkeys(advice))
        )
    return summaries
