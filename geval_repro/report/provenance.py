"""Provenance sidecars: what an output file rests on, so a reader can trace and regenerate it.

Every output ``F`` gets ``F.provenance.json`` beside it. One sidecar per file (rather than a
single ``results/provenance.json``) because a reader who copies one table or figure gets its
provenance with it; because each sidecar is written by the rule that writes its file, so
Snakemake rebuilds exactly the sidecars whose inputs changed; and because outputs that only
some machines produce (the recount of the released replies needs the network) do not
change a shared file that every machine commits.

A sidecar records

- ``output``: the file's name, SHA-256 and size, tying the record to the exact bytes;
- ``inputs``: the upstream files the output rests on, transitively: a file under the raw
  folder is resolved to its ``geval_repro/data/sources.yaml`` entry (``kind: source``: id,
  URL, pinned SHA-256) or, when it is not in the registry, to the judge file (given by URL in the
  config) that it was fetched as (``kind: judge-file``: URL, pinned SHA-256); a judge file
  given as a local ``path`` is hashed (``kind: local``); any other input (a processed table,
  an upstream result) must have its own sidecar, whose inputs are taken over. A raw file is
  hashed again when its reader's sidecar is written (:func:`verified_sha256`), so the hash
  recorded is that of the file as read, and a file edited after its fetch fails the step
  (Snakemake then deletes the step's outputs) instead of passing under its pinned hash;
- ``config``: the analysis settings (every config key except the locations
  :data:`LOCATION_KEYS`, which do not change an output because every input is verified by
  hash), and the definitions of the judge runs the output rests on: those the writing rule
  names (``judges``) and those named in its inputs' sidecars. (A file can serve several
  runs, e.g. MetricEval's score table, so runs are named by the rule, not read off files.)
- ``packages``: Python and the versions of :data:`PACKAGES` (``importlib.metadata``).

The file is JSON with sorted keys and no timestamp: identical inputs, config and environment
give identical bytes, so regenerating committed results at a later commit changes nothing.
The checkout a run was made from is recorded once per run instead, in the run manifest
(:func:`write_run_manifest`, ``results/run_manifest.json``, not committed: the commit that
holds committed results is their record): ``git rev-parse HEAD`` and ``dirty``
(:func:`geval_repro.files.checkout.git_state`).
"""

from __future__ import annotations

import functools
import json
import os
import platform
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from geval_repro.config import judge_files, judge_specs
from geval_repro.files.atomic import write_text
from geval_repro.files.checkout import git_state
from geval_repro.files.digest import sha256_of
from geval_repro.registry.judges import JudgeSpec
from geval_repro.registry.sources import load_registry

SIDECAR_SUFFIX = ".provenance.json"
FORMAT_VERSION = 1

#: The Python packages whose versions a sidecar records: those the outputs are computed,
#: drawn and checked with (ROUGE by rouge-score-rs, METEOR 1.5 by pycocoevalcap's jar).
PACKAGES: tuple[str, ...] = (
    "geval-repro",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "matplotlib",
    "snakemake",
    "pooch",
    "pandera",
    "rouge-score-rs",
    "sacrebleu",
    "nltk",
    "pycocoevalcap",
    "krippendorff",
)

LOCATION_KEYS: tuple[str, ...] = ("data_dir", "results_dir", "mirror", "download")
JUDGE_KEYS: tuple[str, ...] = ("judges", "judges_to_run")

Record = dict[str, Any]


class ProvenanceError(ValueError):
    """An input's origin cannot be established; the message names the file and the fix."""


def sidecar_path(path: str | os.PathLike[str]) -> Path:
    """``<path>.provenance.json``: where the sidecar of ``path`` lives."""
    return Path(f"{os.fspath(path)}{SIDECAR_SUFFIX}")


def verified_sha256(path: str | os.PathLike[str], pinned: str) -> str:
    """The SHA-256 of the raw file ``path``, which must be ``pinned``; else an error naming
    the file, both hashes and the fix (the file was edited or damaged after its fetch)."""
    try:
        actual = sha256_of(path)
    except OSError as error:
        raise ProvenanceError(
            f"{path}: cannot read the raw file ({error}). Fix: rerun, so that it is fetched "
            "and verified again"
        ) from None
    if actual != pinned:
        raise ProvenanceError(
            f"{path}: SHA-256 {actual} differs from the pinned {pinned}: the file changed after "
            "it was fetched and verified. Fix: delete it and rerun, so that it is fetched and "
            "verified again"
        )
    return actual


def package_versions() -> dict[str, str]:
    """``{"python": ..., name: version, "java": ...}`` for each of :data:`PACKAGES`, and the
    Java runtime that METEOR 1.5's jar runs on (what ``java -version`` says of it); what is not
    installed is ``"absent"``. Read once per process (:func:`_installed_versions`)."""
    return {"python": platform.python_version(), **_installed_versions()}


@functools.cache
def _installed_versions() -> dict[str, str]:
    """The installed version of each of :data:`PACKAGES` (``"absent"`` when it is not
    installed), read once per process: ``importlib.metadata`` parses a package's whole
    METADATA file for its version (about 8 ms for all of them), and no package is installed
    while a run writes its sidecars (in Snakemake's process, one per output file); then the
    Java runtime's (``java -version``: about 40 ms)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    from geval_repro.baselines.meteor_java import java_version  # numpy, pandas: when read

    java = java_version()
    versions["java"] = "absent" if java is None else java
    return versions


def analysis_config(
    config: Mapping[str, Any], judges: Iterable[str], keys: Sequence[str] | None = None
) -> dict[str, Any]:
    """The config an output depends on: ``keys`` (default: all but locations and judges)
    plus the definitions of ``judges`` (each must be defined in the config)."""
    if keys is None:
        keys = [k for k in config if k not in LOCATION_KEYS + JUDGE_KEYS]
    unknown = [k for k in keys if k not in config]
    if unknown:
        raise KeyError(f"config has no key(s) {unknown} (keys: {sorted(config)})")
    chosen: dict[str, Any] = {k: config[k] for k in keys}
    used = sorted(set(judges))
    undefined = [name for name in used if name not in config.get("judges", {})]
    if undefined:
        raise KeyError(f"judge run(s) {undefined} are not defined under judges in the config")
    if used:
        chosen["judges"] = {name: config["judges"][name] for name in used}
    return chosen


def _judge_files(specs: Iterable[JudgeSpec], raw_dir: Path) -> dict[Path, Record]:
    """Every file of the judge ``specs`` that is not a registry source, by resolved path
    (a geval-jsonl folder's ``manifest.json`` included: it documents the run)."""
    found: dict[Path, Record] = {}
    for spec in specs:
        manifest = spec.manifest_path
        if manifest is not None:
            found[manifest.resolve()] = {"kind": "local", "path": str(manifest)}
        for judge_file in judge_files(spec, raw_dir).values():
            if judge_file.remote is None:
                found[judge_file.path.resolve()] = {"kind": "local", "path": str(judge_file.path)}
            else:
                found[judge_file.path.resolve()] = {
                    "kind": "judge-file",
                    "relpath": judge_file.remote.relpath,
                    "url": judge_file.remote.url,
                    "sha256": judge_file.remote.sha256,
                }
    return found


@dataclass(frozen=True)
class Provenance:
    """What a run's sidecars record besides the files themselves, made once per run
    (:meth:`from_config`): the ``config`` as written (recorded, never computed with: see
    :func:`analysis_config`), the ``raw_dir`` and the judge files that are not registry
    sources (``judge_inputs``, by resolved path)."""

    config: Mapping[str, Any]
    raw_dir: Path
    judge_inputs: Mapping[Path, Record]

    @classmethod
    def from_config(cls, config: Mapping[str, Any], raw_dir: str | os.PathLike[str]) -> Provenance:
        """The provenance context of a checked config: its judges' files resolved from their
        specs (:func:`geval_repro.config.judge_specs`) once."""
        specs = judge_specs(config, config.get("judges", {})).values()
        return cls(dict(config), Path(raw_dir), _judge_files(specs, Path(raw_dir)))


def resolve_inputs(
    inputs: Iterable[str | os.PathLike[str]], provenance: Provenance
) -> tuple[list[Record], list[str]]:
    """The upstream input records of ``inputs`` (sorted, unique) and the judges named in
    their sidecars (see the module docstring)."""
    registry = {source.relpath: source for source in load_registry().values()}
    judge_inputs = provenance.judge_inputs
    raw_root = provenance.raw_dir.resolve()
    records: dict[str, Record] = {}
    judges: set[str] = set()
    for item in inputs:
        path = Path(item)
        resolved = path.resolve()
        in_raw = resolved.is_relative_to(raw_root)
        relpath = resolved.relative_to(raw_root).as_posix() if in_raw else None
        if relpath in registry:
            source = registry[relpath]
            found = [
                {
                    "kind": "source",
                    "id": source.id,
                    "relpath": relpath,
                    "url": source.url,
                    "sha256": verified_sha256(path, source.sha256),
                }
            ]
        elif resolved in judge_inputs:
            record = dict(judge_inputs[resolved])
            if record["kind"] == "local":
                record["sha256"] = sha256_of(path)
            else:
                record["sha256"] = verified_sha256(path, record["sha256"])
            found = [record]
        elif sidecar_path(path).is_file():
            upstream = read_provenance(sidecar_path(path))
            found = upstream["inputs"]
            judges.update(upstream["config"].get("judges", {}))
        elif in_raw:
            raise ProvenanceError(
                f"{path}: a raw file that is neither in geval_repro/data/sources.yaml nor a judge "
                "file of the config; fix: add it to the registry or to the judge's files"
            )
        else:
            raise ProvenanceError(
                f"{path}: no provenance sidecar ({sidecar_path(path).name}) and not a raw or "
                "judge file; fix: the rule that writes it must call "
                "geval_repro.report.provenance.write_provenance"
            )
        for record in found:
            records[json.dumps(record, sort_keys=True)] = record
    return [records[key] for key in sorted(records)], sorted(judges)


def output_record(output: str | os.PathLike[str]) -> Record:
    """The ``output`` part of a sidecar: an existing file's name, SHA-256 and size."""
    return {
        "name": Path(output).name,
        "sha256": sha256_of(output),
        "bytes": Path(output).stat().st_size,
    }


def dumps(record: Record) -> str:
    """Canonical JSON text of a record: sorted keys, two-space indent, final newline."""
    return json.dumps(record, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_provenance(
    outputs: Iterable[str | os.PathLike[str]],
    inputs: Iterable[str | os.PathLike[str]],
    provenance: Provenance,
    *,
    judges: Iterable[str] = (),
    config_keys: Sequence[str] | None = None,
) -> list[Path]:
    """Write ``<output>.provenance.json`` for each output (sidecars among ``outputs`` are
    skipped, so a job can pass its whole output); return the sidecar paths. ``judges``: the
    judges whose files the outputs rest on (every job does this after its function:
    :class:`geval_repro.pipeline.jobs.Trace`)."""
    outputs = [output for output in outputs if not os.fspath(output).endswith(SIDECAR_SUFFIX)]
    if not outputs:
        return []
    # What every output of the call shares (its inputs are resolved and hashed once).
    upstream, inherited = resolve_inputs(inputs, provenance)
    shared = {
        "format": FORMAT_VERSION,
        "inputs": upstream,
        "config": analysis_config(provenance.config, [*judges, *inherited], config_keys),
        "packages": package_versions(),
    }
    written = []
    for output in outputs:
        target = sidecar_path(output)
        write_text(target, dumps({**shared, "output": output_record(output)}))
        written.append(target)
    return written


def write_run_manifest(
    path: str | os.PathLike[str], config: Mapping[str, Any], mirror: Path | None = None
) -> Path:
    """Write the run manifest ``path`` (JSON): the checkout (``git``: commit and dirty flag,
    see :func:`git_state`), the package versions, the analysis config of a run and the
    ``mirror`` it read its upstream files from (None: downloaded), which the next run into
    the same folder is checked against
    (:mod:`geval_repro.pipeline.results_guard`)."""
    judges = config.get("judges_to_run", [])
    record = {
        "format": FORMAT_VERSION,
        "git": git_state(),
        "packages": package_versions(),
        "config": analysis_config(config, judges),
        "mirror": None if mirror is None else str(mirror),
    }
    write_text(path, dumps(record))
    return Path(path)


def read_provenance(path: str | os.PathLike[str]) -> Record:
    """A sidecar's record; an unreadable file is an error naming it."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, json.JSONDecodeError) as error:
        raise ProvenanceError(f"{path}: cannot read provenance sidecar ({error})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT_VERSION:
        raise ProvenanceError(
            f"{path}: not a provenance sidecar of format {FORMAT_VERSION}; fix: regenerate it"
        )
    return record


def differences(
    committed: Record, regenerated: Record, ignore: Sequence[str] = ("git",)
) -> list[str]:
    """Top-level sections (and output fields) in which two records differ, ``ignore`` aside.

    A regenerated sidecar is made at a later commit than the committed one, so ``git`` is
    ignored by default; every other difference (output bytes, inputs, config, package
    versions) is reported.
    """
    found = []
    for key in sorted(set(committed) | set(regenerated)):
        if key in ignore or committed.get(key) == regenerated.get(key):
            continue
        old, new = committed.get(key), regenerated.get(key)
        if isinstance(old, list) and isinstance(new, list):
            gone = [item for item in old if item not in new]
            added = [item for item in new if item not in old]
            found.append(f"{key}: only in committed {gone!r}; only in regenerated {added!r}")
        elif isinstance(old, dict) and isinstance(new, dict):
            for sub in sorted(set(old) | set(new)):
                if old.get(sub) != new.get(sub):
                    found.append(f"{key}.{sub}: {old.get(sub)!r} != {new.get(sub)!r}")
        else:
            found.append(f"{key}: {old!r} != {new!r}")
    return found
