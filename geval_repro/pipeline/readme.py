"""Rule functions of the README's results section (:mod:`geval_repro.report.readme`)."""

from __future__ import annotations

from collections.abc import Mapping

from geval_repro.files.paths import PathLike
from geval_repro.report import readme


def write_section(results: PathLike, out: PathLike, labels: Mapping[str, str]) -> None:
    """The results section generated from ``results`` -> ``out``."""
    readme.write_section(results, out, labels=labels)


def copy_section_into_readme(section: PathLike, results: PathLike, target: PathLike) -> None:
    """The written section copied into README.md between its markers."""
    readme.copy_section_into_readme(section, results, target)
