"""A fake OpenAI-compatible Chat Completions server for the runner's tests (no real API).

``FakeOpenAIServer()`` listens on 127.0.0.1 at a free port in a background thread
(``http.server.ThreadingHTTPServer``) and answers ``POST <base>/chat/completions``:

- deterministic replies: the level distribution of a prompt comes from the SHA-256 of its
  text (weights over the tokens "1".."5" plus the off-scale tokens " " and "The"); choice
  ``i`` replies with a level drawn from the hash of (prompt, i); with ``logprobs`` it returns
  that first token's ``top_logprobs`` (sorted, at most ``top_logprobs``), as the API does;
- ``faults``: a queue of injected behaviours consumed by the next requests, one each:
  ``"429"`` (with ``Retry-After: 0.1``), ``"500"``, ``"malformed"`` (HTTP 200, not JSON),
  ``"401"`` (an error message echoing the API key received, as some servers do),
  ``"slow"`` (sleeps ``slow_seconds`` before answering);
- ``latency``: seconds added to every answer;
- ``requests``: the prompts received, in arrival order (thread-safe), and ``auth``: the
  Authorization headers seen;
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

TOKENS = ("1", "2", "3", "4", "5", " ", "The")


def distribution(prompt: str) -> dict[str, float]:
    """The fake model's first-token probabilities for ``prompt``."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    weights = [1 + digest[i] for i in range(len(TOKENS))]
    total = sum(weights)
    return {token: w / total for token, w in zip(TOKENS, weights, strict=True)}


def reply_level(prompt: str, index: int) -> str:
    """The level the fake model writes in choice ``index`` for ``prompt``."""
    digest = hashlib.sha256(f"{index}:{prompt}".encode()).digest()
    return TOKENS[digest[0] % 5]


def completion(body: dict) -> dict:
    """The fake response body to a request body."""
    prompt = body["messages"][-1]["content"]
    probs = distribution(prompt)
    top = sorted(probs.items(), key=lambda kv: -kv[1])[: int(body.get("top_logprobs") or 0)]
    choices = []
    for index in range(int(body.get("n") or 1)):
        token = reply_level(prompt, index)
        choice = {
            "index": index,
            "message": {"role": "assistant", "content": token},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
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

    def __init__(self, latency: float = 0.0, slow_seconds: float = 2.0, lifetime: float = 300):
        self.latency = latency
        self.slow_seconds = slow_seconds
        self.faults: deque[str] = deque()
        self.requests: list[str] = []
        self.auth: list[str] = []
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

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    server.requests.append(body["messages"][-1]["content"])
                    server.auth.append(self.headers.get("Authorization", ""))
                    fault = server.faults.popleft() if server.faults else None
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
                else:
                    if fault == "slow":
                        time.sleep(server.slow_seconds)
                    self._send(200, json.dumps(completion(body)).encode())

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

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
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
    args = parser.parse_args()
    server = FakeOpenAIServer(latency=args.latency, lifetime=args.lifetime)
    print(server.base_url, flush=True)
    server._thread.join()


if __name__ == "__main__":
    main()
