"""Verified acquisition of upstream files: download, or read from an offline mirror.

Every file is fetched with pooch: streamed to a temporary file beside its destination,
checked against its pinned SHA-256 (and byte size, where known), and only then renamed into
place, so bad bytes never reach the final path. A mirror directory laid out like the raw-file
URLs (``<owner>/<repo>/<commit>/<path>``) replaces the network and goes through the same
verification. Pooch (a maintained library used across scientific Python) supplies the
timeout-aware HTTP downloader, retries with back-off, hash checks and the atomic rename.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import requests

from geval_repro.files.atomic import USUAL_MODE
from geval_repro.files.digest import sha256_of
from geval_repro.registry.sources import Source, get_source

MIRROR_ENV = "GEVAL_REPRO_MIRROR"
RAW_GITHUB = "raw.githubusercontent.com"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"{_LABEL}(?:\.{_LABEL})*(?::[0-9]{{1,5}})?")

logger = logging.getLogger(__name__)
MISSING = "MISSING "  # prefixes of the two log lines of a failed fetch (see fetch_failures)
FIX = "FIX "
_JUDGE_HINT = (
    "; or leave the judge out of judges_to_run (workflow/configs/mirrored_data.yaml runs "
    "everything the mirror holds)"
)


class FetchError(RuntimeError):
    """A file could not be obtained or failed verification.

    The message names the file, the URL and the fix; ``summary`` is its first part (the file
    and what went wrong), one line for a console that prints the fix once.
    """

    def __init__(self, message: str, summary: str | None = None) -> None:
        super().__init__(message)
        self.summary = summary or message


class UnresolvableHost(OSError):
    """The URL's host name does not resolve (offline, or no DNS): not worth retrying."""


def check_host_resolves(url: str) -> None:
    """Raise :class:`UnresolvableHost` at once when the host of ``url`` does not resolve.

    Skipped when a proxy is configured for the URL (the proxy resolves the name).
    """
    if requests.utils.get_environ_proxies(url):
        return
    parsed = urlparse(url)
    host = parsed.hostname or ""
    try:
        socket.getaddrinfo(host, parsed.port or (443 if parsed.scheme == "https" else 80))
    except (socket.gaierror, UnicodeError) as error:
        raise UnresolvableHost(f"host {host!r} does not resolve ({error}): offline?") from error


def check_pinned(path: str | os.PathLike[str], sha256: str, label: str) -> None:
    """Raise :class:`FetchError` unless the local file ``path`` exists and has ``sha256``."""
    if not os.path.isfile(path):
        raise FetchError(f"{label}: {path} does not exist; restore it (git checkout {path})")
    actual = sha256_of(path)
    if actual != sha256:
        raise FetchError(
            f"{label}: {path} has SHA-256 {actual}, but the config pins {sha256}. Fix: "
            "restore the committed file (git checkout), or, if you regenerated it on purpose, "
            "put its new SHA-256 in the config"
        )
    logger.info("verified %s (%s)", path, sha256[:12])


@dataclass(frozen=True)
class RemoteFile:
    """A file to fetch: its URL, pinned hash, optional size and its local relative path."""

    url: str
    sha256: str
    relpath: str
    bytes: int | None = None
    label: str = ""

    @classmethod
    def from_source(cls, source: Source) -> RemoteFile:
        """The registry entry ``source`` as a fetchable file."""
        return cls(source.url, source.sha256, source.relpath, source.bytes, source.id)

    @classmethod
    def from_url(cls, url: str, sha256: str, label: str = "") -> RemoteFile:
        """A configured ``{url, sha256}`` file; its local path is derived from the URL."""
        return cls(url, sha256, relpath_for_url(url), None, label or url)


def relpath_for_url(url: str) -> str:
    """Local relative path of a URL.

    ``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>`` maps to
    ``<owner>/<repo>/<commit>/<path>`` (the mirror layout); any other URL to
    ``<host>/<path>``. The host must be a DNS name or IPv4 address (optionally with a
    port), and no path segment may be empty, ``.`` or ``..`` or hold a backslash, so the
    local path stays inside the folder it is joined to.
    """
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or not parsed.path.strip("/"):
        raise FetchError(f"cannot fetch {url!r}: expected an http(s) URL of a file")
    if not _HOST.fullmatch(parsed.netloc):
        raise FetchError(
            f"cannot fetch {url!r}: host {parsed.netloc!r} is not a host name (letters, digits, "
            "'-' and '.'-separated labels, optional :port); fix the URL in the config"
        )
    segments = parsed.path.lstrip("/").split("/")
    bad = [s for s in segments if s in ("", ".", "..") or "\\" in s]
    if bad:
        raise FetchError(
            f"cannot fetch {url!r}: path segment {bad[0]!r} is not allowed (no empty, '.', "
            "'..' or backslash segments); fix the URL in the config"
        )
    path = "/".join(segments)
    return path if parsed.netloc == RAW_GITHUB else f"{parsed.netloc}/{path}"


def _inside(root: str | os.PathLike[str], relpath: str, what: str) -> Path:
    """``root/relpath`` (``root`` resolved, ``relpath`` normalized), refused with a
    :class:`FetchError` if it leaves ``root``. ``relpath`` is normalized lexically, not
    resolved, so a mirror whose files are symlinks (git-annex, a shared store) still works."""
    base = Path(root).resolve()
    target = Path(os.path.normpath(base / relpath))
    if not target.is_relative_to(base):
        raise FetchError(
            f"refusing {relpath!r}: it resolves to {target}, outside the {what} {base}; "
            "fix the URL or the registry path so that it stays inside"
        )
    return target


def resolve_mirror(
    configured: str | os.PathLike[str] | None, given_as: str = "the config key 'mirror'"
) -> Path | None:
    """The mirror to use: ``configured`` if set (``given_as`` names where the user gave it,
    for the message), else ``$GEVAL_REPRO_MIRROR``, else none. A folder that does not exist
    is an error naming the folder and where it was given, first."""
    given = configured not in (None, "")
    value = configured if given else os.environ.get(MIRROR_ENV) or None
    if value is None:
        return None
    mirror = Path(value).expanduser().resolve()
    if not mirror.is_dir():
        where = given_as if given else f"the environment variable {MIRROR_ENV}"
        raise FetchError(
            f"mirror directory {mirror} does not exist (given by {where}). Fix: give the "
            "folder of a mirror made with `geval-repro mirror DIR` (its MANIFEST.tsv beside "
            "the upstream files)."
        )
    return mirror


class _MirrorCopier:
    """A pooch downloader that copies ``source_path`` (a mirror file) instead of downloading."""

    def __init__(self, source_path: Path) -> None:
        self.source_path = source_path

    def __call__(self, url: str, output_file: str, _pooch: object) -> None:
        shutil.copyfile(self.source_path, output_file)


def _size_checked(downloader, remote: RemoteFile):
    """Wrap a pooch downloader so that a file of the wrong size is refused before hashing."""

    def download(url: str, output_file: str, pup: object) -> None:
        if not isinstance(downloader, _MirrorCopier):
            check_host_resolves(url)  # an OSError: pooch does not retry it
        downloader(url, output_file, pup)
        actual = os.path.getsize(output_file)
        if remote.bytes is not None and actual != remote.bytes:
            raise ValueError(
                f"{remote.label or remote.relpath}: {url} gave {actual} bytes, expected "
                f"{remote.bytes} (truncated or wrong file)"
            )

    return download


def fetch(
    remote: RemoteFile,
    raw_dir: str | os.PathLike[str],
    *,
    mirror: Path | None = None,
    timeout: float = 60.0,
    retries: int = 3,
    progressbar: bool = True,
) -> Path:
    """Fetch ``remote`` into ``raw_dir/<relpath>``, verified, and return the final path.

    With a mirror, ``mirror/<relpath>`` is copied if it exists (no network); a file missing
    from the mirror is downloaded from its URL. A file already in place with the right hash
    is kept. A relative path that would leave ``raw_dir`` or the mirror is refused, and the
    file placed gets the usual mode (0666 less the umask), not pooch's 0600. Any failure
    raises :class:`FetchError` naming the file, the URL and the fix.
    """
    import pooch  # here, not at module level: parsing the workflow needs none of it

    raw_root = Path(raw_dir).resolve()
    _inside(raw_root, remote.relpath, "raw folder")
    mirrored = _inside(mirror, remote.relpath, "mirror") if mirror is not None else None
    if mirrored is not None and mirrored.is_file():
        inner = _MirrorCopier(mirrored)
        origin = f"mirror file {mirrored}"
        retries = 0  # a local copy gives the same bytes every time
    else:
        inner = pooch.HTTPDownloader(progressbar=progressbar, timeout=timeout)
        origin = remote.url
    pup = pooch.create(
        path=raw_root,
        base_url="",
        registry={remote.relpath: f"sha256:{remote.sha256}"},
        urls={remote.relpath: remote.url},
        retry_if_failed=retries,
    )
    pooch_logger = pooch.get_logger()
    level = pooch_logger.level
    if mirrored is not None and mirrored.is_file():
        pooch_logger.setLevel(logging.WARNING)  # its "Downloading ..." line would mislead
    try:
        path = Path(pup.fetch(remote.relpath, downloader=_size_checked(inner, remote)))
    except ValueError as error:
        reason = f"failed verification ({origin}): {error}"
        fix = "The bad bytes were discarded; check the source or the mirror copy."
        _log_failure(remote, reason, fix)
        summary = f"{remote.label or remote.relpath} {reason}"
        raise FetchError(f"{summary}. {fix}", summary) from error
    except (requests.exceptions.RequestException, OSError) as error:
        hint = (
            f"not in the mirror {mirror} either" if mirror is not None else "no mirror configured"
        )
        reason = f"could not download from {remote.url} ({type(error).__name__}: {error}); {hint}"
        fix = (
            f"To provide it offline, place the file at <mirror>/{remote.relpath} (make a mirror "
            f"on a networked machine with `geval-repro mirror DIR`) and set the config key "
            f"'mirror' or {MIRROR_ENV}{_JUDGE_HINT if remote.label.startswith('judge ') else ''}"
        )
        _log_failure(remote, reason, fix.replace(remote.relpath, "<path>"))
        summary = f"{remote.label or remote.relpath}: {reason}"
        raise FetchError(f"{summary}. {fix}", summary) from error
    finally:
        pooch_logger.setLevel(level)
    os.chmod(path, USUAL_MODE)  # pooch's temporary file is 0600; give the usual mode
    logger.info("verified %s (%s) from %s", remote.relpath, remote.sha256[:12], origin)
    return path


def _log_failure(remote: RemoteFile, reason: str, fix: str) -> None:
    """Log a failed fetch as two lines that :func:`fetch_failures` reads back."""
    logger.error("%s%s: %s", MISSING, remote.label or remote.relpath, reason)
    logger.error("%s%s", FIX, fix)


def fetch_failures(
    log_dir: str | os.PathLike[str],
    raw_dir: str | os.PathLike[str],
    *,
    since: float | None = None,
    relpaths: Collection[str] | None = None,
) -> tuple[list[str], list[str]]:
    """The missing files (one line each) and the distinct fixes in the fetch logs
    ``log_dir/<relpath>.log`` (as written by :func:`fetch` inside a job log) of the files not
    in ``raw_dir/<relpath>`` (a log of an earlier failure of a file now present is stale).

    ``since``: read only the logs modified at or after this time (``st_mtime``: the logs of
    one run); ``relpaths``: only the logs of these files (the ones a config fetches)."""
    missing: list[str] = []
    fixes: list[str] = []
    for path in sorted(Path(log_dir).rglob("*.log")):
        relpath = path.relative_to(log_dir).as_posix().removesuffix(".log")
        if (Path(raw_dir) / relpath).is_file():
            continue
        if relpaths is not None and relpath not in relpaths:
            continue
        if since is not None and path.stat().st_mtime < since:
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if MISSING in line:
                missing.append(line.split(MISSING, 1)[1])
            elif FIX in line and (fix := line.split(FIX, 1)[1]) not in fixes:
                fixes.append(fix)
    return missing, fixes


def fetch_source(source_id: str, raw_dir: str | os.PathLike[str], **kwargs: object) -> Path:
    """Fetch the registry entry ``source_id`` (see :func:`fetch` for the options)."""
    return fetch(RemoteFile.from_source(get_source(source_id)), raw_dir, **kwargs)
