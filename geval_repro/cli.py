"""Command-line entry point: ``geval-repro recount | judge | probe | steps | serve | export |
mirror``.

``judge``, ``probe`` and ``steps`` run G-Eval with an OpenAI-compatible model (see
:mod:`geval_repro.runner`); ``serve`` starts this toolkit's local model on llama.cpp
(:mod:`geval_repro.runner.server`) until Ctrl-C, for ``judge --base-url``; their modules are
imported only when those commands run.
``geval-repro --help`` shows :data:`DESCRIPTION` and an example per command
(:data:`EXAMPLES`); ``--version`` the installed version.

``recount`` recounts one released-format G-Eval file (the list-of-items JSON of
nlpyang/geval, with ``all_responses``) against SummEval's expert-mean scores without the
pipeline: the released meta_eval_summeval.py, done right. Per item the score is the mean of
its parsed replies; per document the systems' scores are correlated with the human scores
(documents with a constant vector skipped) and the correlations averaged over the documents
kept (the paper's summary level). SummEval is found through the sources registry, fetched
and verified like in the pipeline (from ``$GEVAL_REPRO_MIRROR`` when set).

``recount``'s exit status: 0 with a result; 1 when no document could be scored (a message
on stderr says why; with ``--json`` the counts are still printed, the coefficients
``null``); 2 when an input is missing or invalid. A file that covers only some SummEval
documents is recounted with a warning on stderr, since its average runs over those
documents only. ``--json`` prints strict JSON (``null`` for a value that is not a number).
``export --format hf OUT`` writes the tidy benchmarks of ``data/processed`` with the judge
runs found under ``data/processed/judges/`` as a Hugging Face dataset
(:mod:`geval_repro.report.export_hf`, imported only then); the runs' labels and fixture flags come
from the config. Exit status 0, or 2 when an input is missing or invalid.

``mirror DIR`` fetches every source of the registry into an offline mirror, verified, with
its MANIFEST.tsv (:mod:`geval_repro.files.mirror`, imported only then). Exit status 0, or 1 when a
source could not be mirrored (each named on stderr).

``judge``'s exit status (:data:`JUDGE_EXIT`): 0 when every item has an answer, 1 when some
requests failed (listed per item in the output, retried by the next run; the console names
each distinct error with its count), 2 when the run could not go on (nothing more is sent:
invalid input, no key for a hosted API, a key over plain HTTP to another machine, a host
that does not resolve, a server that cannot be reached or cannot serve the run, an output
folder another run holds, a symbolic link where the run would write, a damaged cache or
manifest), 3 when a file could not be written for lack of space (free space and rerun: the
answers stored are kept), 130 / 143 when stopped by SIGINT / SIGTERM (the answers received
are cached; a rerun sends only what is missing). Each is one line on stderr, never a
traceback. ``--dimension all`` (or several names) runs every dimension named, one output
file each. ``probe``'s exit status: 0, or 2 when the server cannot be asked. ``serve``'s: 0
when stopped by Ctrl-C or SIGTERM, 1 when the server ended by itself, 2 when it could not
start.

Numbers given to ``judge``, ``probe``, ``steps`` and ``serve`` must be finite
(:func:`finite_number`: ``nan`` and ``inf`` are usage errors naming the option).

``judge --dry-run`` and ``recount`` read the benchmark's files from the offline mirror given
by ``--mirror``, else the config's ``mirror`` (``--config``, default ``workflow/config.yaml``
when present), else ``$GEVAL_REPRO_MIRROR``, as the pipeline does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from geval_repro.registry.judges import RUN_DEFAULTS
from geval_repro.runner.fields import REASONING_MAX_TOKENS, RELEASED_MAX_TOKENS
from geval_repro.runner.probe import PROBE_TEMPERATURE

# Heavy modules (numpy, pandas, pandera, pooch, yaml, the judge, stats, runner and export
# modules) are imported inside the command handlers, so that ``geval-repro --help`` starts in
# a fraction of a second (tests/test_cli.py checks that importing this module loads none).

DEFAULT_RAW = Path("data") / "raw"  # relative to the working directory, as in the pipeline
DEFAULT_PROCESSED = Path("data") / "processed"
DEFAULT_CONFIG = Path("workflow") / "config.yaml"
DEFAULT_BASE_URL = RUN_DEFAULTS["base_url"]
#: ``judge``'s exit status by outcome (see the module docstring; 130/143 for the signals).
JUDGE_EXIT = {"answered": 0, "failed": 1, "stopped": 2, "no_space": 3}
SERVE_PORT = 8011

DESCRIPTION = """\
geval-repro reproduces G-Eval (Liu et al., EMNLP 2023), in which an LLM judge rates a text
1-5 against written criteria and the score is the probability-weighted mean of the ratings.
The Snakemake pipeline (`snakemake --cores 4`) recomputes the paper's tables from pinned,
verified upstream files; these commands do single steps: recount one released reply file,
run a judge on a benchmark with any OpenAI-compatible model, ask a server what it supports,
serve this toolkit's local model, freeze auto-CoT evaluation steps, export a Hugging Face
dataset, make an offline mirror."""

EXAMPLES = """\
examples:
  geval-repro recount gpt4_coh_detailed.json --dimension coherence --json
  geval-repro judge --benchmark summeval --dimension all --model gpt-4o --mode sample \\
      --n 20 --out runs/gpt4o --limit 32 --dry-run --price-input 2.5 --price-output 10
  geval-repro probe --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-7B-Instruct
  geval-repro serve --model smollm2-135m --port 8011
  geval-repro steps --criteria my_prompt.txt --model gpt-4o
  geval-repro export --format hf results/hf
  geval-repro mirror /path/to/mirror

docs: README.md, docs/judge-runner.md (judge, probe), docs/local-model.md (a local model)"""


def _coverage_warning(result: dict[str, object]) -> str | None:
    """A warning when the file covers fewer than the benchmark's documents, else ``None``."""
    if result["n_docs_in_file"] >= result["n_docs_in_benchmark"]:
        return None
    return (
        f"geval-repro: warning: {result['file']} covers {result['n_docs_in_file']} of "
        f"{result['n_docs_in_benchmark']} SummEval documents ({result['n_items_in_file']} of "
        f"{result['n_items_in_benchmark']} summaries); the correlations average over "
        "those documents only and are not comparable with the paper's"
    )


def _nothing_scored(result: dict[str, object]) -> str:
    """Why no document could be scored, and what to try."""
    return (
        f"geval-repro: {result['file']}: no document could be scored for "
        f"{result['dimension']} with parser {result['parser']} ({result['n_items']} of "
        f"{result['n_items_in_file']} items have a score; {result['unparsed']} of "
        f"{result['n_replies']} replies unparsed; a document counts only when its judge and "
        "human scores both vary across its summaries). Fix: check the file's replies, or "
        "try another --parser"
    )


def _strict_json(result: dict[str, object]) -> str:
    """``result`` as strict JSON: a float that is NaN becomes ``null``."""
    clean = {
        key: None if isinstance(value, float) and math.isnan(value) else value
        for key, value in result.items()
    }
    return json.dumps(clean, sort_keys=True, allow_nan=False)


def _print_text(result: dict[str, object]) -> None:
    from geval_repro.stats.registry import COEFFICIENTS

    print(f"{result['file']}: {result['dimension']}, parser {result['parser']}")
    for coefficient in COEFFICIENTS:
        print(f"  {coefficient:<9} {result[coefficient]:.4f}  (summary level)")
    print(f"  documents kept {result['n_docs']}, items {result['n_items']}")
    print(f"  tie rate {result['tie_rate']:.4f} (within-document pairs of item scores)")
    unread = "scored 0" if result["parser"] == "original" else "left out"
    print(f"  unparsed replies {result['unparsed']} of {result['n_replies']} ({unread})")


def finite_number(text: str) -> float:
    """An option's number (``argparse`` type): ``nan`` and ``inf`` are refused, naming the
    option, since they would be sent or waited for as given."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def positive_number(text: str) -> float:
    """A finite number above 0 (``argparse`` type; see :func:`finite_number`)."""
    value = finite_number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"not above 0: {text!r}")
    return value


def _dimension_list() -> str:
    """Every benchmark's dimensions, for the help text."""
    from geval_repro.registry.benchmarks import BENCHMARKS

    return "; ".join(f"{b.name}: {', '.join(b.dimension_names)}" for b in BENCHMARKS.values())


def _add_judge_parser(commands: argparse._SubParsersAction) -> None:
    from geval_repro.registry.benchmarks import NAMES

    judge = commands.add_parser(
        "judge",
        help="run G-Eval on a benchmark with an OpenAI-compatible model",
        description="Run G-Eval on a benchmark's items with a model behind an OpenAI-\n"
        "compatible Chat Completions server: one <dimension>.jsonl per dimension in --out,\n"
        "answers cached (a rerun sends only what is missing). See docs/judge-runner.md.",
        epilog="example:\n  geval-repro judge --benchmark topical_chat --dimension all \\\n"
        "      --model Qwen/Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1 \\\n"
        "      --mode both --n 20 --out runs/qwen7b --limit 30",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = judge.add_argument
    add("--benchmark", required=True, choices=NAMES, help="the benchmark whose items to judge")
    add(
        "--dimension",
        required=True,
        nargs="+",
        metavar="DIMENSION",
        help=f"one or more dimensions, or 'all' (one output file each). {_dimension_list()}",
    )
    add("--model", required=True, help="the model name the server knows (sent as 'model')")
    add(
        "--base-url",
        action="append",
        metavar="URL",
        help=f"the server's OpenAI-compatible base URL (default {DEFAULT_BASE_URL}); repeat "
        "for several servers of the same model (items are spread over them, a failed "
        "server's items retried on the others)",
    )
    add(
        "--mode",
        required=True,
        choices=("logprobs", "sample", "both"),
        help="sample: n replies per item; logprobs: one reply, the rating distribution read "
        "from its log-probabilities; both: n replies with log-probabilities",
    )
    add("--n", type=int, help="replies per item (default 20; 1 for --mode logprobs)")
    temperature, top_p = RUN_DEFAULTS["temperature"], RUN_DEFAULTS["top_p"]
    add(
        "--temperature",
        type=finite_number,
        default=temperature,
        help=f"sampling temperature (default {temperature})",
    )
    add(
        "--top-p",
        type=finite_number,
        default=top_p,
        help=f"nucleus sampling top_p (default {top_p})",
    )
    add(
        "--max-tokens",
        type=int,
        default=RUN_DEFAULTS["max_tokens"],
        help=f"completion budget per reply (default automatic: {RELEASED_MAX_TOKENS}, as "
        f"released; {REASONING_MAX_TOKENS} for a model the probe finds reasoning, which "
        "thinks before it answers); sent as max_completion_tokens to a server that asks so",
    )
    add(
        "--top-logprobs",
        type=int,
        default=RUN_DEFAULTS["top_logprobs"],
        help=f"candidates per position with log-probabilities, 1-20 (default "
        f"{RUN_DEFAULTS['top_logprobs']})",
    )
    add(
        "--seed",
        type=int,
        help="send every request a seed derived from this and the item (default: none; "
        "top-up requests always carry one, from 0)",
    )
    add(
        "--topup-logprobs",
        action="store_true",
        help="mode both on a server that returns fewer choices than n: ask log-probabilities "
        "in the top-up requests too (default: off, only the first request's choices)",
    )
    add(
        "--first-position",
        choices=("logit_bias",),
        help="mode logprobs: read the rating distribution at the first generated token, made "
        "a rating by a logit bias (models that preface their score; default: off)",
    )
    add(
        "--se-target",
        type=finite_number,
        metavar="SE",
        help="adaptive sampling (modes sample and both): ask replies in batches until the "
        "standard error of the item's mean rating is at most SE, or --n (then the maximum) is "
        "reached (default: off, n replies per item)",
    )
    add(
        "--batch",
        type=int,
        default=RUN_DEFAULTS["batch"],
        help=f"replies per request of adaptive sampling (default {RUN_DEFAULTS['batch']})",
    )
    add(
        "--concurrency",
        type=int,
        help="requests in flight per server (default: automatic, from the probe: 1 for "
        "llama-cpp-python's server, which answers one at a time; the slots of llama.cpp's "
        "llama-server; else 8)",
    )
    add("--limit", type=int, help="only the first N items in benchmark order (default: all)")
    add(
        "--sample",
        type=int,
        metavar="K",
        help="only K documents drawn with --seed, each with all its items (a benchmark at a "
        "global level: K items; SummEdits: K items per domain, split and label), in benchmark "
        "order (default: all)",
    )
    add(
        "--api-key-env",
        metavar="VAR",
        help="the NAME of the environment variable holding the servers' API key (never the "
        "key), sent to every --base-url, never over plain http:// except to this machine. "
        "Without it, $OPENAI_API_KEY is sent to api.openai.com only, a local server gets no "
        "key and another hosted API is refused. The key is written nowhere",
    )
    add("--cache", type=Path, help="answer cache folder (default: OUT/cache)")
    add(
        "--dry-run",
        action="store_true",
        help="print the requests to send and their estimated tokens (and cost in USD, given "
        "--price-input and --price-output); send nothing, write nothing",
    )
    add("--out", type=Path, required=True, help="folder for <dimension>.jsonl and manifest.json")
    add(
        "--timeout",
        type=finite_number,
        default=RUN_DEFAULTS["timeout"],
        help="seconds per request attempt in all, from connecting to the last byte (default "
        f"{RUN_DEFAULTS['timeout']:g}); a server that times out 3 times in a row, or in 10 of "
        "its last 20 attempts, is dropped as unreachable",
    )
    add(
        "--max-attempts",
        type=int,
        default=RUN_DEFAULTS["max_attempts"],
        help=f"attempts per request (default {RUN_DEFAULTS['max_attempts']})",
    )
    add(
        "--max-wait",
        type=finite_number,
        default=60.0,
        help="longest wait a server may ask for before a retry (Retry-After; default 60 s): "
        "a longer demand fails the item at once",
    )
    add(
        "--max-response-mb",
        type=finite_number,
        default=32.0,
        help="largest response read, in MiB (default 32, far above a rating reply); a larger "
        "one fails the item",
    )
    add(
        "--progress-seconds",
        type=finite_number,
        default=10.0,
        help="seconds between progress lines when stderr is not a terminal (default 10)",
    )
    add("--prompt", type=Path, help="own template instead of the default one")
    add(
        "--prompt-variant",
        default="geval",
        metavar="NAME",
        help="the benchmark's prompt to send: geval (default, its G-Eval form) or another it "
        "registers (summedits: yes-no, SummEdits' zero-shot Yes/No prompt)",
    )
    add(
        "--raw-dir",
        type=Path,
        default=DEFAULT_RAW,
        help="where upstream files are fetched to (default data/raw)",
    )
    add("--processed", type=Path, help="read <DIR>/<benchmark>.parquet instead of fetching")
    add("--mirror", type=Path, help="offline mirror folder (default: the config's, or "
        "$GEVAL_REPRO_MIRROR)")  # fmt: skip
    add("--config", type=Path, help="config whose mirror to use (default workflow/config.yaml)")
    add("--price-input", type=finite_number, help="USD per million prompt tokens (for --dry-run)")
    add(
        "--price-output",
        type=finite_number,
        help="USD per million completion tokens (for --dry-run)",
    )


def _add_probe_parser(commands: argparse._SubParsersAction) -> None:
    probe = commands.add_parser(
        "probe",
        help="ask an OpenAI-compatible server what it supports (n, logprobs, seed, context)",
        description="Send a few small requests and print what the server supports: several\n"
        "choices per request, log-probabilities and how many candidates, seed, context\n"
        "length when the server tells it. `judge` runs the same probe before sending.",
        epilog="example:\n  geval-repro probe --base-url http://localhost:8000/v1 --model m",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    probe.add_argument("--base-url", required=True, help="the server's base URL")
    probe.add_argument("--model", required=True, help="the model name the server knows")
    probe.add_argument(
        "--top-logprobs", type=int, default=20, help="candidates to ask for (default 20)"
    )
    probe.add_argument(
        "--temperature",
        type=finite_number,
        default=PROBE_TEMPERATURE,
        help=f"temperature of the probe's requests (default {PROBE_TEMPERATURE}: not 1, so "
        "the report says whether the server accepts a temperature other than 1; a run probes "
        "at its own)",
    )
    probe.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the server's API key (default: $OPENAI_API_KEY "
        "for api.openai.com only; no key for a local server)",
    )
    probe.add_argument("--timeout", type=finite_number, default=60.0, help="seconds per request")
    probe.add_argument("--json", action="store_true", help="print one JSON object")


def _add_steps_parser(commands: argparse._SubParsersAction) -> None:
    steps = commands.add_parser(
        "steps",
        help="freeze a template's evaluation steps written by a model (auto-CoT)",
        description="G-Eval's auto chain-of-thought: send a criteria template whose\n"
        "evaluation steps are left to the model, once, and freeze the steps the model writes\n"
        "beside it (<stem>.steps.json, with the model, server and date), so that every\n"
        "later judge run reads the same steps. Existing frozen steps are kept unless\n"
        "--force is given.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps.add_argument("--criteria", type=Path, required=True, help="template with steps slot")
    steps.add_argument("--model", required=True, help="the model name the server knows")
    steps.add_argument(
        "--base-url", default=DEFAULT_BASE_URL, help=f"server base URL (default {DEFAULT_BASE_URL})"
    )
    steps.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="variable of the server's key (default: $OPENAI_API_KEY for api.openai.com only)",
    )
    steps.add_argument("--temperature", type=finite_number, default=0.0, help="default 0")
    steps.add_argument("--max-tokens", type=int, default=512, help="default 512")
    steps.add_argument("--force", action="store_true", help="replace existing frozen steps")


@contextlib.contextmanager
def quiet_fetch_logs() -> Iterator[None]:
    """One line per failed fetch on the console while the block runs: the command prints the
    error it raises, so pooch's "Downloading ..." line and the MISSING/FIX lines meant for
    job logs are held back (and let through again afterwards)."""
    import logging

    import pooch

    from geval_repro.files.fetch import FIX, MISSING

    def not_for_the_console(record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith((MISSING, FIX))

    fetch_log, pooch_log = logging.getLogger("geval_repro.files.fetch"), pooch.get_logger()
    level = pooch_log.level
    pooch_log.setLevel(logging.WARNING)
    fetch_log.addFilter(not_for_the_console)
    try:
        yield
    finally:
        fetch_log.removeFilter(not_for_the_console)
        pooch_log.setLevel(level)


def config_mirror(config: Path | None) -> str | None:
    """The ``mirror`` of ``config`` (or of workflow/config.yaml when present), if set."""
    import yaml

    path = config if config is not None else DEFAULT_CONFIG
    if config is not None and not config.is_file():
        raise FileNotFoundError(f"--config {config}: no such file")
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as handle:
        return (yaml.safe_load(handle) or {}).get("mirror")


def command_mirror(mirror: Path | None, config: Path | None) -> Path | None:
    """The mirror a command uses: ``--mirror``, else the config's, else the environment's."""
    from geval_repro.files.fetch import resolve_mirror

    if mirror is not None:
        return resolve_mirror(mirror, "--mirror")
    return resolve_mirror(config_mirror(config), f"the key 'mirror' of {config}")


def judge_dimensions(benchmark: str, names: Sequence[str]) -> list[str]:
    """``--dimension`` values as the benchmark's dimensions (``all`` = every one); a name
    that is not one raises naming the closest valid one."""
    import difflib

    from geval_repro.registry.benchmarks import get_benchmark

    entry = get_benchmark(benchmark)
    if list(names) == ["all"]:
        return list(entry.dimension_names)
    for name in names:
        if name not in entry.dimension_names:
            close = difflib.get_close_matches(name, entry.dimension_names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"--dimension {name!r}: {entry.title} has no dimension {name!r}{hint}; use "
                f"one of {list(entry.dimension_names)}, or all"
            )
    return list(dict.fromkeys(names))


def _judge(args: argparse.Namespace) -> int:
    """The ``judge`` command: each dimension in turn, one probe per server; SIGINT and
    SIGTERM stop it cleanly (:mod:`geval_repro.runner.stopping`)."""
    from geval_repro.runner.stopping import Interrupted, stop_on_signals

    created = _new_folders(args.raw_dir)
    try:
        with quiet_fetch_logs(), stop_on_signals():
            status = _run_judge(args)
    except Interrupted as stop:
        cache = args.cache if args.cache is not None else args.out / "cache"
        print(
            f"geval-repro: stopped by {stop.signal_name}; the answers received are cached in "
            f"{cache} and no file was left half-written: rerun the same command to send only "
            "what is missing",
            file=sys.stderr,
        )
        status = stop.code
    if status != JUDGE_EXIT["answered"]:
        _remove_if_empty(created)
    return status


def _run_judge(args: argparse.Namespace) -> int:
    """:func:`_judge` with the fetch logs held back."""
    from geval_repro.files.fetch import FetchError
    from geval_repro.registry.judges import RunSpec, default_n
    from geval_repro.runner.cache import NO_SPACE, DiskFull
    from geval_repro.runner.configured import run_options, summary_lines
    from geval_repro.runner.run import Session, build_plan, dry_run, run_judge

    failed = False
    mirror = None
    try:
        dimensions = judge_dimensions(args.benchmark, args.dimension)
        run = RunSpec(
            mode=args.mode,
            model=args.model,
            n=args.n if args.n is not None else default_n(args.mode),
            dimensions=tuple(dimensions),
            base_urls=tuple(args.base_url or [DEFAULT_BASE_URL]),
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            top_logprobs=args.top_logprobs,
            concurrency=args.concurrency,
            limit=args.limit,
            sample=args.sample,
            timeout=args.timeout,
            max_attempts=args.max_attempts,
            api_key_env=args.api_key_env,
            seed=args.seed,
            topup_logprobs=args.topup_logprobs,
            first_position=args.first_position,
            se_target=args.se_target,
            batch=args.batch,
            prompts={d: str(args.prompt) for d in dimensions} if args.prompt else {},
            prompt_variant=args.prompt_variant,
        )
        mirror = command_mirror(args.mirror, args.config)
        options_of = {
            dimension: run_options(
                run,
                args.benchmark,
                dimension,
                out=args.out,
                cache_dir=args.cache,
                raw_dir=args.raw_dir,
                processed=args.processed,
                mirror=mirror,
                price_input=args.price_input,
                price_output=args.price_output,
                max_wait=args.max_wait,
                max_response_mb=args.max_response_mb,
                progress_seconds=args.progress_seconds,
            )
            for dimension in dimensions
        }
        session = Session()
        estimates, questions = {}, []
        for dimension, options in options_of.items():
            plan = build_plan(options, ask=not args.dry_run)
            if args.dry_run:
                estimates[dimension] = dry_run(options, plan)
                questions += plan.questions
                continue
            summary = run_judge(options, plan, session)
            for line in summary_lines(args.benchmark, dimension, summary):
                print(line, file=sys.stderr)
            print(f"  wrote {args.out / (dimension + '.jsonl')}", file=sys.stderr)
            failed = failed or bool(summary["failed"])
    except FetchError as error:
        hint = "" if mirror is not None else " For this command: --mirror DIR."
        print(f"geval-repro: {error}{hint}", file=sys.stderr)
        return JUDGE_EXIT["stopped"]
    except DiskFull as error:
        print(f"geval-repro: {error.strerror}", file=sys.stderr)
        return JUDGE_EXIT["no_space"]
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        fix = (
            "free space and rerun"
            if error.errno in NO_SPACE
            else "check the path and its permissions"
        )
        print(f"geval-repro: {where}{error.strerror or error}. Fix: {fix}", file=sys.stderr)
        return JUDGE_EXIT["no_space" if error.errno in NO_SPACE else "stopped"]
    except ValueError as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return JUDGE_EXIT["stopped"]
    if args.dry_run:
        print(json.dumps(_dry_run_report(args, estimates), indent=2))
        for question in dict.fromkeys(questions):
            print(
                f"dry run: a run would first ask {question}; until then no request is found "
                "in the cache, so the estimate counts none as cached",
                file=sys.stderr,
            )
        priced = args.price_input is not None and args.price_output is not None
        print(
            "dry run: to_send counts one request per item asking for n replies; a server that "
            "returns fewer choices per request (llama.cpp's returns one) gets top-up requests, "
            "each billing its prompt again: then up to requests_at_most requests and "
            "prompt_tokens_at_most prompt tokens (`geval-repro probe` tells how many choices "
            "the server returns)",
            file=sys.stderr,
        )
        print(
            "dry run: prompt tokens estimated as characters / 4, completion tokens as "
            "n * max_tokens per request (an upper bound), "
            + (
                "cost_estimate_usd and cost_at_most_usd in US dollars from "
                "--price-input/--price-output"
                if priced
                else "no cost (cost_estimate_usd and cost_at_most_usd null): pass "
                "--price-input and --price-output, "
                "USD per million tokens"
            )
            + "; nothing was sent",
            file=sys.stderr,
        )
        return JUDGE_EXIT["answered"]
    return JUDGE_EXIT["failed" if failed else "answered"]


def _dry_run_report(args: argparse.Namespace, estimates: dict[str, dict]) -> dict[str, Any]:
    """The dry run's JSON, one shape for one dimension or several: the benchmark, each
    dimension's estimate and their total."""
    from geval_repro.runner.run import costs

    total = {
        name: sum(e[name] for e in estimates.values())
        for name in (
            "requests",
            "cached",
            "to_send",
            "prompt_tokens_estimate",
            "completion_tokens_max",
            "requests_at_most",
            "prompt_tokens_at_most",
        )
    }
    if any("completion_tokens_estimate" in e for e in estimates.values()):
        # a reasoning model's estimate from the probe's full reply (geval_repro.runner.fields)
        total["completion_tokens_estimate"] = sum(
            e.get("completion_tokens_estimate", e["completion_tokens_max"])
            for e in estimates.values()
        )
        total["reasoning_tokens_estimate"] = sum(
            e.get("reasoning_tokens_estimate", 0) for e in estimates.values()
        )
    total |= costs(total, args.price_input, args.price_output)
    return {"benchmark": args.benchmark, "dimensions": estimates, "total": total}


def _probe(args: argparse.Namespace) -> int:
    """The ``probe`` command: print what the server supports."""
    import asyncio

    from geval_repro.runner.client import CompletionClient
    from geval_repro.runner.probe import preflight, probe

    async def ask(key: str | None):
        client = CompletionClient(
            args.base_url, key, concurrency=1, timeout=args.timeout, max_attempts=2
        )
        try:
            return await probe(
                client,
                args.base_url,
                args.model,
                logprobs=True,
                top_logprobs=args.top_logprobs,
                temperature=args.temperature,
            )
        finally:
            await client.close()

    try:
        key = preflight([args.base_url], args.api_key_env)[args.base_url]
        result = asyncio.run(ask(key.value))
    except ValueError as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        if args.json:  # a script reading stdout gets the error too, as JSON
            answer = {"base_url": args.base_url, "model": args.model, "error": str(error)}
            print(json.dumps(answer, indent=2, sort_keys=True))
        return 2
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, sort_keys=True))
    else:
        print("\n".join(result.lines()))
    return 2 if result.choices_for_n is None else 0


def _add_serve_parser(commands: argparse._SubParsersAction) -> None:
    from geval_repro.registry.local_models import NAMES

    serve = commands.add_parser(
        "serve",
        help="serve this toolkit's local model on 127.0.0.1 (llama.cpp) until Ctrl-C",
        description="Start llama-cpp-python's OpenAI-compatible server with a local model of\n"
        "the registry (its file's SHA-256 checked first) on 127.0.0.1, print the\n"
        "`geval-repro judge` command for it, and stop it on Ctrl-C or SIGTERM. Needs the\n"
        "local extra (docs/local-model.md).",
        epilog="example:\n  geval-repro serve --port 8011 &\n  geval-repro judge --base-url "
        "http://127.0.0.1:8011/v1 --model smollm2-135m \\\n"
        "      --benchmark summeval --dimension coherence --mode both --limit 16 --out runs/s",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--model", default=NAMES[0], choices=NAMES, help=f"the local model (default {NAMES[0]})"
    )
    serve.add_argument(
        "--port",
        type=int,
        default=SERVE_PORT,
        help=f"port on 127.0.0.1 (default {SERVE_PORT}: keep it, and a rerun's requests find "
        "their cached answers, whose key holds the server's address)",
    )
    serve.add_argument("--n-ctx", type=int, default=4096, help="context in tokens (default 4096)")
    serve.add_argument("--threads", type=int, help="CPU threads (default: every CPU)")
    serve.add_argument(
        "--startup-timeout",
        type=finite_number,
        default=180.0,
        help="seconds to wait for it (default 180)",
    )
    serve.add_argument("--log", type=Path, help="the server's log (default: a temporary file)")


def _serve(args: argparse.Namespace) -> int:
    """The ``serve`` command: start the local server, wait for a signal, stop it."""
    import time

    from geval_repro.runner.server import ServerStartError, llama_cpp_server
    from geval_repro.runner.stopping import Interrupted, stop_on_signals

    try:
        with stop_on_signals():
            server = llama_cpp_server(
                args.model,
                n_ctx=args.n_ctx,
                threads=args.threads,
                startup_timeout=args.startup_timeout,
                log_path=args.log,
                port=args.port,
            )
            with server:
                print(
                    f"serving {args.model} at {server.base_url} ({server.command.description}; "
                    f"log: {server.log_path}). Judge with it:\n  geval-repro judge --base-url "
                    f"{server.base_url} --model {server.model} --benchmark summeval "
                    "--dimension coherence --mode both --n 20 --seed 1 --limit 16 --out runs/"
                    f"{server.model}\nCtrl-C stops it.",
                    file=sys.stderr,
                    flush=True,
                )
                while server.process is not None and server.process.poll() is None:
                    time.sleep(0.2)
                status = server.process.poll() if server.process is not None else None
                print(
                    f"geval-repro: the server ended by itself (status {status}); its log: "
                    f"{server.log_path}",
                    file=sys.stderr,
                )
                return 1
    except Interrupted as stop:
        print(f"geval-repro: stopped the server ({stop.signal_name})", file=sys.stderr)
        return 0
    except ServerStartError as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2


def _steps(args: argparse.Namespace) -> int:
    from geval_repro.runner.steps import freeze_steps

    try:
        path = freeze_steps(
            args.criteria,
            args.model,
            args.base_url,
            api_key_env=args.api_key_env,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            force=args.force,
        )
    except (ValueError, OSError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    print(f"froze the evaluation steps in {path}", file=sys.stderr)
    return 0


def _add_export_parser(commands: argparse._SubParsersAction) -> None:
    export = commands.add_parser(
        "export",
        help="the tidy benchmarks and judge runs as a Hugging Face dataset",
        description="Write the pipeline's tidy benchmark tables, and the per-item columns of\n"
        "its judge runs, as a datasets.DatasetDict (one split per benchmark) with a dataset\n"
        "card, into OUT (docs/report.md). Needs the hf extra (datasets) and a pipeline run's\n"
        "data/processed/.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_argument("out", type=Path, help="folder to write (replaced if present)")
    export.add_argument(
        "--format", required=True, choices=["hf"], help="hf: a Hugging Face dataset (save_to_disk)"
    )
    export.add_argument(
        "--processed",
        type=Path,
        default=DEFAULT_PROCESSED,
        help="the pipeline's processed tables (default: data/processed)",
    )
    export.add_argument(
        "--config",
        type=Path,
        help="config with the judge runs' labels and fixture flags, read over "
        "workflow/config.yaml when that is present",
    )
    export.add_argument(
        "--judge",
        action="append",
        help="a judge run to join (repeatable; default: every run under PROCESSED/judges)",
    )


def _export(args: argparse.Namespace) -> int:
    """The ``export`` command: judge runs from ``--judge`` or found on disk, their labels and
    fixture flags from the default config and ``--config``."""
    import yaml

    from geval_repro.config import judge_spec
    from geval_repro.report.export_hf import export_hf

    try:
        if args.config is not None and not args.config.is_file():
            raise FileNotFoundError(f"--config {args.config}: no such file")
        entries: dict[str, Any] = {}  # later files override earlier ones per run, as Snakemake
        for path in (p for p in (DEFAULT_CONFIG, args.config) if p is not None and p.is_file()):
            entries.update(
                (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("judges") or {}
            )
        judges_dir = args.processed / "judges"
        names = args.judge or sorted(
            p.name for p in (judges_dir.iterdir() if judges_dir.is_dir() else ()) if p.is_dir()
        )
        specs = {n: judge_spec(n, entries[n]) if n in entries else None for n in names}
        scored = export_hf(args.processed, args.out, specs)
    except (ValueError, OSError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    print(f"{args.out}: " + "; ".join(f"{b}: {n or 'no judge run'}" for b, n in scored.items()))
    return 0


def _new_folders(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet, deepest first."""
    missing = []
    for folder in [path, *path.parents]:
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _remove_if_empty(folders: list[Path]) -> None:
    """Remove the folders (deepest first) that hold no file, with the empty folders a failed
    fetch made inside them; stop at the first that holds a file."""
    for folder in folders:
        for inside, _, _ in os.walk(folder, topdown=False):
            with contextlib.suppress(OSError):
                os.rmdir(inside)
        if folder.exists():
            return


def _recount(args: argparse.Namespace) -> int:
    import difflib

    from geval_repro.files.fetch import FetchError
    from geval_repro.load.schemas import JsonLinesError
    from geval_repro.registry.benchmarks import released_benchmark
    from geval_repro.scoring.parse import RATING_PARSERS

    for name, value, allowed in (
        ("--dimension", args.dimension, released_benchmark().dimension_names),
        ("--parser", args.parser, RATING_PARSERS),
    ):
        if value not in allowed:
            close = difflib.get_close_matches(value, list(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            print(
                f"geval-repro recount: {name} {value!r}: use one of {allowed}{hint}",
                file=sys.stderr,
            )
            return 2
    created = _new_folders(args.raw_dir)
    try:
        with quiet_fetch_logs():
            from geval_repro.pipeline.recount import recount

            result = recount(
                args.file,
                args.dimension,
                args.parser,
                args.raw_dir,
                command_mirror(args.mirror, args.config),
            )
    except JsonLinesError as error:
        _remove_if_empty(created)
        print(
            f"geval-repro: {error} recount reads one released-format file (a JSON list of "
            "items with all_responses). A JSON Lines run is read by the pipeline: give its "
            "folder as a geval-jsonl judge (dir: or files:, docs/judge-runner.md)",
            file=sys.stderr,
        )
        return 2
    except (FetchError, ValueError) as error:
        _remove_if_empty(created)
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        _remove_if_empty(created)
        print(
            f"geval-repro: cannot read {error.filename or args.file}: {error.strerror or error}. "
            "Fix: check the path and its permissions",
            file=sys.stderr,
        )
        return 2
    warning = _coverage_warning(result)
    if warning is not None:
        print(warning, file=sys.stderr)
    named = result["dimensions_named"]
    if named and args.dimension not in named:
        print(
            f"geval-repro recount: warning: --dimension {args.dimension}, but {args.file} "
            f"names {' and '.join(named)} (its file name or its prompts' criterion): check "
            f"that it holds {args.dimension} replies, or give --dimension {named[0]}",
            file=sys.stderr,
        )
    if args.json:
        print(_strict_json(result))
    if result["n_docs"] == 0:
        print(_nothing_scored(result), file=sys.stderr)
        return 1
    if not args.json:
        _print_text(result)
    return 0


def _add_mirror_parser(commands: argparse._SubParsersAction) -> None:
    mirror = commands.add_parser(
        "mirror",
        help="fetch every registered source into DIR (an offline mirror), verified",
        description="Fetch every upstream file of geval_repro/data/sources.yaml into DIR,\n"
        "laid out as <owner>/<repo>/<commit>/<path>, each checked against its SHA-256 and\n"
        "size, and write DIR/MANIFEST.tsv; on a machine without network, the pipeline\n"
        "(--config mirror=DIR), the judge runner (--mirror DIR) and the tests read it\n"
        "instead (docs/data-sources.md). Exit status 1 names each file it could not get.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mirror.add_argument("dir", type=Path, help="the mirror's folder (made if missing)")
    mirror.add_argument(
        "--base-url", help="fetch <BASE_URL>/<owner>/<repo>/<commit>/<path> (a served mirror)"
    )
    mirror.add_argument(
        "--timeout", type=positive_number, default=60.0, help="seconds per file (default 60)"
    )
    mirror.add_argument(
        "--retries",
        type=int,
        default=3,
        help="further attempts after a failed download of a file (default 3)",
    )


def _mirror(args: argparse.Namespace) -> int:
    import pooch

    from geval_repro.files.mirror import make_mirror
    from geval_repro.registry.sources import load_registry

    sources = list(load_registry().values())
    # Each failure is said once, below: not also by the fetch's and pooch's own log records.
    logging.getLogger("geval_repro").addHandler(logging.NullHandler())
    pooch.get_logger().setLevel(logging.WARNING)
    result = make_mirror(
        sources, args.dir, base_url=args.base_url, timeout=args.timeout, retries=args.retries
    )
    manifest = " (MANIFEST.tsv)" if result.mirrored else ""
    print(f"{args.dir}: {len(result.mirrored)} of {len(sources)} sources verified{manifest}")
    for source_id, error in result.failed.items():
        reason = error.summary.removeprefix(f"{source_id}: ").removeprefix(f"{source_id} ")
        print(f"geval-repro: {source_id} not mirrored: {reason}", file=sys.stderr)
    if result.failed:
        print(
            "Fix: run this on a machine that reaches the URLs above (a file that failed "
            "verification was discarded: check its source), then carry the folder over",
            file=sys.stderr,
        )
    return 1 if result.failed else 0


def _version() -> str:
    """The installed version of geval-repro (the package's own when not installed)."""
    from importlib import metadata

    try:
        return metadata.version("geval-repro")
    except metadata.PackageNotFoundError:
        from geval_repro import __version__

        return f"{__version__} (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (every command, its options and help)."""
    parser = argparse.ArgumentParser(
        prog="geval-repro",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    recount_parser = commands.add_parser(
        "recount",
        help="summary-level correlations of one released-format file",
        description="Recount one released-format G-Eval reply file against SummEval's\n"
        "expert scores at the summary level, as the released meta_eval_summeval.py.",
        epilog="example:\n  geval-repro recount gpt4_coh_detailed.json --dimension coherence",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    recount_parser.add_argument("file", type=Path, help="a released-format JSON file")
    recount_parser.add_argument(
        "--dimension",
        required=True,
        help="SummEval dimension: coherence, consistency, fluency or relevance",
    )
    recount_parser.add_argument(
        "--parser",
        default="original",
        help="reply parser: original (default), tolerant, or final (a long reply's last "
        "rating: a reasoning model's)",
    )
    recount_parser.add_argument("--json", action="store_true", help="print one JSON object")
    recount_parser.add_argument(
        "--raw-dir",
        type=Path,
        default=DEFAULT_RAW,
        help="where SummEval is fetched to (default: data/raw under the working directory)",
    )
    recount_parser.add_argument(
        "--mirror", type=Path, help="offline mirror (default: the config's, or $GEVAL_REPRO_MIRROR)"
    )
    recount_parser.add_argument(
        "--config", type=Path, help="config whose mirror to use (default workflow/config.yaml)"
    )
    _add_judge_parser(commands)
    _add_probe_parser(commands)
    _add_serve_parser(commands)
    _add_steps_parser(commands)
    _add_export_parser(commands)
    _add_mirror_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    handlers = {
        "mirror": _mirror,
        "judge": _judge,
        "probe": _probe,
        "serve": _serve,
        "steps": _steps,
        "export": _export,
        "recount": _recount,
    }
    return handlers[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
