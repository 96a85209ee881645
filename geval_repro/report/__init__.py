"""What a reader sees, made from computed tables (display only; nothing is computed here
that a table does not hold):

- :mod:`.markdown` and :mod:`.table_files`: Markdown tables and the CSV + Markdown pair on
  disk; :mod:`.paper_layout`: Tables 1-3 laid out as printed; :mod:`.benchmark_layout`:
  the benchmarks the paper does not report, laid out in its tables' style;
- :mod:`.figures`: the reproduction figures, the sweep, the human score distributions;
  :mod:`.cluster_figure`: each benchmark's significance clusters;
  :mod:`.writer_vs_llm_figure`: writer vs GPT-3.5 scores by the human preference;
  :mod:`.label_sweep_figure`: the sweep on binary labels;
  :mod:`.judge_card`: a judge's card page and figure; :mod:`.binary_card`: the card of a run
  on binary labels; :mod:`.card_text`: the cards' words and the leaderboard;
- :mod:`.readme`: the results page (results/README.md); :mod:`.pages`: the Snakemake report's pages;
  :mod:`.notebooks`: executed notebooks and their pages; :mod:`.html_page`: the pages'
  frame; :mod:`.export_hf`: the Hugging Face export;
- :mod:`.provenance`: the provenance sidecar of every table and figure.

May import :mod:`geval_repro.registry`, :mod:`geval_repro.files`, :mod:`geval_repro.tables`,
:mod:`geval_repro.scoring`, :mod:`geval_repro.baselines` and :mod:`geval_repro.config`.
"""
