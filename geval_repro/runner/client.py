"""Concurrent Chat Completions requests with retries, bounded in time and size.

Protocol per request (every retry is explicit here, so it is testable):

- at most ``concurrency`` requests are in flight (an ``asyncio.Semaphore``);
- each attempt has a **total deadline** of ``timeout`` seconds, from connecting to the last
  byte of the body (not per read: a server that trickles a byte at a time is cut off);
- the body is read up to ``max_response_bytes`` (:data:`MAX_RESPONSE_BYTES`, far above a
  rating reply: 20 replies with 20 log-probabilities per token take about 130 kB); a
  larger body is not read further and the request fails at once (kind ``too_large``);
- a host name that does not resolve fails at once (no retry: it will not resolve a second
  later either);
- HTTP 429, HTTP 5xx, timeouts and connection errors are retried up to ``max_attempts``
  attempts in all; the wait before attempt ``k + 1`` is the server's ``retry-after-ms`` or
  ``Retry-After`` (seconds) when given, else ``min(backoff_max, backoff_base * 2**k)``
  times a jitter factor drawn uniformly from [0.5, 1.5) (seeded). A server that asks for
  a wait longer than ``max_wait`` (:data:`MAX_WAIT`) is not waited for: the request fails
  at once, naming the server's demand;
- a server whose requests time out ``drop_after_timeouts`` times in a row
  (:data:`DROP_AFTER_TIMEOUTS`, no answer in between, over all its requests), or whose
  attempts timed out :data:`STRUGGLING_TIMEOUTS` times or more among its last
  :data:`STRUGGLING_WINDOW` (over all its requests: a server that times out on most
  requests but answers often enough never times out three times in a row), counts as
  unreachable (kind ``unresponsive``): the runner drops it like a server that refuses
  connections, instead of waiting ``timeout`` again for every item;
- any other HTTP error (e.g. 400 for a parameter the server does not know) fails at once;
- a 200 response whose body is not a completion the runner can read
  (:func:`geval_repro.runner.answers.read_completion`: not JSON, no ``choices``, a field of
  the wrong shape) fails at once, kind ``unreadable``: its raw text is kept for inspection
  and it is never cached as an answer.

Each failure has a ``kind`` (:data:`FAILURE_KINDS`): ``connection``, ``dns`` and
``unresponsive`` say that the server itself could not be reached (the runner then moves the
work to another server, or stops), the others concern one request.

Transport: the HTTP client the ``openai`` package documents for concurrent use,
``openai.DefaultAioHttpClient`` (aiohttp, the ``openai[aiohttp]`` extra); the request is
posted with it directly, streamed, so that the deadline and the size cap hold for every
response, an error's included (the SDK's own request path reads an error body whole), and
the SDK's typed ``chat.completions.create`` is skipped, whose per-request parameter
transformation and response models cost milliseconds of CPU per request and would reject
parameters that only a local server knows. Against the fake server it gives about 3x the
throughput of the default transport at 32 requests in flight (``perf/time_runner.py``).

The API key (:mod:`geval_repro.runner.keys`: none for a server the user named no key for)
goes only into the ``Authorization`` header; every text that comes back, error or answer,
passes through :func:`geval_repro.runner.keys.redact` before it is parsed, shortened, stored
or shown, and an answer's log-probabilities through
:func:`geval_repro.runner.keys.redact_tokens`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from geval_repro.runner.answers import read_completion
from geval_repro.runner.keys import redact, redact_tokens

RETRY_STATUS = frozenset({408, 409, 429})
#: The longest wait a server may ask for (``Retry-After``) before a retry, in seconds.
MAX_WAIT = 60.0
#: The largest response body read, in bytes (``--max-response-mb``).
MAX_RESPONSE_BYTES = 32 * 2**20
#: Timeouts in a row after which a server counts as unreachable.
DROP_AFTER_TIMEOUTS = 3
#: Timeouts among a server's last STRUGGLING_WINDOW attempts after which it counts as
#: unreachable (half of them): the overall bound on a struggling server.
STRUGGLING_TIMEOUTS, STRUGGLING_WINDOW = 10, 20
#: What went wrong with a failed request: the server unreachable (``connection``: refused or
#: reset; ``dns``: its host does not resolve; ``unresponsive``: its requests keep timing
#: out), or this request (``timeout``, ``http``: an error status, ``too_large``: a body over
#: the cap, ``unreadable``: a 200 response that is not a completion).
FAILURE_KINDS: tuple[str, ...] = (
    "connection", "dns", "unresponsive", "timeout", "http", "too_large", "unreadable",
)  # fmt: skip
UNREACHABLE: frozenset[str] = frozenset({"connection", "dns", "unresponsive"})


@dataclass(frozen=True)
class Answer:
    """The outcome of one request: the raw response text, or the failure reason and kind;
    ``status`` is the HTTP status when the server answered."""

    text: str | None
    error: str | None = None
    kind: str | None = None
    status: int | None = None

    @property
    def ok(self) -> bool:
        """Whether the request returned a readable completion."""
        return self.error is None


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
    from openai 3 on): its ``Limits`` and errors must be the ones the client uses."""
    base = openai.DefaultAsyncHttpxClient.__mro__[1]
    return importlib.import_module(base.__module__.partition(".")[0])


class _TooLarge(Exception):
    """A response body beyond the cap."""


@dataclass(frozen=True)
class _Response:
    status: int
    headers: Any
    text: str


class CompletionClient:
    """Sends request bodies to one OpenAI-compatible server (see the module docstring).

    ``api_key`` None sends no ``Authorization`` header."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_attempts: int = 6,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        max_wait: float = MAX_WAIT,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        drop_after_timeouts: int = DROP_AFTER_TIMEOUTS,
        seed: int = 0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        import openai

        if concurrency < 1 or max_attempts < 1:
            raise ValueError("concurrency and max_attempts must be >= 1")
        self._httpx = openai_http_library(openai)
        self._base = base_url.rstrip("/")
        self._key = api_key
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        limits = self._httpx.Limits(
            max_connections=concurrency, max_keepalive_connections=concurrency
        )
        self._http = openai.DefaultAioHttpClient(limits=limits, timeout=timeout)
        self._timeout = timeout
        self._semaphore = asyncio.Semaphore(concurrency)
        self._max_attempts = max_attempts
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._max_wait = max_wait
        self._max_bytes = max_response_bytes
        self._drop_after = drop_after_timeouts
        self._random = random.Random(seed)
        self._sleep = sleep
        self._timeouts_in_row = 0
        self._recent: deque[bool] = deque(maxlen=STRUGGLING_WINDOW)  # attempts: timed out?
        self.retries = 0

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self._http.aclose()

    def _url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else self._base + path

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        return min(self._backoff_max, self._backoff_base * 2**attempt) * (
            0.5 + self._random.random()
        )

    async def _attempt(self, method: str, path: str, body: Any = None) -> _Response:
        """One request within the deadline, its body read up to the cap (raises
        ``TimeoutError``, :class:`_TooLarge` or the HTTP library's errors)."""
        content = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        async with asyncio.timeout(self._timeout):
            async with self._http.stream(
                method, self._url(path), content=content, headers=self._headers
            ) as response:
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > self._max_bytes:
                    raise _TooLarge
                chunks, size = [], 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > self._max_bytes:
                        raise _TooLarge
                    chunks.append(chunk)
        self._timeouts_in_row = 0
        self._recent.append(False)
        text = b"".join(chunks).decode("utf-8", errors="replace")
        return _Response(response.status_code, response.headers, redact(text, self._key))

    def _too_large(self) -> str:
        return (
            f"response larger than {self._max_bytes / 2**20:g} MiB (the cap, "
            "--max-response-mb): not read further"
        )

    async def send(self, body: dict[str, Any]) -> Answer:
        """Send one request body with the retry protocol; never raises for API errors."""
        async with self._semaphore:
            reason, kind = "no attempt made", None
            for attempt in range(self._max_attempts):
                retry_after = None
                try:
                    response = await self._attempt("POST", "/chat/completions", body)
                except _TooLarge:
                    return Answer(None, self._too_large(), "too_large")
                except (TimeoutError, self._httpx.TransportError) as error:
                    kind, reason = _connection_reason(error)
                    if kind == "dns":
                        return Answer(None, redact(reason, self._key), kind)
                    if kind == "timeout":
                        self._timeouts_in_row += 1
                        self._recent.append(True)
                        reason = f"timed out (--timeout {self._timeout:g} s for the whole request)"
                        unresponsive = self._unresponsive()
                        if unresponsive is not None:
                            return Answer(None, unresponsive, "unresponsive")
                else:
                    status = response.status
                    if status >= 400:
                        reason, kind = f"HTTP {status}: {_short(response.text)}", "http"
                        if status not in RETRY_STATUS and status < 500:
                            return Answer(None, reason, kind, status)
                        retry_after = _retry_after(response.headers)
                        if retry_after is not None and retry_after > self._max_wait:
                            return Answer(
                                None,
                                f"{reason} (the server asks to wait {retry_after:g} s before "
                                f"retrying, more than the {self._max_wait:g} s cap, --max-wait)",
                                kind,
                                status,
                            )
                    else:
                        try:
                            answer = read_completion(response.text)
                        except ValueError as error:
                            reason = redact(f"unreadable response: {error}", self._key)
                            return Answer(response.text, reason, "unreadable", status)
                        if redact_tokens(answer, self._key):  # the key spelled token by token
                            return Answer(json.dumps(answer, ensure_ascii=False), status=status)
                        return Answer(response.text, status=status)
                if attempt + 1 < self._max_attempts:
                    self.retries += 1
                    await self._sleep(self._wait(attempt, retry_after))
            return Answer(
                None, redact(f"{reason} (after {self._max_attempts} attempts)", self._key), kind
            )

    def _unresponsive(self) -> str | None:
        """Why the server counts as unreachable after its timeouts (module docstring), or
        None while it does not."""
        if self._timeouts_in_row >= self._drop_after:
            return (
                f"timed out {self._timeouts_in_row} times in a row (--timeout "
                f"{self._timeout:g} s each): the server does not answer"
            )
        timeouts = sum(self._recent)
        if timeouts >= STRUGGLING_TIMEOUTS:
            return (
                f"timed out in {timeouts} of its last {STRUGGLING_WINDOW} attempts (--timeout "
                f"{self._timeout:g} s each; {STRUGGLING_TIMEOUTS} is the bound): the server "
                "answers too seldom to finish the run"
            )
        return None

    async def request_json(self, method: str, path: str, body: Any = None) -> tuple[Any, Answer]:
        """``method <base><path>`` (or an absolute URL) once: the parsed JSON (None when the
        request failed or the body is not JSON) and the :class:`Answer` (its kind and
        status tell why)."""
        try:
            response = await self._attempt(method, path, body)
        except _TooLarge:
            return None, Answer(None, self._too_large(), "too_large")
        except (TimeoutError, self._httpx.TransportError) as error:
            kind, reason = _connection_reason(error)
            if kind == "timeout":
                reason = f"timed out (--timeout {self._timeout:g} s)"
            return None, Answer(None, redact(reason, self._key), kind)
        if response.status >= 400:
            reason = f"HTTP {response.status}: {_short(response.text)}"
            return None, Answer(None, reason, "http", response.status)
        try:
            return json.loads(response.text), Answer(response.text, status=response.status)
        except (ValueError, RecursionError):
            return None, Answer(response.text, "not JSON", "unreadable", response.status)

    async def get_json(self, path: str) -> Any:
        """``GET <base><path>`` (or an absolute URL) once, parsed as JSON; None when it fails
        or is not JSON."""
        return (await self.request_json("GET", path))[0]


def _connection_reason(error: BaseException) -> tuple[str, str]:
    """The kind and text of a failed connection: ``("timeout", "timed out")``, ``("dns",
    "host does not resolve: <cause>")`` or ``("connection", "connection error: <cause>")``.
    The aiohttp transport raises all of them as timeouts, so the innermost cause decides."""
    if type(error) is TimeoutError:  # the deadline of asyncio.timeout (from a CancelledError)
        return "timeout", "timed out"
    chain = [error]
    while chain[-1].__cause__ is not None:
        chain.append(chain[-1].__cause__)
    root = chain[-1]
    if any(isinstance(e, socket.gaierror) or "DNSError" in type(e).__name__ for e in chain):
        return "dns", f"host does not resolve: {_short(str(root) or type(root).__name__)}"
    if isinstance(root, TimeoutError) or "Timeout" in type(root).__name__:
        return "timeout", "timed out"
    return "connection", f"connection error: {_short(str(root) or type(root).__name__)}"


def _short(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters (redact before calling this)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
