"""The rows of the result tables, computed: DataFrames in, DataFrames out (no files).

- :mod:`.rows`: correlation rows (one per benchmark, dimension, metric, variant, level,
  coefficient) next to the paper's printed value;
- :mod:`.averages`: the AVG / Average rows; :mod:`.printed`: rows of printed numbers not
  recomputed, and the combined table in the paper's order;
- :mod:`.judge_rows`: every table of one judge run;
- :mod:`.paired_tests`: the one builder of paired permutation tests between metrics, of
  which :mod:`.significance` (judge rows against the best recomputed baseline) and
  :mod:`.judge_pairs` (every pair of metrics of a benchmark, judge vs judge, ranked in
  significance clusters) are views;
- :mod:`.item_sets`: which items a comparison of metrics rests on (a benchmark's full
  items, the metrics that cover them, a partial run's own items), read by
  :mod:`.judge_pairs` and :mod:`.pairwise_accuracy` (acc_eq / acc*_eq per metric, ranked
  within the rows on the same items, beside a constant and a random reference);
- :mod:`.alt_test`: the alternative annotator test of every metric against a benchmark's
  individual annotators, beside a random and a constant rating; :mod:`.soft_pairwise`: soft
  pairwise accuracy at the system level; :mod:`.judge_cards`: one row per judge, benchmark
  and dimension with every number of its card, read from the other tables;
- :mod:`.writer_vs_llm`: does a metric prefer the LLM's summary (Zhang et al.'s writer vs
  GPT-3.5 judgements): the paper's group means, accuracy with ties, preference rates.

May import :mod:`geval_repro.registry`, :mod:`geval_repro.stats`,
:mod:`geval_repro.scoring`, :mod:`geval_repro.baselines` (reference-free measures) and
:mod:`geval_repro.load` (the writer-vs-LLM tables' own checks); the pipeline writes what it
returns, :mod:`geval_repro.report` displays it.
"""
