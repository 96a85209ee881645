"""A recording HTTP proxy on 127.0.0.1 between the runner and a server: it forwards every
request unchanged and keeps what went through (path, request body, response status, headers
and body), so a test or a benchmark has the server's own raw answers and timings.

Used by tests/test_real_server.py and perf/time_runner.py.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from geval_repro.runner.probe import PROBE_PROMPT


@dataclass(frozen=True)
class Exchange:
    """One request that went through the proxy and its answer."""

    path: str
    sent: dict | None
    status: int
    headers: dict[str, str]
    text: str


class RecordingProxy:
    """Forwards to ``target`` (a server root such as ``http://127.0.0.1:8000``)."""

    def __init__(self, target: str) -> None:
        self.exchanges: list[Exchange] = []
        lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _forward(self, body: bytes | None) -> None:
                request = urllib.request.Request(
                    target + self.path,
                    data=body,
                    method=self.command,
                    headers={"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=600) as response:
                        status, payload = response.status, response.read()
                        headers = dict(response.headers.items())
                except urllib.error.HTTPError as error:
                    status, payload, headers = error.code, error.read(), dict(error.headers.items())
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (a timeout): it never saw this answer
                with lock:  # kept once delivered: the answers the client received
                    sent = json.loads(body) if body else None
                    text = payload.decode("utf-8")
                    proxy.exchanges.append(Exchange(self.path, sent, status, headers, text))

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def records(self) -> list[Exchange]:
        """Everything that went through, in order."""
        return self.exchanges

    def completions(self) -> list[tuple[dict, dict]]:
        """(request body, parsed response) of every answered chat completion but the probe's."""
        return [
            (e.sent, json.loads(e.text))
            for e in self.exchanges
            if e.path.endswith("/chat/completions")
            and e.status == 200
            and e.sent["messages"][-1]["content"] != PROBE_PROMPT
        ]

    def stop(self) -> None:
        """Stop forwarding."""
        self._httpd.shutdown()
        self._httpd.server_close()
