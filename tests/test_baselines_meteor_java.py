"""METEOR 1.5 (Java, through pycocoevalcap) (geval_repro.baselines.meteor_java).

Needs a Java runtime and pycocoevalcap: ``apt-get install -y --no-install-recommends
default-jre-headless`` and ``pip install pycocoevalcap==1.2``. Known answers: hand-computed
METEOR 1.5 scores (formula and English defaults in the module docstring) and the eight
METEOR cells of the G-Eval paper's Table 2 (USR's numbers), printed to 3 decimals.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.baselines.meteor_java import java_available, meteor_coco
from geval_repro.baselines.references import GROUND_TRUTH_SYSTEM, topical_chat_references
from geval_repro.load.topical_chat import load_topical_chat
from geval_repro.registry.sources import get_source
from geval_repro.stats.levels import correlate

# METEOR 1.5 English defaults, as the jar prints them (Denkowski and Lavie, 2014).
ALPHA, BETA, GAMMA, DELTA = 0.85, 0.2, 0.6, 0.75
W_STEM, W_SYNONYM, W_PARAPHRASE = 0.6, 0.8, 0.6
# Two matched words in one chunk, not every word matched: Pen = gamma (1/2)^beta.
PEN_ONE_CHUNK_OF_TWO = GAMMA * 0.5**BETA
# "the" is on the jar's function-word list: "the cat sat" has weighted length 2 delta + (1 -
# delta) = 1.75, of which "the cat" is 1.
THE_CAT_OF_THE_CAT_SAT = 1 / (2 * DELTA + (1 - DELTA))


def _fmean(precision: float, recall: float) -> float:
    return precision * recall / (ALPHA * precision + (1 - ALPHA) * recall)


# (hypothesis, reference, hand-computed METEOR 1.5)
HAND_COMPUTED = [
    # Identical texts: every word matched in one chunk, Pen = 0.
    ("the cat sat on the mat", "the cat sat on the mat", 1.0),
    # -norm lowercases and splits off punctuation: identical after normalisation.
    ("The Cat sat.", "the cat sat .", 1.0),
    # "the", "cat" exact; P = R = 1 / 1.75; one chunk of two matches.
    (
        "the cat ran",
        "the cat sat",
        THE_CAT_OF_THE_CAT_SAT * (1 - PEN_ONE_CHUNK_OF_TWO),
    ),
    # Shorter hypothesis: P = 1, R = 1 / 1.75; alpha weights recall.
    (
        "the cat",
        "the cat sat",
        _fmean(1.0, THE_CAT_OF_THE_CAT_SAT) * (1 - PEN_ONE_CHUNK_OF_TWO),
    ),
    (
        "the cat sat",
        "the cat",
        _fmean(THE_CAT_OF_THE_CAT_SAT, 1.0) * (1 - PEN_ONE_CHUNK_OF_TWO),
    ),
    # "cats"/"cat" is a stem match (weight 0.6); all words matched in one chunk: Pen = 0.
    ("the cats sat", "the cat sat", (DELTA * (1 + W_STEM) + (1 - DELTA)) / 1.75),
    # "happy"/"glad" is a WordNet synonym match (weight 0.8); "he", "is" are function words.
    (
        "he is happy today",
        "he is glad today",
        (DELTA * (1 + W_SYNONYM) + 2 * (1 - DELTA)) / (2 * DELTA + 2 * (1 - DELTA)),
    ),
    # "passed away"/"died" is a paraphrase match (weight 0.6) of 2 hypothesis words and 1
    # reference word; "he" is a function word. Chunks "yesterday" and "he passed away"/"he
    # died": Pen = gamma (2 / m)^beta with m = (4 + 3) / 2 matched words.
    (
        "yesterday he passed away",
        "he died yesterday",
        _fmean(
            (DELTA * (1 + 2 * W_PARAPHRASE) + (1 - DELTA)) / (3 * DELTA + (1 - DELTA)),
            (DELTA * (1 + W_PARAPHRASE) + (1 - DELTA)) / (2 * DELTA + (1 - DELTA)),
        )
        * (1 - GAMMA * (2 / 3.5) ** BETA),
    ),
    # All four words exact (P = R = 1) but reversed: 4 chunks of 4 matches, Pen = gamma.
    ("a b c d", "d c b a", 1 - GAMMA),
    # No words, no match.
    ("", "the cat", 0.0),
    # The first non-trivial pair again: a segment's score does not depend on the batch.
    (
        "the cat ran",
        "the cat sat",
        THE_CAT_OF_THE_CAT_SAT * (1 - PEN_ONE_CHUNK_OF_TWO),
    ),
]
# pycocoevalcap's command line for the jar.
METEOR_COMMAND = [
    "java",
    "-jar",
    "-Xmx2G",
    "meteor-1.5.jar",
    "-",
    "-",
    "-stdio",
    "-l",
    "en",
    "-norm",
]

TOPICAL_DIMENSIONS = ("naturalness", "coherence", "engagingness", "groundedness")
# G-Eval Table 2, METEOR row: (r, rho) per dimension in TOPICAL_DIMENSIONS order.
TABLE2_METEOR = [0.212, 0.191, 0.250, 0.302, 0.367, 0.439, 0.333, 0.391]
ROUNDING = 0.0005 + 1e-9


@pytest.fixture(scope="module")
def jar_run(topical_chat: pd.DataFrame) -> tuple[np.ndarray, list]:
    """Scores of HAND_COMPUTED's pairs followed by Topical-Chat's 300 (response, reference)
    pairs in one call, and the pycocoevalcap scorers it created. One call, one Java process:
    starting the jar (loading its paraphrase table) takes most of the time."""
    meteor_module = importlib.import_module("pycocoevalcap.meteor.meteor")
    created = []

    class Recording(meteor_module.Meteor):
        def __init__(self) -> None:
            super().__init__()
            created.append(self)

    hypotheses = [h for h, _, _ in HAND_COMPUTED] + topical_chat["response"].tolist()
    references = [r for _, r, _ in HAND_COMPUTED] + topical_chat["reference"].tolist()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(meteor_module, "Meteor", Recording)
        scores = meteor_coco(hypotheses, references)
    return scores, created


@pytest.fixture(scope="module")
def hand_run(jar_run: tuple[np.ndarray, list]) -> tuple[np.ndarray, list]:
    """Scores of HAND_COMPUTED (from the shared call), and the scorers that call created."""
    scores, created = jar_run
    return scores[: len(HAND_COMPUTED)], created


def test_java_is_available() -> None:
    assert java_available()


@pytest.mark.slow
def test_meteor_coco_hand_computed(hand_run) -> None:
    scores, _ = hand_run
    expected = [value for _, _, value in HAND_COMPUTED]
    np.testing.assert_allclose(scores, expected, atol=1e-12, rtol=0)


@pytest.mark.slow
def test_meteor_coco_runs_the_coco_command_and_stops_it(hand_run) -> None:
    _, created = hand_run
    assert len(created) == 1
    scorer = created[0]
    assert scorer.meteor_p.args == METEOR_COMMAND
    assert scorer.meteor_p.returncode is not None
    assert scorer.meteor_p.stdin.closed
    assert scorer.meteor_p.stdout.closed
    assert scorer.meteor_p.stderr.closed
    assert not scorer.lock.locked()


def test_failing_jar_raises_with_its_stderr(monkeypatch, tmp_path: Path) -> None:
    meteor_module = importlib.import_module("pycocoevalcap.meteor.meteor")
    created = []

    class BrokenJar(meteor_module.Meteor):
        def __init__(self) -> None:  # pycocoevalcap's __init__ with a class Java cannot find
            self.meteor_p = subprocess.Popen(
                ["java", "-cp", str(tmp_path), "NoSuchMeteorClass"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            self.lock = threading.Lock()
            created.append(self)

    monkeypatch.setattr(meteor_module, "Meteor", BrokenJar)
    with pytest.raises(RuntimeError, match="NoSuchMeteorClass"):
        meteor_coco(["the cat"], ["the cat"])
    (scorer,) = created
    assert scorer.meteor_p.returncode is not None
    # pycocoevalcap keeps its lock when compute_score fails; __del__ would then block.
    assert not scorer.lock.locked()


def test_missing_java_names_the_install_command(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert not java_available()
    with pytest.raises(FileNotFoundError, match="default-jre-headless"):
        meteor_coco(["the cat"], ["the cat"])


def test_missing_pycocoevalcap_names_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pycocoevalcap.meteor.meteor", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install pycocoevalcap==1\.2"):
        meteor_coco(["the cat"], ["the cat"])


@pytest.mark.parametrize(
    ("hypotheses", "references", "message"),
    [
        (["a"], ["a", "b"], "1 hypotheses but 2 references"),
        (["a\nb"], ["a"], "hypothesis 0 contains a line break"),
        (["a", "b"], ["a", "b\r"], "reference 1 contains a line break"),
        (["a"], ["a ||| b"], r"reference\(s\) \[0\] contain '\|\|\|'"),
        (["a"], [["a"]], "reference 0 is list, not str"),
    ],
)
def test_bad_input_raises(hypotheses, references, message) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        meteor_coco(hypotheses, references)


def test_no_pairs_gives_an_empty_array() -> None:
    assert meteor_coco([], []).shape == (0,)


@pytest.fixture(scope="module")
def topical_chat(mirror_dir: Path) -> pd.DataFrame:
    table = load_topical_chat(
        mirror_dir / get_source("topical_chat").relpath,
        mirror_dir / get_source("unieval_pred_topical_chat").relpath,
    )
    table["reference"] = topical_chat_references(table)
    # USR's protocol: the original ground truth is the reference, and its own rows are left
    # out of the correlation (300 of the 360 responses remain).
    return table.loc[table["system_id"] != GROUND_TRUTH_SYSTEM]


@pytest.mark.slow
def test_topical_chat_meteor_reproduces_table2(topical_chat, jar_run) -> None:
    assert len(topical_chat) == 300
    scores = jar_run[0][len(HAND_COMPUTED) :]
    assert scores.shape == (300,)
    ours = [
        correlate(scores[None, :], topical_chat[d].to_numpy()[None, :], "global", c).value
        for d in TOPICAL_DIMENSIONS
        for c in ("pearson", "spearman")
    ]
    np.testing.assert_allclose(ours, TABLE2_METEOR, atol=ROUNDING, rtol=0)
