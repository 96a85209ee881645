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
    # Which job is handed the raw config: tests/test_workflow_plain.py (the report pages'
    # job, for its captions); the Settings docstring says so, and names the file.
    doc = " ".join((Settings.__doc__ or "").split())
    assert "snakemake.config" in doc and "workflow/rules/report.smk" in doc
    assert "never the raw config;" in doc  # the rule, with its one exception after it


def test_readme_says_how_much_the_run_fetches() -> None:
    """README's "about N MB": the sizes sources.yaml declares for the upstream files the
    benchmarks and the default config's judges name, read from the YAML here."""
    import yaml

    from geval_repro.config import DEFAULT_CONFIG_PATH
    from geval_repro.registry.benchmarks import BENCHMARKS

    sources = yaml.safe_load((REPO_ROOT / "geval_repro" / "data" / "sources.yaml").read_text())
    by_id = {entry["id"]: entry for entry in sources["sources"]}
    named = {s for b in BENCHMARKS.values() for s in b.sources}
    named |= {s for b in BENCHMARKS.values() for s in b.other_tables.values()}
    named |= {s for b in BENCHMARKS.values() for s in b.prompts.released.values()}
    config = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text())
    for name in config["judges_to_run"]:
        entry = config["judges"][name]
        files = [*entry.get("files", {}).values(), *([entry["file"]] if "file" in entry else [])]
        named |= {f["source"] for f in files if "source" in f}
    megabytes = sum(by_id[s]["bytes"] for s in named) / 1e6
    readme = " ".join((REPO_ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"fetches about {round(megabytes)} MB of upstream files" in readme, megabytes


def test_configuration_lists_every_benchmark() -> None:
    from geval_repro.registry.benchmarks import NAMES

    text = " ".join((DOCS / "configuration.md").read_text(encoding="utf-8").split())
    listed = text.split("`benchmark` (", 1)[1].split(")", 1)[0]
    assert re.findall(r"`(\w+)`", listed) == list(NAMES)


def test_outputs_say_where_the_paths_come_from() -> None:
    """docs/outputs.md says every path comes from pipeline/layout.py: the workflow spells
    none (tests/test_workflow_plain.py) and the layout is where they are made."""
    text = (DOCS / "outputs.md").read_text(encoding="utf-8")
    assert "every path below comes from `geval_repro/pipeline/layout.py`" in text
    snakefile = (REPO_ROOT / "Snakefile").read_text(encoding="utf-8")
    assert "every path comes from LAYOUT (geval_repro.pipeline.layout)" in snakefile


def test_readme_is_short_and_links_the_results_page() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "[results/README.md](results/README.md)" in readme
    assert (REPO_ROOT / "results" / "README.md").is_file()


def test_the_figure_recipe_names_what_a_figure_needs() -> None:
    """docs/extending.md's figure recipe: the Layout method, the modules figures live in
    (every module of report/ that saves one), and no list of the fork server to edit."""
    import ast

    text = " ".join((DOCS / "extending.md").read_text(encoding="utf-8").split())
    recipe = text.split("**A new figure.**", 1)[1].split("**", 1)[0]
    assert "`Layout` method" in recipe and "there is no list to edit" in recipe
    # the rule names its function once, in its params (tests/test_code_digest.py checks
    # every rule of the workflow does), and its run: block passes params.job
    assert '`job=JOBS.job("<module>:<function>")`' in recipe
    assert "`JOBS.run(params.job, ...)`" in recipe
    every_rule = text.split("Every rule's `run:` block is one call,", 1)[1]
    every_rule = every_rule.split("Nothing to add", 1)[0]
    assert "`JOBS.run(params.job, log, input, output, judges=..., **arguments)`" in every_rule
    assert '`job=JOBS.job("<module>:<function>")`' in every_rule
    report = REPO_ROOT / "geval_repro" / "report"
    savers = {
        path.name
        for path in report.glob("*.py")
        if any(
            isinstance(node, ast.Name | ast.Attribute)
            and getattr(node, "id", getattr(node, "attr", "")) == "save_figure"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    }
    assert savers - {"figures.py"}, "the recipe names modules besides figures.py"
    for name in savers - {"figures.py"}:
        assert f"`{name}`" in recipe, name
