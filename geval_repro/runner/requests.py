"""The Chat Completions request body of one item in each scoring mode.

- ``sample``: ``n`` replies at ``temperature``/``top_p`` (the paper: n = 20, T = 1,
  top_p = 1; the released script: T = 2, max_tokens = 5);
- ``logprobs``: one reply with ``logprobs: true`` and ``top_logprobs: K``, from which the
  level distribution is read (:mod:`geval_repro.runner.logprobs`);
- ``both``: ``n`` replies with log-probabilities (Probs and -Probs from one run).

The prompt is sent as one user message, as the released script sends it. Every parameter
is in the body, so the cache key (a hash of the body and the server) changes with any of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Mode = Literal["sample", "logprobs", "both"]
MODES: tuple[str, ...] = ("sample", "logprobs", "both")


@dataclass(frozen=True)
class RequestParams:
    """The sampling parameters of a run (the model is part of them)."""

    model: str
    mode: Mode
    n: int
    temperature: float
    top_p: float
    max_tokens: int
    top_logprobs: int

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: use one of {list(MODES)}")
        if self.n < 1 or self.max_tokens < 1:
            raise ValueError(f"n ({self.n}) and max_tokens ({self.max_tokens}) must be >= 1")
        if self.mode == "logprobs" and self.n != 1:
            raise ValueError("--mode logprobs sends one reply per item: use --mode both for n > 1")
        if self.mode != "sample" and not 1 <= self.top_logprobs <= 20:
            raise ValueError(f"top_logprobs {self.top_logprobs}: the API allows 1 to 20")

    @property
    def wants_logprobs(self) -> bool:
        """Whether the requests ask for log-probabilities."""
        return self.mode in ("logprobs", "both")

    def as_dict(self) -> dict[str, Any]:
        """The parameters as a plain dict (for the manifest)."""
        return asdict(self)


def request_body(params: RequestParams, prompt: str) -> dict[str, Any]:
    """The JSON body of one Chat Completions request for ``prompt``."""
    body: dict[str, Any] = {
        "model": params.model,
        "messages": [{"role": "user", "content": prompt}],
        "n": params.n,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "max_tokens": params.max_tokens,
    }
    if params.wants_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = params.top_logprobs
    return body
