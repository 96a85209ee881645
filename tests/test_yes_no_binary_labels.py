"""A SummEdits run with the Yes/No prompt variant reaches the binary-label table, on a
labelled fixture (the synthetic tidy table of tests/test_binary_label_judges.py, not
SummEdits' data): its geval-jsonl file read with the variant's 0-1 scale, its replies by the
yes-no parser, one row set per score variant (the answers' mean, first and most frequent,
P(Yes), the more likely answer). Known values: ROC AUC from scipy's Mann-Whitney U and by
hand from hand-written replies and probabilities; a run whose manifest records another
variant, and a config naming an unknown one, are refused."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from scipy import stats

from geval_repro.config import ConfigError, check_config, judge_spec, load_config
from geval_repro.load.judge_runs import jsonl_run
from geval_repro.pipeline.binary_tables import judge_label_rows
from geval_repro.pipeline.judge_tables import build_item_scores
from tests.test_binary_label_judges import FIRST, _table

SETTINGS = SimpleNamespace(bootstrap_resamples=50, seed=3)

#: item -> (replies, {"0": p(No), "1": p(Yes)}); a-t5's replies hold no answer, a-t6 is
#: not judged. Labels: a-t0..a-t2 consistent, a-t3..a-t6 not.
RUN = {
    "a-e0": (["No", "No", "No"], {"0": 0.6, "1": 0.2}),
    "a-e1": (["No", "Yes", "No"], {"0": 0.4, "1": 0.4}),
    "a-e2": (["Yes", "Yes", "No"], {"0": 0.2, "1": 0.6}),
    "a-e3": (["Yes", "Yes", "Yes"], {"0": 0.1, "1": 0.8}),
    "a-t0": (["Yes", "Yes", "maybe"], {"0": 0.1, "1": 0.3}),
    "a-t1": (["Yes", "No", "No"], {"0": 0.2, "1": 0.2}),
    "a-t2": (["Yes, fully.", "**Yes**", "No, a date is wrong."], {"0": 0.05, "1": 0.45}),
    "a-t3": (["No", "No", "No"], {"0": 0.6, "1": 0.2}),
    "a-t4": (["yes", "NO", "No"], {"0": 0.3, "1": 0.1}),
    "a-t5": (["The summary is fine.", "", "There is no error."], {"0": 0.1, "1": 0.4}),
}


def _entry(folder: Path, variant: str | None = "yes-no") -> dict:
    entry = {
        "benchmark": "summedits",
        "format": "geval-jsonl",
        "label": "a fixture Yes/No judge",
        "fixture": True,
        "dir": str(folder),
    }
    return entry if variant is None else {**entry, "prompt_variant": variant}


def _processed(tmp_path: Path, variant: str | None = "yes-no") -> tuple:
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    lines = [
        json.dumps({"item_id": item, "replies": replies, "level_probs": probs})
        for item, (replies, probs) in RUN.items()
    ]
    (folder / "consistency.jsonl").write_text("\n".join(lines) + "\n")
    spec = judge_spec("yes-no-judge", _entry(folder, variant))
    table = _table()
    files = {"consistency": folder / "consistency.jsonl"}
    tables = jsonl_run(spec, files, table)
    tables["replies"].to_parquet(tmp_path / "replies.parquet")
    build_item_scores(tmp_path / "replies.parquet", tmp_path / "items.parquet", answers=True)
    processed = {
        "item_scores": pd.read_parquet(tmp_path / "items.parquet"),
        "rating_probs": tables["rating_probs"],
    }
    return spec, processed, table


def test_every_score_variant_reaches_the_binary_label_table(tmp_path: Path) -> None:
    spec, processed, table = _processed(tmp_path)
    parts = judge_label_rows(spec, processed, table, SETTINGS)  # type: ignore[arg-type]
    rows = pd.concat(parts).set_index(["variant", "domain", "statistic"])
    assert list(dict.fromkeys(rows.index.get_level_values("variant"))) == [
        "yes-no answer, mean of 3 replies",
        "yes-no answer, first reply",
        "yes-no answer, most frequent (ties: No)",
        "P(Yes)",
        "more likely answer (Yes where P(Yes) > 0.5)",
    ]
    # the answers' means by hand (unread replies left out; a-t5 has none: unscored)
    positive, negative = [1.0, 1 / 3, 2 / 3], [0.0, 1 / 3]
    mean = rows.loc[("yes-no answer, mean of 3 replies", FIRST, "roc_auc")]
    u = stats.mannwhitneyu(positive, negative).statistic
    assert mean["value"] == pytest.approx(u / 6) and u / 6 == pytest.approx(5.5 / 6)
    assert mean["n_items"] == 5  # a-t5 unscored, a-t6 not judged
    # P(Yes) = p(Yes) / (p(Yes) + p(No)) by hand: 0.75, 0.5, 0.9 vs 0.25, 0.25, 0.8
    p_yes = rows.loc[("P(Yes)", FIRST, "roc_auc")]
    u = stats.mannwhitneyu([0.75, 0.5, 0.9], [0.25, 0.25, 0.8]).statistic
    assert p_yes["value"] == pytest.approx(u / 9) and u / 9 == pytest.approx(7 / 9)
    assert p_yes["n_items"] == 6
    # its threshold is fitted on the evaluation split's P(Yes): 0.25, 0.5, 0.75, 0.8889
    bacc = rows.loc[("P(Yes)", FIRST, "balanced_accuracy")]
    assert bacc["threshold"] == pytest.approx(0.75)  # the first with BAcc 1 there
    first = rows.loc[("yes-no answer, first reply", FIRST, "roc_auc")]
    u = stats.mannwhitneyu([1.0, 1.0, 1.0], [0.0, 1.0]).statistic  # a-t5's first: unread
    assert first["value"] == pytest.approx(u / 6)
    assert set(rows["metric"]) == {"yes-no-judge"} and set(rows["status"]) == {"fixture"}


def test_a_run_of_another_variant_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "manifest.json").write_text(
        json.dumps({"benchmark": "summedits", "dimensions": {"consistency": {}}})
    )
    record = json.loads((folder / "manifest.json").read_text())
    record["dimensions"]["consistency"]["prompt_variant"] = "yes-no"
    (folder / "manifest.json").write_text(json.dumps(record))
    (folder / "consistency.jsonl").write_text(
        json.dumps({"item_id": "a-e0", "replies": ["No"], "level_probs": {"0": 1.0}}) + "\n"
    )
    spec = judge_spec("judge", _entry(folder, None))  # read as the G-Eval form
    with pytest.raises(
        ValueError, match=r"records prompt variant 'yes-no'.*prompt_variant: yes-no"
    ):
        jsonl_run(spec, {"consistency": folder / "consistency.jsonl"}, _table())


def test_the_config_names_an_unknown_variant(tmp_path: Path) -> None:
    config = load_config()
    config["judges"]["j"] = _entry(tmp_path, "yesno")
    with pytest.raises(ConfigError, match=r"no prompt variant 'yesno': use one of \['geval'"):
        check_config(config)


def test_the_config_refuses_a_variant_for_per_item_scores(tmp_path: Path) -> None:
    config = load_config()
    config["judges"]["j"] = {
        "benchmark": "summedits",
        "format": "scores",
        "label": "scores",
        "file": {"path": str(tmp_path / "s.csv")},
        "columns": {"item_id": "item_id", "consistency": "score"},
        "prompt_variant": "yes-no",
    }
    with pytest.raises(ConfigError, match="prompt_variant applies to a geval-jsonl run"):
        check_config(config)


def test_answer_variants_are_told_apart_from_parsers_and_the_mean_is_compared_first() -> None:
    """A Yes/No variant's name holds no "/" (which names a rating variant's parser), so the
    mean of the answers is read as the yes-no parser's mean, and the comparisons (and the
    card, their first) take the mean, first answer, P(Yes) and the more likely answer, not
    the most frequent answer (a robustness check, as the modal rating is)."""
    from geval_repro.tables.judge_rows import ANSWER_VARIANTS, mean_parser
    from geval_repro.tables.paired_tests import compared_variant

    names = [name.format(n=5) for name in ANSWER_VARIANTS.values()]
    assert not any("/" in name for name in names)
    assert mean_parser("yes-no answer, mean of 5 replies") == "yes-no"
    assert mean_parser("mean-of-20/tolerant") == "tolerant"
    assert mean_parser("first-reply/original") is None
    assert mean_parser("yes-no answer, first reply") is None and mean_parser("P(Yes)") is None
    assert [n for n in names if compared_variant(n)] == [
        "yes-no answer, mean of 5 replies",
        "yes-no answer, first reply",
        "P(Yes)",
        "more likely answer (Yes where P(Yes) > 0.5)",
    ]


def test_the_rankings_hold_the_compared_answers_not_the_most_frequent(tmp_path: Path) -> None:
    from geval_repro.pipeline.binary_tables import binary_label_table
    from geval_repro.registry.benchmarks import get_benchmark

    spec, processed, table = _processed(tmp_path)
    table.to_parquet(tmp_path / "summedits.parquet")
    processed["rating_probs"].to_parquet(tmp_path / "probs.parquet")
    baseline = table[["item_id"]].assign(metric="ROUGE-2", variant="vs source document")
    baseline.assign(score=range(len(table))).to_parquet(tmp_path / "baseline.parquet")
    stems = tuple(tmp_path / name for name in ("rows", "rankings", "pairs"))
    binary_label_table(
        {"summedits": get_benchmark("summedits")},
        {"summedits": tmp_path / "summedits.parquet"},
        {"summedits": tmp_path / "baseline.parquet"},
        SETTINGS,  # type: ignore[arg-type]
        stems,  # type: ignore[arg-type]
        specs={"yes-no-judge": spec},
        processed={
            "yes-no-judge": {
                "item_scores": tmp_path / "items.parquet",
                "rating_probs": tmp_path / "probs.parquet",
            }
        },
    )
    rows = pd.read_csv(tmp_path / "rows.csv")
    assert "yes-no answer, most frequent (ties: No)" in set(rows["variant"])  # in the rows
    rankings = pd.read_csv(tmp_path / "rankings.csv")
    ranked = set(rankings.loc[rankings["metric"] == "yes-no-judge", "variant"])
    assert ranked == {
        "yes-no answer, mean of 3 replies",
        "yes-no answer, first reply",
        "P(Yes)",
        "more likely answer (Yes where P(Yes) > 0.5)",
    }
