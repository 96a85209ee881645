"""Shared test fixtures.

Tests that read upstream data use the byte-exact offline mirror. It is found through
``GEVAL_REPRO_MIRROR`` or, failing that, ``../shared/mirror`` beside the checkout. A missing
mirror is a test failure, never a silent skip: CI must exercise the real files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The offline mirror directory (fails the test when it is missing)."""
    env = os.environ.get("GEVAL_REPRO_MIRROR")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "mirror"
    if not (path / "MANIFEST.tsv").is_file():
        pytest.fail(
            f"offline mirror not found at {path}: set GEVAL_REPRO_MIRROR to the folder that "
            "holds MANIFEST.tsv (CI uses ../shared/mirror)"
        )
    return path.resolve()
