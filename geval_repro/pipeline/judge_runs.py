"""Rule function of a judge run the pipeline makes (a ``run:`` block): the judge runner in a
process of its own (:mod:`geval_repro.pipeline.processes`), so that Ctrl-C or SIGTERM stops
it within seconds, its answers cached and its local server stopped."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from geval_repro.files.paths import PathLike
from geval_repro.pipeline.processes import run_in_process

log = logging.getLogger(__name__)


def judge_run(
    judge: str,
    entry: Mapping[str, Any],
    *,
    processed: PathLike,
    raw_dir: PathLike,
    cache_dir: PathLike,
    mirror: PathLike | None,
    server_log: PathLike,
) -> None:
    """Run judge ``judge`` (its config entry ``entry``, a ``run:`` block) into its ``dir``
    with the judge runner, in a process of its own (:func:`run_judge` there)."""
    log.info("judge %s: the judge runner starts in a process of its own", judge)
    run_in_process(
        f"{__name__}:run_judge",
        {
            "judge": judge,
            "entry": dict(entry),
            "processed": os.fspath(processed),
            "raw_dir": os.fspath(raw_dir),
            "cache_dir": os.fspath(cache_dir),
            "mirror": None if mirror is None else os.fspath(mirror),
            "server_log": os.fspath(server_log),
        },
    )


def run_judge(
    judge: str,
    entry: Mapping[str, Any],
    processed: str,
    raw_dir: str,
    cache_dir: str,
    mirror: str | None,
    server_log: str,
) -> None:
    """The judge process: the spec of ``entry`` (checked by the workflow) run by
    :func:`geval_repro.runner.configured.run_configured_judge`."""
    from geval_repro.config import judge_spec
    from geval_repro.runner.configured import run_configured_judge

    run_configured_judge(
        judge_spec(judge, entry),
        processed=Path(processed),
        raw_dir=Path(raw_dir),
        cache_dir=Path(cache_dir),
        mirror=None if mirror is None else Path(mirror),
        server_log=server_log,
    )
