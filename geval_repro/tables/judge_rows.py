"""The rows and tables of one judge run: correlations, one-reply rows, parsers, rollups,
diagnostics and the mean-vs-one-reply tests (DataFrames in, DataFrames out; the pipeline
reads and writes the files).

Rows follow the paper's protocol for the run's benchmark
(:mod:`geval_repro.registry.benchmarks`): SummEval at the summary level (per document over
its systems, constant vectors skipped, averaged over documents kept, bootstrap CIs over
documents), Topical-Chat at the turn level and QAGS at the dataset level (both global: one
correlation over all items, bootstrap CIs over items).

A run with replies (format ``geval-released``, or ``geval-jsonl`` reading ``replies``) gives,
per dimension and parser (``original``: the released meta_eval_summeval.py; ``tolerant``),
three per-item scores: the mean of the replies (the paper's estimate of sum_s p(s) * s), the
first reply and the modal reply. The mean is compared with the paper's row for the judge
(``paper_metric``, e.g. G-Eval-4), the one-reply scores with its "-Probs" row. A paired
permutation test asks whether the mean beats one reply. A run with rating probabilities
(``geval-jsonl`` reading ``rating_probs``) gives the Eq. 1 weighted score (against
``paper_metric``) and the most likely rating (against its "-Probs" row). A run of format
``scores`` (per-item scores) gives the correlation rows only; on a scale other than the
judge's own (``scale: rank-normal``, MetricEval's transform) its variant names the scale and
each row's note says whether the transform leaves the row's statistic unchanged
(:func:`geval_repro.stats.invariance.order_only`) or the value is one of the transformed
scores, not of the judge's.

A dimension that cannot be scored (every item unscored, or constant scores) yields rows with
an empty value and a note saying why, and a warning in the log; the other dimensions'
tables are made as usual. A constant judge's pairwise accuracies are defined, though: it
ties every pair, so its ``acc_eq`` and ``acc*_eq`` are the constant reference's (the share
of pairs the humans tie), and its accuracy rows keep them.

A run that covers only some of the benchmark's items (a trial with ``limit``) is tabulated
on those items, as a researcher trying a model wants; its rows' note says "partial run: N of
M items" (the count in ``n_items``) and the log warns, because such a value is not
comparable with the paper's, which covers every item.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import AVERAGES, average_of, get_benchmark
from geval_repro.registry.judges import JudgeSpec, Scale
from geval_repro.scoring.diagnostics import reply_diagnostics
from geval_repro.scoring.pairing import paired_items, paired_matrices
from geval_repro.scoring.parse import ALL_PARSERS, ANSWER_PARSERS, PARSERS, parsers_in
from geval_repro.scoring.rating_probs import RATING_SCORES, rating_results, rating_scores
from geval_repro.scoring.rollups import rollup
from geval_repro.stats.invariance import order_only
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.stats.registry import ACCURACIES, CORRELATIONS
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import COLUMNS, join_notes, table_rows

log = logging.getLogger(__name__)

ONE_REPLY_SCORES = ("first", "mode")
#: score column of a rating-probabilities run -> its variant name in the rows
RATING_VARIANTS = {
    "probs": "probability-weighted rating (Eq. 1)",
    "top_rating": "most likely rating",
}
#: The score variants of a run whose prompt asks for a Yes/No answer (a benchmark's prompt
#: variant; Yes 1, No 0): its replies' answers (the ``yes-no`` parser) and its
#: log-probabilities' P(Yes) = p(Yes) / (p(Yes) + p(No)) at the answer token. The names hold
#: no "/", which separates a rating variant from its parser ("mean-of-20/original").
ANSWER_VARIANTS = {
    "mean": "yes-no answer, mean of {n} replies",
    "first": "yes-no answer, first reply",
    "mode": "yes-no answer, most frequent (ties: No)",
    "probs": "P(Yes)",
    "top_rating": "more likely answer (Yes where P(Yes) > 0.5)",
}
#: The coefficients of the mean-vs-one-reply tests: the rank coefficients (the paper's
#: SummEval coefficients), which read a single reply's many tied integer ratings as ties.
PERMUTATION_COEFFICIENTS = tuple(c.name for c in CORRELATIONS if c.rank_based)
UNSCORABLE = "not scorable"
SCORES_VARIANT = "per-item scores"
#: The variant of a ``scores`` run's rows, by the scale of its numbers
#: (:data:`geval_repro.registry.judges.SCALES`).
SCORES_VARIANTS: dict[Scale, str] = {
    "raw": SCORES_VARIANT,
    "rank-normal": f"{SCORES_VARIANT}, MetricEval's rank-normal scale",
}
#: The note of a rank-normal run's row whose statistic the transform leaves unchanged, and
#: of one whose value it changes.
RANK_NORMAL_ORDER_NOTE = (
    "a statistic of the scores' order alone: MetricEval's rank-normal transform (strictly "
    "increasing over all the file's rows) leaves it unchanged, so it is the run's own value"
)
RANK_NORMAL_SCALE_NOTE = (
    "computed on MetricEval's rank-normal scale (its normalize2), not on the judge's own "
    "scores: the transform changes this value (a Pearson r, a tie threshold or the system "
    "level's means of scores)"
)


def scale_note(scale: Scale, level: str, coefficient: str) -> str:
    """What the scale of a run's numbers means for a row at ``level`` with
    ``coefficient``: "" for the judge's own scores (``raw``); for ``rank-normal``, whether
    the transform leaves the statistic unchanged."""
    if scale == "raw":
        return ""
    return RANK_NORMAL_ORDER_NOTE if order_only(level, coefficient) else RANK_NORMAL_SCALE_NOTE


def coverage_note(answered: int, rated: int) -> str:
    """The note of a dimension's coverage: items whose log-probabilities hold a rating token."""
    share = rated / answered if answered else math.nan
    return (
        f"coverage: a rating token in {rated} of {answered} items ({share:.0%}); the others "
        "have no probability-weighted score (left out, never 0)"
    )


def with_coverage(table: pd.DataFrame, coverage: Mapping[str, tuple[int, int]]) -> pd.DataFrame:
    """``table`` with the note of each row of a rating-probability variant
    (:data:`RATING_VARIANTS`) extended by its dimension's coverage (AVG rows: every
    dimension's): the coverage is the log-probabilities', so rows of the replies (mean of
    the replies, one reply) keep their notes. A table without a ``note`` or ``variant``
    column is returned as is."""
    if not {"note", "variant"} <= set(table.columns) or not coverage or table.empty:
        return table

    def note(dimension: str) -> str:
        if dimension in coverage:
            return coverage_note(*coverage[dimension])
        return "; ".join(f"{d} {coverage_note(*c)}" for d, c in coverage.items())

    rated = table["variant"].isin(list(RATING_VARIANTS.values()))
    extra = table["dimension"].map(note)
    notes = table["note"].fillna("").astype(str)
    extended = notes.where(notes == "", notes + "; ") + extra
    return table.assign(note=extended.where(rated, notes))


def mean_label(items: pd.DataFrame) -> tuple[str, str]:
    """The name of the mean-of-replies score and a note on unequal reply counts.

    ``mean-of-N`` when every item has N replies; otherwise ``mean-of-available`` and a note
    stating the counts (how many items have fewer than the most).
    """
    counts = items.loc[items["parser"] == PARSERS[0], "n_replies"]  # one row per item
    low, high = int(counts.min()), int(counts.max())
    if low == high:
        return f"mean-of-{high}", ""
    fewer = int((counts < high).sum())
    return (
        "mean-of-available",
        f"mean of the available replies: {fewer} of {len(counts)} items have fewer than "
        f"{high} (as few as {low})",
    )


def _variant(score: str, parser: str, mean_name: str) -> str:
    name = mean_name if score == "mean" else f"{score}-reply"
    return f"{name}/{parser}"


def mean_parser(variant: str) -> str | None:
    """The parser whose mean of each item's replies the score variant ``variant`` is: a
    rating run's ``mean-of-N/<parser>``, or ``yes-no`` for a Yes/No prompt's mean of answers
    (:data:`ANSWER_VARIANTS`); None for any other variant."""
    if variant.startswith("mean-of-"):
        return variant.rpartition("/")[2]
    if variant.startswith(ANSWER_VARIANTS["mean"].partition("{n}")[0]):
        return ANSWER_PARSERS[0]
    return None


def beyond_the_paper(variant: str) -> bool:
    """True for a judge variant the paper's tables have no row for: the tolerant and final
    parsers (``*/tolerant``, ``*/final``) and the modal reply (``mode-reply/*``), named as
    :func:`_variant` names them; False for every other variant, a baseline's included."""
    return variant.endswith(tuple(f"/{p}" for p in ALL_PARSERS[1:])) or variant.startswith(
        _variant("mode", "", "")
    )


def _unscorable_reason(pairs: pd.DataFrame) -> str:
    """Why a dimension's rows have no value ("" when it can be scored)."""
    scored = pairs["judge"].notna()
    if not scored.any():
        return "no item has a score (every reply unparsed?)"
    if pairs.loc[scored, "judge"].nunique() < 2:
        return "the judge gives every item the same score"
    return ""


def _rows_for(
    items: pd.DataFrame,
    human: pd.DataFrame,
    *,
    spec: JudgeSpec,
    score: str,
    variant: str,
    paper_metric: str | None,
    n_resamples: int,
    seed: int,
    note: str = "",
    run_items: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """Rows at the benchmark's level of one per-item ``score`` column, per scored dimension.

    A dimension that cannot be scored gets its rows (accuracies too) with an empty value and
    a note saying why (logged as a warning). ``run_items``: the items the run answered per
    dimension, when ``items`` holds only those with a score (rating probabilities); the
    "partial run" note counts the run's items.
    """
    benchmark, judge = spec.benchmark, spec.name
    parts = []
    for dimension in benchmark.dimension_names:
        if not (items["dimension"] == dimension).any():
            continue
        pairs = paired_items(items, human, dimension, score)
        reason = _unscorable_reason(pairs)
        partial = _partial_note((run_items or {}).get(dimension, len(pairs)), len(human))
        if partial:
            log.warning(
                "judge %s, %s %s (%s): %s; not comparable with the paper's value",
                judge,
                benchmark.name,
                dimension,
                variant,
                partial,
            )
        if reason:
            log.warning(
                "judge %s, %s %s (%s): %s; its rows have no value",
                judge,
                benchmark.name,
                dimension,
                variant,
                reason,
            )
        rows = table_rows(
            pairs,
            benchmark=benchmark,
            dimension=dimension,
            metric=judge,
            variant=variant,
            metric_column="judge",
            human_column="human",
            n_resamples=n_resamples,
            seed=seed,
            note="; ".join(p for p in (spec.label, partial, note) if p),
            paper_metric=paper_metric,
            status=spec.status,
        )
        if score in UNREAD_SCORES and {"n_replies", "n_parsed"} <= set(items.columns):
            share = unread_share(items[items["dimension"] == dimension])
            rows["share_unread"] = share
            rows["note"] = rows["note"] + "; " + unread_note(share, variant)
        if reason:
            # A constant judge's pairwise accuracies are defined (it ties every pair: the
            # constant reference); its correlations are not.
            blank = ["value", "ci_low", "ci_high", "epsilon", "delta"]
            undefined = ~rows["coefficient"].isin(ACCURACIES) | rows["value"].isna()
            rows.loc[undefined, blank] = np.nan
            rows.loc[undefined, "note"] = rows["note"] + f"; {UNSCORABLE}: {reason}"
            rows.loc[~undefined, "note"] = rows["note"] + f"; {reason}: {CONSTANT_JUDGE}"
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)


#: What an accuracy row of a constant judge says: its value is the constant reference's.
CONSTANT_JUDGE = (
    "it ties every pair, so its accuracy is the constant reference's (the share of pairs "
    "the humans tie)"
)
#: The per-item scores made from every reply of an item, whose rows carry the share of
#: those replies their parser could not read (``share_unread``).
UNREAD_SCORES = ("mean", "mode")


def unread_share(items: pd.DataFrame) -> float:
    """The share of the replies behind ``items`` (per-item scores of one parser, with
    ``n_replies`` and ``n_parsed``) that the parser could not read."""
    total = int(items["n_replies"].sum())
    return 1 - int(items["n_parsed"].sum()) / total if total else math.nan


def unread_note(share: float, variant: str) -> str:
    """The note of a reply-based row: how many of its replies its parser could not read,
    and what that parser does with them."""
    released = variant.endswith(f"/{PARSERS[0]}")
    treated = "scored 0 and still counted" if released else "left out"
    return f"{share:.0%} of the replies unread by this parser ({treated})"


def _partial_note(n_run: int, n_benchmark: int) -> str:
    """The note of a run covering fewer items than the benchmark ("" when it covers all)."""
    if n_run >= n_benchmark:
        return ""
    return f"partial run: {n_run} of {n_benchmark} items"


def _with_averages(rows: pd.DataFrame, judge: str, paper_metric: str | None) -> pd.DataFrame:
    averages = average_rows(rows, {judge: paper_metric} if paper_metric else None)
    return pd.concat([rows, averages], ignore_index=True)


def _probs_name(paper_metric: str | None) -> str | None:
    return f"{paper_metric} -Probs" if paper_metric else None


def faces_probs(variant: str) -> bool:
    """Whether a judge row's variant faces the paper's "-Probs" row (one reply, one token)."""
    return variant.split("/")[0] in {f"{s}-reply" for s in ONE_REPLY_SCORES} or (
        variant == RATING_VARIANTS["top_rating"]
    )


def replies_tables(
    spec: JudgeSpec,
    items: pd.DataFrame,
    replies: pd.DataFrame,
    human: pd.DataFrame,
    *,
    n_resamples: int,
    permutation_resamples: int,
    seed: int,
    pass_threshold: float,
) -> dict[str, pd.DataFrame]:
    """The tables of a run's replies: ``correlations`` (every row), ``main`` (mean of the
    replies, original parser, with AVG rows), ``one_reply`` (first and mode), ``parsers``
    (both parsers side by side; the item scores' ``final`` too when it read a reasoning
    model's replies), ``diagnostics``, ``rollups`` and ``significance`` (paired
    permutation test, mean vs one reply)."""
    mean_name, mean_note = mean_label(items)
    judge, paper_metric = spec.name, spec.paper_metric
    log.info("%s: %d item scores", judge, len(items))

    def block(scores: tuple[str, ...], printed_as: str | None) -> pd.DataFrame:
        """Rows of ``scores`` under both parsers, with AVG rows against ``printed_as``."""
        rows = [
            _rows_for(
                items[items["parser"] == parser],
                human,
                spec=spec,
                score=score,
                variant=_variant(score, parser, mean_name),
                paper_metric=printed_as,
                n_resamples=n_resamples,
                seed=seed,
                note=mean_note if score == "mean" else "",
            )
            for parser in parsers_in(items)
            for score in scores
        ]
        return _with_averages(pd.concat(rows, ignore_index=True), judge, printed_as)

    mean_rows = block(("mean",), paper_metric)
    one_reply = block(ONE_REPLY_SCORES, _probs_name(paper_metric))  # faces "-Probs"
    all_rows = pd.concat([mean_rows, one_reply], ignore_index=True)
    return {
        "correlations": all_rows,
        "main": all_rows[all_rows["variant"] == _variant("mean", "original", mean_name)],
        "one_reply": one_reply,
        "parsers": parser_comparison(all_rows),
        "diagnostics": reply_diagnostics(replies, parsers_in(items)),
        "rollups": pd.concat(
            [
                rollup(items, human, score=s, threshold=pass_threshold)
                for s in ("mean", *ONE_REPLY_SCORES)
            ],
            ignore_index=True,
        ),
        "significance": significance(
            items, human, judge, mean_name, n_resamples=permutation_resamples, seed=seed
        ),
    }


def rating_tables(
    spec: JudgeSpec,
    rating_probs: pd.DataFrame,
    human: pd.DataFrame,
    *,
    n_resamples: int,
    seed: int,
    pass_threshold: float,
    run_items: Mapping[str, int] | None = None,
) -> dict[str, pd.DataFrame]:
    """The tables of a run's rating probabilities (its ``rating_probs``): ``correlations``
    (Eq. 1 weighted score against ``paper_metric``, most likely rating against its "-Probs"
    row, with AVG rows), ``rating_items`` (per-item results) and ``rollups``. ``run_items``:
    the items the run answered per dimension (``rating_probs`` holds only the items with a
    rating token)."""
    scores = rating_scores(rating_probs)
    judge, paper_metric = spec.name, spec.paper_metric
    rows = [
        _with_averages(
            _rows_for(
                scores,
                human,
                spec=spec,
                score=score,
                variant=variant,
                paper_metric=printed_as,
                n_resamples=n_resamples,
                seed=seed,
                run_items=run_items,
            ),
            judge,
            printed_as,
        )
        for (score, variant), printed_as in zip(
            RATING_VARIANTS.items(), (paper_metric, _probs_name(paper_metric)), strict=True
        )
    ]
    return {
        "correlations": pd.concat(rows, ignore_index=True),
        "rating_items": rating_results(scores, pass_threshold),
        "rollups": pd.concat(
            [rollup(scores, human, score=s, threshold=pass_threshold) for s in RATING_SCORES],
            ignore_index=True,
        ),
    }


def tables_without_human_scores(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame], *, pass_threshold: float
) -> dict[str, pd.DataFrame]:
    """The tables of a run on a benchmark without per-item human scores (pairwise
    preferences): those of :data:`~geval_repro.registry.formats.WITHOUT_HUMAN_SCORES` its
    contents give, ``diagnostics`` of its replies and ``rating_items`` of its rating
    probabilities. ``processed``: the run's processed tables by name."""
    tables = {}
    if "replies" in spec.contents:
        parsers = ANSWER_PARSERS if spec.answers else PARSERS
        tables["diagnostics"] = reply_diagnostics(processed["replies"], parsers)
    if "rating_probs" in spec.contents:
        scores = rating_scores(processed["rating_probs"])
        scale = (0, 1) if spec.answers else None  # a Yes/No prompt's P(Yes)
        tables["rating_items"] = rating_results(scores, pass_threshold, scale)
    return tables


def parser_comparison(rows: pd.DataFrame) -> pd.DataFrame:
    """Every correlation under both parsers (and ``final``, for a reasoning model's run)
    side by side, with each one's difference from the released parser's (empty where a
    parser gave no value)."""
    split = rows["variant"].str.rsplit("/", n=1, expand=True)
    keyed = rows.assign(score=split[0], parser=split[1])
    index = ["benchmark", "dimension", "metric", "score", "level", "coefficient"]
    wide = keyed.pivot_table(index=index, columns="parser", values="value", sort=True, dropna=False)
    held = [p for p in ALL_PARSERS if p in PARSERS or p in wide.columns]
    wide = wide.reindex(columns=held).reset_index()
    wide.columns.name = None
    for parser in held[1:]:
        wide[f"{parser}_minus_original"] = wide[parser] - wide["original"]
    return wide


def significance(
    items: pd.DataFrame,
    human: pd.DataFrame,
    judge: str,
    mean_name: str,
    *,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """Paired permutation tests: mean of the replies vs one reply (first, mode), at the
    benchmark's level. A test that cannot be made (a constant or unscored score) gives a
    row with an empty p-value and a note saying why."""
    benchmark = get_benchmark(str(items["benchmark"].iloc[0]))
    records = []
    for parser in parsers_in(items):
        parsed = items[items["parser"] == parser]
        for dimension in benchmark.dimension_names:
            if not (parsed["dimension"] == dimension).any():
                continue
            mean, gold = paired_matrices(parsed, human, dimension, "mean")
            for score in ONE_REPLY_SCORES:
                one, _ = paired_matrices(parsed, human, dimension, score)
                both = ~(np.isnan(mean) | np.isnan(one))
                for coefficient in PERMUTATION_COEFFICIENTS:
                    statistic, pvalue, note = math.nan, math.nan, ""
                    try:
                        result = paired_permutation_test(
                            np.where(both, mean, np.nan),
                            np.where(both, one, np.nan),
                            np.where(both, gold, np.nan),
                            benchmark.level,
                            coefficient,
                            n_resamples=n_resamples,
                            seed=seed,
                        )
                        statistic, pvalue = result.statistic, result.pvalue
                    except ValueError as error:
                        note = f"{UNSCORABLE}: {error}"
                        log.warning(
                            "judge %s, %s %s, parser %s: no permutation test (%s)",
                            judge,
                            benchmark.name,
                            dimension,
                            parser,
                            error,
                        )
                    records.append(
                        {
                            "judge": judge,
                            "benchmark": benchmark.name,
                            "dimension": dimension,
                            "parser": parser,
                            "level": benchmark.level.value,
                            "metric_a": mean_name,
                            "metric_b": f"{score}-reply",
                            "coefficient": coefficient,
                            "difference": statistic,
                            "pvalue": pvalue,
                            "n_resamples": n_resamples,
                            "note": note,
                        }
                    )
    return pd.DataFrame.from_records(records)


def scores_rows(
    spec: JudgeSpec,
    scores: pd.DataFrame,
    human: pd.DataFrame,
    *,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """The correlation rows of a ``scores`` run (per-item scores), with AVG rows; their
    variant names the run's scale and each note says what the scale means for it
    (:func:`scale_note`)."""
    log.info("%s: %d item scores (scale %s)", spec.name, len(scores), spec.scale)
    rows = _rows_for(
        scores,
        human,
        spec=spec,
        score="score",
        variant=SCORES_VARIANTS[spec.scale],
        paper_metric=spec.paper_metric,
        n_resamples=n_resamples,
        seed=seed,
    )
    rows = _with_averages(rows, spec.name, spec.paper_metric)
    notes = [
        scale_note(spec.scale, level, coefficient)
        for level, coefficient in zip(rows["level"], rows["coefficient"], strict=True)
    ]
    joined = [join_notes(str(n), extra) for n, extra in zip(rows["note"], notes, strict=True)]
    return rows.assign(note=joined)


def score_variants(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame]
) -> Iterator[tuple[str, pd.DataFrame, str]]:
    """(variant, per-item table, score column) of each score variant of a run, named as in
    its correlation rows. ``processed``: the run's processed tables by name
    (``item_scores`` for a run with replies, ``rating_probs``, ``scores``)."""
    contents = spec.contents
    if spec.answers:
        yield from _answer_variants(spec, processed)
        return
    if "replies" in contents:
        items = processed["item_scores"]
        mean_name, _ = mean_label(items)
        for parser in parsers_in(items):
            for score in ("mean", *ONE_REPLY_SCORES):
                variant = _variant(score, parser, mean_name)
                yield variant, items[items["parser"] == parser], score
    if "rating_probs" in contents:
        scores = rating_scores(processed["rating_probs"])
        for score, variant in RATING_VARIANTS.items():
            yield variant, scores, score
    if "item_scores" in contents:
        yield SCORES_VARIANTS[spec.scale], processed["scores"], "score"


def _answer_variants(
    spec: JudgeSpec, processed: Mapping[str, pd.DataFrame]
) -> Iterator[tuple[str, pd.DataFrame, str]]:
    """:func:`score_variants` of a run whose prompt asks for a Yes/No answer
    (:data:`ANSWER_VARIANTS`): the ``yes-no`` parser's mean, first and modal answer (the
    mean's n the most replies an item has, "available" when items have fewer), P(Yes) and
    the more likely answer."""
    if "replies" in spec.contents:
        items = processed["item_scores"]
        items = items[items["parser"].isin(ANSWER_PARSERS)]
        if items.empty:
            raise ValueError(
                f"{spec.name}: its prompt variant {spec.prompt_variant!r} asks for a Yes/No "
                "answer, but its item scores hold no yes-no parser's rows: rebuild them "
                "(rule judge_item_scores)"
            )
        counts = items["n_replies"]
        n = str(int(counts.max())) if counts.min() == counts.max() else "the available"
        for score in ("mean", *ONE_REPLY_SCORES):
            yield ANSWER_VARIANTS[score].format(n=n), items, score
    if "rating_probs" in spec.contents:
        scores = rating_scores(processed["rating_probs"])
        for score in RATING_VARIANTS:
            yield ANSWER_VARIANTS[score], scores, score


def subset_average_rows(
    correlations: Mapping[str, pd.DataFrame], specs: Mapping[str, JudgeSpec]
) -> pd.DataFrame:
    """Rows of the paper's averaged pseudo-benchmarks (the QAGS Average) from judge runs.

    ``correlations``: each judge run's correlation rows. Runs are grouped by average and
    ``paper_metric``; a group with exactly one run per subset (e.g. one QAGS-CNN/DM and one
    QAGS-XSum run facing G-Eval-4) gives, per variant both runs have, the mean of their
    subset values (metric ``<run> + <run>``) against the printed Average. Runs without
    ``paper_metric``, or a subset with several runs, give none (logged: which runs to pair
    would be a guess).
    """
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for judge, spec in specs.items():
        average = average_of(spec.benchmark.name)
        if average is None or judge not in correlations or not spec.paper_metric:
            continue
        key = (average.name, spec.paper_metric)
        groups.setdefault(key, {}).setdefault(spec.benchmark.name, []).append(judge)
    parts = []
    for (average, paper_metric), runs in groups.items():
        parts_of = AVERAGES[average].parts
        if set(runs) != set(parts_of) or any(len(j) != 1 for j in runs.values()):
            log.warning(
                "no %s rows for %s: need exactly one run per subset %s, got %s",
                average,
                paper_metric,
                parts_of,
                runs,
            )
            continue
        judges = [runs[subset][0] for subset in parts_of]
        name = " + ".join(judges)
        rows = pd.concat([correlations[j] for j in judges], ignore_index=True)
        rows = rows[rows["benchmark"].isin(parts_of)].assign(metric=name)
        one_token = rows["variant"].map(faces_probs)
        for part, printed in (
            (rows[~one_token], paper_metric),
            (rows[one_token], _probs_name(paper_metric)),
        ):
            averaged = average_rows(part, {name: printed})
            parts.append(averaged[averaged["benchmark"] == average])
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)
