"""The judge cards' table: one row per judge, benchmark and dimension with every number a
reader needs to decide whether the judge may replace a human rater there, each taken from the
result table that computed it (nothing is recomputed here):

- the judge's headline score variant (the first it is compared with others under: the
  released parser's mean of the replies, the Eq. 1 weighted score, per-item scores) and its
  Spearman correlation with the humans at the benchmark's level, with its bootstrap interval
  and ``n_items`` (``tables/correlations.csv``);
- the best recomputed baseline on the judge's items (``tables/significance_vs_baseline.csv``:
  its value there, the difference judge minus baseline and the paired permutation test's
  p-value), the baseline's value on its full items (``baseline_value_full``) and that
  value's interval (``tables/correlations.csv``);
- the human ceiling (one annotator against the mean of the others, averaged over the
  annotators; the interval columns give the range over the annotators, not a confidence
  interval: ``work/rows/human_ceiling.csv``);
- the paired bootstrap (``tables/judge_power.csv``): the interval of the difference from the
  best baseline, the smallest difference these units can detect with 80 % power and the units
  needed to detect the observed one (``power_units``: what they count), and the difference
  from the human ceiling with its interval;
- the alternative annotator test (``tables/alt_test.csv``): omega, rho, the verdict, epsilon,
  the scale it was tested on, and the reference rows' rho and verdict (constant at the median
  rating, random rating);
- soft pairwise accuracy (``tables/soft_pairwise_accuracy.csv``): SPA with its interval, its
  position and significance cluster in the benchmark's ranking, the constant's SPA, the
  system-level Spearman on the same matrices;
- what it favours and costs (``tables/judge_biases.csv``, ``tables/rerun_agreement.csv``,
  the run's manifest), the writer-vs-LLM preference of a run of the judge's model on that
  set (``llm_preference*``: :mod:`geval_repro.tables.llm_preference`,
  ``tables/writer_vs_llm/preferences.csv``) and ``fewest_replies``: the fewest replies per
  item (first n) whose Spearman lies within the interval of the mean of all of them
  (``tables/sweep.csv``), and
  ``adaptive_replies``: the mean replies per item the adaptive stopping rule uses at the
  standard-error target ``adaptive_se_target`` whose Spearman is within that interval with
  the fewest replies (the sweep's ``adaptive_first`` rows).

A statistic that does not apply to a benchmark or judge has its reason in its value cell
(``n/a: ...``), the rest of its columns empty. ``full_n``: the benchmark's items; every
count below it is the n a number rests on.

A run on a benchmark of binary human labels (SummEdits; :func:`labelled_rows`) has no
per-item human scores to correlate with: its row's ``coefficient`` is ``balanced_accuracy``
(never ``spearman``), ``level`` is ``mean over domains``, and ``value``, ``ci_low``,
``ci_high``, ``n_items`` are the mean over domains of its balanced accuracy with that row's
interval and n (``tables/binary_labels.csv``: its test-split items; ``n_documents`` their
documents); ``roc_auc``, ``roc_auc_low``, ``roc_auc_high`` the same row set's mean ROC AUC.
``baseline`` is the baseline with the best mean balanced accuracy on its full items
(``baseline_value_full`` with its interval; ``baseline_roc_auc`` that baseline's mean ROC
AUC), ``constant_value`` and ``random_value`` the reference rows' mean balanced accuracy
(chance: 0.5); ``fewest_replies`` the fewest replies per item (first n) whose balanced
accuracy lies within the interval of the mean of all of them (the sweep on binary labels,
:mod:`geval_repro.scoring.label_sweep`). Every column the run's benchmark does not support
(the alternative annotator test, the human ceiling, SPA, the paired bootstrap, the biases,
the adaptive rule's replay) says why in its first cell. So ``value`` is a Spearman
correlation only where ``coefficient`` says so; read the two apart by ``coefficient``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from geval_repro.registry.judges import JudgeSpec
from geval_repro.tables.binary_labels import AVERAGE as BINARY_LEVEL
from geval_repro.tables.costs import cost_fields
from geval_repro.tables.judge_rows import mean_parser
from geval_repro.tables.llm_preference import preference_fields, run_model

COEFFICIENT = "spearman"
NO_ANNOTATORS = "n/a: no table of individual annotators (3 or more per item) for this benchmark"
NO_CEILING = "n/a: no individual raters' ratings for this benchmark"
NO_SYSTEMS = "n/a: its systems do not share documents (no system-level ranking)"
NOT_SCORED = "n/a: the judge scores no item of this dimension"
NO_SYSTEM_LEVEL = "n/a: binary labels of edited summaries, no systems to rank (no system level)"
NOT_CORRELATED = "n/a: binary human labels, no per-item human scores to correlate with"
NO_ADAPTIVE = "n/a: the adaptive rule is replayed on correlations only, not on binary labels"
#: A labelled benchmark's card statistic (``coefficient``; its level is the binary-label
#: table's mean over domains, ``BINARY_LEVEL``) and its second statistic.
BINARY_COEFFICIENT = "balanced_accuracy"
BINARY_SECOND = "roc_auc"
COLUMNS = [
    "judge",
    "benchmark",
    "dimension",
    "variant",
    "status",
    "coefficient",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n_items",
    "full_n",
    "n_documents",
    "roc_auc",
    "roc_auc_low",
    "roc_auc_high",
    "baseline",
    "baseline_variant",
    "baseline_value",
    "baseline_value_full",
    "baseline_ci_low",
    "baseline_ci_high",
    "baseline_roc_auc",
    "constant_value",
    "random_value",
    "difference",
    "difference_pvalue",
    "difference_ci_low",
    "difference_ci_high",
    "detectable",
    "units_needed",
    "power_units",
    "ceiling",
    "ceiling_low",
    "ceiling_high",
    "ceiling_difference",
    "ceiling_difference_ci_low",
    "ceiling_difference_ci_high",
    "alt_omega",
    "alt_rho",
    "alt_passed",
    "alt_epsilon",
    "alt_n_items",
    "alt_scale",
    "constant_rho",
    "constant_passed",
    "random_rho",
    "spa",
    "spa_low",
    "spa_high",
    "spa_position",
    "spa_cluster",
    "spa_constant",
    "spa_n_systems",
    "spa_n_inputs",
    "system_spearman",
    "share_unread",
    "length_judge",
    "length_human",
    "partial_length",
    "split_half",
    "spearman_brown",
    "rerun_spearman",
    "fewest_replies",
    "adaptive_replies",
    "adaptive_se_target",
    "requests_per_1000",
    "prompt_tokens_per_1000",
    "completion_tokens_per_1000",
    "wall_seconds_per_1000",
    "cost_items",
    "server",
    "usd_per_1000",
    "llm_preference",
    "llm_preference_humans",
    "llm_preference_difference",
    "llm_preference_ci_low",
    "llm_preference_ci_high",
    "llm_preference_pvalue",
    "llm_preference_n",
    "llm_preference_judge",
    "llm_preference_variant",
    "llm_preference_dimension",
    "note",
]


def _one(table: pd.DataFrame, **match: object) -> pd.Series | None:
    """The row of ``table`` matching ``match`` (None when none does)."""
    chosen = table
    for column, value in match.items():
        chosen = chosen[chosen[column] == value]
    return None if chosen.empty else chosen.iloc[0]


def card_rows(
    specs: Mapping[str, JudgeSpec],
    headline: Mapping[str, str],
    correlations: pd.DataFrame,
    vs_baseline: pd.DataFrame,
    ceiling: pd.DataFrame,
    alt_test: pd.DataFrame,
    spa: pd.DataFrame,
    power: pd.DataFrame,
    biases: pd.DataFrame,
    reruns: pd.DataFrame,
    manifests: Mapping[str, Mapping[str, object] | None],
    sweep: pd.DataFrame,
    *,
    preference_runs: Mapping[str, str | None],
    preferences: Mapping[str, pd.DataFrame],
) -> pd.DataFrame:
    """The rows of the module docstring for every judge of ``specs`` that has human scores
    to be compared with (``headline``: each judge's headline variant; the tables as the
    pipeline writes them; ``preference_runs``: the model of each judge on a benchmark of
    pairwise preferences, :func:`~geval_repro.tables.llm_preference.run_model`;
    ``preferences``: each such benchmark's preference table)."""
    records = []
    for judge, spec in specs.items():
        benchmark = spec.benchmark
        variant = headline[judge]
        level = benchmark.level.value
        for dimension in benchmark.human_dimensions:
            row = _row_key(judge, spec, dimension, variant, COEFFICIENT, level)
            where = {"benchmark": benchmark.name, "dimension": dimension}
            corr = _one(
                correlations,
                **where,
                metric=judge,
                variant=variant,
                level=level,
                coefficient=COEFFICIENT,
            )
            if corr is None or pd.isna(corr["n_items"]) or corr["n_items"] == 0:
                records.append({**row, "value": NOT_SCORED, "alt_omega": NOT_SCORED})
                continue
            row.update(value=corr["value"], ci_low=corr["ci_low"], ci_high=corr["ci_high"])
            row["n_items"] = int(corr["n_items"])
            test = _one(
                vs_baseline,
                judge=judge,
                variant=variant,
                dimension=dimension,
                coefficient=COEFFICIENT,
            )
            if test is not None:
                row.update(
                    baseline=test["baseline"],
                    baseline_variant=test["baseline_variant"],
                    baseline_value=test["baseline_value"],
                    baseline_value_full=test["baseline_value_full"],
                    difference=test["difference"],
                    difference_pvalue=test["pvalue"],
                )
                full = _one(
                    correlations,
                    **where,
                    metric=test["baseline"],
                    variant=test["baseline_variant"],
                    level=level,
                    coefficient=COEFFICIENT,
                )
                if full is not None:
                    row.update(baseline_ci_low=full["ci_low"], baseline_ci_high=full["ci_high"])
            row.update(_ceiling(ceiling, benchmark.name, dimension, level))
            row.update(_power(power, judge, variant, dimension))
            row.update(_biases(biases, judge, variant, dimension))
            row.update(_rerun(reruns, judge, dimension))
            row["fewest_replies"] = fewest_replies(sweep, judge, variant, dimension, row)
            row.update(adaptive_replies(sweep, judge, variant, dimension, row))
            row.update(
                _run_fields(
                    spec, manifests.get(judge), dimension, variant, preference_runs, preferences
                )
            )
            row.update(_alt_test(alt_test, where, judge, variant))
            row.update(_spa(spa, where, judge, variant))
            records.append(row)
    table = pd.DataFrame.from_records(records).reindex(columns=COLUMNS)
    return _typed(table)


def _row_key(
    judge: str, spec: JudgeSpec, dimension: str, variant: str, coefficient: str, level: str
) -> dict[str, object]:
    """The cells that name a card row: the judge, its benchmark and dimension, its card
    variant and status, the statistic and level of its value, the benchmark's full n."""
    return {
        "judge": judge,
        "benchmark": spec.benchmark.name,
        "dimension": dimension,
        "variant": variant,
        "status": spec.status,
        "coefficient": coefficient,
        "level": level,
        "full_n": spec.benchmark.item_count,
    }


def _run_fields(
    spec: JudgeSpec,
    manifest: Mapping[str, object] | None,
    dimension: str,
    variant: str,
    preference_runs: Mapping[str, str | None],
    preferences: Mapping[str, pd.DataFrame],
) -> dict[str, object]:
    """What a row reads from the run itself, whatever its benchmark's labels: the cost cells
    (:func:`cost_fields`) and the writer-vs-LLM preference of a run of its model."""
    return {
        **cost_fields(manifest, dimension, spec.prices),
        **preference_fields(
            run_model(manifest),
            spec.benchmark,
            dimension,
            variant,
            preference_runs,
            preferences,
        ),
    }


def labelled_rows(
    specs: Mapping[str, JudgeSpec],
    headline: Mapping[str, str],
    binary_labels: pd.DataFrame,
    manifests: Mapping[str, Mapping[str, object] | None],
    sweep: pd.DataFrame,
    *,
    preference_runs: Mapping[str, str | None],
    preferences: Mapping[str, pd.DataFrame],
) -> pd.DataFrame:
    """The card rows of every judge of ``specs`` on a benchmark of binary human labels (the
    module docstring's last paragraph), from ``binary_labels`` (``tables/binary_labels.csv``)
    and the replies-per-item ``sweep`` (``tables/sweep.csv``, which holds the sweeps on
    binary labels too):
    the mean over domains of the judge's headline variant (``headline``) and of the baselines
    and reference rows; the cost and writer-vs-LLM cells as :func:`card_rows` makes them; every
    statistic of human scores says why it does not apply."""
    means = binary_labels[binary_labels["domain"] == BINARY_LEVEL]
    records = []
    for judge, spec in specs.items():
        benchmark = spec.benchmark
        variant = headline[judge]
        for dimension in benchmark.dimension_names:
            row = {
                **_row_key(judge, spec, dimension, variant, BINARY_COEFFICIENT, BINARY_LEVEL),
                **_not_applicable(),
            }
            here = means[(means["benchmark"] == benchmark.name) & (means["dimension"] == dimension)]
            mine = here[(here["metric"] == judge) & (here["variant"] == variant)]
            first = _one(mine, statistic=BINARY_COEFFICIENT)
            if first is None or first["n_items"] == 0:
                records.append({**row, "value": NOT_SCORED})
                continue
            row.update(
                n_items=int(first["n_items"]),
                n_documents=int(first["n_documents"]),
                note=first["note"] if isinstance(first["note"], str) else None,
            )
            row.update(_binary_value(first, "value", "ci_low", "ci_high"))
            second = _one(mine, statistic=BINARY_SECOND)
            if second is not None:
                row.update(_binary_value(second, "roc_auc", "roc_auc_low", "roc_auc_high"))
            row.update(_binary_references(here, set(specs)))
            row["fewest_replies"] = fewest_replies(
                sweep, judge, variant, dimension, row, BINARY_COEFFICIENT
            )
            row.update(
                _run_fields(
                    spec, manifests.get(judge), dimension, variant, preference_runs, preferences
                )
            )
            records.append(row)
    return _typed(pd.DataFrame.from_records(records, columns=COLUMNS).reindex(columns=COLUMNS))


def _not_applicable() -> dict[str, object]:
    """The first cell of every statistic a benchmark of binary labels does not support,
    with the reason."""
    return {
        "ceiling": NO_CEILING,
        "alt_omega": NO_ANNOTATORS,
        "spa": NO_SYSTEM_LEVEL,
        "difference_ci_low": NOT_CORRELATED,
        "ceiling_difference": NOT_CORRELATED,
        "share_unread": NOT_CORRELATED,
        "length_judge": NOT_CORRELATED,
        "partial_length": NOT_CORRELATED,
        "split_half": NOT_CORRELATED,
        "rerun_spearman": NOT_CORRELATED,
        "adaptive_replies": NO_ADAPTIVE,
    }


def _binary_value(mean: pd.Series, value: str, low: str, high: str) -> dict[str, object]:
    """A mean-over-domains row's value and interval as the card's ``value``/``low``/``high``
    cells; where it has no value, the reason of its note (how many domains have one)."""
    if pd.isna(mean["value"]):
        note = str(mean["note"]) if isinstance(mean["note"], str) else ""
        why = [part for part in note.split("; ") if part.startswith("no mean")]
        return {value: f"n/a: {(why or [note or 'no mean over domains'])[0]}"}
    return {value: mean["value"], low: mean["ci_low"], high: mean["ci_high"]}


def _binary_references(means: pd.DataFrame, judges: set[str]) -> dict[str, object]:
    """The best baseline by mean balanced accuracy on its full items (its interval and its
    mean ROC AUC) and the reference rows' (constant, random) mean balanced accuracy, from one
    benchmark and dimension's mean-over-domains rows of the binary-label table."""
    first = means[means["statistic"] == BINARY_COEFFICIENT]
    out: dict[str, object] = {}
    baselines = first[(first["status"] == "recomputed") & ~first["metric"].isin(judges)]
    baselines = baselines.dropna(subset=["value"]).sort_values("value", ascending=False)
    if not baselines.empty:
        best = baselines.iloc[0]
        auc = _one(means, metric=best["metric"], variant=best["variant"], statistic=BINARY_SECOND)
        out.update(
            baseline=best["metric"],
            baseline_variant=best["variant"],
            baseline_value_full=best["value"],
            baseline_ci_low=best["ci_low"],
            baseline_ci_high=best["ci_high"],
            baseline_roc_auc=None if auc is None else auc["value"],
        )
    references = first[first["status"] == "reference"]
    for name, column in (("constant", "constant_value"), ("random", "random_value")):
        chosen = references[references["metric"].str.startswith(name)]
        if not chosen.empty:
            out[column] = chosen["value"].iloc[0]
    return out


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    """The cards' count columns as nullable integers."""
    counts = [
        "n_items",
        "full_n",
        "n_documents",
        "alt_n_items",
        "spa_position",
        "spa_cluster",
        "spa_n_systems",
        "spa_n_inputs",
        "llm_preference_n",
    ]
    return table.astype(dict.fromkeys(counts, "Int64"))


def _ceiling(ceiling: pd.DataFrame, benchmark: str, dimension: str, level: str) -> dict:
    rows = ceiling[
        (ceiling["benchmark"] == benchmark)
        & (ceiling["dimension"] == dimension)
        & (ceiling["coefficient"] == COEFFICIENT)
        & (ceiling["level"] == level)
    ]
    if rows.empty:
        return {"ceiling": NO_CEILING}
    single = rows[rows["variant"].str.startswith("annotator")]
    mean = rows[~rows["variant"].str.startswith("annotator")]
    return {
        "ceiling": float(mean["value"].iloc[0]),
        "ceiling_low": float(single["value"].min()),
        "ceiling_high": float(single["value"].max()),
    }


def _alt_test(alt_test: pd.DataFrame, where: dict, judge: str, variant: str) -> dict:
    rows = alt_test[
        (alt_test["benchmark"] == where["benchmark"])
        & (alt_test["dimension"] == where["dimension"])
    ]
    if rows.empty:
        return {"alt_omega": NO_ANNOTATORS}
    references = rows[rows["kind"] == "reference"]
    constant = references[references["metric"].str.startswith("constant")].iloc[0]
    random = references[~references["metric"].str.startswith("constant")].iloc[0]
    out = {
        "constant_rho": constant["rho"],
        "constant_passed": bool(constant["passed"]),
        "random_rho": random["rho"],
        "alt_epsilon": constant["epsilon"],
    }
    mine = _one(rows, metric=judge, variant=variant)
    if mine is None:
        return {**out, "alt_omega": NOT_SCORED}
    if pd.isna(mine["omega"]):
        return {**out, "alt_omega": f"n/a: {mine['note']}", "alt_n_items": int(mine["n_items"])}
    return {
        **out,
        "alt_omega": mine["omega"],
        "alt_rho": mine["rho"],
        "alt_passed": bool(mine["passed"]),
        "alt_n_items": int(mine["n_items"]),
        "alt_scale": mine["scale"],
    }


def _spa(spa: pd.DataFrame, where: dict, judge: str, variant: str) -> dict:
    rows = spa[(spa["benchmark"] == where["benchmark"]) & (spa["dimension"] == where["dimension"])]
    if rows.empty:
        return {"spa": NO_SYSTEMS}
    constant = _one(rows, metric="constant", kind="reference")
    out = {"spa_constant": None if constant is None else constant["spa"]}
    mine = _one(rows, metric=judge, variant=variant)
    if mine is None:
        return {**out, "spa": NOT_SCORED}
    if pd.isna(mine["spa"]):
        return {**out, "spa": f"n/a: {mine['note']}"}
    return {
        **out,
        "spa": mine["spa"],
        "spa_low": mine["spa_low"],
        "spa_high": mine["spa_high"],
        "spa_position": mine["position"],
        "spa_cluster": mine["cluster"],
        "spa_n_systems": mine["n_systems"],
        "spa_n_inputs": mine["n_inputs"],
        "system_spearman": mine["system_spearman"],
    }


def _power(power: pd.DataFrame, judge: str, variant: str, dimension: str) -> dict:
    """The paired bootstrap against the best baseline (interval, detectable difference,
    units needed) and against the human ceiling (difference and interval)."""
    rows = power[
        (power["judge"] == judge)
        & (power["variant"] == variant)
        & (power["dimension"] == dimension)
    ]
    out: dict[str, object] = {}
    baseline = _one(rows, versus="best baseline")
    if baseline is not None:
        if pd.isna(baseline["difference"]):
            out["difference_ci_low"] = f"n/a: {baseline['note']}"
        else:
            out.update(
                difference_ci_low=baseline["ci_low"],
                difference_ci_high=baseline["ci_high"],
                detectable=baseline["detectable"],
                units_needed=baseline["units_needed"],
                power_units=f"{int(baseline['n_units'])} {baseline['unit']}",
            )
    ceiling = _one(rows, versus="human ceiling")
    if ceiling is not None:
        if pd.isna(ceiling["difference"]):
            out["ceiling_difference"] = f"n/a: {ceiling['note']}"
        else:
            out.update(
                ceiling_difference=ceiling["difference"],
                ceiling_difference_ci_low=ceiling["ci_low"],
                ceiling_difference_ci_high=ceiling["ci_high"],
            )
    return out


def _biases(biases: pd.DataFrame, judge: str, variant: str, dimension: str) -> dict:
    """Parse failures, length correlations and the split-half reliability."""
    mine = _one(biases, judge=judge, variant=variant, dimension=dimension)
    if mine is None:
        return {}
    return {
        "share_unread": mine["share_unread"],
        "length_judge": mine["length_judge"],
        "length_human": mine["length_human"],
        "partial_length": mine["partial"],
        "split_half": mine["split_half"],
        "spearman_brown": mine["spearman_brown"],
    }


def _rerun(reruns: pd.DataFrame, judge: str, dimension: str) -> dict:
    """The Spearman agreement of the judge with its other run over all items (a configured
    re-run pair), else why there is none."""
    pair = reruns[
        ((reruns["judge_a"] == judge) | (reruns["judge_b"] == judge))
        & (reruns["dimension"] == dimension)
        & (reruns["coefficient"] == COEFFICIENT)
        & (reruns["agreement_level"] == "global")
    ]
    if pair.empty:
        return {"rerun_spearman": "n/a: no second run of this judge configured"}
    return {"rerun_spearman": pair["agreement"].iloc[0]}


def _sweep_curve(
    sweep: pd.DataFrame,
    judge: str,
    variant: str,
    dimension: str,
    row: Mapping[str, object],
    mode: str,
    coefficient: str = COEFFICIENT,
) -> pd.DataFrame | str:
    """The sweep's rows of ``coefficient`` for the card's run, dimension and parser in
    ``mode``, else why the card has none (not a mean of replies, no interval, no sweep of
    this run)."""
    parser = mean_parser(variant)
    if parser is None:
        return "n/a: not a mean of replies"
    if pd.isna(row.get("ci_low")) or pd.isna(row.get("ci_high")):
        measure = "correlation" if coefficient == COEFFICIENT else coefficient.replace("_", " ")
        return f"n/a: the full run's {measure} has no interval"
    mine = sweep[
        (sweep["judge"] == judge)
        & (sweep["dimension"] == dimension)
        & (sweep["coefficient"] == coefficient)
    ]
    if mine.empty:
        return (
            "n/a: no replies-per-item sweep of this run (one reply per item, or its items "
            "stop at their own n)"
        )
    return mine[(mine["parser"] == parser) & (mine["mode"] == mode)]


def _inside(curve: pd.DataFrame, row: Mapping[str, object]) -> pd.DataFrame:
    """The rows of ``curve`` whose value lies within the card's interval (ends included)."""
    return curve[curve["value"].between(row["ci_low"], row["ci_high"])]


def fewest_replies(
    sweep: pd.DataFrame,
    judge: str,
    variant: str,
    dimension: str,
    row: Mapping[str, object],
    coefficient: str = COEFFICIENT,
) -> object:
    """The fewest replies per item (the first n, the parser of the card's variant) whose
    ``coefficient`` (Spearman; on binary labels, balanced accuracy) lies within the interval
    of the card's mean of all the run's replies, from the replies-per-item sweep; else why
    there is none."""
    curve = _sweep_curve(sweep, judge, variant, dimension, row, "first", coefficient)
    if isinstance(curve, str):
        return curve
    if curve.empty:
        return "n/a: no sweep of this run"
    inside = _inside(curve.sort_values("n"), row)
    return int(inside["n"].iloc[0]) if not inside.empty else "n/a: no n within the interval"


#: The sweep's adaptive mode the card reads: the rule replayed on each item's replies in the
#: run's order (as the fixed-n ``first`` rows), what a rerun with that target would have used.
ADAPTIVE_MODE = "adaptive_first"


def adaptive_replies(
    sweep: pd.DataFrame, judge: str, variant: str, dimension: str, row: Mapping[str, object]
) -> dict[str, object]:
    """What adaptive sampling buys (issue 49 item 3): among the sweep's ``adaptive_first``
    rows (the stopping rule of :mod:`geval_repro.stats.adaptive` replayed on each item's
    replies in the run's order, one row per standard-error target), the one with the fewest
    mean replies used per item (``replies_used``) whose Spearman correlation lies within the
    interval of the card's mean of all the run's replies: ``adaptive_replies`` and its
    ``adaptive_se_target``; else why there is none (in ``adaptive_replies``)."""
    curve = _sweep_curve(sweep, judge, variant, dimension, row, ADAPTIVE_MODE)
    if isinstance(curve, str):
        return {"adaptive_replies": curve}
    if curve.empty:
        return {
            "adaptive_replies": "n/a: no adaptive rows in the sweep (fewer replies per item "
            "than one batch of the rule, or a sweep made before them)"
        }
    inside = _inside(curve, row).sort_values(["replies_used", "se_target"])
    if inside.empty:
        targets = curve["se_target"]
        return {
            "adaptive_replies": f"n/a: no standard-error target ({targets.max():g} to "
            f"{targets.min():g}) within the interval"
        }
    best = inside.iloc[0]
    return {
        "adaptive_replies": float(best["replies_used"]),
        "adaptive_se_target": float(best["se_target"]),
    }
