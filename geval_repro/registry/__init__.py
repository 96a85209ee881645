"""What the toolkit knows, as registries every other part derives its lists from.

- :mod:`.benchmarks`: the benchmarks (SummEval, Topical-Chat, the QAGS subsets) and every
  fact about each (dimensions, scales, item keys, correlation level, prompts, baselines,
  printed coefficients, sources), the paper's tables and averages;
- :mod:`.formats`: the judge-run formats and what each yields;
- :mod:`.judges`: a judge as a typed spec (built once by :mod:`geval_repro.config`);
- :mod:`.sources`: the upstream files (URL, commit, SHA-256, licence), from
  ``geval_repro/data/sources.yaml``;
- :mod:`.paper`: the numbers the paper prints (``geval_repro/data/paper_tables.csv``);
- :mod:`.summeval_paper`: the numbers SummEval's own paper prints (Fabbri et al. 2021: its
  system-level Table 2 and per-system expert means, Table 3), a source apart from the
  G-Eval paper's;
- :mod:`.outputs`: the names of the run's result files.

Imports nothing of the package but :mod:`geval_repro.stats.level` (the correlation level,
light); everything but :mod:`.paper` and :mod:`.summeval_paper` (pandas) is light enough
for the workflow to read when it is parsed.
"""
