"""Concurrent Chat Completions requests with retries, through the official ``openai`` package.

Protocol per request (the client's own retries are off, ``max_retries=0``, so this one is
explicit and testable):

- at most ``concurrency`` requests are in flight (an ``asyncio.Semaphore``);
- a host name that does not resolve fails at once (no retry: it will not resolve a second
  later either);
- HTTP 429, HTTP 5xx, timeouts and connection errors are retried up to ``max_attempts``
  attempts in all; the wait before attempt ``k + 1`` is the server's ``retry-after-ms`` or
  ``Retry-After`` (seconds) when given, else ``min(backoff_max, backoff_base * 2**k)``
  times a jitter factor drawn uniformly from [0.5, 1.5) (seeded);
- any other HTTP error (e.g. 400 for a parameter the server does not know) fails at once;
- a 200 response whose body is not a completion (not JSON, or without ``choices``) fails
  and its raw text is kept for inspection.

Each failure has a ``kind`` (:data:`FAILURE_KINDS`): ``connection`` and ``dns`` say that the
server itself could not be reached (the runner then moves the work to another server, or
stops), the others concern one request.

The body is posted as given with the client's ``post`` (``cast_to=httpx.Response``): the raw
text is kept, and the typed ``chat.completions.create`` is skipped, whose per-request
parameter transformation and response models cost milliseconds of CPU per request and
would reject parameters that only a local server knows. The HTTP transport is the SDK's
``DefaultAioHttpClient`` (aiohttp, the ``openai[aiohttp]`` extra), which the SDK documents
for concurrent use: against the fake server it gives about 3x the throughput of the default
transport at 32 requests in flight, with half the client CPU per request
(``perf/time_runner.py``).

The API key goes only into the ``Authorization`` header; every error text is passed
through :func:`redact` before it is stored or shown.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

RETRY_STATUS = frozenset({408, 409, 429})
#: What went wrong with a failed request: the server unreachable (``connection``: refused or
#: reset; ``dns``: its host does not resolve), or this request (``timeout``, ``http``: an
#: error status, ``unreadable``: a 200 response that is not a completion).
FAILURE_KINDS: tuple[str, ...] = ("connection", "dns", "timeout", "http", "unreadable")
UNREACHABLE: frozenset[str] = frozenset({"connection", "dns"})


@dataclass(frozen=True)
class Answer:
    """The outcome of one request: the raw response text, or the failure reason and kind."""

    text: str | None
    error: str | None = None
    kind: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the request returned a readable completion."""
        return self.error is None


def redact(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text


def read_completion(text: str) -> dict[str, Any]:
    """Parse a response body; raise ``ValueError`` when it is not a completion with choices."""
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise ValueError("the response has no 'choices' list")
    if not data["choices"]:
        raise ValueError("the response's 'choices' list is empty")
    for choice in data["choices"]:
        if not isinstance((choice.get("message") or {}).get("content", ""), str | None):
            raise ValueError("a choice's message content is not text")
    return data


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` (OpenAI) or ``Retry-After``; None for a date or none."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        try:
            if value is not None:
                return max(0.0, float(value) / scale)
        except ValueError:
            continue  # an HTTP date: fall back to the backoff
    return None


def openai_http_library(openai: ModuleType) -> ModuleType:
    """The HTTP library the installed ``openai`` client is built on (``httpx``, or ``httpx2``
    from openai 3 on): its ``Limits`` and ``Response`` must be the ones the client uses."""
    base = openai.DefaultAsyncHttpxClient.__mro__[1]
    return importlib.import_module(base.__module__.partition(".")[0])


class CompletionClient:
    """Sends request bodies to one OpenAI-compatible server (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_attempts: int = 6,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        seed: int = 0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        import openai

        if concurrency < 1 or max_attempts < 1:
            raise ValueError("concurrency and max_attempts must be >= 1")
        self._openai = openai
        self._httpx = openai_http_library(openai)
        self._key = api_key
        limits = self._httpx.Limits(
            max_connections=concurrency, max_keepalive_connections=concurrency
        )
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key,
            max_retries=0,
            timeout=timeout,
            http_client=openai.DefaultAioHttpClient(limits=limits, timeout=timeout),
        )
        self._semaphore = asyncio.Semaphore(concurrency)
        self._max_attempts = max_attempts
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._random = random.Random(seed)
        self._sleep = sleep
        self.retries = 0

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        return min(self._backoff_max, self._backoff_base * 2**attempt) * (
            0.5 + self._random.random()
        )

    async def send(self, body: dict[str, Any]) -> Answer:
        """Send one request body with the retry protocol; never raises for API errors."""
        openai = self._openai
        async with self._semaphore:
            reason = "no attempt made"
            for attempt in range(self._max_attempts):
                retry_after = None
                try:
                    response = await self._client.post(
                        "/chat/completions", body=body, cast_to=self._httpx.Response
                    )
                    text = response.text
                except openai.APIStatusError as error:
                    status = error.status_code
                    reason = f"HTTP {status}: {_short(error.response.text)}"
                    kind = "http"
                    if status not in RETRY_STATUS and status < 500:
                        return Answer(None, redact(reason, self._key), kind)
                    retry_after = _retry_after(error.response.headers)
                except openai.APIConnectionError as error:  # APITimeoutError included
                    kind, reason = _connection_reason(
                        error, isinstance(error, openai.APITimeoutError)
                    )
                    if kind == "dns":
                        return Answer(None, redact(reason, self._key), kind)
                else:
                    try:
                        read_completion(text)
                    except (ValueError, AttributeError) as error:
                        reason = redact(f"unreadable response: {error}", self._key)
                        return Answer(redact(text, self._key), reason, "unreadable")
                    return Answer(text)
                if attempt + 1 < self._max_attempts:
                    self.retries += 1
                    await self._sleep(self._wait(attempt, retry_after))
            return Answer(
                None, redact(f"{reason} (after {self._max_attempts} attempts)", self._key), kind
            )

    async def post_json(self, path: str, body: dict[str, Any]) -> Any:
        """``POST <base><path>`` (or an absolute URL) once, parsed as JSON; None on failure."""
        try:
            response = await self._client.post(path, body=body, cast_to=self._httpx.Response)
            return json.loads(response.text)
        except (self._openai.APIError, ValueError):
            return None

    async def get_json(self, path: str) -> Any:
        """``GET <base><path>`` (or an absolute URL) once, parsed as JSON; None when it fails
        or is not JSON."""
        try:
            response = await self._client.get(path, cast_to=self._httpx.Response)
            return json.loads(response.text)
        except (self._openai.APIError, ValueError):
            return None


def _connection_reason(error: BaseException, timeout: bool) -> tuple[str, str]:
    """The kind and text of a failed connection: ``("timeout", "timed out")``, ``("dns",
    "host does not resolve: <cause>")`` or ``("connection", "connection error: <cause>")``.
    The aiohttp transport raises all of them as timeouts (``timeout`` is then true), so the
    innermost cause decides when there is one."""
    chain = [error]
    while chain[-1].__cause__ is not None:
        chain.append(chain[-1].__cause__)
    root = chain[-1]
    if any(isinstance(e, socket.gaierror) or "DNSError" in type(e).__name__ for e in chain):
        return "dns", f"host does not resolve: {_short(str(root) or type(root).__name__)}"
    if isinstance(root, TimeoutError) or (root is error and timeout):
        return "timeout", "timed out"
    return "connection", f"connection error: {_short(str(root) or type(root).__name__)}"


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
