"""A run never silently replaces results made under another configuration
(geval_repro.pipeline.results_guard): the follow-up command a newcomer typed without the
options of the run before it is refused in one line that names the difference and the
command they meant."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from geval_repro.config import DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH, load_config
from geval_repro.pipeline.results_guard import (
    CommandLine,
    OtherConfiguration,
    check_results_configuration,
    configuration_change,
    matching_config_file,
)
from geval_repro.report.provenance import analysis_config, write_run_manifest

MIRROR = Path("/data/my mirror")


def _made_with(results: Path, *overlays: Path, mirror: Path | None = MIRROR) -> dict:
    config = load_config(DEFAULT_CONFIG_PATH, *overlays)
    write_run_manifest(results / "run_manifest.json", config, mirror)
    return config


def test_the_newcomers_follow_up_command_is_refused_naming_what_they_meant(tmp_path: Path):
    """The README's mirrored run, then `snakemake readme` typed without its options: the
    default configuration would leave out the SmolLM2 judges (and add the released replies,
    which is no reason to refuse)."""
    _made_with(tmp_path, MIRRORED_CONFIG_PATH)
    with pytest.raises(OtherConfiguration) as refused:
        check_results_configuration(
            load_config(DEFAULT_CONFIG_PATH), tmp_path, ["/venv/bin/snakemake", "readme"]
        )
    line = str(refused.value)
    assert "\n" not in line and line.startswith("geval-repro: nothing was run: ")
    left_out = ", ".join(
        f"smollm2-135m-{name}"
        for name in (
            "dialsummeval",
            "qags-cnndm",
            "qags-xsum",
            "sfhot",
            "sfres",
            "summedits",
            "summedits-yes-no",
            "summeval",
            "topical-chat",
            "writer-vs-llm",
        )
    )
    assert f"without the judges {left_out}" in line
    meant = (
        "to go on with them: snakemake readme --configfile workflow/configs/mirrored_data.yaml "
        f"--config {shlex.quote(f'mirror={MIRROR}')};"
    )
    assert meant in line
    assert "a folder of their own: snakemake readme --config results_dir=results-other;" in line
    assert f"remove {tmp_path / 'run_manifest.json'} to replace them" in line


def test_the_same_configuration_adding_or_redefining_a_judge_goes_on(tmp_path: Path) -> None:
    config = _made_with(tmp_path, MIRRORED_CONFIG_PATH)
    check_results_configuration(config, tmp_path, ["snakemake"])  # the same: goes on
    more = {**config, "judges_to_run": [*config["judges_to_run"], "gpt4-released"]}
    check_results_configuration(more, tmp_path, ["snakemake"])  # one more judge
    judges = dict(config["judges"])
    judges["smollm2-135m-summeval"] = {**judges["smollm2-135m-summeval"], "label": "edited"}
    check_results_configuration({**config, "judges": judges}, tmp_path, ["snakemake"])


def test_a_changed_setting_is_refused_and_a_folder_of_its_own_offered(tmp_path: Path) -> None:
    config = _made_with(tmp_path, MIRRORED_CONFIG_PATH)
    argv = ["snakemake", "--cores", "4", "--configfile", str(MIRRORED_CONFIG_PATH), "--config",
            "mirror=/m", "seed=7", "results_dir=out"]  # fmt: skip
    with pytest.raises(OtherConfiguration) as refused:
        check_results_configuration({**config, "seed": 7, "results_dir": "out"}, tmp_path, argv)
    line = str(refused.value)
    assert "with seed 7 instead of 20231206" in line and "without the judges" not in line
    apart = (
        f"snakemake --cores 4 --configfile {MIRRORED_CONFIG_PATH} --config mirror=/m seed=7 "
        "results_dir=out-other"
    )
    assert apart in line
    same = (
        "snakemake --cores 4 --configfile workflow/configs/mirrored_data.yaml --config "
        f"results_dir=out {shlex.quote(f'mirror={MIRROR}')}"
    )
    assert same in line


def test_results_of_a_configuration_no_config_file_gives_point_at_their_manifest(
    tmp_path: Path,
) -> None:
    config = load_config(DEFAULT_CONFIG_PATH)
    write_run_manifest(tmp_path / "run_manifest.json", {**config, "seed": 1})
    with pytest.raises(OtherConfiguration, match=r"their configuration is in .*run_manifest"):
        check_results_configuration(config, tmp_path, ["snakemake"])


def test_no_manifest_goes_on_and_a_damaged_one_is_named(tmp_path: Path) -> None:
    config = load_config(DEFAULT_CONFIG_PATH)
    check_results_configuration(config, tmp_path, ["snakemake"])
    (tmp_path / "run_manifest.json").write_text("{not json")
    with pytest.raises(OtherConfiguration, match=r"run_manifest.json cannot be read"):
        check_results_configuration(config, tmp_path, ["snakemake"])


def test_configuration_change_names_left_out_judges_and_settings_only() -> None:
    made = {"seed": 1, "judges": {"a": {}, "b": {}}, "sweep": {"draws": 200}}
    assert configuration_change(made, {**made, "judges": {"a": {}, "b": {"x": 1}, "c": {}}}) == []
    assert configuration_change(
        made, {"seed": 2, "judges": {"a": {}}, "sweep": {"draws": 200}}
    ) == [
        "without the judges b",
        "with seed 2 instead of 1",
    ]
    assert configuration_change({"judges": {}}, {"judges": {}, "new": True}) == [
        "with new true instead of null"
    ]


def test_the_config_file_of_a_configuration_is_found() -> None:
    for overlays, expected in (
        ((), DEFAULT_CONFIG_PATH),
        ((MIRRORED_CONFIG_PATH,), MIRRORED_CONFIG_PATH),
    ):
        config = load_config(DEFAULT_CONFIG_PATH, *overlays)
        made = analysis_config(config, config["judges_to_run"])
        assert matching_config_file(made) == expected
    assert matching_config_file({"seed": -1}) is None


@pytest.mark.parametrize(
    ("argv", "words", "files", "settings"),
    [
        (["sm", "readme"], ("readme",), (), ()),
        (
            ["sm", "readme", "--cores", "4", "--configfile", "a.yaml", "b.yaml", "--config",
             "mirror=/m", "seed=1", "--", "t"],
            ("readme", "--cores", "4", "--", "t"), ("a.yaml", "b.yaml"), ("mirror=/m", "seed=1"),
        ),
        (["sm", "--config=mirror=/m", "readme"], ("readme",), (), ("mirror=/m",)),
        (["sm", "--configfiles", "a.yaml", "-n"], ("-n",), ("a.yaml",), ()),
        (["sm", "-C", "x=1", "--dry-run"], ("--dry-run",), (), ("x=1",)),
    ],
)  # fmt: skip
def test_a_command_line_is_taken_apart_as_snakemake_reads_it(argv, words, files, settings):
    assert CommandLine.parse(argv) == CommandLine(words, files, settings)


def test_the_run_manifest_records_the_mirror(tmp_path: Path) -> None:
    config = load_config(DEFAULT_CONFIG_PATH)
    write_run_manifest(tmp_path / "m.json", config, MIRROR)
    assert json.loads((tmp_path / "m.json").read_text())["mirror"] == str(MIRROR)
    write_run_manifest(tmp_path / "n.json", config)
    assert json.loads((tmp_path / "n.json").read_text())["mirror"] is None
