"""The workflow is plain Snakemake: its files import geval_repro.config and
geval_repro.pipeline only (and Snakemake's documented min_version), take every path from
LAYOUT and every list from TARGETS (no path spelled inline), and the package uses no part
of Snakemake (no internals to patch: a job runs in a process of its own,
geval_repro.pipeline.jobs)."""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO_ROOT

WORKFLOW = [REPO_ROOT / "Snakefile", *sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk"))]
ALLOWED = ("geval_repro.config", "geval_repro.pipeline", "snakemake.utils")
#: A file name spelled in a rule instead of taken from LAYOUT.
SPELLED_FILE = re.compile(r"[\"'][^\"']*\.(csv|md|parquet|png|svg|log|ipynb|json)\b[^\"']*[\"']")


def test_the_workflow_imports_the_config_and_the_pipeline_only() -> None:
    for path in WORKFLOW:
        for line in path.read_text(encoding="utf-8").splitlines():
            found = re.match(r"\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", line)
            if found:
                module = found.group(1) or found.group(2)
                assert module.startswith(ALLOWED), f"{path.name}: imports {module}"


def test_the_workflow_spells_no_path() -> None:
    for path in WORKFLOW:
        code = path.read_text(encoding="utf-8").split('"""', 2)[-1]  # after the docstring
        for line in code.splitlines():
            if line.strip().startswith("#") or 'report: "' in line:
                continue
            assert not re.search(r"LAYOUT\.\w+(\(\))? /", line), f"{path.name}: {line.strip()}"
            assert not SPELLED_FILE.search(line), f"{path.name}: {line.strip()}"


def test_no_module_of_the_package_imports_snakemake() -> None:
    for path in sorted((REPO_ROOT / "geval_repro").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "snakemake" for n in names), path


def test_the_raw_config_reaches_the_report_pages_job_alone() -> None:
    """``config`` in any argument of a rule's job, positional or by keyword, is a report
    pages job's (its captions read it as Snakemake's report does); every other job receives
    the typed Settings and specs."""
    passing = []
    for path in WORKFLOW[1:]:
        for block in re.split(r"\n(?=    rule|rule)", path.read_text(encoding="utf-8")):
            run = block.split("run:\n", 1)[1] if "run:\n" in block else ""
            if re.search(r"\bconfig\b", run):
                named = re.search(r"name:\s*\n\s*(.+)", block)
                rule = named.group(1) if named else re.search(r"rule\s*(\w*):", block).group(1)
                passing.append((path.name, rule))
    assert passing == [("report.smk", 'f"report_pages_{_group}"')]
