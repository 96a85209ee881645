"""The closing summary of a run (the Snakefile's ``onstart`` marks the start, ``onerror``
and ``onsuccess`` print it): what this run made, and, when it could not make everything,
which upstream files it could not fetch and why, which of the paper's tables are incomplete,
which committed files its failed jobs removed (with the command that restores them), and
one fix.

It speaks of this run only. An output counts as made by the run when it was written after
the run started (its ``st_mtime`` is not older than the run manifest ``onstart`` writes, a
file on the same clock); older outputs (the committed results, an earlier run's) were "there
before it". A fetch log counts when it was written by this run and is the log of a file
this config fetches, so logs an earlier run left under ``results/logs/fetch/`` (of another
config's judges, say) are never blamed. Snakemake deletes the outputs of a failed job,
and some are committed files under ``results/``: the tracked files missing at the end but
not at the start (``git ls-files --deleted``) are named with ``git checkout -- ...``.

Printed once, after every job that could run has run (the default profile keeps going).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from geval_repro.files.fetch import fetch_failures
from geval_repro.files.paths import PathLike
from geval_repro.pipeline.layout import Layout

LISTED = 8  # missing files named in the summary (each also has its own line while running)
MIRRORED_RUN = (
    "snakemake --cores 4 --configfile workflow/configs/mirrored_data.yaml --config mirror=DIR"
)


@dataclass(frozen=True)
class RunStart:
    """What the end of a run is compared with: ``time``, the start on the file system's
    clock (an output with ``st_mtime >= time`` was made by the run), and the committed files
    already missing then (``missing_committed``: removed before the run, not by it)."""

    time: float
    missing_committed: frozenset[Path] = frozenset()


_RUN: list[RunStart] = []  # the run of this process (onstart -> onerror/onsuccess)


def start_run(layout: Layout, stamp: PathLike) -> RunStart:
    """Record the start of this process's run: the time ``stamp`` (a file written by
    ``onstart``: the run manifest) was written, and the committed files missing now."""
    run = RunStart(Path(stamp).stat().st_mtime, frozenset(missing_committed(_folders(layout))))
    _RUN[:] = [run]
    return run


def missing_committed(folders: Iterable[PathLike]) -> list[Path]:
    """The files git tracks under ``folders`` that are missing from the work tree
    (``git ls-files --deleted``, run in the folder or, if it is gone, its nearest existing
    parent), as paths under each folder; none outside a git checkout or without git."""
    missing: list[Path] = []
    for folder in map(Path, folders):
        anchor = folder
        while not anchor.is_dir() and anchor != anchor.parent:
            anchor = anchor.parent
        where = os.path.relpath(folder, anchor)
        try:
            listed = subprocess.run(
                ["git", "-C", str(anchor), "ls-files", "-z", "--deleted", "--", where],
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError:  # no git
            return []
        if listed.returncode == 0:
            missing += [
                folder / os.path.relpath(anchor / name, folder)
                for name in listed.stdout.split("\0")
                if name
            ]
    return sorted(set(missing))


def closing_summary(
    targets: Sequence[PathLike],
    named: Mapping[str, Sequence[PathLike]],
    *,
    run: RunStart | None,
    fetch_logs: PathLike,
    raw_dir: PathLike,
    mirror: PathLike | None,
    fetched_any: bool,
    fetched: Collection[str] | None = None,
    removed: Sequence[PathLike] = (),
    folders: Sequence[PathLike] = (),
    failed: bool = True,
) -> str:
    """The summary's lines (one string).

    ``targets``: every output of a full run; ``named``: a reader's name (e.g. "Table 1") ->
    the outputs it is made of, reported as incomplete when one is missing; ``run``: the
    start of the run (:class:`RunStart`; None when unknown: then what exists is counted);
    ``fetch_logs`` / ``raw_dir``: the fetch jobs' logs and the raw folder
    (:func:`geval_repro.files.fetch.fetch_failures`, reading the logs this run wrote of the
    files ``fetched``, the relative paths this config fetches; every file when None);
    ``mirror``: the configured mirror; ``fetched_any``: whether any upstream file is in the
    raw folder (else the network is likely off, and without a mirror the one command that
    works is the mirrored run); ``removed``: the committed files the run's failed jobs
    removed, under ``folders`` (the run's results and data folders); ``failed``: whether the
    run failed (a run that succeeded gets the one line of what it made).
    """
    lines = []
    missing, fixes = [], []
    if failed:
        since = run.time if run else None
        missing, fixes = fetch_failures(fetch_logs, raw_dir, since=since, relpaths=fetched)
    if missing:
        lines.append(f"{len(missing)} upstream file(s) could not be fetched:")
        lines += [f"  - {line}" for line in missing[:LISTED]]
        if len(missing) > LISTED:
            lines.append(f"  - and {len(missing) - LISTED} more (each in its line above)")
    lines.append(_made(targets, run.time if run else None))
    if failed:
        incomplete = _not_made(targets, named)
        if incomplete:
            lines.append("Not made: " + "; ".join(incomplete) + ".")
    if removed:
        lines.append(_restore(removed, folders))
    fix = _fix(fixes, mirror=mirror, fetched_any=fetched_any)
    if fix:
        lines.append(f"Fix: {fix}")
    if missing:
        lines.append(f"(details in {fetch_logs}/)")
    return "\n".join(lines)


def _made(targets: Sequence[PathLike], started: float | None) -> str:
    """ "This run made N of the T outputs of a full run; B were there before it; M are
    missing." (the last two parts only when not 0; without a start, what exists)."""
    stats = [os.stat(t) if os.path.exists(t) else None for t in targets]
    if started is None:
        exist = sum(1 for s in stats if s is not None)
        return f"{exist} of the {len(targets)} outputs of a full run exist."
    made = sum(1 for s in stats if s is not None and s.st_mtime >= started)
    before = sum(1 for s in stats if s is not None and s.st_mtime < started)
    absent = len(targets) - made - before
    parts = [f"This run made {made} of the {len(targets)} outputs of a full run"]
    if before:
        parts.append(f"{before} were there before it (an earlier run's, or committed)")
    if absent:
        parts.append(f"{absent} are missing")
    return "; ".join(parts) + "."


def _not_made(targets: Sequence[PathLike], named: Mapping[str, Sequence[PathLike]]) -> list[str]:
    """The missing outputs of ``targets`` by reader's name, "name (path)" or "name (N
    files)", each file under the first name that lists it, then "N other outputs" for the
    rest: the counts add up to the missing ones the line before counts."""
    absent = {Path(t) for t in targets if not Path(t).exists()}
    parts, told = [], set()
    for name, paths in named.items():
        files = [Path(p) for p in dict.fromkeys(paths) if Path(p) in absent - told]
        told.update(files)
        if files:
            parts.append(f"{name} ({files[0] if len(files) == 1 else f'{len(files)} files'})")
    rest = len(absent - told)
    if rest:
        other = "other " if parts else ""
        parts.append(f"{rest} {other}output{'s' if rest > 1 else ''}")
    return parts


def _restore(removed: Sequence[PathLike], folders: Sequence[PathLike]) -> str:
    """The committed files a failed job removed and the command that brings them back:
    ``git checkout -- FILE...``, or, for more than :data:`LISTED`, every deleted tracked
    file under ``folders``."""
    paths = [_relative(p) for p in removed]
    shown = ", ".join(paths[:LISTED])
    if len(paths) > LISTED:
        shown += f" and {len(paths) - LISTED} more"
        where = " ".join(shlex.quote(_relative(f)) for f in folders)
        command = f"git ls-files -z --deleted -- {where} | xargs -0 git checkout --"
    else:
        command = "git checkout -- " + " ".join(shlex.quote(p) for p in paths)
    return (
        f"Removed by a failed job: {len(paths)} committed file(s) (Snakemake deletes the "
        f"outputs of a job that fails): {shown}. Restore them with `{command}`, or rerun "
        "once the cause is fixed."
    )


def _relative(path: PathLike) -> str:
    """``path`` relative to the working directory (the checkout) when inside it."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


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


def _folders(layout: Layout) -> list[Path]:
    """Where a run writes committed files: the results and the data folders."""
    return [layout.results, layout.data]


def print_closing_summary(
    targets: Sequence[PathLike],
    named: Mapping[str, Sequence[PathLike]],
    *,
    layout: Layout,
    mirror: PathLike | None,
    fetched: Collection[str] | None = None,
    failed: bool = True,
) -> None:
    """Print :func:`closing_summary` of the run in ``layout`` that :func:`start_run`
    recorded (``fetched``: the relative paths of the upstream files the config fetches;
    ``failed``: the run failed) to stderr."""
    run = _RUN[0] if _RUN else None
    fetched_any = layout.raw.is_dir() and any(p.is_file() for p in layout.raw.rglob("*"))
    before = run.missing_committed if run else frozenset()
    removed = [p for p in missing_committed(_folders(layout)) if p not in before]
    summary = closing_summary(
        targets,
        named,
        run=run,
        fetch_logs=layout.logs / "fetch",
        raw_dir=layout.raw,
        mirror=mirror,
        fetched_any=fetched_any,
        fetched=fetched,
        removed=removed if failed else [],
        folders=_folders(layout),
        failed=failed,
    )
    print(summary, file=sys.stderr)
