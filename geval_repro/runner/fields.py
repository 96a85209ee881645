"""Which request fields a server accepts, learned by the probe from its answers.

Reasoning models (OpenAI's o-series and GPT-5, and servers that copy their rules) refuse
fields a G-Eval request carries, with HTTP 400 and a message quoting the field:

- ``"Unsupported parameter: 'max_tokens' is not supported with this model. Use
  'max_completion_tokens' instead."``: the completion budget goes in
  ``max_completion_tokens``;
- ``"Unsupported value: 'temperature' does not support 0.7 with this model. Only the
  default (1) value is supported."``: the field is left out, so the server samples at its
  default (1); ``top_p`` and ``seed`` likewise;
- ``n`` refused: one reply per request, the others requested one by one (top-ups);
- ``logprobs`` or ``top_logprobs`` refused: a mode that needs them cannot run (the probe's
  check stops the run, naming the fix ``--mode sample``).

:class:`ServerFields` holds what was learned (the refused fields with the server's message,
the name of the budget field, whether the model reasons and the tokens the probe's reply
used) and :meth:`ServerFields.apply` turns a request body into one the server accepts. The
runner stores it in the cache's ``meta`` per server and model, so that a rerun builds the
same bodies (and so finds its answers in the cache) without asking the server again.

**The completion budget.** ``max_tokens`` not given (None) is automatic:
:data:`RELEASED_MAX_TOKENS` (5, as the released script) for a model that answers at once,
:data:`REASONING_MAX_TOKENS` for a model the probe found reasoning (its reply to the probe's
two-token request ended with ``finish_reason: length`` and no content, or its usage counts
``reasoning_tokens``): such a model spends hundreds to thousands of tokens thinking before it
writes its rating, and a reply cut off while thinking is a failure, never a rating.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

#: The completion budget when none is given, for a model that answers at once (as released).
RELEASED_MAX_TOKENS = 5
#: The completion budget when none is given, for a reasoning model (thinking and the rating).
REASONING_MAX_TOKENS = 8192
#: The fields the probe may learn a server refuses, and what the runner does then.
ADAPTABLE = {
    "max_tokens": "sent as max_completion_tokens",
    "temperature": "left out: the server samples at its default (1)",
    "top_p": "left out: the server uses its default (1)",
    "seed": "left out: replies are not seeded",
    "n": "one reply per request: the others are requested one by one (top-ups)",
    "logprobs": "the mode needs log-probabilities: the run stops (--mode sample)",
    "top_logprobs": "the mode needs log-probabilities: the run stops (--mode sample)",
}
_QUOTED = re.compile(r"'([a-z_]+)'")


def refused_field(error: str | None) -> str | None:
    """The request field an HTTP 400 error refuses (one of :data:`ADAPTABLE`), else None:
    the error body's ``error.param`` when it names one, else the first field the message
    quotes (``'max_tokens'``)."""
    if not error or not error.startswith("HTTP 400"):
        return None
    text = error.split(":", 1)[1].strip()
    try:
        param = json.loads(text).get("error", {}).get("param")
    except (ValueError, AttributeError):
        param = None
    if isinstance(param, str) and param in ADAPTABLE:
        return param
    for name in _QUOTED.findall(text):
        if name in ADAPTABLE:
            return name
    return None


@dataclass(frozen=True)
class ServerFields:
    """What a server accepts (see the module docstring). ``refused``: field -> the server's
    message; ``reasoning``: the model thinks before it answers; ``reply_tokens`` and
    ``reasoning_tokens``: the completion tokens of the probe's full reply and the reasoning
    tokens among them (None: not seen)."""

    refused: dict[str, str] = field(default_factory=dict)
    reasoning: bool = False
    reply_tokens: int | None = None
    reasoning_tokens: int | None = None

    @property
    def token_field(self) -> str:
        """The name of the completion budget's field."""
        return "max_completion_tokens" if "max_tokens" in self.refused else "max_tokens"

    @property
    def max_choices(self) -> int | None:
        """The most replies one request may ask for (None: no limit)."""
        return 1 if "n" in self.refused else None

    def budget(self, max_tokens: int | None) -> int:
        """The completion budget: ``max_tokens`` when given, else automatic."""
        if max_tokens is not None:
            return max_tokens
        return REASONING_MAX_TOKENS if self.reasoning else RELEASED_MAX_TOKENS

    def refusing(self, name: str, message: str) -> ServerFields:
        """These fields with ``name`` refused for ``message``."""
        return replace(self, refused={**self.refused, name: message})

    def apply(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``body`` as the server accepts it: the budget under :attr:`token_field`, refused
        fields left out, ``n`` at most :attr:`max_choices`."""
        out = dict(body)
        if "max_tokens" in self.refused and "max_tokens" in out:
            out["max_completion_tokens"] = out.pop("max_tokens")
        for name in ("temperature", "top_p", "seed", "logprobs", "top_logprobs"):
            if name in self.refused:
                out.pop(name, None)
        if self.max_choices is not None and "n" in out:
            out["n"] = min(int(out["n"]), self.max_choices)
        return out

    def left_out(self, asked: Mapping[str, Any]) -> dict[str, str]:
        """What a run asked for (``asked``: field -> value) and does not send, and why:
        field -> one line for the manifest and the console."""
        lines = {}
        for name, message in sorted(self.refused.items()):
            value = asked.get(name)
            shown = f"{name} {value}" if value is not None and name != "max_tokens" else name
            lines[name] = f"{shown}: {ADAPTABLE[name]} (the server answered: {message})"
        return lines

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for the manifest and the cache's meta)."""
        return {**asdict(self), "token_field": self.token_field}

    @classmethod
    def from_dict(cls, stored: Any) -> ServerFields:
        """The fields :meth:`as_dict` wrote; defaults for what is missing or not of its kind."""
        if not isinstance(stored, Mapping):
            return cls()
        refused = stored.get("refused")
        refused = {
            str(k): str(v) for k, v in (refused.items() if isinstance(refused, Mapping) else [])
            if k in ADAPTABLE
        }  # fmt: skip

        def count(value: Any) -> int | None:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            return value if ok else None

        return cls(
            refused=refused,
            reasoning=stored.get("reasoning") is True,
            reply_tokens=count(stored.get("reply_tokens")),
            reasoning_tokens=count(stored.get("reasoning_tokens")),
        )


def reasoning_tokens(response: Mapping[str, Any]) -> int | None:
    """``usage.completion_tokens_details.reasoning_tokens`` when the server tells it."""
    usage = response.get("usage")
    details = usage.get("completion_tokens_details") if isinstance(usage, Mapping) else None
    value = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cut_off_while_thinking(choice: Mapping[str, Any]) -> bool:
    """Whether a choice ran out of its budget before writing anything: ``finish_reason``
    ``length`` and no content (a reasoning model that spent it all thinking)."""
    content = (choice.get("message") or {}).get("content")
    return choice.get("finish_reason") == "length" and not (content or "").strip()
