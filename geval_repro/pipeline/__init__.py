"""The pipeline: one function per Snakemake rule (rules stay one call long), reading the
rule's input files and writing its outputs; the only place that reads the run's settings
and paths.

- :mod:`.layout`: where every file of a run goes; :mod:`.targets`: what a run makes (its
  judge runs by what they yield, the lists the rules share); :mod:`.report_layout`: the
  report's pages and the notebooks' inputs;
- :mod:`.jobs`: every job's log file, the provenance sidecars of its outputs, and the stop
  signals passed on to :mod:`.processes` (jobs that run in a process of their own, forked
  from the run's :mod:`.fork_server`); :mod:`.string_storage`: the jobs' pandas strings in
  Python objects;
- :mod:`.summary`: the closing summary of a run that could not make everything;
- the rule functions: :mod:`.downloads`, :mod:`.tidy`, :mod:`.baseline_tables`,
  :mod:`.unieval_rows`, :mod:`.human_tables`, :mod:`.judge_runs`, :mod:`.judge_tables`,
  :mod:`.significance`, :mod:`.judge_pairs`, :mod:`.correlations`, :mod:`.rerun_agreement`,
  :mod:`.readme`, :mod:`.report_jobs`, :mod:`.exports`.

May import every other package; nothing imports it but the workflow and the command line.
"""
