"""The benchmarks the paper does not report, laid out in its tables' style: hand-made rows,
hand-checked cells (a value below its column's full n shows that n, a cell without a value
says why, no paper column)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from geval_repro.pipeline.binary_tables import write_binary_layout
from geval_repro.pipeline.correlations import write_benchmark_layout
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.targets import Targets
from geval_repro.registry.benchmarks import BENCHMARKS, LAID_OUT_BENCHMARKS
from geval_repro.report.benchmark_layout import (
    NO_AVERAGE,
    NO_AVERAGE_PARTIAL,
    NO_DOMAIN_ROW,
    NOT_SCORED,
    binary_layout,
    correlation_layout,
)
from geval_repro.tables import binary_labels
from geval_repro.tables.rows import COLUMNS
from tests.conftest import spec

DIALSUMMEVAL = BENCHMARKS["dialsummeval"]
SUMMEDITS = BENCHMARKS["summedits"]
PROTOCOL = "recomputed, vs the reference"


def row(dimension, coefficient, value, low=math.nan, high=math.nan, **extra):
    return {
        **dict.fromkeys(COLUMNS, math.nan),
        "benchmark": "dialsummeval",
        "dimension": dimension,
        "metric": "ROUGE-1",
        "variant": PROTOCOL,
        "level": "summary",
        "coefficient": coefficient,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n_items": 1300,
        "n_groups": 100,
        "status": "recomputed",
        "note": "hand-made",
        **extra,
    }


def dialsummeval_rows() -> pd.DataFrame:
    records = []
    for i, dimension in enumerate(DIALSUMMEVAL.dimension_names):
        for coefficient in ("spearman", "kendall", "pearson"):
            value = 0.1 * (i + 1)
            # a printed value that is not the G-Eval paper's must not show up as one
            printed = 0.9 if (dimension, coefficient) == ("fluency", "spearman") else math.nan
            records.append(
                row(dimension, coefficient, value, value - 0.05, value + 0.05, paper_value=printed)
            )
            released = {"variant": "released by the authors"}
            records.append(row(dimension, coefficient, value + 0.01, **released))
    records += [row("AVG", c, 0.25) for c in ("spearman", "kendall")]
    records.append(row("AVG", "spearman", 0.99, level="system"))  # another level: not shown
    judge = {"metric": "j", "variant": "first-reply/original", "status": "toolkit-run"}
    records += [
        row("consistency", "spearman", 0.2, 0.1, 0.3, n_items=52, n_groups=4, **judge),
        row("consistency", "kendall", 0.15, 0.05, 0.25, n_items=52, n_groups=4, **judge),
    ]
    constant = {
        "metric": "j",
        "variant": "mean-of-20/original",
        "status": "toolkit-run",
        "note": "partial run: 52 of 1300 items; no value: undefined on these items (a "
        "constant vector, or no complete pair); not scorable: the judge gives every item "
        "the same score",
    }
    records += [
        row("consistency", c, math.nan, n_items=52, n_groups=12, **constant)
        for c in ("spearman", "kendall")
    ]
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def cells_of(markdown: str, metric: str, variant: str) -> list[str]:
    line = next(x for x in markdown.splitlines() if x.startswith(f"| {metric} | {variant} |"))
    return [c.strip() for c in line.strip().strip("|").split("|")]


def reasons_of(markdown: str) -> dict[str, str]:
    """ "(1)" -> its reason, from the lines under the table."""
    lines = [x for x in markdown.splitlines() if x.startswith("(") and ") " in x]
    return {x.split(" ", 1)[0]: x.split(" ", 1)[1].rstrip(".") for x in lines}


def test_correlation_layout_cells_by_hand() -> None:
    cells, markdown = correlation_layout(dialsummeval_rows(), DIALSUMMEVAL)
    head, _, header = markdown.splitlines()[:3]
    assert "does not report DialSummEval" in head
    assert header == (
        "| metric | variant | status | coherence ρ | coherence τ | consistency ρ | "
        "consistency τ | fluency ρ | fluency τ | relevance ρ | relevance τ | AVG ρ | AVG τ |"
    )
    assert "paper" not in header and "(0." not in markdown  # no printed value anywhere
    protocol = cells_of(markdown, "ROUGE-1", f"{PROTOCOL} (the benchmark's protocol)")
    # coherence rho: 0.1 [0.05, 0.15] on every item (no n); AVG: no interval
    assert protocol[3:5] == ["0.100 [0.050, 0.150]", "0.100 [0.050, 0.150]"]
    assert protocol[5] == "0.200 [0.150, 0.250]"
    assert protocol[7] == "0.300 [0.250, 0.350]"  # its printed 0.9 is not the paper's: not shown
    assert protocol[11:] == ["0.250", "0.250"]
    reasons = reasons_of(markdown)
    released = cells_of(markdown, "ROUGE-1", "released by the authors")
    assert released[3] == "0.110"
    # every dimension scored, but no AVG row: the reason says so
    assert released[11] == released[12] and reasons[released[11][2:]] == NO_AVERAGE
    judge = cells_of(markdown, "j", "first-reply/original")
    assert judge[5:7] == [
        "0.200 [0.100, 0.300]; n=52 in 4 docs",
        "0.150 [0.050, 0.250]; n=52 in 4 docs",
    ]
    assert reasons[judge[3][2:]] == NOT_SCORED  # "– (k)": coherence not judged
    assert reasons[judge[11][2:]] == NO_AVERAGE_PARTIAL
    constant = cells_of(markdown, "j", "mean-of-20/original")
    # 52 items in 12 documents: enough for a value; the note says why there is none
    assert constant[5].startswith("– (") and constant[5].endswith("; n=52 in 12 docs")
    why = reasons[constant[5][2:].split(";")[0]]
    assert why == (
        "no value: undefined on these items (a constant vector, or no complete pair); "
        "not scorable: the judge gives every item the same score"
    )
    # rows: the recomputed baseline (protocol first), then the released scores, then judges
    table = [x for x in markdown.split("\n\n")[1].splitlines()[2:]]
    assert [x.split(" | ")[1] for x in table] == [
        f"{PROTOCOL} (the benchmark's protocol)",
        "released by the authors",
        "first-reply/original",
        "mean-of-20/original",
    ]
    # the CSV holds the same cells, columns named by dimension and coefficient
    assert list(cells.columns[:5]) == [
        "metric",
        "variant",
        "status",
        "coherence spearman",
        "coherence kendall",
    ]
    assert cells.iloc[2]["consistency spearman"] == judge[5]


def binary_row(domain, statistic, value, low=math.nan, high=math.nan, **extra):
    return {
        **dict.fromkeys(binary_labels.COLUMNS, math.nan),
        "benchmark": "summedits",
        "dimension": "consistency",
        "metric": "ROUGE-2",
        "variant": "vs source document",
        "domain": domain,
        "statistic": statistic,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n_items": 400,
        "n_documents": 15,
        "status": "recomputed",
        "note": "",
        **extra,
    }


def summedits_rows() -> pd.DataFrame:
    domains = [*SUMMEDITS.labels.domains, binary_labels.AVERAGE]
    records = [
        binary_row(d, s, 0.5 + i / 100, 0.4, 0.6)
        for i, d in enumerate(domains)
        for s in ("roc_auc", "balanced_accuracy")
    ]
    judge = {"metric": "j", "variant": "first-reply/original", "status": "toolkit-run"}
    records += [
        binary_row("news", "balanced_accuracy", 0.7, 0.6, 0.8, n_items=30, **judge),
        binary_row("news", "roc_auc", 0.75, 0.65, 0.85, n_items=30, **judge),
        binary_row(
            "podcast",
            "roc_auc",
            math.nan,
            n_items=3,
            note="partial run: a score for 40 of 4681 items (rows on those items only); "
            "the scored test items hold one class only (3 of 3 consistent)",
            **judge,
        ),
        binary_row(
            binary_labels.AVERAGE,
            "roc_auc",
            math.nan,
            n_items=33,
            note="partial run: a score for 40 of 4681 items (rows on those items only); "
            "no mean: 1 of the 8 domains have a value",
            **judge,
        ),
    ]
    return pd.DataFrame.from_records(records, columns=binary_labels.COLUMNS)


def test_binary_layout_cells_by_hand() -> None:
    cells, markdown = binary_layout(summedits_rows(), SUMMEDITS)
    head, _, header = markdown.splitlines()[:3]
    assert "does not report SummEdits" in head
    domains = list(SUMMEDITS.labels.domains)
    # SummEdits' own statistic (balanced accuracy) first, each over the domains and their mean
    assert header == (
        "| metric | variant | status | "
        + " | ".join(f"{d} BAcc" for d in domains)
        + " | mean BAcc | "
        + " | ".join(f"{d} AUC" for d in domains)
        + " | mean AUC |"
    )
    assert "paper" not in header
    baseline = cells_of(markdown, "ROUGE-2", "vs source document")
    assert baseline[3] == "0.500 [0.400, 0.600]"  # news BAcc on every pair: no n
    assert baseline[11] == "0.580 [0.400, 0.600]"  # mean BAcc
    judge = cells_of(markdown, "j", "first-reply/original")
    assert judge[3] == "0.700 [0.600, 0.800]; n=30"  # news BAcc on 30 of 400 pairs
    assert judge[12] == "0.750 [0.650, 0.850]; n=30"  # news AUC
    reasons = reasons_of(markdown)
    assert reasons[judge[4][2:]] == NO_DOMAIN_ROW  # podcast BAcc: no row
    assert judge[13].startswith("– (") and judge[13].endswith("; n=3")  # podcast AUC
    assert reasons[judge[13][2:].split(";")[0]] == (
        "the scored test items hold one class only (3 of 3 consistent)"
    )
    assert reasons[judge[20][2:].split(";")[0]] == "no mean: 1 of the 8 domains have a value"
    assert list(cells.columns[3:5]) == ["news balanced_accuracy", "podcast balanced_accuracy"]


def test_rule_functions_write_the_cells_beside_the_markdown(tmp_path) -> None:
    rows, labels = tmp_path / "rows.csv", tmp_path / "binary_labels.csv"
    dialsummeval_rows().to_csv(rows, index=False)
    summedits_rows().to_csv(labels, index=False)
    judges = {"j": spec("j", benchmark="dialsummeval")}
    write_benchmark_layout(rows, [], DIALSUMMEVAL, judges, tmp_path / "layout_dialsummeval")
    write_binary_layout(labels, SUMMEDITS, {}, tmp_path / "layout_summedits")
    for name, metrics in (
        ("dialsummeval", ["ROUGE-1", "ROUGE-1", "j", "j"]),
        ("summedits", ["ROUGE-2", "j"]),
    ):
        markdown = (tmp_path / f"layout_{name}.md").read_text(encoding="utf-8")
        cells = pd.read_csv(tmp_path / f"layout_{name}.csv", keep_default_na=False)
        assert list(cells["metric"]) == metrics
        first = cells.iloc[0]
        assert f"| {first['metric']} | {first['variant']} | {first['status']} | " in markdown
    markdown = (tmp_path / "layout_dialsummeval.md").read_text(encoding="utf-8")
    assert "Judge runs: `j`: test run j." in markdown


def test_every_benchmark_beyond_the_paper_gets_a_layout_from_the_registry() -> None:
    assert LAID_OUT_BENCHMARKS == ("dialsummeval", "sfres", "sfhot", "summedits")
    targets = Targets(Layout(Path("data"), Path("results")), {}, {}, (), {}, None)
    names = {p.name for p in targets.benchmark_layouts}
    assert names == {f"layout_{n}.{s}" for n in LAID_OUT_BENCHMARKS for s in ("csv", "md")}
    # SFRES: its three dimensions and AVG x its three coefficients, at the dataset level
    rows = dialsummeval_rows().assign(benchmark="sfres", level="global", dimension="overall")
    _, markdown = correlation_layout(rows, BENCHMARKS["sfres"])
    header = markdown.splitlines()[2]
    assert header.count(" r |") == header.count(" ρ |") == header.count(" τ |") == 4
    assert markdown.startswith("SFRES, dataset level:")
