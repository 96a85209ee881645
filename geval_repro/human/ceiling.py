"""Human ceiling: how well one annotator (a SummEval expert, a DialSummEval annotator) agrees
with the mean of the other two.

For each dimension and each annotator ``e``, the annotator's ratings form a metric matrix and
the mean of the other two annotators' ratings the human matrix (both ``(n_systems, n_inputs)`` via
:func:`geval_repro.stats.matrix.to_matrix`); :func:`geval_repro.stats.levels.correlate`
gives the correlation at the requested level (the paper's summary level by default: per
document over its systems, documents with a constant vector skipped, then averaged).
A row with ``annotator = "mean"`` averages the three annotators' values: a single annotator's
agreement with an independent two-annotator reference, the yardstick to hold a metric's
correlation with the three-annotator mean against. It is not an upper bound in a strict
sense: the metric is compared with the mean of three annotators, this row with the mean of
two.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from geval_repro.human.agreement import ANNOTATOR, SUMMARY_UNIT
from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix


def leave_one_out_ceiling(
    annotators: pd.DataFrame,
    coefficients: Sequence[str] = ("spearman", "kendall"),
    level: Level | str = Level.SUMMARY,
) -> pd.DataFrame:
    """Each annotator against the mean of the others, per dimension and coefficient.

    ``annotators``: long table (doc_id, system_id, annotator, dimension, score) as from
    :func:`geval_repro.load.metriceval.load_metriceval_experts`; every summary needs every
    annotator's rating (a missing one raises). Returns rows: dimension, annotator (int, or
    "mean"), coefficient, level, value, n_groups, n_items (nullable ints; NA on the "mean"
    rows, whose annotators may keep different documents).
    """
    rows = []
    for dimension in sorted(annotators["dimension"].unique()):
        wide = annotators.loc[annotators["dimension"] == dimension].pivot(
            index=SUMMARY_UNIT, columns=ANNOTATOR, values="score"
        )
        if wide.isna().any().any():
            raise ValueError(
                f"{dimension}: {int(wide.isna().sum().sum())} (summary, annotator) rating(s) "
                "missing; the leave-one-out ceiling needs every annotator on every summary"
            )
        panel = wide.reset_index()
        per_annotator = []
        for annotator in wide.columns:
            others = [other for other in wide.columns if other != annotator]
            panel["single"] = wide[annotator].to_numpy(dtype=float)
            panel["rest"] = wide[others].mean(axis=1).to_numpy()
            single, _, _ = to_matrix(panel, "single")
            rest, _, _ = to_matrix(panel, "rest")
            for coefficient in coefficients:
                result = correlate(single, rest, level, coefficient)
                per_annotator.append(
                    {
                        "dimension": dimension,
                        ANNOTATOR: annotator,
                        "coefficient": coefficient,
                        "level": level,
                        "value": result.value,
                        "n_groups": result.n_groups,
                        "n_items": result.n_items,
                    }
                )
        table = pd.DataFrame(per_annotator)
        mean = (
            table.groupby("coefficient", sort=False)
            .agg(value=("value", "mean"))
            .reset_index()
            .assign(
                dimension=dimension,
                **{ANNOTATOR: "mean"},
                level=level,
                n_groups=pd.NA,
                n_items=pd.NA,
            )
        )
        rows.append(pd.concat([table, mean[table.columns]], ignore_index=True))
    result = pd.concat(rows, ignore_index=True)
    return result.astype({ANNOTATOR: object, "n_groups": "Int64", "n_items": "Int64"})
