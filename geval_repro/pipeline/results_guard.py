"""A run never silently replaces results made under another configuration.

Every run that has jobs to do records what it was made with in ``<results>/run_manifest.json``
(:func:`geval_repro.report.provenance.write_run_manifest`): the analysis config (every
setting that changes a number, and the definitions of the judges it made) and the mirror it
read. Before the next run into the same folder writes anything (the Snakefile's ``onstart``),
:func:`check_results_configuration` compares the two and refuses, in one line, a run that
would

- leave out judges the results hold (their rows would vanish from every shared table: a
  follow-up ``snakemake readme`` typed without the ``--configfile`` of the run before it
  rewrote 20 committed files without the SmolLM2 rows), or
- change a setting (seed, resample counts, the sweep, the rollups, the rerun pairs: every
  number would change).

Adding a judge, or changing the definition of one the results hold (a changed ``run:``
key, say), is what an edit of the config means to do, and goes on: the rules that read it
run again (Snakemake compares their params). The refusal names the difference and the
commands that do what the user may have meant: the same command with the options the
results were made with (the config file among ``workflow/configs/`` that gives their
configuration, and their mirror), or this configuration's results in a folder of their own
(``--config results_dir=...``); removing the manifest replaces them on purpose.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geval_repro.config import DEFAULT_CONFIG_PATH, REPO_ROOT, load_config
from geval_repro.report.provenance import analysis_config

#: The config files a recorded configuration may come from (each over the default one).
CONFIG_FILES = REPO_ROOT / "workflow" / "configs"
#: Snakemake's options that name config files, and the one that sets keys (their values
#: follow them, up to the next option).
CONFIG_FILE_OPTIONS = ("--configfile", "--configfiles")
CONFIG_OPTIONS = ("--config", "-C")
JUDGES = "judges"


class OtherConfiguration(Exception):
    """The results folder holds a run made with another configuration (the message is the
    one line to print)."""


def configuration_change(made: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What a run with the analysis config ``current`` would change in results made with
    ``made`` (both as :func:`geval_repro.report.provenance.analysis_config` gives them): the
    judges it leaves out, and each setting that differs. Empty when the run only adds judges
    or redefines some of them."""
    left_out = sorted(set(made.get(JUDGES, {})) - set(current.get(JUDGES, {})))
    changes = [f"without the judges {', '.join(left_out)}"] if left_out else []
    for key in sorted((set(made) | set(current)) - {JUDGES}):
        if made.get(key) != current.get(key):
            before, after = json.dumps(made.get(key)), json.dumps(current.get(key))
            changes.append(f"with {key} {after} instead of {before}")
    return changes


def matching_config_file(made: Mapping[str, Any]) -> Path | None:
    """The config file that gives the analysis config ``made``: the default one alone, or
    one of ``workflow/configs/*.yaml`` over it (None when none does)."""
    for overlays in [(), *((path,) for path in sorted(CONFIG_FILES.glob("*.yaml")))]:
        config = load_config(DEFAULT_CONFIG_PATH, *overlays)
        if analysis_config(config, config.get("judges_to_run", [])) == made:
            return overlays[0] if overlays else DEFAULT_CONFIG_PATH
    return None


@dataclass(frozen=True)
class CommandLine:
    """A ``snakemake`` command line taken apart: its other words (targets and options, in
    order), the config files it names and its ``KEY=VALUE`` config settings."""

    words: tuple[str, ...]
    config_files: tuple[str, ...]
    settings: tuple[str, ...]

    @classmethod
    def parse(cls, argv: Sequence[str]) -> CommandLine:
        """Take ``argv`` (program name first) apart as Snakemake's parser does: a config
        option's values run to the next word that starts with ``-`` (``--config=K=V``: one
        value)."""
        words: list[str] = []
        found: dict[str, list[str]] = {"files": [], "settings": []}
        into: list[str] | None = None
        for word in argv[1:]:
            option, equals, value = word.partition("=")
            if option in CONFIG_FILE_OPTIONS + CONFIG_OPTIONS:
                into = found["files" if option in CONFIG_FILE_OPTIONS else "settings"]
                if equals:  # --config=KEY=VALUE: one value, the next words are not its
                    into.append(value)
                    into = None
                continue
            if into is not None and not word.startswith("-"):
                into.append(word)
                continue
            into = None
            words.append(word)
        return cls(tuple(words), tuple(found["files"]), tuple(found["settings"]))

    def text(self, config_files: Sequence[str], settings: Sequence[str]) -> str:
        """The command with these config files and settings (one option each), quoted for
        a POSIX shell."""
        parts = ["snakemake", *self.words]
        parts += ["--configfile", *config_files] if config_files else []
        parts += ["--config", *settings] if settings else []
        return " ".join(shlex.quote(part) for part in parts)


def _setting(settings: Sequence[str], key: str) -> list[str]:
    return [s for s in settings if s.partition("=")[0] == key]


def _without(settings: Sequence[str], key: str) -> list[str]:
    return [s for s in settings if s.partition("=")[0] != key]


def refusal(
    made: Mapping[str, Any],
    results_dir: str,
    manifest: Path,
    command: CommandLine,
    changes: Sequence[str],
) -> str:
    """The one line that refuses a run (see the module docstring): ``made``, the run
    manifest of the results in ``results_dir`` (as the config names it)."""
    config_file = matching_config_file(made.get("config", {}))
    if config_file is None:
        same = f"rerun with the options that made them (their configuration is in {manifest})"
    else:
        files = (
            [] if config_file == DEFAULT_CONFIG_PATH else [str(config_file.relative_to(REPO_ROOT))]
        )
        mirror = [f"mirror={made['mirror']}"] if made.get("mirror") else []
        settings = [*_setting(command.settings, "results_dir"), *mirror]
        same = f"to go on with them: {command.text(files, settings)}"
    apart = command.text(
        command.config_files,
        [*_without(command.settings, "results_dir"), f"results_dir={results_dir}-other"],
    )
    return (
        f"geval-repro: nothing was run: {results_dir} holds results made with another "
        f"configuration, and this run would make them {'; '.join(changes)}. Either {same}; "
        f"or make this configuration's results in a folder of their own: {apart}; or remove "
        f"{manifest} to replace them."
    )


def check_results_configuration(
    config: Mapping[str, Any], results: Path, argv: Sequence[str]
) -> None:
    """Raise :class:`OtherConfiguration` when ``results`` (the folder of ``config``'s
    ``results_dir``) holds a run (its manifest) made with another configuration than
    ``config`` gives, by the rule of the module docstring; ``argv``: the command line, for
    the commands the message suggests."""
    manifest = results / "run_manifest.json"
    try:
        made = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except (OSError, ValueError) as error:
        raise OtherConfiguration(
            f"geval-repro: nothing was run: {manifest} cannot be read ({error}); it records "
            f"what the results in {results} were made with. Fix: remove it to replace them."
        ) from None
    current = analysis_config(config, config.get("judges_to_run", []))
    changes = configuration_change(made.get("config", {}), current)
    if changes:
        results_dir = str(config.get("results_dir", results))
        raise OtherConfiguration(
            refusal(made, results_dir, manifest, CommandLine.parse(argv), changes)
        )
