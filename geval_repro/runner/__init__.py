"""The judge runner: re-run G-Eval with any OpenAI-compatible model (``geval-repro judge``).

- :mod:`.prompts`: prompt templates (released SummEval files, this toolkit's others, a
  benchmark's released prompt variants), filling them with an item's texts, and frozen
  evaluation steps with their content hash;
- :mod:`.requests`: the Chat Completions request body of each mode, top-up requests and the
  first-position logit bias;
- :mod:`.logprobs`: the rating distribution read from top log-probabilities (a Yes/No
  answer's: P(Yes));
- :mod:`.cache`: the SQLite store of raw responses, keyed by the full request;
- :mod:`.urls`: a server's base URL, checked (http or https, a host, a port, no credential);
- :mod:`.keys`: which API key a server gets (never over plain HTTP to another machine), and
  redacting it from everything returned, also where it is escaped or encoded;
- :mod:`.answers`: what an answer must hold before it is cached;
- :mod:`.client`: one server's requests with retries, bounded in time and size (the
  ``openai`` package's HTTP client);
- :mod:`.probe`: what a server supports, and the checks before anything is sent;
- :mod:`.lock`: one run at a time per output (and cache) folder, and files opened there
  without following a link;
- :mod:`.stopping`: SIGINT and SIGTERM stop a run cleanly;
- :mod:`.dispatch`: a run's requests grouped by shared text, spread over servers, topped up
  to ``n`` replies per item;
- :mod:`.server`: a local server (llama-cpp-python's ``llama_cpp.server``) started and
  stopped around a run (or by ``geval-repro serve``);
- :mod:`.subset`: a seeded subset of a benchmark's documents (items) for a partial run;
- :mod:`.run`: one run end to end, writing ``<dimension>.jsonl`` and ``manifest.json``;
- :mod:`.configured`: a run described by a judge's ``run:`` config block (the Snakemake
  rule ``judge_run_<judge>``).

- :mod:`.fields`: which request fields a server accepts (a reasoning model's refusals), and
  the completion budget.

May import :mod:`geval_repro.registry`, :mod:`geval_repro.files`, :mod:`geval_repro.load`
(a benchmark's items) and :mod:`geval_repro.stats` (Eq. 1, adaptive sampling's stopping
rule); of :mod:`geval_repro.scoring` only its reply parsers (:mod:`geval_repro.scoring.parse`,
which imports only the registry: adaptive sampling reads the ratings it stops on with them).
"""
