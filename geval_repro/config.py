"""Pipeline configuration: checks beyond the JSON schema, and where each judge file lives.

The JSON schema (``geval_repro/data/config.schema.yaml``) checks shapes and types; this
module checks what a schema cannot (every judge to run is defined, every ``source`` id
exists) and turns a judge's file specs into local paths and fetchable remote files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError, validators

from geval_repro.fetch import FetchError, RemoteFile, relpath_for_url
from geval_repro.sources import PACKAGE_DATA, REPO_ROOT, get_source, load_registry

SCHEMA_PATH = PACKAGE_DATA / "config.schema.yaml"
DEFAULT_CONFIG_PATH = REPO_ROOT / "workflow" / "config.yaml"


class ConfigError(ValueError):
    """The configuration is invalid; the message names the key and the fix."""


@dataclass(frozen=True)
class JudgeFile:
    """One judge input file: a local path, and the remote file behind it (if any)."""

    path: Path
    remote: RemoteFile | None


def load_config(path: Path = DEFAULT_CONFIG_PATH) -> dict[str, Any]:
    """Read and check a config file (the default one unless ``path`` is given)."""
    with open(path, encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    check_config(config, origin=str(path))
    return config


def check_config(config: Mapping[str, Any], origin: str = "config") -> None:
    """Validate ``config`` against the JSON schema and the cross-references in it."""
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        schema = yaml.safe_load(handle)
    errors = sorted(_Validator(schema).iter_errors(config), key=lambda e: e.path)
    if errors:
        lines = [f"- {'/'.join(map(str, e.path)) or '<top>'}: {_message(e)}" for e in errors]
        raise ConfigError(f"{origin} is invalid (schema {SCHEMA_PATH}):\n" + "\n".join(lines))
    for name in config["judges_to_run"]:
        if name not in config["judges"]:
            raise ConfigError(
                f"{origin}: judges_to_run names {name!r}, which is not defined under judges "
                f"(defined: {', '.join(sorted(config['judges']))})"
            )
    for pair in config["rerun_pairs"]:
        for name in pair:
            if name not in config["judges"]:
                raise ConfigError(f"{origin}: rerun_pairs names {name!r}, not defined under judges")
    registry = load_registry()
    for name, judge in config["judges"].items():
        for spec in _file_specs(judge).values():
            if "source" in spec and spec["source"] not in registry:
                raise ConfigError(
                    f"{origin}: judge {name!r} names source {spec['source']!r}, "
                    "which is not an id in geval_repro/data/sources.yaml"
                )
            if "url" in spec:
                try:
                    relpath_for_url(spec["url"])
                except FetchError as error:
                    raise ConfigError(f"{origin}: judge {name!r}: {error}") from None


def _is_int(_checker: object, instance: object) -> bool:
    """JSON-schema ``integer``, strictly: a Python int (draft 2020-12 also accepts 100.0)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)


def _message(error: ValidationError) -> str:
    """The error's message, with a fix for a non-integer, and for a ``oneOf`` failure the
    sub-error of the branch whose keys the value has (not a missing or extra key)."""
    if error.validator == "type" and "integer" in error.validator_value:
        return f"{error.message} (write a whole number without a decimal point, e.g. 100)"
    specific = [e for e in error.context if e.validator not in ("required", "additionalProperties")]
    if specific:
        return f"{error.message}: {specific[0].message}"
    return error.message


def _file_specs(judge: Mapping[str, Any]) -> dict[str, Mapping[str, str]]:
    """The judge's file specs keyed by dimension (``"*"`` for a single scores file)."""
    if "files" in judge:
        return dict(judge["files"])
    return {"*": judge["file"]}


def judge_file(spec: Mapping[str, str], raw_dir: Path, label: str) -> JudgeFile:
    """Resolve one file spec to its local path (and its remote file when it is fetched)."""
    if "path" in spec:
        return JudgeFile(Path(spec["path"]), None)
    if "source" in spec:
        remote = RemoteFile.from_source(get_source(spec["source"]))
    else:
        remote = RemoteFile.from_url(spec["url"], spec["sha256"], label)
    return JudgeFile(raw_dir / remote.relpath, remote)


def judge_files(config: Mapping[str, Any], name: str, raw_dir: Path) -> dict[str, JudgeFile]:
    """All files of judge ``name`` keyed by dimension (``"*"`` for a scores file)."""
    judge = config["judges"][name]
    return {
        dim: judge_file(spec, raw_dir, f"judge {name}, {dim}")
        for dim, spec in _file_specs(judge).items()
    }


def remote_files(config: Mapping[str, Any]) -> dict[str, RemoteFile]:
    """Every fetchable file keyed by its relative path: the registry plus judge URLs."""
    remotes = {s.relpath: RemoteFile.from_source(s) for s in load_registry().values()}
    for name in config["judges_to_run"]:
        for judge_input in judge_files(config, name, Path(".")).values():
            if judge_input.remote is not None:
                remotes[judge_input.remote.relpath] = judge_input.remote
    return remotes
