"""The committed results/ regenerate bit for bit from the offline mirror.

The tables and figures under results/ (everything the mirror can produce: Topical-Chat,
QAGS, UniEval rows, baselines, human data, MetricEval's G-Eval re-runs) are committed with
provenance sidecars. This test reruns the pipeline with workflow/configs/mirrored_data.yaml
into a temporary folder and compares: every committed file must be regenerated with
identical bytes (sidecars: identical apart from the git commit and package versions), no
regenerated table or figure may be missing from the commit, and README.md's results section
must be the one generated from results/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geval_repro.provenance import SIDECAR_SUFFIX, differences, read_provenance
from geval_repro.readme_results import main as readme_check
from tests.conftest import REPO_ROOT, run_snakemake

COMMITTED = REPO_ROOT / "results"
COMMITTED_FOLDERS = ("tables", "figures")
MIRRORED_CONFIG = REPO_ROOT / "workflow" / "configs" / "mirrored_data.yaml"


def _files(root: Path) -> set[str]:
    return {
        str(path.relative_to(root))
        for folder in COMMITTED_FOLDERS
        for path in (root / folder).rglob("*")
        if path.is_file()
    }


@pytest.fixture(scope="module")
def regenerated(mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("regenerate")
    config = root / "config.yaml"
    config.write_text(MIRRORED_CONFIG.read_text() + f"mirror: {mirror_dir}\n")
    targets = [
        "tables",
        "judges",
        "correlations",
        "paper_layout",
        "reproduction_figure",
        "human_tables",
    ]
    run_snakemake(root / "data", root / "results", config, *targets)
    return root / "results"


def test_the_same_files_are_committed_and_regenerated(regenerated: Path) -> None:
    committed, produced = _files(COMMITTED), _files(regenerated)
    assert committed, "results/ holds no committed tables or figures"
    assert sorted(produced - committed) == [], "regenerated but not committed"
    assert sorted(committed - produced) == [], "committed but no longer produced"


def test_committed_files_regenerate_bit_for_bit(regenerated: Path) -> None:
    stale = []
    for name in sorted(_files(COMMITTED)):
        ours, theirs = COMMITTED / name, regenerated / name
        if name.endswith(SIDECAR_SUFFIX):
            changes = differences(
                read_provenance(ours), read_provenance(theirs), ignore=("git", "packages")
            )
            if changes:
                stale.append(f"{name}: {changes[:3]}")
        elif ours.read_bytes() != theirs.read_bytes():
            stale.append(name)
    assert stale == [], (
        "committed results differ from a regeneration; rerun `snakemake --cores 4 "
        f"--configfile workflow/configs/mirrored_data.yaml`: {stale[:10]}"
    )


def test_readme_results_section_is_generated_from_results() -> None:
    assert readme_check(["--check"]) == 0
