"""SummEval expert annotations and G-Eval scores as released by MetricEval (Xiao et al., 2023).

isle-dev/MetricEval ``metric_eval/data/metric_scores_long.csv`` (and ``..._2nd_run.csv``, a
second G-Eval run) has one row per (``test_id``, ``model_id``) = (doc_id, system_id): 1,700
rows, the 1,600 SummEval summaries of nlpyang/geval ``data/summeval.json`` plus 100 rows of
an extra system ``M23_dynamicmix`` that summeval.json does not have (SummEval's experts
annotated 17 systems). Columns ``Expert.<e>.<DIM>`` (e = 1..3, DIM in COH/CON/FLU/REL) hold
each expert's integer rating 1-5; their mean is summeval.json's score. Columns
``G.EVAL.3.5.<DIM>`` and ``G.EVAL.4.<DIM>`` hold G-Eval scores which, like every metric
column of the file, are MetricEval's rank-normal scores, not the judge's: its
``normalize2`` (``supplementary_materials/MetricEval_CaseStudy.Rmd`` of the same
repository), ``scale(qnorm(0.001 + 0.998 * F(x)))`` with ``F(x)`` the share of the column's
1,700 rows (``M23_dynamicmix`` included) scoring at most ``x``, then standardized (mean 0,
sample standard deviation 1). That is a strictly increasing map, not an affine one: it
keeps every order and tie of the raw scores, so their rank statistics, but not a Pearson r
or a mean. The pipeline reads those columns as judge runs of format ``scores`` with
``scale: rank-normal`` (:mod:`geval_repro.load.scores`,
:data:`geval_repro.registry.judges.SCALES`); tests/test_load_metriceval.py checks the
identity on the pinned files with an implementation of its own.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geval_repro.load.schemas import (
    METRICEVAL_ANNOTATED_EXPERTS,
    METRICEVAL_EXPERTS,
    METRICEVAL_N_EXPERTS,
    SUMMEVAL_DIMENSIONS,
    UPSTREAM_FIX,
    read_csv,
    validate_table,
)

SYSTEMS_NOT_IN_SUMMEVAL = ("M23_dynamicmix",)
DIMENSION_CODES = dict(zip(("COH", "CON", "FLU", "REL"), SUMMEVAL_DIMENSIONS, strict=True))
EXPERT_COLUMNS = {
    f"Expert.{expert}.{code}": (expert, dimension)
    for expert in range(1, METRICEVAL_N_EXPERTS + 1)
    for code, dimension in DIMENSION_CODES.items()
}
KEY_COLUMNS = {"test_id": "doc_id", "model_id": "system_id"}


def _long(
    path: str | Path,
    columns: dict[str, tuple],
    labels: tuple[str, str],
    *,
    annotated: bool = False,
) -> pd.DataFrame:
    """The file's ``columns`` melted to rows of (doc_id, system_id, *labels, score).

    Rows of systems not in summeval.json are dropped first unless ``annotated`` (every
    system SummEval annotated); each melted column's two labels come from
    ``columns[name]``.
    """
    frame = read_csv(path)
    missing = [name for name in (*KEY_COLUMNS, *columns) if name not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}. Fix: {UPSTREAM_FIX}.")
    if not annotated:
        frame = frame.loc[~frame["model_id"].isin(SYSTEMS_NOT_IN_SUMMEVAL)]
    long = frame.rename(columns=KEY_COLUMNS).melt(
        id_vars=list(KEY_COLUMNS.values()),
        value_vars=list(columns),
        var_name="column",
        value_name="score",
    )
    for position, label in enumerate(labels):
        long.insert(
            2 + position, label, long["column"].map({k: v[position] for k, v in columns.items()})
        )
    return long.drop(columns="column")


def load_metriceval_experts(path: str | Path, *, annotated: bool = False) -> pd.DataFrame:
    """The three experts' SummEval ratings in long form, the 1,600 summeval.json summaries only
    (``annotated``: of every system SummEval annotated, ``M23_dynamicmix`` too).

    Columns: doc_id, system_id, annotator (the expert, 1..3), dimension (coherence,
    consistency, fluency, relevance), score (int 1-5). 19,200 rows = 1,600 summaries x 3
    experts x 4 dimensions (``annotated``: 20,400, of 1,700 summaries).
    """
    table = _long(path, EXPERT_COLUMNS, ("annotator", "dimension"), annotated=annotated)
    table = table[["doc_id", "system_id", "annotator", "dimension", "score"]].astype(
        {"annotator": "int64"}
    )
    schema = METRICEVAL_ANNOTATED_EXPERTS if annotated else METRICEVAL_EXPERTS
    return validate_table(table, schema, path, ["doc_id", "system_id", "annotator", "dimension"])
