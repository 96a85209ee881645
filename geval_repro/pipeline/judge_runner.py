"""Rule function of a judge with a ``run:`` block: the judge runner asks its model for
every item's answers (in the job's own process, so that Ctrl-C or SIGTERM stops it within
seconds, its answers cached and its local server stopped)."""

from __future__ import annotations

from pathlib import Path

from geval_repro.files.paths import PathLike
from geval_repro.registry.judges import JudgeSpec
from geval_repro.runner.configured import run_configured_judge


def ask_judge(
    spec: JudgeSpec,
    *,
    processed: PathLike,
    raw_dir: PathLike,
    cache_dir: PathLike,
    mirror: PathLike | None,
    server_log: PathLike,
) -> None:
    """Run the ``run:`` block of ``spec`` into its ``dir`` with the judge runner
    (:func:`geval_repro.runner.configured.run_configured_judge`)."""
    run_configured_judge(
        spec,
        processed=Path(processed),
        raw_dir=Path(raw_dir),
        cache_dir=Path(cache_dir),
        mirror=None if mirror is None else Path(mirror),
        server_log=server_log,
    )
