"""SummEdits' zero-shot Yes/No prompt as a prompt variant (``--prompt-variant yes-no``).

The reply parser on hand-written replies; P(Yes) from hand-written top log-probabilities;
``geval-repro judge --benchmark summedits --prompt-variant yes-no`` end to end against the
fake OpenAI-compatible server (no real API) in every mode, the prompt compared with the
mirror's released file filled by hand and P(Yes) recomputed from the fake's distribution
(its replies are labelled test fixtures, never a judge's answers); the clear errors.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.runner.logprobs import rating_reading
from geval_repro.runner.requests import RequestParams
from geval_repro.runner.run import RunOptions, load_items_table, run_judge
from geval_repro.scoring.parse import read
from tests.fake_openai_server import FakeOpenAIServer, distribution, yes_no_reply
from tests.runner_cli import one_line

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")

PROMPT_FILE = Path(
    "salesforce/factualNLG/0da1dfa62c783218d26208c1796d3a2605bec745/prompts/summedits/"
    "standard_zs_prompt.txt"
)
PROMPT_SHA256 = "ad671d497fa7036045adfa17cdef80e821b9228e3e76fa87c7d9dd598904605d"
YES = {"Yes", " yes"}
NO = {"No", " NO"}

#: Hand-written replies and the answer each must read as (None: unread).
REPLIES = {
    "Yes": 1.0,
    "No": 0.0,
    " yes.": 1.0,
    "NO, the second sentence invents a date.": 0.0,
    "**Yes**": 1.0,
    "Answer: No": 0.0,
    '"Yes" - every statement is supported.': 1.0,
    "<think>Is there a no here? no.</think>\nYes, consistent.": 1.0,
    "There is no evidence for the second sentence, so: No": None,
    "The summary is consistent.": None,
    "Yesterday's meeting is not mentioned.": None,
    "Nope": None,
    "": None,
    "5": None,
}


def test_the_yes_no_parser_reads_the_opening_answer_and_never_guesses() -> None:
    replies = pd.Series(list(REPLIES), dtype=object)
    score, unread = read(replies, "consistency", "yes-no", "summedits")
    expected = [np.nan if v is None else v for v in REPLIES.values()]
    np.testing.assert_array_equal(score.to_numpy(), np.array(expected))
    assert unread.tolist() == [v is None for v in REPLIES.values()]


def _position(token: str, logprob: float, top: dict[str, float]) -> dict:
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in top.items()],
    }


def test_p_yes_sums_spellings_at_the_answer_position_against_a_hand_computed_example() -> None:
    # The reply "**Yes**": tokens "**" then "Yes". At "Yes" the top five: Yes 0.40, " yes"
    # 0.10, "YES" 0.05, "No" 0.25, " no" 0.05; the rest (0.15) is neither.
    # P(Yes) = (0.40 + 0.10 + 0.05) / (0.40 + 0.10 + 0.05 + 0.25 + 0.05) = 0.55 / 0.85.
    top = {"Yes": 0.40, "No": 0.25, " yes": 0.10, "YES": 0.05, " no": 0.05}
    choice = {
        "logprobs": {
            "content": [
                _position("**", math.log(0.9), {"**": 0.9, "Yes": 0.05}),
                _position("Yes", math.log(0.40), top),
                _position("**", math.log(0.99), {"**": 0.99}),
            ]
        }
    }
    reading = rating_reading([choice], (0, 1), {"yes": 1, "no": 0})
    assert reading is not None
    assert reading.weighted_score == pytest.approx(0.55 / 0.85, abs=1e-12)
    assert reading.rating_probs == pytest.approx({"0": 0.30 / 0.85, "1": 0.55 / 0.85})
    assert reading.off_scale_mass == pytest.approx(0.15, abs=1e-12)
    # a reply without an answer token has no P(Yes): None, never 0.5
    other = {"logprobs": {"content": [_position("The", math.log(0.6), {"The": 0.6})]}}
    assert rating_reading([other], (0, 1), {"yes": 1, "no": 0}) is None
    # "Yes," and "Yesterday" are not the answer word: they add to neither answer
    odd = dict(top, **{"Yes,": 0.04, "Yesterday": 0.03})
    odd_choice = {"logprobs": {"content": [_position("Yes", math.log(0.40), odd)]}}
    reading = rating_reading([odd_choice], (0, 1), {"yes": 1, "no": 0})
    assert reading is not None and reading.weighted_score == pytest.approx(0.55 / 0.85)


@pytest.fixture
def server():
    with FakeOpenAIServer(lifetime=120) as fake:
        yield fake


def _options(server, out: Path, mode: str, n: int, **changes) -> RunOptions:
    values = {
        "benchmark": "summedits",
        "dimension": "consistency",
        "params": RequestParams("fake-model", mode, n, 1.0, 1.0, 64, 5),
        "base_urls": (server.base_url,),
        "out": out,
        "limit": 4,
        "concurrency": 1,
        "timeout": 5.0,
        "max_attempts": 3,
        "raw_dir": out.parent / "raw",
        "prompt_variant": "yes-no",
    }
    return RunOptions(**{**values, **changes})


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(
    ("mode", "n"), [("sample", 3), ("logprobs", 1), ("both", 3)], ids=["sample", "logprobs", "both"]
)
def test_summedits_yes_no_prompt_end_to_end(server, tmp_path, mirror_dir, mode, n) -> None:
    out = tmp_path / "run"
    summary = run_judge(_options(server, out, mode, n))
    assert summary["sent"] == 4 and summary["failed"] == 0
    table = load_items_table(get_benchmark("summedits"), tmp_path / "raw", None).iloc[:4]
    released = (mirror_dir / PROMPT_FILE).read_text(encoding="utf-8")
    # the authors' file, each placeholder replaced by the item's text (as their code fills it)
    expected = [
        released.replace("[ARTICLE]", doc).replace("[SUMMARY_SENTENCES]", summ)
        for doc, summ in zip(table["source"], table["summary"], strict=True)
    ]
    assert server.requests == expected
    rows = _records(out / "consistency.jsonl")
    assert [r["item_id"] for r in rows] == table["item_id"].tolist()
    for row, prompt in zip(rows, server.requests, strict=True):
        texts = [yes_no_reply(prompt, i)[1] for i in range(n)]
        assert row["replies"] == texts
        if mode == "sample":
            assert "level_probs" not in row and "weighted_score" not in row
            continue
        # P(Yes) from the fake's distribution: the top 5 of its six tokens, the spellings of
        # each answer summed; only choices whose first token is an answer have a position
        answered = [yes_no_reply(prompt, i)[0] for i in range(n)]
        answered = [t for t in answered if t in YES | NO]
        if not answered:
            assert row["weighted_score"] is None and row["level_probs"] is None
            continue
        top = dict(sorted(distribution(prompt).items(), key=lambda kv: -kv[1])[:5])
        p_yes = sum(p for t, p in top.items() if t in YES)
        p_no = sum(p for t, p in top.items() if t in NO)
        assert row["weighted_score"] == pytest.approx(p_yes / (p_yes + p_no), abs=1e-12)
        assert row["level_probs"] == pytest.approx(
            {"0": p_no / (p_yes + p_no), "1": p_yes / (p_yes + p_no)}
        )
        assert row["off_scale_mass"] == pytest.approx(1 - p_yes - p_no, abs=1e-12)
    manifest = json.loads((out / "manifest.json").read_text())["dimensions"]["consistency"]
    assert manifest["prompt"] == {
        "file": "standard_zs_prompt.txt",
        "origin": "released",
        "sha256": PROMPT_SHA256,
    }
    assert manifest["prompt_variant"] == "yes-no"
    assert manifest["judge_scale"] == [0, 1]
    assert manifest["reply_parsers"] == ["yes-no"]
    assert manifest["answers"] == {"yes": 1, "no": 0}
    assert (manifest["coverage"] is None) == (mode == "sample")
    assert manifest["p_yes"].startswith("none: mode sample" if mode == "sample" else "each item's")


def test_a_server_without_log_probabilities_gives_no_p_yes(tmp_path) -> None:
    # the probe finds it before anything is sent: nothing written, the fix named
    with FakeOpenAIServer(logprobs_supported=False, lifetime=60) as fake:
        with pytest.raises(ValueError, match=r"no log-probabilities.*--mode sample"):
            run_judge(_options(fake, tmp_path / "run", "both", 2))
        assert fake.requests == [] and not (tmp_path / "run" / "consistency.jsonl").exists()


def test_a_run_block_sends_the_judges_prompt_variant(tmp_path) -> None:
    from geval_repro.config import judge_spec
    from geval_repro.runner.configured import run_options

    entry = {
        "benchmark": "summedits",
        "format": "geval-jsonl",
        "label": "a Yes/No judge",
        "dir": str(tmp_path / "run"),
        "prompt_variant": "yes-no",
        "run": {"mode": "both", "model": "m", "n": 2},
    }
    spec = judge_spec("j", entry)
    assert spec.answers and spec.run is not None and spec.run.prompt_variant == "yes-no"
    options = run_options(
        spec.run, "summedits", "consistency", out=tmp_path / "run", cache_dir=None,
        raw_dir=tmp_path / "raw", processed=None, mirror=None,
    )  # fmt: skip
    assert options.prompt_variant == "yes-no"
    assert not judge_spec("j", {k: v for k, v in entry.items() if k != "prompt_variant"}).answers


def test_the_geval_form_stays_the_default(server, tmp_path) -> None:
    out = tmp_path / "run"
    run_judge(_options(server, out, "sample", 1, prompt_variant="geval"))
    assert server.requests[0].endswith("- Consistency:")
    manifest = json.loads((out / "manifest.json").read_text())["dimensions"]["consistency"]
    assert manifest["prompt_variant"] == "geval" and manifest["judge_scale"] == [1, 5]
    assert manifest["reply_parsers"] == ["original", "tolerant"]


def test_an_unknown_variant_is_refused_naming_the_registered_ones(tmp_path, capsys) -> None:
    argv = [
        "judge", "--benchmark", "summedits", "--dimension", "consistency", "--mode", "sample",
        "--model", "m", "--base-url",
        "http://127.0.0.1:9/v1", "--out", str(tmp_path / "out"), "--raw-dir",
        str(tmp_path / "raw"), "--prompt-variant", "yes_no",
    ]  # fmt: skip
    assert main(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert "SummEdits has no prompt variant 'yes_no'" in line
    assert "['geval', 'yes-no']" in line
    # a benchmark without variants names only its G-Eval form
    argv[2] = "qags_cnndm"
    assert main([*argv[:-1], "yes-no"]) == 2
    assert "QAGS-CNN/DM has no prompt variant 'yes-no': use one of ['geval']" in one_line(
        capsys.readouterr().err
    )


def test_a_variant_with_an_own_template_or_a_first_position_reading_is_refused(
    tmp_path,
) -> None:
    server = type("S", (), {"base_url": "http://127.0.0.1:9/v1"})()
    with pytest.raises(ValueError, match="leave out --prompt"):
        _options(server, tmp_path / "o", "sample", 1, prompt_path=tmp_path / "mine.txt")
    with pytest.raises(ValueError, match="answers are words"):
        _options(server, tmp_path / "o", "logprobs", 1, first_position="logit_bias")
