"""Known answers for geval_repro.tables.writer_vs_llm on a hand-made fixture (7 judgements
of 3 articles, every number below counted by hand), and the length metric on the mirrored
release against an independent recount from the raw JSON."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.load.writer_vs_llm import load_writer_vs_llm
from geval_repro.registry.sources import get_source
from geval_repro.stats.clustered import cluster_draws
from geval_repro.tables.writer_vs_llm import (
    ACCURACY_COLUMNS,
    GROUP_MEAN_COLUMNS,
    PREFERENCE_COLUMNS,
    SURFACE_VARIANT,
    combined,
    distinct,
    surface_scores,
    writer_vs_llm_rows,
)

SEED = 12345
VARIANT = "mean-of-3/original"  # the fixture metric's variant (a label only)

# item -> (article, author, writer)
ITEMS = {
    "a1w1": ("A1", "writer", "w1"),
    "a1w2": ("A1", "writer", "w2"),
    "a1l": ("A1", "llm", None),
    "a2w1": ("A2", "writer", "w1"),
    "a2l": ("A2", "llm", None),
    "a3w3": ("A3", "writer", "w3"),
    "a3l": ("A3", "llm", None),
}
# judgement: (article, evaluator, writer, writer item, llm item, overall, informativeness)
PAIRS = [
    ("A1", "e1", "w1", "a1w1", "a1l", "writer", "tie"),
    ("A1", "e2", "w1", "a1w1", "a1l", "llm", "llm"),
    ("A1", "e3", "w2", "a1w2", "a1l", "tie", "tie"),
    ("A2", "e1", "w1", "a2w1", "a2l", "llm", "llm"),
    ("A2", "e2", "w1", "a2w1", "a2l", "llm", "writer"),
    ("A3", "e1", "w3", "a3w3", "a3l", "writer", "writer"),
    ("A3", "e2", "w3", "a3w3", "a3l", "tie", "llm"),
]
COHERENCE = {"a1w1": 3, "a1l": 4, "a1w2": 2, "a2w1": 5, "a2l": 4.5, "a3w3": 1, "a3l": 1}
FLUENCY = {"a1w1": 2, "a1l": 3, "a2w1": 1, "a2l": 3, "a3w3": 2, "a3l": 1}  # a1w2 unscored


def fixture_items() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": list(ITEMS),
            "article_id": [v[0] for v in ITEMS.values()],
            "author": [v[1] for v in ITEMS.values()],
            "writer_id": [v[2] for v in ITEMS.values()],
            "article": ["the cat sat on the mat"] * len(ITEMS),
            "summary": [
                "the cat sat",
                "a dog ran off",
                "the cat sat on",
                "x y",
                "x",
                "one two three four",
                "a",
            ],
            "in_writer_summaries": [True] * len(ITEMS),
        }
    )


def fixture_pairs() -> pd.DataFrame:
    columns = [
        "article_id",
        "evaluator_id",
        "writer_id",
        "writer_item_id",
        "llm_item_id",
        "overall",
        "informativeness",
    ]
    pairs = pd.DataFrame(PAIRS, columns=columns)
    pairs.insert(0, "judgement", range(len(PAIRS)))
    return pairs


def fixture_scores() -> pd.DataFrame:
    rows = [(i, "coherence", s) for i, s in COHERENCE.items()]
    rows += [(i, "fluency", s) for i, s in FLUENCY.items()]
    return pd.DataFrame(rows, columns=["item_id", "dimension", "score"])


def fixture_rows(
    items: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    scores: pd.DataFrame | None = None,
    *,
    n_resamples: int = 400,
    permutation_resamples: int = 500,
    seed: int = SEED,
    min_articles: int = 1,
):
    """The tables of the fixture (or of the given parts) as metric "judge", status fixture;
    intervals on every row (``min_articles`` 1: the fixture has 3 articles), so that their
    arithmetic can be checked."""
    return writer_vs_llm_rows(
        fixture_items() if items is None else items,
        fixture_pairs() if pairs is None else pairs,
        fixture_scores() if scores is None else scores,
        metric="judge",
        variant=VARIANT,
        status="fixture",
        n_resamples=n_resamples,
        permutation_resamples=permutation_resamples,
        seed=seed,
        min_articles=min_articles,
    )


@pytest.fixture(scope="module")
def tables():
    return fixture_rows()


def cell(table: pd.DataFrame, **key: object) -> pd.Series:
    mask = np.ones(len(table), dtype=bool)
    for column, value in key.items():
        mask &= (table[column] == value).to_numpy()
    assert mask.sum() == 1, key
    return table[mask].iloc[0]


# (dimension, group) -> (writer mean, llm mean, judgements, articles), overall, by hand
GROUP_MEANS = {
    ("coherence", "writer"): (2.0, 2.5, 2, 2),
    ("coherence", "llm"): (13 / 3, 13 / 3, 3, 2),
    ("coherence", "tie"): (1.5, 2.5, 2, 2),
    ("fluency", "writer"): (2.0, 2.0, 2, 2),
    ("fluency", "llm"): (4 / 3, 3.0, 3, 2),
    ("fluency", "tie"): (2.0, 1.0, 1, 1),  # judgement 2's writer summary is unscored
    ("AVG", "writer"): (2.0, 2.25, 2, 2),  # AVG: each summary's mean over the dimensions
    ("AVG", "llm"): (17 / 6, 11 / 3, 3, 2),
    ("AVG", "tie"): (1.5, 1.0, 1, 1),
}


def test_group_means_by_hand(tables) -> None:
    means = tables.group_means
    assert list(means.columns) == GROUP_MEAN_COLUMNS
    assert len(means) == 3 * 2 * 3 * 3  # dimensions x questions x groups x authors
    for (dimension, group), (writer, llm, n, articles) in GROUP_MEANS.items():
        key = {"dimension": dimension, "question": "overall", "preference": group}
        for author, expected in (("writer", writer), ("llm", llm), ("llm - writer", llm - writer)):
            row = cell(means, author=author, **key)
            assert row["value"] == pytest.approx(expected, abs=1e-12), (key, author)
            assert (row["n_judgements"], row["n_articles"]) == (n, articles)
            assert row["ci_low"] <= row["value"] + 1e-12 and row["value"] <= row["ci_high"] + 1e-12
    assert (
        cell(means, dimension="coherence", question="overall", preference="llm", author="writer")[
            "n_summaries"
        ]
        == 2
    )
    assert (means["status"] == "fixture").all() and (means["benchmark"] == "writer_vs_llm").all()


def test_group_mean_interval_equals_the_written_out_resamples(tables) -> None:
    """The interval of the model's mean coherence among "writer better" judgements, from
    the same article draws written out (articles A1, A2, A3 = clusters 0, 1, 2)."""
    draws = cluster_draws(3, 400, SEED)
    pairs = fixture_pairs()
    member = (pairs["overall"] == "writer").to_numpy()
    llm = pairs["llm_item_id"].map(COHERENCE).to_numpy(float)
    cluster = pairs["article_id"].map({"A1": 0, "A2": 1, "A3": 2}).to_numpy()
    values = []
    for counts in draws:
        weight = counts[cluster] * member
        values.append((weight * llm).sum() / weight.sum() if weight.sum() else math.nan)
    values = np.array(values)
    low, high = np.percentile(values[~np.isnan(values)], [2.5, 97.5])
    row = cell(
        tables.group_means,
        dimension="coherence",
        question="overall",
        preference="writer",
        author="llm",
    )
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_no_interval_on_fewer_articles_than_the_minimum() -> None:
    """By default (tables.rows.MIN_BOOTSTRAP_UNITS = 10) the fixture's 3 articles give no
    interval, and every row with articles says why; the values are those with intervals."""
    default = writer_vs_llm_rows(
        fixture_items(),
        fixture_pairs(),
        fixture_scores(),
        metric="judge",
        variant=VARIANT,
        status="fixture",
        n_resamples=50,
        permutation_resamples=50,
        seed=SEED,
    )
    full = fixture_rows(n_resamples=50, permutation_resamples=50)
    for name in ("group_means", "accuracy", "preferences"):
        table, reference = getattr(default, name), getattr(full, name)
        assert table[["ci_low", "ci_high"]].isna().all().all(), name
        assert reference["ci_low"].notna().any(), name
        np.testing.assert_array_equal(table["value"], reference["value"])
        with_articles = table["n_articles"] > 0
        assert table.loc[with_articles, "note"].str.contains("no interval: fewer than 10").all()


def brute_accuracy(d: np.ndarray, h: np.ndarray, calibrate: bool) -> float:
    """The definition, by a loop over every threshold (0 and every |d|)."""
    best = 0.0
    for epsilon in sorted({0.0, *np.abs(d).tolist()}) if calibrate else [0.0]:
        correct = 0
        for di, hi in zip(d, h, strict=True):
            tied = abs(di) <= epsilon if epsilon > 0 else abs(di) < 1e-9
            correct += (hi == 0 and tied) or (hi != 0 and not tied and np.sign(di) == hi)
        best = max(best, correct / len(d))
    return best


def test_accuracy_by_hand_and_against_the_brute_force(tables) -> None:
    accuracy = tables.accuracy
    assert list(accuracy.columns) == ACCURACY_COLUMNS
    # coherence, overall: right are judgement 1 (model better, scored higher) and 6 (tie,
    # tied): 2 of 7 at every threshold that helps; the metric ties 5 and 6 (2/7), the humans
    # 2 and 6 (2/7); the ceiling: pairs (a1w1: writer, llm) 1, (a1w2) 1, (a2w1: llm, llm) 2,
    # (a3w3: writer, tie) 1 -> 5 of 7.
    plain = cell(accuracy, dimension="coherence", question="overall", coefficient="acc_eq")
    fitted = cell(
        accuracy, dimension="coherence", question="overall", coefficient="acc_eq_calibrated"
    )
    assert plain["value"] == pytest.approx(2 / 7) and fitted["value"] == pytest.approx(2 / 7)
    assert fitted["epsilon"] == 0.0
    assert plain["tie_rate"] == pytest.approx(2 / 7)
    assert plain["human_tie_rate"] == pytest.approx(2 / 7)
    assert plain["ceiling"] == pytest.approx(5 / 7)
    assert plain["n_judgements"] == 7 and plain["n_articles"] == 3
    sign = {"writer": -1, "llm": 1, "tie": 0}
    pairs = fixture_pairs()
    for dimension, scores in (("coherence", COHERENCE), ("fluency", FLUENCY)):
        for question in ("overall", "informativeness"):
            writer = pairs["writer_item_id"].map(scores).to_numpy(float)
            llm = pairs["llm_item_id"].map(scores).to_numpy(float)
            scored = ~np.isnan(writer)
            d, h = (llm - writer)[scored], pairs[question].map(sign).to_numpy()[scored]
            for coefficient, calibrate in (("acc_eq", False), ("acc_eq_calibrated", True)):
                row = cell(
                    accuracy, dimension=dimension, question=question, coefficient=coefficient
                )
                assert row["value"] == pytest.approx(brute_accuracy(d, h, calibrate))
                assert row["n_judgements"] == scored.sum()


# fluency, overall (judgement 2 unscored): d = +1, +1, +2, +2, -1, -1; the humans: writer,
# llm, llm, llm, writer, tie.
FLUENCY_PREFERENCES = {
    "llm": (4 / 6, 3 / 6),
    "writer": (2 / 6, 2 / 6),
    "tie": (0.0, 1 / 6),
    "llm - writer": (2 / 6, 1 / 6),
}


def test_preference_rates_by_hand(tables) -> None:
    preferences = tables.preferences
    assert list(preferences.columns) == PREFERENCE_COLUMNS
    for outcome, (metric, humans) in FLUENCY_PREFERENCES.items():
        key = {
            "dimension": "fluency",
            "question": "overall",
            "outcome": outcome,
            "length_stratum": "all",
        }
        assert cell(preferences, rater="metric", **key)["value"] == pytest.approx(metric)
        assert cell(preferences, rater="humans", **key)["value"] == pytest.approx(humans)
        difference = cell(preferences, rater="metric - humans", **key)
        assert difference["value"] == pytest.approx(metric - humans)
        assert difference["n_judgements"] == 6
        assert math.isnan(cell(preferences, rater="metric", **key)["pvalue"])  # differences only
        assert 0 < difference["pvalue"] <= 1


def exact_pvalue(difference: np.ndarray, cluster: np.ndarray, n_clusters: int) -> float:
    """Two-sided p-value over every one of the 2^n_clusters swaps, recomputed per swap."""
    observed = difference.mean()
    extreme = 0
    for mask in range(2**n_clusters):
        signs = np.array([-1.0 if mask >> c & 1 else 1.0 for c in range(n_clusters)])
        extreme += abs((signs[cluster] * difference).mean()) >= abs(observed) - 1e-12
    return extreme / 2**n_clusters


def test_preference_rates_within_length_strata_by_hand(tables) -> None:
    # the model's summary is longer than the writer's in judgements 0 and 1 (4 words vs 3),
    # as long in judgement 2 (4, 4), shorter in 3-6. Fluency, overall, shorter: d = +2, +2,
    # -1, -1; the humans llm, llm, writer, tie.
    preferences = tables.preferences
    key = {"dimension": "fluency", "question": "overall", "length_stratum": "llm shorter"}
    for outcome, metric, humans in (
        ("llm", 2 / 4, 2 / 4),
        ("writer", 2 / 4, 1 / 4),
        ("tie", 0, 1 / 4),
    ):
        assert cell(preferences, rater="metric", outcome=outcome, **key)["value"] == pytest.approx(
            metric
        )
        assert cell(preferences, rater="humans", outcome=outcome, **key)["value"] == pytest.approx(
            humans
        )
    counts = {
        stratum: cell(
            preferences,
            rater="humans",
            outcome="llm",
            dimension="coherence",
            question="overall",
            length_stratum=stratum,
        )["n_judgements"]
        for stratum in ("all", "llm longer", "llm shorter", "same length")
    }
    assert counts == {"all": 7, "llm longer": 2, "llm shorter": 4, "same length": 1}
    same = cell(
        preferences,
        rater="metric - humans",
        outcome="llm",
        dimension="fluency",
        question="overall",
        length_stratum="same length",
    )
    assert same["n_judgements"] == 0 and math.isnan(same["value"]) and math.isnan(same["pvalue"])


def test_permutation_p_values_against_the_enumeration(tables) -> None:
    """Every tested difference against the enumeration of all article swaps (the test
    draws its swaps at random: within its Monte Carlo error), on the fixture plus a fourth
    article A4 whose two judgements prefer the writer's summary, which the metric scores
    lower. Fluency, overall, the model's share on the fixture alone is exact: metric minus
    humans is 1 for judgement 0 (A1) and 0 elsewhere, so every swap gives +-1/6, as extreme
    as observed: p = 1."""
    row = cell(
        tables.preferences,
        dimension="fluency",
        question="overall",
        outcome="llm",
        rater="metric - humans",
        length_stratum="all",
    )
    assert row["pvalue"] == 1.0
    items = pd.concat(
        [
            fixture_items(),
            pd.DataFrame(
                {
                    "item_id": ["a4w4", "a4l"],
                    "article_id": "A4",
                    "author": ["writer", "llm"],
                    "writer_id": ["w4", None],
                    "article": "a b c",
                    "summary": ["a b", "c"],
                    "in_writer_summaries": True,
                }
            ),
        ],
        ignore_index=True,
    )
    extra = [("A4", e, "w4", "a4w4", "a4l", "writer", "writer") for e in ("e1", "e2")]
    pairs = pd.DataFrame(
        [p[1:] for p in fixture_pairs().itertuples(index=False)] + extra,
        columns=list(fixture_pairs().columns[1:]),
    )
    pairs.insert(0, "judgement", range(len(pairs)))
    coherence, fluency = {**COHERENCE, "a4w4": 1, "a4l": 5}, {**FLUENCY, "a4w4": 1, "a4l": 2}
    scores = pd.DataFrame(
        [(i, "coherence", v) for i, v in coherence.items()]
        + [(i, "fluency", v) for i, v in fluency.items()],
        columns=["item_id", "dimension", "score"],
    )
    n_resamples = 2000
    tested = fixture_rows(
        items, pairs, scores, n_resamples=10, permutation_resamples=n_resamples
    ).preferences
    cluster = pairs["article_id"].map({"A1": 0, "A2": 1, "A3": 2, "A4": 3}).to_numpy()
    sign = {"writer": -1, "llm": 1, "tie": 0}
    exact_values = []
    for dimension, by_item in (("coherence", coherence), ("fluency", fluency)):
        writer = pairs["writer_item_id"].map(by_item).to_numpy(float)
        llm = pairs["llm_item_id"].map(by_item).to_numpy(float)
        scored = ~np.isnan(writer)
        metric = np.sign(llm - writer)[scored]
        for question in ("overall", "informativeness"):
            humans = pairs[question].map(sign).to_numpy()[scored]
            for outcome, of in {
                "llm": lambda v: (v == 1).astype(float),
                "writer": lambda v: (v == -1).astype(float),
                "tie": lambda v: (v == 0).astype(float),
                "llm - writer": lambda v: v.astype(float),
            }.items():
                exact = exact_pvalue(of(metric) - of(humans), cluster[scored], 4)
                exact_values.append(exact)
                row = cell(
                    tested,
                    dimension=dimension,
                    question=question,
                    outcome=outcome,
                    rater="metric - humans",
                    length_stratum="all",
                )
                tolerance = 4 * math.sqrt(exact * (1 - exact) / n_resamples) + 2 / n_resamples
                assert row["pvalue"] == pytest.approx(exact, abs=tolerance), (dimension, outcome)
    assert min(exact_values) < 1  # at least one non-trivial case


def test_surface_scores_by_hand() -> None:
    scores = surface_scores(fixture_items())
    length = scores["length"].set_index("item_id")["score"]
    assert length.to_dict() == {
        "a1w1": 3,
        "a1w2": 4,
        "a1l": 4,
        "a2w1": 2,
        "a2l": 1,
        "a3w3": 4,
        "a3l": 1,
    }
    novel = scores["novel bigrams"].set_index("item_id")["score"]
    # article "the cat sat on the mat": "the cat sat" copies both its bigrams, "a dog ran
    # off" none of its three, "x" has no bigram
    assert novel["a1w1"] == 0.0 and novel["a1w2"] == 1.0 and math.isnan(novel["a2l"])
    assert set(scores["length"]["dimension"]) == {"words"}


BAD_SCORES = {
    "unknown item": (
        pd.DataFrame({"item_id": ["zz"], "dimension": ["d"], "score": [1.0]}),
        "not items",
    ),
    "twice": (
        pd.DataFrame({"item_id": ["a1l", "a1l"], "dimension": ["d", "d"], "score": [1.0, 2.0]}),
        "several scores",
    ),
    "infinite": (
        pd.DataFrame({"item_id": ["a1l"], "dimension": ["d"], "score": [math.inf]}),
        "finite",
    ),
    "no score column": (pd.DataFrame({"item_id": ["a1l"], "dimension": ["d"]}), "lack the column"),
    "reserved name": (
        pd.DataFrame({"item_id": ["a1l"], "dimension": ["AVG"], "score": [1.0]}),
        "reserved",
    ),
}


@pytest.mark.parametrize("case", BAD_SCORES)
def test_bad_scores_are_refused_naming_the_item_and_the_fix(case: str) -> None:
    scores, message = BAD_SCORES[case]
    with pytest.raises(ValueError, match=message) as info:
        fixture_rows(scores=scores, n_resamples=10, permutation_resamples=10)
    assert "'judge'" in str(info.value)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("llm_item_id", "a2l", "judgement 0's llm_item_id 'a2l' is not the llm summary"),
        ("overall", "Writer", "judgement 0 has overall preference 'Writer'"),
    ],
)
def test_pairs_of_other_items_or_labels_are_refused(column: str, value: str, message: str) -> None:
    pairs = fixture_pairs()
    pairs.loc[0, column] = value
    with pytest.raises(ValueError, match=message):
        fixture_rows(pairs=pairs, n_resamples=10, permutation_resamples=10)


# The length metric on the release ----------------------------------------------------------


@pytest.fixture(scope="module")
def length_rows(mirror_dir: Path):
    paths = [
        mirror_dir / get_source(s).relpath
        for s in ("zhang2023_pairwise", "zhang2023_writer_summaries")
    ]
    release = load_writer_vs_llm(*paths)
    rows = {
        metric: writer_vs_llm_rows(
            release.items,
            release.pairs,
            scores,
            metric=metric,
            variant=SURFACE_VARIANT,
            status="recomputed",
            n_resamples=200,
            permutation_resamples=200,
            seed=SEED,
        )
        for metric, scores in surface_scores(release.items).items()
    }
    return json.loads(paths[0].read_text("utf-8")), combined(rows)


def test_length_on_the_release_against_a_recount_of_the_raw_file(length_rows) -> None:
    records, rows = length_rows
    answer = {True: "writer", False: "llm", "Equally Good": "tie"}
    for group, n in (("writer", 243), ("llm", 239), ("tie", 117)):
        chosen = [r for r in records if answer[r["overall_writer_better"]] == group]
        for author, key in (("writer", "writer_summary"), ("llm", "text-davinci-002_summary")):
            row = cell(
                rows.group_means,
                metric="length",
                question="overall",
                preference=group,
                author=author,
            )
            assert row["value"] == pytest.approx(
                statistics.mean(len(r[key].split()) for r in chosen)
            )
            assert row["n_judgements"] == n
    humans = cell(
        rows.preferences,
        metric="length",
        question="overall",
        outcome="llm",
        rater="humans",
        length_stratum="all",
    )
    assert humans["value"] == pytest.approx(239 / 599) and humans["n_articles"] == 76
    d = np.array(
        [
            len(r["text-davinci-002_summary"].split()) - len(r["writer_summary"].split())
            for r in records
        ]
    )
    h = np.array(
        [{"writer": -1, "llm": 1, "tie": 0}[answer[r["overall_writer_better"]]] for r in records]
    )
    for coefficient, calibrate in (("acc_eq", False), ("acc_eq_calibrated", True)):
        row = cell(rows.accuracy, metric="length", question="overall", coefficient=coefficient)
        assert row["value"] == pytest.approx(brute_accuracy(d, h, calibrate))
    assert set(rows.accuracy["metric"]) == {"length", "novel bigrams"}


def test_distinct_counts_the_values_under_the_mask_as_nunique_does() -> None:
    column = pd.Series(["a", "b", "a", None, "c", "b"])
    mask = np.array([True, True, True, True, False, False])
    assert distinct(column, mask) == 2  # a, b; the missing value is not counted; c is masked
    assert distinct(column, mask) == column[mask].nunique()
    assert distinct(column, np.zeros(6, bool)) == 0
