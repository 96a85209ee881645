"""Sending a run's requests: grouped by shared text, spread over servers, topped up to ``n``.

**An item's requests** (:class:`ReplyChain`): its first request asks for ``n`` replies; when
the answer has fewer, further requests (:func:`geval_repro.runner.requests.topup_body`) ask
for the rest, one after another, until the item has ``n``. An answer with more choices than
its request asked for is read up to that many (the first ones, in the order returned); the
extra ones are counted (the manifest's ``n_obtained``). Each is cached under its own key
(the item and the index of its first reply, ``sample``), so the chain of an item is
rebuilt from the cache alone: a rerun sends nothing, a resumed run only what is missing.
A stored answer that is not a readable completion (a damaged row) ends the chain there: it
is requested again, and counted in the cache's ``unreadable``.

**Adaptive sampling** (``ChainRule.batch`` and ``stop``): the first request asks for one
batch of replies, each further one for the next batch (at most the replies missing to
``n``, the maximum), until the rule of :mod:`geval_repro.stats.adaptive` says the item's
mean rating is sure. Requests are the top-ups' (cached under the index of their first
reply), so a rerun with a stricter target or a larger maximum sends only further batches.

**Order** (:func:`dispatch`): items arrive in *groups* that share a text (a SummEval
document, a Topical-Chat conversation, a QAGS article), in benchmark order. A server takes
a whole group and sends its items, each item's chain back to back, before taking the next
group, so a prefix cache (llama.cpp's slot, vLLM's automatic prefix caching) serves the
shared text once. At most ``concurrency`` requests are in flight per server (a lane's own
``workers`` when set: the probe tells what a server takes).

**Several servers**: each takes the next group when it is free. A server that cannot be
reached (a connection refused or reset after the client's retries; a host that does not
resolve; requests that keep timing out) is dropped: its unfinished items go back to the
queue for the others. When no server is left, the items not done are recorded as failed
with the servers' errors. ``sent`` counts the requests that reached a server (a refused
connection sent nothing).

**Cut off while thinking**: an answer with a choice that ran out of its budget before it
wrote anything (``finish_reason: length``, empty content: a reasoning model's thoughts) is
its item's failure (:func:`cut_off`), never a rating, and is not cached as an answer.

**Stops**: a response without log-probabilities to a request that asked for them stops
the whole run (:class:`NoLogprobs`): every further answer would lack them too.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geval_repro.runner.answers import read_completion
from geval_repro.runner.cache import ResponseCache, request_key
from geval_repro.runner.client import UNREACHABLE
from geval_repro.runner.fields import ServerFields, cut_off_while_thinking, reasoning_tokens
from geval_repro.runner.requests import derived_seed, topup_body


class NoLogprobs(ValueError):
    """A server answered a request for log-probabilities without them."""


@dataclass(frozen=True)
class Item:
    """One judged text: its key values, request body, cache key and shared-text group."""

    keys: dict[str, Any]
    body: dict[str, Any]
    key: str
    identity: dict[str, Any]
    group: str = ""


@dataclass(frozen=True)
class Step:
    """One request of an item's chain: its body, cache key and first reply index."""

    body: dict[str, Any]
    key: str
    sample: int


@dataclass(frozen=True)
class ChainRule:
    """How an item's replies are obtained: ``n`` replies, top-ups seeded from ``seed``,
    with log-probabilities when ``topup_logprobs``; ``server`` is the cache identity."""

    n: int
    server: str
    seed: int = 0
    topup_logprobs: bool = False
    fields: ServerFields = field(default_factory=ServerFields)
    batch: int | None = None
    stop: Callable[[list[str]], bool] | None = field(default=None, compare=False)

    def step(self, item: Item, have: int) -> Step:
        """The request after ``have`` replies (the item's first request when 0); a top-up
        asks for the replies missing, at most :attr:`ServerFields.max_choices` of them, in a
        body the server accepts (:meth:`ServerFields.apply`)."""
        if have == 0:
            return Step(item.body, item.key, 0)
        missing = self.n - have
        if self.batch is not None:
            missing = min(missing, self.batch)
        if self.fields.max_choices is not None:
            missing = min(missing, self.fields.max_choices)
        body = topup_body(
            item.body,
            missing,
            derived_seed(self.seed, item.identity, have),
            logprobs=self.topup_logprobs,
        )
        body = self.fields.apply(body)
        return Step(body, request_key(self.server, body, {**item.identity, "sample": have}), have)


@dataclass
class ReplyChain:
    """An item's responses so far, in reply order (see the module docstring)."""

    item: Item
    rule: ChainRule
    responses: list[dict[str, Any]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    extra: list[tuple[int, int]] = field(default_factory=list)  # (returned, asked), if more

    def add(self, key: str, response: dict[str, Any], asked: int) -> None:
        """Append the response stored under ``key`` to a request for ``asked`` replies,
        with its first ``asked`` choices only: a server that returns more than asked did
        other than asked; (returned, asked) is recorded in :attr:`extra`."""
        choices = response["choices"]
        if len(choices) > asked:
            self.extra.append((len(choices), asked))
            response = {**response, "choices": choices[:asked]}
        self.keys.append(key)
        self.responses.append(response)

    @property
    def replies(self) -> int:
        return sum(len(r["choices"]) for r in self.responses)

    def next_step(self) -> Step | None:
        """The next request to make, or None when the item has its ``n`` replies."""
        have = self.replies
        if have >= self.rule.n or (self.rule.stop is not None and have and self.sure):
            return None
        return self.rule.step(self.item, have)

    @property
    def sure(self) -> bool:
        """Whether adaptive sampling's rule (:mod:`geval_repro.stats.adaptive`) stops here."""
        texts = [(c.get("message") or {}).get("content") or "" for c in self.choices]
        return self.rule.stop is not None and self.rule.stop(texts)

    @property
    def choices(self) -> list[dict[str, Any]]:
        return [choice for response in self.responses for choice in response["choices"]]

    @classmethod
    def from_cache(cls, item: Item, rule: ChainRule, cache: ResponseCache) -> ReplyChain:
        """The chain as far as the cache holds it."""
        chain = cls(item, rule)
        while (step := chain.next_step()) is not None:
            text = cache.response(step.key)
            if text is None:
                break
            try:
                response = read_completion(text)
            except ValueError:  # not a completion the runner can read (.answers)
                cache.unreadable.add(step.key)  # requested again; its row is replaced
                break
            chain.add(step.key, response, step.body["n"])
        return chain

    def failure(self, cache: ResponseCache) -> str | None:
        """The recorded failure of the first missing request, if any."""
        step = self.next_step()
        return None if step is None else cache.failure(step.key)


def cut_off(body: dict[str, Any], response: dict[str, Any]) -> str:
    """The failure of an answer with a reply cut off while thinking (never a rating)."""
    budget = body.get("max_completion_tokens", body.get("max_tokens"))
    thought = reasoning_tokens(response)
    spent = f", {thought} of them reasoning tokens" if thought is not None else ""
    return (
        f"cut off while thinking: finish_reason length and no content (a completion budget of "
        f"{budget} tokens{spent}); not read as a rating. Fix: a larger --max-tokens "
        "(max_tokens in the run block), then rerun"
    )


def asks_logprobs(body: dict[str, Any]) -> bool:
    return bool(body.get("logprobs"))


def lacks_logprobs(response: dict[str, Any]) -> bool:
    """Whether a choice of ``response`` has no ``logprobs.content``."""
    return any(not (c.get("logprobs") or {}).get("content") for c in response["choices"])


@dataclass
class Lane:
    """One server and its client; ``error`` is set when it is dropped."""

    name: str
    client: Any
    error: str | None = None
    sent: int = 0
    items: int = 0
    current: deque[Item] = field(default_factory=deque)
    workers: int | None = None


@dataclass
class DispatchReport:
    """What a dispatch did: requests sent, per server, and the servers dropped."""

    sent: int = 0
    per_server: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    stored: set[str] = field(default_factory=set)


async def dispatch(
    groups: Sequence[Sequence[Item]],
    lanes: Sequence[Lane],
    rule: ChainRule,
    cache: ResponseCache,
    concurrency: int,
    on_item: Callable[[], None] = lambda: None,
) -> DispatchReport:
    """Complete every item's chain (see the module docstring); failures go to the cache."""
    queue: deque[list[Item]] = deque(list(group) for group in groups if group)
    stored: set[str] = set()

    async def complete(item: Item, lane: Lane) -> str | None:
        """Send what ``item`` lacks through ``lane``; the unreachable-server error, if any."""
        chain = ReplyChain.from_cache(item, rule, cache)
        while (step := chain.next_step()) is not None:
            answer = await lane.client.send(step.body)
            lane.sent += answer.kind not in ("connection", "dns")
            if not answer.ok:
                if answer.kind in UNREACHABLE:
                    return answer.error
                cache.store_failure(step.key, step.body, answer.error, answer.text)
                return None
            response = json.loads(answer.text)
            if asks_logprobs(step.body) and lacks_logprobs(response):
                raise NoLogprobs(
                    f"{lane.name} returned no log-probabilities to a request that asked for "
                    "them (logprobs: true): it does not support them. Nothing more was sent. "
                    "Fix: --mode sample (n replies per item, read by the reply parsers), or a "
                    "server that returns log-probabilities"
                )
            if any(cut_off_while_thinking(c) for c in response["choices"]):
                cache.store_failure(step.key, step.body, cut_off(step.body, response), answer.text)
                return None
            cache.store(step.key, step.body, answer.text)
            stored.add(step.key)
            chain.add(step.key, response, step.body["n"])
        return None

    def requeue(items: list[Item]) -> None:
        """Put a dropped server's items back in front, each with the rest of its group."""
        for item in reversed(items):
            group = next((g for g in queue if g and g[0].group == item.group), None)
            if group is None:
                queue.appendleft([item])
            else:
                group.insert(0, item)

    changed = asyncio.Condition()
    active = 0  # items being sent: a dropped server may still put some back

    async def take(lane: Lane) -> Item | None:
        """The lane's next item (its group's, else the next group's); None when all is done."""
        nonlocal active
        async with changed:
            while lane.error is None:
                if lane.current:
                    active += 1
                    return lane.current.popleft()
                if queue:
                    lane.current.extend(queue.popleft())
                elif active == 0:
                    return None
                else:
                    await changed.wait()
            return None

    async def worker(lane: Lane) -> None:
        nonlocal active
        while (item := await take(lane)) is not None:
            error = None
            try:
                error = await complete(item, lane)
            finally:
                async with changed:
                    active -= 1
                    if error is not None:
                        lane.error = lane.error or error
                        requeue([item, *lane.current])
                        lane.current.clear()
                    changed.notify_all()
            if error is None:
                lane.items += 1
                on_item()

    tasks = [
        asyncio.ensure_future(worker(lane))
        for lane in lanes
        for _ in range(max(1, lane.workers or concurrency))
    ]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if task.exception() is not None:
                raise task.exception()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    report = DispatchReport(
        sent=sum(lane.sent for lane in lanes),
        per_server={lane.name: lane.sent for lane in lanes},
        dropped={lane.name: lane.error for lane in lanes if lane.error is not None},
        stored=stored,
    )
    if queue:  # every server was dropped
        reasons = "; ".join(f"{name}: {error}" for name, error in report.dropped.items())
        for group in queue:
            for item in group:
                step = ReplyChain.from_cache(item, rule, cache).next_step()
                if step is not None:
                    cache.store_failure(
                        step.key, step.body, f"not sent: no server could be reached ({reasons})"
                    )
    return report
