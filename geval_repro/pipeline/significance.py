"""Rule functions of the judge-vs-baseline tests: one job per judge, then the table of
all of them (the tests are computed in :mod:`geval_repro.tables.significance`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.atomic import write_text
from geval_repro.files.paths import PathLike
from geval_repro.registry.benchmarks import BENCHMARKS
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.table_files import write_pair
from geval_repro.tables.significance import COLUMNS, best_baselines, judge_vs_baselines

log = logging.getLogger(__name__)


def judge_significance(
    spec: JudgeSpec,
    processed: Mapping[str, PathLike],
    benchmark_table: PathLike,
    baseline_rows: PathLike,
    baseline_scores: Sequence[PathLike],
    settings: Settings,
    out: PathLike,
) -> None:
    """One judge's tests against the best baselines of its benchmark -> a CSV.

    ``processed``: the run's processed tables by name; ``baseline_scores``: the per-item
    scores of its benchmark's baselines (none for a benchmark without baselines: every
    row then says there is no baseline to test against).
    """
    log.info("%s: tests against the best %s baselines", spec.name, spec.benchmark.name)
    tables = {name: pd.read_parquet(path) for name, path in processed.items()}
    table = judge_vs_baselines(
        spec,
        tables,
        pd.read_parquet(benchmark_table),
        best_baselines(pd.read_csv(baseline_rows), BENCHMARKS),
        pd.concat([pd.read_parquet(path) for path in baseline_scores] or [pd.DataFrame()]),
        n_resamples=settings.permutation_resamples,
        seed=settings.seed,
    )
    write_text(out, table.to_csv(index=False, lineterminator="\n"))


def read_significance(parts: Sequence[PathLike]) -> pd.DataFrame:
    """The judges' test files, concatenated in the order given (typed counts)."""
    tables = [pd.read_csv(path) for path in parts]
    table = pd.concat([t for t in tables if not t.empty] or [pd.DataFrame(columns=COLUMNS)])
    table = table.reset_index(drop=True)
    return table.astype({"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"})


def combine_significance(parts: Sequence[PathLike], stem: PathLike) -> None:
    """Every judge's tests -> ``<stem>.csv`` and ``<stem>.md``."""
    write_pair(read_significance(parts), stem)
