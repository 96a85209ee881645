"""Stopping a run when asked: SIGINT (Ctrl-C) or SIGTERM, within about two seconds.

:func:`stop_on_signals` (used by ``geval-repro judge`` and
:func:`geval_repro.runner.configured.run_configured_judge` in the main thread of a process)
makes both signals raise :class:`Interrupted` wherever the run is: planning, probing,
sending (the event loop is left, the requests in flight are cancelled and their connections
closed), or starting a local server. The usual ``finally`` blocks then do the rest: every
answer received so far is already in the cache (each is committed as it arrives), the
output files are written atomically (so a stop leaves the previous file or none, never a
partial one), a managed local server is stopped, the output folder's lock is released.
:class:`Interrupted` is a ``SystemExit`` with status 128 + the signal's number (130 for
SIGINT, 143 for SIGTERM): a process that does not catch it exits with that status and no
traceback. A second signal while the run stops is ignored (the stop is under way).

In another thread (Snakemake's ``run:`` jobs) signals cannot be handled: nothing changes.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(SystemExit):
    """The run was stopped by a signal; ``code`` is 128 + its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        """``SIGINT`` or ``SIGTERM``."""
        return signal.Signals(self.signum).name


class _StopNotLoggedAsError(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" record of a task that ended with
    :class:`Interrupted` (the signal landed while that task ran): that is the stop itself,
    already handled by whoever catches it, not an error (and no traceback for it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, Interrupted)


STOP_FILTER = _StopNotLoggedAsError()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While the block runs in the main thread, SIGINT and SIGTERM raise :class:`Interrupted`
    (once; see the module docstring); the previous handlers are restored afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def interrupt(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if raised:
            return  # the stop is under way
        raised = True
        raise Interrupted(signum)

    logging.getLogger("asyncio").addFilter(STOP_FILTER)  # kept: a task may be freed later
    previous = {number: signal.signal(number, interrupt) for number in SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
