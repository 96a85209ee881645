"""Prompt templates of the runner and frozen evaluation steps.

Templates use the released G-Eval placeholders ``{{Name}}``; a benchmark's ``texts`` map each
placeholder to a column of its tidy table (e.g. SummEval ``{{Document}}`` -> ``source``).

- SummEval: the four released prompt files (its registry entry's ``prompts.released``:
  sources ``summeval_prompt_coh|con|flu|rel``), fetched and verified against their pinned
  SHA-256, never retyped. They are read in text mode (CRLF -> LF), exactly as the released
  ``gpt4_eval.py`` reads them with ``open().read()``.
- Topical-Chat and QAGS: the paper released no prompts. This toolkit's prompts, in the
  released template (task, criteria, steps, form ending on the dimension name), are package
  data under ``geval_repro/prompts/<folder>/<dimension>.txt`` (the folder of the registry
  entry's ``prompts``; both QAGS subsets share ``qags/consistency.txt``). Their first line,
  starting with :data:`TOOLKIT_HEADER`, labels them as ours; that line is removed before
  sending, so the model sees only the template.

- A benchmark's prompt variants (its registry entry's ``prompt_variants``: SummEdits'
  zero-shot Yes/No prompt): the authors' released file, fetched through the sources registry
  and verified against its pinned SHA-256 like SummEval's, never retyped nor shipped (its
  licence, Apache-2.0, would allow shipping it with the licence text, but the project commits
  no upstream file: it stays byte-exact and checkable against the upstream). The file writes
  its own placeholders (``[ARTICLE]``, ``[SUMMARY_SENTENCES]``); :func:`read_template` with
  the variant's ``placeholders`` reads each as the ``{{Name}}`` of the benchmark's text, so
  the prompt sent is the file with each placeholder replaced by its text, as the authors'
  code fills it.

The ``sha256`` of a template is that of its file bytes (header included). A template
without a placeholder of the item's texts (an empty file, or one without any ``{{...}}``)
is refused before anything is sent (:func:`check_template`): every item would get the same
prompt.

Frozen steps (G-Eval's auto chain-of-thought): a template may contain the placeholder
``{{Evaluation Steps}}``. ``geval-repro steps`` asks a model once for the steps of such a
template and stores them beside it as ``<stem>.steps.json`` (model, date, text, sha256 of
the text). A run fills the placeholder from that file and records the hash; it refuses to
start when a stored hash does not match its text (someone edited the steps).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from geval_repro.registry.benchmarks import get_benchmark

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
TOOLKIT_HEADER = "# geval-repro toolkit prompt"
STEPS_PLACEHOLDER = "Evaluation Steps"
STEPS_SUFFIX = ".steps.json"


_PLACEHOLDER = re.compile(r"\{\{([^{}]+)\}\}")


def sha256_text(text: str) -> str:
    """SHA-256 (hex) of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class FrozenSteps:
    """Evaluation steps stored by ``geval-repro steps``: the text and its verified hash."""

    path: Path
    text: str
    sha256: str
    model: str


@dataclass(frozen=True)
class Prompt:
    """A template as sent (header removed), its file, file hash and frozen steps if any."""

    path: Path
    template: str
    sha256: str
    origin: str
    steps: FrozenSteps | None = None

    @property
    def placeholders(self) -> set[str]:
        """Names of the ``{{Name}}`` placeholders in the template."""
        return set(_PLACEHOLDER.findall(self.template))

    def fill(self, texts: Mapping[str, str], item: str = "") -> str:
        """The template with every placeholder replaced by ``texts[name]`` (steps included).

        A template may leave texts unused (SummEval's fluency prompt shows only the summary);
        a placeholder without a text is an error naming the item.
        """
        values = dict(texts)
        if self.steps is not None:
            values[STEPS_PLACEHOLDER] = self.steps.text
        missing = self.placeholders - set(values)
        if missing:
            raise ValueError(
                f"prompt {self.path}{' for ' + item if item else ''}: placeholders "
                f"{sorted(missing)} have no text (texts: {sorted(values)}); fix the template's "
                "{{Name}} placeholders or the benchmark's texts in "
                "geval_repro/registry/benchmarks.py"
            )
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.template)


def check_template(prompt: Prompt, texts: Mapping[str, str]) -> None:
    """Raise ``ValueError`` (naming the file and the fix) when ``prompt`` holds none of the
    placeholders of ``texts`` (a benchmark's ``texts``: placeholder -> column), e.g. an empty
    template: every item would be sent the same prompt."""
    names = ", ".join("{{" + name + "}}" for name in texts)
    if not prompt.template.strip():
        raise ValueError(
            f"prompt {prompt.path} is empty. Fix: give a template with the item's texts as "
            f"placeholders ({names})"
        )
    if not prompt.placeholders & set(texts):
        raise ValueError(
            f"prompt {prompt.path} has no placeholder of the item's texts, so every item would "
            f"be sent the same prompt; nothing was sent. Fix: put {names} where the texts go "
            "(the released G-Eval prompts show how)"
        )


def steps_path(prompt_path: Path) -> Path:
    """Where the frozen steps of ``prompt_path`` live: ``<stem>.steps.json`` beside it."""
    return prompt_path.with_name(prompt_path.stem + STEPS_SUFFIX)


def load_steps(path: Path) -> FrozenSteps:
    """Read frozen steps; raise when the stored hash does not match the stored text."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        text, stored, model = record["text"], record["sha256"], record["model"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(
            f"{path}: unreadable frozen steps ({error}); rerun `geval-repro steps` for its prompt"
        ) from None
    actual = sha256_text(text)
    if actual != stored:
        raise ValueError(
            f"{path}: the steps' text hashes to {actual[:12]}..., but the file records "
            f"{stored[:12]}...: the steps were edited after they were frozen. Restore the "
            "text, or rerun `geval-repro steps --force` to freeze new steps."
        )
    return FrozenSteps(path, text, stored, model)


def template_text(path: Path) -> tuple[str, str]:
    """A template file's text as sent and its origin (``released`` or ``geval-repro``).

    Read with universal newlines (CRLF -> LF), as the released script reads its prompts; the
    toolkit's header line, when present, is removed. A file that is not UTF-8 text (a
    binary file given by mistake) raises ``ValueError`` naming it.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        raise ValueError(
            f"prompt {path} is not UTF-8 text (byte {error.start}: {error.reason}): a "
            "template is a text file. Fix: give the template's text file (--prompt, run: "
            "prompts), saved as UTF-8"
        ) from None
    if text.startswith(TOOLKIT_HEADER):
        return (text.split("\n", 1)[1] if "\n" in text else ""), "geval-repro"
    return text, "released"


def read_template(path: Path, placeholders: Mapping[str, str] | None = None) -> Prompt:
    """Read a template file: drop the toolkit header line, attach verified frozen steps.

    A template with ``{{Evaluation Steps}}`` needs its ``.steps.json``; a steps file beside
    a template is always verified, so a tampered one stops the run either way.
    ``placeholders``: a released file's own placeholders -> the ``{{Name}}`` each stands for
    (a prompt variant's); a file that lacks one of them raises, naming it.
    """
    text, origin = template_text(path)
    for own, name in (placeholders or {}).items():
        if own not in text:
            raise ValueError(
                f"prompt {path} lacks its placeholder {own!r} (for {{{{{name}}}}}): not the "
                "released file the benchmark's prompt variant names. Fix: restore the file "
                "(it is fetched and verified by SHA-256), or give your own with --prompt"
            )
        text = text.replace(own, "{{" + name + "}}")
    stored = steps_path(path)
    steps = load_steps(stored) if stored.is_file() else None
    if STEPS_PLACEHOLDER in _PLACEHOLDER.findall(text) and steps is None:
        raise ValueError(
            f"{path} asks for {{{{{STEPS_PLACEHOLDER}}}}} but {stored} does not exist: run "
            f"`geval-repro steps --criteria {path} --model ... --base-url ...` first"
        )
    if steps is not None and STEPS_PLACEHOLDER not in _PLACEHOLDER.findall(text):
        steps = None  # verified above; a template with written steps does not use them
    return Prompt(path, text, hashlib.sha256(path.read_bytes()).hexdigest(), origin, steps)


def benchmark_prompt_path(
    benchmark: str, dimension: str, raw_dir: Path, mirror: Path | None = None
) -> Path:
    """The default template of a benchmark and dimension, where its registry entry's
    ``prompts`` say: a released prompt fetched and verified (from ``mirror`` or
    ``$GEVAL_REPRO_MIRROR`` when set), else this toolkit's own under :data:`PROMPTS_DIR`."""
    prompts = get_benchmark(benchmark).prompts
    if dimension in prompts.released:
        from geval_repro.files.fetch import fetch_source, resolve_mirror

        source = prompts.released[dimension]
        return fetch_source(source, raw_dir, mirror=resolve_mirror(mirror), progressbar=False)
    path = PROMPTS_DIR / str(prompts.folder) / f"{dimension}.txt"
    if prompts.folder is None or not path.is_file():
        raise ValueError(f"no prompt for {benchmark}/{dimension}: expected {path}")
    return path


def variant_prompt_path(
    benchmark: str, variant: str, raw_dir: Path, mirror: Path | None = None
) -> tuple[Path, Mapping[str, str]]:
    """The released file of a benchmark's prompt variant (fetched and verified, from
    ``mirror`` or ``$GEVAL_REPRO_MIRROR`` when set) and its placeholders; raise for a name
    the benchmark does not register."""
    registered = get_benchmark(benchmark).prompt_variant(variant)
    if registered is None:
        raise ValueError(f"{variant!r} is {benchmark}'s G-Eval form: use benchmark_prompt_path")
    from geval_repro.files.fetch import fetch_source, resolve_mirror

    path = fetch_source(
        registered.source, raw_dir, mirror=resolve_mirror(mirror), progressbar=False
    )
    return path, registered.placeholders


def steps_request_text(template: str) -> str:
    """The instruction asking for evaluation steps: the template up to its steps placeholder.

    G-Eval's auto-CoT gives the model the task introduction and the criteria and lets it
    write the steps; the text before ``{{Evaluation Steps}}`` ends on "Evaluation Steps:".
    """
    marker = "{{" + STEPS_PLACEHOLDER + "}}"
    if marker not in template:
        raise ValueError(
            f"the criteria file has no {marker} placeholder: put it where the steps go "
            "(after 'Evaluation Steps:'), as in a released G-Eval prompt"
        )
    head = template.split(marker, 1)[0].rstrip()
    return (
        f"{head}\n\n(Write only the evaluation steps, as a short numbered list, "
        "for a reader who will follow them to rate one text.)"
    )
