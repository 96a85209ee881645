"""Which API key a server gets, and keeping the key out of everything written or shown.

**Key policy** (:func:`server_key`): a key goes only to a server the user named a key for.

- ``api_key_env`` named (``--api-key-env VAR``, or ``api_key_env: VAR`` in a ``run:``
  block): ``$VAR`` goes to every server of the run; unset or empty, a hosted server is
  refused before anything is sent, a local one gets no key;
- not named: ``$OPENAI_API_KEY`` (:data:`DEFAULT_KEY_ENV`) goes to OpenAI's API only
  (:data:`DEFAULT_KEY_HOSTS`, the host of the default base URL). Any other hosted server
  is refused before anything is sent, naming ``--api-key-env`` as the fix, so the user's
  OpenAI key never reaches a third party by default; a local server (a ``--base-url`` on
  this machine or a private network, a ``server:`` block's llama.cpp server) gets no key.

"No key" means no ``Authorization`` header at all. Local means what
:func:`geval_repro.runner.probe.is_local` says (loopback and private addresses,
``localhost``, single-label and ``.local``/``.internal``/``.lan`` names).

**Redaction** (:func:`redact`): every text that came back from a server that was sent a
key (error bodies, 200 replies, probe answers) passes through :func:`redact` *before* it is
shortened, stored, cached or shown: each occurrence of the key, and of every stretch of at
least :data:`MIN_FRAGMENT` characters of it (a server that echoes half the key), becomes
``***``. A value shorter than :data:`MIN_FRAGMENT` characters is taken for a placeholder
(``EMPTY``, ``x``: a local server's dummy key), not a secret: redacting it would corrupt
replies (a key ``1`` would erase ratings), so it is left as is.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlparse

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: The hosts that get ``$OPENAI_API_KEY`` when no ``api_key_env`` is named.
DEFAULT_KEY_HOSTS: frozenset[str] = frozenset({"api.openai.com"})
#: The shortest stretch of a key that is redacted; shorter keys are placeholders.
MIN_FRAGMENT = 8
MASK = "***"


class KeyRefused(ValueError):
    """No key may be sent to a hosted server (the message names the server and the fix)."""


@dataclass(frozen=True)
class ServerKey:
    """The key one server gets: ``value`` (None: no ``Authorization`` header) and the
    variable it came from."""

    value: str | None
    variable: str | None


def server_key(
    base_url: str,
    api_key_env: str | None,
    local: bool,
    environ: Mapping[str, str] = os.environ,
) -> ServerKey:
    """The key ``base_url`` gets under the policy of the module docstring (``local``: the
    server is on this machine or a private network); raises :class:`KeyRefused` for a
    hosted server without a key."""
    host = (urlparse(base_url).hostname or "").lower()
    variable = api_key_env
    if variable is None and host in DEFAULT_KEY_HOSTS:
        variable = DEFAULT_KEY_ENV
    value = environ.get(variable, "") if variable else ""
    if value:
        return ServerKey(value, variable)
    if local:
        return ServerKey(None, variable)
    if variable is not None:
        raise KeyRefused(
            f"${variable} is not set and {base_url} is a hosted API: nothing was sent. "
            f"Fix: export {variable}=<your key>, or give --base-url of a local server"
        )
    raise KeyRefused(
        f"{base_url} is a hosted API and no key is named for it: nothing was sent. "
        f"${DEFAULT_KEY_ENV} goes only to {', '.join(sorted(DEFAULT_KEY_HOSTS))} unless "
        f"named. Fix: --api-key-env VAR (api_key_env: VAR in a run: block), the variable "
        "holding this server's key"
    )


def secrets_of(keys: Sequence[ServerKey]) -> tuple[str, ...]:
    """The distinct key values among ``keys`` that are secrets (see :func:`redact`)."""
    return tuple(dict.fromkeys(k.value for k in keys if k.value and len(k.value) >= MIN_FRAGMENT))


@functools.lru_cache(maxsize=8)
def _fragments(secret: str) -> tuple[frozenset[str], re.Pattern[str]]:
    """The key's stretches of :data:`MIN_FRAGMENT` characters, and a pattern of the runs of
    at least that many characters all drawn from the key's: every stretch of the key in a
    text lies inside such a run."""
    stretches = frozenset(
        secret[i : i + MIN_FRAGMENT] for i in range(len(secret) - MIN_FRAGMENT + 1)
    )
    alphabet = "".join(re.escape(c) for c in sorted(set(secret)))
    return stretches, re.compile(f"[{alphabet}]{{{MIN_FRAGMENT},}}")


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` and every stretch of :data:`MIN_FRAGMENT` or more of its
    characters replaced by ``***`` (see the module docstring; a shorter ``secret`` is not
    redacted).

    Fast when the text holds no stretch of the key (the usual case, a whole response with
    its log-probabilities): the distinct runs of the key's characters are checked once each
    for a stretch of it; only a text that holds one is searched stretch by stretch."""
    if not secret or len(secret) < MIN_FRAGMENT or not text:
        return text
    stretches, runs = _fragments(secret)
    found = {
        word[i : i + MIN_FRAGMENT]
        for word in set(runs.findall(text))
        for i in range(len(word) - MIN_FRAGMENT + 1)
    } & stretches
    if not found:
        return text
    marked: list[tuple[int, int]] = []
    for stretch in found:
        position = text.find(stretch)
        while position >= 0:
            marked.append((position, position + MIN_FRAGMENT))
            position = text.find(stretch, position + 1)
    marked.sort()
    pieces, position, end = [], 0, -1
    for low, high in marked:
        if low > end:  # a new stretch: the text before it, after the previous mask
            if end >= 0:
                pieces.append(MASK)
            pieces.append(text[position:low])
        end = max(end, high)
        position = end
    pieces.append(MASK)
    pieces.append(text[position:])
    return "".join(pieces)
