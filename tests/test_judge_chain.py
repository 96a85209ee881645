"""The whole chain on the FIXTURE judge run (synthetic replies in the released format).

tests/fixtures/judge_fixture/gpt4_*_fixture.json -> load_released_replies -> parse -> item
scores -> summary-level correlation, diagnostics and the sweep at n = 20, each checked
against an independent reimplementation in this file: the released meta_eval_summeval.py
(``re.search`` + ``float`` per reply, scipy per document) for ``original``, and the same
loop with a hand-written tolerant parser for ``tolerant``. The fixture's numbers say
nothing about G-Eval; they only exercise the code path the released files take.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from geval_repro.load.replies import load_released_replies
from geval_repro.load.summeval import load_summeval
from geval_repro.registry.benchmarks import judge_scale
from geval_repro.registry.sources import get_source
from geval_repro.scoring.diagnostics import reply_diagnostics
from geval_repro.scoring.item_scores import item_scores
from geval_repro.scoring.sweep import sweep
from geval_repro.stats import correlate, to_matrix

FIXTURE_DIR = Path(__file__).resolve().parent / "fixtures" / "judge_fixture"
FILES = {"coherence": "coh", "consistency": "con", "fluency": "flu", "relevance": "rel"}
SCIPY = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}


def released_read(output: str) -> float | None:
    """meta_eval_summeval.py's parse_output, transcribed; None where it falls back to 0."""
    matched = re.search(r"^ ?([\d\.]+)", output)
    if matched:
        try:
            return float(matched.group(1))
        except ValueError:
            return None
    return None


def released_parse(output: str) -> float:
    """The released score: the number read, or 0."""
    value = released_read(output)
    return 0.0 if value is None else value


def tolerant_parse(output: str, dimension: str) -> float:
    """The tolerant rule, written out independently of geval_repro.scoring.parse."""
    text = output.strip()
    label = re.match(rf"(- ?)?{dimension}\s*:\s*", text, flags=re.IGNORECASE)
    if label:
        text = text[label.end() :]
    number = re.match(r"\d+(\.\d+)?", text)
    if not number:
        return math.nan
    value = float(number.group(0))
    low, high = judge_scale("summeval", dimension)
    return value if low <= value <= high else math.nan


def reference(dimension: str, parser: str, coefficient: str) -> float:
    """The released script's summary-level loop on the raw JSON file."""
    items = json.loads((FIXTURE_DIR / f"gpt4_{FILES[dimension]}_fixture.json").read_text())
    pred: dict[str, list[float]] = {}
    gold: dict[str, list[float]] = {}
    for item in items:
        if parser == "original":
            scores = [released_parse(x) for x in item["all_responses"]]
        else:
            scores = [
                s
                for s in (tolerant_parse(x, dimension) for x in item["all_responses"])
                if not math.isnan(s)
            ]
        if not scores:
            continue
        pred.setdefault(item["doc_id"], []).append(sum(scores) / len(scores))
        gold.setdefault(item["doc_id"], []).append(item["scores"][dimension])
    kept = [
        SCIPY[coefficient](pred[d], gold[d])[0]
        for d in pred
        if len(set(pred[d])) > 1 and len(set(gold[d])) > 1
    ]
    return float(np.mean(kept))


@pytest.fixture(scope="module")
def summeval(mirror_dir: Path) -> pd.DataFrame:
    return load_summeval(mirror_dir / get_source("summeval").relpath)


@pytest.fixture(scope="module")
def replies(summeval: pd.DataFrame) -> pd.DataFrame:
    frames = [
        load_released_replies(
            FIXTURE_DIR / f"gpt4_{code}_fixture.json",
            "fixture",
            dimension,
            summeval,
            benchmark="summeval",
        )
        for dimension, code in FILES.items()
    ]
    return pd.concat(frames)  # index repeats across files on purpose: nothing may rely on it


@pytest.mark.parametrize("parser", ["original", "tolerant"])
@pytest.mark.parametrize("dimension", list(FILES))
def test_item_scores_to_summary_correlation(
    replies: pd.DataFrame, summeval: pd.DataFrame, dimension: str, parser: str
) -> None:
    items = item_scores(replies[replies["dimension"] == dimension], parser)
    table = items.merge(summeval[["doc_id", "system_id", dimension]], on=["doc_id", "system_id"])
    metric, systems, docs = to_matrix(table, "mean")
    human, _, _ = to_matrix(table, dimension)
    assert (len(systems), len(docs)) == (16, 4)
    for coefficient in SCIPY:
        got = correlate(metric, human, "summary", coefficient).value
        assert got == pytest.approx(reference(dimension, parser, coefficient), abs=1e-12)


def test_diagnostics_match_a_reply_by_reply_count(replies: pd.DataFrame) -> None:
    got = reply_diagnostics(replies).set_index(["dimension", "parser"])
    for dimension in FILES:
        texts = replies.loc[replies["dimension"] == dimension, "reply"].tolist()
        unread_original = sum(released_read(t) is None for t in texts)
        unread_tolerant = sum(math.isnan(tolerant_parse(t, dimension)) for t in texts)
        assert got.loc[(dimension, "original"), "n_unread"] == unread_original
        assert got.loc[(dimension, "tolerant"), "n_unread"] == unread_tolerant
        assert got.loc[(dimension, "original"), "n_replies"] == 64 * 20
        assert unread_original > 0 and unread_tolerant > 0


@pytest.mark.slow
def test_sweep_at_20_matches_the_released_loop(
    replies: pd.DataFrame, summeval: pd.DataFrame
) -> None:
    got = sweep(replies, summeval, seed=2023, draws=20)
    assert set(got["dimension"]) == set(FILES)
    at20 = got[(got["n"] == 20) & got["mode"].isin(["first", "random"])]  # fixed n
    for row in at20.itertuples():
        expected = reference(row.dimension, row.parser, row.coefficient)
        assert row.value == pytest.approx(expected, abs=1e-12), row
