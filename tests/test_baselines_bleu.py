"""Sentence-level BLEU-4 on hand-computed examples (geval_repro.baselines.bleu)."""

from __future__ import annotations

import math

import pytest

from geval_repro.baselines.bleu import sentence_bleu

HYP = "the cat sat on the mat"
REF = "the cat sat on a mat"


def test_bleu_without_zero_precisions() -> None:
    # Clipped matches / hypothesis n-grams: 1-grams 5/6 (one "the" clipped), 2-grams 3/5
    # (the cat, cat sat, sat on), 3-grams 2/4, 4-grams 1/3; equal lengths, BP = 1.
    # BLEU = (5/6 * 3/5 * 1/2 * 1/3)^(1/4) = (1/12)^(1/4) = 0.5372849659.
    expected = (1 / 12) ** 0.25
    for method in ("exp", "none", "coco"):
        assert sentence_bleu([HYP], [REF], smooth_method=method)[0] == pytest.approx(expected)
    assert sentence_bleu(["a b c d"], [["x y", "a b c d"]])[0] == pytest.approx(1.0)


def test_smoothing_of_a_zero_four_gram_precision() -> None:
    # "a b c d" vs "a b c e": p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1, BP = 1.
    # exp: the first zero precision becomes 1 / (2 * 1) -> (3/4 * 2/3 * 1/2 * 1/2)^(1/4).
    # floor (0.1): p4 = 0.1 / 1 -> (3/4 * 2/3 * 1/2 * 0.1)^(1/4). none: 0.
    hyp, ref = ["a b c d"], ["a b c e"]
    assert sentence_bleu(hyp, ref)[0] == pytest.approx((1 / 8) ** 0.25)
    assert sentence_bleu(hyp, ref, smooth_method="floor")[0] == pytest.approx(0.025**0.25)
    assert sentence_bleu(hyp, ref, smooth_method="none")[0] == 0.0


def test_coco_epsilons_and_brevity_penalty() -> None:
    # "the cat" vs "the cat sat on the mat": p1 = 2/2, p2 = 1/1; no 3- or 4-grams in the
    # hypothesis, so COCO's (0 + 1e-15) / (0 + 1e-9) = 1e-6 enters twice:
    # (1 * 1 * 1e-6 * 1e-6)^(1/4) = 1e-3; ratio 2/6 < 1 -> BP = exp(1 - 3) = e^-2.
    hyp, ref = ["the cat"], ["the cat sat on the mat"]
    assert sentence_bleu(hyp, ref, smooth_method="coco")[0] == pytest.approx(
        1e-3 * math.exp(-2), rel=1e-6
    )
    # sacrebleu with effective order uses orders 1-2 only: (1 * 1)^(1/2) * e^-2.
    assert sentence_bleu(hyp, ref)[0] == pytest.approx(math.exp(-2))


def test_tokenization_and_case() -> None:
    # 13a splits "mat." into "mat ."; "none" keeps "mat." as one token.
    assert sentence_bleu(["the cat sat on the mat."], ["the cat sat on the mat ."])[
        0
    ] == pytest.approx(1.0)
    assert (
        sentence_bleu(["the cat sat on the mat."], ["the cat sat on the mat ."], tokenize="none")[0]
        < 1.0
    )
    assert sentence_bleu(["The Cat sat on"], ["the cat sat on"], lowercase=True)[
        0
    ] == pytest.approx(1.0)


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="unknown smooth_method"):
        sentence_bleu(["a"], ["a"], smooth_method="laplace")
    with pytest.raises(ValueError, match="2 hypotheses but 1 references"):
        sentence_bleu(["a", "b"], ["a"])
