"""The reference docs say what the code does: every column, status, config file and setting
they describe is the code's, and every one the code has is described."""

from __future__ import annotations

import re

import pytest

from geval_repro.config import Settings
from geval_repro.registry.judges import SCALES
from geval_repro.tables import rows, significance
from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def _line_of(path: str, start: str) -> str:
    """The line of ``docs/<path>`` that starts with ``start``."""
    lines = (DOCS / path).read_text(encoding="utf-8").splitlines()
    (line,) = [line for line in lines if line.startswith(start)]
    return line


@pytest.mark.parametrize(
    ("start", "columns"),
    [
        ("| `results/tables/correlations.csv`", rows.COLUMNS),
        ("| `results/tables/significance_vs_baseline.csv`", significance.COLUMNS),
    ],
)
def test_outputs_name_every_column_of_a_table(start: str, columns: list[str]) -> None:
    spans = re.findall(r"`([^`]+)`", _line_of("outputs.md", start))  # `value, ci_low, ...`
    named = {word for span in spans for word in re.split(r",\s*", span)}
    key = {"benchmark", "dimension", "metric", "variant", "level", "coefficient", "judge"}
    assert set(columns) - key - named == set()


def test_protocol_lists_every_status() -> None:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    table = text.split("## Status of a row", 1)[1].split("##", 1)[0]
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE))
    assert listed == set(rows.STATUSES)


def test_protocol_names_the_minimum_and_the_scales() -> None:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    assert f"fewer than {rows.MIN_BOOTSTRAP_UNITS} units" in text
    assert "MIN_BOOTSTRAP_UNITS" in text
    for scale in SCALES:
        if scale != "raw":
            assert f"scale:\n{scale}" in text or f"scale: {scale}" in text.replace("\n", " ")


def test_configuration_names_every_ready_made_config() -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for config in sorted((REPO_ROOT / "workflow" / "configs").glob("*.yaml")):
        assert f"`{config.name}`" in text, config.name


def test_settings_docstring_names_where_the_raw_config_goes() -> None:
    # Every rule job that is handed the raw config (`, config)` in a run: block) is a
    # report job, for its captions; the Settings docstring says so and names the file.
    passing = {
        path.name
        for path in (REPO_ROOT / "workflow" / "rules").glob("*.smk")
        if re.search(r"\(.*\bconfig\)\s*$", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert passing == {"report.smk"}
    doc = " ".join((Settings.__doc__ or "").split())
    assert "snakemake.config" in doc and "workflow/rules/report.smk" in doc
    assert "never the raw config;" in doc  # the rule, with its one exception after it
