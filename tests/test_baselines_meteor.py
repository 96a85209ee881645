"""nltk METEOR on Debian's WordNet 3.0 (geval_repro.baselines.meteor).

Needs Debian's WordNet database: ``apt-get install -y --no-install-recommends wordnet-base
wordnet-sense-index`` (see the module docstring). The reader is built in a temporary cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geval_repro.baselines.meteor import (
    WORDNET_LEXNAMES,
    debian_wordnet,
    lexnames_text,
    meteor,
)


@pytest.fixture(scope="module")
def wordnet(tmp_path_factory: pytest.TempPathFactory):
    return debian_wordnet(tmp_path_factory.mktemp("nltk_data"))


@pytest.mark.slow
def test_debian_wordnet_is_wordnet_3_0(wordnet) -> None:
    assert wordnet.get_version() == "3.0"
    # WordNet 3.0 facts: dog.n.01 is in lexicographer file 05, noun.animal; car.n.01 has the
    # lemmas car, auto, automobile, machine, motorcar.
    assert wordnet.synset("dog.n.01").lexname() == "noun.animal"
    assert [lemma.name() for lemma in wordnet.synset("car.n.01").lemmas()] == [
        "car",
        "auto",
        "automobile",
        "machine",
        "motorcar",
    ]
    assert len(WORDNET_LEXNAMES) == 45
    assert lexnames_text().splitlines()[5] == "05\tnoun.animal\t1"


@pytest.mark.slow
def test_meteor_hand_computed(wordnet) -> None:
    # "the cat ran" vs "the cat sat": m = 2 exact matches, P = R = 2/3, Fmean = 2/3;
    # one chunk ("the cat"): Pen = 0.5 * (1/2)^3 = 0.0625 -> 2/3 * 0.9375 = 0.625.
    assert meteor(["the cat ran"], ["the cat sat"], wordnet=wordnet)[0] == pytest.approx(0.625)
    # "car" vs "auto" (WordNet 3.0 synset car.n.01 holds both): one synonym match, P = R = 1,
    # one chunk of one match: Pen = 0.5 * (1/1)^3 = 0.5 -> 0.5. Without WordNet it is 0, as
    # for "car" vs "bicycle". (nltk compares synonyms with the reference word as left by the
    # stem stage, so a pair like "big"/"large" fails: "large" has become "larg".)
    assert meteor(["car", "car"], ["auto", "bicycle"], wordnet=wordnet) == pytest.approx([0.5, 0])


@pytest.mark.slow
def test_meteor_matches_nltk_documented_example(wordnet) -> None:
    # nltk.translate.meteor_score docstring: round(meteor_score([reference1, reference2,
    # reference3], hypothesis1), 4) == 0.6944 with nltk's own WordNet download.
    hypothesis = (
        "It is a guide to action which ensures that the military always obeys the commands of "
        "the party"
    )
    references = [
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is the guiding principle which guarantees the military forces always being under "
        "the command of the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    assert round(float(meteor([hypothesis], [references], wordnet=wordnet)[0]), 4) == 0.6944


def test_missing_database_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="wordnet-base wordnet-sense-index"):
        debian_wordnet(tmp_path / "cache", wordnet_dir=tmp_path / "no-wordnet")


@pytest.mark.slow
def test_length_mismatch_raises(wordnet) -> None:
    with pytest.raises(ValueError, match="1 hypotheses but 2 references"):
        meteor(["a"], ["a", "b"], wordnet=wordnet)


# Pairs for the identity check: exact, stem ("running"/"runs"), WordNet synonym ("car"/"auto"),
# no match, an empty hypothesis, several references, and words repeated across pairs (so the
# memoized lookups are reused).
IDENTITY_PAIRS = [
    ("the cat sat on the mat", "the cat sat on the mat"),
    ("the dogs were running fast", "a dog runs quickly"),
    ("i drove my car to the shop", "i took the auto to the store"),
    ("my car is fast", "that automobile is quick and the car is red"),
    ("nothing here matches", "completely different words"),
    ("", "the reference"),
    ("do you like music ? i love jazz", ["i like jazz music", "do you love music ?"]),
    ("Running DOGS bark", ["the dog barked", "dogs run"]),
]


@pytest.mark.slow
def test_meteor_is_bit_identical_to_plain_nltk_calls(wordnet) -> None:
    # Independent reference: nltk's own meteor_score with its default stemmer on nltk's
    # unmodified WordNetCorpusReader (with the OMW version map) over the same database.
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.translate.meteor_score import meteor_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain_reader = WordNetCorpusReader(wordnet.root.path, None)
    hypotheses = [hypothesis for hypothesis, _ in IDENTITY_PAIRS]
    references = [reference for _, reference in IDENTITY_PAIRS]
    expected = [
        meteor_score(
            [r.split() for r in ([reference] if isinstance(reference, str) else reference)],
            hypothesis.split(),
            wordnet=plain_reader,
        )
        for hypothesis, reference in IDENTITY_PAIRS
    ]
    ours = meteor(hypotheses, references, wordnet=wordnet)
    assert ours.tolist() == expected  # exact float equality, not approx
    assert 0 < expected[2] < 1 and expected[4] == expected[5] == 0  # the cases are exercised
