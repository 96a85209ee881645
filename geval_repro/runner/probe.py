"""What a server supports, asked before a run sends anything (``geval-repro probe``).

:func:`preflight` runs first and sends nothing: every base URL must be one
(:func:`geval_repro.runner.urls.check_base_url`: http or https, a host, a port in range, no
credential), then it decides which key each server gets (:mod:`geval_repro.runner.keys`: a
hosted API without a key named for it is refused, since the request would carry no
credential or someone else's, and so is a key over plain HTTP to another machine;
:func:`is_local`: loopback and private addresses, ``localhost``, single-label and
``.local``/``.internal``/``.lan`` names count as local), then every base URL's host must
resolve (else the run stops at once, as fetches do).

:func:`probe` then sends a few small requests (one short prompt, ``max_tokens`` 2):

1. ``GET <base>/models``: the model ids served, the server's software when it tells it
   (llama-cpp-python's ``owned_by: me``, llama.cpp's ``owned_by: llamacpp`` with its slots
   from ``GET /props``: what an automatic ``--concurrency`` follows) and, when the server
   tells it, the context length (vLLM's ``max_model_len``; llama.cpp's ``GET /props``). A
   server that cannot be reached here (refused, host unknown, no answer within ``timeout``)
   stops the run at once (:class:`ServerUnreachable`), naming the address;
2. one request with ``n`` = 3 at the run's temperature and ``top_p`` and a fixed ``seed``
   (with ``logprobs`` and ``top_logprobs`` = K when asked): how many choices come back,
   whether each carries log-probabilities and how many candidates the first position lists
   (llama-cpp-python lists K + 1 when the sampled token is not among the top K). An HTTP
   400 that refuses one of its fields (a reasoning model's "Unsupported parameter:
   'max_tokens' ... Use 'max_completion_tokens' instead", "'temperature' does not support
   0.7 with this model") is learned and the request sent again as the server accepts it
   (:mod:`geval_repro.runner.fields`, the result's ``fields``). A reply cut off at the two
   tokens with no content (``finish_reason: length``), or usage counting reasoning tokens,
   marks a reasoning model: one more request, a full reply at the run's budget, measures
   its tokens;
3. the same request again with ``n`` = 1: whether the same seed gives the same first reply
   (a server that honours ``seed``; unknown when no seed is sent or no text came back).

The runner acts on the answer (:mod:`geval_repro.runner.run`): no log-probabilities when a
mode needs them stops the run naming the server and suggesting ``--mode sample``; a
refused ``top_logprobs`` stops it with the server's message; HTTP 404 for the completion
request stops it with a hint (a base URL without ``/v1``); fewer candidates than K or
fewer choices than ``n`` are warnings (the replies are topped up, see
:mod:`geval_repro.runner.requests`), and so are more choices than asked (a run keeps the
first ones asked for), all recorded in the manifest.
"""

from __future__ import annotations

import ipaddress
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import urlparse

from geval_repro.runner.cache import server_name
from geval_repro.runner.fields import (
    ADAPTABLE,
    ServerFields,
    cut_off_while_thinking,
    reasoning_tokens,
    refused_field,
)
from geval_repro.runner.keys import ServerKey, server_key
from geval_repro.runner.urls import check_base_url

PROBE_PROMPT = (
    "Rate the fluency of this sentence on a scale of 1 (worst) to 5 (best): "
    "'The cat sat on the mat.' Answer with one number."
)
PROBE_SEED = 20231206
PROBE_CHOICES = 3
#: The ``probe`` command's temperature: not 1, so it finds whether the server accepts one
#: (a reasoning model does not); a run's probe asks at the run's own temperature.
PROBE_TEMPERATURE = 0.7
LOCAL_SUFFIXES = (".local", ".internal", ".lan", ".localdomain", ".home.arpa")
#: ``owned_by`` in ``GET /models`` -> the server software it names.
SOFTWARE_OF_OWNER = {"me": "llama-cpp-python", "llamacpp": "llama.cpp"}
#: Requests in flight per server when ``--concurrency`` is not given (see :func:`concurrency_for`).
DEFAULT_CONCURRENCY = 8


class ServerUnsuitable(ValueError):
    """The server cannot do what the run asks (the message names the server and the fix)."""


class ServerUnreachable(ServerUnsuitable):
    """The server could not be reached at the probe (refused, unknown host, no answer)."""


def is_local(base_url: str) -> bool:
    """Whether ``base_url`` points at this machine or a private network (not a hosted API)."""
    host = (urlparse(base_url).hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith(LOCAL_SUFFIXES)
    return address.is_loopback or address.is_private or address.is_link_local


def preflight(
    base_urls: list[str] | tuple[str, ...], api_key_env: str | None
) -> dict[str, ServerKey]:
    """The key of each base URL (:func:`geval_repro.runner.keys.server_key`; ``api_key_env``
    None: the user named none); refuses, before anything is sent, a URL that is not a base
    URL, a hosted API without a key, a key over plain HTTP to another machine and a host
    that does not resolve (see the module docstring). Raises ``ValueError`` naming the URL
    and the fix."""
    from geval_repro.files.fetch import UnresolvableHost, check_host_resolves

    for url in base_urls:
        check_base_url(url)
    keys = {url: server_key(url, api_key_env, is_local(url)) for url in base_urls}
    for url in base_urls:
        try:
            check_host_resolves(url)
        except UnresolvableHost as error:
            raise ValueError(
                f"{url}: {error} Nothing was sent. Fix: check the --base-url and the network"
            ) from None
    return keys


@dataclass
class ProbeResult:
    """What one server answered to the probe (see the module docstring)."""

    server: str
    model: str
    models: list[str] | None = None
    context_length: int | None = None
    choices_for_n: int | None = None
    logprobs_asked: bool = False
    logprobs: bool | None = None
    top_logprobs_asked: int | None = None
    top_logprobs_returned: int | None = None
    temperature_asked: float | None = None
    seed_repeatable: bool | None = None
    software: str | None = None
    slots: int | None = None
    fields: dict[str, Any] = field(default_factory=lambda: ServerFields().as_dict())
    errors: list[str] = field(default_factory=list)

    @property
    def server_fields(self) -> ServerFields:
        """What the server accepts (:mod:`geval_repro.runner.fields`)."""
        return ServerFields.from_dict(self.fields)

    def as_dict(self) -> dict[str, Any]:
        """The result as a plain dict (for the manifest and ``--json``)."""
        return asdict(self)

    @property
    def honours_n(self) -> bool | None:
        """Whether a request for several choices gets them all (None: unknown)."""
        return None if self.choices_for_n is None else self.choices_for_n >= PROBE_CHOICES

    def lines(self) -> list[str]:
        """A human-readable summary, one finding per line."""

        def said(value: object, yes: str, no: str) -> str:
            return "unknown (the probe request failed)" if value is None else yes if value else no

        listed = f"listed {self.top_logprobs_returned} candidates at the first position"
        lines = [
            f"server {self.server}, model {self.model}",
            "  models served: "
            + (", ".join(self.models) if self.models else "not listed (GET /models failed)"),
            "  several choices (n): "
            + said(
                self.honours_n,
                f"yes ({self.choices_for_n} of {PROBE_CHOICES})",
                f"no: {self.choices_for_n} of {PROBE_CHOICES} choices returned (a run tops up "
                "with further requests, one per missing reply)",
            ),
        ]
        if self.logprobs_asked:
            lines.append(
                "  log-probabilities: "
                + said(
                    self.logprobs,
                    f"yes; asked top_logprobs {self.top_logprobs_asked}, {listed}",
                    "no: a response that asked for them has none (use --mode sample)",
                )
            )
        lines.append(
            "  seed: "
            + said(
                self.seed_repeatable,
                "honoured (the same seed gave the same reply)",
                "not honoured (the same seed gave another reply)",
            )
        )
        known = self.server_fields
        left = known.left_out({"temperature": self.temperature_asked})
        lines.append(
            "  request fields: " + ("all accepted" if not left else "; ".join(left.values()))
        )
        if self.temperature_asked is not None and self.temperature_asked != 1:
            lines.append(
                f"  temperature other than 1: asked {self.temperature_asked:g}, "
                + (
                    "refused (the server samples at 1)"
                    if "temperature" in known.refused
                    else "accepted"
                )
            )
        if known.reasoning:
            spent = (
                f"its full reply took {known.reply_tokens} completion tokens"
                + (f" ({known.reasoning_tokens} reasoning)" if known.reasoning_tokens else "")
                if known.reply_tokens is not None
                else "its full reply failed"
            )
            lines.append(
                "  reasoning: yes (it thinks before it answers): "
                f"{spent}; automatic budget {known.budget(None)} tokens per reply"
            )
        lines.append(
            "  context length: "
            + (f"{self.context_length} tokens" if self.context_length else "not told")
        )
        concurrency, why = concurrency_for(self)
        software = self.software or "not told"
        lines.append(f"  software: {software} (--concurrency {concurrency}: {why})")
        lines += [f"  error: {error}" for error in self.errors]
        return lines


def _first_position(choice: dict[str, Any]) -> dict[str, Any] | None:
    content = (choice.get("logprobs") or {}).get("content") or []
    return content[0] if content else None


def _count(value: Any) -> int | None:
    """``value`` when it is a whole number > 0 (a context length, a number of slots)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _context_length(models: Any, model: str) -> int | None:
    data = models.get("data") if isinstance(models, dict) else None
    for entry in data if isinstance(data, list) else []:
        if isinstance(entry, dict) and entry.get("id") == model:
            return _count(entry.get("max_model_len"))
    return None


async def probe(
    client: Any,
    base_url: str,
    model: str,
    *,
    logprobs: bool,
    top_logprobs: int = 20,
    name: str | None = None,
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_tokens: int | None = None,
) -> ProbeResult:
    """Ask the server behind ``client`` (a :class:`~geval_repro.runner.client.CompletionClient`
    for ``base_url``; ``name``: its name in the result, default its host, port and path) what
    it supports. Raises :class:`ServerUnreachable` when it cannot be reached and
    :class:`ServerUnsuitable` when it has no completions endpoint (HTTP 404); never raises
    for an answer it does not like. ``temperature`` and ``top_p`` are the run's (a reasoning
    model refuses any temperature but 1), ``max_tokens`` its budget (None: automatic); an
    HTTP 400 that refuses a field is learned and the request asked again without it
    (:mod:`geval_repro.runner.fields`); a reasoning model gets one more request, a full
    reply at the run's budget, whose tokens the dry run's estimate uses."""
    import json

    from geval_repro.runner.client import UNREACHABLE

    result = ProbeResult(
        name or server_name(base_url), model, logprobs_asked=logprobs, temperature_asked=temperature
    )
    models, listed = await client.request_json("GET", "/models")
    if listed.kind in UNREACHABLE or listed.kind == "timeout":
        raise ServerUnreachable(_unreachable(base_url, listed.error))
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        entries = [m for m in models["data"] if isinstance(m, dict)]
        result.models = [str(m.get("id")) for m in entries]
        owners = [SOFTWARE_OF_OWNER.get(str(m.get("owned_by"))) for m in entries]
        result.software = next((o for o in owners if o), None)
    result.context_length = _context_length(models, model)
    if result.context_length is None or result.software == "llama.cpp":
        parsed = urlparse(base_url)
        props = await client.get_json(f"{parsed.scheme}://{parsed.netloc}/props")
        props = props if isinstance(props, dict) else {}
        settings = props.get("default_generation_settings")
        if result.context_length is None and isinstance(settings, dict):
            result.context_length = _count(settings.get("n_ctx"))
        result.slots = _count(props.get("total_slots"))
    base: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": PROBE_PROMPT}],
        "n": PROBE_CHOICES,
        "temperature": temperature,
        "top_p": top_p,
        "max_tokens": 2,
        "seed": PROBE_SEED,
    }
    if logprobs:
        base.update(logprobs=True, top_logprobs=top_logprobs)
        result.top_logprobs_asked = top_logprobs
    fields = ServerFields()
    for _ in ADAPTABLE:  # each refusal names one field: learn it and ask again
        first = await client.send(fields.apply(base))
        if first.kind in UNREACHABLE:
            raise ServerUnreachable(_unreachable(base_url, first.error))
        if first.status == 404:
            raise ServerUnsuitable(_not_found(base_url, first.error))
        refused = None if first.ok else refused_field(first.error)
        if refused is None or refused in fields.refused:
            break
        fields = fields.refusing(refused, _server_message(first.error))
    result.fields = fields.as_dict()
    if not first.ok:
        result.errors.append(f"request with n {PROBE_CHOICES}: {first.error}")
        return result
    response = json.loads(first.text)
    choices = response["choices"]
    result.choices_for_n = len(choices)  # 1 when n is refused (the fields say why)
    if {"logprobs", "top_logprobs"} & set(fields.refused):
        logprobs, result.logprobs = False, False  # a mode that needs them stops (check_probe)
    if logprobs:
        positions = [_first_position(c) for c in choices]
        result.logprobs = all(p is not None for p in positions)
        if result.logprobs:
            result.top_logprobs_returned = len(positions[0].get("top_logprobs") or [])
    thought = reasoning_tokens(response)
    if any(cut_off_while_thinking(c) for c in choices) or (thought or 0) > 0:
        fields = await _full_reply(client, replace(fields, reasoning=True), base, max_tokens)
        result.fields = fields.as_dict()
    again = await client.send(fields.apply({**base, "n": 1}))
    if not again.ok:
        result.errors.append(f"request with n 1: {again.error}")
        return result
    repeat = json.loads(again.text)["choices"][0]
    text = (repeat.get("message") or {}).get("content")
    earlier_text = (choices[0].get("message") or {}).get("content")
    same_text = text == earlier_text
    if logprobs and result.logprobs:
        position, earlier = _first_position(repeat), _first_position(choices[0])
        same_text = same_text and (position or {}).get("logprob") == (earlier or {}).get("logprob")
    if "seed" in fields.refused or not (text or "").strip() or not (earlier_text or "").strip():
        same_text = None  # no seed sent, or nothing written to compare (a reasoning model)
    result.seed_repeatable = same_text
    return result


async def _full_reply(
    client: Any, fields: ServerFields, base: dict[str, Any], max_tokens: int | None
) -> ServerFields:
    """``fields`` with the completion tokens (and reasoning tokens) of one full reply of a
    reasoning model, asked with the run's budget (for the dry run's estimate)."""
    import json

    budget = fields.budget(max_tokens)
    full = await client.send(fields.apply({**base, "n": 1, "max_tokens": budget}))
    if not full.ok:
        return fields
    response = json.loads(full.text)
    usage = response.get("usage") or {}
    spent = usage.get("completion_tokens")
    return replace(
        fields,
        reply_tokens=spent if isinstance(spent, int) else None,
        reasoning_tokens=reasoning_tokens(response),
    )


def _server_message(error: str | None) -> str:
    """The message of an HTTP error's JSON body (``error.message``), else its text."""
    import json

    text = (error or "").split(":", 1)[-1].strip()
    try:
        message = json.loads(text)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return text
    return message if isinstance(message, str) else text


def _unreachable(base_url: str, error: str | None) -> str:
    return (
        f"{base_url} cannot be reached ({error}): nothing was sent. Fix: start the server "
        "(this toolkit's local model: `geval-repro serve`, docs/local-model.md), or correct "
        "--base-url"
    )


def _not_found(base_url: str, error: str | None) -> str:
    url = base_url.rstrip("/")
    if urlparse(url).path.endswith("/v1"):
        hint = "check --base-url: the server has no chat completions endpoint under it"
    else:
        hint = f"an OpenAI-compatible base URL usually ends in /v1: try --base-url {url}/v1"
    return f"{url}/chat/completions answered {error}: nothing was sent. Fix: {hint}"


def concurrency_for(result: ProbeResult | None) -> tuple[int, str]:
    """The requests in flight a server takes when ``--concurrency`` is not given, and why:
    1 for llama-cpp-python's server (it answers one request at a time, and in order its
    prefix cache serves the shared text), the slots of llama.cpp's ``llama-server``, else
    :data:`DEFAULT_CONCURRENCY`."""
    if result is not None and result.software == "llama-cpp-python":
        return 1, "automatic: llama-cpp-python's server answers one request at a time"
    if result is not None and result.software == "llama.cpp" and result.slots:
        return result.slots, f"automatic: llama.cpp's server has {result.slots} slot(s)"
    return DEFAULT_CONCURRENCY, "the default"


def check_probe(result: ProbeResult, *, logprobs: bool, top_logprobs: int, n: int = 1) -> list[str]:
    """Raise :class:`ServerUnsuitable` when the server cannot serve the run; the warnings."""
    refused = result.server_fields.refused
    lost = [name for name in ("logprobs", "top_logprobs") if name in refused]
    if logprobs and lost:
        raise ServerUnsuitable(
            f"{result.server} refuses {lost[0]} ({refused[lost[0]]}): this model gives no "
            "log-probabilities, so the rating distribution cannot be read. Fix: --mode sample "
            "(n replies per item, read by the reply parsers)"
        )
    if logprobs and any("logprob" in error for error in result.errors):
        raise ServerUnsuitable(
            f"{result.server} refused the probe's request with top_logprobs {top_logprobs}: "
            f"{'; '.join(result.errors)}. Fix: give a --top-logprobs the server allows, or "
            "--mode sample"
        )
    if logprobs and result.logprobs is False:
        raise ServerUnsuitable(
            f"{result.server} returned no log-probabilities to a request that asked for them "
            "(logprobs: true): it does not support them. Fix: --mode sample (n replies per "
            "item, read by the reply parsers), or a server that returns log-probabilities"
        )
    warnings = []
    if result.errors:
        warnings.append(f"{result.server}: the probe failed ({'; '.join(result.errors)})")
    if result.models and result.model not in result.models and len(result.models) <= 20:
        warnings.append(
            f"{result.server} does not list model {result.model!r} (it serves "
            f"{', '.join(result.models)})"
        )
    returned = result.top_logprobs_returned
    if logprobs and returned is not None and returned < top_logprobs:
        warnings.append(
            f"{result.server} lists {returned} candidates when asked for top_logprobs "
            f"{top_logprobs}: the off-scale mass is a looser upper bound, and a rating outside "
            "the listed candidates counts as 0"
        )
    if result.choices_for_n is not None and result.choices_for_n > PROBE_CHOICES:
        warnings.append(
            f"{result.server} returns {result.choices_for_n} choices when asked for "
            f"{PROBE_CHOICES}: the server does other than asked; a run keeps the first ones "
            "asked for of each answer and counts the others (the manifest's n_obtained)"
        )
    if result.honours_n is False and n > 1:
        warnings.append(
            f"{result.server} returns {result.choices_for_n} choice(s) when asked for "
            f"{PROBE_CHOICES}: each item's missing replies are requested one by one (top-up)"
        )
    return warnings


async def rating_token_ids(client: Any, base_url: str, model: str, ratings: tuple[int, ...]):
    """The token id of each rating, from the server's tokenizer (llama-cpp-python's
    ``/extras/tokenize`` or llama.cpp's and vLLM's ``/tokenize``); raises
    :class:`ServerUnsuitable` when the server tells none or a rating is not one token
    (:class:`ServerUnreachable` when it cannot be reached)."""
    from geval_repro.runner.client import UNREACHABLE

    parsed = urlparse(base_url)
    root = f"{parsed.scheme}://{parsed.netloc}"
    found: dict[int, list[int]] = {}
    for rating in ratings:
        tokens = None
        for url, body in (
            (f"{root}/extras/tokenize", {"input": str(rating), "model": model}),
            (f"{root}/tokenize", {"content": str(rating), "model": model, "prompt": str(rating)}),
        ):
            answer, outcome = await client.request_json("POST", url, body)
            if outcome.kind in UNREACHABLE or outcome.kind == "timeout":
                raise ServerUnreachable(_unreachable(base_url, outcome.error))
            if isinstance(answer, dict) and isinstance(answer.get("tokens"), list):
                tokens = [t for t in answer["tokens"] if isinstance(t, int)]
                break
        if tokens is None:
            raise ServerUnsuitable(
                f"{server_name(base_url)} has no tokenize endpoint, so the rating tokens' ids "
                "for the first-position reading (a logit bias) are unknown; run without it"
            )
        found[rating] = tokens
    firsts = {tokens[0] for tokens in found.values() if tokens}
    if len(firsts) == 1 and all(len(tokens) == 2 for tokens in found.values()):
        found = {rating: tokens[1:] for rating, tokens in found.items()}  # a BOS token added
    for rating, tokens in found.items():
        if len(tokens) != 1:
            raise ServerUnsuitable(
                f"{server_name(base_url)}: rating {rating} is {len(tokens)} tokens {tokens} "
                "for this model, not one; the first-position reading needs one token per rating"
            )
    return {rating: tokens[0] for rating, tokens in found.items()}
