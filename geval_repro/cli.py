"""Command-line entry point: ``geval-repro recount | judge | steps | export | mirror``.

``judge`` and ``steps`` run G-Eval with an OpenAI-compatible model (see
:mod:`geval_repro.runner`); their modules are imported only when those commands run.

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

``judge``'s exit status: 0 when every item has an answer, 1 when some requests failed
(listed per item in the output, retried by the next run), 2 for invalid input.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Heavy modules (numpy, pandas, pandera, pooch, yaml, the judge, stats, runner and export
# modules) are imported inside the command handlers, so that ``geval-repro --help`` starts in
# a fraction of a second (tests/test_cli.py checks that importing this module loads none).

DEFAULT_RAW = Path("data") / "raw"  # relative to the working directory, as in the pipeline
DEFAULT_PROCESSED = Path("data") / "processed"
DEFAULT_CONFIG = Path("workflow") / "config.yaml"


def recount(path: Path, dimension: str, parser: str, raw_dir: Path) -> dict[str, object]:
    """Summary-level correlations of one released-format file with SummEval's experts."""
    import numpy as np

    from geval_repro.files.fetch import fetch_source, resolve_mirror
    from geval_repro.load import load_released_replies, load_summeval
    from geval_repro.scoring.diagnostics import reply_diagnostics
    from geval_repro.scoring.item_scores import item_scores
    from geval_repro.scoring.pairing import paired_matrices
    from geval_repro.stats.levels import correlate
    from geval_repro.stats.ties import tie_rate

    summeval_path = fetch_source("summeval", raw_dir, mirror=resolve_mirror(None))
    human = load_summeval(summeval_path)
    replies = load_released_replies(path, "cli", dimension, human)
    items = item_scores(replies, parser)
    judge, gold = paired_matrices(items, human, dimension, "mean")
    result: dict[str, object] = {"file": str(path), "dimension": dimension, "parser": parser}
    result["n_docs_in_file"] = int(replies["doc_id"].nunique())
    result["n_items_in_file"] = int(replies[["doc_id", "system_id"]].drop_duplicates().shape[0])
    for coefficient in ("pearson", "spearman", "kendall"):
        level = correlate(judge, gold, "summary", coefficient)
        result[coefficient] = level.value
        result["n_docs"] = level.n_groups
    complete = ~(np.isnan(judge) | np.isnan(gold))
    result["n_items"] = int(complete.sum())
    result["tie_rate"] = tie_rate(np.where(complete, judge, np.nan), "summary").rate
    diagnostics = reply_diagnostics(replies, parsers=[parser]).iloc[0]
    result["unparsed"] = int(diagnostics["n_unread"])
    result["n_replies"] = int(diagnostics["n_replies"])
    return result


def _coverage_warning(result: dict[str, object]) -> str | None:
    """A warning when the file covers fewer than SummEval's documents, else ``None``."""
    from geval_repro.load.schemas import SUMMEVAL_N_DOCS, SUMMEVAL_N_SYSTEMS

    if result["n_docs_in_file"] >= SUMMEVAL_N_DOCS:
        return None
    return (
        f"geval-repro: warning: {result['file']} covers {result['n_docs_in_file']} of "
        f"{SUMMEVAL_N_DOCS} SummEval documents ({result['n_items_in_file']} of "
        f"{SUMMEVAL_N_DOCS * SUMMEVAL_N_SYSTEMS} summaries); the correlations average over "
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
    print(f"{result['file']}: {result['dimension']}, parser {result['parser']}")
    for coefficient in ("pearson", "spearman", "kendall"):
        print(f"  {coefficient:<9} {result[coefficient]:.4f}  (summary level)")
    print(f"  documents kept {result['n_docs']}, items {result['n_items']}")
    print(f"  tie rate {result['tie_rate']:.4f} (within-document pairs of item scores)")
    unread = "scored 0" if result["parser"] == "original" else "left out"
    print(f"  unparsed replies {result['unparsed']} of {result['n_replies']} ({unread})")


def _add_judge_parser(commands: argparse._SubParsersAction) -> None:
    from geval_repro.registry.benchmarks import NAMES

    judge = commands.add_parser(
        "judge", help="run G-Eval on a benchmark with an OpenAI-compatible model"
    )
    judge.add_argument("--benchmark", required=True, choices=NAMES)
    judge.add_argument("--dimension", required=True)
    judge.add_argument("--model", required=True)
    judge.add_argument("--base-url", default="https://api.openai.com/v1")
    judge.add_argument("--mode", required=True, choices=("logprobs", "sample", "both"))
    judge.add_argument("--n", type=int, help="replies per item (default 20; 1 for logprobs)")
    judge.add_argument("--temperature", type=float, default=1.0)
    judge.add_argument("--top-p", type=float, default=1.0)
    judge.add_argument("--max-tokens", type=int, default=5)
    judge.add_argument("--top-logprobs", type=int, default=20)
    judge.add_argument("--concurrency", type=int, default=8)
    judge.add_argument("--limit", type=int, help="only the first N items in benchmark order")
    judge.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env variable of the key")
    judge.add_argument("--cache", type=Path, help="cache folder (default: OUT/cache)")
    judge.add_argument("--dry-run", action="store_true", help="estimate requests and cost only")
    judge.add_argument("--out", type=Path, required=True)
    judge.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    judge.add_argument("--max-attempts", type=int, default=6, help="attempts per request")
    judge.add_argument("--prompt", type=Path, help="own template instead of the default one")
    judge.add_argument("--raw-dir", type=Path, default=DEFAULT_RAW, help="where sources go")
    judge.add_argument("--processed", type=Path, help="read <DIR>/<benchmark>.parquet instead")
    judge.add_argument("--price-input", type=float, help="USD per million prompt tokens")
    judge.add_argument("--price-output", type=float, help="USD per million completion tokens")


def _add_steps_parser(commands: argparse._SubParsersAction) -> None:
    steps = commands.add_parser(
        "steps", help="freeze a template's evaluation steps written by a model (auto-CoT)"
    )
    steps.add_argument("--criteria", type=Path, required=True, help="template with steps slot")
    steps.add_argument("--model", required=True)
    steps.add_argument("--base-url", default="https://api.openai.com/v1")
    steps.add_argument("--api-key-env", default="OPENAI_API_KEY")
    steps.add_argument("--temperature", type=float, default=0.0)
    steps.add_argument("--max-tokens", type=int, default=512)
    steps.add_argument("--force", action="store_true", help="replace existing frozen steps")


def _judge(args: argparse.Namespace) -> int:
    from geval_repro.files.fetch import FetchError
    from geval_repro.runner.requests import RequestParams
    from geval_repro.runner.run import RunOptions, build_plan, dry_run, run_judge

    try:
        params = RequestParams(
            model=args.model,
            mode=args.mode,
            n=args.n if args.n is not None else (1 if args.mode == "logprobs" else 20),
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            top_logprobs=args.top_logprobs,
        )
        options = RunOptions(
            benchmark=args.benchmark,
            dimension=args.dimension,
            params=params,
            base_url=args.base_url,
            out=args.out,
            cache_dir=args.cache,
            limit=args.limit,
            concurrency=args.concurrency,
            timeout=args.timeout,
            max_attempts=args.max_attempts,
            api_key_env=args.api_key_env,
            raw_dir=args.raw_dir,
            processed=args.processed,
            prompt_path=args.prompt,
            price_input=args.price_input,
            price_output=args.price_output,
        )
        plan = build_plan(options)
        if args.dry_run:
            estimate = dry_run(options, plan)
            print(json.dumps(estimate, indent=2))
            print(
                "dry run: prompt tokens estimated as characters / 4, completion tokens as "
                "n * max_tokens per request (an upper bound); nothing was sent",
                file=sys.stderr,
            )
            return 0
        if not os.environ.get(args.api_key_env):
            print(
                f"geval-repro: ${args.api_key_env} is not set: sending a placeholder key "
                "(fine for a local server without authentication)",
                file=sys.stderr,
            )
        summary = run_judge(options, plan)
    except (FetchError, ValueError, OSError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    print(
        f"judge {args.benchmark}/{args.dimension}: {summary['items']} items, sent "
        f"{summary['sent']}, cached {summary['cached']}, failed {summary['failed']}, "
        f"retries {summary['retries']}, tokens {summary['tokens_sent']} sent / "
        f"{summary['tokens']} in output; wrote {args.out / (args.dimension + '.jsonl')}",
        file=sys.stderr,
    )
    return 1 if summary["failed"] else 0


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


def judge_specs(configs: Sequence[Path]) -> dict[str, Any]:
    """The ``judges`` entries of ``configs``, later files overriding earlier ones per run (as
    Snakemake merges ``--configfile`` into the default config)."""
    import yaml

    specs: dict[str, Any] = {}
    for path in configs:
        with open(path, encoding="utf-8") as handle:
            specs.update((yaml.safe_load(handle) or {}).get("judges") or {})
    return specs


def _add_export_parser(commands: argparse._SubParsersAction) -> None:
    export = commands.add_parser(
        "export", help="the tidy benchmarks and judge runs as a Hugging Face dataset"
    )
    export.add_argument("out", type=Path, help="folder to write (replaced if present)")
    export.add_argument("--format", required=True, choices=["hf"])
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
    from geval_repro.report.export_hf import export_hf

    try:
        if args.config is not None and not args.config.is_file():
            raise FileNotFoundError(f"--config {args.config}: no such file")
        configs = [p for p in (DEFAULT_CONFIG, args.config) if p is not None and p.is_file()]
        specs = judge_specs(configs)
        judges_dir = args.processed / "judges"
        names = args.judge or sorted(
            p.name for p in (judges_dir.iterdir() if judges_dir.is_dir() else ()) if p.is_dir()
        )
        scored = export_hf(args.processed, args.out, {n: specs.get(n, {}) for n in names})
    except (ValueError, OSError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    print(f"{args.out}: " + "; ".join(f"{b}: {n or 'no judge run'}" for b, n in scored.items()))
    return 0


def _recount(args: argparse.Namespace) -> int:
    from geval_repro.files.fetch import FetchError
    from geval_repro.load.schemas import SUMMEVAL_DIMENSIONS
    from geval_repro.scoring.parse import PARSERS

    for name, value, allowed in (
        ("--dimension", args.dimension, SUMMEVAL_DIMENSIONS),
        ("--parser", args.parser, PARSERS),
    ):
        if value not in allowed:
            print(f"geval-repro recount: {name} {value!r}: use one of {allowed}", file=sys.stderr)
            return 2
    try:
        result = recount(args.file, args.dimension, args.parser, args.raw_dir)
    except (FetchError, ValueError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(
            f"geval-repro: cannot read {error.filename or args.file}: {error.strerror or error}. "
            "Fix: check the path and its permissions",
            file=sys.stderr,
        )
        return 2
    warning = _coverage_warning(result)
    if warning is not None:
        print(warning, file=sys.stderr)
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
        "mirror", help="fetch every registered source into DIR (an offline mirror), verified"
    )
    mirror.add_argument("dir", type=Path)
    mirror.add_argument(
        "--base-url", help="fetch <BASE_URL>/<owner>/<repo>/<commit>/<path> (a served mirror)"
    )
    mirror.add_argument("--timeout", type=float, default=60.0, help="seconds per file")
    mirror.add_argument("--retries", type=int, default=3)


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="geval-repro", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recount_parser = commands.add_parser(
        "recount", help="summary-level correlations of one released-format file"
    )
    recount_parser.add_argument("file", type=Path)
    recount_parser.add_argument(
        "--dimension", required=True, help="SummEval dimension (coherence, consistency, ...)"
    )
    recount_parser.add_argument(
        "--parser", default="original", help="reply parser: original (default) or tolerant"
    )
    recount_parser.add_argument("--json", action="store_true", help="print one JSON object")
    recount_parser.add_argument(
        "--raw-dir",
        type=Path,
        default=DEFAULT_RAW,
        help="where SummEval is fetched to (default: data/raw under the working directory)",
    )
    _add_judge_parser(commands)
    _add_steps_parser(commands)
    _add_export_parser(commands)
    _add_mirror_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "mirror":
        return _mirror(args)
    if args.command == "judge":
        return _judge(args)
    if args.command == "steps":
        return _steps(args)
    if args.command == "export":
        return _export(args)
    return _recount(args)


if __name__ == "__main__":
    raise SystemExit(main())
