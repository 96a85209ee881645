"""Judge vs judge: Holm against a hand-computed example, the cluster rule on hand-made
p-values, a metric against itself, the symmetry of the p-value matrix, the global-level
p-value against scipy's complete enumeration, and the table's rows."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.stats.clusters import significance_clusters
from geval_repro.stats.multiplicity import holm
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.tables.judge_pairs import (
    ALPHA,
    CLUSTER_COLUMNS,
    PAIR_COLUMNS,
    pairwise_significance,
)
from geval_repro.tables.paired_tests import (
    Scored,
    baseline_metrics,
    compared_variant,
    judge_metrics,
    pair_status,
    unieval_metrics,
)
from tests.conftest import spec

XSUM = get_benchmark("qags_xsum")

NAN = math.nan


def test_holm_by_hand() -> None:
    # sorted: 0.005, 0.01, 0.03, 0.04 (m = 4) -> 4 * 0.005 = 0.02, 3 * 0.01 = 0.03,
    # 2 * 0.03 = 0.06, 1 * 0.04 = 0.04 -> running maximum 0.02, 0.03, 0.06, 0.06
    got = holm(np.array([0.01, 0.04, 0.03, 0.005, NAN]))
    np.testing.assert_allclose(got[:4], [0.03, 0.06, 0.06, 0.02], rtol=0, atol=1e-15)
    assert math.isnan(got[4])  # not a test: not counted in m
    # ties share their adjusted value; a product above 1 is 1
    np.testing.assert_allclose(holm(np.array([0.2, 0.2, 0.9])), [0.6, 0.6, 0.9], atol=1e-15)
    np.testing.assert_allclose(holm(np.array([0.6, 0.7])), [1.0, 1.0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm(np.array([1.5]))


def test_cluster_rule_on_hand_made_pvalues() -> None:
    """Five metrics, best first, with Holm p-values above the diagonal."""
    p = np.full((5, 5), 1.0)
    p[0, 1] = 0.30  # B ties A: cluster 1
    p[0, 2] = 0.01  # C worse than A (though not than B): a new cluster starts at C
    p[1, 2] = 0.20
    p[2, 3] = 0.40  # D ties C, and only the current cluster (C) counts: the significant
    p[0, 3] = 0.001  # difference to A (an earlier cluster) does not start a new one
    p[1, 4] = 0.02  # E worse than B (earlier cluster) only: stays with C and D
    worse = p <= ALPHA
    assert significance_clusters(worse).tolist() == [1, 1, 2, 2, 2]
    p[3, 4] = 0.049  # E worse than D, a member of the current cluster
    assert significance_clusters(p <= ALPHA).tolist() == [1, 1, 2, 2, 3]
    # only entries above the diagonal are read
    assert significance_clusters(np.tril(np.ones((3, 3), dtype=bool))).tolist() == [1, 1, 1]
    assert significance_clusters(np.ones((3, 3), dtype=bool)).tolist() == [1, 2, 3]


def _summary_case(seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, (8, 12)).astype(float)
    metrics = [human + rng.normal(0, s, human.shape) for s in (0.8, 1.2, 2.0)]
    metrics[2][0, 3] = np.nan
    for m in metrics:  # the same missing cell everywhere: the test needs equal missing cells
        m[0, 3] = np.nan
    return metrics, human


@pytest.mark.parametrize("level", ["summary", "global"])
def test_a_metric_against_itself_has_p_one(level: str) -> None:
    metrics, human = _summary_case()
    if level == "global":
        metrics, human = [m.reshape(1, -1) for m in metrics], human.reshape(1, -1)
    for coefficient in ("pearson", "spearman", "kendall"):
        result = paired_permutation_test(
            metrics[0], metrics[0], human, level, coefficient, n_resamples=200, seed=1
        )
        assert result.statistic == 0.0 and result.pvalue == 1.0


@pytest.mark.parametrize("level", ["summary", "global"])
def test_the_pvalue_matrix_is_symmetric(level: str) -> None:
    """The test of a against b (same seed) is the test of b against a: same p-value,
    statistic negated, for every ordered pair."""
    metrics, human = _summary_case(3)
    if level == "global":
        metrics, human = [m.reshape(1, -1) for m in metrics], human.reshape(1, -1)
    n = len(metrics)
    for coefficient in ("spearman", "kendall"):
        p, d = np.ones((n, n)), np.zeros((n, n))
        for i, j in itertools.permutations(range(n), 2):
            result = paired_permutation_test(
                metrics[i], metrics[j], human, level, coefficient, n_resamples=300, seed=7
            )
            p[i, j], d[i, j] = result.pvalue, result.statistic
        np.testing.assert_array_equal(p, p.T)
        np.testing.assert_array_equal(d, -d.T)
        assert (p[~np.eye(n, dtype=bool)] < 1).any()  # real tests, not all trivial


def _z(values: np.ndarray) -> np.ndarray:
    """Standardize over all values, as the test does before swapping (population sd)."""
    return (values - values.mean()) / values.std()


def _qags() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Seven QAGS-XSum items (the baselines score six), UniEval, ROUGE-2 and a judge."""
    tidy = pd.DataFrame(
        {
            "item_id": range(7),
            "consistency": [0.0, 0.2, 0.4, 0.5, 0.9, 1.0, 0.3],
            "unieval_consistency": [0.2, 0.1, 0.5, 0.6, 0.7, 0.9, 0.4],
        }
    )
    baseline = pd.DataFrame(
        {
            "item_id": range(6),
            "metric": "ROUGE-2",
            "variant": "vs source document",
            "score": [0.3, 0.1, 0.6, 0.2, 0.5, 0.4],
        }
    )
    judge = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "qags_xsum",
            "dimension": "consistency",
            "item_id": range(7),
            "score": [0.1, 0.5, 0.3, 0.7, 0.8, 0.95, 0.2],
        }
    )
    return tidy, baseline, judge


def _qags_metrics(tidy: pd.DataFrame, baseline: pd.DataFrame, judge: pd.DataFrame) -> list[Scored]:
    """The metrics of :func:`_qags`'s tables: ROUGE-2 (the baselines), UniEval and the judge
    "j" (per-item scores)."""
    run = spec(benchmark="qags_xsum", format="scores", file={"path": "unused"})
    return (
        baseline_metrics(baseline, XSUM)
        + unieval_metrics(tidy, XSUM)
        + judge_metrics(run, {"scores": judge}, compared_only=True)
    )


def _difference_of(test, h: np.ndarray):
    """scipy's statistic: corr(x, h) - corr(y, h) along the last axis."""

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        def corr(v: np.ndarray) -> float:
            return test(v, h)[0]

        return np.apply_along_axis(corr, axis, x) - np.apply_along_axis(corr, axis, y)

    return statistic


def test_global_pair_matches_scipy_complete_enumeration() -> None:
    """QAGS-XSum, the judge against ROUGE-2 on the six items both score: the p-value of
    20,000 Monte Carlo resamples against scipy's exact test over all 2^6 swaps."""
    tidy, baseline, judge = _qags()
    run = spec(benchmark="qags_xsum", format="scores", fixture=True, file={"path": "unused"})
    metrics = baseline_metrics(baseline, XSUM) + judge_metrics(
        run, {"scores": judge}, compared_only=True
    )
    pairs, ranking = pairwise_significance(
        XSUM,
        tidy,
        metrics,
        n_resamples=20000,
        seed=5,
        coefficients=["pearson", "spearman", "kendall"],
    )
    assert list(pairs.columns) == PAIR_COLUMNS and list(ranking.columns) == CLUSTER_COLUMNS
    assert (pairs["n_items"] == 6).all() and (pairs["unit"] == "items").all()
    assert (pairs["status"] == "fixture").all()  # the judge is a fixture run
    h = tidy["consistency"].to_numpy()[:6]
    a = judge["score"].to_numpy()[:6]
    b = baseline["score"].to_numpy()[:6]
    for coefficient, test in (
        ("pearson", stats.pearsonr),
        ("spearman", stats.spearmanr),
        ("kendall", stats.kendalltau),
    ):
        row = pairs[pairs["coefficient"] == coefficient].iloc[0]
        sign = 1.0 if row["metric_a"] == "j" else -1.0  # a is the metric ranked above
        observed = test(a, h)[0] - test(b, h)[0]
        assert sign * row["difference"] == pytest.approx(observed, abs=1e-9)
        assert (row["value_a"] - row["value_b"]) == pytest.approx(row["difference"], abs=1e-9)
        exact = stats.permutation_test(
            (_z(a), _z(b)),
            _difference_of(test, h),
            permutation_type="samples",
            n_resamples=10**4,  # >= 2^6: scipy enumerates every swap exactly
        )
        assert 0 < exact.pvalue < 1
        assert row["pvalue"] == pytest.approx(exact.pvalue, abs=0.012)  # > 3 MC s.e.
        assert row["pvalue_holm"] == row["pvalue"]  # one pair per table: Holm changes nothing


def test_tables_rank_cluster_and_correct_across_the_pairs_of_one_table() -> None:
    tidy, baseline, judge = _qags()
    copy = Scored("copy", "of j", "judge", "recomputed", {"consistency": judge})
    metrics = [*_qags_metrics(tidy, baseline, judge), copy]
    pairs, ranking = pairwise_significance(
        XSUM, tidy, metrics, n_resamples=300, seed=2, coefficients=["spearman", "kendall"]
    )
    assert len(pairs) == 2 * 6 and len(ranking) == 2 * 4  # C(4, 2) pairs, 4 metrics
    for _, table in pairs.groupby("coefficient"):
        np.testing.assert_array_equal(table["pvalue_holm"], holm(table["pvalue"].to_numpy()))
        assert (table["pvalue_holm"] >= table["pvalue"]).all()
    itself = pairs[pairs["metric_a"].isin(["j", "copy"]) & pairs["metric_b"].isin(["j", "copy"])]
    assert (itself["pvalue"] == 1.0).all() and (itself["difference"] == 0.0).all()
    # UniEval and the judge score all seven items, the baselines six (the benchmark's full
    # items): every test and the ranking rest on those six, UniEval against the judge too
    assert (pairs["n_items"] == 6).all() and (ranking["n_items"] == 6).all()
    assert set(pairs["ranking"]) == set(ranking["ranking"]) == {"full"}
    for _, table in ranking.groupby("coefficient"):
        assert table["value"].is_monotonic_decreasing
        assert table["position"].tolist() == [1, 2, 3, 4]
        assert table["cluster"].is_monotonic_increasing and table["cluster"].iloc[0] == 1
    # 6 pairs with 300 resamples: the floor 6 / 301 is below 0.05 (resolved)
    assert (ranking["holm_floor"] == 6 / 301).all()
    assert not ranking["note"].str.contains("UNRESOLVED").any()


def _partial_run(items: dict[str, list[int]]) -> list[Scored]:
    """A partial run "p" on QAGS-XSum: one metric per variant, scoring ``items``."""
    rng = np.random.default_rng(11)
    scores = pd.Series(rng.normal(size=7), index=range(7))
    return [
        Scored(
            "p",
            variant,
            "judge",
            "toolkit-run",
            {"consistency": pd.DataFrame({"item_id": ids, "score": scores[ids].to_numpy()})},
        )
        for variant, ids in items.items()
    ]


def test_a_partial_run_never_shrinks_the_full_ranking() -> None:
    """A full-coverage pair (UniEval and a judge, beside the baselines) and a partial run:
    the full ranking rests on the full items (the six the baselines' protocol scores), with
    the values and tests it has without the partial run; each of the partial run's item
    sets gets its own ranking, on its items only, the others restricted to them."""
    tidy, baseline, judge = _qags()
    covering = _qags_metrics(tidy, baseline, judge)
    # variant "a": items 0, 2, 3, 5 of the full six, and item 6, which the baselines do not
    # score (not a full item: left out of its ranking); variant "b": items 1, 3, 4
    partial = _partial_run({"a": [0, 2, 3, 5, 6], "b": [1, 3, 4]})
    options = {"n_resamples": 500, "seed": 3, "coefficients": ["spearman", "kendall"]}
    alone_pairs, alone = pairwise_significance(XSUM, tidy, covering, **options)
    pairs, ranking = pairwise_significance(XSUM, tidy, covering + partial, **options)

    full = ranking[ranking["ranking"] == "full"].reset_index(drop=True)
    assert set(full["metric"]) == {"ROUGE-2", "UniEval", "j"} and (full["n_items"] == 6).all()
    pd.testing.assert_frame_equal(full, alone.reset_index(drop=True))
    full_pairs = pairs[pairs["ranking"] == "full"].reset_index(drop=True)
    pd.testing.assert_frame_equal(full_pairs, alone_pairs.reset_index(drop=True))
    human = tidy["consistency"].to_numpy()
    scores = {
        "ROUGE-2": baseline["score"].to_numpy()[:6],
        "UniEval": tidy["unieval_consistency"].to_numpy()[:6],
        "j": judge["score"].to_numpy()[:6],
    }
    spearman = full[full["coefficient"] == "spearman"].set_index("metric")["value"]
    for metric, values in scores.items():  # on the six full items, by scipy
        assert spearman[metric] == pytest.approx(stats.spearmanr(values, human[:6])[0], abs=1e-12)

    names = {"a": "partial: p, 4 items", "b": "partial: p, 3 items"}
    assert set(ranking["ranking"]) == {"full", *names.values()}
    assert set(pairs["ranking"]) == {"full", *names.values()}
    for variant, items in {"a": [0, 2, 3, 5], "b": [1, 3, 4]}.items():
        own = ranking[ranking["ranking"] == names[variant]]
        assert set(zip(own["metric"], own["variant"], strict=True)) == {
            ("ROUGE-2", "vs source document"),
            ("UniEval", "released predictions"),
            ("j", "per-item scores"),
            ("p", variant),  # never the run's other variant
        }
        assert (own["n_items"] == len(items)).all()
        assert own["note"].str.startswith(names[variant]).all()
        mine = partial[0 if variant == "a" else 1].scores["consistency"].set_index("item_id")
        restricted = {
            "ROUGE-2": baseline["score"].to_numpy()[items],
            "UniEval": tidy["unieval_consistency"].to_numpy()[items],
            "j": judge["score"].to_numpy()[items],
            "p": mine.loc[items, "score"].to_numpy(),
        }
        for coefficient, test in (("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
            values = own[own["coefficient"] == coefficient].set_index("metric")["value"]
            for metric, scored in restricted.items():
                expected = test(scored, human[items])[0]
                assert values[metric] == pytest.approx(expected, abs=1e-12), (variant, metric)
        tests = pairs[pairs["ranking"] == names[variant]]
        assert len(tests) == 2 * 6 and (tests["n_items"] == len(items)).all()
        for _, table in tests.groupby("coefficient"):  # Holm within this ranking only
            np.testing.assert_array_equal(table["pvalue_holm"], holm(table["pvalue"].to_numpy()))


def test_no_test_on_fewer_than_three_units() -> None:
    """A partial run scoring 2 of the full items: no value and no test in its ranking (any
    two points correlate at +-1), the note says why; on 3 items the tests are made."""
    tidy, baseline, judge = _qags()
    covering = _qags_metrics(tidy, baseline, judge)
    options = {"n_resamples": 200, "seed": 3, "coefficients": ["spearman"]}
    pairs, ranking = pairwise_significance(
        XSUM, tidy, covering + _partial_run({"two": [1, 4], "three": [0, 2, 5]}), **options
    )
    two = pairs[pairs["ranking"] == "partial: p, 2 items"]
    assert len(two) == 6 and two["pvalue"].isna().all()
    assert two[["value_a", "value_b"]].isna().all().all()
    assert two["note"].str.contains("no value: it would rest on 2 items").all()
    unranked = ranking[ranking["ranking"] == "partial: p, 2 items"]
    assert unranked["cluster"].isna().all()
    three = pairs[pairs["ranking"] == "partial: p, 3 items"]
    assert three["pvalue"].notna().all()


def test_rankings_of_a_benchmark_whose_protocol_leaves_items_out() -> None:
    """The full items are those the baselines' protocol scores; a metric that scores them
    and more covers them, one that misses one is partial and ranked apart."""
    from geval_repro.tables.item_sets import blocks, full_items, rankings

    tidy, baseline, judge = _qags()
    metrics = baseline_metrics(baseline, XSUM) + unieval_metrics(tidy, XSUM)
    assert full_items(XSUM, tidy, "consistency", metrics).tolist() == [(i,) for i in range(6)]
    assert full_items(XSUM, tidy, "consistency", []).tolist() == [(i,) for i in range(7)]
    short = Scored("s", "v", "judge", "recomputed", {"consistency": judge.iloc[1:]})
    sets = rankings(XSUM, tidy, "consistency", [*metrics, short])
    assert [s.name for s in sets] == ["full", "partial: s, 5 items"]
    assert [m.metric for m in sets[0].metrics] == ["ROUGE-2", "UniEval"]
    assert [len(m.scores["consistency"]) for m in sets[0].metrics] == [6, 6]  # UniEval: 6 of 7
    assert "the 6 of QAGS-XSum's 7 items that its baselines' protocol scores" in sets[0].basis
    assert [m.metric for m in sets[1].metrics] == ["ROUGE-2", "UniEval", "s"]
    assert [len(m.scores["consistency"]) for m in sets[1].metrics] == [5, 5, 5]
    # blocks keep each metric's own items: the baselines' six, UniEval's seven, s's six
    grouped = blocks(XSUM, tidy, "consistency", [*metrics, short])
    assert [(b.name, len(b.items)) for b in grouped] == [
        ("full", 6),
        ("full, 7 items", 7),
        ("partial: s, 6 items", 6),
    ]
    assert [[m.metric for m in b.metrics] for b in grouped] == [["ROUGE-2"], ["UniEval"], ["s"]]


def test_too_few_resamples_leave_a_table_unresolved() -> None:
    tidy, baseline, judge = _qags()
    metrics = _qags_metrics(tidy, baseline, judge)
    _, ranking = pairwise_significance(
        XSUM, tidy, metrics, n_resamples=40, seed=2, coefficients=["pearson"]
    )
    assert (ranking["holm_floor"] == 3 / 41).all()  # > 0.05: no pair can be significant
    assert ranking["note"].str.contains("UNRESOLVED").all()
    assert ranking["note"].str.contains("at least 59").all()  # ceil(3 / 0.05) - 1
    assert (ranking["cluster"] == 1).all()


def test_compared_variants() -> None:
    assert compared_variant("mean-of-20/original") and compared_variant("first-reply/original")
    assert not compared_variant("mode-reply/original")
    assert not compared_variant("mean-of-20/tolerant")
    assert not compared_variant("first-reply/tolerant")
    assert compared_variant("probability-weighted rating (Eq. 1)")
    assert compared_variant("most likely rating") and compared_variant("per-item scores")


def test_baselines_of_one_variant() -> None:
    _, baseline, _ = _qags()
    (rouge,) = baseline_metrics(baseline, XSUM)
    assert rouge.scores["consistency"]["score"].tolist() == [0.3, 0.1, 0.6, 0.2, 0.5, 0.4]
    assert baseline_metrics(baseline, XSUM, "another variant") == []


def test_a_test_takes_the_least_real_status_of_its_two_metrics() -> None:
    def scored(status: str) -> Scored:
        return Scored("m", "v", "judge", status, {})

    assert pair_status(scored("recomputed"), scored("recomputed")) == "recomputed"
    assert pair_status(scored("recomputed"), scored("toolkit-run")) == "toolkit-run"
    assert pair_status(scored("toolkit-run"), scored("recomputed")) == "toolkit-run"
    assert pair_status(scored("toolkit-run"), scored("fixture")) == "fixture"
    assert pair_status(scored("fixture"), scored("recomputed")) == "fixture"


def test_each_benchmarks_job_reads_the_baseline_file_its_rows_come_from(tmp_path) -> None:
    from geval_repro.pipeline.layout import Layout
    from geval_repro.registry.benchmarks import BENCHMARKS

    layout = Layout(tmp_path / "data", tmp_path / "results")
    with_baselines = {  # writer_vs_llm: none
        "summeval",
        "topical_chat",
        "qags_cnndm",
        "qags_xsum",
        "dialsummeval",
        "sfres",
        "sfhot",
        "summedits",  # its rows: the binary-label table's
    }
    for name, benchmark in BENCHMARKS.items():
        own = [layout.data / "processed" / "baselines" / f"{name}.parquet"]
        assert layout.benchmark_baseline_scores(benchmark) == (
            own if name in with_baselines else []
        )


def test_the_committed_rankings_rest_on_the_full_items() -> None:
    """The committed judge-vs-judge tables (the mirrored-data run): every full ranking and
    its tests rest on its benchmark's full items (SummEval's 1,600 summaries, the 300
    Topical-Chat responses its baselines' protocol scores, every QAGS summary), no partial
    run is among them, and each partial ranking names its run and its item count."""
    from pathlib import Path

    tables = Path(__file__).resolve().parents[1] / "results" / "tables"
    clusters = pd.read_csv(tables / "significance_clusters.csv")
    pairs = pd.read_csv(tables / "pairwise_significance.csv")
    expected = {
        "summeval": [1600],
        "topical_chat": [300],
        "qags_cnndm": [235],
        "qags_xsum": [239],
        "dialsummeval": [1300],  # systems B-N; the reference (A) is not an item
        "sfres": [1181],
        "sfhot": [875],
    }
    for table in (clusters, pairs):
        full = table[table["ranking"] == "full"]
        assert full.groupby("benchmark")["n_items"].unique().map(list).to_dict() == expected
        partial = table[table["ranking"] != "full"]
        counts = partial["ranking"].str.extract(r"^partial: \S+, (\d+) items$")[0]
        assert counts.notna().all()
        assert (counts.astype(int) == partial["n_items"]).all()
    full = clusters[clusters["ranking"] == "full"]
    assert not (full["status"] == "toolkit-run").any()  # the partial SmolLM2 runs
    assert set(full["metric"]) >= {"gpt4-metriceval-run1", "UniEval", "ROUGE-2", "METEOR 1.5"}
    assert full["note"].str.startswith("full: ").all()
    assert (clusters.loc[clusters["ranking"] != "full", "status"] != "fixture").all()
