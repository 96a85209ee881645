"""Command-line entry point: ``geval-repro recount FILE --dimension D`` and
``geval-repro export --format hf OUT``.

Recounts one released-format G-Eval file (the list-of-items JSON of nlpyang/geval, with
``all_responses``) against SummEval's expert-mean scores without the pipeline: the released
meta_eval_summeval.py, done right. Per item the score is the mean of its parsed replies;
per document the systems' scores are correlated with the human scores (documents with a
constant vector skipped) and the correlations averaged over the documents kept (the
paper's summary level). SummEval is found through the sources registry, fetched and
verified like in the pipeline (from ``$GEVAL_REPRO_MIRROR`` when set).

``export --format hf OUT`` writes the tidy benchmarks of ``data/processed`` with the judge
runs found under ``data/processed/judges/`` as a Hugging Face dataset
(:mod:`geval_repro.export_hf`); labels and fixture flags of the runs come from the config.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from geval_repro.fetch import FetchError, fetch_source, resolve_mirror
from geval_repro.judge.diagnostics import reply_diagnostics
from geval_repro.judge.item_scores import item_scores
from geval_repro.judge.pairing import paired_matrices
from geval_repro.judge.parse import PARSERS
from geval_repro.load import load_released_replies, load_summeval
from geval_repro.schemas import SUMMEVAL_DIMENSIONS
from geval_repro.stats.levels import correlate
from geval_repro.stats.ties import tie_rate

DEFAULT_RAW = Path("data") / "raw"  # relative to the working directory, as in the pipeline
DEFAULT_PROCESSED = Path("data") / "processed"
DEFAULT_CONFIG = Path("workflow") / "config.yaml"


def recount(path: Path, dimension: str, parser: str, raw_dir: Path) -> dict[str, object]:
    """Summary-level correlations of one released-format file with SummEval's experts."""
    summeval_path = fetch_source("summeval", raw_dir, mirror=resolve_mirror(None))
    human = load_summeval(summeval_path)
    replies = load_released_replies(path, "cli", dimension, human)
    items = item_scores(replies, parser)
    judge, gold = paired_matrices(items, human, dimension, "mean")
    result = {"file": str(path), "dimension": dimension, "parser": parser}
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


def _print_text(result: dict[str, object]) -> None:
    print(f"{result['file']}: {result['dimension']}, parser {result['parser']}")
    for coefficient in ("pearson", "spearman", "kendall"):
        print(f"  {coefficient:<9} {result[coefficient]:.4f}  (summary level)")
    print(f"  documents kept {result['n_docs']}, items {result['n_items']}")
    print(f"  tie rate {result['tie_rate']:.4f} (within-document pairs of item scores)")
    unread = "scored 0" if result["parser"] == "original" else "left out"
    print(f"  unparsed replies {result['unparsed']} of {result['n_replies']} ({unread})")


def judge_specs(configs: Sequence[Path]) -> dict[str, Any]:
    """The ``judges`` entries of ``configs``, later files overriding earlier ones per run (as
    Snakemake merges ``--configfile`` into the default config)."""
    specs: dict[str, Any] = {}
    for path in configs:
        with open(path, encoding="utf-8") as handle:
            specs.update((yaml.safe_load(handle) or {}).get("judges") or {})
    return specs


def export(args: argparse.Namespace) -> dict[str, dict[str, int]]:
    """The ``export`` command: judge runs from ``--judge`` or found on disk, their labels and
    fixture flags from the default config and ``--config``."""
    from geval_repro.export_hf import export_hf

    configs = [p for p in (DEFAULT_CONFIG, args.config) if p is not None and p.is_file()]
    if args.config is not None and not args.config.is_file():
        raise FileNotFoundError(f"--config {args.config}: no such file")
    specs = judge_specs(configs)
    judges_dir = args.processed / "judges"
    names = args.judge or sorted(
        p.name for p in (judges_dir.iterdir() if judges_dir.is_dir() else ()) if p.is_dir()
    )
    return export_hf(args.processed, args.out, {name: specs.get(name, {}) for name in names})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="geval-repro", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recount_parser = commands.add_parser(
        "recount", help="summary-level correlations of one released-format file"
    )
    recount_parser.add_argument("file", type=Path)
    recount_parser.add_argument("--dimension", required=True, choices=SUMMEVAL_DIMENSIONS)
    recount_parser.add_argument("--parser", default="original", choices=PARSERS)
    recount_parser.add_argument("--json", action="store_true", help="print one JSON object")
    recount_parser.add_argument(
        "--raw-dir",
        type=Path,
        default=DEFAULT_RAW,
        help="where SummEval is fetched to (default: data/raw under the working directory)",
    )
    export_parser = commands.add_parser(
        "export", help="the tidy benchmarks and judge runs as a Hugging Face dataset"
    )
    export_parser.add_argument("out", type=Path, help="folder to write (replaced if present)")
    export_parser.add_argument("--format", required=True, choices=["hf"])
    export_parser.add_argument(
        "--processed",
        type=Path,
        default=DEFAULT_PROCESSED,
        help="the pipeline's processed tables (default: data/processed)",
    )
    export_parser.add_argument(
        "--config",
        type=Path,
        help="config with the judge runs' labels and fixture flags, read over "
        "workflow/config.yaml when that is present",
    )
    export_parser.add_argument(
        "--judge",
        action="append",
        help="a judge run to join (repeatable; default: every run under PROCESSED/judges)",
    )
    args = parser.parse_args(argv)
    if args.command == "export":
        try:
            scored = export(args)
        except (ValueError, OSError) as error:
            print(f"geval-repro: {error}", file=sys.stderr)
            return 2
        print(f"{args.out}: " + "; ".join(f"{b}: {n or 'no judge run'}" for b, n in scored.items()))
        return 0
    try:
        result = recount(args.file, args.dimension, args.parser, args.raw_dir)
    except (FetchError, ValueError, OSError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print_text(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
