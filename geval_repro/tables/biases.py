"""What a judge favours and how it agrees with itself, per judge (its card's variant) and
dimension (:mod:`geval_repro.stats.biases`; docs/protocol.md, "The judge card"):

- ``share_unread``: the share of its replies the released parser could not read (a run with
  replies; they count as 0 in the mean of the replies, the released rule);
- ``length_judge``, ``length_human``: the Spearman correlation of the judge's scores, and of
  the humans', with the judged text's length in whitespace-separated words
  (:attr:`~geval_repro.registry.benchmarks.Benchmark.judged_text`), over the items the judge
  scores, at the benchmark's correlation level (``level``; as its correlations: SummEval's
  summary level within each document, then averaged over the documents; pooled over the
  items at the global level); ``partial``: the judge's Spearman correlation with the humans
  with length partialled out at the same level (within each document, then averaged), on
  the same items; ``n_groups``: the documents that average has (1 at the global level);
  :func:`geval_repro.stats.biases.length_at_level`;
- ``split_half``, ``spearman_brown``: the Spearman correlation of the means of its even and
  odd replies over the items, and its Spearman-Brown correction (a run with two or more
  replies per item), ``n_split`` the items with a reply in each half; a run without replies
  says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.scoring.pairing import matrix_axes, pooled
from geval_repro.scoring.parse import PARSERS, parse_table
from geval_repro.stats.level import Level
from geval_repro.stats.matrix import cells_of
from geval_repro.stats.registry import judge_test
from geval_repro.tables.paired_tests import Scored

NO_REPLIES = "n/a: per-item scores, no replies"
COLUMNS = [
    "judge",
    "variant",
    "benchmark",
    "dimension",
    "share_unread",
    "n_replies",
    "level",
    "length_judge",
    "length_human",
    "partial",
    "n_groups",
    "n_items",
    "split_half",
    "spearman_brown",
    "n_split",
    "note",
]


#: How the length correlations are taken, by level.
LEVEL_NOTES = {
    Level.SUMMARY: "within each document, then averaged over the documents",
    Level.GLOBAL: "pooled over the items (the benchmark's level)",
    Level.SYSTEM: "over the systems' means",
}


def bias_rows(
    benchmark: Benchmark,
    tidy: pd.DataFrame,
    judges: Sequence[Scored],
    replies: Mapping[str, pd.DataFrame | None],
) -> pd.DataFrame:
    """The rows of the module docstring (``replies``: each judge's replies table, None for a
    run without replies)."""
    partial = judge_test("partial_spearman").compute()
    level = Level(benchmark.level)
    split = judge_test("split_half").compute()
    keys = list(benchmark.item_keys)
    length = tidy[benchmark.judged_text].astype(str).str.split().str.len().astype(float)
    table = tidy[keys].assign(_length=length.to_numpy())
    records = []
    for judge in judges:
        parsed = replies.get(judge.metric)
        if parsed is not None:
            parsed = parse_table(parsed, PARSERS[0])
        for dimension in benchmark.human_dimensions:
            if dimension not in judge.scores:
                continue
            scores = judge.scores[dimension].groupby(keys)["score"].mean().rename("_judge")
            joined = table.assign(_human=tidy[dimension].to_numpy()).merge(
                scores.reset_index(), on=keys, how="inner"
            )
            joined = pooled(joined, benchmark)
            cells = cells_of(joined, *matrix_axes(benchmark))
            x, h, z = (
                cells.matrix(joined[c].to_numpy(dtype=float))
                for c in ("_judge", "_human", "_length")
            )
            length_judge, length_human, partial_value, n_groups = partial(x, h, z, level)
            row: dict[str, object] = {
                "judge": judge.metric,
                "variant": judge.variant,
                "benchmark": benchmark.name,
                "dimension": dimension,
                "level": level.value,
                "length_judge": length_judge,
                "length_human": length_human,
                "partial": partial_value,
                "n_groups": n_groups,
                "n_items": int((~np.isnan(x) & ~np.isnan(h)).sum()),
                "note": f"length: whitespace words of the judged text; {LEVEL_NOTES[level]}",
            }
            if parsed is None:
                row.update(share_unread=NO_REPLIES, split_half=NO_REPLIES)
            else:
                mine = parsed[parsed["dimension"] == dimension]
                wide = mine.pivot_table(
                    index=keys, columns="reply_index", values="score", aggfunc="first"
                )
                r, corrected, n_split = split(wide.to_numpy(dtype=float))
                row.update(
                    share_unread=float(mine["unread"].mean()),
                    n_replies=len(mine),
                    split_half=r,
                    spearman_brown=corrected,
                    n_split=n_split,
                )
                if wide.shape[1] < 2:
                    row["split_half"] = "n/a: one reply per item"
            records.append(row)
    out = pd.DataFrame.from_records(records).reindex(columns=COLUMNS)
    return out.astype({"n_replies": "Int64", "n_items": "Int64", "n_split": "Int64"})
