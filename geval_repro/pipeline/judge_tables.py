"""Steps that turn one judge run into its tables: correlations, diagnostics, rollups, sweep.

A run of format ``geval-released`` (raw replies) gives, per dimension and parser
(``original``: the released meta_eval_summeval.py; ``tolerant``), three per-item scores:
the mean of the replies (the paper's estimate of sum_s p(s) * s), the first reply and the
modal reply. Each is correlated with SummEval's expert-mean scores at the summary level
(per document over its systems, constant vectors skipped, averaged over documents kept),
with bootstrap CIs over documents. The mean is compared with the paper's row for the judge
(``paper_metric``, e.g. G-Eval-4), the one-reply scores with its "-Probs" row. A paired
permutation test (swapping the two scores per document) asks whether the mean beats one
reply. A run of format ``scores`` (per-item scores) gives the mean-row correlations only.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from geval_repro import correlation_table as ct
from geval_repro.atomic import write_parquet, write_text
from geval_repro.judge.diagnostics import reply_diagnostics
from geval_repro.judge.item_scores import item_scores
from geval_repro.judge.pairing import paired_items, paired_matrices
from geval_repro.judge.parse import PARSERS
from geval_repro.judge.rollups import rollup
from geval_repro.judge.sweep import sweep
from geval_repro.schemas import SUMMEVAL_DIMENSIONS
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.table_files import write_pair

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]
LEVEL = "summary"
ONE_REPLY_SCORES = ("first", "mode")
PERMUTATION_COEFFICIENTS = ("spearman", "kendall")


def status_of(spec: Mapping[str, Any]) -> str:
    """``fixture`` for a synthetic test run, else ``recomputed``."""
    return "fixture" if spec.get("fixture", False) else "recomputed"


def _variant(score: str, parser: str, n_replies: int) -> str:
    name = f"mean-of-{n_replies}" if score == "mean" else f"{score}-reply"
    return f"{name}/{parser}"


def build_item_scores(replies_path: PathLike, out: PathLike) -> None:
    """Per-item scores under both parsers (mean, first, mode, counts) -> parquet."""
    replies = pd.read_parquet(replies_path)
    log.info("%d replies, parsers %s", len(replies), ", ".join(PARSERS))
    table = pd.concat([item_scores(replies, parser) for parser in PARSERS], ignore_index=True)
    write_parquet(table, out)


def _rows_for(
    items: pd.DataFrame,
    human: pd.DataFrame,
    *,
    judge: str,
    spec: Mapping[str, Any],
    score: str,
    variant: str,
    paper_metric: str | None,
    settings: Mapping[str, Any],
) -> pd.DataFrame:
    """Summary-level rows of one per-item ``score`` column, per dimension the run scored."""
    parts = []
    for dimension in SUMMEVAL_DIMENSIONS:
        if not (items["dimension"] == dimension).any():
            continue
        parts.append(
            ct.table_rows(
                paired_items(items, human, dimension, score),
                benchmark="summeval",
                dimension=dimension,
                metric=judge,
                variant=variant,
                level=LEVEL,
                metric_column="judge",
                human_column="human",
                settings=settings,
                inputs="doc_id",
                note=spec["label"],
                paper_metric=paper_metric,
                status=status_of(spec),
            )
        )
    return pd.concat(parts, ignore_index=True)


def _with_averages(rows: pd.DataFrame, judge: str, paper_metric: str | None) -> pd.DataFrame:
    averages = ct.average_rows(rows, {judge: paper_metric} if paper_metric else None)
    return pd.concat([rows, averages], ignore_index=True)


def released_tables(
    judge: str,
    spec: Mapping[str, Any],
    items_path: PathLike,
    replies_path: PathLike,
    summeval_path: PathLike,
    settings: Mapping[str, Any],
    out_dir: PathLike,
) -> None:
    """All correlation and diagnostic tables of a ``geval-released`` run, in ``out_dir``.

    Files (CSV + Markdown): ``correlations`` (every row of the run), ``main`` (mean of the
    replies, original parser, with AVG rows), ``one_reply`` (first and mode),
    ``parsers`` (both parsers side by side), ``diagnostics``, ``rollups``, and
    ``significance`` (paired permutation test, mean vs one reply).
    """
    out = Path(out_dir)
    items = pd.read_parquet(items_path)
    human = pd.read_parquet(summeval_path)
    n_replies = int(items["n_replies"].max())
    log.info("%s: %d item scores, %d replies per item at most", judge, len(items), n_replies)
    paper_metric = spec.get("paper_metric")
    paper_probs = f"{paper_metric} -Probs" if paper_metric else None

    def block(scores: tuple[str, ...], printed_as: str | None) -> pd.DataFrame:
        """Rows of ``scores`` under both parsers, with AVG rows against ``printed_as``."""
        rows = [
            _rows_for(
                items[items["parser"] == parser],
                human,
                judge=judge,
                spec=spec,
                score=score,
                variant=_variant(score, parser, n_replies),
                paper_metric=printed_as,
                settings=settings,
            )
            for parser in PARSERS
            for score in scores
        ]
        return _with_averages(pd.concat(rows, ignore_index=True), judge, printed_as)

    mean_rows = block(("mean",), paper_metric)
    one_reply = block(ONE_REPLY_SCORES, paper_probs)  # one reply faces the "-Probs" row
    all_rows = pd.concat([mean_rows, one_reply], ignore_index=True)
    main_variant = _variant("mean", "original", n_replies)
    tables = {
        "correlations": all_rows,
        "main": all_rows[all_rows["variant"] == main_variant],
        "one_reply": one_reply,
        "parsers": parser_comparison(all_rows),
        "diagnostics": reply_diagnostics(pd.read_parquet(replies_path)),
        "rollups": pd.concat(
            [
                rollup(items, human, score=s, threshold=settings["rollups"]["pass_threshold"])
                for s in ("mean", *ONE_REPLY_SCORES)
            ],
            ignore_index=True,
        ),
        "significance": significance(items, human, judge, n_replies, settings),
    }
    for name, table in tables.items():
        write_pair(table, out / name)


def parser_comparison(rows: pd.DataFrame) -> pd.DataFrame:
    """Every correlation under both parsers side by side, with their difference."""
    split = rows["variant"].str.rsplit("/", n=1, expand=True)
    keyed = rows.assign(score=split[0], parser=split[1])
    wide = keyed.pivot_table(
        index=["benchmark", "dimension", "metric", "score", "level", "coefficient"],
        columns="parser",
        values="value",
        sort=True,
    ).reset_index()
    wide.columns.name = None
    wide["tolerant_minus_original"] = wide["tolerant"] - wide["original"]
    return wide


def significance(
    items: pd.DataFrame,
    human: pd.DataFrame,
    judge: str,
    n_replies: int,
    settings: Mapping[str, Any],
) -> pd.DataFrame:
    """Paired permutation tests: mean of the replies vs one reply (first, mode)."""
    records = []
    for parser in PARSERS:
        parsed = items[items["parser"] == parser]
        for dimension in SUMMEVAL_DIMENSIONS:
            if not (parsed["dimension"] == dimension).any():
                continue
            mean, gold = paired_matrices(parsed, human, dimension, "mean")
            for score in ONE_REPLY_SCORES:
                one, _ = paired_matrices(parsed, human, dimension, score)
                both = ~(np.isnan(mean) | np.isnan(one))
                for coefficient in PERMUTATION_COEFFICIENTS:
                    result = paired_permutation_test(
                        np.where(both, mean, np.nan),
                        np.where(both, one, np.nan),
                        np.where(both, gold, np.nan),
                        LEVEL,
                        coefficient,
                        n_resamples=settings["permutation"]["n_resamples"],
                        seed=settings["seed"],
                    )
                    records.append(
                        {
                            "judge": judge,
                            "dimension": dimension,
                            "parser": parser,
                            "metric_a": f"mean-of-{n_replies}",
                            "metric_b": f"{score}-reply",
                            "coefficient": coefficient,
                            "difference": result.statistic,
                            "pvalue": result.pvalue,
                            "n_resamples": settings["permutation"]["n_resamples"],
                        }
                    )
    return pd.DataFrame.from_records(records)


def scores_tables(
    judge: str,
    spec: Mapping[str, Any],
    scores_path: PathLike,
    summeval_path: PathLike,
    settings: Mapping[str, Any],
    out_dir: PathLike,
) -> None:
    """The correlation rows of a ``scores`` run (per-item scores), with AVG rows."""
    scores = pd.read_parquet(scores_path)
    log.info("%s: %d item scores", judge, len(scores))
    rows = _rows_for(
        scores,
        pd.read_parquet(summeval_path),
        judge=judge,
        spec=spec,
        score="score",
        variant="per-item scores",
        paper_metric=spec.get("paper_metric"),
        settings=settings,
    )
    write_pair(
        _with_averages(rows, judge, spec.get("paper_metric")), Path(out_dir) / "correlations"
    )


def sweep_table(
    replies_path: PathLike,
    summeval_path: PathLike,
    settings: Mapping[str, Any],
    out: PathLike,
) -> None:
    """The replies-per-item sweep (first-n and random n-subsets, n = 1..max_n) -> CSV."""
    replies = pd.read_parquet(replies_path)
    log.info(
        "sweep over %d replies: n = 1..%d, %d draws each",
        len(replies),
        settings["sweep"]["max_n"],
        settings["sweep"]["draws"],
    )
    table = sweep(
        replies,
        pd.read_parquet(summeval_path),
        seed=settings["seed"],
        draws=settings["sweep"]["draws"],
        n_max=settings["sweep"]["max_n"],
    )
    write_text(out, table.to_csv(index=False, lineterminator="\n"))
