"""A fake OpenAI-compatible Chat Completions server for the runner's tests (no real API).

``FakeOpenAIServer()`` listens on 127.0.0.1 at a free port in a background thread
(``http.server.ThreadingHTTPServer``) and answers ``POST <base>/chat/completions``:

- deterministic replies: the level distribution of a prompt comes from the SHA-256 of its
  text (weights over the tokens "1".."5" plus the off-scale tokens " " and "The"); choice
  ``i`` replies with a level drawn from the hash of (prompt, i), or of (seed, prompt, i) when
  the request has a ``seed``; with ``logprobs`` it returns that first token's
  ``top_logprobs`` (sorted, at most ``top_logprobs``), as the API does; with a
  ``logit_bias`` the reply is the most likely level (the log-probabilities stay unbiased,
  as llama-cpp-python reports them) and ``POST /extras/tokenize`` gives a digit's token id
  (100 + the digit);
- server variants for what llama.cpp does not show, or shows slowly: ``max_choices``
  (return at most that many choices, as llama.cpp returns one), ``logprobs_supported=False``
  (ignore ``logprobs``), ``context_chars`` (refuse a longer prompt with llama-cpp-python's
  HTTP 400 ``context_length_exceeded``), ``max_top_logprobs`` (refuse a larger
  ``top_logprobs`` with HTTP 400, as vLLM does above its ``max_logprobs``);
  ``GET <base>/models`` lists ``fake-model`` (``owned_by``: as given, e.g. ``"me"`` as
  llama-cpp-python's server says); a path outside ``/v1`` answers HTTP 404 as
  llama-cpp-python's server does (``{"detail": "Not Found"}``);
- ``faults``: a queue of injected behaviours consumed by the next requests, one each
  (``always``: one applied to every request once the queue is empty):
  ``"429"`` (with ``Retry-After: 0.1``), ``"429-forever"`` (``Retry-After: 100000``),
  ``"500"``, ``"500-key"`` (HTTP 500 whose body holds the API key received at character
  :data:`KEY_AT`, so that a cut at 300 characters keeps all but one of a 19-character key,
  as a server that echoes its request might), ``"malformed"`` (HTTP 200, not JSON),
  ``"401"`` (an error message echoing the API key received, as some servers do),
  ``"echo"`` (HTTP 200, a completion whose reply text quotes the API key received),
  ``"slow"`` (sleeps ``slow_seconds`` before answering), ``"hang"`` (never answers, until
  the server stops), ``"trickle"`` (a 200 answer sent one byte every ``trickle_seconds``),
  ``"huge"`` (a 200 body of ``huge_bytes`` with its Content-Length), ``"huge-chunked"``
  (the same without a length, chunked, until the client stops reading);
  ``"echo-escaped"`` and ``"500-key-escaped"`` (as ``"echo"`` and ``"500-key"``, with every
  character of the key written as a JSON escape ``\\uXXXX``: the text holds no stretch of
  the key, its decoded strings hold all of it), ``"echo-tokens"`` (a reply holding the key,
  its log-probabilities listing it three characters a token, each token with its ``bytes``,
  as a model that repeats its input would), ``"text-choices"`` (old-style choices:
  ``{"text": ...}`` without ``message``), ``"extra-choices"`` (:data:`EXTRA_CHOICES` choices
  whatever ``n``), and each of :data:`MALFORMED` (a 200 completion with one field of the wrong
  shape, e.g. ``usage`` a list or a log-probability of 1000);
- ``cycle``: faults applied in turn, round and round, once the queue is empty (a server that
  times out on two requests of three: ``["hang", "hang", None]``);
- ``models_echo_key``: ``GET <base>/models`` lists, after ``fake-model``, a model whose id
  is the key received, JSON-escaped as above;
- ``hang_all``: every request, the probe's and ``GET /models`` included, hangs (a server
  that accepts connections and never answers);
- ``latency``: seconds added to every answer;
- ``requests``: the prompts received, in arrival order (thread-safe), ``bodies`` the full
  request bodies, and ``auth``: the Authorization headers seen; the runner's probe requests
  (:data:`geval_repro.runner.probe.PROBE_PROMPT`) go to ``probes`` instead and take no
  injected fault, so a test's faults and counts concern the run's own requests;
  ``paths``: every request's method and path, the probe's and the tokenizer's included;
- ``reasoning``: a reasoning model as OpenAI's o-series serve it: HTTP 400 with OpenAI's
  messages for ``max_tokens`` ("Unsupported parameter: 'max_tokens' is not supported with
  this model. Use 'max_completion_tokens' instead."), a ``temperature`` or ``top_p`` other
  than 1 ("Unsupported value: 'temperature' does not support 0.7 with this model. Only the
  default (1) value is supported.") and ``logprobs``/``top_logprobs``; each reply spends
  ``think_tokens`` reasoning tokens (``usage.completion_tokens_details.reasoning_tokens``)
  before a long reply that ends in its rating (:func:`reasoning_reply`), and a budget
  (``max_completion_tokens``) smaller than that ends the reply with ``finish_reason:
  length`` and empty content; ``refuse_n``: also refuses ``n`` other than 1;
- ``rating_probs``: every reply is a rating "1".."5" drawn from these probabilities (the
  same for every item: a known per-item distribution), by inverse CDF from the hash of
  (seed, prompt, index) (:func:`drawn_level`);
- a prompt that asks for a Yes/No answer (holds :data:`YES_NO_QUESTION`, as SummEdits'
  zero-shot prompt does) gets one: the first-token distribution is over
  :data:`YES_NO_TOKENS` (two spellings of each answer, two other tokens) and choice ``i``
  replies with one of :data:`YES_NO_REPLIES` (by the same hash), whose first token is the
  one its log-probabilities report (a reply opening with "The" has no answer token);
- it shuts itself down after ``lifetime`` seconds at the latest.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from geval_repro.runner.probe import PROBE_PROMPT

TOKENS = ("1", "2", "3", "4", "5", " ", "The")
YES_NO_QUESTION = "(Yes/No)"
YES_NO_TOKENS = ("Yes", " yes", "No", " NO", " ", "The")
#: A Yes/No prompt's replies: (first token, text); the last one opens with no answer.
YES_NO_REPLIES = (
    ("Yes", "Yes"),
    (" yes", " yes."),
    ("No", "No, the second sentence is not supported by the document."),
    ("The", "The summary is consistent with the document."),
)
KEY_AT = 282  # where "500-key" puts the key in its body
EXTRA_CHOICES = 8  # the choices "extra-choices" returns whatever n


def escaped(text: str) -> str:
    """``text`` with every character written as a JSON escape (``\\u0073`` for ``s``)."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _positions(answer: dict) -> list[dict]:
    """Every log-probability entry of ``answer``: the positions and their candidates."""
    found = []
    for choice in answer["choices"]:
        for position in (choice.get("logprobs") or {}).get("content") or []:
            found.append(position)
            found.extend(position.get("top_logprobs") or [])
    return found


def _set_logprobs(value: object):
    def spoil(answer: dict) -> None:
        for entry in _positions(answer):
            entry["logprob"] = value

    return spoil


def _drop_tokens(answer: dict) -> None:
    for entry in _positions(answer):
        del entry["token"]


#: A 200 completion with one field of the wrong shape, by fault name: what each does to the
#: fake's answer (the log-probability faults need a request that asks for them).
MALFORMED = {
    "usage-list": lambda answer: answer.update(usage=[12, 1, 13]),
    "usage-string": lambda answer: answer.update(usage="13 tokens"),
    "fingerprint-object": lambda answer: answer.update(system_fingerprint={"build": "x"}),
    "logprob-no-token": _drop_tokens,
    "logprob-string": _set_logprobs("-0.5"),
    "logprob-list": _set_logprobs([-0.5]),
    "logprob-nan": _set_logprobs(float("nan")),
    "logprob-1000": _set_logprobs(1000.0),
}


def distribution(prompt: str) -> dict[str, float]:
    """The fake model's first-token probabilities for ``prompt`` (over :data:`YES_NO_TOKENS`
    for a prompt asking for a Yes/No answer)."""
    tokens = YES_NO_TOKENS if YES_NO_QUESTION in prompt else TOKENS
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    weights = [1 + digest[i] for i in range(len(tokens))]
    total = sum(weights)
    return {token: w / total for token, w in zip(tokens, weights, strict=True)}


def yes_no_reply(prompt: str, index: int, seed: int | None = None) -> tuple[str, str]:
    """The (first token, text) the fake model replies to a Yes/No prompt in choice ``index``."""
    text = f"{index}:{prompt}" if seed is None else f"{seed}:{index}:{prompt}"
    digest = hashlib.sha256(text.encode()).digest()
    return YES_NO_REPLIES[digest[0] % len(YES_NO_REPLIES)]


def reply_level(prompt: str, index: int, seed: int | None = None) -> str:
    """The level the fake model writes in choice ``index`` for ``prompt`` (and ``seed``)."""
    text = f"{index}:{prompt}" if seed is None else f"{seed}:{index}:{prompt}"
    digest = hashlib.sha256(text.encode()).digest()
    return TOKENS[digest[0] % 5]


#: What a reasoning model answers to a field it does not take (OpenAI's messages, quoted in
#: issue 49), by field.
REFUSALS = {
    "max_tokens": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
    "'max_completion_tokens' instead.",
    "temperature": "Unsupported value: 'temperature' does not support {value} with this model. "
    "Only the default (1) value is supported.",
    "top_p": "Unsupported value: 'top_p' does not support {value} with this model. Only the "
    "default (1) value is supported.",
    "logprobs": "Unsupported parameter: 'logprobs' is not supported with this model.",
    "top_logprobs": "Unsupported parameter: 'top_logprobs' is not supported with this model.",
    "n": "Unsupported value: 'n' does not support {value} with this model. Only the default "
    "(1) value is supported.",
}
REASONING_ANSWER_TOKENS = 60  # the tokens of a reasoning reply's visible text


def reasoning_refusal(body: dict, refuse_n: bool) -> tuple[str, str] | None:
    """The field a reasoning model refuses in ``body`` and its message, else None."""
    for name, message in REFUSALS.items():
        value = body.get(name)
        if name in ("temperature", "top_p", "n"):
            refused = value is not None and float(value) != 1 and (name != "n" or refuse_n)
        else:
            refused = name in body
        if refused:
            return name, message.format(value=value)
    return None


def reasoning_reply(level: str) -> str:
    """A reasoning model's visible reply: an assessment that names other numbers first (the
    released parser reads the first) and ends in its rating."""
    return (
        "Let me check the summary against the article step by step.\n\n"
        "1. The first sentence states the main event, and 2 of the 3 key facts follow.\n"
        "2. The second sentence repeats a detail, a small lapse in structure.\n"
        "3. On a scale of 1 to 5, the flow from one sentence to the next is mostly clear.\n\n"
        f"Overall the summary is well organized apart from one repetition.\n\n**Rating: {level}**"
    )


def drawn_level(probs, prompt: str, index: int, seed: int | None) -> str:
    """A rating drawn from ``probs`` over "1".."5" with the uniform number the hash of
    (seed, prompt, index) gives."""
    digest = hashlib.sha256(f"{seed}:{index}:{prompt}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    total = 0.0
    for level, p in enumerate(probs, start=1):
        total += p
        if u < total:
            return str(level)
    return str(max(i for i, p in enumerate(probs, start=1) if p))


def completion(body: dict, max_choices: int | None = None, logprobs: bool = True) -> dict:
    """The fake response body to a request body."""
    prompt = body["messages"][-1]["content"]
    probs = distribution(prompt)
    top = sorted(probs.items(), key=lambda kv: -kv[1])[: int(body.get("top_logprobs") or 0)]
    choices = []
    n = int(body.get("n") or 1)
    for index in range(n if max_choices is None else min(n, max_choices)):
        token = reply_level(prompt, index, body.get("seed"))
        content = token
        if YES_NO_QUESTION in prompt:
            token, content = yes_no_reply(prompt, index, body.get("seed"))
        elif body.get("logit_bias"):
            token = content = max(TOKENS[:5], key=probs.__getitem__)
        choice = {
            "index": index,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }
        if body.get("logprobs") and logprobs:
            choice["logprobs"] = {
                "content": [
                    {
                        "token": token,
                        "logprob": math.log(probs[token]),
                        "bytes": list(token.encode()),
                        "top_logprobs": [
                            {"token": t, "logprob": math.log(p), "bytes": list(t.encode())}
                            for t, p in top
                        ],
                    }
                ]
            }
        choices.append(choice)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "system_fingerprint": "fp_fake",
        "choices": choices,
        "usage": {
            "prompt_tokens": len(prompt) // 4,
            "completion_tokens": len(choices),
            "total_tokens": len(prompt) // 4 + len(choices),
        },
    }


class FakeOpenAIServer:
    """See the module docstring; use as a context manager or call :meth:`stop`."""

    def __init__(
        self,
        latency: float = 0.0,
        slow_seconds: float = 2.0,
        lifetime: float = 300,
        *,
        max_choices: int | None = None,
        logprobs_supported: bool = True,
        context_chars: int | None = None,
        max_top_logprobs: int | None = None,
        port: int = 0,
        always: str | None = None,
        hang_all: bool = False,
        owned_by: str | None = None,
        trickle_seconds: float = 0.2,
        huge_bytes: int = 40 * 2**20,
        cycle: list[str | None] | None = None,
        models_echo_key: bool = False,
        reasoning: bool = False,
        think_tokens: int = 900,
        refuse_n: bool = False,
        rating_probs: tuple[float, ...] | None = None,
    ):
        self.rating_probs = rating_probs
        self.reasoning = reasoning
        self.think_tokens = think_tokens
        self.refuse_n = refuse_n
        self.always = always
        self.cycle = list(cycle or [])
        self._turn = 0
        self.models_echo_key = models_echo_key
        self.hang_all = hang_all
        self.owned_by = owned_by
        self.trickle_seconds = trickle_seconds
        self.huge_bytes = huge_bytes
        self._ended = threading.Event()
        self.latency = latency
        self.slow_seconds = slow_seconds
        self.max_choices = max_choices
        self.logprobs_supported = logprobs_supported
        self.context_chars = context_chars
        self.max_top_logprobs = max_top_logprobs
        self.faults: deque[str] = deque()
        self.requests: list[str] = []
        self.bodies: list[dict] = []
        self.probes: list[dict] = []
        self.auth: list[str] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._stopped = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms

            def log_message(self, *args: object) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a client killed mid-request (the resume test does that)

            def _key(self) -> str:
                return self.headers.get("Authorization", "").removeprefix("Bearer ")

            def do_GET(self) -> None:
                with server._lock:
                    server.paths.append(f"GET {self.path}")
                if server.hang_all:
                    server._ended.wait()
                    return
                if self.path == "/v1/models":
                    model = {"id": "fake-model", "object": "model"}
                    if server.owned_by is not None:
                        model.update(owned_by=server.owned_by, permissions=[])
                    models = [model]
                    if server.models_echo_key:
                        models.append({"id": "KEY", "object": "model"})
                    text = json.dumps({"object": "list", "data": models})
                    self._send(200, text.replace('"KEY"', f'"{escaped(self._key())}"').encode())
                else:
                    self._send(404, b'{"detail": "Not Found"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    server.paths.append(f"POST {self.path}")
                if server.hang_all:
                    server._ended.wait()
                    return
                if self.path == "/extras/tokenize":
                    tokens = [100 + int(c) if c.isdigit() else 1 for c in body["input"]]
                    self._send(200, json.dumps({"tokens": tokens}).encode())
                    return
                if self.path != "/v1/chat/completions":
                    self._send(404, b'{"detail": "Not Found"}')
                    return
                prompt = body["messages"][-1]["content"]
                if server.context_chars is not None and len(prompt) > server.context_chars:
                    message = (
                        f"This model's maximum context length is {server.context_chars} "
                        f"tokens. However, you requested {len(prompt)} tokens"
                    )
                    error = {"message": message, "code": "context_length_exceeded"}
                    self._send(400, json.dumps({"error": error}).encode())
                    return
                most = server.max_top_logprobs
                if most is not None and int(body.get("top_logprobs") or 0) > most:
                    message = f"top_logprobs must be at most {most}, got {body['top_logprobs']}"
                    self._send(400, json.dumps({"error": {"message": message}}).encode())
                    return
                if server.reasoning and (refusal := reasoning_refusal(body, server.refuse_n)):
                    name, message = refusal
                    error = {"message": message, "type": "invalid_request_error", "param": name}
                    self._send(400, json.dumps({"error": error}).encode())
                    return
                with server._lock:
                    server.auth.append(self.headers.get("Authorization", ""))
                    if prompt == PROBE_PROMPT:
                        server.probes.append(body)
                        fault = None
                    else:
                        server.bodies.append(body)
                        server.requests.append(prompt)
                        fault = server._next_fault()
                if server.latency:
                    time.sleep(server.latency)
                if fault == "429":
                    self._send(
                        429, b'{"error": {"message": "rate limited"}}', {"Retry-After": "0.1"}
                    )
                elif fault == "500":
                    self._send(500, b'{"error": {"message": "server error"}}')
                elif fault == "401":  # some servers echo the key they were given
                    key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    message = json.dumps({"error": {"message": f"Incorrect API key {key}"}})
                    self._send(401, message.encode())
                elif fault == "malformed":
                    self._send(200, b'{"choices": [ this is not json')
                elif fault == "429-forever":
                    self._send(
                        429, b'{"error": {"message": "rate limited"}}', {"Retry-After": "100000"}
                    )
                elif fault == "500-key":
                    key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    message = "x" * (KEY_AT - len('{"error": {"message": "')) + key + " y" * 40
                    self._send(500, json.dumps({"error": {"message": message}}).encode())
                elif fault == "echo":
                    key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    for choice in answer["choices"]:
                        choice["message"]["content"] = f"Your key is {key}. 3"
                    self._send(200, json.dumps(answer).encode())
                elif fault in ("echo-escaped", "500-key-escaped"):
                    key = self._key()
                    if fault == "echo-escaped":
                        answer = completion(body, server.max_choices, server.logprobs_supported)
                        for choice in answer["choices"]:
                            choice["message"]["content"] = "Your key is KEY. 3"
                        status, text = 200, json.dumps(answer)
                    else:
                        message = f"upstream rejected the key KEY ({len(key)} characters)"
                        status, text = 500, json.dumps({"error": {"message": message}})
                    self._send(status, text.replace("KEY", escaped(key)).encode())
                elif fault == "echo-tokens":  # the key in the reply, token by token
                    key = self._key()
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    pieces = ["Your", " key", " is", " "] + [
                        key[i : i + 3] for i in range(0, len(key), 3)
                    ]
                    for choice in answer["choices"]:
                        choice["message"]["content"] = "".join(pieces)
                        entries = [
                            {"token": t, "logprob": -0.1, "bytes": list(t.encode())} for t in pieces
                        ]
                        choice["logprobs"] = {
                            "content": [{**e, "top_logprobs": [dict(e)]} for e in entries]
                        }
                    self._send(200, json.dumps(answer).encode())
                elif fault == "text-choices":
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    for choice in answer["choices"]:
                        choice["text"] = choice.pop("message")["content"]
                    self._send(200, json.dumps(answer).encode())
                elif fault == "extra-choices":
                    answer = completion(
                        {**body, "n": EXTRA_CHOICES}, None, server.logprobs_supported
                    )
                    self._send(200, json.dumps(answer).encode())
                elif fault in MALFORMED:
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    MALFORMED[fault](answer)
                    self._send(200, json.dumps(answer).encode())
                elif fault == "hang":
                    server._ended.wait()
                elif fault == "trickle":
                    answer = json.dumps(completion(body, server.max_choices)).encode()
                    self._stream(answer, len(answer), server.trickle_seconds, 1)
                elif fault == "huge":
                    self._stream(None, server.huge_bytes, 0.0, 2**20)
                elif fault == "huge-chunked":
                    self._stream(None, None, 0.0, 2**20)
                elif server.rating_probs is not None and fault is None:
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    for choice in answer["choices"]:
                        level = drawn_level(
                            server.rating_probs, prompt, choice["index"], body.get("seed")
                        )
                        choice["message"]["content"] = level
                    self._send(200, json.dumps(answer).encode())
                elif server.reasoning:
                    answer = completion(body, server.max_choices, False)
                    budget = int(body.get("max_completion_tokens") or 2**31)
                    spent = server.think_tokens + REASONING_ANSWER_TOKENS
                    for choice in answer["choices"]:
                        if budget < spent:
                            choice.update(finish_reason="length", message={"role": "assistant",
                                          "content": ""})  # fmt: skip
                        else:
                            level = choice["message"]["content"].strip() or "3"
                            choice["message"]["content"] = reasoning_reply(level)
                    used = min(budget, spent) * len(answer["choices"])
                    thought = min(budget, server.think_tokens) * len(answer["choices"])
                    answer["usage"].update(
                        completion_tokens=used,
                        total_tokens=answer["usage"]["prompt_tokens"] + used,
                        completion_tokens_details={"reasoning_tokens": thought},
                    )
                    self._send(200, json.dumps(answer).encode())
                else:
                    if fault == "slow":
                        time.sleep(server.slow_seconds)
                    answer = completion(body, server.max_choices, server.logprobs_supported)
                    self._send(200, json.dumps(answer).encode())

            def _stream(
                self, payload: bytes | None, length: int | None, pause: float, chunk: int
            ) -> None:
                """A 200 answer: ``payload`` (or filler bytes up to ``length``, or without end
                when None) in pieces of ``chunk`` bytes, ``pause`` seconds apart."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if length is None:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        self.send_header("Content-Length", str(length))
                    self.end_headers()
                    sent = 0
                    while (length is None or sent < length) and not server._ended.is_set():
                        size = chunk if length is None else min(chunk, length - sent)
                        piece = payload[sent : sent + size] if payload else b" " * size
                        if length is None:
                            piece = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
                        self.wfile.write(piece)
                        self.wfile.flush()
                        sent += size
                        if pause:
                            time.sleep(pause)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

            def _send(self, status: int, payload: bytes, headers: dict | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()

    def _next_fault(self) -> str | None:
        """The fault of the next request of the run (under the lock): the queue's first,
        else the cycle's next, else ``always``."""
        if self.faults:
            return self.faults.popleft()
        if self.cycle:
            self._turn += 1
            return self.cycle[(self._turn - 1) % len(self.cycle)]
        return self.always

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._ended.set()
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """Serve in the foreground (for perf/time_runner.py): print the base URL, then wait."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--lifetime", type=float, default=300)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeOpenAIServer(latency=args.latency, lifetime=args.lifetime, port=args.port)
    print(server.base_url, flush=True)
    server._thread.join()


if __name__ == "__main__":
    main()
