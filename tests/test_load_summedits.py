"""SummEdits (Laban et al., 2023) on the mirror: pinned counts per domain and split, counted
here from the raw files with the standard library; the registry's facts; a bad row named
with its file and item."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from geval_repro.load.benchmarks import load_benchmark
from geval_repro.registry.benchmarks import LABELLED_BENCHMARKS, SUMMEDITS_DOMAINS, get_benchmark
from geval_repro.registry.sources import get_source

# (evaluation, test) pairs per domain, from the pinned files (SummEdits' README gives
# its 10 domains; 8 are mirrored).
PAIRS = {
    "news": (133, 686),
    "podcast": (124, 376),
    "qmsumm": (113, 318),
    "sales_call": (131, 389),
    "sales_email": (132, 481),
    "samsum": (121, 543),
    "scitldr": (115, 351),
    "ectsum": (117, 551),
}


def _paths(mirror_dir: Path) -> list[Path]:
    return [mirror_dir / get_source(s).relpath for s in get_benchmark("summedits").sources]


@pytest.fixture(scope="module")
def table(mirror_dir: Path):
    return load_benchmark("summedits", _paths(mirror_dir))


def test_registry_facts() -> None:
    entry = get_benchmark("summedits")
    assert LABELLED_BENCHMARKS == ("summedits",)
    assert entry.labels is not None and not entry.has_human_scores
    assert entry.preferences is None
    assert list(entry.labels.domains) == list(PAIRS) == list(SUMMEDITS_DOMAINS)
    assert entry.sources == tuple(f"summedits_{d}" for d in PAIRS)
    assert (entry.labels.threshold_split, entry.labels.tested_split) == ("evaluation", "test")
    assert entry.labels.resampling_key == "doc_id"
    assert entry.item_keys == ("item_id",) and entry.item_key_type is str
    assert entry.item_count == sum(sum(n) for n in PAIRS.values()) == 4681
    assert entry.citations == ("laban2023summedits",)
    assert all(get_source(s).license.startswith("Apache-2.0") for s in entry.sources)


def test_counts_per_domain_and_split_match_the_raw_files(mirror_dir: Path, table) -> None:
    assert len(table) == 4681
    for path, domain in zip(_paths(mirror_dir), PAIRS, strict=True):
        raw = json.loads(path.read_text(encoding="utf-8"))
        splits = Counter(r["split"] for r in raw)
        assert (splits["evaluation"], splits["test"]) == PAIRS[domain]
        rows = table[table["domain"] == domain]
        assert rows["summary"].tolist() == [r["summary"] for r in raw]
        assert rows["label"].tolist() == [r["label"] for r in raw]
        assert rows["split"].tolist() == [r["split"] for r in raw]
        assert rows["source"].nunique() == len({r["doc"] for r in raw})
        # Every document in one split; 4 documents in each domain's evaluation split.
        assert (rows.groupby("doc_id")["split"].nunique() == 1).all()
        assert rows.loc[rows["split"] == "evaluation", "doc_id"].nunique() == 4
        # Seed summaries (ids ending _og) are labelled consistent; every document has one
        # (QMSum: one document has two seeds).
        seeds = rows[rows["seed"]]
        assert (seeds["label"] == 1).all()
        assert seeds["doc_id"].nunique() == rows["doc_id"].nunique()
    assert table["doc_id"].nunique() == 162 and int(table["seed"].sum()) == 163
    assert table.groupby("split").size().to_dict() == {"evaluation": 986, "test": 3695}
    assert int(table["label"].sum()) == 1648


def _broken(mirror_dir: Path, tmp_path: Path, domain: str, index: int, **changes) -> list[Path]:
    copies = []
    for path in _paths(mirror_dir):
        copy = tmp_path / path.name
        if path.name == f"summedits_{domain}.json":
            items = json.loads(path.read_text(encoding="utf-8"))
            items[index].update(changes)
            copy.write_text(json.dumps(items), encoding="utf-8")
        else:
            copy.write_bytes(path.read_bytes())
        copies.append(copy)
    return copies


def test_a_bad_label_is_named_with_its_file_and_item(mirror_dir: Path, tmp_path: Path) -> None:
    copies = _broken(mirror_dir, tmp_path, "samsum", 5, label=2)
    with pytest.raises(ValueError, match=r"summedits_samsum.json: item 5 \(id '.*'\) has label 2"):
        load_benchmark("summedits", copies)


def test_a_bad_split_is_named(mirror_dir: Path, tmp_path: Path) -> None:
    copies = _broken(mirror_dir, tmp_path, "news", 9, split="train")
    with pytest.raises(ValueError, match=r"summedits_news.json: item 9 .* split 'train'.*Fix"):
        load_benchmark("summedits", copies)


def test_a_moved_document_breaks_the_pinned_counts(mirror_dir: Path, tmp_path: Path) -> None:
    copies = _broken(mirror_dir, tmp_path, "podcast", 0, split="test")
    with pytest.raises(ValueError, match=r"pairs per \(domain, split\)"):
        load_benchmark("summedits", copies)
