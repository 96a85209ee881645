"""The judge card's cost line reads the replies-per-item sweep's adaptive rows (issue 49
item 3, issue 48 item 4): the fewest fixed replies per item within the full run's interval,
and the adaptive rule's mean replies used at the standard-error target with the fewest
replies whose correlation is within it (the released order's rows, the card's parser);
where a run has no such rows the cell says why. Labelled fixture rows, values by hand."""

from __future__ import annotations

import pandas as pd

from geval_repro.report.card_text import replies_text
from geval_repro.tables.judge_cards import adaptive_replies, fewest_replies

ROW = {"ci_low": 0.2, "ci_high": 0.4}
VARIANT = "mean-of-20/original"


def _sweep() -> pd.DataFrame:
    rows = [("first", "original", n, None, None, v) for n, v in ((1, 0.1), (2, 0.19), (3, 0.22))]
    rows += [
        # the released order: 4.0 replies are outside [0.2, 0.4], 5.5 the fewest inside
        ("adaptive_first", "original", 20, 0.6, 4.0, 0.15),
        ("adaptive_first", "original", 20, 0.3, 9.0, 0.31),
        ("adaptive_first", "original", 20, 0.5, 5.5, 0.25),
        # another order and another parser: not the card's
        ("adaptive", "original", 20, 0.6, 4.1, 0.30),
        ("adaptive_first", "tolerant", 20, 0.6, 3.5, 0.30),
    ]
    return pd.DataFrame(
        [
            {
                "judge": "j",
                "dimension": "coherence",
                "parser": parser,
                "mode": mode,
                "n": n,
                "coefficient": "spearman",
                "value": value,
                "se_target": target,
                "replies_used": used,
            }
            for mode, parser, n, target, used, value in rows
        ]
    )


def test_the_adaptive_target_with_the_fewest_replies_within_the_interval():
    sweep = _sweep()
    assert fewest_replies(sweep, "j", VARIANT, "coherence", ROW) == 3
    cells = adaptive_replies(sweep, "j", VARIANT, "coherence", ROW)
    assert cells == {"adaptive_replies": 5.5, "adaptive_se_target": 0.5}
    text = replies_text(pd.Series({"fewest_replies": 3, **cells}))
    assert text == "3; adaptive: 5.5 (SE ≤ 0.5)"


def test_a_run_without_adaptive_rows_or_sweep_says_why():
    sweep = _sweep()
    fixed_only = sweep[sweep["mode"] == "first"]
    cell = adaptive_replies(fixed_only, "j", VARIANT, "coherence", ROW)["adaptive_replies"]
    assert cell.startswith("n/a: no adaptive rows")
    none = adaptive_replies(sweep, "other", VARIANT, "coherence", ROW)["adaptive_replies"]
    assert none.startswith("n/a: no replies-per-item sweep of this run")
    assert fewest_replies(sweep, "other", VARIANT, "coherence", ROW) == none
    text = replies_text(pd.Series({"fewest_replies": none, "adaptive_replies": none}))
    assert text == none  # one reason, said once
    not_mean = adaptive_replies(sweep, "j", "weighted/eq1", "coherence", ROW)
    assert not_mean == {"adaptive_replies": "n/a: not a mean of replies"}
    outside = sweep.assign(value=0.9)
    cell = adaptive_replies(outside, "j", VARIANT, "coherence", ROW)["adaptive_replies"]
    assert cell == "n/a: no standard-error target (0.6 to 0.3) within the interval"
