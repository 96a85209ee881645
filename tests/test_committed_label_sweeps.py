"""The committed sweeps on binary labels (results/tables/judges/<run>/sweep.csv of a SummEdits
run) end where the binary-label table stands: at n = all of a run's replies, the first-n
value of each parser and statistic is the mean over domains that results/tables/
binary_labels.csv gives the run's mean of replies under that parser (two code paths: the
sweep's row functions over many score vectors, the table's one-vector functions with their
bootstrap)."""

from __future__ import annotations

import math

import pandas as pd

from geval_repro.tables.binary_labels import AVERAGE
from geval_repro.tables.judge_rows import mean_parser
from tests.conftest import REPO_ROOT

TABLES = REPO_ROOT / "results" / "tables"


def _label_sweeps() -> dict[str, pd.DataFrame]:
    sweeps = {}
    for path in sorted((TABLES / "judges").glob("*/sweep.csv")):
        sweep = pd.read_csv(path)
        if (sweep["coefficient"] == "roc_auc").any():
            sweeps[path.parent.name] = sweep
    return sweeps


def test_every_committed_label_sweep_ends_at_the_tables_mean_of_replies() -> None:
    sweeps = _label_sweeps()
    assert {"smollm2-135m-summedits", "smollm2-135m-summedits-yes-no"} <= set(sweeps)
    binary = pd.read_csv(TABLES / "binary_labels.csv")
    means = binary[binary["domain"] == AVERAGE]
    checked = 0
    for judge, sweep in sweeps.items():
        mine = means[means["metric"] == judge]
        by_parser = {mean_parser(v): v for v in mine["variant"].unique() if mean_parser(v)}
        last = sweep[(sweep["mode"] == "first") & (sweep["n"] == sweep["n"].max())]
        assert set(last["parser"]) == set(by_parser), judge
        for row in last.itertuples():
            table = mine[
                (mine["variant"] == by_parser[row.parser]) & (mine["statistic"] == row.coefficient)
            ]["value"].item()
            if math.isnan(table):
                assert math.isnan(row.value), (judge, row.parser, row.coefficient)
            else:
                assert row.value == table, (judge, row.parser, row.coefficient)
                checked += 1
    assert checked >= 6  # both statistics of 3 parsers' means at least have a value
