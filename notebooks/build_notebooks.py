"""Build the notebooks of this folder from Python source, so they are reviewed as Python.

Each notebook is a list of Markdown and code cells defined below. All of them start with
the same two cells:

- a parameters cell (tagged ``parameters``): the folders the notebook reads, taken from the
  environment variables ``GEVAL_REPRO_RESULTS`` and ``GEVAL_REPRO_PROCESSED`` (set by the
  pipeline's ``notebook`` rule and by the tests), by default the repository's ``results/``
  and ``data/processed/``;
- a helpers cell: small readers of what the pipeline wrote and one plotting function. They
  only present; every number is computed by the pipeline (``geval_repro``).

Usage (from the repository root)::

    python notebooks/build_notebooks.py            # write the notebooks, without outputs
    python notebooks/build_notebooks.py --execute  # write them and run them against results/

Committed notebooks are written with ``--execute`` after a full pipeline run, so that they
render with their outputs on GitHub. Cell ids are fixed (``<notebook>-<index>``) and no
execution timing is recorded, so a rebuild from the same results gives the same file.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from geval_repro.files.atomic import replace_if_changed
from geval_repro.report.notebooks import execute_notebook

HERE = Path(__file__).resolve().parent

PARAMETERS = """\
# Parameters: the folders this notebook reads. The pipeline's `notebook` rule and the tests
# set them through the environment; by default, the repository's own folders.
import os
from pathlib import Path

RESULTS = Path(os.environ.get("GEVAL_REPRO_RESULTS", "../results"))
PROCESSED = Path(os.environ.get("GEVAL_REPRO_PROCESSED", "../data/processed"))"""

HELPERS = '''\
%matplotlib inline
# Every figure is laid out by tight_layout: show it as laid out (one drawing, not two).
%config InlineBackend.print_figure_kwargs = {"bbox_inches": None}
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Image, Markdown, display

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.report.readme import FIXTURE, judge_status, judges_in
from geval_repro.tables.rows import VALUE_STATUSES

TABLES = RESULTS / "tables"
FIGURES = RESULTS / "figures"
COMPACT = ["dimension", "metric", "variant", "level", "coefficient", "value", "ci_low",
           "ci_high", "n_items", "paper_value", "delta", "status"]
SYMBOL = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}
pd.set_option("display.precision", 3)
pd.set_option("display.max_colwidth", 60)
pd.set_option("display.max_rows", 200)


def say(text):
    """Show Markdown text."""
    display(Markdown(text))


def read_table(name):
    """A CSV table the pipeline wrote under results/tables (name without .csv), or None."""
    path = TABLES / f"{name}.csv"
    if not path.is_file():
        say(f"*`{path.relative_to(RESULTS)}` is not in this results folder.*")
        return None
    return pd.read_csv(path)


def show_table(name):
    """Display a Markdown table the pipeline wrote under results/tables."""
    path = TABLES / f"{name}.md"
    if path.is_file():
        display(Markdown(path.read_text(encoding="utf-8")))
    else:
        say(f"*`{path.relative_to(RESULTS)}` is not in this results folder.*")


def show_figure(name):
    """Display a PNG figure the pipeline wrote under results/figures."""
    path = FIGURES / f"{name}.png"
    if path.is_file():
        display(Image(filename=str(path)))
    else:
        say(f"*`{path.relative_to(RESULTS)}` is not in this results folder.*")


def fixture_banner(judge):
    """A warning shown above every table of a fixture judge run."""
    say(f"> **FIXTURE: `{judge}` is synthetic test data** (tests/fixtures), not a released "
        "judge output. Its numbers are not results and must not be cited.")


def compare_plot(rows, *, x, order, title, ylabel, series="metric", labels=None):
    """Our values (dots with their 95 % bootstrap interval) and the paper's printed values
    (black crosses) on the same axes; ``rows`` hold one coefficient, ``x`` names the column
    laid along the x axis in ``order`` (tick ``labels`` default to the values)."""
    rows = rows[rows[x].isin(order)]
    positions = {value: i for i, value in enumerate(order)}
    names = list(dict.fromkeys(rows[series]))
    width = 0.8 / max(len(names), 1)
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(positions) + 4), 3.8))
    for k, name in enumerate(names):
        part = rows[rows[series] == name]
        xs = part[x].map(positions).to_numpy(dtype=float) - 0.4 + width * (k + 0.5)
        ours = part["status"].isin(VALUE_STATUSES).to_numpy()
        value = part["value"].to_numpy(dtype=float)
        low = np.nan_to_num(value - part["ci_low"].to_numpy(dtype=float))
        high = np.nan_to_num(part["ci_high"].to_numpy(dtype=float) - value)
        ax.errorbar(xs[ours], value[ours], yerr=[low[ours], high[ours]], fmt="o", ms=4,
                    capsize=2, label=f"{name} (ours, 95 % CI)")
        ax.scatter(xs, part["paper_value"], marker="x", color="black", s=30, zorder=3,
                   label="paper (printed)" if k == 0 else None)
    ax.set_xticks(range(len(order)), labels or order)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plt.show()'''


# The notebooks' data selection, defined here so that tests/test_notebooks.py imports and
# checks them; the helpers cell holds their source (below).


def run_of(rows):
    """The benchmark and status of one judge run from its correlation rows: ``fixture``,
    ``recomputed`` or ``toolkit-run`` (several statuses joined, in a run that mixed them)."""
    (benchmark,) = rows["benchmark"].unique()
    return benchmark, ", ".join(sorted(set(rows["status"])))


def status_label(status):
    """How a run's status is shown: FIXTURE in capitals, the others as written."""
    return "FIXTURE" if status == "fixture" else status


def level_panels(rows, coefficients, levels):
    """``(level, coefficient, rows)`` for each of ``levels`` (in that order) and
    ``coefficients`` that ``rows`` hold: one correlation level per plot, never two."""
    panels = []
    for level in levels:
        for coefficient in coefficients:
            part = rows[(rows["level"] == level) & (rows["coefficient"] == coefficient)]
            if len(part):
                panels.append((level, coefficient, part))
    return panels


def plot_title(judge, status, table, benchmark, level, symbol, printed_level):
    """A plot's title: the run, its status, the table, the benchmark and the level of the
    correlations it shows (and that the paper prints none at another level)."""
    title = f"{judge} ({status_label(status)}), {table}: {benchmark}, {level}-level {symbol}"
    return title + ("" if level == printed_level else " (the paper prints none)")


HELPERS += "".join(
    "\n\n\n" + inspect.getsource(f).rstrip("\n")
    for f in (run_of, status_label, level_panels, plot_title)
)


def md(text: str) -> tuple[str, str]:
    return ("markdown", text.strip("\n"))


def code(text: str) -> tuple[str, str]:
    return ("code", text.strip("\n"))


DATA_TOUR = [
    md("""
# A tour of the data and of G-Eval's protocol

What each benchmark holds, how G-Eval scores a text, and how its scores are compared with
human judgements. This notebook reads the processed tables the pipeline wrote to
`data/processed/` (each validated against a schema in `geval_repro.load.schemas`); it computes
no result.
"""),
    md("""
## SummEval

100 CNN/DailyMail articles, each summarized by 16 systems: 1,600 summaries. Three experts
rated every summary for **coherence**, **consistency**, **fluency** and **relevance** on a
1-5 scale; G-Eval (like UniEval before it) uses the mean of the three as the human score.
Sources: `data/summeval.json` of nlpyang/geval (the file G-Eval used), the per-expert
ratings published by MetricEval, and the 11 reference summaries per article from
BARTScore's copy of SummEval.
"""),
    code("""
summeval = pd.read_parquet(PROCESSED / "summeval.parquet")
dimensions = list(get_benchmark("summeval").dimension_names)
say(f"{len(summeval):,} summaries: {summeval['doc_id'].nunique()} documents x "
    f"{summeval['system_id'].nunique()} systems.")
summeval[dimensions].describe().round(2)
"""),
    code("""
example = summeval.iloc[0]
scores = ", ".join(f"{d} {example[d]:.2f}" for d in dimensions)
say(f"Document `{example['doc_id']}`, system `{example['system_id']}`: article of "
    f"{len(example['source'].split())} words, summary of "
    f"{len(example['system_output'].split())} words.\\n\\n"
    f"Summary: *{example['system_output'].strip()}*\\n\\nExpert means: {scores}.")
"""),
    code("""
experts = pd.read_parquet(PROCESSED / "summeval_experts.parquet")
references = pd.read_parquet(PROCESSED / "summeval_references.parquet")
say(f"Per-expert ratings: {len(experts):,} rows ({experts['annotator'].nunique()} experts x "
    f"4 dimensions x 1,600 summaries). References: "
    f"{references.groupby('doc_id').size().iloc[0]} per document.")
pd.crosstab(experts["dimension"], experts["score"]).rename_axis(
    index="dimension", columns="expert rating"
)
"""),
    md("""
## Topical-Chat

60 dialogue contexts, each with 6 candidate responses (4 system responses, the original
human turn and a newly written human turn): 360 responses, rated by three annotators
(Mehri & Eskenazi, 2020, USR). G-Eval's Table 2 uses **naturalness** (1-3), **coherence**
(1-3), **engagingness** (1-3) and **groundedness** (0-1), each the mean of the annotators.
Source: UniEval's conversion of the USR annotations, which also carries UniEval's
predictions.
"""),
    code("""
topical = pd.read_parquet(PROCESSED / "topical_chat.parquet")
tc_dimensions = list(get_benchmark("topical_chat").dimension_names)
say(f"{len(topical)} responses: {topical['context_id'].nunique()} contexts x "
    f"{topical['system_id'].nunique()} responders ({', '.join(topical['system_id'].unique())}).")
topical[tc_dimensions].describe().round(2)
"""),
    md("""
## QAGS

Summaries of CNN/DailyMail (235) and XSum (239) articles. Three crowd workers judged each
summary sentence as supported by the article or not; a summary's **consistency** is the
share of its sentences the majority judged supported (Wang et al., 2020). Sources:
UniEval's conversion (scores and UniEval's predictions) and the original MTurk annotations
of the QAGS repository.
"""),
    code("""
qags = pd.concat(
    [pd.read_parquet(PROCESSED / f"qags_{s}.parquet") for s in ("cnndm", "xsum")]
)
mturk = pd.concat(
    [pd.read_parquet(PROCESSED / f"qags_mturk_{s}.parquet") for s in ("cnndm", "xsum")]
)
sentences = mturk.groupby(["subset", "summary_index", "sentence_index"]).size()
summary = pd.DataFrame({
    "summaries": qags.groupby("subset").size(),
    "mean consistency": qags.groupby("subset")["consistency"].mean(),
    "MTurk sentences": sentences.groupby("subset").size(),
    "answers per sentence": sentences.groupby("subset").mean(),
    "share of 'yes' answers": mturk.groupby("subset")["response"].apply(
        lambda r: (r == "yes").mean()
    ),
})
summary.round(3)
"""),
    md("""
## How G-Eval scores a text

G-Eval prompts an LLM with a task introduction, the evaluation criteria, evaluation steps
(written by the LLM itself, "auto chain-of-thought") and the text; the LLM replies with a
rating. Rather than take the rating it would most likely give, G-Eval weights every
possible rating by its probability (Eq. 1 of the paper):

$$\\text{score} = \\sum_{i} p(s_i)\\, s_i$$

With token probabilities (GPT-3.5, `text-davinci-003`) this is computed directly. The GPT-4
API returned no probabilities, so the paper sampled 20 replies per item and averaged them:
the sample mean estimates the same sum.

**Worked example.** A judge puts probability 0.05 on 3, 0.60 on 4 and 0.35 on 5:
"""),
    code("""
from geval_repro.stats.weighted import weighted_score

probs = {"3": 0.05, "4": 0.60, "5": 0.35}
score = weighted_score(probs, scale=(1, 5))
terms = " + ".join(f"{p:.2f} × {s}" for s, p in probs.items())
say(f"score = {terms} = **{score:.2f}** (`{weighted_score.__module__}.weighted_score`)")

levels = np.arange(1, 6)
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(levels, [probs.get(str(s), 0.0) for s in levels], color="tab:blue", alpha=0.7)
ax.axvline(score, color="black", ls="--", label=f"probability-weighted score = {score:.2f}")
ax.axvline(4, color="tab:red", ls=":", label="most likely rating = 4")
ax.set_xlabel("rating (1-5 scale)")
ax.set_ylabel("probability")
ax.set_title("G-Eval's score: the probability-weighted mean rating", fontsize=10)
ax.legend(fontsize=7, loc="upper left")
fig.tight_layout()
plt.show()
"""),
    md("""
The most likely rating alone would be 4 for this summary and for every summary whose
probabilities lean to 4; the weighted score (4.30) separates them, which reduces ties and
lets the score follow finer differences in quality.

## How the scores are compared with humans

Following UniEval, the paper correlates metric scores with human scores at a different
level per benchmark:

- **SummEval, summary level**: for each document, correlate the 16 systems' metric scores
  with their 16 human scores (a document whose scores are all equal on either side is
  skipped), then average over the documents;
- **Topical-Chat, turn level**: one correlation over all 360 responses;
- **QAGS, dataset level**: one correlation over all summaries of a subset; the Average
  column is the mean of the two subsets.

The other notebooks show the recomputed correlations next to the paper's printed ones:
`02_summeval_recount`, `03_sweep` and `04_topical_chat_qags`.
"""),
]

SUMMEVAL_RECOUNT = [
    md("""
# SummEval: the G-Eval recount

Summary-level correlations of G-Eval's scores with SummEval's expert ratings, recomputed
from the judge runs of this pipeline run, next to the numbers printed in Table 1 of the
paper. The main table averages a run's replies per item (the paper's estimate of the
probability-weighted score), the one-reply table takes a single reply, and the diagnostics
show how the reply parser treats what GPT-4 wrote.
"""),
    code("""
SUMMEVAL = get_benchmark("summeval")
found = {j: run_of(read_table(f"judges/{j}/correlations")) for j in judges_in(RESULTS)}
runs = {j: status for j, (benchmark, status) in found.items() if benchmark == SUMMEVAL.name}
real = [j for j, status in runs.items() if status != FIXTURE]
say("Judge runs on SummEval in this results folder: "
    + (", ".join(f"`{j}` ({status_label(s)})" for j, s in runs.items()) or "none") + ".")
elsewhere = {j: b for j, (b, _) in found.items() if b != SUMMEVAL.name}
if elsewhere:
    say("Not shown here, being on another benchmark: "
        + ", ".join(f"`{j}` ({get_benchmark(b).title}, {status_label(found[j][1])})"
                    for j, b in elsewhere.items())
        + ". Notebook 03 shows this toolkit's runs on every benchmark, each at its own level.")
if "gpt4-released" not in runs:
    say("**The recount of the released G-Eval-4 replies is not in this folder.** Those four "
        "files of nlpyang/geval are downloaded from GitHub, so the recount is produced by "
        "the first command (`snakemake --cores 4`) on a networked machine.")
if runs and not real:
    say("> **Only the fixture judge ran.** Every judge number below is synthetic test data, "
        "shown to exercise the notebook; none of it is a result.")
"""),
    md("""
## Table 1 in the paper's layout

As written by the pipeline (`results/tables/table1_summeval.md`): our value next to the
printed one for every metric the paper lists.
"""),
    code("""
show_table("table1_summeval")
"""),
    md("""
## Main table and one reply per item, per judge run

For each run on SummEval: Spearman ρ and Kendall τ per dimension, ours (dot, 95 %
bootstrap interval over documents) against the paper's printed value (cross): the run's
`paper_metric` row for the mean of the replies, its "-Probs" row for one reply. One plot per
correlation level, named in its title with the run's status: the summary level the paper
prints, and the system level (16 systems' mean scores) where a run has it, which the paper
does not print. The tables name each row's level and the items it rests on (`n_items`).
"""),
    code("""
SUMMEVAL_COLUMNS = [*SUMMEVAL.dimension_names, "AVG"]
LEVELS = [SUMMEVAL.level.value, "system"]  # the printed level first
for judge, status in runs.items():
    say(f"### `{judge}` ({status_label(status)})")
    if status == FIXTURE:
        fixture_banner(judge)
    tables = {name: read_table(f"judges/{judge}/{name}")
              for name in ("main", "one_reply")
              if (TABLES / "judges" / judge / f"{name}.csv").is_file()}
    if not tables:  # a run of per-item scores: its correlation table only
        tables = {"correlations": read_table(f"judges/{judge}/correlations")}
    for name, table in tables.items():
        rows = table[table["dimension"].isin(SUMMEVAL_COLUMNS)]
        display(rows[COMPACT].reset_index(drop=True))
        for level, coefficient, part in level_panels(rows, ("spearman", "kendall"), LEVELS):
            compare_plot(part, x="dimension", order=SUMMEVAL_COLUMNS, series="variant",
                         title=plot_title(judge, status, name.replace("_", " "), SUMMEVAL.title,
                                          level, SYMBOL[coefficient], SUMMEVAL.level.value),
                         ylabel=f"{SYMBOL[coefficient]} with expert mean")
"""),
    md("""
## How the parser reads the replies

The released script reads a reply with the regex `^ ?([\\d\\.]+)` and scores an unreadable
reply 0, still counting it in the item's mean; the tolerant parser reads an in-scale number
after an optional label and leaves unreadable replies out. The diagnostics count what each
parser could not read; the parser table shows how much that moves the correlations.
"""),
    code("""
for judge, status in runs.items():
    if not (TABLES / "judges" / judge / "diagnostics.csv").is_file():
        continue
    say(f"### `{judge}` ({status_label(status)})")
    if status == FIXTURE:
        fixture_banner(judge)
    display(read_table(f"judges/{judge}/diagnostics"))
    parsers = read_table(f"judges/{judge}/parsers")
    display(parsers[parsers["coefficient"].isin(["spearman", "kendall"])].reset_index(drop=True))
"""),
    md("""
## Roll-ups and the mean-vs-one-reply test

Roll-ups: mean normalized score, pass rate and mean absolute error against the expert mean.
Significance: paired permutation test of the mean of the replies against one reply.
"""),
    code("""
for judge, status in runs.items():
    if not (TABLES / "judges" / judge / "rollups.csv").is_file():
        continue
    say(f"### `{judge}` ({status_label(status)})")
    if status == FIXTURE:
        fixture_banner(judge)
    display(read_table(f"judges/{judge}/rollups"))
    display(read_table(f"judges/{judge}/significance"))
"""),
    md("""
## Run-to-run agreement of published re-runs

MetricEval (Xiao et al., 2023) published per-item scores of two independent runs of G-Eval-4
and of G-Eval-3.5 on SummEval. How closely two runs of the same judge agree bounds how
precisely any single run's correlation can be read.
"""),
    code("""
if (TABLES / "rerun_agreement.md").is_file():
    show_table("rerun_agreement")
else:
    say("No pair of re-runs of one judge was part of this run.")
"""),
    md("""
## Ties, pairs and systems

Three views the paper does not print, each computed from the same per-item scores as the
rows above (`correlations.csv`; nothing here is compared with a printed number):

- **Pairwise accuracy with ties** (Deutsch, Foster and Freitag, 2023). Within each document,
  a pair of summaries counts as right when the metric orders it as the experts' mean does,
  ties included (the experts tie when their means are equal). `acc_eq` lets the metric tie
  only equal scores; `acc_eq_calibrated` (acc\\*_eq) lets it tie scores that differ by at
  most `epsilon`, the threshold that maximizes the accuracy (one for all documents, re-fitted
  in every bootstrap resample). Two reference rows: a constant metric, which ties every
  pair, so its accuracy is the share of pairs the experts tie (no acc\\*_eq can fall below
  it: a threshold above every difference ties every pair), and a random order, which gets
  half of the untied pairs right. Integer judges tie often; calibration asks how much of a
  judge's Spearman or Kendall is owed to its ties. Rows are ranked only among rows on the
  same items: the full 1,600 summaries, or a partial run's own items (with their own
  reference rows).
- **System level** (as Fabbri et al., 2021, report it for every metric): each system's mean
  score over the 100 documents, one correlation over the 16 systems.
- **Judge vs judge**: a paired permutation test for every pair of metrics (swapping whole
  documents), Holm-corrected within each ranking, dimension and coefficient; metrics in one
  band are statistically indistinguishable. The figure shows the ranking on all 1,600
  summaries; a partial run is ranked apart, on its own items
  (`significance_clusters.csv`, its `ranking` column).
"""),
    code("""
accuracy = read_table("pairwise_accuracy")
if accuracy is not None:
    summeval = accuracy[accuracy["benchmark"] == "summeval"]
    full = summeval[summeval["ranking"] == "full"]
    say("Ranking `full`: every metric on all 1,600 summaries, summary level (pairs within a "
        "document), with the two reference rows.")
    display(full.pivot_table(index=["level", "metric", "variant"], columns="dimension",
                             values=["acc_eq", "acc_eq_calibrated"], sort=False).round(3))
    say("Share of within-document pairs the experts tie: " + ", ".join(
        f"{d} {r:.1%}" for d, r in full.groupby("dimension")["human_tie_rate"].first().items()))
    partial = summeval[summeval["ranking"] != "full"]
    if len(partial):
        say("Partial runs, each ranked on its own items with its own reference rows:")
        display(partial[["dimension", "ranking", "metric", "variant", "level", "acc_eq",
                         "acc_eq_calibrated", "n_items", "status"]].reset_index(drop=True))
correlations = read_table("correlations")
system = correlations[(correlations["benchmark"] == "summeval") & (correlations["level"] == "system")
                      & correlations["status"].isin(VALUE_STATUSES)
                      & correlations["dimension"].isin(SUMMEVAL.dimension_names)]
if len(system):
    say("System level: each system's mean score over the documents a metric scores, one "
        "correlation over the 16 systems (`n_groups` documents in `correlations.csv`).")
    display(system.pivot_table(index=["level", "metric", "variant", "status"],
                               columns=["dimension", "coefficient"], values="value").round(3))
show_figure("significance_clusters_summeval")
"""),
]

SWEEP = [
    md("""
# How many replies per item? The sweep

G-Eval-4's score of an item is the mean of 20 sampled replies. For n = 1 ... 20, the sweep
averages the first n replies (released order) or random n-subsets (mean and 2.5-97.5 %
band over the draws), and correlates the result with the expert ratings at SummEval's
summary level. The dashed line marks the paper's printed value. Averaging more replies
breaks ties between items (last figure), which is much of why Kendall's τ rises with n.
"""),
    code("""
runs = {judge: judge_status(RESULTS, judge) for judge in judges_in(RESULTS)}
swept = [j for j in runs if (TABLES / "judges" / j / "sweep.csv").is_file()]
if not swept:
    say("No judge run with replies is in this results folder, so there is no sweep. The "
        "released G-Eval-4 replies are downloaded by the first command (`snakemake --cores 4`) "
        "on a networked machine.")
if swept and all(runs[j] == FIXTURE for j in swept):
    say("> **Only the fixture judge ran.** The curves below come from synthetic test "
        "replies; none of it is a result.")
"""),
    code("""
for judge in swept:
    say(f"## `{judge}`")
    if runs[judge] == FIXTURE:
        fixture_banner(judge)
    for name in ("sweep_spearman", "sweep_kendall", "tie_rate", "sweep_accuracy"):
        show_figure(f"judges/{judge}/{name}")
"""),
    md("""
## The curves in numbers

Correlation at selected n (released parser, Spearman ρ and Kendall τ), and `gain_share`:
the share of the gain from 1 to 20 replies reached at n.
"""),
    code("""
for judge in swept:
    say(f"### `{judge}`" + (" (FIXTURE)" if runs[judge] == FIXTURE else ""))
    sweep = read_table(f"judges/{judge}/sweep")
    fixed = sweep[sweep["mode"].isin(["first", "random"]) & (sweep["parser"] == "original")]
    picked = fixed[fixed["n"].isin([1, 2, 5, 10, 20])]
    display(picked.pivot_table(index=["coefficient", "mode", "dimension"], columns="n",
                               values=["value", "gain_share"]).round(3))
"""),
    md("""
**Replies sampled until the score is sure.** The same replies, with adaptive sampling's rule
replayed on them (docs/judge-runner.md): an item stops once the standard error of its mean
rating is within the target (batches of 4, at most 20). Spearman ρ (mean over random reply
orders) and the mean replies per item the rule used, per target, beside the fixed-n curve
above.
"""),
    code("""
for judge in swept:
    sweep = read_table(f"judges/{judge}/sweep")
    rows = sweep[(sweep["mode"] == "adaptive") & (sweep["parser"] == "original")
                 & (sweep["coefficient"] == "spearman")]
    say(f"### `{judge}`")
    display(rows.pivot_table(index="dimension", columns="se_target",
                             values=["value", "replies_used"]).round(3))
"""),
    md("""
## On binary labels: SummEdits

A run on SummEdits' consistent / inconsistent labels is swept the same way, with ROC AUC and
balanced accuracy in place of correlations (docs/protocol.md, "Binary labels"): for each n,
the items' means of their first n replies (or of random n-subsets), each statistic computed
per domain as in `binary_labels.csv` (balanced accuracy's threshold re-fitted on the
`evaluation` split for every n and draw) and averaged over the 8 domains. A point is missing
where some domain has too few scored test pairs or one class among them. The dotted line is
chance (0.5: a constant or random score). The last panel is the share of (consistent,
inconsistent) test pairs whose two scores tie: ROC AUC counts each as one half. These runs
rest on the labelled subset they scored (n test pairs in `binary_labels.csv`).
"""),
    code("""
labelled = [
    path.parent.name for path in sorted((TABLES / "judges").glob("*/sweep.csv"))
    if "roc_auc" in set(pd.read_csv(path, usecols=["coefficient"])["coefficient"])
]
binary = read_table("binary_labels")
if not labelled:
    say("No run on binary labels with replies is in this results folder.")
for judge in labelled:
    status = set(binary.loc[binary["metric"] == judge, "status"])
    say(f"### `{judge}`")
    if status == {FIXTURE}:
        fixture_banner(judge)
    show_figure(f"judges/{judge}/sweep_binary_labels")
    sweep = read_table(f"judges/{judge}/sweep")
    top = int(sweep["n"].max())
    picked = sweep[sweep["n"].isin(sorted({1, 2, 5, 10, top} & set(sweep["n"])))]
    display(picked.pivot_table(index=["coefficient", "parser", "mode"], columns="n",
                               values="value", dropna=False).round(3))
"""),
    md("""
## Probs and -Probs from one run: this toolkit's own runs

A run in mode `both` (status `toolkit-run`: this toolkit's judge runner, e.g. SmolLM2-135M
served by llama.cpp, `workflow/configs/local_model.yaml`) gives the paper's two G-Eval
variants from the same replies: **Probs**, the probability-weighted rating of Eq. 1 read
from the log-probabilities (or estimated by the mean of the n sampled replies), and
**-Probs**, one rating per item (the most likely rating, or the first reply). Spearman ρ
with the human scores at the benchmark's level, per dimension (the benchmark's own list);
the notes say how many items the partial run covers and in how many of them the model's
reply held a rating token at all (coverage: an item without one has no Eq. 1 score, it is
not counted as 0).
"""),
    code("""
from geval_repro.registry.benchmarks import get_benchmark

EQ1, TOP = "probability-weighted rating (Eq. 1)", "most likely rating"


def probs_comparison(rows):
    \"\"\"Spearman ρ of Probs and -Probs variants of one run at its benchmark's level,
    dimensions as columns.\"\"\"
    benchmark = get_benchmark(rows["benchmark"].iloc[0])
    mean = next((v for v in rows["variant"].unique() if v.startswith("mean-of-")
                 and v.endswith("/original")), None)
    names = {EQ1: "Probs: Eq. 1 on the log-probabilities",
             mean: "Probs: mean of the replies (released parser)",
             TOP: "-Probs: most likely rating",
             "first-reply/original": "-Probs: first reply (released parser)"}
    picked = rows[(rows["coefficient"] == "spearman") & (rows["level"] == benchmark.level)
                  & rows["variant"].isin(names)]
    table = picked.pivot_table(index="variant", columns="dimension", values="value",
                               sort=False, dropna=False)
    columns = [d for d in (*benchmark.dimension_names, "AVG") if d in table.columns]
    table = table.reindex(index=[v for v in names if v in table.index], columns=columns)
    return table.rename(index=names).round(3)


toolkit = [j for j in judges_in(RESULTS)
           if "toolkit-run" in set(read_table(f"judges/{j}/correlations")["status"])]
if not toolkit:
    say("No run of this toolkit's judge runner is in this results folder.")
for judge in toolkit:
    rows = read_table(f"judges/{judge}/correlations")
    benchmark, status = run_of(rows)
    info = get_benchmark(benchmark)
    say(f"### `{judge}` ({status_label(status)}): {info.title}, {info.level_name}-level "
        "Spearman ρ")
    display(probs_comparison(rows))
    say("NaN: not scorable (e.g. every item got the same rating; the note in "
        "correlations.csv says why).")
    eq1 = rows[rows["variant"] == EQ1].drop_duplicates("dimension").set_index("dimension")
    judged = [d for d in info.dimension_names if d in eq1.index]  # a run may judge some
    if len(judged) < len(info.dimension_names):
        say(f"The run judged {', '.join(judged)} of {info.title}'s "
            f"{len(info.dimension_names)} dimensions.")
    for dimension in judged:
        parts = [p for p in eq1.loc[dimension, "note"].split("; ")
                 if p.startswith(("partial run", "coverage"))]
        say(f"- {dimension}: " + "; ".join(parts))
"""),
]

TOPICAL_QAGS = [
    md("""
# Topical-Chat and QAGS: baselines, UniEval and the human data

G-Eval's scores for Topical-Chat and QAGS were not released, so their G-Eval rows repeat
the paper (status `not-released` or `paper-only`). What can be recomputed from the pinned
data is: the reference-based baselines, UniEval's rows from its released predictions, and
the human data themselves. Every plot marks the paper's printed value (black cross) on the
same axes as ours (dot, 95 % bootstrap interval).
"""),
    code("""
correlations = read_table("correlations")
say("Rows by benchmark and status:")
display(pd.crosstab(correlations["benchmark"], correlations["status"]))
"""),
    md("""
## Topical-Chat (Table 2: turn level, Pearson r and Spearman ρ)
"""),
    code("""
show_table("table2_topical_chat")
"""),
    code("""
tc = correlations[(correlations["benchmark"] == "topical_chat")
                  & (correlations["level"] == "global")
                  & correlations["status"].isin(VALUE_STATUSES)
                  & correlations["paper_value"].notna()]
tc = tc.assign(series=tc["metric"].where(~tc.duplicated(["metric", "dimension", "coefficient"],
                                                         keep=False),
                                          tc["metric"] + " (" + tc["variant"] + ")"))
for coefficient in ("pearson", "spearman"):
    compare_plot(tc[tc["coefficient"] == coefficient], x="dimension", series="series",
                 order=[*get_benchmark("topical_chat").dimension_names, "AVG"],
                 title=f"Topical-Chat, turn level: {SYMBOL[coefficient]}, ours vs paper",
                 ylabel=f"{SYMBOL[coefficient]} with human mean")
"""),
    md("""
## QAGS (Table 3: dataset level, Pearson r, Spearman ρ, Kendall τ)
"""),
    code("""
show_table("table3_qags")
"""),
    code("""
qa = correlations[correlations["benchmark"].isin(["qags_cnndm", "qags_xsum", "qags_avg"])
                  & (correlations["level"] == "global")
                  & (correlations["dimension"] == "consistency")
                  & correlations["status"].isin(VALUE_STATUSES)
                  & correlations["paper_value"].notna()]
qa = qa.assign(series=qa["metric"].where(~qa.duplicated(["metric", "benchmark", "coefficient"],
                                                         keep=False),
                                          qa["metric"] + " (" + qa["variant"] + ")"))
for coefficient in ("pearson", "spearman", "kendall"):
    compare_plot(qa[qa["coefficient"] == coefficient], x="benchmark", series="series",
                 order=["qags_cnndm", "qags_xsum", "qags_avg"],
                 labels=["CNN/DM", "XSum", "Average"],
                 title=f"QAGS, dataset level: {SYMBOL[coefficient]}, ours vs paper",
                 ylabel=f"{SYMBOL[coefficient]} with human consistency")
"""),
    md("""
## Beyond the paper: DialSummEval (summary level)

DialSummEval (Gao and Wan, NAACL 2022) is not in the paper: 100 SAMSum chat dialogues, each
summarized by 13 systems and given SAMSum's reference summary (system A), every summary
rated 1-5 by three annotators for coherence, consistency, fluency and relevance. The
correlations follow SummEval's summary level: per dialogue over its 13 system summaries,
then averaged. The reference is not an item (it is what ROUGE and the released
reference-based metrics score against; docs/protocol.md). The rows: ROUGE-1/2/L recomputed
here against the reference, the authors' released scores of 32 metrics (correlations
recomputed here from their scores), and the human yardstick (one annotator against the
mean of the other two). Nothing here is compared with a printed number.
"""),
    code("""
ds = correlations[(correlations["benchmark"] == "dialsummeval")
                  & (correlations["level"] == "summary")
                  & (correlations["coefficient"] == "kendall")
                  & (correlations["dimension"] != "AVG")]
ds = ds.assign(row=ds["metric"] + " (" + ds["variant"] + ")")
table = ds.pivot_table(index="row", columns="dimension", values="value")
full_items, full_groups = int(ds["n_items"].max()), int(ds["n_groups"].max())
say(f"Kendall τ at the summary level, on {full_items} summaries in {full_groups} dialogues "
    "unless the row's n says fewer (a partial judge run: its n summaries and dialogues, the "
    "fewest over its dimensions); rows sorted by their mean over the dimensions (ppl, "
    "perplexity, is lower-is-better).")
counts = ds.groupby("row")[["n_items", "n_groups"]].min().astype("Int64")
partial = (counts["n_items"] < full_items) | (counts["n_groups"] < full_groups)
shown = ("n = " + counts["n_items"].astype(str) + " in " + counts["n_groups"].astype(str)
         + " dialogues").where(partial, "")
table = table.assign(mean=table.mean(axis=1)).sort_values("mean", ascending=False).round(3)
table.assign(n=shown.reindex(table.index))
"""),
    md("""
## Beyond the paper: SummEdits (binary labels, by domain)

SummEdits (Laban et al. 2023) is not in the paper: (document, summary) pairs in 8 domains
(news, podcasts, meeting minutes, sales calls, sales e-mails, SAMSum dialogues, SciTLDR,
earnings calls), each labelled consistent (1) or inconsistent (0); the inconsistent ones are
small edits of a consistent seed summary. Binary labels get ROC AUC and balanced accuracy,
not correlations (docs/protocol.md, "Binary labels"): balanced accuracy's threshold is fitted
on each domain's `evaluation` split (4 documents) and applied to its `test` split; the
intervals resample the test split's documents (12-21 per domain), so they are wide. The
reference rows, a constant and a random score, sit at 0.5 in expectation.
"""),
    code("""
binary = read_table("binary_labels")
if binary is not None:
    binary = binary.assign(row=binary["metric"] + " (" + binary["variant"] + ")")
    for metric in binary.loc[binary["status"] == FIXTURE, "metric"].unique():
        fixture_banner(metric)
    full = binary[binary["status"] == "reference"].groupby("domain")["n_items"].max()
    mean = binary[binary["domain"] == "mean over domains"]
    say(f"Means over the domains; the full test split is {int(full['mean over domains'])} "
        f"pairs of {int(mean['n_documents'].max())} documents. A judge run on a subset rests "
        "on its scored test pairs (n); a mean is given only when every domain has a value "
        "(the table's note says why not):")
    cells = (mean["value"].map("{:.3f}".format) + " [" + mean["ci_low"].map("{:.3f}".format)
             + ", " + mean["ci_high"].map("{:.3f}".format) + "]").where(mean["value"].notna(), "")
    means = mean.assign(cell=cells).pivot(index="row", columns="statistic", values="cell")
    counts = mean.groupby("row")[["n_items", "n_documents", "status"]].first()
    display(means.join(counts.rename(columns={"n_items": "n (test pairs)"})))
    say("ROC AUC per domain (rows: metrics). A value on fewer test pairs than the domain's "
        "test split (the last table) shows its n; an empty cell has none (fewer than 3 "
        "scored test pairs, or one class among them: binary_labels.md's notes):")
    auc = binary[(binary["statistic"] == "roc_auc") & (binary["domain"] != "mean over domains")]
    auc = auc.assign(cell=[
        "" if pd.isna(value) else f"{value:.3f}" if n == full[domain] else f"{value:.3f} (n {n})"
        for value, n, domain in zip(auc["value"], auc["n_items"], auc["domain"])
    ])
    domains = list(dict.fromkeys(auc["domain"]))
    display(auc.pivot(index="row", columns="domain", values="cell")[domains])
    display(auc.groupby("domain", sort=False)[["n_items", "n_documents"]].max().T)
"""),
    md("""
## The human data

Agreement among annotators (SummEval's experts, DialSummEval's annotators, QAGS's crowd
workers), a human yardstick for SummEval and DialSummEval (one annotator against the mean of
the other two), the QAGS scores re-derived
from the original MTurk answers and checked against UniEval's conversion, and the
distributions and tie rates of the human scores.
"""),
    code("""
for path in sorted((TABLES / "human").glob("*.md")):
    say(f"### `{path.stem}`")
    show_table(f"human/{path.stem}")
show_figure("human_distributions")
"""),
]

WRITER_VS_LLM = [
    md("""
# Does a judge prefer LLM-written summaries? Writer vs GPT-3.5

The G-Eval paper asks "Will G-Eval prefer LLM-based outputs?" and answers with the human
judgements of Zhang et al. (2023): annotators compared a freelance writer's summary of a
news article with GPT-3.5's (text-davinci-002). The paper: "G-Eval-4 always gives higher
scores to GPT-3.5 summaries than human-written summaries, even when human judges prefer
human-written summaries". Its G-Eval-4 scores of these summaries were not released, so this
notebook shows the same analysis for the judge runs of this results folder and for two
measures that need no judge (length in words, share of novel bigrams). Every number is read
from `results/tables/writer_vs_llm/` (docs/writer-vs-llm.md says how each is computed).
"""),
    code("""
means = read_table("writer_vs_llm/group_means")
preferences = read_table("writer_vs_llm/preferences")
accuracy = read_table("writer_vs_llm/accuracy")
status = dict(zip(means["metric"], means["status"]))
say("Metrics in this folder: " + ", ".join(f"`{m}` ({s})" for m, s in status.items()))
for metric, s in status.items():
    if s == FIXTURE:
        fixture_banner(metric)
"""),
    md("""
## The paper's figure, redrawn

One row of panels per judge run and score variant, a last row for the reference-free
measures; `n` under each group counts the judgements whose two summaries are both scored.
"""),
    code("""
show_figure("writer_vs_llm_group_means")
"""),
    md("""
## Group means: the mean over the dimensions (`AVG`) and the length

In each group of the humans' overall preference, the mean score of the writers' summaries,
of GPT-3.5's, and their difference with its 95 % bootstrap interval over articles.
"""),
    code("""
shown = means[(means["question"] == "overall") & means["dimension"].isin(["AVG", "words"])]
table = shown.pivot_table(index=["metric", "variant", "preference"], columns="author",
                          values="value", sort=False)
table["n_judgements"] = shown.groupby(["metric", "variant", "preference"], sort=False)[
    "n_judgements"].first()
display(table)
"""),
    md("""
## Beyond the paper: does the metric prefer GPT-3.5's summary more often than the humans do?

The net preference for GPT-3.5's summary (share of judgements where it scores higher, minus
the share where the writer's does) of each metric against the humans', overall and within
length strata (where GPT-3.5's summary is the longer or the shorter one), with the p-value
of the paired permutation test over articles. A metric whose net preference exceeds the
humans' also where GPT-3.5's summary is the shorter one prefers more than length.
"""),
    code("""
net = preferences[(preferences["question"] == "overall") & (preferences["outcome"] == "llm - writer")
                  & preferences["dimension"].isin(["AVG", "words"])]
display(net.pivot_table(index=["metric", "variant", "length_stratum"], columns="rater",
                        values="value", sort=False))
display(net[net["rater"] == "metric - humans"][
    ["metric", "variant", "length_stratum", "value", "ci_low", "ci_high", "pvalue",
     "n_judgements"]])
"""),
    md("""
## Agreement with the humans: pairwise accuracy with ties

`acc_eq` counts a judgement as agreed when the metric orders the two summaries as the human
did, an "Equally Good" answer being a tie; `acc_eq_calibrated` fits the metric's tie
threshold. `ceiling` is the best any metric could reach, since evaluators disagree.
"""),
    code("""
display(accuracy[(accuracy["question"] == "overall") & accuracy["dimension"].isin(["AVG", "words"])][
    ["metric", "variant", "coefficient", "value", "ci_low", "ci_high", "tie_rate",
     "human_tie_rate", "ceiling", "n_judgements"]])
"""),
    md("""
## What a 135M model can and cannot show

The toolkit's own run (status `toolkit-run`) is SmolLM2-135M-Instruct on llama.cpp, on every
one of the 188 summaries with the four released SummEval prompts, offline on a 2-core CPU.
The model mostly prefaces its rating ("Rating: 3"), so the run reads its distribution at the
first generated token, which a logit bias makes a rating (the reported probabilities are the
model's own, unbiased; docs/local-model.md): every summary gets a score and every judgement
counts (the `n` columns below); its one reply per request is a rating drawn under that
bias, so its `mean-of-1` rows sample the distribution its Eq. 1 rows average. That shows
the whole analysis end to end on real judge scores, with intervals and tests over all 76
articles, and it lets a reader set a tiny model's preference beside the humans' and beside
length's. What it cannot show: any difference between the writers' and GPT-3.5's summaries
here is the preference of a 135M model read at its first token (G-Eval-4's released scores
average 20 free replies), not of GPT-4; it cannot confirm or refute
the paper's finding about G-Eval-4, which needs G-Eval-4's scores of these summaries (not
released) or a rerun with a strong judge
(docs/writer-vs-llm.md gives the command). Nor is a 135M model's score stable to its last
digits across machines: llama.cpp built with AVX-512 kernels and built without them gives
the same requests probability-weighted scores up to 0.5 apart on the 1-5 scale (medians
0-0.03; docs/local-model.md); the run's manifest names the CPU and the kernels it ran on.
"""),
    code("""
runs = [m for m, s in status.items() if s == "toolkit-run"]
length = means[(means["metric"] == "length") & (means["question"] == "overall")
               & (means["author"] == "writer")]
total = int(length["n_judgements"].sum())  # every judgement: length scores every summary
if not runs:
    say("*No toolkit run in this results folder.*")
for run in runs:
    rows = means[(means["metric"] == run) & (means["question"] == "overall")
                 & (means["author"] == "llm - writer")]
    say(f"`{run}`: judgements with both summaries scored, per variant and dimension "
        f"(of {total}):")
    display(rows.pivot_table(index="variant", columns="dimension", values="n_judgements",
                             aggfunc="sum", sort=False))
"""),
]

NOTEBOOKS = {
    "01_data_tour": DATA_TOUR,
    "02_summeval_recount": SUMMEVAL_RECOUNT,
    "03_sweep": SWEEP,
    "04_topical_chat_qags": TOPICAL_QAGS,
    "05_writer_vs_llm": WRITER_VS_LLM,
}


def build(name: str) -> nbformat.NotebookNode:
    """The notebook ``name``: title cell, parameters, helpers, then its own cells."""
    title, *rest = NOTEBOOKS[name]
    cells = []
    for index, (kind, source) in enumerate([title, code(PARAMETERS), code(HELPERS), *rest]):
        v4 = nbformat.v4
        cell = (v4.new_markdown_cell if kind == "markdown" else v4.new_code_cell)(source)
        cell["id"] = f"{name}-{index}"
        if index == 1:
            cell["metadata"]["tags"] = ["parameters"]
        cells.append(cell)
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook["metadata"] = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nbformat.validate(notebook)
    return notebook


def main(argv: list[str] | None = None) -> int:
    """Write the notebooks named (default: all), executed with ``--execute``. A notebook
    whose cell fails, or a stop (Ctrl-C), is named in one line and leaves its file as it
    was; the exit status is then 1 (130 after Ctrl-C). A notebook whose bytes would not
    change is left as it is, its modification time too (the pipeline's notebook jobs read
    these files: a new time would make the next run plan them again)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execute", action="store_true", help="run them against results/")
    every = ", ".join(NOTEBOOKS)
    parser.add_argument("names", nargs="*", help=f"notebooks to build (default: all: {every})")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in NOTEBOOKS]
    if unknown:
        parser.error(f"no notebook named {', '.join(unknown)} (the notebooks: {every})")
    for name in args.names or NOTEBOOKS:
        notebook = build(name)
        if args.execute:
            try:
                execute_notebook(notebook, cwd=HERE)
            except CellExecutionError as error:
                print(
                    f"{name}: a cell failed ({error.ename}: {error.evalue}); "
                    f"notebooks/{name}.ipynb is left as it was. The notebooks read results/ and "
                    "data/processed/ of a pipeline run: if a file they name is missing, run the "
                    "pipeline first (README.md), then this again.",
                    file=sys.stderr,
                )
                return 1
            except KeyboardInterrupt:
                stopped = f"stopped in {name}; notebooks/{name}.ipynb is left as it was"
                print(stopped, file=sys.stderr)
                return 130
        path = HERE / f"{name}.ipynb"
        if replace_if_changed(path, lambda temporary: nbformat.write(notebook, str(temporary))):
            print(f"wrote {path}")
        else:  # the same bytes: its time kept, so a pipeline run does not plan its jobs again
            print(f"{path} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
