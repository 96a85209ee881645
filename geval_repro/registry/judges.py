"""A judge as one typed, frozen object: :class:`JudgeSpec`, with its ``run:`` block as a
:class:`RunSpec`.

The config's ``judges:`` entries are checked and turned into specs once, by
:func:`geval_repro.config.judge_specs`; everything below the config (loaders, tables, the
judge runner, the layout of its files) reads the spec, never the raw entry. A spec holds
what its entry says and what follows from it:

- ``benchmark`` (:class:`~geval_repro.registry.benchmarks.Benchmark`) and ``format``
  (:class:`~geval_repro.registry.formats.JudgeFormat`);
- ``status`` of its rows (:func:`status_of`: the one rule);
- ``contents``: what the run yields (``replies``, ``item_scores``, ``rating_probs``):
  a format's fixed contents, else the entry's ``reads``, else what its run's mode writes;
- ``files``: its input files by dimension (``"*"`` for the one file of a ``scores`` run),
  ``manifest`` (the run's manifest.json, provenance only), ``dir`` (a geval-jsonl folder);
- ``run``: a :class:`RunSpec`, the ``run:`` block with the command line's defaults
  (:data:`RUN_DEFAULTS`) filled in, or None; where its job runs under a cluster profile
  (``on_cluster``) and what it asks the cluster for (``resources``, a :class:`JobResources`);
- ``scale``: the scale of a ``scores`` run's numbers (:data:`SCALES`): ``raw`` (the
  judge's own scores) or ``rank-normal`` (MetricEval's transform of them);
- ``prices``: the model's prices per million tokens (:class:`Prices`), for the judge card's
  cost in USD, or None (the config gives none);
- ``prompt_variant``: the benchmark's prompt the run sent (``geval``, its G-Eval form, or a
  registered variant such as SummEdits' ``yes-no``, whose replies are Yes/No answers:
  :attr:`JudgeSpec.answers`); its ``run:`` block sends it.

Light on purpose: the workflow builds every spec when it is parsed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from geval_repro.registry.benchmarks import GEVAL_PROMPT, Benchmark
from geval_repro.registry.formats import (
    CONTENT_RESULTS,
    CONTENT_TABLES,
    WITHOUT_HUMAN_SCORES,
    Content,
    JudgeFormat,
)

Status = Literal["recomputed", "toolkit-run", "fixture"]
Scale = Literal["raw", "rank-normal"]

#: The scales a ``scores`` run's numbers may be on (its entry's ``scale:``, default ``raw``):
#: scale -> what the numbers are. ``rank-normal`` is MetricEval's ``normalize2``
#: (isle-dev/MetricEval, ``supplementary_materials/MetricEval_CaseStudy.Rmd``), applied to
#: every metric column of its published tables over all of the file's rows: a strictly
#: increasing map of the raw scores, so a statistic that depends on their order alone
#: (:func:`geval_repro.stats.invariance.order_only`) equals the raw scores' value, and any
#: other (Pearson, the system level, a tie threshold) does not.
SCALES: dict[Scale, str] = {
    "raw": "the judge's scores as it gave them",
    "rank-normal": "MetricEval's rank-normal scores (its normalize2: the normal quantile "
    "qnorm(0.001 + 0.998 F(x)) of each score's empirical CDF F over all the file's rows, "
    "then standardized), not the judge's own scale",
}

#: The command line's defaults of the ``run:`` keys (``n`` depends on the mode:
#: :func:`default_n`); ``geval-repro judge`` and the ``run:`` block share them.
RUN_DEFAULTS: dict[str, Any] = {
    "base_url": "https://api.openai.com/v1",
    "temperature": 1.0,
    "top_p": 1.0,
    "max_tokens": None,  # automatic: 5 (released), more for a reasoning model (runner.fields)
    "top_logprobs": 20,
    "concurrency": None,  # automatic: the probe decides (geval_repro.runner.probe)
    "limit": None,
    "sample": None,  # all the inputs; K: a seeded subset of K documents (items)
    "timeout": 60.0,
    "max_attempts": 6,
    "api_key_env": None,  # not named: $OPENAI_API_KEY for api.openai.com only
    "seed": None,
    "topup_logprobs": False,
    "first_position": None,
    "se_target": None,  # adaptive sampling off: n replies per item
    "batch": 4,  # replies per request of adaptive sampling
}


def default_n(mode: str) -> int:
    """Replies per item when ``n`` is not given: 20 (the paper's), 1 in ``logprobs`` mode
    (its single reply is not a sample)."""
    return 1 if mode == "logprobs" else 20


def status_of(*, fixture: bool, toolkit_run: bool) -> Status:
    """The status of a judge's rows: ``fixture`` for synthetic test data;
    ``toolkit-run`` for a run this toolkit's judge runner made (a ``run:`` block, or
    ``toolkit_run: true`` for its committed files); else ``recomputed`` (replies or scores
    published upstream, recounted here)."""
    if fixture:
        return "fixture"
    if toolkit_run:
        return "toolkit-run"
    return "recomputed"


@dataclass(frozen=True)
class FileSpec:
    """One judge input file, as the config gives it: a local ``path`` (pinned when it has a
    ``sha256``), a ``source`` of the sources registry, or a ``url`` with its ``sha256``."""

    path: str | None = None
    sha256: str | None = None
    source: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class LocalServer:
    """A local llama.cpp server a judge job starts and stops (``server: llama_cpp:``)."""

    model: str
    n_ctx: int = 8192
    threads: int | None = None
    startup_timeout: float = 180.0


@dataclass(frozen=True)
class JobResources:
    """What a judge job on a compute node asks the cluster for beyond its CPUs (the local
    server's ``threads``), as Snakemake resources of its rule (docs/cluster.md): ``mem_mb``
    and ``runtime`` (minutes; each estimated when not given: :func:`job_resources`), ``gpu``
    (GPUs, ``--gpus``), ``gpu_model``, ``gres`` (``--gres``, e.g. ``gpu:a100:1``),
    ``slurm_partition``, ``slurm_account`` and ``slurm_extra`` (further ``sbatch``
    options). None: not asked for (the profile's default)."""

    mem_mb: int | None = None
    runtime: int | None = None
    gpu: int | None = None
    gpu_model: str | None = None
    gres: str | None = None
    slurm_partition: str | None = None
    slurm_account: str | None = None
    slurm_extra: str | None = None

    def given(self) -> dict[str, int | str]:
        """The resources the block names, by Snakemake's resource name."""
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class RunSpec:
    """A ``run:`` block with every default filled in (the flags of ``geval-repro judge``;
    docs/judge-runner.md). ``model`` is the local server's when the block has a
    ``server``; ``dimensions`` are every dimension of the benchmark unless the block names
    some; ``prompts``: dimension -> a template file used instead of the default prompt;
    ``prompt_variant``: the benchmark's prompt it sends (its G-Eval form, or a registered
    variant: the judge entry's ``prompt_variant``, ``--prompt-variant``).
    ``on_cluster``: under a cluster profile its job runs on a compute node, asking for
    ``resources`` (default: with a ``server``, which the job then starts on that node);
    otherwise it runs on the submitting node (a hosted API that compute nodes may not
    reach)."""

    mode: str
    model: str
    n: int
    dimensions: tuple[str, ...]
    base_urls: tuple[str, ...] = (RUN_DEFAULTS["base_url"],)
    temperature: float = RUN_DEFAULTS["temperature"]
    top_p: float = RUN_DEFAULTS["top_p"]
    max_tokens: int | None = RUN_DEFAULTS["max_tokens"]
    top_logprobs: int = RUN_DEFAULTS["top_logprobs"]
    concurrency: int | None = RUN_DEFAULTS["concurrency"]
    limit: int | None = RUN_DEFAULTS["limit"]
    sample: int | None = RUN_DEFAULTS["sample"]
    timeout: float = RUN_DEFAULTS["timeout"]
    max_attempts: int = RUN_DEFAULTS["max_attempts"]
    api_key_env: str | None = RUN_DEFAULTS["api_key_env"]
    seed: int | None = RUN_DEFAULTS["seed"]
    topup_logprobs: bool = RUN_DEFAULTS["topup_logprobs"]
    first_position: str | None = RUN_DEFAULTS["first_position"]
    se_target: float | None = RUN_DEFAULTS["se_target"]
    batch: int = RUN_DEFAULTS["batch"]
    prompts: Mapping[str, str] = field(default_factory=dict)
    prompt_variant: str = GEVAL_PROMPT
    server: LocalServer | None = None
    on_cluster: bool = False
    resources: JobResources = field(default_factory=JobResources)

    @property
    def threads(self) -> int | None:
        """The CPU threads its local server takes (None: no local server)."""
        return None if self.server is None else self.server.threads


#: What the estimate of a judge job's memory adds up (MB of 2^20 bytes; measured on CI's
#: machine type, docs/cluster.md): Snakemake's two processes in the job (the batch script's
#: and its job step's) and the judge process; llama_cpp.server without its model file, KV
#: cache and logits.
JOB_MB = 800
SERVER_MB = 500
#: float32 copies of a prompt's logits (tokens x vocabulary) llama-cpp-python holds at once
#: while it returns log-probabilities (3.0-3.7 measured); the prompt is at most ``n_ctx``.
LOGIT_COPIES = 4
#: The estimate of a judge job's time: minutes to start (Snakemake twice, the server, the
#: plan), and the factor on the model's measured time per item (a slower or shared node).
STARTUP_MINUTES = 5
TIME_MARGIN = 2


def job_resources(run: RunSpec, benchmark: Benchmark) -> dict[str, int | str]:
    """The Snakemake resources of a judge job on a compute node (``on_cluster``), its CPUs
    aside (its ``threads``): ``run.resources`` as given, ``mem_mb`` and ``runtime``
    (minutes) estimated when not given (docs/cluster.md):

    - ``mem_mb`` = :data:`JOB_MB`, plus for a local server :data:`SERVER_MB` + its model
      file + ``n_ctx`` x the model's KV bytes per token, plus in a mode with
      log-probabilities :data:`LOGIT_COPIES` x ``n_ctx`` x vocabulary x 4 bytes;
    - ``runtime`` = :data:`STARTUP_MINUTES` + :data:`TIME_MARGIN` x items x dimensions x the
      model's seconds per item (measured at ``n = 20``) x ``max(1, n / 20)``, items being
      ``limit`` or the benchmark's ``item_count``.

    Raises ``ValueError`` when the time cannot be estimated (no local server, whose model's
    speed is known; or neither a limit nor the benchmark's item count): give ``runtime``.
    """
    from geval_repro.registry.local_models import get_local_model

    given = run.resources.given()
    mem_mb, runtime = JOB_MB, None
    if run.server is not None:
        model = get_local_model(run.server.model)
        context = run.server.n_ctx
        server = model.bytes + context * model.kv_bytes_per_token
        if run.mode != "sample":
            server += LOGIT_COPIES * context * model.vocabulary * 4
        mem_mb += SERVER_MB + math.ceil(server / 2**20)
        counts = [c for c in (run.limit, benchmark.item_count) if c is not None]
        if counts:
            items = min(counts)
            seconds = items * len(run.dimensions) * model.seconds_per_item * max(1, run.n / 20)
            runtime = STARTUP_MINUTES + math.ceil(TIME_MARGIN * seconds / 60)
    if "runtime" not in given and runtime is None:
        raise ValueError(
            "its job on a compute node needs resources: runtime (minutes): its time cannot be "
            + (
                f"estimated ({benchmark.title} states no item count: or give limit)"
                if run.server is not None
                else "estimated without a local server (server:), whose model's speed is known"
            )
        )
    return {"mem_mb": mem_mb, **({} if runtime is None else {"runtime": runtime}), **given}


@dataclass(frozen=True)
class Prices:
    """A model's prices in US dollars per million tokens, from a judge's ``prices:``."""

    prompt_usd_per_million: float
    completion_usd_per_million: float

    def usd(self, prompt_tokens: float, completion_tokens: float) -> float:
        """The cost in USD of ``prompt_tokens`` and ``completion_tokens``:
        (prompt x prompt price + completion x completion price) / 10^6."""
        return (
            prompt_tokens * self.prompt_usd_per_million
            + completion_tokens * self.completion_usd_per_million
        ) / 1e6


@dataclass(frozen=True)
class JudgeSpec:
    """One judge of the config (see the module docstring)."""

    name: str
    benchmark: Benchmark
    format: JudgeFormat
    label: str
    status: Status
    contents: tuple[Content, ...]
    files: Mapping[str, FileSpec]
    paper_metric: str | None = None
    manifest: FileSpec | None = None
    dir: str | None = None
    columns: Mapping[str, str] = field(default_factory=dict)
    extra_items: str = "error"
    run: RunSpec | None = None
    scale: Scale = "raw"
    prices: Prices | None = None
    prompt_variant: str = GEVAL_PROMPT

    @property
    def answers(self) -> bool:
        """Whether its prompt is a variant whose reply is a Yes/No answer (read by the
        ``yes-no`` parser; its rating probabilities are over No 0 and Yes 1)."""
        return self.benchmark.prompt_variant(self.prompt_variant) is not None

    @property
    def dimensions(self) -> tuple[str, ...]:
        """The dimensions the run scores, in the benchmark's order."""
        if self.columns:
            return tuple(d for d in self.benchmark.dimension_names if d in self.columns)
        return tuple(d for d in self.benchmark.dimension_names if d in self.files)

    @property
    def has_replies(self) -> bool:
        """Whether the run has reply texts (and so item scores, a sweep and its figures)."""
        return "replies" in self.contents

    @property
    def has_sweep(self) -> bool:
        """Whether the run gets the replies-per-item sweep and its figures: replies, on a
        benchmark with per-item human scores (the sweep correlates with them), the same
        number per item (not an adaptive run's, whose items stop at their own n)."""
        return self.has_replies and self.benchmark.has_human_scores and not self._adaptive

    @property
    def has_label_sweep(self) -> bool:
        """Whether the run gets the replies-per-item sweep on binary labels
        (:mod:`geval_repro.scoring.label_sweep`) and its figure: replies, on a benchmark of
        binary human labels, the same number per item."""
        return self.has_replies and self.benchmark.labels is not None and not self._adaptive

    @property
    def _adaptive(self) -> bool:
        """Whether its items stop at their own number of replies (an adaptive run)."""
        return self.run is not None and self.run.se_target is not None

    @property
    def processed_tables(self) -> tuple[str, ...]:
        """The processed tables its files are read into (``replies``, ``scores``,
        ``rating_probs``: ``data/processed/judges/<judge>/<name>.parquet``)."""
        return tuple(CONTENT_TABLES[content] for content in self.contents)

    @property
    def result_tables(self) -> tuple[str, ...]:
        """Its result tables (``results/tables/judges/<judge>/<name>.csv|.md``), in a fixed
        order, each once; on a benchmark without per-item human scores only those that read
        none (:data:`~geval_repro.registry.formats.WITHOUT_HUMAN_SCORES`)."""
        names = [name for content in self.contents for name in CONTENT_RESULTS[content]]
        if not self.benchmark.has_human_scores:
            names = [name for name in names if name in WITHOUT_HUMAN_SCORES]
        return tuple(dict.fromkeys(names))

    @property
    def pinned_files(self) -> dict[str, str]:
        """Its local files pinned by SHA-256 (``{path, sha256}``, its ``manifest``
        included): path -> SHA-256, verified whenever the pipeline reads them."""
        specs = [*self.files.values(), *([self.manifest] if self.manifest else [])]
        return {s.path: s.sha256 for s in specs if s.path is not None and s.sha256 is not None}

    @property
    def manifest_path(self) -> Path | None:
        """The run's ``manifest.json`` (provenance only), if it has one: its ``manifest``,
        or the one in its ``dir`` (a run with a ``run:`` block always has one: the pipeline
        writes it)."""
        if self.manifest is not None and self.manifest.path is not None:
            return Path(self.manifest.path)
        if self.dir is not None and (
            self.run is not None or (Path(self.dir) / "manifest.json").is_file()
        ):
            return Path(self.dir) / "manifest.json"
        return None
