"""A signal that lands while an asyncio task runs ends that task with Interrupted; asyncio
then reports it as "Task exception was never retrieved" with a traceback when the task is
freed. That is the stop itself: after :func:`stop_on_signals` it is not logged, while any
other never-retrieved exception still is (CI saw the traceback once, under load)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable

import pytest

from geval_repro.runner.stopping import STOP_FILTER, Interrupted, stop_on_signals


def _a_task_ending_with(make_error: Callable[[], BaseException]) -> None:
    """Runs a loop in which one task ends with ``make_error()`` that nobody retrieves; frees
    it (the error is made here, so that nothing outside keeps its traceback and the task)."""

    async def fails() -> None:
        raise make_error()

    async def main() -> None:
        task = asyncio.ensure_future(fails())
        await asyncio.sleep(0.01)
        assert task.done()
        del task

    loop = asyncio.new_event_loop()
    try:
        with contextlib.suppress(Interrupted):  # a SystemExit leaves the loop, as a stop does
            loop.run_until_complete(main())
    finally:
        loop.close()
    gc.collect()


@pytest.mark.parametrize(
    ("error", "logged"), [(lambda: Interrupted(2), False), (lambda: ValueError("real"), True)]
)
def test_only_the_stop_is_not_logged_as_a_never_retrieved_task(caplog, error, logged):
    with stop_on_signals():
        pass
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _a_task_ending_with(error)
    never = [r for r in caplog.records if "never retrieved" in r.getMessage()]
    assert bool(never) == logged, [r.getMessage() for r in caplog.records]


def test_without_the_filter_asyncio_logs_the_stop(caplog):
    """The case above is real: without the filter the stop is logged with its traceback."""
    logging.getLogger("asyncio").removeFilter(STOP_FILTER)
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            _a_task_ending_with(lambda: Interrupted(2))
    finally:
        logging.getLogger("asyncio").addFilter(STOP_FILTER)
    assert any("never retrieved" in r.getMessage() for r in caplog.records)
