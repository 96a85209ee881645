"""The Chat Completions request body of one item in each scoring mode.

- ``sample``: ``n`` replies at ``temperature``/``top_p`` (the paper: n = 20, T = 1,
  top_p = 1; the released script: T = 2, max_tokens = 5);
- ``logprobs``: one reply with ``logprobs: true`` and ``top_logprobs: K``, from which the
  level distribution is read (:mod:`geval_repro.runner.logprobs`);
- ``both``: ``n`` replies with log-probabilities (Probs and -Probs from one run).

The prompt is sent as one user message, as the released script sends it. Every parameter
is in the body, so the cache key (a hash of the body and the server) changes with any of them.

**Top-up requests.** A server may return fewer choices than ``n`` (llama.cpp's servers
return one). The runner then sends further requests for the same item until it has ``n``
replies (:func:`topup_body`): the same body asking for the replies still missing, with its
own ``seed`` (:func:`derived_seed`: from the run's seed, the item and the index of the first
reply it supplies, so a server that samples deterministically per seed gives independent
samples, and a rerun asks exactly the same). In mode ``both`` a top-up asks for no
log-probabilities unless ``logprobs`` is true: the level distribution is then read from the
first response's choices, and computing the log-probabilities of every top-up would cost a
local server more than the sampling itself (docs/judge-runner.md).

**First-position reading** (:func:`first_position_bias`, off by default): for a model that
prefaces its score ("Rating: 4"), a logit bias of +100 on the rating tokens makes the first
generated token a rating; a server that reports the *unbiased* log-probabilities (as
llama-cpp-python does) then gives the model's distribution at the first position. Only in
mode ``logprobs``, with ``max_tokens`` 1 (every position is biased, so later tokens would
be ratings too).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from geval_repro.runner.fields import ServerFields

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
    max_tokens: int | None
    top_logprobs: int

    def __post_init__(self) -> None:
        for name in ("temperature", "top_p"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} {getattr(self, name)} is not a finite number")
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: use one of {list(MODES)}")
        if self.n < 1 or (self.max_tokens is not None and self.max_tokens < 1):
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


#: The logit bias that makes a rating token the first generated token.
FIRST_POSITION_BIAS = 100


def request_body(
    params: RequestParams,
    prompt: str,
    *,
    seed: int | None = None,
    logit_bias: Mapping[str, int] | None = None,
    fields: ServerFields | None = None,
) -> dict[str, Any]:
    """The JSON body of one Chat Completions request for ``prompt`` (``seed`` and
    ``logit_bias`` only when given; a logit bias sets ``max_tokens`` to 1), as the server
    accepts it (``fields``: what the probe learned, :mod:`geval_repro.runner.fields`; the
    budget is automatic when ``params.max_tokens`` is None)."""
    fields = fields or ServerFields()
    body: dict[str, Any] = {
        "model": params.model,
        "messages": [{"role": "user", "content": prompt}],
        "n": params.n,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "max_tokens": fields.budget(params.max_tokens),
    }
    if params.wants_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = params.top_logprobs
    if seed is not None:
        body["seed"] = seed
    if logit_bias:
        body["logit_bias"] = dict(logit_bias)
        body["max_tokens"] = 1
    return fields.apply(body)


def derived_seed(seed: int, item: Mapping[str, Any], sample: int) -> int:
    """A request seed in [0, 2**31) from the run's seed, the item and a reply index."""
    text = json.dumps({"item": item, "sample": sample, "seed": seed}, sort_keys=True)
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF


def topup_body(
    body: Mapping[str, Any], missing: int, seed: int, *, logprobs: bool
) -> dict[str, Any]:
    """The request for ``missing`` more replies of the item whose first request is ``body``:
    the same body with ``n = missing`` and ``seed``; without log-probabilities unless
    ``logprobs``."""
    topup = {**body, "n": missing, "seed": seed}
    if not logprobs:
        topup.pop("logprobs", None)
        topup.pop("top_logprobs", None)
    return topup


def first_position_bias(token_ids: Mapping[int, int]) -> dict[str, int]:
    """The ``logit_bias`` of the first-position reading: rating -> its token id given."""
    return {str(token): FIRST_POSITION_BIAS for token in sorted(token_ids.values())}
