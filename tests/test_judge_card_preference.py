"""The judge card's writer-vs-LLM preference (issue 48 item 5): a card shows the preference
for LLM-written summaries of a run of the judge's own model on the writer-vs-GPT-3.5 set
(matched by the model its run manifest records, the model file's SHA-256 included), the
humans' beside it and their difference with its interval and p-value, naming the run, its
variant and dimension; a judge without a manifest, or whose model has no run there, says
why. Labelled fixture rows; the expected cells are the fixture's own numbers, picked by
hand."""

from __future__ import annotations

import pandas as pd
import pytest

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.judge_card import preference_lines
from geval_repro.tables.llm_preference import NO_MANIFEST, preference_fields, run_model

MEAN = "mean-of-20/original"
SUMMEVAL = get_benchmark("summeval")
TOPICAL_CHAT = get_benchmark("topical_chat")


def _manifest(model: str, sha: str | None = None) -> dict:
    answered = [{"model": model, "model_sha256": sha}] if sha else []
    return {
        "dimensions": {
            d: {"model": model, "cache_answered_by": answered} for d in ("coherence", "fluency")
        }
    }


def _preferences() -> pd.DataFrame:
    rows = []
    for variant, shift in (("mean-of-1/original", 0.0), ("weighted (Eq. 1)", 0.5)):
        for dimension, metric in (("coherence", 0.10), ("AVG", 0.02)):
            for rater, value in (
                ("metric", metric + shift),
                ("humans", -0.01),
                ("metric - humans", metric + shift + 0.01),
            ):
                rows.append(
                    {
                        "metric": "wl-run",
                        "variant": variant,
                        "dimension": dimension,
                        "question": "overall",
                        "length_stratum": "all",
                        "outcome": "llm - writer",
                        "rater": rater,
                        "value": value,
                        "ci_low": value - 0.1,
                        "ci_high": value + 0.1,
                        "pvalue": 0.3 if rater == "metric - humans" else None,
                        "n_judgements": 599,
                    }
                )
    # another question and stratum, never read
    rows.append({**rows[0], "question": "informativeness", "value": 0.9})
    rows.append({**rows[0], "length_stratum": "llm longer", "value": 0.8})
    return pd.DataFrame(rows[-2:] + rows[:-2])


def test_run_model_names_the_model_and_its_file():
    assert run_model(_manifest("smollm2-135m", "ab12")) == "smollm2-135m@ab12"
    assert run_model(_manifest("gpt-4o-2024-08-06")) == "gpt-4o-2024-08-06"
    assert run_model(None) is None
    mixed = _manifest("a")
    mixed["dimensions"]["fluency"]["model"] = "b"
    assert run_model(mixed) is None


def test_the_card_takes_the_same_models_run_same_dimension_else_avg():
    runs = {"wl-other": "other@ff", "wl-run": "smollm2-135m@ab12"}
    tables = {"writer_vs_llm": _preferences()}
    cells = preference_fields("smollm2-135m@ab12", SUMMEVAL, "coherence", MEAN, runs, tables)
    assert cells["llm_preference"] == pytest.approx(0.10)
    assert cells["llm_preference_humans"] == pytest.approx(-0.01)
    assert cells["llm_preference_difference"] == pytest.approx(0.11)
    assert cells["llm_preference_ci_low"] == pytest.approx(0.01)
    assert cells["llm_preference_pvalue"] == pytest.approx(0.3)
    assert cells["llm_preference_n"] == 599
    assert (cells["llm_preference_judge"], cells["llm_preference_variant"]) == (
        "wl-run",
        "mean-of-1/original",
    )
    assert cells["llm_preference_dimension"] == "coherence"
    # a dimension the run did not judge (Topical-Chat's): the mean over its dimensions
    avg = preference_fields("smollm2-135m@ab12", TOPICAL_CHAT, "naturalness", MEAN, runs, tables)
    assert avg["llm_preference_dimension"] == "AVG"
    assert avg["llm_preference"] == pytest.approx(0.02)
    # Topical-Chat's coherence is a dialogue's, not a summary's (other prompts): AVG too
    dialogue = preference_fields("smollm2-135m@ab12", TOPICAL_CHAT, "coherence", MEAN, runs, tables)
    assert dialogue["llm_preference_dimension"] == "AVG"
    # another file of the same model name is another model
    other = preference_fields("smollm2-135m@cd34", SUMMEVAL, "coherence", MEAN, runs, tables)
    assert other["llm_preference"].startswith("n/a: its model has no run")
    assert preference_fields(None, SUMMEVAL, "coherence", MEAN, runs, tables) == {
        "llm_preference": NO_MANIFEST
    }


def test_the_run_variant_of_the_cards_kind_else_its_first():
    runs, tables = {"wl-run": "m"}, {"writer_vs_llm": _preferences()}
    weighted = preference_fields("m", SUMMEVAL, "coherence", "weighted (Eq. 1)", runs, tables)
    assert weighted["llm_preference_variant"] == "weighted (Eq. 1)"
    assert weighted["llm_preference"] == pytest.approx(0.60)
    other = preference_fields("m", SUMMEVAL, "coherence", "per-item scores", runs, tables)
    assert other["llm_preference_variant"] == "mean-of-1/original"
    assert other["llm_preference"] == pytest.approx(0.10)


def test_the_cards_section_shows_the_numbers_or_the_reason():
    cells = preference_fields(
        "m", SUMMEVAL, "coherence", MEAN, {"wl-run": "m"}, {"writer_vs_llm": _preferences()}
    )
    rows = pd.DataFrame([{"dimension": "coherence", **cells}])
    text = "\n".join(preference_lines(rows))
    assert "| coherence | 0.100 | -0.010 | 0.110 [0.010, 0.210] (0.300) |" in text
    assert "`wl-run` (mean-of-1/original; coherence), 599" in text
    none = pd.DataFrame([{"dimension": "coherence", "llm_preference": NO_MANIFEST}])
    assert preference_lines(none)[-1] == NO_MANIFEST
