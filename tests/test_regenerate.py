"""The committed results/ regenerate bit for bit from the offline mirror.

The tables and figures under results/ (everything the mirror can produce: Topical-Chat,
QAGS, UniEval rows, baselines, human data, MetricEval's G-Eval re-runs) are committed with
provenance sidecars. This test reruns the pipeline with workflow/configs/mirrored_data.yaml
into a temporary results folder and compares: every committed file must be regenerated with
identical bytes (sidecars: identical apart from package versions; they record no git
commit, so a regeneration at a later commit leaves `git status` clean), no
regenerated table or figure may be missing from the commit, and the results page
(results/README.md) must be the one generated from results/.

The processed data (``data/processed``: the tidy tables and the baseline scores) come from
the shared pipeline run (tests/conftest.py) of the same mirror: its data folder is reused,
so only the results-level jobs (and the tidy tables of the judge runs the shared run does
not read) run here. Those processed files are made by the same rules from the same
hash-verified mirror files and depend on no analysis setting, so they are the files an empty
data folder would give; the results' sidecars record them by their upstream sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geval_repro.config import MIRRORED_CONFIG_PATH
from geval_repro.report.provenance import SIDECAR_SUFFIX, differences, read_provenance
from geval_repro.report.readme import main as readme_check
from tests.conftest import REPO_ROOT, PipelineRun, run_snakemake

COMMITTED = REPO_ROOT / "results"
COMMITTED_FOLDERS = ("tables", "figures")


def result_files(root: Path) -> set[str]:
    """The tables and figures under ``root`` (a results folder), relative to it."""
    return {
        str(path.relative_to(root))
        for folder in COMMITTED_FOLDERS
        for path in (root / folder).rglob("*")
        if path.is_file()
    }


@pytest.fixture(scope="module")
def regenerated(
    mirror_dir: Path, pipeline_run: PipelineRun, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The results of workflow/configs/mirrored_data.yaml, on the shared run's data folder."""
    root = tmp_path_factory.mktemp("regenerate")
    config = root / "config.yaml"
    config.write_text(MIRRORED_CONFIG_PATH.read_text() + f"mirror: {mirror_dir}\n")
    targets = [
        "tables",
        "judges",
        "paper_tables",
        "judge_pairs",
        "human_tables",
        "binary_label_table",
        "writer_vs_llm",
    ]
    run_snakemake(pipeline_run.data, root / "results", config, *targets)
    return root / "results"


def unlike_committed(regenerated: Path) -> dict[str, list[str]]:
    """How the tables and figures of the results folder ``regenerated`` differ from the
    committed ones: files regenerated but not committed, committed but not regenerated, and
    committed files whose regeneration differs (bytes; sidecars: anything but the package
    versions). Empty lists when they are the same."""
    committed, produced = result_files(COMMITTED), result_files(regenerated)
    stale = []
    for name in sorted(committed & produced):
        ours, theirs = COMMITTED / name, regenerated / name
        if name.endswith(SIDECAR_SUFFIX):
            changes = differences(
                # "git": only sidecars committed before the run manifest held it
                read_provenance(ours),
                read_provenance(theirs),
                ignore=("git", "packages"),
            )
            if changes:
                stale.append(f"{name}: {changes[:3]}")
        elif ours.read_bytes() != theirs.read_bytes():
            stale.append(name)
    return {
        "regenerated but not committed": sorted(produced - committed),
        "committed but no longer produced": sorted(committed - produced),
        "committed results differ from a regeneration": stale,
    }


def test_the_same_files_are_committed_and_regenerated(regenerated: Path) -> None:
    assert result_files(COMMITTED), "results/ holds no committed tables or figures"
    unlike = unlike_committed(regenerated)
    assert unlike["regenerated but not committed"] == []
    assert unlike["committed but no longer produced"] == []


def test_committed_files_regenerate_bit_for_bit(regenerated: Path) -> None:
    stale = unlike_committed(regenerated)["committed results differ from a regeneration"]
    assert stale == [], (
        "committed results differ from a regeneration; rerun `snakemake --cores 4 "
        f"--configfile workflow/configs/mirrored_data.yaml`: {stale[:10]}"
    )


def test_the_results_page_is_generated_from_results() -> None:
    assert readme_check(["--check"]) == 0
