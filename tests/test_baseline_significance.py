"""Judge rows against the best baseline: known answers from complete enumerations of the
2^6 swaps (scipy.stats.permutation_test, and a hand-written loop over per-document scipy
correlations), the choice of the best baseline, and the marks in the paper layout."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from geval_repro.config import judge_spec
from geval_repro.pipeline.significance import judge_significance, read_significance
from geval_repro.registry.benchmarks import BENCHMARKS
from geval_repro.report.paper_layout import paper_layout
from geval_repro.tables.rows import MIN_BOOTSTRAP_UNITS
from geval_repro.tables.significance import best_baselines, judge_vs_baselines
from tests.conftest import settings

RESAMPLING = {"n_resamples": 20000, "seed": 11}
MC_TOLERANCE = 0.012  # > 3 Monte Carlo standard errors at 20,000 resamples


def _z(values: np.ndarray) -> np.ndarray:
    """Standardize over all values, as the test does before swapping (population sd)."""
    return (values - values.mean()) / values.std()


def _qags_case(tmp_path: Path) -> tuple[dict, dict, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Six QAGS-XSum items scored by a judge (plus one the baseline lacks)."""
    human = pd.DataFrame({"item_id": range(7), "consistency": [0.0, 0.2, 0.4, 0.5, 0.9, 1.0, 0.3]})
    judge = [0.1, 0.5, 0.3, 0.7, 0.8, 0.95, 0.2]
    items = pd.DataFrame(
        {
            "judge": "j",
            "benchmark": "qags_xsum",
            "dimension": "consistency",
            "item_id": range(7),
            "score": judge,
        }
    )
    path = tmp_path / "scores.parquet"
    items.to_parquet(path, index=False)
    baseline = pd.DataFrame(
        {
            "item_id": range(6),
            "metric": "ROUGE-2",
            "variant": "vs source document",
            "score": [0.3, 0.1, 0.6, 0.2, 0.5, 0.4],
        }
    )
    best = pd.DataFrame(
        {
            "benchmark": "qags_xsum",
            "dimension": "consistency",
            "coefficient": ["pearson", "spearman", "kendall"],
            "metric": "ROUGE-2",
            "variant": "vs source document",
            "value": [0.1, 0.2, 0.15],
        }
    )
    spec = judge_spec(
        "j",
        {
            "benchmark": "qags_xsum",
            "format": "scores",
            "label": "a fixture judge",
            "fixture": True,
            "file": {"path": str(path)},
            "columns": {"item_id": "item_id", "consistency": "score"},
        },
    )
    return spec, {"scores": path}, human, best, baseline


def _tables(processed: dict) -> dict:
    return {name: pd.read_parquet(path) for name, path in processed.items()}


def _difference_of(test, h: np.ndarray):
    """scipy's statistic: corr(x, h) - corr(y, h) along the last axis."""

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        def corr(v: np.ndarray) -> float:
            return test(v, h)[0]

        return np.apply_along_axis(corr, axis, x) - np.apply_along_axis(corr, axis, y)

    return statistic


def test_global_level_matches_scipy_exact_permutation_test(tmp_path: Path) -> None:
    spec, processed, human, best, baseline = _qags_case(tmp_path)
    out = judge_vs_baselines(spec, _tables(processed), human, best, baseline, **RESAMPLING)
    assert list(out["coefficient"]) == ["pearson", "spearman", "kendall"]
    assert (out["n_items"] == 6).all()  # item 6 has no baseline score
    assert (out["status"] == "fixture").all() and (out["unit"] == "items").all()
    h = human["consistency"].to_numpy()[:6]
    a = np.array([0.1, 0.5, 0.3, 0.7, 0.8, 0.95])
    b = np.array([0.3, 0.1, 0.6, 0.2, 0.5, 0.4])
    for coefficient, test in (
        ("pearson", stats.pearsonr),
        ("spearman", stats.spearmanr),
        ("kendall", stats.kendalltau),
    ):
        row = out[out["coefficient"] == coefficient].iloc[0]
        observed = test(a, h)[0] - test(b, h)[0]
        assert row["difference"] == pytest.approx(observed, abs=1e-9)
        exact = stats.permutation_test(
            (_z(a), _z(b)),
            _difference_of(test, h),
            permutation_type="samples",
            n_resamples=10**4,  # >= 2^6: scipy enumerates every swap exactly
        )
        assert exact.pvalue < 1  # a real test: the observed difference is not the smallest
        assert row["pvalue"] == pytest.approx(exact.pvalue, abs=MC_TOLERANCE)
        # the baseline's value on the test's items (scipy, on the 6 items both score),
        # beside its full-set value (the best-baseline row, here a made-up 0.1)
        assert row["baseline"] == "ROUGE-2"
        assert row["baseline_value"] == pytest.approx(test(b, h)[0], abs=1e-12)
        assert row["baseline_value"] != row["baseline_value_full"]
        assert (
            row["baseline_value_full"]
            == best.loc[best["coefficient"] == coefficient, "value"].item()
        )


def test_summary_level_matches_a_complete_enumeration_of_document_swaps(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    docs, systems = [f"d{i}" for i in range(6)], ["M1", "M2", "M3"]
    keys = pd.DataFrame(list(itertools.product(docs, systems)), columns=["doc_id", "system_id"])
    h = rng.normal(size=len(keys))
    a = h + rng.normal(scale=0.7, size=len(keys))  # the judge: closer to the humans
    b = h + rng.normal(scale=1.5, size=len(keys))
    human = keys.assign(
        coherence=h, consistency=h, fluency=h, relevance=h
    )  # only coherence is scored
    items = keys.assign(judge="j", benchmark="summeval", dimension="coherence", score=a)
    items.to_parquet(tmp_path / "scores.parquet", index=False)
    baseline = keys.assign(metric="ROUGE-1", variant="11 references, mean", score=b)
    best = pd.DataFrame(
        {
            "benchmark": "summeval",
            "dimension": "coherence",
            "coefficient": ["kendall"],
            "metric": "ROUGE-1",
            "variant": "11 references, mean",
            "value": [0.1],
        }
    )
    spec = judge_spec(
        "j",
        {
            "benchmark": "summeval",
            "format": "scores",
            "label": "a judge",
            "file": {"path": str(tmp_path / "scores.parquet")},
            "columns": {"doc_id": "d", "system_id": "s", "coherence": "c"},
        },
    )
    processed = {"scores": tmp_path / "scores.parquet"}
    out = judge_vs_baselines(spec, _tables(processed), human, best, baseline, **RESAMPLING)
    row = out[out["coefficient"] == "kendall"].iloc[0]
    assert row["unit"] == "inputs" and row["n_items"] == 18 and row["status"] == "recomputed"
    assert out[out["coefficient"] != "kendall"]["pvalue"].isna().all()  # no baseline given
    assert out[out["coefficient"] != "kendall"]["note"].str.contains("no recomputed").all()

    # by hand: z-score each metric over all cells, swap whole documents, average per-document
    # Kendall taus over the documents, for each of the 2^6 swap sets
    shape = (6, 3)  # documents x systems, in the keys' order
    za, zb, hh = _z(a).reshape(shape), _z(b).reshape(shape), h.reshape(shape)

    def summary(x: np.ndarray) -> float:
        return float(np.mean([stats.kendalltau(x[d], hh[d])[0] for d in range(6)]))

    observed = summary(za) - summary(zb)
    differences = []
    for mask in itertools.product([False, True], repeat=6):
        swap = np.array(mask)[:, None]
        differences.append(summary(np.where(swap, zb, za)) - summary(np.where(swap, za, zb)))
    exact = np.mean(np.abs(differences) >= abs(observed) - 1e-12)
    assert 0 < exact < 1
    assert row["difference"] == pytest.approx(observed, abs=1e-9)
    assert row["pvalue"] == pytest.approx(exact, abs=MC_TOLERANCE)


def test_best_baseline_is_the_highest_recomputed_row_at_the_benchmark_level() -> None:
    base = {"benchmark": "topical_chat", "dimension": "coherence", "coefficient": "spearman"}
    rows = pd.DataFrame(
        [
            {**base, "metric": "BLEU-4", "variant": "v", "level": "global", "value": 0.30},
            {**base, "metric": "METEOR", "variant": "v", "level": "global", "value": 0.35},
            {**base, "metric": "ROUGE-L", "variant": "v", "level": "system", "value": 0.90},
            {**base, "metric": "UniEval", "variant": "v", "level": "global", "value": math.nan},
            {**base, "metric": "BERTScore", "variant": "v", "level": "global", "value": 0.8},
            {
                **base,
                "dimension": "AVG",
                "metric": "X",
                "variant": "v",
                "level": "global",
                "value": 0.99,
            },
        ]
    ).assign(status=["recomputed"] * 4 + ["paper-only", "recomputed"])
    best = best_baselines(rows, BENCHMARKS)
    assert best[["metric", "value"]].values.tolist() == [["METEOR", 0.35]]


def test_tables_mark_significant_judge_cells(tmp_path: Path) -> None:
    spec, processed, human, best, baseline = _qags_case(tmp_path)
    human.to_parquet(tmp_path / "qags_xsum.parquet", index=False)
    baseline.to_parquet(tmp_path / "qags.parquet", index=False)
    rows = best.assign(level="global", status="recomputed")
    rows.to_csv(tmp_path / "baselines.csv", index=False)
    judge_significance(
        spec,
        processed,
        tmp_path / "qags_xsum.parquet",
        tmp_path / "baselines.csv",
        [tmp_path / "qags.parquet"],
        settings(seed=1, permutation_resamples=200),
        tmp_path / "j.csv",
    )
    tests = read_significance([tmp_path / "j.csv"])
    tests.loc[tests["coefficient"] == "pearson", "pvalue"] = 0.01  # one significant cell
    tests.loc[tests["coefficient"] == "spearman", "pvalue"] = 0.2
    cell = {"benchmark": "qags_xsum", "dimension": "consistency", "level": "global"}
    table = pd.DataFrame(
        [
            {
                **cell,
                "metric": "j",
                "variant": "per-item scores",
                "coefficient": c,
                "value": 0.5,
                "ci_low": 0.4,
                "ci_high": 0.6,
                "paper_value": math.nan,
                "status": "fixture",
            }
            for c in ("pearson", "spearman", "kendall")
        ]
    )

    def judge_line(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("| j |"))

    text = paper_layout(table, 3, tests)[1]
    pearson = tests[tests["coefficient"] == "pearson"].iloc[0]
    assert pearson["difference"] > 0  # the judge is better: an up arrow, no star
    assert judge_line(text).count("↑") == 1 and "0.500 [0.400, 0.600] ↑" in judge_line(text)
    assert "↓" not in judge_line(text) and "*" not in judge_line(text)
    assert "↑ / ↓: the judge cell is significantly better / worse" in text
    assert "Significance against the best recomputed baseline" in text
    assert "| best baseline | | | " in text and "ROUGE-2 (vs source document) 0.100" in text
    assert "p 0.010" in text and "p 0.200" in text
    assert "swapping the two metrics' scores per item (200 resamples, seed 1" in text
    assert "Significance" not in paper_layout(table, 3, None)[1]
    # significantly worse: a down arrow
    worse = tests.assign(difference=-tests["difference"].abs())
    assert "0.500 [0.400, 0.600] ↓" in judge_line(paper_layout(table, 3, worse)[1])
    # a cell on fewer items than the minimum gets no mark (and shows its n)
    few = paper_layout(table.assign(n_items=MIN_BOOTSTRAP_UNITS - 1), 3, tests)[1]
    assert "↑" not in judge_line(few) and "↓" not in judge_line(few)
