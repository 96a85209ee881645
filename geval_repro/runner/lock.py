"""One run at a time per output folder: an exclusive lock on ``<folder>/.geval-repro.lock``.

A judge run reads the folder's ``manifest.json``, adds its dimension's entry and writes it
back, and sends what its cache lacks: two runs into one ``--out`` (or one ``--cache``) would
lose each other's manifest entries and send the same requests twice. So a run holds the
lock of its output folder and of its cache folder from before it plans until it has
written; a second run stops at once (:class:`FolderInUse`, nothing sent) with a message
naming the first (its process id, host, start time and command line, which the holder
writes into the lock file).

The lock is ``fcntl.flock`` on the file: the kernel releases it when the holder ends, also
by ``kill -9``, so a lock is never left behind. The holder removes the file when it is done
(and the folders the lock made, when they are still empty: a run refused before it wrote
anything leaves no folder); a process that took the lock of a file removed meanwhile tries
again with the new one. A process may take the lock of a folder it already holds (nested:
the command around all dimensions, then each dimension's run).

The output and cache folders are not the runner's alone (a user, another tool, a shared
cluster folder), so every file the runner makes in them is opened with
:func:`open_no_follow`: a symbolic link there (or a file with other hard links, or no
regular file) is refused (:class:`SymlinkRefused`, naming it and the fix) instead of being
written through, which would empty and overwrite what it points to. The lock file is the
first; the cache's database (:mod:`geval_repro.runner.cache`) and a local server's log
(:mod:`geval_repro.runner.server`) are opened the same way, and the outputs are written to
a new temporary file renamed over the target (a rename replaces a link, it does not
follow it).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

LOCK_FILE = ".geval-repro.lock"

_held: dict[Path, int] = {}  # folder -> depth of this process's nested holds


class FolderInUse(ValueError):
    """Another run holds the folder (the message names it and what to do)."""


class SymlinkRefused(ValueError):
    """A file the runner would make is a symbolic link, or is not a plain file of its own
    (the message names it and the fix)."""

    @classmethod
    def at(cls, path: Path, what: str = "a symbolic link") -> SymlinkRefused:
        """The error for ``path``, which is ``what``."""
        return cls(
            f"{path} is {what}: the runner does not write through it (that would overwrite "
            f"what it points to). Nothing was sent. Fix: remove it (rm {path}), then rerun"
        )


def open_no_follow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags)`` that refuses a symbolic link at ``path`` (``O_NOFOLLOW``),
    a file with other hard links and anything but a regular file
    (:class:`SymlinkRefused`); a file descriptor."""
    try:
        handle = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EMLINK):  # Linux and macOS / FreeBSD
            raise SymlinkRefused.at(path) from None
        raise
    status = os.fstat(handle)
    if not stat.S_ISREG(status.st_mode) or status.st_nlink > 1:
        os.close(handle)
        what = "not a regular file" if not stat.S_ISREG(status.st_mode) else "a hard link"
        raise SymlinkRefused.at(path, what)
    return handle


def _holder(path: Path) -> str:
    """Who holds the lock, as its file says."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        return (
            f"process {record['pid']} on {record['host']}, started {record['started']}: "
            f"{record['command']}"
        )
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet said who it is"


def _take(path: Path) -> int:
    """Open and lock ``path`` (a file descriptor), or raise :class:`FolderInUse`."""
    while True:
        try:
            handle = open_no_follow(path, os.O_RDWR | os.O_CREAT)
        except FileNotFoundError:  # its holder removed the folder it had made: remake it
            path.parent.mkdir(parents=True, exist_ok=True)
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            raise FolderInUse(
                f"{path.parent} is in use by another run ({_holder(path)}). Nothing was sent. "
                "Fix: wait for it to finish, then rerun (its answers are cached), or give "
                "another --out (and --cache)"
            ) from None
        try:
            same = os.fstat(handle).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return handle
        os.close(handle)  # the holder removed the file before we locked it: once more


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the lock of ``folder`` (created if missing) for the block (module docstring)."""
    key = folder.resolve()
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    made = [f for f in (key, *key.parents) if not f.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    try:
        handle = _take(path)
    except ValueError:  # in use, or a link where the lock file goes
        _remove_empty(made)
        raise
    _held[key] = 1
    try:
        record = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join(sys.argv),
        }
        os.ftruncate(handle, 0)
        os.write(handle, json.dumps(record).encode("utf-8"))
        yield
    finally:
        del _held[key]
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(handle)  # releases the lock
        _remove_empty(made)


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) while they are empty."""
    for made in folders:
        try:
            made.rmdir()
        except OSError:
            return


@contextlib.contextmanager
def run_locks(*folders: Path) -> Iterator[None]:
    """Hold the locks of ``folders`` (the same folder once), in the order given."""
    with contextlib.ExitStack() as stack:
        for folder in dict.fromkeys(f.resolve() for f in folders):
            stack.enter_context(folder_lock(folder))
        yield
