"""SFRES and SFHOT (UniEval's conversion of Novikova et al.'s ratings) on the mirror: pinned
counts, the dialogue acts, a bad file named with its item, and the correlation rows'
bootstrap over dialogue acts against a brute-force cluster bootstrap with scipy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from geval_repro.load.benchmarks import load_benchmark
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.sources import get_source
from geval_repro.tables.rows import table_rows

COUNTS = {"sfres": (1181, 580), "sfhot": (875, 398)}


def _paths(mirror_dir: Path, name: str) -> list[Path]:
    return [mirror_dir / get_source(s).relpath for s in get_benchmark(name).sources]


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts_acts_and_scores(mirror_dir: Path, name: str) -> None:
    table = load_benchmark(name, _paths(mirror_dir, name))
    raw = json.loads(_paths(mirror_dir, name)[0].read_text(encoding="utf-8"))
    assert (len(table), table["act_id"].nunique()) == COUNTS[name]
    assert len(raw) == COUNTS[name][0] == get_benchmark(name).item_count
    assert table["utterance"].tolist() == [r["system_output"] for r in raw]
    assert table["overall"].tolist() == [r["scores"]["overall"] for r in raw]
    # An act's items share its text and reference; every act has two or more utterances.
    acts = {r["source"] for r in raw}
    assert len(acts) == COUNTS[name][1]
    assert (table.groupby("act_id")["dialogue_act"].nunique() == 1).all()
    assert table.groupby("act_id").size().min() >= 2


def test_a_missing_rating_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    # The same rating removed from both files (else the predictions no longer match).
    copies = []
    for path in _paths(mirror_dir, "sfres"):
        items = json.loads(path.read_text(encoding="utf-8"))
        del items[17]["scores"]["informativeness"]
        copies.append(tmp_path / path.name)
        copies[-1].write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(ValueError, match=r"sfres.json: item 17 scores\['informativeness'\] = None"):
        load_benchmark("sfres", copies)


def test_correlation_intervals_resample_dialogue_acts(mirror_dir: Path) -> None:
    benchmark = get_benchmark("sfres")
    table = load_benchmark("sfres", _paths(mirror_dir, "sfres"))
    rows = table_rows(
        table,
        benchmark=benchmark,
        dimension="naturalness",
        metric="UniEval",
        variant="released predictions",
        metric_column="unieval_naturalness",
        human_column="naturalness",
        n_resamples=200,
        seed=7,
    ).set_index("coefficient")
    pearson = rows.loc["pearson"]
    assert pearson["n_items"] == 1181
    assert "over inputs" in pearson["note"] and "over items" in rows.loc["acc_eq"]["note"]
    # Brute force: draw acts (numbered in sorted order) with the same generator, pool their
    # items, scipy's Pearson r, percentile interval.
    acts = sorted(table["act_id"].unique())
    members = {a: table.index[table["act_id"] == a].to_numpy() for a in acts}
    draws = np.random.default_rng(7).integers(0, len(acts), size=(200, len(acts)))
    values = []
    for draw in draws:
        items = np.concatenate([members[acts[i]] for i in draw])
        values.append(
            stats.pearsonr(
                table["unieval_naturalness"].to_numpy()[items],
                table["naturalness"].to_numpy()[items],
            )[0]
        )
    low, high = np.percentile(values, [2.5, 97.5])
    assert (pearson["ci_low"], pearson["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert pearson["value"] == pytest.approx(
        stats.pearsonr(table["unieval_naturalness"], table["naturalness"])[0], abs=1e-12
    )
