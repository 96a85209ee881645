"""Report flags for the workflow's report pages that follow what a run actually made."""

from __future__ import annotations

import os


def reported(
    path: str | os.PathLike[str], *, made: str | os.PathLike[str] | None = None, **kwargs: object
) -> object:
    """Snakemake's ``report(path, ...)`` if the file (``made``, the file of a wildcard
    ``path``) exists when the workflow is parsed, else ``path`` unflagged.

    `snakemake --report` then registers only what earlier runs made: after a keep-going run
    that could not make everything (a file that could not be fetched), the report shows the
    rest instead of failing on the first missing page. Running jobs ignores the flag, so a
    run that makes a page flags it for the next `--report`.
    """
    from snakemake.io import report

    return report(path, **kwargs) if os.path.exists(made or path) else path
