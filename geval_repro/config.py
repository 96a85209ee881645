"""Pipeline configuration: the one validation of a config, the typed objects built from it
(the analysis :class:`Settings`, one :class:`~geval_repro.registry.judges.JudgeSpec` per
judge), and where each judge file lives.

:func:`check_config` validates against the JSON schema
(``geval_repro/data/config.schema.yaml``), whose benchmark, format and dimension enums it
fills in from the registries (:mod:`geval_repro.registry.benchmarks`,
:mod:`geval_repro.registry.formats`); an unknown key gets the closest valid name suggested.
It then checks what a schema cannot: every judge to run is defined, every ``source`` id
exists, a judge's dimensions are its benchmark's, its files and options suit its format,
the judges to run have distinct rule names (:func:`rule_identifier`) and their runs distinct
``dir``s, a run's ``dir`` does not lead out of the checkout unless it is absolute, its
``api_key_env`` is a variable's name and no key (never repeated in a message), its numbers
are finite.
:func:`judge_specs` then builds the frozen spec of each judge once: nothing below this
module reads a raw judge entry. This module also turns a judge's file specs into local paths
and fetchable remote files.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError, validators

from geval_repro.files.fetch import FetchError, RemoteFile, relpath_for_url
from geval_repro.registry import benchmarks, formats, local_models
from geval_repro.registry.judges import (
    RUN_DEFAULTS,
    FileSpec,
    JobResources,
    JudgeSpec,
    LocalServer,
    Prices,
    RunSpec,
    default_n,
    job_resources,
    status_of,
)
from geval_repro.registry.sources import PACKAGE_DATA, REPO_ROOT, get_source, load_registry

SCHEMA_PATH = PACKAGE_DATA / "config.schema.yaml"
DEFAULT_CONFIG_PATH = REPO_ROOT / "workflow" / "config.yaml"
#: The overlay that makes the committed results (every judge the offline mirror feeds).
MIRRORED_CONFIG_PATH = REPO_ROOT / "workflow" / "configs" / "mirrored_data.yaml"


class ConfigError(ValueError):
    """The configuration is invalid; the message names the key and the fix."""


@dataclass(frozen=True)
class Settings:
    """The analysis settings of a run, read once from a checked config (:meth:`from_config`).

    ``seed`` seeds every random procedure (bootstrap, permutation tests, the sweep's random
    draws); ``bootstrap_resamples`` / ``permutation_resamples``: resamples per interval /
    test; ``sweep_draws`` random n-subsets per n, for n = 1..``sweep_max_n``, and the
    adaptive rule replayed for each of ``sweep_se_targets`` with batches of ``sweep_batch``;
    ``pass_threshold``: the share of the normalized judge scale an item must reach to pass
    (rollups); ``download_timeout`` (seconds per request) and ``download_retries`` (further
    attempts) of a fetch. A rule's job receives the values it needs from here (and the
    judges' :class:`~geval_repro.registry.judges.JudgeSpec`), never the raw config; the
    exceptions: a report caption (``workflow/report/*.rst``), which Snakemake renders from
    ``snakemake.config`` itself, so the report pages' job (``workflow/rules/report.smk``)
    passes the raw config on for its captions; and the provenance sidecars, which record the
    config as written (:class:`geval_repro.report.provenance.Provenance`).
    """

    seed: int
    bootstrap_resamples: int
    permutation_resamples: int
    sweep_draws: int
    sweep_max_n: int
    pass_threshold: float
    download_timeout: float
    download_retries: int
    sweep_se_targets: tuple[float, ...] = (0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
    sweep_batch: int = 4
    alt_test_epsilon: Mapping[str, float] = field(default_factory=dict)

    def epsilon(self, benchmark: benchmarks.Benchmark) -> float | None:
        """The alternative annotator test's margin on ``benchmark``: the config's
        ``alt_test.epsilon`` for it, else the registry's (None: not tested there)."""
        return self.alt_test_epsilon.get(benchmark.name, benchmark.alt_test_epsilon)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a config that :func:`check_config` accepted."""
        return cls(
            seed=int(config["seed"]),
            bootstrap_resamples=int(config["bootstrap"]["n_resamples"]),
            permutation_resamples=int(config["permutation"]["n_resamples"]),
            sweep_draws=int(config["sweep"]["draws"]),
            sweep_max_n=int(config["sweep"]["max_n"]),
            sweep_se_targets=tuple(
                float(t) for t in config["sweep"].get("se_targets", cls.sweep_se_targets)
            ),
            sweep_batch=int(config["sweep"].get("batch", cls.sweep_batch)),
            pass_threshold=float(config["rollups"]["pass_threshold"]),
            download_timeout=float(config["download"]["timeout"]),
            download_retries=int(config["download"]["retries"]),
            alt_test_epsilon={
                name: float(value)
                for name, value in (config.get("alt_test") or {}).get("epsilon", {}).items()
            },
        )


@dataclass(frozen=True)
class JudgeFile:
    """One judge input file: a local path, and the remote file behind it (if any)."""

    path: Path
    remote: RemoteFile | None


def load_config(path: Path = DEFAULT_CONFIG_PATH, *overlays: Path) -> dict[str, Any]:
    """Read and check a config file (the default one unless ``path`` is given), with each
    of ``overlays`` merged over it as Snakemake merges a ``--configfile`` (mappings key by
    key, recursively; any other value replaced)."""
    with open(path, encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    for overlay in overlays:
        with open(overlay, encoding="utf-8") as handle:
            _merge(config, yaml.safe_load(handle) or {})
    check_config(config, origin=" over ".join(map(str, reversed((path, *overlays)))))
    return config


def _merge(config: dict[str, Any], overlay: Mapping[str, Any]) -> None:
    """Merge ``overlay`` into ``config`` in place: mappings recursively, other values
    replaced."""
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(config.get(key), dict):
            _merge(config[key], value)
        else:
            config[key] = value


def config_schema() -> dict[str, Any]:
    """The JSON schema with the registries' names filled in."""
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        schema = yaml.safe_load(handle)
    judge = schema["$defs"]["judge"]["properties"]
    judge["benchmark"]["enum"] = list(benchmarks.NAMES)
    judge["format"]["enum"] = list(formats.NAMES)
    schema["$defs"]["dimension_files"]["propertyNames"]["enum"] = list(benchmarks.ALL_DIMENSIONS)
    epsilon = schema["properties"]["alt_test"]["properties"]["epsilon"]
    epsilon["propertyNames"]["enum"] = [
        name for name, b in benchmarks.BENCHMARKS.items() if b.annotator_table is not None
    ]
    llama_cpp = schema["$defs"]["server"]["properties"]["llama_cpp"]["properties"]
    llama_cpp["model"]["enum"] = list(local_models.NAMES)
    return schema


def check_config(config: Mapping[str, Any], origin: str = "config") -> None:
    """Validate ``config`` against the JSON schema and the cross-references in it."""
    errors = sorted(_Validator(config_schema()).iter_errors(config), key=lambda e: e.path)
    if errors:
        lines = [f"- {'/'.join(map(str, e.path)) or '<top>'}: {_message(e)}" for e in errors]
        text = f"{origin} is invalid (schema {SCHEMA_PATH}):\n" + "\n".join(lines)
        for value in _key_variables(config):  # perhaps a key typed there: never repeated
            text = text.replace(value, "***")
        raise ConfigError(text)
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
    _check_distinct_runs(config, origin)
    for name, judge in config["judges"].items():
        _check_judge(name, judge, origin)
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


def _key_variables(config: Mapping[str, Any]) -> list[str]:
    """The ``api_key_env`` values of the config's run blocks that are no variable's name, or
    look like a key (:func:`geval_repro.runner.keys.check_key_variable`): never repeated."""
    from geval_repro.runner.keys import KeyRefused, check_key_variable

    judges = config.get("judges")
    found = []
    for judge in judges.values() if isinstance(judges, Mapping) else ():
        run = judge.get("run") if isinstance(judge, Mapping) else None
        value = run.get("api_key_env") if isinstance(run, Mapping) else None
        if isinstance(value, str) and value:
            try:
                check_key_variable(value)
            except KeyRefused:
                found.append(value)
    return found


def rule_identifier(name: str) -> str:
    """What a judge's (or a notebook's) name becomes in its rules' names
    (``judge_run_<identifier>``, :func:`geval_repro.pipeline.layout.rule_name`): every
    character that may not stand in a Python identifier replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _check_distinct_runs(config: Mapping[str, Any], origin: str) -> None:
    """The judges to run have distinct rule names, and their runs distinct ``dir``s:
    Snakemake could not tell their rules apart (its ``CreateRuleException``,
    ``AmbiguousRuleException``), and two runs would overwrite each other's files."""
    seen_rules: dict[str, str] = {}
    seen_dirs: dict[str, str] = {}
    for name in config["judges_to_run"]:
        other = seen_rules.setdefault(rule_identifier(name), name)
        if other != name:
            raise ConfigError(
                f"{origin}: judges {other!r} and {name!r} become one rule name "
                f"(judge_run_{rule_identifier(name)}, tidy_judge_{rule_identifier(name)}, ...: "
                "'-' and '.' become '_'), so the pipeline could not tell their rules apart. "
                "Fix: rename one"
            )
        judge = config["judges"][name]
        if "run" not in judge or "dir" not in judge:
            continue
        folder = os.path.normpath(judge["dir"])
        other = seen_dirs.setdefault(folder, name)
        if other != name:
            raise ConfigError(
                f"{origin}: judges {other!r} and {name!r} both run into dir {folder!r}: each "
                "would overwrite the other's <dimension>.jsonl and manifest.json, and the "
                "pipeline could not tell which makes them. Fix: give each run its own dir"
            )


def _is_int(_checker: object, instance: object) -> bool:
    """JSON-schema ``integer``, strictly: a Python int (draft 2020-12 also accepts 100.0)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)


def _message(error: ValidationError) -> str:
    """The error's message, with a fix for a non-integer, the closest valid name for an
    unknown key, and for a ``oneOf`` failure the sub-error of the branch whose keys the value
    has (not a missing or extra key)."""
    if error.path and error.path[-1] == "api_key_env":
        return (
            "takes the name of an environment variable ([A-Za-z_][A-Za-z0-9_]*, e.g. "
            "OPENAI_API_KEY), and the value given is not one; it is not repeated here. Fix: "
            "export MY_JUDGE_KEY=<your key>, then api_key_env: MY_JUDGE_KEY"
        )
    if error.validator == "type" and "integer" in error.validator_value:
        return f"{error.message} (write a whole number without a decimal point, e.g. 100)"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        hints = []
        for key in sorted(set(error.instance) - set(known)):
            close = difflib.get_close_matches(key, known, n=1)
            hints.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
        return f"unknown key(s) {', '.join(hints)}; allowed: {', '.join(known)}"
    specific = [e for e in error.context if e.validator not in ("required", "additionalProperties")]
    if specific:
        return f"{error.message}: {specific[0].message}"
    return error.message


def _check_judge(name: str, judge: Mapping[str, Any], origin: str) -> None:
    """The judge's files and options suit its format; its dimensions are its benchmark's."""
    judge_format = formats.get_format(judge["format"])
    where = f"{origin}: judge {name!r} (format {judge_format.name})"
    given = [key for key in ("files", "file", "dir") if key in judge]
    if len(given) != 1 or given[0] not in judge_format.inputs:
        raise ConfigError(
            f"{where} gives {given or 'no files'}: give exactly one of {list(judge_format.inputs)}"
        )
    options = {"columns", "extra_items", "reads", "scale"}
    stray = sorted((options & set(judge)) - set(judge_format.options))
    missing = sorted(set(judge_format.required) - set(judge))
    if stray or missing:
        raise ConfigError(
            f"{where}: "
            + "; ".join(
                part
                for part in (
                    f"{stray} do not apply to this format" if stray else "",
                    f"needs {missing}" if missing else "",
                )
                if part
            )
        )
    if "manifest" in judge and (judge["format"] != "geval-jsonl" or "files" not in judge):
        raise ConfigError(
            f"{where}: manifest: applies to a geval-jsonl run given as files (a dir: holds its "
            "manifest.json)"
        )
    if "prompt_variant" in judge:
        if judge["format"] != "geval-jsonl":
            raise ConfigError(
                f"{where}: prompt_variant applies to a geval-jsonl run (its replies and "
                "rating probabilities are read as the variant's answers)"
            )
        try:
            benchmarks.get_benchmark(judge["benchmark"]).prompt_variant(judge["prompt_variant"])
        except ValueError as error:
            raise ConfigError(f"{where}: prompt_variant: {error}") from None
    if "run" in judge:
        _check_run(judge, where)
    elif "dir" in judge and not Path(judge["dir"]).is_dir():
        raise ConfigError(f"{where}: dir {judge['dir']!r} is not a folder")
    benchmark = benchmarks.get_benchmark(judge["benchmark"])
    dimensions = [d for d in _file_specs(judge) if d != "*"]
    if judge["format"] == "scores":
        keys = set(benchmark.item_keys)
        dimensions = [c for c in judge["columns"] if c not in keys]
        absent = sorted(keys - set(judge["columns"]))
        if absent:
            raise ConfigError(
                f"{where}: columns must name the {benchmark.title} item key(s) {absent}"
            )
    wrong = [d for d in dimensions if d not in benchmark.dimension_names]
    if wrong:
        raise ConfigError(
            f"{where}: {benchmark.title} has no dimension(s) {wrong}; its dimensions are "
            f"{list(benchmark.dimension_names)}"
        )
    if not dimensions:
        raise ConfigError(f"{where}: no dimension to score")


def _check_run(judge: Mapping[str, Any], where: str) -> None:
    """A ``run:`` block (:mod:`geval_repro.runner.configured`) suits its judge: format
    geval-jsonl with ``dir``, the benchmark's dimensions, request parameters the runner
    accepts, ``reads`` that the mode writes."""
    from geval_repro.runner.configured import request_params
    from geval_repro.runner.keys import KeyRefused, check_key_variable
    from geval_repro.stats.adaptive import check_rule

    run = judge["run"]
    if judge["format"] != "geval-jsonl" or "dir" not in judge:
        raise ConfigError(
            f"{where}: a run: block needs format geval-jsonl and dir: (the folder the runner "
            "writes <dimension>.jsonl and manifest.json into)"
        )
    folder = Path(judge["dir"])
    if not folder.is_absolute() and os.path.normpath(folder).split(os.sep)[0] == os.pardir:
        raise ConfigError(
            f"{where}: dir {judge['dir']!r} leads outside the checkout ({REPO_ROOT}), where "
            "the run would write. Fix: a folder inside it (e.g. runs/<judge>), or an absolute "
            "path if you mean to write there (the job's log then says where it writes)"
        )
    if "api_key_env" in run:
        try:
            check_key_variable(run["api_key_env"])
        except KeyRefused as error:
            raise ConfigError(f"{where}: run: {error}") from None
    benchmark = benchmarks.get_benchmark(judge["benchmark"])
    wrong = [d for d in run.get("dimensions", ()) if d not in benchmark.dimension_names]
    if wrong:
        raise ConfigError(
            f"{where}: run: dimensions {wrong} are not {benchmark.title} dimensions; use some "
            f"of {list(benchmark.dimension_names)}"
        )
    judged = run.get("dimensions") or benchmark.dimension_names
    stray = sorted(set(run.get("prompts", {})) - set(judged))
    if stray:
        raise ConfigError(f"{where}: run: prompts names {stray}, which the run does not judge")
    if "server" in run and "base_url" in run:
        raise ConfigError(
            f"{where}: run: gives both server (a local server the job starts) and base_url; "
            "keep one"
        )
    if "server" not in run and "model" not in run:
        raise ConfigError(f"{where}: run: needs model (or a server: naming a local model)")
    local = (run.get("server") or {}).get("llama_cpp") or {}
    numbers = {**run, **{f"server: llama_cpp: {k}": v for k, v in local.items()}}
    for key, value in numbers.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{where}: run: {key} {value} is not a finite number")
    if local and run.get("model", local["model"]) != local["model"]:
        raise ConfigError(
            f"{where}: run: model {run['model']!r} is not the local server's model "
            f"{local['model']!r}; drop model (it defaults to the server's)"
        )
    if "first_position" in run and run["mode"] != "logprobs":
        raise ConfigError(
            f"{where}: run: first_position applies to mode logprobs (its biased replies are "
            "not samples)"
        )
    if "sample" in run and "seed" not in run:
        raise ConfigError(f"{where}: run: sample draws its documents at random: give seed as well")
    if "se_target" in run and run["mode"] == "logprobs":
        raise ConfigError(
            f"{where}: run: se_target samples replies until the mean rating is sure: use mode "
            "sample or both"
        )
    spec = _run_spec(judge, benchmark)
    try:
        request_params(spec)
        if spec.se_target is not None:
            check_rule(spec.batch, spec.se_target, spec.n)
    except ValueError as error:
        raise ConfigError(f"{where}: run: {error}") from None
    _check_cluster_job(spec, benchmark, where)
    written = formats.MODE_CONTENTS[run["mode"]]
    unread = sorted(set(judge.get("reads", ())) - set(written))
    if unread:
        raise ConfigError(
            f"{where}: reads {unread}, which mode {run['mode']} does not write; drop reads "
            f"(the default for this mode is {list(written)}) or change the mode"
        )


def _check_cluster_job(run: RunSpec, benchmark: benchmarks.Benchmark, where: str) -> None:
    """``resources`` apply to a job on a compute node, which can ask for them
    (:func:`geval_repro.registry.judges.job_resources`); one GPU request at most."""
    given = run.resources.given()
    if not run.on_cluster:
        if given:
            raise ConfigError(
                f"{where}: run: resources {sorted(given)} apply to a job on a compute node; "
                "add on_cluster: true or drop them"
            )
        return
    if "gpu" in given and "gpu" in str(given.get("gres", "")):
        raise ConfigError(
            f"{where}: run: resources: GPUs through gpu (--gpus) or gres (--gres), not both"
        )
    try:
        job_resources(run, benchmark)
    except ValueError as error:
        raise ConfigError(f"{where}: run: {error}") from None


def _file_specs(judge: Mapping[str, Any]) -> dict[str, Mapping[str, str]]:
    """The judge's file specs keyed by dimension (``"*"`` for a single scores file).

    ``dir`` (format geval-jsonl) gives ``<dir>/<dimension>.jsonl`` for each dimension of the
    benchmark whose file exists; with a ``run:`` block, for each dimension the run judges
    (the pipeline makes those files).
    """
    if "files" in judge:
        return dict(judge["files"])
    if "dir" in judge:
        folder = Path(judge["dir"])
        names = benchmarks.get_benchmark(judge["benchmark"]).dimension_names
        if "run" in judge:
            judged = judge["run"].get("dimensions") or names
            return {d: {"path": str(folder / f"{d}.jsonl")} for d in judged}
        return {
            d: {"path": str(folder / f"{d}.jsonl")}
            for d in names
            if (folder / f"{d}.jsonl").is_file()
        }
    return {"*": judge["file"]}


def _run_spec(judge: Mapping[str, Any], benchmark: benchmarks.Benchmark) -> RunSpec:
    """The ``run:`` block of ``judge`` with the command line's defaults filled in."""
    run = judge["run"]
    values = {**RUN_DEFAULTS, **run}
    local = (run.get("server") or {}).get("llama_cpp")
    server = None if local is None else LocalServer(**local)
    base_url = values["base_url"]
    return RunSpec(
        mode=run["mode"],
        model=str(run["model"] if "model" in run else local["model"]),
        n=int(run.get("n", default_n(run["mode"]))),
        dimensions=tuple(run.get("dimensions") or benchmark.dimension_names),
        base_urls=(base_url,) if isinstance(base_url, str) else tuple(base_url),
        temperature=float(values["temperature"]),
        top_p=float(values["top_p"]),
        max_tokens=values["max_tokens"],
        top_logprobs=values["top_logprobs"],
        concurrency=values["concurrency"],
        limit=values["limit"],
        sample=values["sample"],
        timeout=float(values["timeout"]),
        max_attempts=values["max_attempts"],
        api_key_env=values["api_key_env"],
        seed=values["seed"],
        topup_logprobs=values["topup_logprobs"],
        first_position=values["first_position"],
        se_target=None if values["se_target"] is None else float(values["se_target"]),
        batch=int(values["batch"]),
        prompts=dict(run.get("prompts") or {}),
        prompt_variant=judge.get("prompt_variant", benchmarks.GEVAL_PROMPT),
        server=server,
        on_cluster=bool(run.get("on_cluster", server is not None)),
        resources=JobResources(**run.get("resources", {})),
    )


def judge_spec(name: str, judge: Mapping[str, Any]) -> JudgeSpec:
    """The typed spec of the config entry ``judge`` named ``name`` (an entry
    :func:`check_config` accepted)."""
    benchmark = benchmarks.get_benchmark(judge["benchmark"])
    judge_format = formats.get_format(judge["format"])
    run = _run_spec(judge, benchmark) if "run" in judge else None
    variant = judge.get("prompt_variant", benchmarks.GEVAL_PROMPT)
    manifest = judge.get("manifest")
    return JudgeSpec(
        name=name,
        benchmark=benchmark,
        format=judge_format,
        label=judge["label"],
        status=status_of(
            fixture=bool(judge.get("fixture", False)),
            toolkit_run=run is not None or bool(judge.get("toolkit_run", False)),
        ),
        contents=judge_format.contents(judge.get("reads"), None if run is None else run.mode),
        files={dim: FileSpec(**spec) for dim, spec in _file_specs(judge).items()},
        paper_metric=judge.get("paper_metric"),
        manifest=None if manifest is None else FileSpec(**manifest),
        dir=judge.get("dir"),
        columns=dict(judge.get("columns") or {}),
        extra_items=judge.get("extra_items", "error"),
        run=run,
        scale=judge.get("scale", "raw"),
        prices=Prices(**judge["prices"]) if "prices" in judge else None,
        prompt_variant=variant,
    )


def judge_specs(
    config: Mapping[str, Any], names: Iterable[str] | None = None
) -> dict[str, JudgeSpec]:
    """The typed specs of a checked config's judges: ``names`` (default the judges to run),
    in that order."""
    chosen = config["judges_to_run"] if names is None else names
    return {name: judge_spec(name, config["judges"][name]) for name in chosen}


def judge_file(spec: FileSpec, raw_dir: Path, label: str) -> JudgeFile:
    """Resolve one file spec to its local path (and its remote file when it is fetched)."""
    if spec.path is not None:
        return JudgeFile(Path(spec.path), None)
    if spec.source is not None:
        remote = RemoteFile.from_source(get_source(spec.source))
    else:
        remote = RemoteFile.from_url(str(spec.url), str(spec.sha256), label)
    return JudgeFile(raw_dir / remote.relpath, remote)


def judge_files(spec: JudgeSpec, raw_dir: Path) -> dict[str, JudgeFile]:
    """Every file of the judge ``spec`` keyed by dimension (``"*"`` for a scores file)."""
    return {
        dim: judge_file(file, raw_dir, f"judge {spec.name}, {dim}")
        for dim, file in spec.files.items()
    }


def remote_files(config: Mapping[str, Any]) -> dict[str, RemoteFile]:
    """Every fetchable file keyed by its relative path: the registry plus judge URLs."""
    remotes = {s.relpath: RemoteFile.from_source(s) for s in load_registry().values()}
    for spec in judge_specs(config).values():
        for judge_input in judge_files(spec, Path(".")).values():
            if judge_input.remote is not None:
                remotes[judge_input.remote.relpath] = judge_input.remote
    return remotes
