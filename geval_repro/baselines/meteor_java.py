"""METEOR 1.5 (the Java reference implementation) through pycocoevalcap, as in COCO/nlg-eval.

The MS-COCO caption evaluation code (pycocoevalcap, also vendored by Maluuba's nlg-eval)
scores METEOR with the CMU jar ``meteor-1.5.jar`` (Denkowski and Lavie, 2014, "Meteor
Universal"), started as ``java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en -norm``. This is
the METEOR of USR's word-overlap baselines, which the G-Eval paper's Table 2 copies; the nltk
METEOR 1.0 of :mod:`geval_repro.baselines.meteor` only approximates it (docs/baselines.md).

**METEOR 1.5, English defaults** (the jar prints them: modules exact stem synonym paraphrase,
weights 1.0 0.6 0.8 0.6, parameters alpha beta gamma delta = 0.85 0.2 0.6 0.75). Words are
matched in four stages: exact, Snowball stem, WordNet synonym (the jar's own synset files)
and the bundled English paraphrase table (``paraphrase-en.gz``); each word is matched at
most once, and a beam search (width 40) picks the alignment with the most matched words and
then the fewest chunks. A chunk is a run of matches contiguous and in the same order in both
texts. Words of the jar's English function-word list ("the", "is", ",", ...) count
``1 - delta``, other words ``delta``. With ``m_i(h_c)``, ``m_i(h_f)`` the content and
function words of hypothesis ``h`` matched by stage ``i`` of weight ``w_i``::

    P    = sum_i w_i (delta m_i(h_c) + (1 - delta) m_i(h_f)) / (delta |h_c| + (1 - delta) |h_f|)
    R    = the same over the reference
    Fmean = P R / (alpha P + (1 - alpha) R)
    Pen  = gamma (chunks / m)^beta,  m = mean number of matched words of hypothesis and reference
    score = Fmean (1 - Pen)

with ``Pen = 0`` when every word of both texts is matched in a single chunk (identical texts
score exactly 1) and ``score = 0`` without any match (e.g. an empty text). Observed quirk of
the jar: a one-word segment whose only match is a synonym or paraphrase scores 0 ("car" vs
"automobile"), while the same match inside a longer segment counts.

**What pycocoevalcap 1.2 does with the text** (``pycocoevalcap/meteor/meteor.py``):

- It neither lowercases nor tokenizes: the jar's ``-norm`` does both (punctuation split
  off, e.g. "sat." -> "sat .", "!!" -> "! !", then lowercased). COCO's PTB tokenizer is a
  separate step of its ``COCOEvalCap`` driver, not applied here.
- Each pair goes to the jar as one line ``SCORE ||| reference ||| hypothesis``; the
  statistics that come back are sent in one ``EVAL ||| stats_1 ||| ... ||| stats_n`` line,
  which returns the per-segment scores (and a corpus score, unused here). In the hypothesis,
  "|||" is deleted and double spaces become single; the reference is passed unchanged, so a
  "|||" in it would split it into several references, and a line break in either text would
  desynchronise the protocol. :func:`meteor_coco` therefore rejects both.
- Text is sent as UTF-8; the jar's results do not depend on the locale (checked with
  LC_ALL=C and C.UTF-8).
- ``compute_score`` holds a ``threading.Lock`` while it talks to the process (one request
  at a time per ``Meteor`` object). It does not release the lock when it fails, and
  ``Meteor.__del__`` takes the same lock to close stdin and kill the process, so after a
  failure the object would hang at garbage collection; :func:`meteor_coco` releases the
  lock and stops the process itself.

Each call of :func:`meteor_coco` starts its own Java process and stops it before returning,
so calls are independent and safe from several threads. Starting the jar (it loads the
paraphrase table) takes about 12 s and 1.3 GB of memory; scoring then takes a few ms per
pair (300 Topical-Chat pairs: about 2 s). Scores are deterministic and each segment's score
depends on that segment alone: repeated runs, a run in reversed order and a run with 60 more
pairs gave bit-identical scores for the 300 Topical-Chat pairs.

Requirements (not Python dependencies of the package)::

    apt-get update && apt-get install -y --no-install-recommends default-jre-headless
    pip install pycocoevalcap==1.2

The pycocoevalcap wheel (104 MB) bundles ``meteor-1.5.jar`` and ``paraphrase-en.gz``.
"""

from __future__ import annotations

import contextlib
import importlib
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

import numpy as np

from geval_repro.baselines.references import check_pairs

JAVA_INSTALL_COMMAND = (
    "apt-get update && apt-get install -y --no-install-recommends default-jre-headless"
)
PYCOCOEVALCAP_INSTALL_COMMAND = "pip install pycocoevalcap==1.2"
FIELD_SEPARATOR = "|||"
LINE_BREAKS = ("\n", "\r")


def java_version() -> str | None:
    """What ``java -version`` says of the ``java`` on PATH, the one pycocoevalcap starts:
    its line naming the version (e.g. ``openjdk version "17.0.15" 2025-04-15``), else its
    first line; None when no ``java`` runs."""
    java = shutil.which("java")
    if java is None:
        return None
    try:
        completed = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode != 0:
        return None
    lines = (completed.stderr + completed.stdout).strip().splitlines()
    # a line such as "Picked up JAVA_TOOL_OPTIONS: ..." may come first
    return next((line for line in lines if ' version "' in line), lines[0] if lines else "")


def java_available() -> bool:
    """Whether a ``java`` on PATH runs (``java -version`` exits 0), as pycocoevalcap needs."""
    return java_version() is not None


def _meteor_class() -> Any:
    """pycocoevalcap's ``Meteor`` class; ModuleNotFoundError with the install command."""
    try:
        module = importlib.import_module("pycocoevalcap.meteor.meteor")
    except ImportError as error:
        raise ModuleNotFoundError(
            "METEOR 1.5 needs pycocoevalcap (it bundles meteor-1.5.jar); install it with: "
            f"{PYCOCOEVALCAP_INSTALL_COMMAND}"
        ) from error
    return module.Meteor


def _check_texts(hypotheses: Sequence[str], references: Sequence[str]) -> None:
    check_pairs("meteor_coco", hypotheses, references)
    for kind, texts in (("hypothesis", hypotheses), ("reference", references)):
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(
                    f"meteor_coco: {kind} {index} is {type(text).__name__}, not str; pass "
                    "one string per item"
                )
            if any(brk in text for brk in LINE_BREAKS):
                raise ValueError(
                    f"meteor_coco: {kind} {index} contains a line break, which would break "
                    "the line protocol of the METEOR jar; replace line breaks with spaces"
                )
    bad = [index for index, text in enumerate(references) if FIELD_SEPARATOR in text]
    if bad:
        raise ValueError(
            f"meteor_coco: reference(s) {bad[:5]} contain {FIELD_SEPARATOR!r}, the METEOR jar's "
            "field separator (pycocoevalcap would read extra references); remove it"
        )


def _stop(scorer: Any) -> str:
    """Stop the jar of a pycocoevalcap ``Meteor`` and close its pipes; return its stderr."""
    if scorer.lock.locked():  # compute_score keeps it when it fails; __del__ would block
        scorer.lock.release()
    process = scorer.meteor_p
    with contextlib.suppress(BrokenPipeError):
        process.stdin.close()
    process.kill()
    process.wait()
    stderr = process.stderr.read().decode("utf-8", "replace")
    process.stdout.close()
    process.stderr.close()
    return stderr


def meteor_coco(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """METEOR 1.5 of ``hypotheses[i]`` against ``references[i]``, as pycocoevalcap scores it.

    One Java process per call (see the module docstring), stopped before returning. Returns
    shape (n,), 0-1 scale, in input order. Raises ModuleNotFoundError (pycocoevalcap
    missing) or FileNotFoundError (no working ``java``) naming the install command,
    ValueError for a length mismatch, a line break in a text or "|||" in a reference, and
    RuntimeError (with the jar's stderr) when the jar stops answering.
    """
    _check_texts(hypotheses, references)
    meteor_class = _meteor_class()
    if not java_available():
        raise FileNotFoundError(
            "METEOR 1.5 runs meteor-1.5.jar with `java`, which was not found on PATH or does "
            f"not run; install a Java runtime with: {JAVA_INSTALL_COMMAND}"
        )
    if not hypotheses:
        return np.empty(0, dtype=float)
    scorer = meteor_class()
    failure: Exception | None = None
    try:
        _, scores = scorer.compute_score(
            {i: [reference] for i, reference in enumerate(references)},
            {i: [hypothesis] for i, hypothesis in enumerate(hypotheses)},
        )
    except (ValueError, OSError) as error:  # empty/garbled answer or a closed pipe
        failure = error
    finally:
        stderr = _stop(scorer)
    if failure is not None:
        raise RuntimeError(
            f"meteor_coco: the METEOR 1.5 jar stopped answering ({failure}); its stderr:\n"
            f"{stderr[-2000:]}"
        ) from failure
    return np.asarray(scores, dtype=float)
