"""The judge card's writer-vs-LLM cells (issue 48 item 5): on a benchmark of pairwise human
preferences between a writer's summary and an LLM's (Zhang et al.'s writer vs GPT-3.5 set,
:mod:`geval_repro.tables.writer_vs_llm`), how much more often the judge's model prefers the
LLM-written summary than the humans do.

A card's judge "ran there" when a judge of the config on that benchmark used the same model:
the model its run manifest records (each dimension's ``model``, with the model file's SHA-256
where a local server reported it, ``cache_answered_by``), so only runs this toolkit made (or
that ship its manifest) are matched; the cells name the run they come from, its score variant
(of the card's kind: a mean of parsed replies for a card showing one, else the same variant,
else the run's first; the run's other variants are in the preference table) and its
dimension (the card's where the two benchmarks judge it with the same prompts, as SummEval and
the writer-vs-LLM set share SummEval's released ones; else ``AVG``, the mean over the run's
dimensions: Topical-Chat's "coherence" is not a summary's). The numbers are the preference
table's, question ``overall``, every judgement (``length_stratum`` ``all``): the net
preference for the LLM's summary (share preferring it minus share preferring the writer's, in
[-1, 1]) of the judge and of the humans, and their difference with its bootstrap interval
over articles and its paired sign-flip permutation p-value. Nothing is recomputed here.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from geval_repro.registry.benchmarks import Benchmark, get_benchmark

QUESTION = "overall"
NO_MANIFEST = "n/a: no run manifest names this judge's model (a run this toolkit did not make)"


def run_model(manifest: Mapping[str, object] | None) -> str | None:
    """The model a run's parsed ``manifest`` records: ``<model>`` or ``<model>@<SHA-256 of
    its file>`` (a local server that reported it); None without a manifest or when its
    dimensions name different models."""
    dimensions = (manifest or {}).get("dimensions", {})
    if not isinstance(dimensions, Mapping):
        return None
    models = set()
    for record in dimensions.values():
        model = record.get("model")
        shas = {
            answered.get("model_sha256")
            for answered in record.get("cache_answered_by") or []
            if answered.get("model_sha256")
        }
        if model is None or len(shas) > 1:
            return None
        models.add(f"{model}@{shas.pop()}" if shas else str(model))
    return models.pop() if len(models) == 1 else None


def _family(variant: str) -> str:
    """What kind of score a variant is: ``mean`` for a mean of parsed replies
    (``mean-of-<n>/...``), else the variant itself (the Eq. 1 weighted score, per-item
    scores)."""
    return "mean" if variant.startswith("mean-of-") else variant


def preference_fields(
    model: str | None,
    benchmark: Benchmark,
    dimension: str,
    variant: str,
    runs: Mapping[str, str | None],
    preferences: Mapping[str, pd.DataFrame],
) -> dict[str, object]:
    """The card's writer-vs-LLM cells of ``dimension`` for a judge of ``model``
    (:func:`run_model`; None: its run has no manifest) on ``benchmark`` whose card shows
    ``variant``: the
    matched run's variant of the same kind (a mean of parsed replies for a mean of replies,
    else the same name), else its first. ``runs``: the model of every judge on a preference
    benchmark; ``preferences``: each such benchmark's preference table."""
    if model is None:
        return {"llm_preference": NO_MANIFEST}
    matched = [judge for judge, other in runs.items() if other == model]
    for judge in matched:
        for name, table in preferences.items():
            # the same dimension where both benchmarks judge it with the same prompts
            shared = get_benchmark(name).prompts == benchmark.prompts
            rows = table[
                (table["metric"] == judge)
                & (table["question"] == QUESTION)
                & (table["length_stratum"] == "all")
                & (table["outcome"] == "llm - writer")
            ]
            if rows.empty:
                continue
            variants = list(dict.fromkeys(rows["variant"]))
            same = [v for v in variants if _family(v) == _family(variant)]
            chosen_variant = (same or variants)[0]
            rows = rows[rows["variant"] == chosen_variant]
            chosen = dimension if shared and dimension in set(rows["dimension"]) else "AVG"
            rows = rows[rows["dimension"] == chosen].set_index("rater")
            if "metric - humans" not in rows.index:
                continue
            difference = rows.loc["metric - humans"]
            return {
                "llm_preference": rows.loc["metric", "value"],
                "llm_preference_humans": rows.loc["humans", "value"],
                "llm_preference_difference": difference["value"],
                "llm_preference_ci_low": difference["ci_low"],
                "llm_preference_ci_high": difference["ci_high"],
                "llm_preference_pvalue": difference["pvalue"],
                "llm_preference_n": int(difference["n_judgements"]),
                "llm_preference_judge": judge,
                "llm_preference_variant": chosen_variant,
                "llm_preference_dimension": chosen,
            }
    return {
        "llm_preference": "n/a: its model has no run on the writer-vs-LLM set in the config"
        + ("" if not matched else " with rows in its preference table")
    }
