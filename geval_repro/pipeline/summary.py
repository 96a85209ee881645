"""The closing summary of a run that could not make everything (the Snakefile's
``onerror``): which upstream files could not be fetched and why, how many of the run's
outputs exist, which of the paper's tables are incomplete, and one fix.

Printed once, after every job that could run has run (the default profile keeps going).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from geval_repro.files.fetch import fetch_failures
from geval_repro.pipeline.layout import Layout

PathLike = str | os.PathLike[str]
LISTED = 8  # missing files named in the summary (each also has its own line while running)
MIRRORED_RUN = (
    "snakemake --cores 4 --configfile workflow/configs/mirrored_data.yaml --config mirror=DIR"
)


def closing_summary(
    targets: Sequence[PathLike],
    named: Mapping[str, Sequence[PathLike]],
    *,
    fetch_logs: PathLike,
    raw_dir: PathLike,
    mirror: PathLike | None,
    fetched_any: bool,
) -> str:
    """The summary's lines (one string).

    ``targets``: every output the run was asked for; ``named``: a reader's name (e.g.
    "Table 1") -> the outputs it is made of, reported as incomplete when one is missing;
    ``fetch_logs`` / ``raw_dir``: the fetch jobs' logs and the raw folder
    (:func:`geval_repro.files.fetch.fetch_failures`); ``mirror``: the configured mirror;
    ``fetched_any``: whether any upstream file is in the raw folder (else the network is
    likely off, and without a mirror the one command that works is the mirrored run).
    """
    missing, fixes = fetch_failures(fetch_logs, raw_dir)
    made = [Path(t) for t in targets if Path(t).exists()]
    lines = []
    if missing:
        lines.append(f"{len(missing)} upstream file(s) could not be fetched:")
        lines += [f"  - {line}" for line in missing[:LISTED]]
        if len(missing) > LISTED:
            lines.append(f"  - and {len(missing) - LISTED} more (each in its line above)")
    lines.append(f"Made {len(made)} of the {len(targets)} outputs of a full run.")
    incomplete = [_absent(name, paths) for name, paths in named.items()]
    incomplete = [text for text in incomplete if text]
    if incomplete:
        lines.append("Not made: " + "; ".join(incomplete) + ".")
    fix = _fix(fixes, mirror=mirror, fetched_any=fetched_any)
    if fix:
        lines.append(f"Fix: {fix}")
    if missing:
        lines.append(f"(details in {fetch_logs}/)")
    return "\n".join(lines)


def _absent(name: str, paths: Sequence[PathLike]) -> str:
    """ "name (path)", or "name (N files)", when some of ``paths`` do not exist; else ""."""
    absent = [Path(p) for p in paths if not Path(p).exists()]
    if not absent:
        return ""
    return f"{name} ({absent[0] if len(absent) == 1 else f'{len(absent)} files'})"


def _fix(fixes: Iterable[str], *, mirror: PathLike | None, fetched_any: bool) -> str:
    """One fix: the mirrored run when nothing could be fetched and no mirror is set, else
    the first fix the failed fetches name."""
    fixes = list(fixes)
    if not fixes:
        return ""
    if mirror is None and not fetched_any:
        return (
            "nothing could be downloaded (no network?) and no mirror is set. With an offline "
            f"mirror (made with `geval-repro mirror DIR` on a networked machine), run: "
            f"{MIRRORED_RUN}"
        )
    return fixes[0]


def print_closing_summary(
    targets: Sequence[PathLike],
    named: Mapping[str, Sequence[PathLike]],
    *,
    layout: Layout,
    mirror: PathLike | None,
) -> None:
    """Print :func:`closing_summary` of a run in ``layout`` to stderr."""
    fetched_any = layout.raw.is_dir() and any(p.is_file() for p in layout.raw.rglob("*"))
    summary = closing_summary(
        targets,
        named,
        fetch_logs=layout.logs / "fetch",
        raw_dir=layout.raw,
        mirror=mirror,
        fetched_any=fetched_any,
    )
    print(summary, file=sys.stderr)
