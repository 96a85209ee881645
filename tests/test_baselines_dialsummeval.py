"""DialSummEval's baseline protocol (``rouge-vs-reference-and-released``) on the mirror:
the recomputed ROUGE-1/2/L against Google's ``rouge-score`` (the reference package, called
here directly with SummEval's options), the released scores passed through as they are,
and their agreement with the recomputed ROUGE as docs/baselines.md states it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rouge_score import rouge_scorer

from geval_repro.baselines.protocols import RELEASED_VARIANT, rouge_vs_reference_and_released
from geval_repro.load.benchmarks import load_benchmark
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import get_source

VARIANT = get_benchmark("dialsummeval").baselines.protocol_variant


@pytest.fixture(scope="module")
def scored(mirror_dir: Path, tmp_path_factory):
    entry = get_benchmark("dialsummeval")
    table = load_benchmark(
        "dialsummeval", [mirror_dir / get_source(s).relpath for s in entry.sources]
    )
    scores = rouge_vs_reference_and_released(table, None, tmp_path_factory.mktemp("c"), VARIANT)
    return table, scores.pivot_table(
        index=["doc_id", "system_id"], columns=["metric", "variant"], values="score"
    ).loc[list(zip(table["doc_id"], table["system_id"], strict=True))]


def test_recomputed_rouge_is_rouge_score_with_summevals_options(scored) -> None:
    table, wide = scored
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=True)
    sample = np.random.default_rng(0).choice(len(table), 150, replace=False)
    for index in sample:
        split = [
            t.replace(" . ", " .\n")
            for t in (table["reference"].iloc[index], table["summary"].iloc[index])
        ]
        expected = scorer.score(*split)
        for metric, key in (("ROUGE-1", "rouge1"), ("ROUGE-2", "rouge2"), ("ROUGE-L", "rougeLsum")):
            assert wide[(metric, VARIANT)].iloc[index] == pytest.approx(
                expected[key].fmeasure, abs=1e-12
            )


def test_released_scores_pass_through_and_rouge_agrees_as_documented(scored) -> None:
    table, wide = scored
    assert wide.shape == (1300, 3 + 32)
    np.testing.assert_array_equal(
        wide[("bertscore_f1", RELEASED_VARIANT)], table["released:bertscore_f1"]
    )
    np.testing.assert_array_equal(wide[("ROUGE-2", RELEASED_VARIANT)], table["released:rouge-2"])
    # docs/baselines.md: equal to 1e-6 on 91.8 % (ROUGE-1), 95.5 % (ROUGE-2), 0.4 % (ROUGE-L).
    for metric, share in (("ROUGE-1", 0.918), ("ROUGE-2", 0.955), ("ROUGE-L", 0.004)):
        equal = np.abs(wide[(metric, VARIANT)] - wide[(metric, RELEASED_VARIANT)]) < 1e-6
        assert equal.mean() == pytest.approx(share, abs=0.0005), metric
