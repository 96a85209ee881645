"""The pipeline: one function per Snakemake rule (rules stay one call long), reading the
rule's input files and writing its outputs; the only place that reads the run's settings
and paths.

- :mod:`.layout`: where every file of a run goes; :mod:`.targets`: what a run makes (its
  judges by what they yield, every list and wildcard constraint of the rules);
  :mod:`.report_layout`: the report's pages and the notebooks' inputs;
- :mod:`.jobs`: what a rule's ``run:`` block calls (``JOBS.run``, with the rule's
  ``params.job`` from ``JOBS.job``: its function and the digest of its code,
  :mod:`.code_digest`) and the Snakefile's ``onstart``; :mod:`.processes`: every job in a
  process of its own, which writes its log and the provenance sidecars of its outputs,
  forked from the run's :mod:`.fork_server`;
  :mod:`.string_storage`: the jobs' pandas strings in Python objects;
- :mod:`.summary`: the closing summary of a run that could not make everything;
- the rule functions: :mod:`.downloads`, :mod:`.tidy`, :mod:`.baseline_tables`,
  :mod:`.unieval_rows`, :mod:`.human_tables`, :mod:`.judge_runner`, :mod:`.judge_tables`,
  :mod:`.significance`, :mod:`.judge_pairs`, :mod:`.judge_cards`, :mod:`.correlations`,
  :mod:`.rerun_agreement`,
  :mod:`.writer_vs_llm`, :mod:`.readme`, :mod:`.report_jobs`, :mod:`.exports`; and
  :mod:`.recount`, the command line's ``recount`` through the same steps.

May import every other package; nothing imports it but the workflow and the command line.
"""
