"""The judge cards' words, light (no matplotlib): a number as printed, its n beside it
below the full n, the alternative annotator test's verdict, and the leaderboard of every
judge per benchmark (read by the card pages and the results page)."""

from __future__ import annotations

import math

import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.tables.judge_cards import BINARY_COEFFICIENT


def as_float(value: object) -> float | None:
    """A cell of the cards' table as a number (a number read back from CSV in a column that
    also holds reasons is text), None when it is missing or a reason."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def as_bool(value: object) -> bool:
    """A verdict cell (True/False, or their text read back from CSV) as a bool."""
    return str(value).strip().lower() == "true"


def number(value: object, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; a reason (text) as is; a dash when missing."""
    if isinstance(value, str) and as_float(value) is None:
        return value
    value = as_float(value)
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return "–"
    return f"{float(value):.{digits}f}"


def usd_text(value: object) -> str:
    """The cost per 1,000 items in USD as printed: two decimals from 1 USD up, else three
    significant digits (so a cheap model's cost is not printed as 0.00); a reason as is."""
    usd = as_float(value)
    if usd is None:
        return number(value)
    return f"USD {usd:.2f}" if usd >= 1 else f"USD {usd:.3g}"


def replies_text(row: pd.Series) -> str:
    """What sampling buys, in one cell: the fewest fixed replies per item within the full
    run's interval, then the adaptive rule's mean replies used at its standard-error target
    (each a reason where it has none; one reason once when both share it)."""
    fixed = number(row["fewest_replies"], 0)
    adaptive = row.get("adaptive_replies")
    if as_float(adaptive) is None:
        adaptive_cell = number(adaptive)
        if adaptive_cell == fixed:
            return fixed
    else:
        adaptive_cell = f"{float(adaptive):.1f} (SE ≤ {float(row['adaptive_se_target']):g})"
    return f"{fixed}; adaptive: {adaptive_cell}"


def with_n(text: str, n: object, full: object) -> str:
    """``text`` with ``(n = <n>)`` when ``n`` is below the ``full`` n."""
    if pd.isna(n) or pd.isna(full) or int(n) >= int(full):
        return text
    return f"{text} (n = {int(n)})"


def verdict(row: pd.Series) -> str:
    """The alternative annotator test's verdict in one phrase (the reason where it does not
    apply)."""
    omega = as_float(row["alt_omega"])
    if omega is None:
        return str(row["alt_omega"]) if isinstance(row["alt_omega"], str) else "not tested"
    word = "passes" if as_bool(row["alt_passed"]) else "fails"
    text = f"{word} (ω = {omega:.2f}, ε = {float(row['alt_epsilon']):g})"
    if as_bool(row["constant_passed"]):
        text += "; the constant passes too: the test cannot tell judges apart here"
    return text


def binary_board(rows: pd.DataFrame) -> list[str]:
    """The leaderboard lines of a benchmark of binary labels: every run by dimension, its
    balanced accuracy (mean over domains, with n below the full n, and its interval), ROC
    AUC, the best baseline's balanced accuracy and chance; best first."""
    lines = [
        "| judge | dimension | balanced accuracy, mean over domains [95 % CI] | ROC AUC | "
        "best baseline | chance |",
        "|---|---|---|---|---|---|",
    ]
    order = rows.assign(_v=[as_float(v) for v in rows["value"]]).sort_values(
        ["dimension", "_v"], ascending=[True, False], kind="stable"
    )
    for _, row in order.iterrows():
        value = with_n(number(row["value"]), row["n_items"], row["full_n"])
        if as_float(row["ci_low"]) is not None:
            value += f" [{number(row['ci_low'])}, {number(row['ci_high'])}]"
        baseline = (
            f"{row['baseline']}: {number(row['baseline_value_full'])}"
            if isinstance(row["baseline"], str)
            else "–"
        )
        lines.append(
            f"| {row['judge']} | {row['dimension']} | {value} | {number(row['roc_auc'])} | "
            f"{baseline} | 0.5 |"
        )
    return lines


CONSTANT_MARK = (
    "\\* the constant at the median rating passes too on that dimension: the test cannot tell "
    "judges apart there."
)


def leaderboard(cards: pd.DataFrame) -> str:
    """Per benchmark, every judge by dimension: its Spearman correlation (with n below the
    full n), the alt-test verdict and advantage probability rho, and SPA (with its systems and
    documents where they are fewer than the humans' ranking has); best correlation first. A
    verdict where the constant passes too is starred, the star explained. A benchmark of
    binary labels lists its runs by balanced accuracy (:func:`binary_board`)."""
    lines: list[str] = []
    for name, rows in cards.groupby("benchmark", sort=False):
        title = get_benchmark(str(name)).title
        if (rows["coefficient"] == BINARY_COEFFICIENT).all():
            lines += [f"#### {title}", "", *binary_board(rows), ""]
            continue
        lines += [
            f"#### {title}",
            "",
            "| judge | dimension | ρ_s | alt-test | alt-test ρ (constant's) | SPA |",
            "|---|---|---|---|---|---|",
        ]
        order = rows.assign(_v=[as_float(v) for v in rows["value"]]).sort_values(
            ["dimension", "_v"], ascending=[True, False], kind="stable"
        )
        starred = False
        for _, row in order.iterrows():
            corr = with_n(number(row["value"]), row["n_items"], row["full_n"])
            alt = verdict(row).split(";")[0]
            if as_float(row["alt_omega"]) is not None and as_bool(row["constant_passed"]):
                alt += " \\*"
                starred = True
            rho = number(row["alt_rho"])
            if as_float(row["alt_rho"]) is not None:
                rho = with_n(rho, row["alt_n_items"], row["full_n"])
                rho += f" ({number(row['constant_rho'])})"
            spa = number(row["spa"])
            if as_float(row["spa"]) is not None and pd.isna(row["spa_position"]):
                # on fewer systems or documents than the humans' ranking: say on how many
                systems, inputs = int(row["spa_n_systems"]), int(row["spa_n_inputs"])
                spa += f" ({systems} systems, n = {inputs} documents)"
            lines.append(
                f"| {row['judge']} | {row['dimension']} | {corr} | {alt} | {rho} | {spa} |"
            )
        lines += ["", *([CONSTANT_MARK, ""] if starred else [])]
    return "\n".join(lines)
