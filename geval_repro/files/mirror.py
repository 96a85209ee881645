"""Make an offline mirror: every registered source fetched, verified, and listed.

``geval-repro mirror DIR`` on a networked machine writes each source of the registry to
``DIR/<owner>/<repo>/<commit>/<path>`` (the layout ``fetch`` reads with ``mirror=DIR``),
checked against its pinned SHA-256 and size like every pipeline download, and writes
``DIR/MANIFEST.tsv`` (path, sha256, bytes, upstream URL, license) for the files it holds
(none when it holds none). Sources that fail are reported, never skipped silently, and
leave no empty folder behind. Carry DIR to an offline machine and
run with ``--config mirror=DIR`` (or ``GEVAL_REPRO_MIRROR=DIR``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from geval_repro.files.atomic import write_text
from geval_repro.files.fetch import FetchError, RemoteFile, fetch
from geval_repro.registry.sources import Source

log = logging.getLogger(__name__)
MANIFEST_COLUMNS = ("path", "sha256", "bytes", "upstream", "license")


@dataclass
class MirrorResult:
    """What a mirror run did: the sources now in the mirror and those that failed."""

    mirrored: list[Source] = field(default_factory=list)
    failed: dict[str, FetchError] = field(default_factory=dict)  # source id -> error


def make_mirror(
    sources: Iterable[Source],
    out_dir: str | os.PathLike[str],
    *,
    base_url: str | None = None,
    timeout: float = 60.0,
    retries: int = 3,
    keep_going: bool = True,
) -> MirrorResult:
    """Fetch every source into ``out_dir`` (mirror layout, verified) and write MANIFEST.tsv.

    ``base_url`` fetches ``<base_url>/<relpath>`` instead of each source's own URL (copying a
    mirror served over HTTP); the pinned hashes are checked either way. ``keep_going=False``
    is for a caller that needs every source (the tests): the first failure ends the run, the
    sources after it are not asked, and no MANIFEST.tsv is written (the files already
    verified stay, and a later run reuses them).
    """
    out = Path(out_dir)
    result = MirrorResult()
    for source in sources:
        remote = RemoteFile.from_source(source)
        if base_url is not None:
            remote = replace(remote, url=f"{base_url.rstrip('/')}/{source.relpath}")
        try:
            fetch(remote, out, timeout=timeout, retries=retries, progressbar=False)
        except FetchError as error:
            log.info("%s not mirrored: %s", source.id, error)
            result.failed[source.id] = error
            _remove_empty_folders(out / source.relpath, out)
            if not keep_going:
                return result
        else:
            result.mirrored.append(source)
    if not result.mirrored:
        return result
    rows = ["\t".join(MANIFEST_COLUMNS)] + [
        "\t".join(
            [
                s.relpath,
                s.sha256,
                str(s.bytes or (out / s.relpath).stat().st_size),
                s.url,
                s.license,
            ]
        )
        for s in sorted(result.mirrored, key=lambda s: s.relpath)
    ]
    write_text(out / "MANIFEST.tsv", "\n".join(rows) + "\n")
    return result


def _remove_empty_folders(path: Path, root: Path) -> None:
    """Remove the empty folders from ``path``'s parent up to (not including) ``root``."""
    folder = path.parent
    while folder != root and folder.is_relative_to(root) and folder.is_dir():
        if any(folder.iterdir()):
            return
        folder.rmdir()
        folder = folder.parent
