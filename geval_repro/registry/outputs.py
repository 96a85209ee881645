"""The names of the run's result files, spelled once: the pipeline's layout
(:mod:`geval_repro.pipeline.layout`), the steps that write them and the readers (README
section, notebooks, report) take them from here.

Paths are relative to the results folder (``results/`` by default). A judge's tables
and figures are named by :mod:`geval_repro.registry.formats` (``CONTENT_RESULTS``,
``SWEEP_FIGURES``).
"""

from __future__ import annotations

from geval_repro.registry.benchmarks import PAPER_TABLES

#: Every row of every benchmark: ``tables/<CORRELATIONS>.csv|.md``.
CORRELATIONS = "correlations"
#: Every judge row against the best recomputed baseline: ``tables/<name>.csv|.md``.
SIGNIFICANCE_VS_BASELINE = "significance_vs_baseline"
#: Every metric's acc_eq and tie-calibrated acc*_eq per benchmark and dimension:
#: ``tables/<name>.csv|.md``.
PAIRWISE_ACCURACY = "pairwise_accuracy"
#: Every pair of metrics (judges and baselines) of a benchmark and dimension, paired
#: permutation test with Holm's correction: ``tables/<name>.csv|.md``.
PAIRWISE_SIGNIFICANCE = "pairwise_significance"
#: The metrics of each benchmark, dimension and coefficient ranked, with their significance
#: clusters: ``tables/<name>.csv|.md``.
SIGNIFICANCE_CLUSTERS = "significance_clusters"
#: The ranking and significance clusters of one benchmark: ``figures/<name>.png|.svg``, the
#: name formatted with the benchmark.
CLUSTER_FIGURE = SIGNIFICANCE_CLUSTERS + "_{benchmark}"
#: The alternative annotator test of every metric on each benchmark with individual
#: annotators: ``tables/<name>.csv|.md``.
ALT_TEST = "alt_test"
#: Soft pairwise accuracy of every metric on each benchmark whose systems share documents:
#: ``tables/<name>.csv|.md``.
SOFT_PAIRWISE_ACCURACY = "soft_pairwise_accuracy"
#: The pair tests behind its significance clusters: ``tables/<name>.csv|.md``.
SOFT_PAIRWISE_PAIRS = "soft_pairwise_accuracy_pairs"
#: Each judge against the best baseline and the human ceiling, paired bootstrap and power:
#: ``tables/<name>.csv|.md``.
JUDGE_POWER = "judge_power"
#: What each judge favours (length, parse failures) and its split-half reliability:
#: ``tables/<name>.csv|.md``.
JUDGE_BIASES = "judge_biases"
#: Every judge's card numbers, one row per judge, benchmark and dimension:
#: ``tables/<name>.csv|.md``.
JUDGE_CARDS = "judge_cards"
#: The folder of the judges' cards: ``<folder>/<judge>.md|.png|.svg``.
CARDS = "cards"
#: Run-to-run agreement of re-runs of one judge: ``tables/<name>.csv|.md``.
RERUN_AGREEMENT = "rerun_agreement"
#: Every metric of the benchmarks of binary human labels (SummEdits) by ROC AUC and
#: balanced accuracy, per domain and averaged: ``tables/<name>.csv|.md``.
BINARY_LABELS = "binary_labels"
#: The metrics ranked on them, with significance clusters: ``tables/<name>.csv|.md``.
BINARY_RANKINGS = "binary_label_rankings"
#: The pair tests behind those clusters: ``tables/<name>.csv|.md``.
BINARY_PAIRS = "binary_label_pairs"
#: The sweeps of every judge with replies: ``tables/<name>.csv``.
SWEEP = "sweep"
#: The paper's Tables 1-3 laid out as printed: number -> ``tables/<stem>.md``.
PAPER_LAYOUTS: dict[int, str] = {n: table.stem for n, table in PAPER_TABLES.items()}
#: Every recomputed cell of paper table N against its printed value:
#: ``figures/<name>.png|.svg``.
REPRODUCTION_FIGURES: dict[int, str] = {n: f"reproduction_{s}" for n, s in PAPER_LAYOUTS.items()}
#: The human-data tables, ``tables/human/<name>.csv|.md``, in the order they are written.
HUMAN_TABLES: tuple[str, ...] = (
    "annotator_agreement",
    "human_ceiling",
    "summeval_system_means",
    "qags_mturk_vs_unieval",
    "qags_worker_agreement",
    "score_distributions",
    "human_tie_rates",
)
#: The figure of the human score distributions: ``figures/<name>.png|.svg``.
HUMAN_DISTRIBUTIONS = "human_distributions"
#: The writer-vs-LLM analysis of a benchmark of pairwise human preferences (the G-Eval
#: paper's "Will G-Eval prefer LLM-based outputs?"): its tables,
#: ``tables/<benchmark>/<name>.csv|.md``, in the order they are written.
WRITER_VS_LLM_TABLES: tuple[str, ...] = ("group_means", "accuracy", "preferences")
#: Its figure in the paper's layout: ``figures/<name>.png|.svg``, the name formatted with the
#: benchmark.
WRITER_VS_LLM_FIGURE = "{benchmark}_group_means"
#: The folder of the reference-free measures' work rows, beside the judges' folders.
REFERENCE_FREE = "reference_free"
