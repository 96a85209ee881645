"""The response cache: one SQLite file (standard library) of raw responses, keyed by request.

Key = SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of
``{"server": <base URL host>, "body": <request body>, "item": <benchmark and item keys>}``:
the model, the messages and every parameter are in the body, and the server is the base
URL's host, port and path (never any credential). The item is part of the key so that items
with the same text are sampled independently, as in the paper, instead of sharing one set
of replies (in SummEval, 99 items share their summary with another system of the same
document: 54 more requests than distinct prompts). The stored answer is the response text
exactly as received.

Each answer is committed on its own as soon as it arrives, so a killed run loses no answer it
received, and a rerun sends only the requests without an answer. On a local file system the
journal is a write-ahead log (WAL, ``synchronous=NORMAL``: a committed answer survives the
process being killed; only a power cut may lose the last ones). On a file system that several
hosts mount (:data:`SHARED_FILE_SYSTEMS`: NFS, Lustre, GPFS, BeeGFS, CephFS, ...; where a
cluster's compute nodes and the node that submits their jobs find the cache) it is a rollback
journal (``journal_mode=DELETE``, ``synchronous=FULL``: each commit is on the file server
when it returns, so a node that fails loses no committed answer): WAL keeps its index in
memory shared by every process that opens the database, which processes on two hosts cannot
share, and SQLite does not support WAL over a network file system. A cache found there in
WAL mode (made by an earlier version, or copied from a local disk) is converted when it is
opened (the run holds its folder's lock, which keeps every other run out). The file system's
type is read from the mount table (``/proc/self/mounts``).

A request that failed (HTTP error after the retries, timeout, a body that is not a readable
completion) is stored in ``failures`` with its reason and reported per item; it is retried
by the next run, and its failure row is deleted once an answer arrives. ``meta`` keeps what
a rerun needs to rebuild its request bodies without asking the server again (the rating
tokens' ids of a first-position reading), and which servers the stored answers came from (a
rerun that sends nothing still names them in its manifest).

**Faults.** A cache SQLite cannot read (a truncated or overwritten file, an empty one)
raises :class:`CacheDamaged`, naming the file and the command that sets it aside; a
symbolic link in place of the database or its journals is refused
(:class:`geval_repro.runner.lock.SymlinkRefused`: the folder may not be the runner's
alone); a write that fails for lack of space raises :class:`DiskFull`; each is one line on
the console, never a traceback. A stored answer that is not a readable completion (a row
damaged in place, or an answer an earlier version cached without today's checks,
:mod:`geval_repro.runner.answers`) is skipped by
:class:`geval_repro.runner.dispatch.ReplyChain` and requested again; its key is counted in
:attr:`ResponseCache.unreadable`. A ``meta`` value that is not JSON reads as absent (it is
rebuilt).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import re
import sqlite3
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from geval_repro.runner.lock import SymlinkRefused, open_no_follow
from geval_repro.runner.urls import check_base_url

CACHE_FILE = "responses.sqlite"
#: The files SQLite keeps beside the database (WAL and its index, a rollback journal).
JOURNALS = ("-wal", "-shm", "-journal")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL, received TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS failures (
    key TEXT PRIMARY KEY, request TEXT NOT NULL, error TEXT NOT NULL, raw TEXT,
    received TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


#: File system types (``/proc/self/mounts``) that several hosts mount: a cache on one keeps a
#: rollback journal instead of WAL (module docstring).
SHARED_FILE_SYSTEMS = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "lustre", "gpfs", "beegfs",
        "ceph", "fuse.ceph-fuse", "glusterfs", "fuse.glusterfs", "gfs2", "ocfs2", "panfs",
        "pvfs2", "orangefs", "wekafs", "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse",
        "fuse.juicefs",
    }
)  # fmt: skip
MOUNTS = Path("/proc/self/mounts")

T = TypeVar("T")
#: OS errors that mean "no space to write" (a full disk, a quota, a file size limit).
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class CacheDamaged(ValueError):
    """The cache file cannot be read as SQLite (the message names it and the fix)."""


class DiskFull(OSError):
    """A file could not be written for lack of space (the message names it and the fix)."""


def no_space(path: Path | str, error: BaseException) -> DiskFull:
    """The :class:`DiskFull` error of a failed write of ``path``."""
    return DiskFull(
        errno.ENOSPC,
        f"cannot write {path}: no space left ({error}). Fix: free space, or give --out and "
        "--cache on another disk, then rerun: every answer stored so far is kept",
    )


def _database_error(path: Path, error: sqlite3.Error) -> Exception:
    """The one-line error of a failed SQLite operation on the cache ``path``."""
    name = getattr(error, "sqlite_errorname", "")
    if name.startswith("SQLITE_FULL") or "disk is full" in str(error):
        return no_space(path, error)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in str(error):
        folder = path.parent
        return CacheDamaged(
            f"{path}: the response cache is damaged ({error}). Fix: set it aside with "
            f"`mv {folder} {folder}.damaged`, then rerun: the answers are requested again"
        )
    return CacheDamaged(
        f"{path}: the response cache cannot be used ({error}). Fix: check the file and its "
        f"folder's permissions, or set it aside with `mv {path.parent} {path.parent}.damaged`"
    )


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """``method`` of :class:`ResponseCache` with SQLite errors as :func:`_database_error`."""

    @functools.wraps(method)
    def guarded(self: ResponseCache, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise _database_error(self.path, error) from None

    return guarded


def server_name(base_url: str) -> str:
    """``host[:port]/path`` of a base URL, without scheme; raises ``ValueError`` for a URL
    :func:`geval_repro.runner.urls.check_base_url` refuses."""
    parsed = check_base_url(base_url)
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.hostname}{port}{parsed.path.rstrip('/')}"


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 characters kept: the same value gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(server: str, body: dict[str, Any], item: dict[str, Any] | None = None) -> str:
    """SHA-256 (hex) of the canonical JSON of the server, the full body and the item if given."""
    record = {"server": server, "body": body}
    if item is not None:
        record["item"] = item
    text = canonical_json(record)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_system(folder: Path, mounts: Path | None = None) -> str | None:
    """The type of the file system ``folder`` is on (the mount table ``mounts``, default
    :data:`MOUNTS`: the entry with the longest mount point that holds it; the last of equal
    ones), or None without a mount table."""
    path = folder.resolve()
    try:
        table = (mounts or MOUNTS).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found, depth = None, -1
    for line in table:
        fields = line.split()
        if len(fields) < 3:
            continue
        # spaces, tabs and backslashes in a mount point are written as octal escapes
        point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
        if (point == path or point in path.parents) and len(point.parts) >= depth:
            found, depth = fields[2], len(point.parts)
    return found


def journal_mode(folder: Path) -> str:
    """SQLite's journal for a cache in ``folder``: ``DELETE`` (a rollback journal) on a file
    system several hosts mount, else ``WAL`` (module docstring)."""
    return "DELETE" if file_system(folder) in SHARED_FILE_SYSTEMS else "WAL"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResponseCache:
    """Stored responses and failures of one cache folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / CACHE_FILE
        self.unreadable: set[str] = set()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            if error.errno in NO_SPACE:
                raise no_space(folder, error) from None
            raise
        identity, created = self._claim()
        try:
            try:
                self._db = sqlite3.connect(self.path, isolation_level=None)  # autocommit
            except sqlite3.Error as error:
                raise _database_error(self.path, error) from None
            try:
                status = os.lstat(self.path)  # what SQLite opened is what was checked
                if (status.st_dev, status.st_ino) != identity or stat.S_ISLNK(status.st_mode):
                    raise SymlinkRefused(f"{self.path} was replaced while it was opened: rerun")
                self._open()
            except BaseException:
                self._db.close()
                raise
        except BaseException:
            if created:  # nothing written yet: no empty file left to pass for a damaged cache
                self.path.unlink(missing_ok=True)
            raise

    def _claim(self) -> tuple[tuple[int, int], bool]:
        """The database file's device and inode, and whether it was made now (missing, it
        is made without following a link). A link in place of it or of its journals is
        refused, and so is an existing file that is not a plain one; an empty one is
        damaged. An existing file is only looked at (``lstat``), never opened here: closing
        a descriptor of a file drops the locks SQLite holds on it in this process."""
        for name in (CACHE_FILE, *(CACHE_FILE + suffix for suffix in JOURNALS)):
            if (self.path.parent / name).is_symlink():
                raise SymlinkRefused.at(self.path.parent / name)
        try:
            handle = open_no_follow(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            status = os.lstat(self.path)
            if not stat.S_ISREG(status.st_mode):
                raise SymlinkRefused.at(self.path, "not a regular file") from None
            if status.st_nlink > 1:
                raise SymlinkRefused.at(self.path, "a hard link") from None
            if status.st_size == 0:
                folder = self.path.parent
                raise CacheDamaged(
                    f"{self.path}: the response cache is empty (0 bytes: cut short, e.g. by a "
                    f"copy that failed or a full disk). Fix: set it aside with `mv {folder} "
                    f"{folder}.damaged`, then rerun: the answers are requested again"
                ) from None
            return (status.st_dev, status.st_ino), False
        status = os.fstat(handle)
        os.close(handle)  # new: no connection of this process has it open
        return (status.st_dev, status.st_ino), True

    @_guarded
    def _open(self) -> None:
        wanted = journal_mode(self.path.parent)
        (mode,) = self._db.execute(f"PRAGMA journal_mode={wanted}").fetchone()
        if mode.upper() != wanted:
            raise CacheDamaged(
                f"{self.path}: the response cache stays in journal mode {mode}, not {wanted} "
                "(another process has it open?). Fix: stop that process, then rerun"
            )
        # durable when the process dies (WAL), and when the host does (a rollback journal)
        self._db.execute(f"PRAGMA synchronous={'NORMAL' if wanted == 'WAL' else 'FULL'}")
        self._db.executescript(_SCHEMA)
        self._db.execute("SELECT count(*) FROM responses").fetchone()  # readable at all?

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    @_guarded
    def answered(self, keys: list[str]) -> set[str]:
        """The keys among ``keys`` that have a stored answer."""
        found: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key FROM responses WHERE key IN ({marks})", chunk)
            found.update(row[0] for row in rows)
        return found

    @_guarded
    def store(self, key: str, body: dict[str, Any], response: str) -> None:
        """Store an answer (committed at once) and forget an earlier failure of the key."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                (key, canonical_json(body), response, _now()),
            )
            self._db.execute("DELETE FROM failures WHERE key = ?", (key,))

    @_guarded
    def store_failure(
        self, key: str, body: dict[str, Any], error: str, raw: str | None = None
    ) -> None:
        """Record that the request of ``key`` failed, with the reason and any raw body."""
        self._db.execute(
            "INSERT OR REPLACE INTO failures VALUES (?, ?, ?, ?, ?)",
            (key, canonical_json(body), error, raw, _now()),
        )

    @_guarded
    def response(self, key: str) -> str | None:
        """The stored answer of ``key``, or None."""
        row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @_guarded
    def received_range(self, keys: list[str]) -> tuple[str, str] | None:
        """When the answers of ``keys`` arrived: (first, last) UTC timestamps, or None."""
        first = last = None
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            low, high = self._db.execute(
                f"SELECT MIN(received), MAX(received) FROM responses WHERE key IN ({marks})", chunk
            ).fetchone()
            if low is not None:
                first = low if first is None else min(first, low)
                last = high if last is None else max(last, high)
        return None if first is None else (first, last)

    @_guarded
    def meta(self, key: str) -> Any:
        """The JSON value stored under ``key`` in ``meta``, or None (also for a value that
        is not JSON: it is rebuilt)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        try:
            return None if row is None else json.loads(row[0])
        except (TypeError, ValueError):
            return None

    @_guarded
    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under ``key`` in ``meta`` (committed at once)."""
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, canonical_json(value)))

    @_guarded
    def failure(self, key: str) -> str | None:
        """The recorded failure reason of ``key``, or None."""
        row = self._db.execute("SELECT error FROM failures WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]
