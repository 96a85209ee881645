"""Rule function of the results page (:mod:`geval_repro.report.readme`)."""

from __future__ import annotations

from collections.abc import Mapping

from geval_repro.files.paths import PathLike
from geval_repro.report import readme


def write_page(results: PathLike, out: PathLike, labels: Mapping[str, str]) -> None:
    """The results page generated from ``results`` -> ``out`` (its links relative to it)."""
    readme.write_page(results, out, labels=labels)
