"""geval-repro: a reproduction toolkit for G-Eval (Liu et al., EMNLP 2023).

The packages, in the order data flows through them (each imports only packages above it in
this list, never one below):

- ``stats``: meta-evaluation statistics on score matrices (no knowledge of benchmarks);
- ``registry``: what the toolkit knows: benchmarks, judge-run formats, upstream sources,
  the paper's printed tables, the names of the result files;
- ``files``: upstream files fetched and verified, the offline mirror, atomic writes;
- ``load``: raw files to tidy, validated tables;
- ``baselines``, ``human``: model-free metrics, analyses of the human judgements;
- ``scoring``: a judge run's replies to per-item scores, the replies-per-item sweep;
- ``runner``: the judge runner (requests to a model server, cache, manifests);
- ``tables``: rows of the result tables, computed (DataFrames in, DataFrames out);
- ``report``: their display: Markdown, figures, the README section, report pages,
  exports, provenance;
- ``pipeline``: one function per Snakemake rule, the layout of the run's files.

``config`` validates a pipeline config and builds its typed ``Settings``; ``cli`` is the
command line (``geval-repro``).
"""

__version__ = "0.1.0"
