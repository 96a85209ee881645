"""The rows of the result tables, computed: DataFrames in, DataFrames out (no files).

- :mod:`.rows`: correlation rows (one per benchmark, dimension, metric, variant, level,
  coefficient) next to the paper's printed value;
- :mod:`.averages`: the AVG / Average rows; :mod:`.printed`: rows of printed numbers not
  recomputed, and the combined table in the paper's order;
- :mod:`.judge_rows`: every table of one judge run; :mod:`.significance`: judge rows
  against the best recomputed baseline; :mod:`.judge_pairs`: every pair of metrics of a
  benchmark tested (judge vs judge), ranked in significance clusters.

May import :mod:`geval_repro.registry`, :mod:`geval_repro.stats` and
:mod:`geval_repro.scoring`; the pipeline writes what it returns, :mod:`geval_repro.report`
displays it.
"""
