"""The registry of benchmarks: one entry per benchmark the paper meta-evaluates on.

A benchmark is SummEval, Topical-Chat or one QAGS subset (the paper's Tables 1-3), or
Zhang et al.'s writer-vs-GPT-3.5 judgements (``writer_vs_llm``: the paper's analysis "Will
G-Eval prefer LLM-based outputs?", pairwise human preferences), or one of the
human-judgement sets beyond the paper's (DialSummEval; SFRES and SFHOT; SummEdits, binary
labels). Each entry states every fact about it that another part of the toolkit needs, so
rules, tables, judges, the judge runner and the report derive their lists from here.
Outside ``registry/`` a benchmark's name is spelled only where code is registered under it
or reads one benchmark's file format (the loaders and schemas of ``load/``) and in the
writer-vs-LLM tables' benchmark column (``tests/test_benchmarks_registry.py`` lists the
places):

- ``name``, ``title`` (as a reader sees it), ``short`` (its label in a column header or a
  figure's cell label) and the ``paper_table`` that prints it (:data:`PAPER_TABLES`:
  number, title, file stem; None for a benchmark the paper does not meta-evaluate on);
- ``item_keys``: the columns of its tidy table (``data/processed/<name>.parquet``) that
  identify one judged text (``(doc_id, system_id)`` for SummEval, ``item_id`` otherwise),
  and ``item_key_type``, the type of their values (``str`` or ``int``); ``item_count``:
  its number of items, one row each of the tidy table (None: not stated; a judge job on a
  cluster then needs a ``limit`` or a ``runtime`` to ask for its time);
- ``dimensions``: the paper's dimensions, each with the human ``human_scale`` of the tidy
  table (None for a benchmark of ``preferences``) and the ``judge_scale`` (integer ratings)
  a G-Eval prompt asks for; ``other_human_scores``: the tidy table's further human columns
  (not judged) and scales;
- ``preferences``: None for a benchmark whose tidy table holds per-item human scores (every
  benchmark of the paper's Tables 1-3); else its human judgements are pairwise preferences
  (:class:`Preferences`: the further tidy table with one row per human judgement of two
  items, and the questions the judges answered). Such a benchmark has no per-item human
  score, so nothing that correlates a judge with human scores is made for it (correlation
  rows, judge-vs-judge tests, the sweep, the human tables, the paper's tables, the
  export's human columns): each of those reads :attr:`Benchmark.has_human_scores`;
- ``level``: the correlation level of the paper's protocol
  (:class:`~geval_repro.stats.level.Level`). ``summary``: correlate within each document
  (``group_key``) over its systems (``unit_key``), then average (SummEval, after UniEval);
  ``global``: one correlation over all items, called turn level for Topical-Chat and
  dataset level for QAGS (``level_name``). :attr:`Benchmark.system_key` and
  :attr:`Benchmark.input_key` are the score matrix's axes at that level. A benchmark of
  ``preferences`` compares two items of one group (writer vs GPT-3.5: two summaries of an
  article), named the ``pair`` level;
- ``printed_coefficients``: the coefficients the paper prints for it (the comparisons a
  reader of its table makes: SummEval Spearman and Kendall, Topical-Chat Pearson and
  Spearman, QAGS all three); ``other_coefficients``: for a benchmark the paper does not
  print, the coefficients its judge-vs-judge tests and significance clusters compare
  instead (:attr:`Benchmark.compared_coefficients`; DialSummEval: SummEval's two);
- ``resampling_key``: at the global level, the column whose values a bootstrap resample
  draws, each with all of its items (SFRES and SFHOT: the dialogue act, whose two or more
  utterances share their source), instead of the items one by one (None);
- ``texts``: prompt placeholder -> column of the tidy table holding that text;
  ``shared_text``: the placeholder whose text several items share (the judge runner sends
  the items that share it one after another, so a server's prefix cache serves it once);
- ``prompts``: where its G-Eval prompts come from (:class:`Prompts`): the G-Eval authors'
  released files (fetched and verified, SummEval) or this toolkit's own, shipped as
  package data (``geval_repro/prompts/<folder>/<dimension>.txt``);
- ``prompt_variants``: further prompts beside its G-Eval form, by name
  (:class:`PromptVariant`, chosen with ``geval-repro judge --prompt-variant`` or a judge's
  ``prompt_variant``; :data:`GEVAL_PROMPT` names the G-Eval form every benchmark has):
  SummEdits' zero-shot Yes/No prompt, whose reply is read as a binary answer;
- ``released_replies``: whether the G-Eval authors released their judge replies for it
  (SummEval only); elsewhere the printed G-Eval rows stay "not-released";
- ``baselines``: its model-free baselines (:class:`Baselines`): the protocol that scores them,
  named in :data:`geval_repro.registry.baselines.BASELINES`, the variant of the paper's
  rows, and the further tidy table of references the protocol reads;
- ``unieval_predictions``: whether its tidy table holds UniEval's released predictions
  (columns ``unieval_<dimension>``);
- ``sources``: the ids (in :mod:`geval_repro.registry.sources`) of the upstream files its
  tidy table is built from, in the order its loader takes them; ``other_tables``: the
  further tidy tables made from its upstream files (name -> source id: SummEval's eleven
  references and expert ratings, of summeval.json's 16 systems and of the 17 its experts
  annotated, QAGS's MTurk answers), each loader registered under the
  table's name in :data:`geval_repro.load.benchmarks.TABLE_LOADERS`;
- ``human_tables``: which of its ``other_tables`` hold which further human judgements, by
  role (:data:`HUMAN_ROLES`: the per-annotator ratings, the experts' ratings of every system
  they annotated, the crowd workers' answers), read by the human-data tables;
- ``alt_test_epsilon``: the margin epsilon of the alternative annotator test
  (:mod:`geval_repro.stats.alt_test`) against its individual annotators, by the paper's
  guidance for the annotators' kind (0.2 experts, 0.15 skilled annotators, 0.1 crowd
  workers; the config's ``alt_test.epsilon`` overrides it); None: the test is not made. The
  annotators are those of its ``annotators`` human table (:attr:`Benchmark.annotator_table`),
  three or more per item;
- ``documents_key``: the column of the documents its systems (``unit_key``) share, when
  its level pools items (Topical-Chat's ``context_id``); the system-level statistics that
  sum each system's scores over documents (soft pairwise accuracy) read it through
  :attr:`Benchmark.system_documents` (the ``group_key`` at the summary level);
- ``labels``: None for a benchmark of per-item scores or preferences; else its humans gave
  each item a binary label (:class:`BinaryLabels`: SummEdits' consistent / inconsistent),
  which gets the binary-label statistics of :data:`geval_repro.stats.registry.BINARY_STATISTICS`
  (ROC AUC, balanced accuracy at a threshold fitted on one split and applied to another, per
  domain and averaged over domains) instead of correlations:
  :attr:`Benchmark.has_human_scores` is False for it too;
- ``citations``: the BibTeX keys (``geval_repro/data/CITATIONS.bib``) of the papers that
  published its texts and human judgements.

The loader and schema of each benchmark are registered under its name beside the loaders,
in :data:`geval_repro.load.benchmarks.BENCHMARK_LOADERS`, so importing this module stays
cheap (no pandas). To add a benchmark: one :class:`Benchmark` entry in :data:`BENCHMARKS`,
its loader and schema registered in :mod:`geval_repro.load.benchmarks`, its prompts (see
docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from geval_repro.stats.level import Level


@dataclass(frozen=True)
class Dimension:
    """One quality dimension of a benchmark: its human scale (None: the benchmark's humans
    gave preferences, not scores) and the judge's rating scale."""

    name: str
    human_scale: tuple[float, float] | None
    judge_scale: tuple[int, int]

    @property
    def ratings(self) -> tuple[int, ...]:
        """The integer ratings a judge may give, lowest first."""
        low, high = self.judge_scale
        return tuple(range(low, high + 1))


@dataclass(frozen=True)
class Prompts:
    """Where a benchmark's G-Eval prompt templates come from: ``released``, dimension ->
    the sources id of the G-Eval authors' released prompt (fetched and verified, never
    retyped); else ``folder``, this toolkit's own prompts
    ``geval_repro/prompts/<folder>/<dimension>.txt`` (labelled as ours)."""

    released: Mapping[str, str] = field(default_factory=dict)
    folder: str | None = None


#: The name of every benchmark's G-Eval prompt form (its ``prompts``), the default variant.
GEVAL_PROMPT = "geval"


@dataclass(frozen=True)
class PromptVariant:
    """A prompt of a benchmark beside its G-Eval form, whose reply is a Yes/No answer read as
    a binary score (Yes 1, No 0): ``title`` as a reader sees it; ``source``, the sources id of
    its released file (fetched and verified by SHA-256, never retyped); ``placeholders``, the
    file's own placeholder -> the benchmark's text (a name of its ``texts``) filled there;
    ``answers``, each answer word (compared case-folded, surrounding whitespace stripped) ->
    its score."""

    name: str
    title: str
    source: str
    placeholders: Mapping[str, str]
    answers: Mapping[str, int] = field(default_factory=lambda: {"yes": 1, "no": 0})

    @property
    def ratings(self) -> tuple[int, ...]:
        """The binary scores its answers read as, lowest first (a ``level_probs`` scale)."""
        return tuple(sorted(set(self.answers.values())))


@dataclass(frozen=True)
class Baselines:
    """A benchmark's model-free baselines: the ``protocol`` that scores them (a name of
    :data:`geval_repro.registry.baselines.BASELINES`), the variant of the paper's rows
    (``protocol_variant``; the others are a sensitivity analysis, docs/baselines.md), and the
    further tidy table (one of the benchmark's ``other_tables``) of ``references`` the
    protocol reads, if any. The per-item scores go to
    ``data/processed/baselines/<benchmark>.parquet``."""

    protocol: str
    protocol_variant: str
    references: str | None = None


@dataclass(frozen=True)
class BinaryLabels:
    """Binary human labels, a benchmark's human judgements in place of per-item scores: the
    tidy table's ``column`` (1 = ``positive``, 0 = not), the ``split_key`` column whose
    ``threshold_split`` rows fit a metric's threshold and whose ``tested_split`` rows are
    scored with it, the ``domain_key`` column of its ``domains`` (name -> title; the
    statistics are per domain, then averaged over domains) and the ``resampling_key`` column
    whose values (documents) a bootstrap resample draws whole, within each domain; and the
    ``statistics`` (names in :data:`geval_repro.stats.registry.BINARY_STATISTICS`) of its
    laid-out table, in column order: its own paper's first."""

    column: str
    positive: str
    split_key: str
    threshold_split: str
    tested_split: str
    domain_key: str
    domains: Mapping[str, str]
    resampling_key: str
    statistics: tuple[str, ...]


@dataclass(frozen=True)
class Preferences:
    """Pairwise human preferences, a benchmark's human judgements in place of per-item
    scores: the further tidy table (one of the benchmark's ``other_tables``) with one row
    per human judgement of two of its items, and the ``questions`` each judgement answered
    (columns of that table)."""

    table: str
    questions: tuple[str, ...]


#: The roles of a benchmark's further tables of human judgements (``Benchmark.human_tables``):
#: each annotator's ratings of the benchmark's items, one row per (item, ``annotator``,
#: dimension) (agreement, the human ceiling: SummEval's experts, DialSummEval's annotators),
#: the experts' ratings of every system they annotated (system means against the
#: benchmark's own table), crowd workers' answers (their agreement, the scores re-derived
#: from them).
HUMAN_ROLES: tuple[str, ...] = ("annotators", "annotated_experts", "crowd_answers")


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the paper's meta-evaluation (see the module docstring)."""

    name: str
    title: str
    short: str
    paper_table: int | None
    item_keys: tuple[str, ...]
    dimensions: tuple[Dimension, ...]
    level: Level
    level_name: str
    printed_coefficients: tuple[str, ...]
    texts: Mapping[str, str]
    shared_text: str
    prompts: Prompts
    item_key_type: type = int
    group_key: str | None = None
    unit_key: str = "system_id"
    other_human_scores: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    baselines: Baselines | None = None
    unieval_predictions: bool = False
    sources: tuple[str, ...] = ()
    other_tables: Mapping[str, str] = field(default_factory=dict)
    released_replies: bool = False
    citations: tuple[str, ...] = ()
    item_count: int | None = None
    preferences: Preferences | None = None
    human_tables: Mapping[str, str] = field(default_factory=dict)
    alt_test_epsilon: float | None = None
    documents_key: str | None = None
    other_coefficients: tuple[str, ...] = ()
    resampling_key: str | None = None
    labels: BinaryLabels | None = None
    prompt_variants: Mapping[str, PromptVariant] = field(default_factory=dict)

    def prompt_variant(self, name: str) -> PromptVariant | None:
        """The prompt variant ``name``: None for :data:`GEVAL_PROMPT` (its G-Eval form), else
        the registered one; raise naming the valid names otherwise."""
        if name == GEVAL_PROMPT:
            return None
        try:
            return self.prompt_variants[name]
        except KeyError:
            valid = [GEVAL_PROMPT, *self.prompt_variants]
            raise ValueError(
                f"{self.title} has no prompt variant {name!r}: use one of {valid}"
            ) from None

    @property
    def judged_text(self) -> str:
        """The column of the text a judge rates (the last of ``texts``: a summary, a
        response), whose length the judge cards correlate with the scores."""
        return list(self.texts.values())[-1]

    @property
    def system_documents(self) -> str | None:
        """The column of the documents that every system of a scored benchmark answers (the
        summary level's ``group_key``, else ``documents_key``); None: it has no systems
        sharing documents (QAGS) or no per-item human scores."""
        if not self.has_human_scores:
            return None
        return self.group_key or self.documents_key

    @property
    def annotator_table(self) -> str | None:
        """The further table of its individual annotators' ratings (the ``annotators`` role:
        item keys, ``annotator``, ``dimension``, ``score``) the alternative annotator test
        reads when it has an ``alt_test_epsilon``; None otherwise."""
        if self.alt_test_epsilon is None:
            return None
        return self.human_tables.get("annotators")

    @property
    def compared_coefficients(self) -> tuple[str, ...]:
        """The coefficients its judge-vs-judge tests and significance clusters compare: the
        paper's printed ones, else its ``other_coefficients``."""
        return self.printed_coefficients or self.other_coefficients

    @property
    def has_human_scores(self) -> bool:
        """Whether its tidy table holds per-item human scores (False: pairwise
        ``preferences`` or binary ``labels``), the fact every table that correlates with
        humans reads."""
        return self.preferences is None and self.labels is None

    @property
    def dimension_names(self) -> tuple[str, ...]:
        """The paper's dimensions of this benchmark, in the printed column order."""
        return tuple(d.name for d in self.dimensions)

    @property
    def human_dimensions(self) -> tuple[str, ...]:
        """The dimensions with a human score column in the tidy table (all of them; none for
        a benchmark of ``preferences``)."""
        return tuple(d.name for d in self.dimensions if d.human_scale is not None)

    @property
    def human_scales(self) -> dict[str, tuple[float, float]]:
        """Every human score column of the tidy table and its scale, dimensions first (none
        for a benchmark of ``preferences``)."""
        scored = {d.name: d.human_scale for d in self.dimensions if d.human_scale is not None}
        return {**scored, **self.other_human_scores}

    @property
    def system_key(self) -> str | None:
        """The column of the score matrix's rows at this benchmark's level: the systems at
        the summary level, None (one pseudo-system, every item pooled) at the global level."""
        return None if self.level.pooled else self.unit_key

    @property
    def input_key(self) -> str:
        """The column of the score matrix's columns at this benchmark's level: the document
        (``group_key``) at the summary level, the item at the global level."""
        if self.level.pooled:
            (item_key,) = self.item_keys
            return item_key
        return str(self.group_key)

    def dimension(self, name: str) -> Dimension:
        """The dimension called ``name``; raise naming the valid ones otherwise."""
        for dimension in self.dimensions:
            if dimension.name == name:
                return dimension
        raise ValueError(
            f"{self.title} has no dimension {name!r}: use one of {list(self.dimension_names)}"
        )


@dataclass(frozen=True)
class Average:
    """A pseudo-benchmark the paper prints as the mean of benchmarks' values (its QAGS
    "Average" of the two subsets): its ``parts``, which share their dimensions, level and
    printed coefficients."""

    name: str
    title: str
    short: str
    parts: tuple[str, ...]


@dataclass(frozen=True)
class PaperTable:
    """One of the paper's correlation tables: its ``number``, the ``title`` of what it
    covers, and the ``stem`` of its laid-out file (``results/tables/<stem>.md``)."""

    number: int
    title: str
    stem: str


#: The released G-Eval prompts of SummEval: dimension -> sources id.
SUMMEVAL_PROMPTS = Prompts(
    released={
        "coherence": "summeval_prompt_coh",
        "consistency": "summeval_prompt_con",
        "fluency": "summeval_prompt_flu",
        "relevance": "summeval_prompt_rel",
    }
)
#: SummEval's dimensions, human scales (expert means, 1-5) and the released prompts' scales.
_SUMMEVAL_DIMENSIONS = (
    Dimension("coherence", (1.0, 5.0), (1, 5)),
    Dimension("consistency", (1.0, 5.0), (1, 5)),
    Dimension("fluency", (1.0, 5.0), (1, 3)),
    Dimension("relevance", (1.0, 5.0), (1, 5)),
)
_QAGS_TEXTS = {"Document": "source", "Summary": "summary"}
_QAGS_CONSISTENCY = (Dimension("consistency", (0.0, 1.0), (1, 5)),)


def _qags(subset: str, title: str, item_count: int) -> Benchmark:
    """One QAGS subset: consistency of a summary with its source, at the dataset level."""
    return Benchmark(
        name=f"qags_{subset}",
        title=title,
        short=subset,
        paper_table=3,
        item_keys=("item_id",),
        dimensions=_QAGS_CONSISTENCY,
        level=Level.GLOBAL,
        level_name="dataset",
        printed_coefficients=("pearson", "spearman", "kendall"),
        texts=_QAGS_TEXTS,
        shared_text="Document",
        prompts=Prompts(folder="qags"),
        baselines=Baselines(protocol="rouge-vs-source", protocol_variant="vs source document"),
        unieval_predictions=True,
        sources=(f"qags_{subset}", f"unieval_pred_qags_{subset}"),
        other_tables={f"qags_mturk_{subset}": f"qags_mturk_{subset}"},
        human_tables={"crowd_answers": f"qags_mturk_{subset}"},
        citations=("wang2020qags",),
        item_count=item_count,
    )


def _data_to_text(subset: str, title: str, item_count: int) -> Benchmark:
    """One of Novikova et al.'s data-to-text sets as UniEval converted them (SFRES
    restaurants, SFHOT hotels): utterances generated from dialogue acts, rated 1-6, at the
    dataset level, resampled by dialogue act."""
    return Benchmark(
        name=subset,
        title=title,
        short=subset,
        paper_table=None,
        item_keys=("item_id",),
        dimensions=tuple(
            Dimension(name, (1.0, 6.0), (1, 6))
            for name in ("naturalness", "informativeness", "overall")
        ),
        level=Level.GLOBAL,
        level_name="dataset",
        printed_coefficients=(),
        other_coefficients=("pearson", "spearman", "kendall"),  # UniEval's README prints them
        texts={"Dialogue Act": "dialogue_act", "Utterance": "utterance"},
        shared_text="Dialogue Act",
        prompts=Prompts(folder="data_to_text"),
        baselines=Baselines(
            protocol="word-overlap-vs-reference",
            protocol_variant="vs the reference utterance",
        ),
        unieval_predictions=True,
        sources=(subset, f"unieval_pred_{subset}"),
        citations=("novikova2017why", "zhong2022unieval"),
        item_count=item_count,
        resampling_key="act_id",
    )


#: SummEdits' domains as its files name them (``summedits_<domain>.json``) -> title: the 8
#: of its 10 that could be mirrored (BillSum and Shakespeare could not).
SUMMEDITS_DOMAINS = {
    "news": "news",
    "podcast": "podcasts",
    "qmsumm": "meeting minutes (QMSum)",
    "sales_call": "sales calls",
    "sales_email": "sales e-mails",
    "samsum": "dialogues (SAMSum)",
    "scitldr": "scientific TL;DRs (SciTLDR)",
    "ectsum": "earnings calls (ECTSum)",
}

#: DialSummEval's 14 systems as its files name them: A is SAMSum's reference summary.
DIALSUMMEVAL_SYSTEMS = "ABCDEFGHIJKLMN"


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            name="summeval",
            title="SummEval",
            short="summeval",
            paper_table=1,
            item_keys=("doc_id", "system_id"),
            item_key_type=str,
            dimensions=_SUMMEVAL_DIMENSIONS,
            other_human_scores={"overall": (1.0, 5.0)},
            level=Level.SUMMARY,
            level_name="summary",
            printed_coefficients=("spearman", "kendall"),
            group_key="doc_id",
            texts={"Document": "source", "Summary": "system_output"},
            shared_text="Document",
            prompts=SUMMEVAL_PROMPTS,
            baselines=Baselines(
                protocol="multiref-rouge",
                protocol_variant="11 references, mean",
                references="summeval_references",
            ),
            sources=("summeval",),
            other_tables={
                "summeval_references": "summeval_multiref",
                "summeval_experts": "metriceval_scores",
                "summeval_annotated_experts": "metriceval_scores",
            },
            human_tables={
                "annotators": "summeval_experts",
                "annotated_experts": "summeval_annotated_experts",
            },
            released_replies=True,
            alt_test_epsilon=0.2,  # expert annotators (Calderon et al., 2025)
            citations=("fabbri2021summeval",),
            item_count=1600,  # 100 documents x 16 systems
        ),
        Benchmark(
            name="topical_chat",
            title="Topical-Chat",
            short="topical_chat",
            paper_table=2,
            item_keys=("item_id",),
            dimensions=(
                Dimension("naturalness", (1.0, 3.0), (1, 3)),
                Dimension("coherence", (1.0, 3.0), (1, 3)),
                Dimension("engagingness", (1.0, 3.0), (1, 3)),
                Dimension("groundedness", (0.0, 1.0), (0, 1)),
            ),
            other_human_scores={"understandability": (0.0, 1.0), "overall": (1.0, 5.0)},
            level=Level.GLOBAL,
            level_name="turn",
            printed_coefficients=("pearson", "spearman"),
            texts={"Conversation History": "history", "Fact": "fact", "Response": "response"},
            shared_text="Conversation History",
            prompts=Prompts(folder="topical_chat"),
            baselines=Baselines(
                protocol="usr-word-overlap",
                protocol_variant="vs original ground truth, 300 responses (USR protocol)",
            ),
            unieval_predictions=True,
            documents_key="context_id",
            sources=("topical_chat", "unieval_pred_topical_chat"),
            citations=("gopalakrishnan2019topicalchat", "mehri2020usr"),
            item_count=360,  # 60 conversations x 6 responses
        ),
        _qags("cnndm", "QAGS-CNN/DM", 235),
        _qags("xsum", "QAGS-XSum", 239),
        Benchmark(
            name="dialsummeval",
            title="DialSummEval",
            short="dialsummeval",
            paper_table=None,
            item_keys=("doc_id", "system_id"),
            item_key_type=str,
            dimensions=tuple(
                Dimension(name, (1.0, 5.0), (1, 5))
                for name in ("coherence", "consistency", "fluency", "relevance")
            ),
            level=Level.SUMMARY,
            level_name="summary",
            printed_coefficients=(),
            other_coefficients=("spearman", "kendall"),  # SummEval's, at the same level
            group_key="doc_id",
            texts={"Dialogue": "dialogue", "Summary": "summary"},
            shared_text="Dialogue",
            prompts=Prompts(folder="dialsummeval"),
            baselines=Baselines(
                protocol="rouge-vs-reference-and-released",
                protocol_variant="recomputed, vs the reference",
            ),
            sources=(
                "dialsummeval_judgements",
                "dialsummeval_dials",
                *(f"dialsummeval_summs_{s}" for s in DIALSUMMEVAL_SYSTEMS.lower()),
                *(f"dialsummeval_metrics_{s}" for s in DIALSUMMEVAL_SYSTEMS.lower()),
            ),
            other_tables={"dialsummeval_annotators": "dialsummeval_judgements"},
            human_tables={"annotators": "dialsummeval_annotators"},
            # skilled annotators (Calderon et al., 2025): Gao and Wan's three trained annotators
            # with good English, neither experts nor crowd workers
            alt_test_epsilon=0.15,
            citations=("gao2022dialsummeval",),
            item_count=1300,  # 100 dialogues x 13 systems (the reference, system A, left out)
        ),
        _data_to_text("sfres", "SFRES", 1181),
        _data_to_text("sfhot", "SFHOT", 875),
        Benchmark(
            name="summedits",
            title="SummEdits",
            short="summedits",
            paper_table=None,
            item_keys=("item_id",),
            item_key_type=str,
            # binary labels: no human scale; a G-Eval judge rates 1-5
            dimensions=(Dimension("consistency", None, (1, 5)),),
            level=Level.GLOBAL,
            level_name="domain",
            printed_coefficients=(),
            texts={"Document": "source", "Summary": "summary"},
            shared_text="Document",
            prompts=Prompts(folder="summedits"),
            # binary labels: no correlation rows; the binary-label rows read these scores
            baselines=Baselines(protocol="rouge-vs-source", protocol_variant="vs source document"),
            sources=tuple(f"summedits_{d}" for d in SUMMEDITS_DOMAINS),
            citations=("laban2023summedits",),
            item_count=4681,  # 8 domains: 986 evaluation, 3,695 test pairs
            labels=BinaryLabels(
                column="label",
                positive="consistent",
                split_key="split",
                threshold_split="evaluation",
                tested_split="test",
                domain_key="domain",
                domains=SUMMEDITS_DOMAINS,
                resampling_key="doc_id",
                # SummEdits' own table: balanced accuracy per domain (Laban et al. 2023)
                statistics=("balanced_accuracy", "roc_auc"),
            ),
            prompt_variants={
                "yes-no": PromptVariant(
                    name="yes-no",
                    title="SummEdits' zero-shot Yes/No prompt (Laban et al. 2023)",
                    source="summedits_prompt",
                    placeholders={"[ARTICLE]": "Document", "[SUMMARY_SENTENCES]": "Summary"},
                )
            },
        ),
        Benchmark(
            name="writer_vs_llm",
            title="Writer vs GPT-3.5 (Zhang et al.)",
            short="writer_vs_llm",
            paper_table=None,
            item_keys=("item_id",),
            item_key_type=str,
            dimensions=tuple(Dimension(d.name, None, d.judge_scale) for d in _SUMMEVAL_DIMENSIONS),
            level=Level.SUMMARY,
            level_name="pair",
            printed_coefficients=(),
            group_key="article_id",
            unit_key="author",
            texts={"Document": "article", "Summary": "summary"},
            shared_text="Document",
            prompts=SUMMEVAL_PROMPTS,
            sources=("zhang2023_pairwise", "zhang2023_writer_summaries"),
            other_tables={"writer_vs_llm_pairs": "zhang2023_pairwise"},
            citations=("zhang2024benchmarking",),
            item_count=188,  # unique by text: 112 writer and 76 GPT-3.5 summaries judged
            preferences=Preferences(
                table="writer_vs_llm_pairs", questions=("overall", "informativeness")
            ),
        ),
    )
}

#: The paper's averaged pseudo-benchmarks (its printed QAGS "Average" of the two subsets).
AVERAGES: dict[str, Average] = {
    a.name: a for a in (Average("qags_avg", "QAGS average", "avg", ("qags_cnndm", "qags_xsum")),)
}

#: The paper's correlation tables, by number.
PAPER_TABLES: dict[int, PaperTable] = {
    t.number: t
    for t in (
        PaperTable(1, "SummEval", "table1_summeval"),
        PaperTable(2, "Topical-Chat", "table2_topical_chat"),
        PaperTable(3, "QAGS", "table3_qags"),
    )
}

#: Benchmarks in the registry's order: the paper's Tables 1, 2, 3, then the others.
NAMES: tuple[str, ...] = tuple(BENCHMARKS)

#: The benchmarks with per-item human scores (correlations, judge-vs-judge tests, the sweep,
#: the human tables): every benchmark but those of pairwise preferences.
SCORED_BENCHMARKS: tuple[str, ...] = tuple(n for n, b in BENCHMARKS.items() if b.has_human_scores)

#: The benchmarks of pairwise human preferences (the writer-vs-LLM analysis).
PREFERENCE_BENCHMARKS: tuple[str, ...] = tuple(
    n for n, b in BENCHMARKS.items() if b.preferences is not None
)

#: The benchmarks of binary human labels (the binary-label statistics: SummEdits).
LABELLED_BENCHMARKS: tuple[str, ...] = tuple(
    n for n, b in BENCHMARKS.items() if b.labels is not None
)

#: The benchmarks the paper does not report that get a table laid out in its tables' style:
#: those with per-item human scores (dimensions x coefficients) and of binary labels
#: (domains x statistics).
LAID_OUT_BENCHMARKS: tuple[str, ...] = tuple(
    n
    for n, b in BENCHMARKS.items()
    if b.paper_table is None and (b.has_human_scores or b.labels is not None)
)

#: Every name under which the paper prints numbers: the benchmarks of its tables, then the
#: averages.
PRINTED_NAMES: tuple[str, ...] = (
    *(name for name, b in BENCHMARKS.items() if b.paper_table is not None),
    *AVERAGES,
)

#: Every dimension of any benchmark, in first-seen order (for the config schema).
ALL_DIMENSIONS: tuple[str, ...] = tuple(
    dict.fromkeys(d for b in BENCHMARKS.values() for d in b.dimension_names)
)

#: The name of UniEval's released predictions in the rows, and their variant.
UNIEVAL = "UniEval"
UNIEVAL_VARIANT = "released predictions"


def released_benchmark() -> Benchmark:
    """The benchmark whose judge replies the G-Eval authors released (SummEval)."""
    (benchmark,) = (b for b in BENCHMARKS.values() if b.released_replies)
    return benchmark


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark ``name``; raise naming the valid names otherwise."""
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}: use one of {list(NAMES)}") from None


def _printed(name: str) -> Benchmark:
    """The benchmark ``name``, or the first part of the average ``name``."""
    if name in AVERAGES:
        return BENCHMARKS[AVERAGES[name].parts[0]]
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}: use one of {list(PRINTED_NAMES)}")
    return BENCHMARKS[name]


def title_of(name: str) -> str:
    """The title a reader sees for ``name`` (a benchmark or an average)."""
    return AVERAGES[name].title if name in AVERAGES else get_benchmark(name).title


def short_of(name: str) -> str:
    """The short label of ``name`` (a benchmark or an average) in a table's column headers
    and a figure's cell labels."""
    return AVERAGES[name].short if name in AVERAGES else get_benchmark(name).short


def dimensions_of(name: str) -> tuple[str, ...]:
    """The dimensions printed for ``name`` (a benchmark or an average such as qags_avg)."""
    return _printed(name).dimension_names


def level_of(name: str) -> Level:
    """The paper's correlation level for ``name`` (an average shares its parts' level)."""
    return _printed(name).level


def table_of(name: str) -> int | None:
    """The paper table printing ``name`` (an average is printed beside its parts; None for a
    benchmark the paper does not print)."""
    return _printed(name).paper_table


def printed_coefficients(name: str) -> tuple[str, ...]:
    """The coefficients the paper prints for ``name`` (an average: its parts')."""
    return _printed(name).printed_coefficients


def protocol_variant_of(name: str) -> str | None:
    """The reference variant of the paper's protocol for ``name``'s baselines (None for a
    benchmark without baselines)."""
    baselines = get_benchmark(name).baselines
    return baselines.protocol_variant if baselines else None


def average_of(name: str) -> Average | None:
    """The average that ``name`` is a part of, if any."""
    return next((a for a in AVERAGES.values() if name in a.parts), None)


def table_benchmarks(number: int) -> tuple[str, ...]:
    """The printed names of paper table ``number``: its benchmarks, then their averages."""
    names = tuple(b.name for b in BENCHMARKS.values() if b.paper_table == number)
    return (*names, *(a.name for a in AVERAGES.values() if a.parts[0] in names))


def table_title(number: int) -> str:
    """ "Table N: <title>, <level>-level", as the README and the report head it."""
    table = PAPER_TABLES[number]
    return (
        f"Table {number}: {table.title}, {_printed(table_benchmarks(number)[0]).level_name}-level"
    )


def judge_scale(benchmark: str, dimension: str) -> tuple[int, int]:
    """(min, max) of the rating scale a G-Eval prompt asks for on this benchmark's dimension.

    The scale depends on the benchmark: coherence is 1-5 on SummEval, 1-3 on Topical-Chat.
    """
    return get_benchmark(benchmark).dimension(dimension).judge_scale


def human_scale(benchmark: str, dimension: str) -> tuple[float, float]:
    """(min, max) of the human scores of the benchmark's tidy table for ``dimension``; raise
    for a benchmark of pairwise preferences (no per-item human score)."""
    scale = get_benchmark(benchmark).dimension(dimension).human_scale
    if scale is None:
        raise ValueError(
            f"{title_of(benchmark)} has pairwise human preferences, no human {dimension} "
            "scores: nothing correlates a judge with them (see Benchmark.has_human_scores)"
        )
    return scale
