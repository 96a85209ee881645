"""The checkout this package runs from: its git commit and whether it differs from it.

``git_state`` is what the run manifest (:mod:`geval_repro.report.provenance`) and a judge
run's manifest (:mod:`geval_repro.runner.run`) record: ``git rev-parse HEAD`` and ``dirty``,
whether tracked files other than generated ones (:data:`GENERATED_PATHSPECS`: results,
processed data, executed notebooks, the README's generated section) differ from it. Both
are ``None`` unless the package's folder is a checkout's root (an installed wheel, even one
in a virtual environment inside a checkout, was not necessarily built from that checkout's
commit). Imports only the standard library and the registry's repository root, so the judge
runner can call it without Snakemake.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from geval_repro.registry.sources import REPO_ROOT

#: What a run generates in the checkout: a change there does not make the checkout dirty.
GENERATED_PATHSPECS: tuple[str, ...] = (
    ":(exclude)results",
    ":(exclude)data/raw",
    ":(exclude)data/processed",
    ":(exclude)notebooks/*.ipynb",
    ":(exclude)README.md",
)


def git_state(repo: Path = REPO_ROOT) -> dict[str, Any]:
    """``{"commit": HEAD, "dirty": bool}`` of the checkout whose root is ``repo``; both
    ``None`` when ``repo`` is not the root of one (an installed wheel, even in a virtual
    environment inside some checkout, whose commit would not be the package's)."""
    if not (Path(repo) / ".git").exists():  # a folder, or a file in a git worktree
        return {"commit": None, "dirty": None}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
        ).stdout

    try:
        commit = git("rev-parse", "HEAD").strip()
        changed = git(
            "status", "--porcelain", "--untracked-files=no", "--", ".", *GENERATED_PATHSPECS
        )
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(changed.strip())}
