"""The recipe of docs/extending.md for a new benchmark, followed to the letter on a copy of
the package: a fourth benchmark made of FIXTURE data (synthetic, tests only) is added
through its sources entry, its registry entry, a loader registered under its name and its
prompt, nothing else; the pipeline then makes its tidy table, a judge run's tables, sweep
and figures and its judge-vs-judge ranking, at its level, with values equal to scipy's on
the same items."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from tests.conftest import copy_of_the_checkout

N_ITEMS = 40
COMMIT = "0123456789abcdef0123456789abcdef01234567"
RELPATH = f"geval-repro-tests/toy-benchmark/{COMMIT}/toy.json"
#: What the package's copy gets, at the places docs/extending.md names.
REGISTRY_ENTRY = """        Benchmark(
            name="toy",
            title="Toy (FIXTURE)",
            short="toy",
            paper_table=None,
            item_keys=("item_id",),
            dimensions=(Dimension("quality", (1.0, 5.0), (1, 5)),),
            level=Level.GLOBAL,
            level_name="item",
            printed_coefficients=("pearson", "spearman", "kendall"),
            texts={"Text": "text"},
            shared_text="Text",
            prompts=Prompts(folder="toy"),
            sources=("toy",),
        ),
"""
LOADER = '''"""The FIXTURE toy benchmark of tests/test_extending.py: a JSON list of items."""

import pandas as pd
import pandera.pandas as pa

from geval_repro.load.schemas import read_json, require_records, validate_table

TOY = pa.DataFrameSchema(
    {
        "item_id": pa.Column(int, pa.Check.ge(0), unique=True),
        "text": pa.Column(str),
        "quality": pa.Column(float, pa.Check.in_range(1.0, 5.0)),
    },
    strict=True,
    ordered=True,
    name="toy",
)


def load_toy(path):
    """The toy table: one row per item, its text and its human quality score."""
    records = require_records(read_json(path), ("item_id", "text", "quality"), path)
    table = pd.DataFrame.from_records(records)[["item_id", "text", "quality"]]
    return validate_table(table.astype({"quality": float}), TOY, path, ["item_id"])
'''
PROMPT = (
    "# geval-repro toolkit prompt (FIXTURE, tests only); this line is not sent.\n"
    "Rate the text.\n\nEvaluation Criteria:\n\nQuality (1-5) - how good it is.\n\n"
    "Text:\n\n{{Text}}\n\nEvaluation Form (scores ONLY):\n\n- Quality:"
)


def _insert(path: Path, anchor: str, text: str, before: bool = True) -> None:
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path}: the recipe's anchor {anchor!r} moved"
    path.write_text(
        source.replace(anchor, text + anchor if before else anchor + text), encoding="utf-8"
    )


def _toy_data(rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    """Items with a human score, and a FIXTURE judge run's JSON Lines records of them."""
    quality = rng.integers(1, 6, N_ITEMS).astype(float)
    items = [
        {"item_id": i, "text": f"toy text number {i}", "quality": float(q)}
        for i, q in enumerate(quality)
    ]
    records = []
    for i, q in enumerate(quality):
        near = np.clip(q + rng.normal(0, 1.2, 5), 1, 5)
        probs = np.bincount(np.rint(near).astype(int), minlength=6)[1:] / 5.0
        replies = [str(int(r)) for r in np.clip(np.rint(q + rng.normal(0, 1, 4)), 1, 5)]
        level_probs = {str(r + 1): float(p) for r, p in enumerate(probs) if p > 0}
        records.append({"item_id": i, "replies": replies, "level_probs": level_probs})
    return items, records


@pytest.mark.pipeline
@pytest.mark.slow
def test_a_fourth_benchmark_through_its_registry_entry_a_loader_and_its_prompt(
    tmp_path: Path, mirror_dir: Path
) -> None:
    copy = copy_of_the_checkout(tmp_path)
    package = copy / "geval_repro"
    items, records = _toy_data(np.random.default_rng(7))
    data = json.dumps(items).encode("utf-8")

    # 1. its upstream file in the sources registry (and, here, in a mirror)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for entry in mirror_dir.iterdir():
        (mirror / entry.name).symlink_to(entry)
    (mirror / RELPATH).parent.mkdir(parents=True)
    (mirror / RELPATH).write_bytes(data)
    owner, repo, commit, name = RELPATH.split("/")
    source = {
        "id": "toy",
        "owner": owner,
        "repo": repo,
        "commit": commit,
        "path": name,
        "url": f"https://raw.githubusercontent.com/{RELPATH}",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "license": "FIXTURE: synthetic test data",
        "citation": "liu2023geval",
        "mirrored": True,
        "description": "FIXTURE toy benchmark (tests/test_extending.py)",
    }
    registry = package / "data" / "sources.yaml"
    registry.write_text(
        registry.read_text(encoding="utf-8") + yaml.safe_dump([source], sort_keys=False),
        encoding="utf-8",
    )
    # 2. its entry in the registry of benchmarks
    _insert(package / "registry" / "benchmarks.py", '        _qags("cnndm", "QAGS-CNN/DM", 235),\n',
            REGISTRY_ENTRY)  # fmt: skip
    # 3. its loader, registered under its name
    (package / "load" / "toy.py").write_text(LOADER, encoding="utf-8")
    loaders = package / "load" / "benchmarks.py"
    _insert(loaders, "BENCHMARK_LOADERS: dict[str, BenchmarkLoader] = {\n",
            '    "toy": BenchmarkLoader(load_toy, TOY),\n', before=False)  # fmt: skip
    _insert(loaders, "from geval_repro.load.summeval import load_summeval\n",
            "from geval_repro.load.toy import TOY, load_toy\n")  # fmt: skip
    # 4. its prompt
    (package / "prompts" / "toy").mkdir()
    (package / "prompts" / "toy" / "quality.txt").write_text(PROMPT, encoding="utf-8")

    # A FIXTURE judge run on it, and the pipeline to its tables and figures.
    run = tmp_path / "toy-run"
    run.mkdir()
    (run / "quality.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    config = {
        "judges": {
            "toy-fixture": {
                "benchmark": "toy",
                "format": "geval-jsonl",
                "label": "FIXTURE: synthetic toy replies (tests only)",
                "fixture": True,
                "files": {"quality": {"path": str(run / "quality.jsonl")}},
            }
        },
        "judges_to_run": ["toy-fixture"],
        "rerun_pairs": [],
        "bootstrap": {"n_resamples": 50},
        "permutation": {"n_resamples": 50},
        "sweep": {"draws": 5, "max_n": 4},
        "mirror": str(mirror),
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    results = tmp_path / "results"
    tables = results / "tables" / "judges" / "toy-fixture"
    figures = results / "figures" / "judges" / "toy-fixture"
    targets = [
        str(tables / "correlations.csv"),
        str(tables / "sweep.csv"),
        str(figures / "sweep_spearman.png"),
        str(results / "figures" / "significance_clusters_toy.png"),
    ]
    command = [
        sys.executable, "-m", "snakemake", *targets, "--cores", "all", "--nolock",
        "--configfile", str(tmp_path / "config.yaml"),
        "--config", f"data_dir={tmp_path / 'data'}", f"results_dir={results}",
    ]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run(
        command, cwd=copy, env=environment, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-6000:]

    tidy = pd.read_parquet(tmp_path / "data" / "processed" / "toy.parquet")
    assert tidy["quality"].tolist() == [item["quality"] for item in items]
    rows = pd.read_csv(tables / "correlations.csv")
    assert set(rows["level"]) == {"global"} and set(rows["status"]) == {"fixture"}
    # Eq. 1 by hand, rounded so that mathematically equal scores tie exactly (the levels
    # collapse near-ties for the rank coefficients; scipy would rank the float noise)
    weighted = [
        round(sum(int(r) * p for r, p in record["level_probs"].items()), 9) for record in records
    ]
    human = [item["quality"] for item in items]
    eq1 = rows[rows["variant"] == "probability-weighted rating (Eq. 1)"].set_index("coefficient")
    for coefficient, test in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        assert eq1.loc[coefficient, "value"] == pytest.approx(test(weighted, human)[0], abs=1e-9)
        assert eq1.loc[coefficient, "n_items"] == N_ITEMS
    assert (figures / "sweep_spearman.png").stat().st_size > 0
    ranking = pd.read_csv(results / "work" / "rows" / "significance_clusters" / "toy.csv")
    assert set(ranking["metric"]) == {"toy-fixture"} and (ranking["n_items"] == N_ITEMS).all()
