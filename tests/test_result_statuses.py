"""Every results table gives a judge run the status of its config entry
(:func:`geval_repro.registry.judges.status_of`): a run of the toolkit's own judge runner is
``toolkit-run`` wherever a row rests on it, and a row of two metrics takes the least real of
their statuses (recomputed < toolkit-run < fixture). Checked over every CSV with a status
column under the committed ``results/``, which the mirrored run writes bit for bit
(tests/test_regenerate.py).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geval_repro.config import DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH, judge_specs, load_config

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS = REPO_ROOT / "results"
#: The columns of a results table that name the metric (or judge run) a row rests on.
METRIC_COLUMNS = ("judge", "metric", "metric_a", "metric_b")
ORDER = ("recomputed", "toolkit-run", "fixture")  # least real last


def _run_statuses() -> dict[str, str]:
    config = load_config(DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH)
    return {name: spec.status for name, spec in judge_specs(config).items()}


def test_the_mirrored_run_has_toolkit_runs_to_check() -> None:
    statuses = _run_statuses()
    assert sum(s == "toolkit-run" for s in statuses.values()) == 10, statuses


def test_every_row_resting_on_a_judge_run_carries_its_status() -> None:
    statuses = _run_statuses()
    checked: dict[str, int] = {}
    for path in sorted(RESULTS.rglob("*.csv")):
        table = pd.read_csv(path)
        columns = [c for c in METRIC_COLUMNS if c in table.columns]
        if "status" not in table.columns or not columns:
            continue
        for row in table.itertuples(index=False):
            named = [statuses[m] for c in columns if (m := getattr(row, c)) in statuses]
            if not named:
                continue
            expected = max(named, key=ORDER.index)
            if expected == "recomputed":  # a released run's rows may also say why it differs
                continue
            assert row.status == expected, (path.relative_to(REPO_ROOT), row)
            checked[path.name] = checked.get(path.name, 0) + 1
    # The tables where the drift was: the toolkit's runs are there, all of them checked.
    for name in ("pairwise_significance.csv", "significance_clusters.csv",
                 "significance_vs_baseline.csv", "correlations.csv"):  # fmt: skip
        assert checked.get(name, 0) > 0, (name, checked)
