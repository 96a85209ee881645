"""ROUGE score functions on hand-computed examples (geval_repro.baselines.rouge)."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.baselines.rouge import (
    f_beta,
    one_sentence_per_line,
    rouge_f,
    rouge_f_by_type,
    rouge_f_multi,
)


def test_rouge_on_the_cat_example() -> None:
    # "the cat sat" vs "the cat ran": 2 of 3 unigrams match -> P = R = 2/3, F1 = 2/3;
    # bigrams (the cat, cat sat) vs (the cat, cat ran): 1 of 2 -> F1 = 1/2;
    # LCS "the cat" = 2 tokens -> F1 = 2/3.
    hyp, ref = ["the cat sat"], ["the cat ran"]
    assert rouge_f(hyp, ref, "rouge1")[0] == pytest.approx(2 / 3)
    assert rouge_f(hyp, ref, "rouge2")[0] == pytest.approx(1 / 2)
    assert rouge_f(hyp, ref, "rougeL")[0] == pytest.approx(2 / 3)


def test_f_beta_matches_hand_values() -> None:
    # LCS of "a b c d" and "a b e" is "a b": P = 2/4, R = 2/3.
    # F1 = 2PR/(P+R) = 4/7; F_1.2 = 2.44 P R / (R + 1.44 P) = 0.813333/1.386667 = 0.5865385.
    assert rouge_f(["a b c d"], ["a b e"], "rougeL")[0] == pytest.approx(4 / 7)
    assert rouge_f(["a b c d"], ["a b e"], "rougeL", beta=1.2)[0] == pytest.approx(
        2.44 * 0.5 * (2 / 3) / (2 / 3 + 1.44 * 0.5)
    )
    assert f_beta(np.array([0.0]), np.array([0.0]), 1.2)[0] == 0.0


def test_stemming_and_tokenizers() -> None:
    # Porter stems tokens longer than 3 characters: cats -> cat, running -> run.
    assert rouge_f(["cats running"], ["cat run"], "rouge1")[0] == 0.0
    assert rouge_f(["cats running"], ["cat run"], "rouge1", use_stemmer=True)[0] == 1.0
    # Default tokenizer drops punctuation: both texts are [hello, world] -> 1.0.
    # Whitespace tokenizer keeps ",": P = 2/3, R = 1 -> F1 = 0.8.
    assert rouge_f(["hello , world"], ["hello world"], "rouge1")[0] == 1.0
    assert rouge_f(["hello , world"], ["hello world"], "rouge1", tokenizer="whitespace")[
        0
    ] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="does not stem"):
        rouge_f(["a"], ["a"], "rouge1", tokenizer="whitespace", use_stemmer=True)


def test_sentence_split_changes_only_summary_level_lcs() -> None:
    # Tokens [a b c d] vs [c d a b]: the LCS over whole texts is 2 of 4 -> F1 = 0.5.
    # Split at " . " into sentences, the union LCS finds "c d" and "a b" -> F1 = 1.0.
    hyp, ref = ["a b . c d"], ["c d . a b"]
    assert rouge_f(hyp, ref, "rougeL")[0] == pytest.approx(0.5)
    assert rouge_f(hyp, ref, "rougeLsum", sentence_separator=" . ")[0] == pytest.approx(1.0)
    assert rouge_f(hyp, ref, "rouge2", sentence_separator=" . ")[0] == pytest.approx(
        rouge_f(hyp, ref, "rouge2")[0]
    )
    assert one_sentence_per_line("a b . c d", " . ") == "a b .\nc d ."


def test_types_scored_in_one_pass() -> None:
    # The hand values of the two tests above, from one call for all three types with the
    # sentence split: "the cat sat" vs "the cat ran" -> 2/3, 1/2; "a b . c d" vs "c d . a b"
    # -> ROUGE-1 1.0, ROUGE-2 (a b, b c, c d) vs (c d, d a, a b): 2 of 3 -> 2/3, Lsum 1.0.
    scores = rouge_f_by_type(
        ["the cat sat", "a b . c d"],
        ["the cat ran", "c d . a b"],
        ["rouge1", "rouge2", "rougeLsum"],
        sentence_separator=" . ",
    )
    np.testing.assert_allclose(scores["rouge1"], [2 / 3, 1.0], rtol=1e-15)
    np.testing.assert_allclose(scores["rouge2"], [1 / 2, 2 / 3], rtol=1e-15)
    np.testing.assert_allclose(scores["rougeLsum"], [2 / 3, 1.0], rtol=1e-15)
    with pytest.raises(ValueError, match="unknown ROUGE type"):
        rouge_f_by_type(["a"], ["a"], ["rouge1", "rougeX"])


def test_multi_reference_mean_and_max() -> None:
    # ROUGE-1 F1 of "the cat sat": 2/3 against "the cat ran", 0 against "a dog ran".
    hyp = ["the cat sat"]
    refs = [["the cat ran", "a dog ran"]]
    assert rouge_f_multi(hyp, refs, "rouge1", aggregate="mean")[0] == pytest.approx(1 / 3)
    assert rouge_f_multi(hyp, refs, "rouge1", aggregate="max")[0] == pytest.approx(2 / 3)


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="unknown ROUGE type"):
        rouge_f(["a"], ["a"], "rouge3")
    with pytest.raises(ValueError, match="1 hypotheses but 2 references"):
        rouge_f(["a"], ["a", "b"], "rouge1")
    with pytest.raises(ValueError, match="same, non-zero number of references"):
        rouge_f_multi(["a", "b"], [["a"], ["a", "b"]], "rouge1", aggregate="mean")
    with pytest.raises(ValueError, match="unknown aggregate"):
        rouge_f_multi(["a"], [["a"]], "rouge1", aggregate="median")  # type: ignore[arg-type]
