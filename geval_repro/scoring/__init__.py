"""From a judge run's raw replies to per-item scores, diagnostics and the replies-per-item sweep.

Modules: :mod:`~geval_repro.scoring.parse` (the released and a tolerant reply parser),
:mod:`~geval_repro.scoring.item_scores` (mean / first / mode per item, probability-weighted
scores), :mod:`~geval_repro.scoring.rollups` (normalized score, pass rate, error against gold),
:mod:`~geval_repro.scoring.diagnostics` (unparsed counts, varying items),
:mod:`~geval_repro.scoring.sweep` (correlation against human scores vs replies per item) and
:mod:`~geval_repro.scoring.label_sweep` (ROC AUC and balanced accuracy against binary human
labels vs replies per item).

May import :mod:`geval_repro.registry` and :mod:`geval_repro.stats`.
"""
