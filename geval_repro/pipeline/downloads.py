"""Rule function of the downloads: one upstream file fetched or copied from the mirror, then
verified (:mod:`geval_repro.files.fetch`)."""

from __future__ import annotations

from pathlib import Path

from geval_repro.config import Settings
from geval_repro.files.fetch import RemoteFile, fetch


def fetch_file(remote: RemoteFile, raw_dir: Path, mirror: Path | None, settings: Settings) -> None:
    """``remote`` to ``<raw_dir>/<its relpath>``, from ``mirror`` when given, verified by its
    pinned SHA-256 (the config's download timeout and retries)."""
    fetch(
        remote,
        raw_dir,
        mirror=mirror,
        timeout=settings.download_timeout,
        retries=settings.download_retries,
    )
