"""The results page, generated from a results folder (never typed by hand): ``snakemake
readme`` writes ``results/README.md`` (:data:`PAGE_NAME`), which README.md links.

:func:`render_section` reads what the pipeline wrote under ``results/`` and returns the
Markdown of the page under its head (:data:`PAGE_HEAD`, :func:`render_page`):

1. what is recomputed: per benchmark, the rows of ``tables/correlations.csv`` by status
   (``recomputed`` = computed here from the pinned files; ``paper-only``,
   ``not-recomputable``, ``not-released`` = a number printed in the paper that this toolkit
   cannot recompute). ``fixture`` rows (synthetic test data) are never shown; when a folder
   holds any, the section opens with a warning saying so;
2. the recount of the released G-Eval-4 replies: its main and one-reply correlations (the
   coefficients Table 1 prints, with 95 % CIs, paper values and deltas) and its sweep figure
   when the run ``gpt4-released`` is in the folder, otherwise a plain statement that the
   first command produces it on a networked machine; in both cases the SHA-256 of the four
   reply files it rests on, read from ``geval_repro/data/sources.yaml``;
3. the other judge runs in the folder (fixtures left out), with their labels and links;
4. the paper-layout tables (``table1_summeval.md``, ``table2_topical_chat.md``,
   ``table3_qags.md``) as written by the pipeline; a table built with fixture rows is
   replaced by a note;
5. the judge cards: the leaderboard of every judge per benchmark (``tables/judge_cards.csv``:
   Spearman, the alternative annotator test's verdict and rho beside the constant's, soft
   pairwise accuracy) and links to each card;
6. what the paper does not print: pairwise accuracy, judge vs judge, and SummEval's system
   level beside SummEval's own Table 2 (the rows of ``correlations.csv`` whose ``paper``
   is SummEval's, with why they differ) and its Table 3 checked against the pinned expert
   ratings (``tables/human/summeval_system_means.csv``);
7. links to the human-data tables and figure;
8. for each benchmark of pairwise human preferences (writer vs GPT-3.5): the paper's
   sentence, each metric's group means of the overall question (a judge run's mean over
   its dimensions ``AVG``, length in words; fixtures left out), links to its three tables
   and its figure.

The text depends on the folder's contents only (no dates), so regenerating it from the same
results gives the same bytes. The command line (``python -m geval_repro.report.readme
--check``) fails when the committed page is stale.
"""

from __future__ import annotations

import argparse
import logging
import os
import posixpath
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from geval_repro.files.atomic import write_text
from geval_repro.human.agreement import TWINS
from geval_repro.registry import outputs, summeval_paper
from geval_repro.registry.benchmarks import (
    BENCHMARKS,
    LABELLED_BENCHMARKS,
    LAID_OUT_BENCHMARKS,
    PAPER_TABLES,
    PREFERENCE_BENCHMARKS,
    PRINTED_NAMES,
    dimensions_of,
    printed_coefficients,
    protocol_variant_of,
    released_benchmark,
    table_benchmarks,
    table_title,
    title_of,
)
from geval_repro.registry.outputs import WRITER_VS_LLM_FIGURE, WRITER_VS_LLM_TABLES
from geval_repro.registry.sources import REPO_ROOT, get_source
from geval_repro.report.card_text import leaderboard
from geval_repro.tables.binary_labels import AVERAGE as BINARY_AVERAGE

log = logging.getLogger(__name__)
#: The results page's file name in its results folder (README.md links the committed one).
PAGE_NAME = "README.md"

RELEASED_JUDGE = "gpt4-released"
REPLY_SOURCES: tuple[str, ...] = (
    "geval4_replies_coh",
    "geval4_replies_con",
    "geval4_replies_flu",
    "geval4_replies_rel",
)
SHOWN_STATUSES: tuple[str, ...] = (
    "recomputed",
    "toolkit-run",
    "paper-only",
    "not-recomputable",
    "not-released",
)
FIXTURE = "fixture"
TOOLKIT_RUN = "toolkit-run"  # a column of the status table only when the folder has such rows
JUDGE_TABLES: tuple[tuple[str, str], ...] = (
    ("main", "Mean of the replies per item, released parser (the paper's G-Eval-4 row)"),
    ("one_reply", "One reply per item (the paper's G-Eval-4 -Probs row)"),
)
COMPACT_COLUMNS: tuple[str, ...] = (
    "dimension",
    "variant",
    "coefficient",
    "value",
    "ci_low",
    "ci_high",
    "n_items",
    "n_groups",
    "paper_value",
    "delta",
)
CORRELATIONS = Path("tables") / "correlations.csv"


def read_correlations(results_dir: Path) -> pd.DataFrame:
    """``tables/correlations.csv`` of a results folder; missing columns are an error."""
    path = results_dir / CORRELATIONS
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no correlation table; run the pipeline first")
    table = pd.read_csv(path)
    missing = {"benchmark", "status"} - set(table.columns)
    if missing:
        raise ValueError(f"{path}: lacks columns {sorted(missing)}")
    return table


def judge_status(results_dir: Path, judge: str) -> str | None:
    """``"fixture"`` when every row of the judge's correlation table is a fixture row,
    ``"real"`` when none is, ``None`` when the run is not in the folder."""
    path = results_dir / "tables" / "judges" / judge / "correlations.csv"
    if not path.is_file():
        return None
    statuses = set(pd.read_csv(path, usecols=["status"])["status"])
    if statuses == {FIXTURE}:
        return FIXTURE
    if FIXTURE in statuses:
        raise ValueError(f"{path}: mixes fixture rows with real ones; one run is one or the other")
    return "real"


def judges_in(results_dir: Path) -> list[str]:
    """Names of the judge runs with tables in the folder, sorted."""
    root = results_dir / "tables" / "judges"
    return sorted(p.parent.name for p in root.glob("*/correlations.csv")) if root.is_dir() else []


def _markdown_table(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(map(str, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def status_counts(correlations: pd.DataFrame) -> pd.DataFrame:
    """Rows per benchmark (in the registry's order, averages last) and shown status, fixtures
    left out; benchmarks by title."""
    shown = correlations[correlations["status"] != FIXTURE]
    unknown = set(shown["status"]) - set(SHOWN_STATUSES)
    if unknown:
        raise ValueError(f"correlations.csv has unknown status(es) {sorted(unknown)}")
    counts = pd.crosstab(shown["benchmark"], shown["status"])
    order = [b for b in PRINTED_NAMES if b in counts.index] + sorted(
        set(counts.index) - set(PRINTED_NAMES)
    )
    columns = [s for s in SHOWN_STATUSES if s != TOOLKIT_RUN or s in set(shown["status"])]
    counts = counts.reindex(index=order, columns=columns, fill_value=0)
    counts.index = [title_of(b) if b in PRINTED_NAMES else b for b in counts.index]
    return counts.rename_axis("benchmark").reset_index()


def _number(value: float, signed: bool = False) -> str:
    if pd.isna(value):
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _n(items: object, groups: object) -> str:
    """ "1600 in 100 docs" (with documents) or "300": what a row rests on."""
    if pd.isna(items):
        return "–"
    if pd.isna(groups):
        return f"{int(items)}"
    return f"{int(items)} in {int(groups)} doc" + ("" if int(groups) == 1 else "s")


def compact_rows(table: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """The coefficients the paper prints for ``benchmark``, with our value, 95 % CI, the
    items (and documents) it rests on, paper value and delta."""
    printed = printed_coefficients(benchmark)
    rows = table[table["coefficient"].isin(printed)].loc[:, list(COMPACT_COLUMNS)]
    return pd.DataFrame(
        {
            "dimension": rows["dimension"],
            "variant": rows["variant"],
            "coefficient": rows["coefficient"],
            "ours": rows["value"].map(_number),
            "95 % CI": [
                f"{_number(low)} to {_number(high)}" if pd.notna(low) else "–"
                for low, high in zip(rows["ci_low"], rows["ci_high"], strict=True)
            ],
            "n": [_n(i, g) for i, g in zip(rows["n_items"], rows["n_groups"], strict=True)],
            "paper": rows["paper_value"].map(_number),
            "delta": rows["delta"].map(lambda v: _number(v, signed=True)),
        }
    )


def _checksums() -> str:
    rows = [
        {
            "file": f"`{get_source(i).path}`",
            "sha256": f"`{get_source(i).sha256}`",
        }
        for i in REPLY_SOURCES
    ]
    commit = get_source(REPLY_SOURCES[0]).commit
    return (
        f"It rests on these four files of nlpyang/geval at commit `{commit}` "
        "(SHA-256 from `geval_repro/data/sources.yaml`, verified after every download):\n\n"
        + _markdown_table(pd.DataFrame(rows))
    )


def _released_recount(results_dir: Path, link: str) -> list[str]:
    status = judge_status(results_dir, RELEASED_JUDGE)
    lines = ["### SummEval: recount of the released G-Eval-4 replies", ""]
    if status is None:
        lines += [
            "**Not in this results folder.** The released replies are not part of the offline "
            "mirror, so this recount is produced by the first command, `snakemake --cores 4`, "
            "on a machine that can reach GitHub; it writes "
            f"`{link}/tables/judges/{RELEASED_JUDGE}/`. Until then, no number in this section "
            "comes from the released replies.",
            "",
        ]
    elif status == FIXTURE:
        raise ValueError(f"judge run {RELEASED_JUDGE!r} in {results_dir} is made of fixture rows")
    else:
        base = f"{link}/tables/judges/{RELEASED_JUDGE}"
        for name, title in JUDGE_TABLES:
            path = results_dir / "tables" / "judges" / RELEASED_JUDGE / f"{name}.csv"
            if path.is_file():
                lines += [
                    f"#### {title}",
                    "",
                    _markdown_table(compact_rows(pd.read_csv(path), released_benchmark().name)),
                    "",
                    f"All columns and notes: [`{base}/{name}.md`]({base}/{name}.md); parser "
                    f"diagnostics: [`{base}/diagnostics.md`]({base}/diagnostics.md).",
                    "",
                ]
        figure = f"figures/judges/{RELEASED_JUDGE}/sweep_spearman.png"
        if (results_dir / figure).is_file():
            lines += [f"![Spearman rho vs replies per item]({link}/{figure})", ""]
    return [*lines, _checksums(), ""]


def _other_judges(results_dir: Path, link: str, labels: Mapping[str, str]) -> list[str]:
    others = [
        j
        for j in judges_in(results_dir)
        if j != RELEASED_JUDGE and judge_status(results_dir, j) != FIXTURE
    ]
    if not others:
        return []
    lines = ["### Other judge runs in this folder", ""]
    by_label: dict[str, list[str]] = {}
    for judge in others:
        by_label.setdefault(labels.get(judge, ""), []).append(judge)
    for label, judges in by_label.items():
        paths = {j: f"{link}/tables/judges/{j}/correlations.md" for j in judges}
        if len(judges) == 1:  # one run: its name, label and table
            (judge,) = judges
            shown = f" ({label})" if label else ""
            lines.append(f"- `{judge}`{shown}: [`{paths[judge]}`]({paths[judge]})")
        else:  # runs sharing a label (one model on several benchmarks): one line
            runs = ", ".join(f"[`{j}`]({paths[j]})" for j in judges)
            lines.append(f"- {label or 'runs'}: {runs}")
    return [*lines, ""]


def _paper_tables(results_dir: Path, correlations: pd.DataFrame, link: str) -> list[str]:
    lines = ["### The paper's tables, recomputed where the data allow", ""]
    fixture_benchmarks = set(correlations.loc[correlations["status"] == FIXTURE, "benchmark"])
    for number, table in PAPER_TABLES.items():
        name, title, benchmarks = f"{table.stem}.md", table_title(number), table_benchmarks(number)
        path = results_dir / "tables" / name
        lines += [f"#### {title}", ""]
        if not path.is_file():
            lines += [f"Not produced in this run (`{link}/tables/{name}` is missing).", ""]
        elif fixture_benchmarks & set(benchmarks):
            lines += [
                f"Left out: `{link}/tables/{name}` was built with fixture rows (test data).",
                "",
            ]
        else:
            lines += [
                f"From [`{link}/tables/{name}`]({link}/tables/{name}), without its rows that "
                "only repeat a printed number and its table of significance tests (both are in "
                "the file).",
                "",
                *recomputed_lines(path.read_text(encoding="utf-8")),
                "",
            ]
    return lines


def _benchmark_layouts(results_dir: Path, link: str) -> list[str]:
    """Each benchmark the paper does not report, laid out in its tables' style
    (``tables/layout_<benchmark>.md``), without its table of significance tests."""
    lines = [
        "### Beyond the paper, in its tables' layout",
        "",
        "The benchmarks the G-Eval paper does not report, laid out as its Tables 1-3 are: no "
        "paper column (it prints nothing for them).",
        "",
    ]
    for name in LAID_OUT_BENCHMARKS:
        benchmark = BENCHMARKS[name]
        stem = outputs.BENCHMARK_LAYOUT.format(benchmark=name)
        path, cells = (results_dir / "tables" / f"{stem}{suffix}" for suffix in (".md", ".csv"))
        what = "binary labels by domain" if benchmark.labels else f"{benchmark.level_name} level"
        lines += [f"#### {benchmark.title}, {what}", ""]
        if not path.is_file():
            lines += [f"Not produced in this run (`{link}/tables/{stem}.md` is missing).", ""]
        elif cells.is_file() and (pd.read_csv(cells)["status"] == FIXTURE).any():
            lines += [f"Left out: `{link}/tables/{stem}.md` has fixture rows (test data).", ""]
        else:
            text = path.read_text(encoding="utf-8")
            tests = SIGNIFICANCE_HEADING in text
            lines += [
                f"From [`{link}/tables/{stem}.md`]({link}/tables/{stem}.md) (its cells: "
                f"`{stem}.csv`)"
                + (", without its table of significance tests (in the file)." if tests else "."),
                "",
                *recomputed_lines(text),
                "",
            ]
    return lines


PRINTED_ONLY = ("paper-only", "not-recomputable", "not-released")
SIGNIFICANCE_HEADING = "Significance against the best recomputed baseline"


def recomputed_lines(layout: str) -> list[str]:
    """A paper-layout table's Markdown without the rows of printed-only numbers (status in
    :data:`PRINTED_ONLY`) and without the significance table under it (its first line, which
    explains the ``*``, is kept)."""
    lines = []
    for line in layout.strip().splitlines():
        if line.startswith(SIGNIFICANCE_HEADING):
            lines.append(line.split(": difference")[0] + "; every test is in the file.")
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) > 2 and cells[2] in PRINTED_ONLY:
            continue
        lines.append(line)
    return lines


def _ties_pairs_systems(results_dir: Path, link: str) -> list[str]:
    """Links to what the paper does not print: pairwise accuracy, judge vs judge, each said
    to be ranked on the items its rows rest on."""
    names = {
        "pairwise_accuracy": "acc_eq and tie-calibrated acc*_eq of every metric, ranked "
        "among the rows on the same items (`ranking`), beside two reference rows: a constant "
        "metric (ties every pair: the share of pairs the humans tie, below which no acc*_eq "
        "falls) and a random order (half of the untied pairs)",
        "pairwise_significance": "every pair of metrics within a ranking, paired "
        "permutation tests on the ranking's items (Holm)",
        "significance_clusters": "metrics ranked with their significance clusters: `full`, "
        "every metric on all the benchmark's items its baselines' protocol scores; "
        "`partial: <run>, <n> items`, a partial run ranked apart on its own items",
    }
    present = {
        n: what for n, what in names.items() if (results_dir / "tables" / f"{n}.md").is_file()
    }
    if not present:
        return []
    lines = ["### Ties, pairs and systems (not in the paper)", ""]
    lines += [f"- [`{n}.md`]({link}/tables/{n}.md): {what}." for n, what in present.items()]
    lines += [
        f"- SummEval's system level (16 systems' mean scores) is in "
        f"[`correlations.csv`]({link}/tables/correlations.csv), level `system`; its ROUGE "
        "rows beside SummEval's own Table 2 below.",
        "",
    ]
    return lines


def _judge_cards(results_dir: Path, link: str) -> list[str]:
    """The leaderboard of every judge per benchmark (from ``tables/judge_cards.csv``) and
    links to each judge's card, the alternative annotator test and soft pairwise accuracy
    (fixture judges left out)."""
    path = results_dir / "tables" / f"{outputs.JUDGE_CARDS}.csv"
    if not path.is_file():
        return []
    cards = pd.read_csv(path)
    cards = cards[cards["status"] != FIXTURE]
    if cards.empty:
        return []
    judges = list(dict.fromkeys(cards["judge"]))
    lines = [
        "### Judge cards: may a judge replace a human rater?",
        "",
        "Every judge's numbers in one row per benchmark and dimension "
        f"([`{outputs.JUDGE_CARDS}.csv`]({link}/tables/{outputs.JUDGE_CARDS}.csv)); its card "
        "leads with the alternative annotator test (Calderon, Reichart and Dror, ACL 2025; "
        f"[`{outputs.ALT_TEST}.md`]({link}/tables/{outputs.ALT_TEST}.md), every metric beside a "
        "random rating and a constant at the median rating) and gives soft pairwise accuracy "
        "(Thompson et al. 2024; "
        f"[`{outputs.SOFT_PAIRWISE_ACCURACY}.md`]({link}/tables/"
        f"{outputs.SOFT_PAIRWISE_ACCURACY}.md)). Cards: "
        + ", ".join(f"[{j}]({link}/{outputs.CARDS}/{j}.md)" for j in judges)
        + ". The tests treat items as independent, although items share documents. A run on "
        "binary labels (SummEdits) has no per-item human scores: its card and row lead with "
        "the benchmark's own balanced accuracy (mean over domains) against the best baseline "
        "and chance, and say why the other statistics do not apply.",
        "",
        leaderboard(cards),
    ]
    return lines


SYSTEM_LEVEL_WHY = (
    "Not a reproduction: SummEval correlates the 17 systems its experts annotated "
    f"(`{summeval_paper.EXTRA_SYSTEM}` too, whose summaries summeval.json lacks, so no metric "
    "can be computed for it here) and scores ROUGE with ROUGE-1.5.5 (SummEval's toolkit); "
    "this toolkit correlates the 16 systems of summeval.json and scores with Google's "
    "rouge-score. SummEval's τ count the 136 pairs of 17 systems (an integer over 136; over "
    "sqrt(136 · 135) for fluency, whose expert means tie one pair), ours the 120 pairs of 16. "
    "Every system-level row of `correlations.csv` says so in its note."
)


def _system_level(results_dir: Path, correlations: pd.DataFrame, link: str) -> list[str]:
    """SummEval's system level beside SummEval's own Table 2 (the rows whose ``paper`` is
    SummEval's), why they differ, and SummEval's Table 3 against the pinned expert ratings
    (``tables/human/summeval_system_means.csv``)."""
    if "paper" not in correlations.columns:
        return []
    rows = correlations[
        correlations["paper"].fillna("").str.startswith(summeval_paper.PAPER)
        & correlations["value"].notna()
    ]
    means = results_dir / "tables" / "human" / "summeval_system_means.csv"
    if rows.empty and not means.is_file():
        return []
    benchmark = summeval_paper.BENCHMARK
    lines = ["### SummEval's system level beside SummEval's own tables", ""]
    if not rows.empty:
        dimensions = [d for d in dimensions_of(benchmark) if d in set(rows["dimension"])]
        protocol = protocol_variant_of(benchmark)
        order = rows.assign(_p=rows["variant"] != protocol).sort_values(
            ["metric", "_p", "variant"], kind="stable"
        )
        records = []
        for (metric, variant), group in order.groupby(["metric", "variant"], sort=False):
            cells = {r.dimension: r for r in group.itertuples()}
            records.append(
                {
                    "metric": metric,
                    "variant": variant,
                    **{
                        f"{d[:3]} τ": (
                            f"{_number(cells[d].value)} [{_number(cells[d].ci_low)}, "
                            f"{_number(cells[d].ci_high)}] ({cells[d].paper_value:.4f})"
                            if d in cells
                            else "–"
                        )
                        for d in dimensions
                    },
                }
            )
        lines += [
            "System-level Kendall τ with the expert mean: ours over 16 systems [95 % bootstrap "
            f"CI over documents] (SummEval's printed value, {summeval_paper.paper_table(2)}), "
            f"from [`correlations.csv`]({link}/tables/correlations.csv), level `system`.",
            "",
            _markdown_table(pd.DataFrame(records)),
            "",
            SYSTEM_LEVEL_WHY,
            "",
        ]
    if means.is_file():
        table = pd.read_csv(means)
        wrong = table[~table["reproduces"].astype(bool)]
        others = "; ".join(
            f"{r.system_id} {r.dimension}: {r.ours:.3f} here, {r.printed:.2f} printed"
            for r in wrong.itertuples()
        )
        path = f"{link}/tables/human/summeval_system_means.md"
        right = len(table) - len(wrong)
        lines += [
            f"{summeval_paper.paper_table(3)} (each system's mean expert rating) as a check of "
            f"the pinned data: the expert ratings of MetricEval's file give {right} of its "
            f"{len(table)} cells ({table['system_id'].nunique()} systems) to two decimals"
            + (f"; not: {others}" if others else "")
            + f" ([`summeval_system_means.md`]({path})).",
            "",
        ]
    return lines


#: The coefficient the results page shows for a benchmark the paper does not print.
BEYOND_COEFFICIENT = "kendall"
#: How many of a benchmark's further metrics (released scores) the page shows, best first.
BEYOND_SHOWN = 5
#: How the human yardstick's metric name starts.
HUMAN_PREFIX = "Human:"
RECOMPUTED = "recomputed"


def _beyond_cell(row: pd.Series, full: int) -> str:
    """ "0.123 [0.100, 0.150]", with "(n = ...)" when the row rests on fewer items than
    the benchmark's ``full`` items."""
    cell = _number(row["value"])
    if pd.notna(row["ci_low"]):
        cell += f" [{_number(row['ci_low'])}, {_number(row['ci_high'])}]"
    if pd.notna(row["n_items"]) and int(row["n_items"]) < full:
        cell += f" (n = {int(row['n_items'])})"
    return cell


def _beyond_paper(correlations: pd.DataFrame, link: str) -> list[str]:
    """A section per benchmark with per-item human scores that the paper does not print:
    Kendall's tau at its level for its baselines in its protocol's variant, its judges, the
    human ceiling and the best of its other metrics, per dimension."""
    lines: list[str] = []
    for benchmark in BENCHMARKS.values():
        if benchmark.paper_table is not None or not benchmark.has_human_scores:
            continue
        rows = correlations[
            (correlations["benchmark"] == benchmark.name) & (correlations["status"] != FIXTURE)
        ]
        if rows.empty:
            continue
        rows = rows[
            (rows["level"] == benchmark.level.value)
            & (rows["coefficient"] == BEYOND_COEFFICIENT)
            & rows["dimension"].isin(benchmark.dimension_names)
            & rows["value"].notna()
        ]
        rows = rows.assign(row=rows["metric"] + " (" + rows["variant"] + ")")
        full = int(rows["n_items"].max())
        protocol = protocol_variant_of(benchmark.name)
        human = rows["metric"].str.startswith(HUMAN_PREFIX)
        rows = rows[~human | rows["variant"].str.startswith("mean")]  # the yardstick's mean
        always = (
            (rows["variant"] == protocol)
            | rows["metric"].str.startswith(HUMAN_PREFIX)
            | (rows["status"] != RECOMPUTED)
        )
        kept, others = rows[always], rows[~always]
        best = others.groupby("row")["value"].mean().abs().nlargest(BEYOND_SHOWN).index
        shown = pd.concat([kept, others[others["row"].isin(best)]])
        order = shown.groupby("row", sort=False)["value"].mean().sort_values(ascending=False)
        table = pd.DataFrame(
            {
                "metric": order.index,
                **{
                    d: [
                        _beyond_cell(part.iloc[0], full)
                        if not (
                            part := shown[(shown["row"] == r) & (shown["dimension"] == d)]
                        ).empty
                        else "–"
                        for r in order.index
                    ]
                    for d in benchmark.dimension_names
                },
            }
        )
        yardstick = (
            "the human yardstick (its mean over the annotators), "
            if shown["metric"].str.startswith(HUMAN_PREFIX).any()
            else ""
        )
        lines += [
            f"### Beyond the paper: {benchmark.title}, {benchmark.level_name} level",
            "",
            f"Kendall τ with the human scores and its 95 % bootstrap interval, {full} items "
            f"(fewer where a cell says n); its recomputed baselines ({protocol}), judges, "
            f"{yardstick}and the {BEYOND_SHOWN} other metrics with the largest mean "
            f"\\|τ\\| (fewer if it has fewer). Every row and coefficient: "
            f"[`{link}/tables/correlations.csv`]({link}/tables/correlations.csv) "
            f"(benchmark `{benchmark.name}`). The paper prints nothing for it.",
            "",
            _markdown_table(table),
            "",
        ]
        yardstick = shown[shown["metric"].str.startswith(HUMAN_PREFIX)].fillna({"note": ""})
        twins = yardstick[yardstick["note"].str.contains(TWINS, regex=False)]
        lines += [
            f"The human yardstick's {d}: "
            + next(part for part in note.split("; ") if TWINS in part)
            + "."
            for d, note in dict(zip(twins["dimension"], twins["note"], strict=True)).items()
        ]
        lines += [""] if len(twins) else []
    return lines


def _binary_cell(row: pd.Series) -> str:
    """ "0.123 [0.100, 0.150]" of one binary-label row."""
    return f"{_number(row['value'])} [{_number(row['ci_low'])}, {_number(row['ci_high'])}]"


def _domain_cell(row: pd.Series, n_full: int) -> str:
    """A domain's AUC, with "(n k)" when it rests on fewer than the domain's ``n_full`` test
    pairs (a partial run); a dash when it has no value."""
    if pd.isna(row["value"]):
        return "–"
    n = int(row["n_items"])
    return _number(row["value"]) + (f" (n {n})" if n < n_full else "")


def _binary_row_names(rows: pd.DataFrame, n_full: int) -> list[str]:
    """ "metric (variant)" of every binary-label row, with "; partial run: N pairs of D
    documents" for a metric whose average rests on fewer than ``n_full`` items."""
    averages = rows[rows["domain"] == BINARY_AVERAGE]
    counts = averages.groupby(["metric", "variant"])[["n_items", "n_documents"]].max()
    names = []
    for metric, variant in zip(rows["metric"], rows["variant"], strict=True):
        n, documents = counts.loc[(metric, variant)]
        rest = f"; partial run: {n} pairs of {documents} documents" if n < n_full else ""
        names.append(f"{metric} ({variant}{rest})")
    return names


def _binary_labels(results_dir: Path, link: str) -> list[str]:
    """A section per benchmark of binary human labels (SummEdits): every metric's ROC AUC
    and balanced accuracy averaged over the domains, with intervals, and its AUC per domain."""
    path = results_dir / "tables" / f"{outputs.BINARY_LABELS}.csv"
    if not path.exists():
        return []
    rows = pd.read_csv(path)
    rows = rows[rows["status"] != FIXTURE]
    lines: list[str] = []
    for name in LABELLED_BENCHMARKS:
        benchmark = BENCHMARKS[name]
        mine = rows[rows["benchmark"] == name]
        if mine.empty or benchmark.labels is None:
            continue
        # the counts of the full benchmark come from the rows scoring every item (the
        # reference rows); a partial judge run's row names its own
        averages = mine[mine["domain"] == BINARY_AVERAGE]
        full = averages[averages["status"] == "reference"]
        full = full if len(full) else averages
        n_full = int(full["n_items"].max())
        mine = mine.assign(row=_binary_row_names(mine, n_full))
        average = mine[mine["domain"] == BINARY_AVERAGE].set_index(["row", "statistic"])
        domains = list(benchmark.labels.domains)
        per_domain = mine[(mine["statistic"] == "roc_auc") & mine["domain"].isin(domains)]
        full_domains = per_domain[per_domain["metric"].isin(full["metric"])]
        table = pd.DataFrame(
            {
                "metric": list(dict.fromkeys(mine["row"])),
            }
        )
        table["ROC AUC, mean"] = [
            _binary_cell(average.loc[(r, "roc_auc")]) for r in table["metric"]
        ]
        table["balanced accuracy, mean"] = [
            _binary_cell(average.loc[(r, "balanced_accuracy")]) for r in table["metric"]
        ]
        domain_n = full_domains.groupby("domain")["n_items"].max()
        for domain in domains:
            cells = per_domain[per_domain["domain"] == domain].set_index("row")
            table[f"AUC {domain}"] = [
                _domain_cell(cells.loc[r], int(domain_n[domain])) if r in cells.index else "–"
                for r in table["metric"]
            ]
        n_items = n_full
        n_documents = int(full["n_documents"].max())
        fitted = int(full.loc[full["statistic"] == "balanced_accuracy", "n_threshold_items"].max())
        fewest, most = full_domains["n_documents"].min(), full_domains["n_documents"].max()
        lines += [
            f"### Beyond the paper: {benchmark.title}, binary labels by domain",
            "",
            f"ROC AUC and balanced accuracy against the humans' consistent / inconsistent "
            f"labels on the `{benchmark.labels.tested_split}` split ({n_items} pairs of "
            f"{n_documents} documents in {len(domains)} domains), the mean over domains with "
            f"its 95 % bootstrap interval over documents ({fewest}-{most} per domain: wide), "
            f"then each domain's AUC. Balanced accuracy's threshold is fitted per domain on the "
            f"`{benchmark.labels.threshold_split}` split ({fitted} pairs). The reference rows "
            f"(a constant, a random score) are at 0.5 in expectation: a metric whose interval "
            f"holds 0.5 is not told apart from chance. Every row, domain and threshold: "
            f"[`{link}/tables/{outputs.BINARY_LABELS}.csv`]"
            f"({link}/tables/{outputs.BINARY_LABELS}.csv). The paper prints nothing for it.",
            "",
            _markdown_table(table),
            "",
        ]
    return lines


def _human_data(results_dir: Path, link: str) -> list[str]:
    tables = sorted((results_dir / "tables" / "human").glob("*.md"))
    figure = results_dir / "figures" / "human_distributions.png"
    if not tables and not figure.is_file():
        return []
    lines = ["### Human judgements", ""]
    if tables:
        paths = [f"{link}/tables/human/{p.name}" for p in tables]
        lines.append("Tables: " + ", ".join(f"[`{path}`]({path})" for path in paths) + ".")
    if figure.is_file():
        lines += [
            "",
            f"![Distributions of the human scores]({link}/figures/human_distributions.png)",
        ]
    return [*lines, ""]


#: The paper's finding the writer-vs-LLM analysis redraws (its analysis "Will G-Eval prefer
#: LLM-based outputs?"), quoted in the README and as the anchor of the tables' captions.
PAPER_SENTENCE = (
    "G-Eval-4 always gives higher scores to GPT-3.5 summaries than human-written summaries, "
    "even when human judges prefer human-written summaries"
)
#: The group-means rows the README shows: a judge's mean over its dimensions, the length.
WRITER_VS_LLM_SHOWN = ("AVG", "words")
_GROUPS = {"writer": "writer better", "llm": "LLM better", "tie": "equally good"}


def _group_cells(rows: pd.DataFrame) -> list[str]:
    by_author = rows.set_index("author")
    cells = [_number(by_author.loc[a, "value"]) for a in ("writer", "llm")]
    diff = by_author.loc["llm - writer"]
    interval = f"[{_number(diff['ci_low'], True)}, {_number(diff['ci_high'], True)}]"
    return [*cells, f"{_number(diff['value'], True)} {interval}", str(diff["n_judgements"])]


def _writer_vs_llm(results_dir: Path, link: str) -> list[str]:
    """The writer-vs-LLM analysis of each benchmark of preferences in the folder."""
    lines = []
    for benchmark in PREFERENCE_BENCHMARKS:
        folder = results_dir / "tables" / benchmark
        if not (folder / "group_means.csv").is_file():
            continue
        means = pd.read_csv(folder / "group_means.csv")
        shown = means[
            (means["status"] != FIXTURE)
            & (means["question"] == "overall")
            & means["dimension"].isin(WRITER_VS_LLM_SHOWN)
        ]
        rows = []
        for (metric, variant, preference), group in shown.groupby(
            ["metric", "variant", "preference"], sort=False
        ):
            rows.append([metric, variant, _GROUPS[preference], *_group_cells(group)])
        table = pd.DataFrame(
            rows,
            columns=[
                "metric",
                "variant",
                "humans' preference",
                "writer",
                "GPT-3.5",
                "GPT-3.5 - writer [95 % CI]",
                "n",
            ],
        )
        names = ", ".join(
            f"[`{n}.md`]({link}/tables/{benchmark}/{n}.md)" for n in WRITER_VS_LLM_TABLES
        )
        figure = f"{link}/figures/{WRITER_VS_LLM_FIGURE.format(benchmark=benchmark)}.png"
        lines += [
            f"### Does a judge prefer LLM-written summaries? {title_of(benchmark)}",
            "",
            f'The paper: "{PAPER_SENTENCE}". The same analysis on Zhang et al.\'s 599 '
            "judgements (a freelance writer's summary against GPT-3.5's, per news article): "
            "each metric's mean score of both summaries in each group of the humans' overall "
            "preference (a judge run: the mean over its dimensions, `AVG`; length in "
            "words), 95 % bootstrap intervals over articles, `n` the judgements whose two "
            "summaries are scored. Tables (with informativeness, per dimension, pairwise "
            f"accuracy with ties and preference rates against the humans'): {names}; "
            f"[what they are]({posixpath.normpath(f'{link}/../docs/writer-vs-llm.md')})."
            + (
                " A variant `A = B` stands for two scorings that give every summary the same "
                "score (both parsers read every reply alike: with one reply per summary they "
                "rarely differ), shown once."
                if shown["variant"].str.contains(" = ", regex=False).any()
                else ""
            ),
            "",
            _markdown_table(table) if rows else "No metric of this folder has rows.",
            "",
            f"![Mean score of the writers' and GPT-3.5's summaries per human preference group]"
            f"({figure})",
            "",
        ]
    return lines


def render_section(
    results_dir: str | os.PathLike[str],
    link: str = "results",
    labels: Mapping[str, str] | None = None,
) -> str:
    """The Markdown of the README results section for a results folder (markers excluded).

    ``link``: how README.md reaches the folder (relative links; ``results`` by default);
    ``labels``: judge run name -> label from the config, shown beside the run's name.
    """
    results_dir = Path(results_dir)
    correlations = read_correlations(results_dir)
    fixture_judges = [j for j in judges_in(results_dir) if judge_status(results_dir, j) == FIXTURE]
    lines = [
        "<!-- Generated by `snakemake readme` (geval_repro.report.readme) from the results "
        "folder; do not edit by hand. -->",
        "",
    ]
    if fixture_judges or (correlations["status"] == FIXTURE).any():
        named = f" (judge runs: {', '.join(fixture_judges)})" if fixture_judges else ""
        lines += [
            f"> **Fixture run.** This results folder holds fixture rows{named}: synthetic test "
            "data, not results. They are left out of this section.",
            "",
        ]
    lines += [
        "### What is recomputed",
        "",
        "Rows of "
        f"[`{link}/tables/correlations.csv`]({link}/tables/correlations.csv) by status. "
        "**recomputed**: computed here from the pinned upstream files. "
        + (
            "**toolkit-run**: this toolkit's own judge run of an open model (its replies "
            "committed under `data/runs/`; not the paper's judge, and partial: the `note` says "
            "how many items and the coverage). "
            if TOOLKIT_RUN in set(correlations["status"])
            else ""
        )
        + "**paper-only**, "
        "**not-recomputable**, **not-released**: a number printed in the paper that this "
        "toolkit cannot recompute (the `note` column says why); these rows repeat the paper "
        "and are not reproductions.",
        "",
        _markdown_table(status_counts(correlations)),
        "",
        *_released_recount(results_dir, link),
        *_other_judges(results_dir, link, labels or {}),
        *_paper_tables(results_dir, correlations, link),
        *_benchmark_layouts(results_dir, link),
        *_judge_cards(results_dir, link),
        *_ties_pairs_systems(results_dir, link),
        *_system_level(results_dir, correlations, link),
        *_beyond_paper(correlations, link),
        *_binary_labels(results_dir, link),
        *_human_data(results_dir, link),
        *_writer_vs_llm(results_dir, link),
        "Every committed table and figure has a `<file>.provenance.json` sidecar beside it: "
        "the SHA-256 of the upstream files it rests on, the config and package versions (the "
        "git commit a run was made from is in its `results/run_manifest.json`).",
    ]
    return "\n".join(lines).strip() + "\n"


#: The head of the results page: its title and what it is.
PAGE_HEAD = """# Results

Generated from this folder by `snakemake readme` (do not edit by hand): the tables and
figures the offline mirror regenerates, each with a provenance sidecar; the tests fail if a
regeneration differs from them. How to run and read the pipeline: [the README](../README.md).
"""


def render_page(
    results_dir: str | os.PathLike[str], link: str, labels: Mapping[str, str] | None = None
) -> str:
    """The results page: :data:`PAGE_HEAD`, then :func:`render_section` (``link``: how the
    page reaches the results folder)."""
    return f"{PAGE_HEAD}\n{render_section(results_dir, link, labels)}"


def write_page(
    results_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    labels: Mapping[str, str] | None = None,
) -> None:
    """Write the results page of ``results_dir`` to ``out`` (:data:`PAGE_HEAD`, then the
    section), its links relative to ``out``'s folder."""
    link = os.path.relpath(Path(results_dir).resolve(), Path(out).resolve().parent)
    write_text(out, render_page(Path(results_dir), Path(link).as_posix(), labels))


def judge_labels() -> dict[str, str]:
    """Judge run name -> label, from the configs the committed results are made with: the
    default (workflow/config.yaml) with the mirrored-data overlay over it, which adds this
    toolkit's own runs (:data:`geval_repro.config.MIRRORED_CONFIG_PATH`)."""
    # Imported here: the notebooks import this module, and need no schema validation.
    from geval_repro.config import DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH, load_config

    judges = load_config(DEFAULT_CONFIG_PATH, MIRRORED_CONFIG_PATH)["judges"]
    return {name: judge["label"] for name, judge in judges.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write (or with ``--check``, verify) the results page of a results folder
    (default: the committed ``results/README.md``).

    Judge labels come from workflow/config.yaml and workflow/configs/mirrored_data.yaml
    (:func:`judge_labels`), as in the mirrored-data run that makes the committed results.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REPO_ROOT / "results")
    parser.add_argument("--check", action="store_true", help="fail when the page is stale")
    args = parser.parse_args(argv)
    page = args.results / PAGE_NAME
    text = render_page(args.results, ".", judge_labels())
    if args.check:
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            print(
                f"{page}: not the page generated from {args.results}; fix: run "
                "`snakemake readme` (with the config that made the folder)",
                file=sys.stderr,
            )
            return 1
        return 0
    write_text(page, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
