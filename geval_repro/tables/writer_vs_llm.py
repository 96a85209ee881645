"""Does a judge prefer the LLM's summary? The G-Eval paper's analysis of Zhang et al.'s writer
vs GPT-3.5 judgements, and a tie-aware test of it, computed: DataFrames in, DataFrames out.

Input: the items and pairs of :func:`geval_repro.load.writer_vs_llm.load_writer_vs_llm`
and one metric's per-item scores, a table ``(item_id, dimension, score)`` (a judge's
scores per dimension, or a reference-free measure of :func:`surface_scores`; NaN or absent
= unscored). Every human judgement is a comparison of its writer's summary (first) with the
model's (second), with the human preference of one question (``overall`` or
``informativeness``: ``writer``, ``llm`` or ``tie``); a judgement counts for a dimension
when both its summaries have a score there. A metric with several dimensions also gets
``AVG``, each summary's mean over the dimensions (unscored where one is missing; raw
scores, as the paper averages them).

Three tables, one row per (metric, variant, dimension, question, ...) with ``n_judgements`` and
``n_articles`` (the judgements and articles the value rests on):

- :func:`group_mean_rows`, the paper's analysis: in each group of the human preference
  (``preference``: writer better / LLM better / equally good), the mean score of the
  writer's summaries, of the model's, and their mean difference (``author`` ``writer``,
  ``llm``, ``llm - writer``), over the group's judgements (a summary judged by several
  evaluators counts once per judgement, in the group its evaluator chose);
- :func:`accuracy_rows`, beyond the paper: the metric's agreement with the human preference
  as pairwise accuracy with ties (:mod:`geval_repro.stats.comparison`: an "Equally Good"
  judgement is a human tie; ``acc_eq`` and ``acc_eq_calibrated`` = ``acc*_eq`` with its
  fitted threshold ``epsilon``), the share of judgements the metric ties (``tie_rate``) and
  the humans tie (``human_tie_rate``), and ``ceiling``, the best accuracy any metric could
  reach (evaluators of the same pair disagree);
- :func:`preference_rows`, beyond the paper: how often the metric (``rater`` ``metric``)
  and the humans (``humans``) prefer the model's summary (``outcome`` ``llm``), the
  writer's (``writer``), neither (``tie``), and the net preference for the model's
  (``llm - writer``: the first minus the second, in [-1, 1]); ``metric - humans`` is the
  difference, with the p-value of a paired sign-flip permutation test over articles
  (:func:`geval_repro.stats.clustered.sign_flip_test`; null: the metric's and the humans'
  preferences are exchangeable within each article). A metric that never ties prefers
  either summary more often than humans who tie a fifth of the time; the net preference is
  the comparison a difference in tie rates does not push towards either summary (it only
  shrinks it). Each also within ``length_stratum``: the
  judgements where the model's summary is longer in words (``llm longer``), shorter, or
  as long as the writer's (``all``: every judgement); a judge whose preference for the
  model's summary holds where it is the shorter one prefers more than length.

Intervals: percentile bootstrap over articles (every judgement of a drawn article, as
often as it is drawn; ``n_resamples`` and ``seed`` from the run's settings), one set of
draws for every statistic of a call; the accuracy re-fits its threshold in every resample.
A row resting on fewer than :data:`geval_repro.tables.rows.MIN_BOOTSTRAP_UNITS` articles
gets no interval (as every correlation row on fewer bootstrap units), and its note says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.baselines.surface import novel_ngram_shares, word_counts
from geval_repro.load.writer_vs_llm import check_pairs
from geval_repro.stats.bootstrap import percentile_interval
from geval_repro.stats.clustered import (
    UNIT,
    Clusters,
    cluster_draws,
    member_indices,
    resampled_ratios,
    sign_flip_test,
)
from geval_repro.stats.comparison import (
    accuracy_ceiling,
    bootstrap_comparisons,
    comparison_accuracy,
    metric_preferences,
)
from geval_repro.stats.registry import PAIRWISE_ACCURACIES
from geval_repro.tables.rows import MIN_BOOTSTRAP_UNITS

BENCHMARK = "writer_vs_llm"
AVERAGE = "AVG"
QUESTIONS = ("overall", "informativeness")
#: The human preference of a judgement -> its sign in a comparison (writer first, model second).
PREFERENCE_SIGN = {"writer": -1, "llm": 1, "tie": 0}
#: The groups of the paper's figure, in its order.
GROUPS = {"writer": "writer better", "llm": "LLM better", "tie": "equally good"}
AUTHORS = ("writer", "llm", "llm - writer")
OUTCOMES = ("llm", "writer", "tie", "llm - writer")
RATERS = ("metric", "humans", "metric - humans")
CONFIDENCE = 0.95
#: The judgements by which summary is longer in words: stratum -> sign of the model's
#: length minus the writer's (None: every judgement).
STRATA: dict[str, int | None] = {"all": None, "llm longer": 1, "llm shorter": -1, "same length": 0}
#: The reference-free measures of :func:`surface_scores`: metric -> its dimension.
SURFACE_METRICS = {"length": "words", "novel bigrams": "share"}
#: The variant of the reference-free measures' rows.
SURFACE_VARIANT = "reference-free measure"

_KEY = ["benchmark", "metric", "variant", "dimension", "question"]
_COUNTS = ["n_judgements", "n_articles"]
GROUP_MEAN_COLUMNS = [
    *_KEY,
    "preference",
    "author",
    "value",
    "ci_low",
    "ci_high",
    *_COUNTS,
    "n_summaries",
    "status",
    "note",
]
ACCURACY_COLUMNS = [
    *_KEY,
    "coefficient",
    "value",
    "ci_low",
    "ci_high",
    "epsilon",
    "tie_rate",
    "human_tie_rate",
    "ceiling",
    *_COUNTS,
    "status",
    "note",
]
PREFERENCE_COLUMNS = [
    *_KEY,
    "length_stratum",
    "outcome",
    "rater",
    "value",
    "ci_low",
    "ci_high",
    "pvalue",
    *_COUNTS,
    "status",
    "note",
]
SCORE_COLUMNS = ["item_id", "dimension", "score"]


class WriterVsLlmRows(NamedTuple):
    """The three tables of one metric (module docstring)."""

    group_means: pd.DataFrame
    accuracy: pd.DataFrame
    preferences: pd.DataFrame


class Resampling(NamedTuple):
    """The settings of every interval and test of a call, and the article draws they share:
    ``draws`` (:func:`~geval_repro.stats.clustered.cluster_draws`) and the judgements of
    each resample, ``members`` (:func:`~geval_repro.stats.clustered.member_indices`)."""

    clusters: Clusters
    draws: np.ndarray
    members: np.ndarray
    n_resamples: int
    permutation_resamples: int
    seed: int
    confidence: float

    @property
    def note(self) -> str:
        return (
            f"percentile bootstrap over the {self.clusters.n_clusters} articles "
            f"({self.n_resamples} resamples, seed {self.seed}, {self.confidence:.0%})"
        )


def surface_scores(items: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per metric of :data:`SURFACE_METRICS`, its scores of every item (``item_id,
    dimension, score``): ``length`` in words, ``novel bigrams`` the share of the summary's
    bigrams not in its article (:mod:`geval_repro.baselines.surface`)."""
    values = {
        "length": word_counts(items["summary"].tolist()),
        "novel bigrams": novel_ngram_shares(items["summary"].tolist(), items["article"].tolist()),
    }
    return {
        metric: pd.DataFrame(
            {"item_id": items["item_id"], "dimension": SURFACE_METRICS[metric], "score": value}
        )
        for metric, value in values.items()
    }


def length_strata(items: pd.DataFrame, pairs: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per stratum of :data:`STRATA`, which judgements (aligned with ``pairs``) it holds."""
    words = pd.Series(word_counts(items["summary"].tolist()), index=items["item_id"])
    longer = np.sign(
        words.reindex(pairs["llm_item_id"]).to_numpy()
        - words.reindex(pairs["writer_item_id"]).to_numpy()
    )
    return {
        stratum: np.ones(len(pairs), dtype=bool) if sign is None else longer == sign
        for stratum, sign in STRATA.items()
    }


def _score_table(scores: pd.DataFrame, items: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Scores as ``item_id x dimension`` (NaN = unscored), with ``AVG`` when there are
    several dimensions; bad input raises naming the metric, the item and the fix."""
    missing = [column for column in SCORE_COLUMNS if column not in scores.columns]
    if missing:
        raise ValueError(
            f"scores of {metric!r} lack the column(s) {missing} (have {list(scores.columns)}). "
            "Fix: give one row per (item_id, dimension) with its score."
        )
    unknown = scores.loc[~scores["item_id"].isin(items["item_id"]), "item_id"]
    if len(unknown):
        raise ValueError(
            f"scores of {metric!r} name {unknown.nunique()} item_id(s) that are not items of "
            f"the benchmark, e.g. {unknown.iloc[0]!r}. Fix: score the items of "
            "load_writer_vs_llm (their item_id column)."
        )
    repeated = scores[scores.duplicated(["item_id", "dimension"], keep=False)]
    if len(repeated):
        first = repeated.iloc[0]
        raise ValueError(
            f"scores of {metric!r} give item {first['item_id']!r} several scores in dimension "
            f"{first['dimension']!r}. Fix: one score per (item_id, dimension)."
        )
    values = pd.to_numeric(scores["score"], errors="coerce")
    if np.isinf(values).any() or (values.isna() & scores["score"].notna()).any():
        bad = scores[np.isinf(values) | (values.isna() & scores["score"].notna())].iloc[0]
        raise ValueError(
            f"scores of {metric!r}: item {bad['item_id']!r}, dimension {bad['dimension']!r} "
            f"has score {bad['score']!r}, not a finite number. Fix: NaN for an unscored item."
        )
    dimensions = list(dict.fromkeys(scores["dimension"]))
    if AVERAGE in dimensions:
        raise ValueError(f"scores of {metric!r} use the reserved dimension name {AVERAGE!r}")
    table = (
        scores.assign(score=values)
        .pivot(index="item_id", columns="dimension", values="score")
        .reindex(columns=dimensions)
    )
    if len(dimensions) > 1:
        table[AVERAGE] = table.mean(axis=1, skipna=False)
    return table


def _resampling(
    pairs: pd.DataFrame, n_resamples: int, permutation_resamples: int, seed: int, confidence: float
) -> Resampling:
    clusters = Clusters.of(pairs["article_id"].to_numpy())
    draws = cluster_draws(clusters.n_clusters, n_resamples, seed)
    members = member_indices(clusters, draws)
    return Resampling(
        clusters, draws, members, n_resamples, permutation_resamples, seed, confidence
    )


def _interval(values: np.ndarray, resampling: Resampling) -> tuple[float, float]:
    """The percentile interval of one column of resampled statistics (NaN, NaN if none)."""
    if np.isnan(values).all():
        return float("nan"), float("nan")
    result = percentile_interval(values, unit=UNIT, confidence=resampling.confidence, undefined="")
    return result.low, result.high


def _ratio_rows(
    numerators: np.ndarray, denominators: np.ndarray, resampling: Resampling
) -> list[tuple[float, float, float]]:
    """(value, ci_low, ci_high) of each column's ``sum(numerators) / sum(denominators)``."""
    resampled = resampled_ratios(numerators, denominators, resampling.clusters, resampling.draws)
    totals, weights = numerators.sum(axis=0), denominators.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(weights > 0, totals / weights, np.nan)
    return [
        (float(value), *_interval(resampled[:, k], resampling)) for k, value in enumerate(values)
    ]


def distinct(column: pd.Series, mask: np.ndarray) -> int:
    """How many distinct values (NaN not counted) ``column`` has where ``mask`` holds:
    ``column[mask].nunique()`` without pandas' indexing (called per group and author)."""
    values = column.to_numpy()[mask]
    return len(pd.unique(values[pd.notna(values)]))


class Judgements(NamedTuple):
    """One dimension's scores of each judgement's two summaries (aligned with ``pairs``,
    NaN = unscored), with the human answers to ``question`` and the call's resampling."""

    pairs: pd.DataFrame
    writer: np.ndarray
    llm: np.ndarray
    question: str
    resampling: Resampling

    @property
    def scored(self) -> np.ndarray:
        """The judgements whose two summaries are scored."""
        return ~(np.isnan(self.writer) | np.isnan(self.llm))

    @property
    def human_signs(self) -> np.ndarray:
        """+1 / -1 / 0: the humans prefer the model's summary / the writer's / neither."""
        return self.pairs[self.question].map(PREFERENCE_SIGN).to_numpy(dtype=float)

    def counts(self, mask: np.ndarray) -> dict[str, int]:
        """``n_judgements`` and ``n_articles`` of the judgements in ``mask``."""
        return {
            "n_judgements": int(mask.sum()),
            "n_articles": distinct(self.pairs["article_id"], mask),
        }

    def within(self, member: np.ndarray) -> Judgements:
        """The same judgements with those outside ``member`` unscored."""
        return self._replace(
            writer=np.where(member, self.writer, np.nan), llm=np.where(member, self.llm, np.nan)
        )


def group_mean_rows(judgements: Judgements) -> pd.DataFrame:
    """The paper's analysis for one dimension: per human preference group, the mean writer
    and model scores and their mean difference (module docstring)."""
    scored = judgements.scored
    values = {
        "writer": judgements.writer,
        "llm": judgements.llm,
        "llm - writer": judgements.llm - judgements.writer,
    }
    answers = judgements.pairs[judgements.question].to_numpy()
    numerators, denominators, labels = [], [], []
    for group in GROUPS:
        member = (answers == group) & scored
        for author in AUTHORS:
            numerators.append(np.where(member, values[author], 0.0))
            denominators.append(member.astype(float))
            labels.append((group, author, member))
    estimates = _ratio_rows(
        np.column_stack(numerators), np.column_stack(denominators), judgements.resampling
    )
    rows = []
    for (group, author, member), (value, low, high) in zip(labels, estimates, strict=True):
        summaries = (
            distinct(judgements.pairs[f"{author}_item_id"], member)
            if author in ("writer", "llm")
            else np.nan
        )
        rows.append(
            {
                "preference": group,
                "author": author,
                "value": value,
                "ci_low": low,
                "ci_high": high,
                **judgements.counts(member),
                "n_summaries": summaries,
                "note": judgements.resampling.note,
            }
        )
    return pd.DataFrame(rows)


def accuracy_rows(judgements: Judgements) -> pd.DataFrame:
    """``acc_eq`` and ``acc*_eq`` of the metric against the humans' preference for one
    dimension, with intervals over articles (module docstring)."""
    writer, llm, resampling = judgements.writer, judgements.llm, judgements.resampling
    preference, scored = judgements.human_signs, judgements.scored
    pairs = judgements.pairs
    keys = (pairs["writer_item_id"] + "|" + pairs["llm_item_id"]).to_numpy()
    ceiling = accuracy_ceiling(keys[scored], preference[scored])
    ties = metric_preferences(writer, llm)[scored] == 0
    rows = []
    for accuracy in PAIRWISE_ACCURACIES:
        coefficient, calibrate = accuracy.name, accuracy.calibrated
        point = comparison_accuracy(writer, llm, preference, calibrate=calibrate)
        low = high = float("nan")
        if scored.any():
            interval = bootstrap_comparisons(
                writer,
                llm,
                preference,
                resampling.members,
                calibrate=calibrate,
                confidence=resampling.confidence,
            )
            low, high = interval.low, interval.high
        rows.append(
            {
                "coefficient": coefficient,
                "value": point.value,
                "ci_low": low,
                "ci_high": high,
                "epsilon": point.epsilon,
                "tie_rate": float(ties.mean()) if ties.size else float("nan"),
                "human_tie_rate": point.human_tie_share,
                "ceiling": ceiling,
                **judgements.counts(scored),
                "note": resampling.note
                + ("; threshold re-fitted in every resample" if calibrate else ""),
            }
        )
    return pd.DataFrame(rows)


def _outcome_shares(signs: np.ndarray) -> dict[str, np.ndarray]:
    """Per outcome, each judgement's indicator (net: +1 / -1 / 0) of the signs
    (+1 model preferred, -1 writer preferred, 0 tie)."""
    return {
        "llm": (signs == 1).astype(float),
        "writer": (signs == -1).astype(float),
        "tie": (signs == 0).astype(float),
        "llm - writer": signs.astype(float),
    }


def preference_rows(judgements: Judgements) -> pd.DataFrame:
    """How often the metric and the humans prefer each summary for one dimension, their
    difference and its sign-flip test over articles (module docstring)."""
    scored, resampling = judgements.scored, judgements.resampling
    metric = _outcome_shares(np.nan_to_num(metric_preferences(judgements.writer, judgements.llm)))
    humans = _outcome_shares(judgements.human_signs)
    numerators, labels = [], []
    for outcome in OUTCOMES:
        by_rater = {
            "metric": metric[outcome],
            "humans": humans[outcome],
            "metric - humans": metric[outcome] - humans[outcome],
        }
        for rater in RATERS:
            numerators.append(np.where(scored, by_rater[rater], 0.0))
            labels.append((outcome, rater))
    weights = np.repeat(scored.astype(float)[:, None], len(labels), axis=1)
    estimates = _ratio_rows(np.column_stack(numerators), weights, resampling)
    articles = judgements.pairs.loc[scored, "article_id"].to_numpy()
    tested = Clusters.of(articles) if scored.any() else None
    rows = []
    for (outcome, rater), column, (value, low, high) in zip(
        labels, numerators, estimates, strict=True
    ):
        pvalue, note = float("nan"), resampling.note
        if rater == "metric - humans" and tested is not None:
            test = sign_flip_test(
                column[scored],
                tested,
                n_resamples=resampling.permutation_resamples,
                seed=resampling.seed,
            )
            pvalue = test.pvalue
            note += (
                f"; p: paired sign-flip permutation over the {tested.n_clusters} articles "
                f"({resampling.permutation_resamples} resamples, seed {resampling.seed}), "
                "two-sided"
            )
        rows.append(
            {
                "outcome": outcome,
                "rater": rater,
                "value": value,
                "ci_low": low,
                "ci_high": high,
                "pvalue": pvalue,
                **judgements.counts(scored),
                "note": note,
            }
        )
    return pd.DataFrame(rows)


def _framed(
    parts: Sequence[pd.DataFrame], columns: Sequence[str], status: str, min_articles: int
) -> pd.DataFrame:
    """The rows of one table in ``columns``; no interval on fewer than ``min_articles``
    articles (a row on none has none anyway)."""
    table = pd.concat(parts, ignore_index=True).assign(benchmark=BENCHMARK, status=status)
    few = table["n_articles"].between(1, min_articles - 1)
    table.loc[few, ["ci_low", "ci_high"]] = np.nan
    table.loc[few, "note"] = (
        table.loc[few, "note"]
        + f"; no interval: fewer than {min_articles} articles ("
        + table.loc[few, "n_articles"].astype(int).astype(str)
        + ")"
    )
    return table.loc[:, list(columns)].astype({"n_judgements": "Int64", "n_articles": "Int64"})


def writer_vs_llm_rows(
    items: pd.DataFrame,
    pairs: pd.DataFrame,
    scores: pd.DataFrame,
    *,
    metric: str,
    variant: str,
    status: str,
    n_resamples: int,
    permutation_resamples: int,
    seed: int,
    confidence: float = CONFIDENCE,
    questions: Sequence[str] = QUESTIONS,
    min_articles: int = MIN_BOOTSTRAP_UNITS,
) -> WriterVsLlmRows:
    """The three tables of ``metric`` (its ``scores``: ``item_id, dimension, score``), per
    dimension (and ``AVG``) and question, every row labelled with its ``variant`` (which of
    the metric's scores: a judge run's mean of its replies under one parser, its Eq. 1 score;
    :data:`SURFACE_VARIANT`) and ``status`` (recomputed, toolkit-run, fixture: as in the
    correlation rows). A row on fewer than ``min_articles`` articles gets no interval."""
    check_pairs(items, pairs, f"writer-vs-LLM tables of {metric!r}")
    unknown = [q for q in questions if q not in QUESTIONS]
    if unknown:
        raise ValueError(f"unknown question(s) {unknown}: use {list(QUESTIONS)}")
    table = _score_table(scores, items, metric)
    resampling = _resampling(pairs, n_resamples, permutation_resamples, seed, confidence)
    means, accuracy, preferences = [], [], []
    strata = length_strata(items, pairs)
    for dimension in table.columns:
        column = table[dimension]
        writer = column.reindex(pairs["writer_item_id"]).to_numpy(dtype=float)
        llm = column.reindex(pairs["llm_item_id"]).to_numpy(dtype=float)
        for question in questions:
            key = {
                "metric": metric,
                "variant": variant,
                "dimension": dimension,
                "question": question,
            }
            judgements = Judgements(pairs, writer, llm, question, resampling)
            means.append(group_mean_rows(judgements).assign(**key))
            accuracy.append(accuracy_rows(judgements).assign(**key))
            for stratum, member in strata.items():
                rows = preference_rows(judgements.within(member))
                preferences.append(rows.assign(length_stratum=stratum, **key))
    return WriterVsLlmRows(
        _framed(means, GROUP_MEAN_COLUMNS, status, min_articles).astype({"n_summaries": "Int64"}),
        _framed(accuracy, ACCURACY_COLUMNS, status, min_articles),
        _framed(preferences, PREFERENCE_COLUMNS, status, min_articles),
    )


def combined(rows: Mapping[str, WriterVsLlmRows]) -> WriterVsLlmRows:
    """The tables of several metrics (``{metric: rows}``), one after another."""
    return WriterVsLlmRows(
        *(
            pd.concat([getattr(r, field) for r in rows.values()], ignore_index=True)
            for field in WriterVsLlmRows._fields
        )
    )
