"""Rule function of the exports for other tools: the Hugging Face dataset
(:mod:`geval_repro.report.export_hf`)."""

from __future__ import annotations

from collections.abc import Mapping

from geval_repro.files.paths import PathLike
from geval_repro.registry.judges import JudgeSpec


def export_hf(processed: PathLike, out: PathLike, specs: Mapping[str, JudgeSpec]) -> None:
    """The tidy benchmarks with every judge of ``specs`` joined by item -> ``out``."""
    from geval_repro.report import export_hf as export  # datasets: the extra hf

    export.export_hf(processed, out, specs)
