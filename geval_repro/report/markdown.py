"""Markdown display of result tables: values with their interval, printed values flagged.

Display only: every number shown here was computed in :mod:`geval_repro.tables`. A cell
reads ``value [low, high]``; a printed value outside our interval beyond its rounding
(:func:`outside_ci`) gets a dagger and the table a legend line.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from geval_repro.tables.rows import CONFIDENCE, ROUNDING_TOLERANCE

_DECIMALS = {
    "paper_value": ".3f",
    "tie_rate": ".3f",
    "human_tie_rate": ".3f",
    "epsilon": ".4g",
    "delta": "+.4f",
}
OUTSIDE_CI = "†"
OUTSIDE_CI_LEGEND = (
    f"{OUTSIDE_CI} the printed value lies outside our {CONFIDENCE:.0%} CI: no number that "
    "rounds to it (printed value ± 0.0005) falls in the interval."
)


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def outside_ci(printed: object, low: object, high: object) -> bool:
    """Whether the printed value lies outside ``[low, high]`` beyond its rounding.

    True when every number that rounds to ``printed`` (``printed ± 0.0005``) is outside the
    interval; False when any of the three is missing.
    """
    if any(_missing(v) for v in (printed, low, high)):
        return False
    return float(printed) + ROUNDING_TOLERANCE < float(low) or float(
        printed
    ) - ROUNDING_TOLERANCE > float(high)


def _cell(column: str, value: object) -> str:
    if _missing(value):
        return ""
    if column in ("n_items", "n_groups"):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return format(float(value), _DECIMALS.get(column, ".4f"))
    return str(value).replace("|", "\\|").replace("\n", " ")


def with_ci(value: object, low: object, high: object, decimals: int = 4) -> str:
    """``value [low, high]`` ("0.5120 [0.470, 0.553]"; the interval to 3 decimals), or the
    value alone when there is no interval, or "" when there is no value; a value that is
    text (a reason there is no number, e.g. a dimension the judge does not score) as it is."""
    if _missing(value):
        return ""
    if isinstance(value, str):
        return _cell("value", value)
    text = f"{float(value):.{decimals}f}"
    if not (_missing(low) or _missing(high)):
        text += f" [{float(low):.3f}, {float(high):.3f}]"
    return text


def to_markdown(df: pd.DataFrame) -> str:
    """A Markdown table of ``df`` (values to 4 decimals, printed values and tie rates to 3).

    A table with ``value``, ``ci_low`` and ``ci_high`` shows the interval beside the value
    in one ``value [95 % CI]`` column; with a ``paper_value`` too, a printed value outside
    the interval (:func:`outside_ci`) gets a ``†`` and the table a legend line under it.
    """
    has_ci = {"value", "ci_low", "ci_high"} <= set(df.columns)
    columns = [c for c in df.columns if not (has_ci and c in ("ci_low", "ci_high"))]
    header = [f"value [{CONFIDENCE:.0%} CI]" if has_ci and c == "value" else c for c in columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    flagged = False
    for row in df.to_dict(orient="records"):
        cells = []
        for column in columns:
            if has_ci and column == "value":
                cells.append(with_ci(row["value"], row["ci_low"], row["ci_high"]))
                continue
            cell = _cell(column, row[column])
            if (
                has_ci
                and column == "paper_value"
                and outside_ci(row["paper_value"], row["ci_low"], row["ci_high"])
            ):
                cell += f" {OUTSIDE_CI}"
                flagged = True
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    if flagged:
        lines += ["", OUTSIDE_CI_LEGEND]
    return "\n".join(lines) + "\n"
