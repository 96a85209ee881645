"""Which API key a server gets, and keeping the key out of everything written or shown.

**Key policy** (:func:`server_key`): a key goes only to a server the user named a key for,
and never in the clear to another machine.

- ``api_key_env`` named (``--api-key-env VAR``, or ``api_key_env: VAR`` in a ``run:``
  block): ``$VAR`` goes to every server of the run; unset or empty, a hosted server is
  refused before anything is sent, a local one gets no key. ``VAR`` must be an environment
  variable's name (:data:`VARIABLE_NAME`) that does not look like a key
  (:func:`check_key_variable`): a key typed there instead of its variable's name is refused
  before anything is written, and the message does not repeat it;
- not named: ``$OPENAI_API_KEY`` (:data:`DEFAULT_KEY_ENV`) goes to OpenAI's API only
  (:data:`DEFAULT_KEY_HOSTS`, the host of the default base URL). Any other hosted server
  is refused before anything is sent, naming ``--api-key-env`` as the fix, so the user's
  OpenAI key never reaches a third party by default; a local server (a ``--base-url`` on
  this machine or a private network, a ``server:`` block's llama.cpp server) gets no key;
- **never over plain HTTP to another machine**: a key for an ``http://`` URL whose host is
  not this machine's loopback (:func:`geval_repro.runner.urls.is_loopback`) is refused
  before anything is sent, naming the URL and the fix (``https://``); a server on a private
  network that wants a key is reached over HTTPS.

"No key" means no ``Authorization`` header at all. Local means what
:func:`geval_repro.runner.probe.is_local` says (loopback and private addresses,
``localhost``, single-label and ``.local``/``.internal``/``.lan`` names).

**Redaction** (:func:`redact`): every text that came back from a server that was sent a
key (error bodies, 200 replies, probe answers) passes through :func:`redact` *before* it is
parsed, shortened, stored, cached or shown: each occurrence of the key, and of every
stretch of at least :data:`MIN_FRAGMENT` characters of it (a server that echoes half the
key), becomes ``***``. So does the key written another way: behind escapes that a reader of
the text decodes (JSON's and Python's ``\\u0073``, ``\\x73``, ``\\n``, an escaped backslash;
percent-encoding ``%73``; HTML character references ``&#115;``, ``&#x73;``, ``&amp;``; each
up to :data:`DECODE_DEPTH` times over: an escape of an escape), where ``json.loads`` would
give the key back; and in hexadecimal and base64 (every stretch of its UTF-8 bytes at least
:data:`MIN_FRAGMENT` long, at each of base64's three alignments: :data:`BASE64_STRETCH`
characters). The escaped key is
masked in the text as received, whole escapes at a time, so a JSON text stays JSON and
decodes to ``***`` where the key was; a base64 stretch is masked with the whole run of
base64 characters around it, whose edge characters would give the key's bytes beside the
stretch. A reply that spells the key token by token leaves no
stretch of it in any one text, but in its log-probabilities' tokens read in a row: those
tokens are masked too (:func:`redact_tokens`), before the answer is cached. A value shorter
than :data:`MIN_FRAGMENT` characters is taken for a placeholder (``EMPTY``, ``x``: a local
server's dummy key), not a secret: redacting it would corrupt replies (a key ``1`` would
erase ratings), so it is left as is.
"""

from __future__ import annotations

import base64
import functools
import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from geval_repro.runner.urls import is_loopback

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: The hosts that get ``$OPENAI_API_KEY`` when no ``api_key_env`` is named.
DEFAULT_KEY_HOSTS: frozenset[str] = frozenset({"api.openai.com"})
#: The shortest stretch of a key that is redacted; shorter keys are placeholders.
MIN_FRAGMENT = 8
MASK = "***"
#: What ``--api-key-env`` / ``api_key_env`` takes: an environment variable's name.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: How the keys of common providers begin (OpenAI, Anthropic ``sk-``, Groq ``gsk_``,
#: Hugging Face ``hf_``, xAI, Replicate, Fireworks, NVIDIA, Perplexity, GitHub, GitLab,
#: Google, AWS): a "variable name" that begins so is a key.
KEY_PREFIXES = (
    "sk-", "sk_", "gsk_", "hf_", "xai-", "r8_", "fw_", "nvapi-", "pplx-", "ghp_", "gho_",
    "github_pat_", "glpat-", "AIza", "AKIA",
)  # fmt: skip
#: A part of a name between ``_`` this long or longer, digits and letters mixed, is the
#: random part of a key, not a word of a variable's name.
KEY_RUN = 20
#: How many times escapes are decoded when a text is searched for the key.
DECODE_DEPTH = 3


class KeyRefused(ValueError):
    """No key may be sent to that server, or the key's variable is not a variable's name
    (the message names the server or the option, and the fix)."""


@dataclass(frozen=True)
class ServerKey:
    """The key one server gets: ``value`` (None: no ``Authorization`` header) and the
    variable it came from."""

    value: str | None
    variable: str | None


def looks_like_a_key(name: str) -> bool:
    """Whether ``name`` begins as a provider's keys do (:data:`KEY_PREFIXES`) or holds a
    part between underscores of :data:`KEY_RUN` or more characters mixing digits and
    letters."""
    return name.startswith(KEY_PREFIXES) or any(
        len(part) >= KEY_RUN and not part.isalpha() and not part.isdigit()
        for part in name.split("_")
    )


def check_key_variable(name: str) -> None:
    """Raise :class:`KeyRefused` when ``name`` (``--api-key-env``, ``api_key_env:``) is not
    an environment variable's name or looks like a key; the message does not repeat it."""
    if VARIABLE_NAME.fullmatch(name) and not looks_like_a_key(name):
        return
    what = "looks like a key itself" if VARIABLE_NAME.fullmatch(name) else "is not one"
    raise KeyRefused(
        "--api-key-env (api_key_env: in a run: block) takes the name of an environment "
        f"variable ([A-Za-z_][A-Za-z0-9_]*, e.g. OPENAI_API_KEY), and the value given {what}; "
        "it is not repeated here, and nothing was sent or written. Fix: export "
        "MY_JUDGE_KEY=<your key>, then give --api-key-env MY_JUDGE_KEY"
    )


def server_key(
    base_url: str,
    api_key_env: str | None,
    local: bool,
    environ: Mapping[str, str] = os.environ,
) -> ServerKey:
    """The key ``base_url`` gets under the policy of the module docstring (``local``: the
    server is on this machine or a private network); raises :class:`KeyRefused` for a
    hosted server without a key, for a key over plain HTTP to another machine and for an
    ``api_key_env`` that is not a variable's name."""
    if api_key_env is not None:
        check_key_variable(api_key_env)
    parsed = urlparse(base_url)
    host = (parsed.hostname or "").lower()
    variable = api_key_env
    if variable is None and host in DEFAULT_KEY_HOSTS:
        variable = DEFAULT_KEY_ENV
    value = environ.get(variable, "") if variable else ""
    if value:
        if parsed.scheme.lower() != "https" and not is_loopback(host):
            secure = "https://" + base_url.split("://", 1)[-1]
            unneeded = ", or no --api-key-env for a server that needs no key" if api_key_env else ""
            raise KeyRefused(
                f"{base_url}: a key is never sent over plain http:// to another machine (it "
                f"would travel unencrypted): nothing was sent. Fix: --base-url {secure} (the "
                f"server over https://){unneeded}"
            )
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


@dataclass(frozen=True)
class _Forms:
    """What :func:`redact` looks for: the stretches (of :data:`MIN_FRAGMENT` characters of
    the key, of :data:`MIN_FRAGMENT` bytes of it in hexadecimal and base64), which of them
    are base64 (``encoded``), and a pattern of the runs of characters that may hold one."""

    stretches: frozenset[str]
    encoded: frozenset[str]
    lengths: tuple[int, ...]
    runs: re.Pattern[str]


#: base64's characters in either alphabet, and its padding: a base64 stretch is masked with
#: the run of them around it (:func:`_spans`).
BASE64_RUN = frozenset(string.ascii_letters + string.digits + "+/-_=")
#: The characters of a base64 stretch: the most that :data:`MIN_FRAGMENT` bytes decide
#: alone at every alignment (60 bits: 7.5 bytes).
BASE64_STRETCH = (8 * MIN_FRAGMENT - 4) // 6


def _windows(text: str, length: int) -> set[str]:
    return {text[i : i + length] for i in range(len(text) - length + 1)}


def _decided(data: bytes, alignment: int) -> str:
    """The characters of base64 of ``alignment`` other bytes followed by ``data`` that
    ``data``'s bits alone decide: character ``c`` holds bits ``6c .. 6c + 5``, decided
    when they lie in ``8 alignment .. 8 (alignment + len(data)) - 1``."""
    whole = base64.b64encode(b"\0" * alignment + data).decode("ascii")
    first = -(-8 * alignment // 6)
    last = (8 * (alignment + len(data)) - 6) // 6
    return whole[first : last + 1]


@functools.lru_cache(maxsize=8)
def _forms(secret: str) -> _Forms:
    """The stretches of the key as written, in hexadecimal (either case) and in base64
    (standard and URL-safe alphabets, at each of its three alignments: the characters that
    the key's bytes alone decide, :func:`_decided`): :data:`MIN_FRAGMENT` characters of
    it, the hexadecimal of :data:`MIN_FRAGMENT` bytes of it, and :data:`BASE64_STRETCH`
    base64 characters of it (a key of :data:`MIN_FRAGMENT` bytes has that many at every
    alignment)."""
    data = secret.encode("utf-8")
    stretches = _windows(secret, MIN_FRAGMENT)
    hexadecimal = data.hex()
    for form in (hexadecimal, hexadecimal.upper()):
        stretches |= _windows(form, 2 * MIN_FRAGMENT)
    encoded: set[str] = set()
    for alignment in range(3):
        inner = _decided(data, alignment)
        for form in (inner, inner.replace("+", "-").replace("/", "_")):
            encoded |= _windows(form, BASE64_STRETCH)
    stretches |= encoded
    alphabet = "".join(re.escape(c) for c in sorted(set("".join(stretches))))
    lengths = tuple(sorted({len(s) for s in stretches}))
    return _Forms(
        frozenset(stretches),
        frozenset(encoded),
        lengths,
        re.compile(f"[{alphabet}]{{{min(lengths)},}}"),
    )


def _spans(text: str, forms: _Forms) -> list[tuple[int, int]]:
    """Where ``text`` holds a stretch of ``forms`` (start, end). Fast when it holds none
    (the usual case, a whole response with its log-probabilities): the distinct runs of the
    forms' characters are checked once each; only a stretch found is searched for."""
    found = {
        window
        for run in set(forms.runs.findall(text))
        for length in forms.lengths
        for window in _windows(run, length)
    } & forms.stretches
    spans = []
    for stretch in found:
        position = text.find(stretch)
        while position >= 0:
            low, high = position, position + len(stretch)
            if stretch in forms.encoded:  # its edge characters mix key bits with others
                while low > 0 and text[low - 1] in BASE64_RUN:
                    low -= 1
                while high < len(text) and text[high] in BASE64_RUN:
                    high += 1
            spans.append((low, high))
            position = text.find(stretch, position + 1)
    return spans


#: An escape that writes one character another way (module docstring).
_ESCAPE = re.compile(
    r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[\\/\"'bfnrt]|%[0-9a-fA-F]{2}"
    r"|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|&(?:amp|lt|gt|quot|apos);"
)
_NAMED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "amp": "&", "lt": "<",
          "gt": ">", "quot": '"', "apos": "'"}  # fmt: skip


def _character(match: re.Match[str]) -> str:
    """The one character an escape stands for (U+FFFD for a number beyond Unicode)."""
    escape = match.group()
    if escape[0] == "&":
        if escape[1] != "#":
            return _NAMED[escape[1:-1]]
        number = int(escape[3:-1], 16) if escape[2] in "xX" else int(escape[2:-1])
    elif escape[0] == "%" or escape[1] in "ux":
        number = int(escape[1:] if escape[0] == "%" else escape[2:], 16)
    else:
        return _NAMED.get(escape[1], escape[1])
    return chr(number) if number <= 0x10FFFF else "\ufffd"


def _origins(layer: str) -> tuple[list[int], list[int]]:
    """For each character of ``layer`` with its escapes decoded, where it stood in
    ``layer``: its start and end (an escape's characters map to the whole escape)."""
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for match in _ESCAPE.finditer(layer):
        starts += range(position, match.start())
        ends += range(position + 1, match.start() + 1)
        starts.append(match.start())
        ends.append(match.end())
        position = match.end()
    starts += range(position, len(layer))
    ends += range(position + 1, len(layer) + 1)
    return starts, ends


def _decoded_spans(text: str, forms: _Forms) -> list[tuple[int, int]]:
    """Where ``text`` holds a stretch of ``forms`` once its escapes are decoded, up to
    :data:`DECODE_DEPTH` times over, as spans of ``text`` covering whole escapes."""
    layers = [text]
    spans: list[tuple[int, int]] = []
    while len(layers) <= DECODE_DEPTH and _ESCAPE.search(layers[-1]):
        layers.append(_ESCAPE.sub(_character, layers[-1]))
        found = _spans(layers[-1], forms)
        if not found:
            continue
        maps = [_origins(layer) for layer in layers[:-1]]
        for low, high in found:
            for starts, ends in reversed(maps):  # down to the text as received
                low, high = starts[low], ends[high - 1]
            spans.append((low, high))
    return spans


def _escapes(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s escapes are (start, end), in order; found from their first character
    with ``str.find``, which skips a long text far faster than a regular expression."""
    found = []
    for mark in "\\%&":
        position = text.find(mark)
        while position >= 0:
            match = _ESCAPE.match(text, position)
            end = match.end() if match else position + 1
            if match:
                found.append((position, end))
            position = text.find(mark, end)
    return sorted(found)


def _escaped_spans(text: str, forms: _Forms) -> list[tuple[int, int]]:
    """Where ``text`` holds a stretch of ``forms`` behind escapes (:func:`_decoded_spans`),
    searched only around its escapes: a stretch behind escapes holds one, and reaches less
    than a stretch's length of plain characters beyond the escapes it holds."""
    margin = forms.lengths[-1]
    spans: list[tuple[int, int]] = []
    clusters: list[list[int]] = []  # escapes fewer than a stretch's length apart
    for start, end in _escapes(text):
        if clusters and start - clusters[-1][1] < margin:
            clusters[-1][1] = end
        else:
            clusters.append([start, end])
    for low, high in clusters:
        first, last = max(0, low - margin), min(len(text), high + margin)
        spans += [(first + a, first + b) for a, b in _decoded_spans(text[first:last], forms)]
    return spans


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` and every stretch of :data:`MIN_FRAGMENT` or more of its
    characters replaced by ``***``, also where the text writes them behind escapes, in
    hexadecimal or in base64 (see the module docstring; a shorter ``secret`` is not
    redacted)."""
    if not secret or len(secret) < MIN_FRAGMENT or not text:
        return text
    forms = _forms(secret)
    marked = _spans(text, forms) + _escaped_spans(text, forms)
    if not marked:
        return text
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


def redact_tokens(answer: dict[str, Any], secret: str | None) -> bool:
    """Mask, in each choice's log-probabilities of ``answer`` (a parsed completion,
    :func:`geval_repro.runner.answers.read_completion`), the generated tokens that together
    spell a stretch of ``secret`` as :func:`redact` finds it: each token is shorter than a
    stretch, so no text holds one. A masked position's token and its candidates' become
    ``***``, their ``bytes`` null. Whether anything was masked."""
    if not secret or len(secret) < MIN_FRAGMENT:
        return False
    forms = _forms(secret)
    masked = False
    for choice in answer["choices"]:
        content = (choice.get("logprobs") or {}).get("content") or []
        spelled = "".join(entry["token"] for entry in content)
        spans = _spans(spelled, forms) + _escaped_spans(spelled, forms)
        end = 0
        for entry in content:
            start, end = end, end + len(entry["token"])
            if any(low < end and start < high for low, high in spans):
                for each in (entry, *(entry.get("top_logprobs") or [])):
                    each["token"] = MASK
                    if "bytes" in each:
                        each["bytes"] = None
                masked = True
    return masked
