"""Command-line entry point: ``geval-repro recount FILE --dimension D``.

Recounts one released-format G-Eval file (the list-of-items JSON of nlpyang/geval, with
``all_responses``) against SummEval's expert-mean scores without the pipeline: the released
meta_eval_summeval.py, done right. Per item the score is the mean of its parsed replies;
per document the systems' scores are correlated with the human scores (documents with a
constant vector skipped) and the correlations averaged over the documents kept (the
paper's summary level). SummEval is found through the sources registry, fetched and
verified like in the pipeline (from ``$GEVAL_REPRO_MIRROR`` when set).

Exit status: 0 with a result; 1 when no document could be scored (a message on stderr says
why; with ``--json`` the counts are still printed, the coefficients ``null``); 2 when an
input is missing or invalid. A file that covers only some SummEval documents is recounted
with a warning on stderr, since its average runs over those documents only. ``--json``
prints strict JSON (``null`` for a value that is not a number).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geval_repro.fetch import FetchError, fetch_source, resolve_mirror
from geval_repro.judge.diagnostics import reply_diagnostics
from geval_repro.judge.item_scores import item_scores
from geval_repro.judge.pairing import paired_matrices
from geval_repro.judge.parse import PARSERS
from geval_repro.load import load_released_replies, load_summeval
from geval_repro.schemas import SUMMEVAL_DIMENSIONS, SUMMEVAL_N_DOCS, SUMMEVAL_N_SYSTEMS
from geval_repro.sources import REPO_ROOT
from geval_repro.stats.levels import correlate
from geval_repro.stats.ties import tie_rate

DEFAULT_RAW = REPO_ROOT / "data" / "raw"


def recount(path: Path, dimension: str, parser: str, raw_dir: Path) -> dict[str, object]:
    """Summary-level correlations of one released-format file with SummEval's experts."""
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
        "--raw-dir", type=Path, default=DEFAULT_RAW, help="where SummEval is fetched to"
    )
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
