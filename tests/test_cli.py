"""The ``geval-repro recount`` command against an independent transcription of the released
meta_eval_summeval.py (per-reply regex, per-document scipy loop) on the FIXTURE replies."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from geval_repro.cli import main
from geval_repro.registry.sources import get_source

FIXTURE = Path(__file__).parent / "fixtures" / "judge_fixture" / "gpt4_coh_fixture.json"


def released_script(replies_file: Path, summeval_file: Path) -> dict[str, float]:
    """Summary-level correlations as nlpyang/geval's meta_eval_summeval.py computes them."""
    human = {
        (item["doc_id"], item["system_id"]): item["scores"]["coherence"]
        for item in json.loads(summeval_file.read_text())
    }
    by_doc: dict[str, tuple[list[float], list[float]]] = {}
    for item in json.loads(replies_file.read_text()):
        scores = []
        for reply in item["all_responses"]:
            match = re.search(r"^ ?([\d\.]+)", reply)
            try:
                scores.append(float(match.group(1)) if match else 0.0)
            except ValueError:
                scores.append(0.0)
        pred, gold = by_doc.setdefault(item["doc_id"], ([], []))
        pred.append(sum(scores) / len(scores))
        gold.append(human[item["doc_id"], item["system_id"]])
    result = {}
    for name, function in [
        ("pearson", scipy.stats.pearsonr),
        ("spearman", scipy.stats.spearmanr),
        ("kendall", scipy.stats.kendalltau),
    ]:
        values = [
            function(pred, gold)[0]
            for pred, gold in by_doc.values()
            if len(set(pred)) > 1 and len(set(gold)) > 1
        ]
        result[name] = float(np.mean(values))
    return result


def test_recount_json_equals_the_released_script(
    mirror_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    argv = ["recount", str(FIXTURE), "--dimension", "coherence", "--json"]
    assert main([*argv, "--raw-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = released_script(FIXTURE, mirror_dir / get_source("summeval").relpath)
    for key in ["dimension", "parser", "pearson", "spearman", "kendall", "n_docs"]:
        assert key in out
    assert out["parser"] == "original"
    for coefficient, value in expected.items():
        assert out[coefficient] == pytest.approx(value, abs=1e-12)
    assert out["n_docs"] == 4
    assert 0 <= out["tie_rate"] < 1
    assert out["unparsed"] == sum(
        not _released_reads(reply)
        for item in json.loads(FIXTURE.read_text())
        for reply in item["all_responses"]
    )


def _released_reads(reply: str) -> bool:
    """Whether the released script reads a number from ``reply`` (else it scores 0)."""
    match = re.search(r"^ ?([\d\.]+)", reply)
    if match is None:
        return False
    try:
        float(match.group(1))
    except ValueError:
        return False
    return True


def test_recount_text_and_errors(mirror_dir: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    raw = ["--raw-dir", str(tmp_path)]
    assert (
        main(["recount", str(FIXTURE), "--dimension", "coherence", "--parser", "tolerant", *raw])
        == 0
    )
    text = capsys.readouterr().out
    assert "spearman" in text and "documents kept 4" in text and "left out" in text
    assert main(["recount", str(tmp_path / "missing.json"), "--dimension", "fluency", *raw]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_recount_warns_when_the_file_names_another_dimension(
    mirror_dir: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    """The coherence fixture recounted with --dimension fluency was accepted silently."""
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))
    raw = ["--raw-dir", str(tmp_path / "raw")]
    assert main(["recount", str(FIXTURE), "--dimension", "fluency", *raw]) == 0
    err = capsys.readouterr().err
    assert f"warning: --dimension fluency, but {FIXTURE} names coherence" in err
    assert "give --dimension coherence" in err
    assert main(["recount", str(FIXTURE), "--dimension", "coherence", *raw]) == 0
    assert "warning: --dimension" not in capsys.readouterr().err


def test_named_dimensions_reads_the_file_name_and_the_prompts_criterion(tmp_path: Path) -> None:
    from geval_repro.pipeline.recount import named_dimensions

    dimensions = ("coherence", "consistency", "fluency", "relevance")
    assert named_dimensions(Path("gpt4_con_detailed.json"), [], dimensions) == ["consistency"]
    assert named_dimensions(Path("run-fluency.json"), [], dimensions) == ["fluency"]
    assert named_dimensions(Path("replies.json"), [], dimensions) == []
    prompt = "Evaluation Criteria:\n\nFluency (1-3): the quality of the summary ..."
    assert named_dimensions(Path("replies.json"), [prompt, None], dimensions) == ["fluency"]
    both = named_dimensions(Path("gpt4_coh.json"), [prompt], dimensions)
    assert both == ["coherence", "fluency"]


def test_cli_import_leaves_heavy_modules_unloaded() -> None:
    """``geval-repro --help`` must not pay for pandas & co.: importing the CLI module in a
    fresh interpreter loads none of them (they are imported inside the command handlers)."""
    heavy = ["pandas", "pandera", "pooch", "matplotlib", "numpy", "scipy"]
    code = f"import sys, geval_repro.cli; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    )
    assert done.stdout.strip() == ""


def test_unknown_dimension_or_parser_is_a_clear_error(capsys) -> None:
    assert main(["recount", str(FIXTURE), "--dimension", "coherency"]) == 2
    assert "use one of ('coherence'" in capsys.readouterr().err
    assert main(["recount", str(FIXTURE), "--dimension", "fluency", "--parser", "lax"]) == 2
    assert "--parser 'lax'" in capsys.readouterr().err
