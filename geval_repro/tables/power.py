"""How sure, how many items: each judge's headline variant against the best recomputed
baseline and against the human ceiling, by the paired bootstrap of
:mod:`geval_repro.stats.power` (docs/protocol.md, "The judge card").

Per judge and dimension, with the card's coefficient (Spearman) at the benchmark's level, on
the items the judge, the reference and the humans all score:

- ``versus`` ``best baseline``: the baseline the judge's test against the best baseline
  chose (``significance_vs_baseline``: by its value on every item it scores), its difference
  judge minus baseline, the interval, the smallest difference these items can detect with
  80 % power and the units (documents at the summary level, items when pooled) needed to
  detect the observed one;
- ``versus`` ``human ceiling`` (a benchmark with individual annotators): the judge minus the
  mean over the annotators of one annotator's correlation with the mean of the others (the
  ceiling of ``work/rows/human_ceiling.csv``), each resample drawing the same documents for
  every term.

Resamples and seed from the config (the bootstrap's). A difference on fewer than 10 units
has no value, and its note says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.stats.power import MIN_UNITS
from geval_repro.stats.registry import judge_test
from geval_repro.tables.alt_test import annotator_panel
from geval_repro.tables.paired_tests import Scored, ScoreGrid

COEFFICIENT = "spearman"
BASELINE = "best baseline"
CEILING = "human ceiling"
COLUMNS = [
    "judge",
    "variant",
    "benchmark",
    "dimension",
    "coefficient",
    "level",
    "versus",
    "reference",
    "difference",
    "ci_low",
    "ci_high",
    "se",
    "detectable",
    "units_needed",
    "unit",
    "n_units",
    "n_resamples",
    "seed",
    "note",
]


def _annotator_metrics(
    annotators: pd.DataFrame, benchmark: Benchmark, dimension: str
) -> list[tuple[Scored, Scored]]:
    """Each annotator's ratings of ``dimension`` and the mean of the others', as metrics."""
    wide = annotator_panel(annotators, benchmark, dimension)
    out = []
    for annotator in wide.columns:
        single = wide[annotator].rename("score").reset_index()
        rest = wide.drop(columns=annotator).mean(axis=1).rename("score").reset_index()
        out.append(
            (
                Scored(f"annotator {annotator}", "", "human", "recomputed", {dimension: single}),
                Scored(
                    f"mean of others ({annotator})", "", "human", "recomputed", {dimension: rest}
                ),
            )
        )
    return out


def power_rows(
    benchmark: Benchmark,
    tidy: pd.DataFrame,
    judges: Sequence[Scored],
    baselines: Sequence[Scored],
    tests: pd.DataFrame,
    annotators: pd.DataFrame | None,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """The rows of the module docstring for ``judges`` (one score variant each) on
    ``benchmark`` (``tests``: their rows against the best baseline; ``annotators``: its table
    of individual annotators, None when it has none)."""
    run = judge_test("paired_difference").compute()
    grid = ScoreGrid(benchmark, tidy)
    level = benchmark.level
    unit = "items" if level.pooled else "documents"
    by_name: Mapping[tuple[str, str], Scored] = {(b.metric, b.variant): b for b in baselines}
    records = []
    for judge in judges:
        for dimension in benchmark.human_dimensions:
            if dimension not in judge.scores:
                continue
            base = {
                "judge": judge.metric,
                "variant": judge.variant,
                "benchmark": benchmark.name,
                "dimension": dimension,
                "coefficient": COEFFICIENT,
                "level": level.value,
                "unit": unit,
                "n_resamples": n_resamples,
                "seed": seed,
            }
            a = grid.metric(judge, dimension)
            human = grid.human(dimension)
            test = tests[
                (tests["judge"] == judge.metric)
                & (tests["variant"] == judge.variant)
                & (tests["dimension"] == dimension)
                & (tests["coefficient"] == COEFFICIENT)
            ]
            comparisons: list[tuple[str, str, object]] = []
            if not test.empty:
                name = (str(test["baseline"].iloc[0]), str(test["baseline_variant"].iloc[0]))
                if name in by_name:
                    reference = grid.metric(by_name[name], dimension)
                    comparisons.append((BASELINE, f"{name[0]} ({name[1]})", reference))
            if annotators is not None and dimension in set(annotators["dimension"]):
                pairs = [
                    (grid.metric(single, dimension), grid.metric(rest, dimension))
                    for single, rest in _annotator_metrics(annotators, benchmark, dimension)
                ]
                comparisons.append((CEILING, "one annotator vs the mean of the others", pairs))
            for versus, reference_name, reference in comparisons:
                result = run(a, reference, human, level, COEFFICIENT, n_resamples, seed)
                row = {**base, "versus": versus, "reference": reference_name}
                if result is None:
                    note = f"no value: fewer than {MIN_UNITS} {unit} scored by both"
                    records.append({**row, "note": note})
                    continue
                needed = result.units_needed
                if needed is None:
                    note = "no difference to detect"
                elif needed <= result.n_units:
                    note = (
                        f"detectable on these {result.n_units} {unit} already (a count below "
                        "them is an extrapolation of the normal approximation)"
                    )
                elif needed > 100 * result.n_units:
                    note = f"over 100 times these {unit}: not detectable in practice"
                else:
                    note = ""
                records.append(
                    {
                        **row,
                        "difference": result.value,
                        "ci_low": result.ci_low,
                        "ci_high": result.ci_high,
                        "se": result.se,
                        "detectable": result.detectable,
                        "units_needed": result.units_needed,
                        "n_units": result.n_units,
                        "n_resamples": result.n_resamples,
                        "note": note,
                    }
                )
    table = pd.DataFrame.from_records(records).reindex(columns=COLUMNS)
    counts = ["units_needed", "n_units", "n_resamples", "seed"]
    return table.astype(dict.fromkeys(counts, "Int64"))
