"""What a server's answer must hold before it is cached: a Chat Completions response the
runner can read to the end.

:func:`read_completion` parses a 200 response's text (already redacted,
:func:`geval_repro.runner.keys.redact`) and checks every field the runner reads, so that an
answer that does not fit is that item's failure (named, counted, not cached, requested
again by the next run) instead of a crash once all is sent, and of the same crash at every
rerun from the cache:

- an object with a non-empty ``choices`` list of objects, each with a ``message`` object
  whose ``content`` is text or null; a choice with ``text`` and no ``message`` is an answer
  of the old Completions API (``/v1/completions``), named as such;
- ``usage``: absent, null, or an object whose ``prompt_tokens``, ``completion_tokens`` and
  ``total_tokens`` are absent, null or whole numbers >= 0;
- ``system_fingerprint``: absent, null or text;
- a choice's ``logprobs``: absent, null, or an object whose ``content`` is absent, null or
  a list of positions, each an object with a text ``token`` and a ``logprob``, and a
  ``top_logprobs`` list (or null) of candidates of the same shape. A log-probability is a
  number (not a boolean), not NaN, and at most :data:`LOGPROB_ABOVE_ZERO` above 0 (a
  probability of at most 1; ``-inf``, a probability of 0, is one).

Fields the runner does not read are not checked. Whether the choices carry
log-probabilities when they were asked for, and how many choices came back, are the
dispatch's to judge (:mod:`geval_repro.runner.dispatch`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

#: How far above 0 a log-probability may lie (a server's rounding), in nats.
LOGPROB_ABOVE_ZERO = 1e-6
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


#: How a message names the JSON type of a value.
_KINDS = {bool: "true or false", str: "text", dict: "an object", list: "a list", int: "a number",
          float: "a number", type(None): "null"}  # fmt: skip


def _kind(value: object) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _check_logprob(value: object, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}.logprob is {_kind(value)}, not a number")
    if math.isnan(value):
        raise ValueError(f"{where}.logprob is NaN, not a log-probability")
    if value > LOGPROB_ABOVE_ZERO:
        raise ValueError(
            f"{where}.logprob is {value:g}, not a log-probability (a number <= 0: a "
            "probability of at most 1)"
        )


def _check_entry(entry: object, where: str) -> None:
    """One position or candidate: an object with a text ``token`` and a ``logprob``."""
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} is {_kind(entry)}, not an object")
    if "token" not in entry:
        raise ValueError(f"{where} has no 'token'")
    if not isinstance(entry["token"], str):
        raise ValueError(f"{where}.token is {_kind(entry['token'])}, not text")
    _check_logprob(entry.get("logprob"), where)


def _entries(value: object, where: str) -> list[Any]:
    """A list field's entries: none when it is null or absent; raises when it is no list."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where} is {_kind(value)}, not a list")
    return value


def _check_logprobs(logprobs: object, where: str) -> None:
    if logprobs is None:
        return
    if not isinstance(logprobs, Mapping):
        raise ValueError(f"{where}.logprobs is {_kind(logprobs)}, not an object")
    content = _entries(logprobs.get("content"), f"{where}.logprobs.content")
    for index, position in enumerate(content):
        at = f"{where}: logprobs.content[{index}]"
        _check_entry(position, at)
        candidates = _entries(position.get("top_logprobs"), f"{at}.top_logprobs")
        if all(map(_plain_entry, candidates)):
            continue  # the usual case, at a fraction of the cost of naming what is wrong
        for rank, candidate in enumerate(candidates):
            _check_entry(candidate, f"{at}.top_logprobs[{rank}]")


def _plain_entry(entry: object) -> bool:
    """Whether ``entry`` is, at a glance, a candidate :func:`_check_entry` accepts (a float
    log-probability not NaN and not above 0); False sends it to :func:`_check_entry`."""
    return (
        type(entry) is dict
        and type(entry.get("token")) is str
        and type(entry.get("logprob")) is float
        and entry["logprob"] <= LOGPROB_ABOVE_ZERO
    )


def _check_choice(choice: object, index: int) -> None:
    where = f"choice {index}"
    if not isinstance(choice, Mapping):
        raise ValueError(f"{where} is {_kind(choice)}, not an object")
    message = choice.get("message")
    if message is None and "text" in choice:
        raise ValueError(
            f"{where} has 'text' and no 'message': an answer of the old Completions API "
            "(/v1/completions), not of /chat/completions; the server answered another "
            "protocol than the one asked"
        )
    if not isinstance(message, Mapping):
        raise ValueError(f"{where} has no 'message' object")
    if not isinstance(message.get("content", ""), str | None):
        raise ValueError(f"{where}'s message content is not text")
    _check_logprobs(choice.get("logprobs"), where)


def _check_usage(usage: object) -> None:
    if usage is None:
        return
    if not isinstance(usage, Mapping):
        raise ValueError(f"usage is {_kind(usage)}, not an object")
    for name in USAGE_FIELDS:
        count = usage.get(name)
        if count is None:
            continue
        if isinstance(count, bool) or not isinstance(count, int | float):
            raise ValueError(f"usage.{name} is {_kind(count)}, not a number")
        if not (math.isfinite(count) and count == int(count) and count >= 0):
            raise ValueError(f"usage.{name} is {count:g}, not a whole number >= 0")


def read_completion(text: str) -> dict[str, Any]:
    """Parse a response body; raise ``ValueError`` naming the field when it is not a
    completion the runner can read (module docstring), also for JSON nested too deep to
    parse."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("the response is JSON nested too deep to read") from None
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise ValueError("the response has no 'choices' list")
    if not data["choices"]:
        raise ValueError("the response's 'choices' list is empty")
    for index, choice in enumerate(data["choices"]):
        _check_choice(choice, index)
    _check_usage(data.get("usage"))
    fingerprint = data.get("system_fingerprint")
    if fingerprint is not None and not isinstance(fingerprint, str):
        raise ValueError(f"system_fingerprint is {_kind(fingerprint)}, not text")
    return data
