"""Human ceiling: how well one SummEval expert agrees with the mean of the other two.

For each dimension and each expert ``e``, the expert's ratings form a metric matrix and the
mean of the other two experts' ratings the human matrix (both ``(n_systems, n_inputs)`` via
:func:`geval_repro.stats.matrix.to_matrix`); :func:`geval_repro.stats.levels.correlate`
gives the correlation at the requested level (the paper's summary level by default: per
document over the 16 systems, documents with a constant vector skipped, then averaged).
A row with ``expert = "mean"`` averages the three experts' values: a single annotator's
agreement with an independent two-annotator reference, the yardstick to hold a metric's
correlation with the three-expert mean against. It is not an upper bound in a strict
sense: the metric is compared with the mean of three experts, this row with the mean of two.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from geval_repro.human.agreement import SUMMARY_UNIT
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix


def leave_one_out_ceiling(
    experts: pd.DataFrame,
    coefficients: Sequence[str] = ("spearman", "kendall"),
    level: Level | str = Level.SUMMARY,
) -> pd.DataFrame:
    """Each expert against the mean of the others, per dimension and coefficient.

    ``experts``: long table (doc_id, system_id, expert, dimension, score) as from
    :func:`geval_repro.load.metriceval.load_metriceval_experts`; every summary needs every
    expert's rating (a missing one raises). Returns rows: dimension, expert (int, or
    "mean"), coefficient, level, value, n_groups, n_items (nullable ints; NA on the "mean"
    rows, whose experts may keep different documents).
    """
    rows = []
    for dimension in sorted(experts["dimension"].unique()):
        wide = experts.loc[experts["dimension"] == dimension].pivot(
            index=SUMMARY_UNIT, columns="expert", values="score"
        )
        if wide.isna().any().any():
            raise ValueError(
                f"{dimension}: {int(wide.isna().sum().sum())} (summary, expert) rating(s) "
                "missing; the leave-one-out ceiling needs every expert on every summary"
            )
        panel = wide.reset_index()
        per_expert = []
        for expert in wide.columns:
            others = [other for other in wide.columns if other != expert]
            panel["single"] = wide[expert].to_numpy(dtype=float)
            panel["rest"] = wide[others].mean(axis=1).to_numpy()
            single, _, _ = to_matrix(panel, "single")
            rest, _, _ = to_matrix(panel, "rest")
            for coefficient in coefficients:
                result = correlate(single, rest, level, coefficient)
                per_expert.append(
                    {
                        "dimension": dimension,
                        "expert": expert,
                        "coefficient": coefficient,
                        "level": level,
                        "value": result.value,
                        "n_groups": result.n_groups,
                        "n_items": result.n_items,
                    }
                )
        table = pd.DataFrame(per_expert)
        mean = (
            table.groupby("coefficient", sort=False)
            .agg(value=("value", "mean"))
            .reset_index()
            .assign(dimension=dimension, expert="mean", level=level, n_groups=pd.NA, n_items=pd.NA)
        )
        rows.append(pd.concat([table, mean[table.columns]], ignore_index=True))
    result = pd.concat(rows, ignore_index=True)
    return result.astype({"expert": object, "n_groups": "Int64", "n_items": "Int64"})
