"""A server's base URL, checked before anything is sent or recorded.

:func:`check_base_url` accepts ``http://`` and ``https://`` URLs with a host, a port in
1-65535 when one is given, and no user name or password: a credential in a URL would
travel with every request and end up in logs and error messages, so a key goes in the
``Authorization`` header only, named by ``--api-key-env``
(:mod:`geval_repro.runner.keys`). Each refusal is one line naming the URL (its credential
masked) and the fix. :func:`is_loopback` tells a host on this machine.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import SplitResult, urlsplit

SCHEMES = ("http", "https")
EXAMPLE = "http://localhost:8000/v1"


def _shown(url: str, parts: SplitResult) -> str:
    """``url`` as a message shows it: a user name or password replaced by ``***``."""
    if "@" not in parts.netloc:
        return url
    return url.replace(parts.netloc, "***@" + parts.netloc.rpartition("@")[2], 1)


def check_base_url(url: str) -> SplitResult:
    """The parts of ``url``; raises ``ValueError`` naming it and the fix when it is not
    ``http(s)://host[:port][/path]`` (module docstring)."""
    parts = urlsplit(url)
    shown = _shown(url, parts)
    if not parts.hostname:
        raise ValueError(f"base URL {shown!r} has no host: give e.g. {EXAMPLE}")
    if parts.scheme.lower() not in SCHEMES:
        raise ValueError(
            f"base URL {shown}: the scheme is not http:// or https://. Fix: e.g. {EXAMPLE}"
        )
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            f"base URL {shown} holds a user name or password (user:password@): refused, "
            "nothing was sent (it would travel with every request and be written in logs). "
            "Fix: drop it from the URL, and name the variable holding the key with "
            "--api-key-env VAR (api_key_env: VAR in a run: block)"
        )
    try:
        port = parts.port
    except ValueError:  # not a number, or beyond 65535
        port = 0
    if port == 0:
        given = parts.netloc.rpartition(":")[2]
        raise ValueError(
            f"base URL {shown}: port {given!r} is not a port (1-65535): nothing was sent. "
            "Fix: the port the server listens on, e.g. http://127.0.0.1:8000/v1"
        )
    return parts


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a URL's host name, without brackets) is this machine's loopback:
    ``localhost`` (and names under ``.localhost``), 127.0.0.0/8, ``::1``."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
