"""One judge run end to end: items, prompts, requests, cache, ``<dimension>.jsonl``, manifest.

Order of work: load the benchmark's tidy table (row order = item order; ``sample`` keeps a
seeded subset of its documents or items, :mod:`.subset`; ``limit`` keeps the first rows),
fill the prompt for each item (a template without a placeholder of the item's texts is
refused: every item would get the same prompt), build the request bodies; if some item lacks
its replies in the cache, check the servers (:func:`geval_repro.runner.probe.preflight`: the
key of each, :mod:`geval_repro.runner.keys`; then :func:`geval_repro.runner.probe.probe`,
once per server and command), take the output and cache folders' locks
(:mod:`geval_repro.runner.lock`) and send what is missing
(:mod:`geval_repro.runner.dispatch`: grouped by shared text, spread over the servers, topped
up to ``n`` replies); then rebuild the output from the cache, so a rerun or a resumed run
writes the same file. A rerun whose answers are all cached contacts no server. While
sending, a progress line goes to stderr every ``progress_seconds`` when it is not a terminal
(a terminal gets a progress bar).

``<dimension>.jsonl`` (format ``geval-jsonl``), one object per item in item order:
the item keys (SummEval ``doc_id``, ``system_id``; others ``item_id``), ``replies`` (the
choices' texts: the first response's in the order the API returned them, then the top-ups'),
in ``logprobs``/``both`` mode ``level_probs`` (the file field: rating -> renormalized probability),
``weighted_score`` and ``off_scale_mass`` (null when no generated token is a rating: such
an item has no score, never a zero; see :mod:`.logprobs`), and ``error`` (only for an item
whose request failed: ``replies`` then holds what arrived before the failure).

*Coverage* is the share of the items with an answer whose log-probabilities hold a rating
token: the console summary, the manifest and every table note of the run give it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from geval_repro.files.atomic import write_text
from geval_repro.files.checkout import git_state
from geval_repro.registry.benchmarks import GEVAL_PROMPT, Benchmark, get_benchmark
from geval_repro.runner.cache import (
    CACHE_FILE,
    NO_SPACE,
    ResponseCache,
    canonical_json,
    no_space,
    request_key,
    server_name,
)
from geval_repro.runner.client import MAX_RESPONSE_BYTES, MAX_WAIT
from geval_repro.runner.dispatch import (
    ChainRule,
    DispatchReport,
    Item,
    Lane,
    ReplyChain,
    dispatch,
)
from geval_repro.runner.fields import ServerFields
from geval_repro.runner.keys import ServerKey, check_key_variable
from geval_repro.runner.lock import run_locks
from geval_repro.runner.probe import (
    ProbeResult,
    check_probe,
    concurrency_for,
    preflight,
    probe,
    rating_token_ids,
)
from geval_repro.runner.prompts import (
    Prompt,
    benchmark_prompt_path,
    check_template,
    read_template,
    variant_prompt_path,
)
from geval_repro.runner.requests import (
    RequestParams,
    derived_seed,
    first_position_bias,
    request_body,
)
from geval_repro.runner.subset import sample_inputs, sample_record
from geval_repro.scoring.parse import reply_parsers
from geval_repro.stats.adaptive import check_rule, standard_error, stops

CHARS_PER_TOKEN = 4  # the dry run's prompt-token estimate: characters / 4
PILOT_ITEMS = 3  # adaptive sampling's dry run: the fewest complete items it estimates from
FIRST_POSITION_READINGS: tuple[str, ...] = ("logit_bias",)
ANSWERED_BY = "answered_by"  # cache meta: the servers whose answers the cache holds
CONTEXT_ERRORS = ("context_length_exceeded", "maximum context length", "exceed context window")


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs (the command line's flags).

    ``base_urls``: one or more servers of the same model (the items are spread over them);
    ``server_id``: the servers' name in cache keys and the manifest (default: their base
    URLs' hosts, ports and paths; a managed local server gives its model and file hash,
    since its port changes every start); ``seed``: when set, every request carries a seed
    derived from it and the item (top-ups always do, from ``seed`` or 0);
    ``topup_logprobs``: top-up requests of mode ``both`` ask for log-probabilities too;
    ``first_position``: ``logit_bias`` for the first-position reading (mode ``logprobs``);
    ``mirror``: the offline mirror for the benchmark's files and prompts;
    ``managed_server``: what the manifest records about a local server the run started (its
    servers are then named by ``server_id`` everywhere, never by their port);
    ``concurrency``: requests in flight per server, None for automatic
    (:func:`geval_repro.runner.probe.concurrency_for`); ``api_key_env``: the variable of the
    key, None when the user named none (:mod:`geval_repro.runner.keys`); ``timeout``: seconds
    per request attempt in all; ``max_wait``: the longest ``Retry-After`` honoured;
    ``max_response_mb``: the largest response read; ``progress_seconds``: between progress
    lines on a stderr that is not a terminal.
    """

    benchmark: str
    dimension: str
    params: RequestParams
    base_urls: tuple[str, ...]
    out: Path
    cache_dir: Path | None = None
    limit: int | None = None
    sample: int | None = None
    concurrency: int | None = None
    timeout: float = 60.0
    max_attempts: int = 6
    api_key_env: str | None = None
    raw_dir: Path = Path("data/raw")
    processed: Path | None = None
    prompt_path: Path | None = None
    price_input: float | None = None
    price_output: float | None = None
    mirror: Path | None = None
    seed: int | None = None
    topup_logprobs: bool = False
    first_position: str | None = None
    server_id: str | None = None
    managed_server: Mapping[str, Any] | None = None
    max_wait: float = MAX_WAIT
    max_response_mb: float = MAX_RESPONSE_BYTES / 2**20
    progress_seconds: float = 10.0
    se_target: float | None = None
    batch: int = 4
    prompt_variant: str = GEVAL_PROMPT

    def __post_init__(self) -> None:
        numbers = {
            "--timeout": self.timeout, "--max-wait": self.max_wait,
            "--max-response-mb": self.max_response_mb, "--progress-seconds":
            self.progress_seconds, "--price-input": self.price_input,
            "--price-output": self.price_output,
        }  # fmt: skip
        for flag, value in numbers.items():
            if value is not None and not math.isfinite(value):
                raise ValueError(f"{flag} {value} is not a finite number")
        if self.api_key_env is not None:
            check_key_variable(self.api_key_env)  # before anything is read or written
        if get_benchmark(self.benchmark).prompt_variant(self.prompt_variant) is not None:
            if self.prompt_path is not None:
                raise ValueError(
                    f"--prompt-variant {self.prompt_variant} sends the benchmark's released "
                    "prompt of that name: leave out --prompt (your own template), or the "
                    "variant"
                )
            if self.first_position is not None:
                raise ValueError(
                    f"--first-position biases the first token towards the digits of a "
                    f"rating; the {self.prompt_variant} prompt's answers are words: leave it "
                    "out (its P(Yes) is read from the top log-probabilities at the answer)"
                )
        if self.se_target is not None:
            if self.params.mode == "logprobs":
                raise ValueError(
                    "--se-target samples replies until the mean rating is sure: use it with "
                    "--mode sample or --mode both"
                )
            check_rule(self.batch, self.se_target, self.params.n)
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit {self.limit}: give at least 1 item, or omit it for all")
        if self.sample is not None and self.seed is None:
            raise ValueError(f"--sample {self.sample} draws at random: give --seed as well")
        if (
            (self.concurrency is not None and self.concurrency < 1)
            or self.max_attempts < 1
            or self.timeout <= 0
            or self.max_wait < 0
            or self.max_response_mb <= 0
            or self.progress_seconds <= 0
        ):
            raise ValueError(
                f"--concurrency {self.concurrency}, --max-attempts {self.max_attempts}, "
                f"--timeout {self.timeout}, --max-wait {self.max_wait}, --max-response-mb "
                f"{self.max_response_mb} and --progress-seconds {self.progress_seconds} must be "
                "positive"
            )
        if not self.base_urls:
            raise ValueError("give at least one --base-url")
        for url in self.base_urls:
            server_name(url)  # raises for a URL without a host
        if self.first_position is not None:
            if self.first_position not in FIRST_POSITION_READINGS:
                raise ValueError(
                    f"first-position reading {self.first_position!r}: use one of "
                    f"{list(FIRST_POSITION_READINGS)}"
                )
            if self.params.mode != "logprobs":
                raise ValueError(
                    "the first-position reading biases every generated token towards a "
                    "rating, so its replies are not samples: use it with --mode logprobs"
                )

    @property
    def cache_folder(self) -> Path:
        """The cache folder: ``--cache`` or ``<out>/cache``."""
        return self.cache_dir if self.cache_dir is not None else self.out / "cache"

    @property
    def server(self) -> str:
        """The servers' name in cache keys and the manifest (see the class docstring)."""
        if self.server_id is not None:
            return self.server_id
        return "+".join(sorted({server_name(url) for url in self.base_urls}))

    def label(self, url: str) -> str:
        """One server's name in the manifest and on the console: its host, port and path,
        or a managed server's identity (its port changes every start and is never recorded)."""
        if self.managed_server and self.server_id is not None:
            return self.server_id
        return server_name(url)

    @property
    def chain_rule(self) -> ChainRule:
        """How each item's ``n`` replies are obtained (:mod:`.dispatch`; the rule's reading of
        the replies is added by :func:`build_plan`, which knows the parser)."""
        batch = None if self.se_target is None else self.batch
        return ChainRule(
            self.params.n, self.server, self.seed or 0, self.topup_logprobs, batch=batch
        )

    @property
    def first_params(self) -> RequestParams:
        """The parameters of an item's first request: ``n``, or one batch when adaptive."""
        if self.se_target is None:
            return self.params
        return replace(self.params, n=min(self.batch, self.params.n))


@dataclass
class Plan:
    """The run's benchmark, prompt and requests, before anything is sent."""

    benchmark: Benchmark
    prompt: Prompt
    items: list[Item]
    server: str
    ratings: tuple[int, ...]
    logit_bias: dict[str, int] | None = None
    questions: list[str] = field(default_factory=list)  # a dry run's: see build_plan
    fields: ServerFields = field(default_factory=ServerFields)
    rule: ChainRule | None = None  # how each item's replies are obtained (None: default)
    reader: Callable[[list[str]], list[float]] | None = None  # adaptive: replies -> ratings
    se_target: float | None = None
    answers: Mapping[str, int] | None = None  # a Yes/No prompt variant's answer words

    @property
    def parsers(self) -> tuple[str, ...]:
        """The parsers the pipeline's tables read the replies with (the manifest's
        ``reply_parsers``): ``yes-no`` for a Yes/No prompt, ``final`` too for a reasoning
        model's (:func:`geval_repro.scoring.parse.reply_parsers`)."""
        return reply_parsers(self.fields.reasoning, self.answers is not None)

    @property
    def groups(self) -> list[list[Item]]:
        """The items by shared text, in order of first appearance (see :mod:`.dispatch`)."""
        groups: dict[str, list[Item]] = {}
        for item in self.items:
            groups.setdefault(item.group, []).append(item)
        return list(groups.values())


@dataclass
class Session:
    """What the servers answered to the probe, kept across the dimensions of one command
    (each server is probed once), with the warnings already shown."""

    probes: dict[str, ProbeResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def load_items_table(
    benchmark: Benchmark, raw_dir: Path, processed: Path | None, mirror: Path | None = None
):
    """The benchmark's tidy table: ``<processed>/<name>.parquet`` or built from its sources."""
    import pandas as pd

    if processed is not None:
        path = processed / f"{benchmark.name}.parquet"
        if not path.is_file():
            raise ValueError(f"{path} does not exist: build it with the pipeline or omit it")
        return pd.read_parquet(path)
    from geval_repro.files.fetch import fetch_source, resolve_mirror

    mirror = resolve_mirror(mirror)
    paths = [fetch_source(s, raw_dir, mirror=mirror, progressbar=False) for s in benchmark.sources]
    from geval_repro.load.benchmarks import load_benchmark

    return load_benchmark(benchmark.name, paths)


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def fields_key(options: RunOptions) -> str:
    """The cache meta's key of what the servers accept (:mod:`.fields`), per server and model."""
    return f"request_fields:{options.server}:{options.params.model}"


def _stored_fields(cache_folder: Path, meta_key: str) -> ServerFields:
    """The request fields the cache in ``cache_folder`` holds (defaults without a cache)."""
    if not (cache_folder / CACHE_FILE).is_file():
        return ServerFields()
    cache = ResponseCache(cache_folder)
    try:
        return ServerFields.from_dict(cache.meta(meta_key))
    finally:
        cache.close()


def _rating_ids(cache: ResponseCache, meta_key: str) -> dict[str, int]:
    """The rating token ids the cache's meta holds under ``meta_key`` (a value that is not
    an id is left out, so it is asked again)."""
    stored = cache.meta(meta_key)
    if not isinstance(stored, dict):
        return {}
    return {k: v for k, v in stored.items() if isinstance(v, int) and not isinstance(v, bool)}


def _stored_rating_ids(cache_folder: Path, meta_key: str) -> dict[str, int]:
    """:func:`_rating_ids` of the cache in ``cache_folder``; {} without a cache file (none
    is made)."""
    if not (cache_folder / CACHE_FILE).is_file():
        return {}
    cache = ResponseCache(cache_folder)
    try:
        return _rating_ids(cache, meta_key)
    finally:
        cache.close()


def _rating_bias(
    options: RunOptions, ratings: tuple[int, ...], ask: bool
) -> tuple[dict[str, int] | None, list[str]]:
    """The first-position logit bias, and what a run would have to ask the server first.

    The rating token ids come from the cache's meta, else from the first server's tokenizer
    (asked holding the cache folder's lock, and stored, so a rerun rebuilds the same bodies
    offline). The meta holds the ids of every rating asked so far for the server and model:
    a dimension whose scale adds a rating (Topical-Chat's groundedness, 0-1, after the 1-3
    dimensions) asks for the missing ones and adds them. Without ``ask`` (a dry run) nothing
    is asked or written: the bias is None when an id is missing, and the question is said."""
    if options.first_position is None:
        return None, []
    meta_key = f"rating_tokens:{options.server}:{options.params.model}"
    stored = _stored_rating_ids(options.cache_folder, meta_key)
    missing = [r for r in ratings if str(r) not in stored]
    if missing and not ask:
        return None, [
            f"{options.label(options.base_urls[0])}'s tokenizer (POST /extras/tokenize, else "
            f"/tokenize) for the token ids of the ratings {', '.join(map(str, missing))} "
            "(--first-position logit_bias: the requests' logit bias, and so their cache keys, "
            "depend on them)"
        ]
    if missing:
        with run_locks(options.cache_folder):
            cache = ResponseCache(options.cache_folder)
            try:
                stored = _rating_ids(cache, meta_key)  # again, under the lock
                if any(str(r) not in stored for r in ratings):
                    stored.update(_ask_rating_ids(options, ratings))
                    cache.set_meta(meta_key, stored)
            finally:
                cache.close()
    return first_position_bias({r: stored[str(r)] for r in ratings}), []


def _ask_rating_ids(options: RunOptions, ratings: tuple[int, ...]) -> dict[str, int]:
    """The rating tokens' ids from the first server's tokenizer (its key as for a run)."""
    from geval_repro.runner.client import CompletionClient

    url = options.base_urls[0]
    key = preflight([url], options.api_key_env)[url]

    async def ask() -> dict[int, int]:
        client = CompletionClient(url, key.value, timeout=options.timeout)
        try:
            return await rating_token_ids(client, url, options.params.model, ratings)
        finally:
            await client.close()

    return {str(r): t for r, t in asyncio.run(ask()).items()}


def build_plan(options: RunOptions, ask: bool = True) -> Plan:
    """Items in benchmark order, each with its filled prompt, request body and cache key.

    Without ``ask`` (a dry run) nothing is sent or written: what a run would have to ask the
    server before it could build its bodies (the first-position reading's token ids) is in
    :attr:`Plan.questions` instead, and the bodies lack it."""
    benchmark = get_benchmark(options.benchmark)
    dimension = benchmark.dimension(options.dimension)
    variant = benchmark.prompt_variant(options.prompt_variant)
    placeholders = None
    if variant is not None:
        path, placeholders = variant_prompt_path(
            benchmark.name, variant.name, options.raw_dir, options.mirror
        )
    else:
        path = options.prompt_path or benchmark_prompt_path(
            benchmark.name, dimension.name, options.raw_dir, options.mirror
        )
    prompt = read_template(Path(path), placeholders)
    check_template(prompt, benchmark.texts)
    table = load_items_table(benchmark, options.raw_dir, options.processed, options.mirror)
    if options.sample is not None:
        table = sample_inputs(table, benchmark, options.sample, options.seed)
    if options.limit is not None:
        table = table.iloc[: options.limit]
    logit_bias, questions = _rating_bias(options, dimension.ratings, ask)  # None: a variant
    fields = _stored_fields(options.cache_folder, fields_key(options))
    keys = list(benchmark.item_keys)
    columns = list(benchmark.texts.values())
    shared = benchmark.texts[benchmark.shared_text]
    items = []
    for row in table.loc[:, keys + columns].itertuples(index=False):
        values = dict(zip(keys + columns, row, strict=True))
        item_keys = {k: _plain(values[k]) for k in keys}
        texts = {name: values[column] for name, column in benchmark.texts.items()}
        group = hashlib.sha256(str(values[shared]).encode("utf-8")).hexdigest()
        prompt_text = prompt.fill(texts, str(item_keys))
        items.append(_item(options, item_keys, prompt_text, group, logit_bias, fields))
    ratings = dimension.ratings if variant is None else variant.ratings
    plan = Plan(benchmark, prompt, items, options.server, ratings, logit_bias, questions)
    plan.answers = None if variant is None else dict(variant.answers)
    _adapt(plan, options, fields)
    return plan


def adaptive_parser(fields: ServerFields, answers: bool = False) -> str:
    """The parser adaptive sampling reads ratings with: ``yes-no`` for a Yes/No prompt's
    answers, ``final`` for a reasoning model's long replies, else ``tolerant`` (an unread
    reply is left out)."""
    if answers:
        return "yes-no"
    return "final" if fields.reasoning else "tolerant"


def _adapt(plan: Plan, options: RunOptions, fields: ServerFields) -> None:
    """Set the plan's fields and chain rule: the options' rule with the server's fields,
    and, when adaptive, the stopping rule (:mod:`geval_repro.stats.adaptive`) on the ratings
    the parser :func:`adaptive_parser` reads from the replies (``tolerant``'s or
    ``final``'s reading of :mod:`geval_repro.scoring.parse`)."""
    plan.fields, plan.rule = fields, replace(options.chain_rule, fields=fields)
    if options.se_target is None:
        return
    import pandas as pd

    from geval_repro.scoring.parse import read

    parser, target, batch, most = (
        adaptive_parser(fields, plan.answers is not None),
        options.se_target,
        options.batch,
        options.params.n,
    )

    def reader(texts: list[str]) -> list[float]:
        replies = pd.Series(texts, dtype=object)
        return read(replies, options.dimension, parser, options.benchmark)[0].tolist()  # type: ignore[arg-type]

    plan.reader, plan.se_target = reader, target
    plan.rule = replace(plan.rule, stop=lambda texts: stops(reader(texts), batch, target, most))


def _item(
    options: RunOptions,
    item_keys: dict[str, Any],
    prompt: str,
    group: str,
    logit_bias: dict[str, int] | None,
    fields: ServerFields,
) -> Item:
    """One item's request body (as the server accepts it) and cache key."""
    identity = {"benchmark": options.benchmark, **item_keys}
    seed = None if options.seed is None else derived_seed(options.seed, identity, 0)
    body = request_body(
        options.first_params, prompt, seed=seed, logit_bias=logit_bias, fields=fields
    )
    return Item(item_keys, body, request_key(options.server, body, identity), identity, group)


def with_fields(options: RunOptions, plan: Plan, fields: ServerFields) -> Plan:
    """``plan`` with every request body built as a server accepting ``fields`` takes it."""
    items = [
        _item(options, i.keys, i.body["messages"][-1]["content"], i.group, plan.logit_bias, fields)
        for i in plan.items
    ]
    rebuilt = Plan(
        plan.benchmark, plan.prompt, items, plan.server, plan.ratings, plan.logit_bias,
        plan.questions,
    )  # fmt: skip
    rebuilt.answers = plan.answers
    _adapt(rebuilt, options, fields)
    return rebuilt


def dry_run(options: RunOptions, plan: Plan) -> dict[str, Any]:
    """Requests to send and an estimate of their tokens and, given both prices, their cost
    in USD (``cost_estimate_usd``, else None); nothing is sent.

    Prompt tokens ~ characters / :data:`CHARS_PER_TOKEN` (billed once per request whatever
    ``n``); completion tokens <= ``n * max_tokens`` per request (an upper bound; ``max_tokens``
    is 1 with a first-position reading, whose logit bias asks for one token; the automatic
    budget of a reasoning model, :mod:`.fields`, when the cache holds what an earlier run's
    probe learned). For a reasoning model whose full reply the probe saw, the cost counts
    ``completion_tokens_estimate``: ``n`` times that reply's completion tokens per request,
    its reasoning tokens included (``reasoning_tokens_estimate``). A server
    that returns fewer than ``n`` choices needs top-up requests, each billed its prompt
    again: ``requests_at_most``, ``prompt_tokens_at_most`` and ``cost_at_most_usd`` count
    a server that returns one choice per request (llama.cpp's), ``n`` requests per item to
    send; the probe before a run tells which a server does. A plan with questions (a
    dry run's, :func:`build_plan`) lacks what its requests' cache keys depend on: none of its
    requests is counted as cached.

    **Adaptive sampling** (``se_target``): the replies an item takes are estimated from a
    *pilot*, the items whose replies the cache holds complete (a run with ``--limit``
    before; at least :data:`PILOT_ITEMS` of them), as their mean number of replies, else the
    maximum ``n``; each pending item is counted as that many replies in
    ``ceil(replies / batch)`` requests, each billed its prompt (``adaptive`` says which).
    """
    complete: dict[str, int] = {}  # item key -> its replies, for the items the cache completes
    if (options.cache_folder / CACHE_FILE).is_file() and not plan.questions:
        cache = ResponseCache(options.cache_folder)
        rule = plan.rule or options.chain_rule
        for item in plan.items:
            chain = ReplyChain.from_cache(item, rule, cache)
            if chain.next_step() is None:
                complete[item.key] = chain.replies
        cache.close()
    pending = [item for item in plan.items if item.key not in complete]
    chars = sum(len(m["content"]) for item in pending for m in item.body["messages"])
    fields = plan.fields
    max_tokens = fields.budget(options.params.max_tokens)
    if options.first_position is not None:
        max_tokens = 1
    per_item, requests_per_item, adaptive = float(options.params.n), 1.0, None
    if options.se_target is not None:
        pilot = list(complete.values())
        if len(pilot) >= PILOT_ITEMS:
            per_item = sum(pilot) / len(pilot)
        requests_per_item = math.ceil(per_item / options.batch)
        adaptive = {
            "pilot_items": len(pilot),
            "replies_per_item_expected": round(per_item, 2),
            "from": f"the mean of {len(pilot)} items the cache holds complete"
            if len(pilot) >= PILOT_ITEMS
            else f"the maximum n (fewer than {PILOT_ITEMS} items complete in the cache: run a "
            f"pilot with --limit {PILOT_ITEMS * 4} first)",
            "requests_expected": math.ceil(len(pending) * requests_per_item),
        }
    prompt_tokens = round(chars * requests_per_item / CHARS_PER_TOKEN)
    replies = round(len(pending) * per_item)
    completion_tokens = (
        len(pending) * options.params.n * max_tokens if adaptive is None else replies * max_tokens
    )
    estimate: dict[str, Any] = {
        "requests": len(plan.items),
        "cached": len(plan.items) - len(pending),
        "to_send": len(pending),
        "prompt_tokens_estimate": prompt_tokens,
        "completion_tokens_max": completion_tokens,
        "requests_at_most": len(pending) * options.params.n,
        "prompt_tokens_at_most": round(chars / CHARS_PER_TOKEN) * options.params.n,
    }
    if adaptive is not None:
        estimate["adaptive"] = adaptive
    if fields.reasoning and fields.reply_tokens is not None:  # what the probe's reply took
        estimate["completion_tokens_estimate"] = replies * fields.reply_tokens
        estimate["reasoning_tokens_estimate"] = replies * (fields.reasoning_tokens or 0)
    estimate |= costs(estimate, options.price_input, options.price_output)
    return estimate


def costs(
    estimate: Mapping[str, int], price_input: float | None, price_output: float | None
) -> dict[str, float | None]:
    """A dry run's costs in USD from its token counts and the prices per million tokens:
    ``cost_estimate_usd`` (``n`` choices per request) and ``cost_at_most_usd`` (one choice
    per request, every prompt billed ``n`` times); both None without both prices. The
    completion tokens are ``completion_tokens_estimate`` when there is one (a reasoning
    model's replies as long as the probe's full reply), else ``completion_tokens_max``."""
    if price_input is None or price_output is None:
        return {"cost_estimate_usd": None, "cost_at_most_usd": None}
    tokens = estimate.get("completion_tokens_estimate", estimate["completion_tokens_max"])
    completion = tokens / 1e6 * price_output
    prompts = {
        "cost_estimate_usd": "prompt_tokens_estimate",
        "cost_at_most_usd": "prompt_tokens_at_most",
    }
    return {
        cost: round(estimate[tokens] / 1e6 * price_input + completion, 2)
        for cost, tokens in prompts.items()
    }


def pending_items(options: RunOptions, plan: Plan) -> list[Item]:
    """The items whose ``n`` replies are not all in the cache (nothing is sent)."""
    return _pending(options, plan)[0]


def _pending(options: RunOptions, plan: Plan) -> tuple[list[Item], int]:
    """:func:`pending_items`, and how many stored answers were unreadable (they are among
    the requests to send again)."""
    if not (options.cache_folder / CACHE_FILE).is_file():
        return list(plan.items), 0
    cache = ResponseCache(options.cache_folder)
    try:
        rule = plan.rule or options.chain_rule
        pending = [i for i in plan.items if ReplyChain.from_cache(i, rule, cache).next_step()]
        return pending, len(cache.unreadable)
    finally:
        cache.close()


async def _probe_servers(
    options: RunOptions, keys: Mapping[str, ServerKey], session: Session
) -> list[str]:
    """Probe each server not probed in this session; raise when one cannot serve the run;
    the new warnings (and notes of an automatic concurrency other than the default)."""
    from geval_repro.runner.client import CompletionClient

    params = options.params
    warnings: list[str] = []
    for url in options.base_urls:
        if url in session.probes:
            continue
        client = CompletionClient(
            url, keys[url].value, concurrency=1, timeout=options.timeout, max_attempts=2,
            max_wait=options.max_wait, max_response_bytes=_max_bytes(options),
        )  # fmt: skip
        try:
            result = await probe(
                client, url, params.model, logprobs=params.wants_logprobs,
                top_logprobs=params.top_logprobs, name=options.label(url),
                temperature=params.temperature, top_p=params.top_p,
                max_tokens=params.max_tokens,
            )  # fmt: skip
        finally:
            await client.close()
        session.probes[url] = result
        warnings += check_probe(
            result, logprobs=params.wants_logprobs, top_logprobs=params.top_logprobs, n=params.n
        )
        chosen, why = concurrency_for(result)
        if options.concurrency is None and why != "the default":
            print(f"geval-repro: {result.server}: --concurrency {chosen} ({why})", file=sys.stderr)
    session.warnings += warnings
    return warnings


def adaptive_record(
    options: RunOptions, plan: Plan, records: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The manifest's record of adaptive sampling (None when off): the rule, the parser that
    read the ratings, and the replies per item (each item's n is in the JSONL too)."""
    if options.se_target is None:
        return None
    done = [r["adaptive"] for r in records if "adaptive" in r and "error" not in r]
    used = Counter(a["n"] for a in done)
    return {
        "se_target": options.se_target,
        "batch": options.batch,
        "max_n": options.params.n,
        "parser": adaptive_parser(plan.fields, plan.answers is not None),
        "items": len(done),
        "replies_per_item": {str(k): v for k, v in sorted(used.items())},
        "mean_replies": round(sum(a["n"] for a in done) / len(done), 4) if done else None,
        "stopped_at_target": sum(a["stopped"] == "target" for a in done),
        "stopped_at_maximum": sum(a["stopped"] == "maximum" for a in done),
    }


def learned_fields(options: RunOptions, session: Session) -> ServerFields:
    """What the run's servers accept, from their probes: every field one refuses is
    refused for all (they serve one model); reasoning when one found it."""
    found = [session.probes[u].server_fields for u in options.base_urls if u in session.probes]
    if not found:
        return ServerFields()
    fields = found[0]
    for other in found[1:]:
        for name, message in other.refused.items():
            fields = fields.refusing(name, message)
        if other.reasoning and not fields.reasoning:
            fields = other
    return fields


def request_fields(options: RunOptions, plan: Plan) -> dict[str, Any]:
    """The manifest's record of the request fields: what the servers accept (learned by
    the probe, :mod:`.fields`), the completion budget sent and under which name, and each
    field asked for and left out, with why."""
    params = options.params
    budget = 1 if plan.logit_bias else plan.fields.budget(params.max_tokens)
    asked = {
        "max_tokens": budget, "temperature": params.temperature, "top_p": params.top_p,
        "seed": options.seed, "n": params.n, "logprobs": params.wants_logprobs or None,
        "top_logprobs": params.top_logprobs if params.wants_logprobs else None,
    }  # fmt: skip
    return {
        **plan.fields.as_dict(),
        "completion_budget": budget,
        "completion_budget_automatic": params.max_tokens is None,
        "left_out": plan.fields.left_out(asked),
    }


def _max_bytes(options: RunOptions) -> int:
    return int(options.max_response_mb * 2**20)


def _concurrency(options: RunOptions, url: str, session: Session) -> int:
    """Requests in flight to ``url``: ``--concurrency``, else what its probe suggests."""
    if options.concurrency is not None:
        return options.concurrency
    return concurrency_for(session.probes.get(url))[0]


async def _send(
    pending: list[Item],
    plan: Plan,
    options: RunOptions,
    keys: Mapping[str, ServerKey],
    cache: ResponseCache,
    session: Session,
) -> tuple[DispatchReport, int]:
    """Send what ``pending`` lacks; the dispatch report and the client's retries."""
    from tqdm import tqdm

    from geval_repro.runner.client import CompletionClient

    lanes = []
    for url in options.base_urls:
        workers = _concurrency(options, url, session)
        client = CompletionClient(
            url,
            keys[url].value,
            concurrency=workers,
            timeout=options.timeout,
            max_attempts=options.max_attempts,
            max_wait=options.max_wait,
            max_response_bytes=_max_bytes(options),
        )
        lanes.append(Lane(options.label(url), client, workers=workers))
    # rate and ETA on a terminal; off when stderr is not one (logs): progress lines instead
    bar = tqdm(total=len(pending), unit="item", file=sys.stderr, disable=None, desc="judge")
    wanted = {item.key for item in pending}
    groups = [[i for i in group if i.key in wanted] for group in plan.groups]
    done = 0

    def on_item() -> None:
        nonlocal done
        done += 1
        bar.update(1)

    progress = None
    if bar.disable:
        what = f"judge {plan.benchmark.name} {options.dimension}"
        progress = asyncio.ensure_future(
            _progress(what, len(pending), lambda: done, lanes, options.progress_seconds)
        )
    try:
        report = await dispatch(
            groups, lanes, plan.rule or options.chain_rule, cache, lanes[0].workers or 1, on_item
        )
    finally:
        if progress is not None:
            progress.cancel()
        bar.close()
        for lane in lanes:
            await lane.client.close()
    return report, sum(lane.client.retries for lane in lanes)


async def _progress(
    what: str, total: int, done: Callable[[], int], lanes: list[Lane], seconds: float
) -> None:
    """Every ``seconds``, one line on stderr: items done, requests sent, retries, time."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(seconds)
        sent = sum(lane.sent for lane in lanes)
        retries = sum(lane.client.retries for lane in lanes)
        dropped = [lane.name for lane in lanes if lane.error is not None]
        print(
            f"geval-repro: {what}: {done()} of {total} items done, {sent} requests sent, "
            f"{retries} retries, {time.monotonic() - started:.0f} s"
            + (f"; dropped {', '.join(dropped)}" if dropped else ""),
            file=sys.stderr,
            flush=True,
        )


def item_record(
    plan: Plan, chain: ReplyChain, cache: ResponseCache, logprobs: bool
) -> dict[str, Any]:
    """The output object of one item, rebuilt from the cache."""
    from geval_repro.runner.logprobs import rating_reading

    record: dict[str, Any] = dict(chain.item.keys)
    choices = chain.choices
    record["replies"] = [(c.get("message") or {}).get("content") or "" for c in choices]
    if chain.next_step() is not None:  # failed: the replies that arrived, and the error
        record["error"] = chain.failure(cache) or "no answer stored (the run was interrupted)"
        return record
    if plan.reader is not None and plan.rule is not None:  # adaptive: its n and SE
        ratings = plan.reader(record["replies"])
        error = standard_error(ratings)
        sure = bool(ratings) and error <= (plan.se_target or 0)
        record["adaptive"] = {
            "n": len(ratings),
            "n_read": sum(not math.isnan(r) for r in ratings),
            "se": None if math.isinf(error) else round(error, 6),
            "stopped": "target" if sure else "maximum",
        }
    if logprobs:
        reading = rating_reading(choices, plan.ratings, plan.answers)
        record["level_probs"] = None if reading is None else reading.rating_probs
        record["weighted_score"] = None if reading is None else reading.weighted_score
        record["off_scale_mass"] = None if reading is None else reading.off_scale_mass
    return record


def p_yes_record(plan: Plan, logprobs: bool) -> str | None:
    """What the manifest says of a Yes/No prompt's P(Yes) (None for a rating prompt): read
    from the log-probabilities, or none, and why."""
    if plan.answers is None:
        return None
    if not logprobs:
        return (
            "none: mode sample asks for no log-probabilities, so no item has a P(Yes) (run "
            "--mode both or logprobs on a server that returns top_logprobs)"
        )
    return (
        "each item's weighted_score: p(Yes) / (p(Yes) + p(No)) over the top log-probabilities "
        "at its first answer token, every spelling of each word summed; null where no answer "
        "token was generated (see coverage)"
    )


def _checkout() -> dict[str, Any]:
    """The manifest's record of the checkout the run was made from: ``git_commit`` (HEAD)
    and ``git_dirty`` (tracked files differ from it; both None outside a checkout)."""
    state = git_state()
    return {"git_commit": state["commit"], "git_dirty": state["dirty"]}


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
        if not isinstance(previous, dict):
            raise ValueError(
                f"{path}: a JSON {type(previous).__name__}, not a run's manifest (an object "
                f"with 'benchmark' and 'dimensions'). Fix: set it aside (mv {path} "
                f"{path}.bad) and rerun: the cache keeps every answer, so nothing is requested "
                "again"
            )
        if previous.get("benchmark") != benchmark or not isinstance(
            previous.get("dimensions"), dict
        ):
            raise ValueError(
                f"{path} belongs to another run (benchmark {previous.get('benchmark')!r}, not "
                f"{benchmark!r}); write this run to its own --out folder"
            )
        combined = previous
    return combined


def _server_record(options: RunOptions) -> dict[str, Any]:
    """What the cache's ``meta`` keeps about the servers that answered (never a port of a
    local server the run started, nor any credential)."""
    if options.managed_server:
        return dict(options.managed_server)
    return {"servers": sorted(server_name(url) for url in options.base_urls)}


def _write(path: Path, text: str) -> None:
    """:func:`geval_repro.files.atomic.write_text`, a full disk raised as
    :class:`geval_repro.runner.cache.DiskFull` (nothing partial is left)."""
    try:
        write_text(path, text)
    except OSError as error:
        if error.errno in NO_SPACE:
            raise no_space(path, error) from None
        raise


def error_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """Each distinct error of the failed items with its count, most frequent first."""
    counts = Counter(r["error"] for r in records if "error" in r)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def error_groups(errors: dict[str, int]) -> dict[str, int]:
    """``errors`` for the console: messages that differ only in their numbers (e.g. the
    token counts of context overflows) counted together, shown by the first of them."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for message, count in errors.items():
        groups.setdefault(re.sub(r"\d+", "#", message), []).append((message, count))
    shown = {}
    for members in groups.values():
        first, total = members[0][0], sum(count for _, count in members)
        if len(members) > 1:
            first += f" (shown: the first of {len(members)} messages that differ only in numbers)"
        shown[first] = total
    return dict(sorted(shown.items(), key=lambda kv: (-kv[1], kv[0])))


def advice(errors: dict[str, int], context_length: int | None) -> list[str]:
    """Closing lines naming the cause and the fix of known errors (context overflow)."""
    overflow = sum(n for e, n in errors.items() if any(m in e for m in CONTEXT_ERRORS))
    if not overflow:
        return []
    told = f" ({context_length} tokens)" if context_length else ""
    return [
        f"{overflow} item(s) failed because their prompt does not fit in the model's "
        f"context{told}: the server refused them (HTTP 400). Fix: a larger context (a managed "
        "llama.cpp server: server: llama_cpp: n_ctx in the run block; vLLM: --max-model-len; "
        "llama.cpp: -c), or a shorter template (--prompt / run: prompts); then rerun (the "
        "answers received are cached)"
    ]


def _n_obtained(chains: list[ReplyChain], n: int, topup_logprobs: bool) -> dict[str, Any]:
    """How the ``n`` replies per item were obtained (for the manifest)."""
    answered = [c for c in chains if c.responses]
    first = Counter(len(c.responses[0]["choices"]) for c in answered)
    topups = sum(len(c.responses) - 1 for c in answered)
    topped = sum(len(c.responses) > 1 for c in answered)
    extra = [pair for c in answered for pair in c.extra]
    if not answered:
        how = "no item was answered"
    elif topped == 0:
        how = f"one request per item returned {'its' if extra else 'all'} {n} replies"
    else:
        how = (
            f"the server returned {', '.join(str(k) for k in sorted(first))} of {n} choices "
            f"per first request; {topups} further requests (top-ups, each with its own seed, "
            f"sent back to back per item{', with' if topup_logprobs else ', without'} "
            f"log-probabilities) completed {topped} items"
        )
    dropped = sum(returned - asked for returned, asked in extra)
    if extra:
        counts = ", ".join(f"{returned} for {asked}" for returned, asked in sorted(set(extra)))
        how += (
            f"; the server returned more choices than asked ({counts}) in {len(extra)} "
            f"response(s): the first ones asked for were kept, {dropped} dropped"
        )
    return {
        "requested": n,
        "how": how,
        "first_request_choices": {str(k): v for k, v in sorted(first.items())},
        "topup_requests": topups,
        "items_topped_up": topped,
        "topup_logprobs": topup_logprobs,
        "replies_per_item": {
            str(k): v for k, v in sorted(Counter(c.replies for c in answered).items())
        },
        "responses_with_extra_choices": len(extra),
        "extra_choices_dropped": dropped,
    }


def coverage(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Items with a rating token among the answered ones (None without log-probabilities)."""
    if not any("level_probs" in r for r in records):
        return None
    answered = [r for r in records if "error" not in r]
    rated = sum(r.get("level_probs") is not None for r in answered)
    return {
        "items_answered": len(answered),
        "items_with_rating_token": rated,
        "share": (rated / len(answered)) if answered else None,
    }


def run_judge(
    options: RunOptions, plan: Plan | None = None, session: Session | None = None
) -> dict[str, Any]:
    """Send what is missing, write ``<dimension>.jsonl`` and ``manifest.json``; a summary.

    Raises ``ValueError`` before anything is sent when a server cannot serve the run (see
    :func:`geval_repro.runner.probe.check_probe`;
    :class:`geval_repro.runner.probe.ServerUnreachable` when it cannot be reached), when no
    key may be sent (:class:`geval_repro.runner.keys.KeyRefused`), when another run holds the folder
    (:class:`geval_repro.runner.lock.FolderInUse`) or the cache is damaged
    (:class:`geval_repro.runner.cache.CacheDamaged`);
    :class:`geval_repro.runner.dispatch.NoLogprobs` when a response lacks log-probabilities
    (nothing is written then: the cache keeps what arrived); and
    :class:`geval_repro.runner.cache.DiskFull` when a file cannot be written for lack of space.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    plan = plan or build_plan(options)
    session = session if session is not None else Session()
    out_path = options.out / f"{options.dimension}.jsonl"
    folder_manifest(options.out / "manifest.json", plan.benchmark.name)  # checked first
    keys = preflight(options.base_urls, options.api_key_env) if pending_items(options, plan) else {}
    with run_locks(options.out, options.cache_folder):
        combined = folder_manifest(options.out / "manifest.json", plan.benchmark.name)
        pending, unreadable = _pending(options, plan)  # again: another run may have finished
        report, retries, warnings = DispatchReport(), 0, []
        if pending:
            keys = keys or preflight(options.base_urls, options.api_key_env)
            warnings = asyncio.run(_probe_servers(options, keys, session))
            for warning in warnings:
                print(f"geval-repro: warning: {warning}", file=sys.stderr)
            learned = learned_fields(options, session)
            if learned != plan.fields:  # the bodies the servers accept, kept for reruns
                cache = ResponseCache(options.cache_folder)
                try:
                    cache.set_meta(fields_key(options), learned.as_dict())
                finally:
                    cache.close()
                plan = with_fields(options, plan, learned)
                pending, unreadable = _pending(options, plan)
        if unreadable:
            print(
                f"geval-repro: warning: {options.cache_folder / CACHE_FILE}: {unreadable} stored "
                "answer(s) are not readable completions (damaged rows): skipped and requested "
                "again",
                file=sys.stderr,
            )
        cache = ResponseCache(options.cache_folder)
        try:
            if pending:
                report, retries = asyncio.run(_send(pending, plan, options, keys, cache, session))
            answered_by = cache.meta(ANSWERED_BY) or []
            if report.stored and _server_record(options) not in answered_by:
                answered_by.append(_server_record(options))
                cache.set_meta(ANSWERED_BY, answered_by)
            rule = plan.rule or options.chain_rule
            chains = [ReplyChain.from_cache(item, rule, cache) for item in plan.items]
            records = [item_record(plan, c, cache, options.params.wants_logprobs) for c in chains]
            received = cache.received_range([k for chain in chains for k in chain.keys])
            usage, usage_sent, fingerprints = _zero_usage(), _zero_usage(), set()
            for chain in chains:
                for response_key, response in zip(chain.keys, chain.responses, strict=True):
                    _add_usage(usage, response)
                    if response_key in report.stored:
                        _add_usage(usage_sent, response)
                    if response.get("system_fingerprint"):
                        fingerprints.add(response["system_fingerprint"])
        finally:
            cache.close()
        errors = error_counts(records)
        cover = coverage(records)
        counts = {
            "items": len(records),
            "sent": report.sent,
            "cached": sum(len(c.responses) for c in chains) - len(report.stored),
            "failed": sum(errors.values()),
            "retries": retries,
            "no_rating_token": None
            if cover is None
            else cover["items_answered"] - cover["items_with_rating_token"],
        }
        text = "".join(canonical_json(r) + "\n" for r in records)
        output_sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
        _write(out_path, text)
        probes = {
            options.label(u): session.probes[u].as_dict()
            for u in options.base_urls
            if u in session.probes
        }
        context = next((p["context_length"] for p in probes.values() if p["context_length"]), None)
        closing = advice(errors, context)
        concurrency = sorted({_concurrency(options, u, session) for u in options.base_urls})
        manifest = {
            "tool": "geval-repro judge",
            "toolkit_version": _toolkit_version(),
            **_checkout(),
            "benchmark": plan.benchmark.name,
            "dimension": options.dimension,
            "judge_scale": [min(plan.ratings), max(plan.ratings)],
            "limit": options.limit,
            "sample": None
            if options.sample is None
            else sample_record(plan.benchmark, options.sample, options.seed),
            "model": options.params.model,
            "base_url_host": plan.server,
            "servers": sorted({options.label(u) for u in options.base_urls}),
            # the local server this run started; none when every answer came from the cache
            "managed_server": dict(options.managed_server)
            if options.managed_server and report.sent
            else None,
            "cache_answered_by": answered_by,
            "answers_received": None
            if received is None
            else {"first": received[0], "last": received[1]},
            "api_key_env": next((k.variable for k in keys.values() if k.variable), None)
            if keys
            else options.api_key_env,
            "api_key_sent": any(k.value for k in keys.values()),
            "request_parameters": options.params.as_dict(),
            "request_fields": request_fields(options, plan),
            # the parsers the pipeline's tables read the replies with (final: a reasoning model)
            "reply_parsers": list(plan.parsers),
            # the prompt's form: the benchmark's G-Eval prompt, or a registered variant whose
            # reply is a Yes/No answer (judge_scale 0-1: No 0, Yes 1; its log-probabilities
            # give P(Yes), the weighted score; none without log-probabilities)
            "prompt_variant": options.prompt_variant,
            "answers": plan.answers,
            "p_yes": p_yes_record(plan, options.params.wants_logprobs),
            "seed": options.seed,
            "n_obtained": _n_obtained(chains, options.params.n, options.topup_logprobs),
            "adaptive": adaptive_record(options, plan, records),
            "first_position_reading": None
            if plan.logit_bias is None
            else {"method": options.first_position, "logit_bias": plan.logit_bias},
            "client": {
                "concurrency": concurrency[0] if len(concurrency) == 1 else concurrency,
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
            "coverage": cover,
            "errors": errors,
            "probe": probes or None,
            "warnings": warnings,
            "dispatch": {"per_server": report.per_server, "dropped": report.dropped},
            "output_sha256": output_sha256,
            "cache": str(options.cache_folder / CACHE_FILE),
        }
        manifest = _entry_of_the_answering_run(options, manifest, combined, report.sent)
        combined["dimensions"][options.dimension] = manifest
        _write(options.out / "manifest.json", json.dumps(combined, indent=2, sort_keys=True) + "\n")
    return {
        **counts,
        "unreadable_cached": unreadable,
        "tokens": usage["total_tokens"],
        "tokens_sent": usage_sent["total_tokens"],
        "coverage": cover,
        "errors": error_groups(errors),
        "advice": closing,
        "n_obtained": manifest["n_obtained"],
        "left_out": manifest["request_fields"]["left_out"],
    }


def _entry_of_the_answering_run(
    options: RunOptions, manifest: dict[str, Any], combined: dict[str, Any], sent: int
) -> dict[str, Any]:
    """The manifest entry to write: a run that sent nothing and wrote the same output as the
    run that obtained the answers keeps that run's entry (from the folder's manifest, or, when
    the manifest was removed, e.g. by Snakemake before rerunning the job, from the cache's
    ``meta``), so the manifest names who obtained the answers and when; a run that sent
    something records its own entry there."""
    meta_key = f"manifest:{options.dimension}:{manifest['output_sha256']}"
    cache = ResponseCache(options.cache_folder)
    try:
        if sent:
            cache.set_meta(meta_key, manifest)
            return manifest
        previous = combined["dimensions"].get(options.dimension)
        if previous and previous.get("output_sha256") == manifest["output_sha256"]:
            return previous
        return cache.meta(meta_key) or manifest
    finally:
        cache.close()


def _zero_usage() -> dict[str, int]:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def _add_usage(total: dict[str, int], response: dict[str, Any]) -> None:
    usage = response.get("usage") or {}
    for name in total:
        total[name] += int(usage.get(name) or 0)
