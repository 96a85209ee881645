"""``sample`` / ``--sample`` on a benchmark of binary labels (SummEdits) draws K items per
(domain, split, label) stratum, on a labelled fixture table (synthetic, not SummEdits' data):
every stratum gets exactly K items, the draw is the seeded one (recomputed here stratum by
stratum with numpy's generator), the rows stay in benchmark order, a K beyond the smallest
stratum is refused naming it; other benchmarks keep the uniform draw of documents."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.benchmarks import SUMMEDITS_DOMAINS, get_benchmark
from geval_repro.runner.subset import sample_inputs, sample_record

SUMMEDITS = get_benchmark("summedits")


def _fixture_table() -> pd.DataFrame:
    """A fixture in SummEdits' layout: every domain, both splits, both labels, 3-6 items per
    stratum (sizes differ so that a stratum's position matters), shuffled benchmark order."""
    rows = []
    for d, domain in enumerate(SUMMEDITS_DOMAINS):
        for split in ("evaluation", "test"):
            for label in (0, 1):
                for i in range(3 + (d + label) % 4):
                    rows.append((f"{domain}/{split}-{label}-{i}", domain, split, label))
    table = pd.DataFrame(rows, columns=["item_id", "domain", "split", "label"])
    return table.sample(frac=1, random_state=0).reset_index(drop=True)


def test_every_stratum_gets_k_items_drawn_with_the_seed_in_benchmark_order() -> None:
    table = _fixture_table()
    kept = sample_inputs(table, SUMMEDITS, 2, seed=11)
    assert kept.groupby(["domain", "split", "label"]).size().tolist() == [2] * (8 * 2 * 2)
    assert list(kept.index) == sorted(kept.index)  # benchmark order kept
    rng = np.random.default_rng(11)  # the same draw, stratum by stratum in sorted order
    expected = set()
    for _, group in sorted(table.groupby(["domain", "split", "label"]), key=lambda g: g[0]):
        items = list(dict.fromkeys(group["item_id"]))
        expected |= {items[i] for i in rng.choice(len(items), size=2, replace=False)}
    assert set(kept["item_id"]) == expected
    assert kept.equals(sample_inputs(table, SUMMEDITS, 2, seed=11))  # deterministic
    assert set(sample_inputs(table, SUMMEDITS, 2, seed=12)["item_id"]) != expected


def test_a_count_beyond_the_smallest_stratum_or_no_seed_is_refused() -> None:
    table = _fixture_table()
    with pytest.raises(
        ValueError, match=r"smallest stratum \(ectsum, evaluation, 1\) has 3 values of item_id"
    ):
        sample_inputs(table, SUMMEDITS, 4, seed=1)
    with pytest.raises(ValueError, match="give --seed"):
        sample_inputs(table, SUMMEDITS, 2, seed=None)


def test_the_manifest_record_names_the_strata_only_where_there_are_some() -> None:
    assert sample_record(SUMMEDITS, 2, 5) == {
        "inputs": 2, "of": "item_id", "per": ["domain", "split", "label"], "seed": 5
    }  # fmt: skip
    assert sample_record(get_benchmark("summeval"), 2, 5) == {
        "inputs": 2, "of": "doc_id", "seed": 5
    }  # fmt: skip
