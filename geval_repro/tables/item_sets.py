"""Which items a comparison of metrics rests on: a benchmark's full items, the metrics that
cover them, and the partial runs' own items (issue 23, item 0).

*Full items* of a benchmark's dimension: the items with a human score that the benchmark's
baseline protocol scores, i.e. that one of its baselines in the protocol variant
(:attr:`~geval_repro.registry.benchmarks.Baselines.protocol_variant`) scores; every item
with a human score when the benchmark has no baselines (or none is among the metrics).
SummEval: its 1,600 summaries; QAGS: every summary of the subset; Topical-Chat: 300 of its
360 responses, those that are not a context's original ground truth (USR's protocol: that
response is the reference the baselines score the other five against).

A metric *covers* a dimension when it scores every full item (it may score more: UniEval
scores all 360 Topical-Chat responses); otherwise it is *partial* (this toolkit's SmolLM2
runs: 80 of SummEval's 1,600 items, 30 of Topical-Chat's and of each QAGS subset's). A
partial run's variants need not score the same items (its Eq. 1 score needs a rating token
in the reply): they are grouped by the full items they score, one *item set* per group.

Two views, each a list of :class:`ItemSet`:

- :func:`rankings` (judge vs judge, :mod:`geval_repro.tables.judge_pairs`): the ``full``
  set, every covering metric on the full items; then, per partial run and item set, the set
  ``partial: <run>, <n> items``: the variants of that group and the covering metrics, all
  restricted to the group's items (never another run's variants, nor the run's variants
  that miss some of them). Every metric of a set scores each of its items, so every number
  of a set rests on them all, and a partial run never shrinks the full set.
- :func:`blocks` (rows computed on each metric's own items: pairwise accuracy): the metrics
  grouped by the items with a human score that they score, comparable within a group only:
  ``full`` when the group's items are the full items, ``full, <n> items`` when they include
  them and more, else ``partial: <runs>, <n> items``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.tables.paired_tests import Scored

#: The name of the item set of every metric that covers the benchmark's full items.
FULL = "full"
#: How a partial item set's name starts.
PARTIAL = "partial"


@dataclass(frozen=True)
class ItemSet:
    """Metrics compared on one set of items (module docstring).

    ``name``: :data:`FULL`, ``full, <n> items`` or ``partial: <run>, <n> items``;
    ``items``: the items' keys (the benchmark's item keys, as a MultiIndex); ``metrics``:
    the metrics compared on them; ``basis``: a sentence saying which items these are and
    what covering the benchmark means for it (every note of a row of this set says it).
    """

    name: str
    items: pd.MultiIndex
    metrics: tuple[Scored, ...]
    basis: str

    @property
    def full(self) -> bool:
        """Whether the set's items include the benchmark's full items."""
        return not self.name.startswith(PARTIAL)


def _index(frame: pd.DataFrame, keys: Sequence[str]) -> pd.MultiIndex:
    return pd.MultiIndex.from_frame(frame[list(keys)])


def human_items(benchmark: Benchmark, human: pd.DataFrame, dimension: str) -> pd.MultiIndex:
    """The items of the tidy table ``human`` with a human score for ``dimension``."""
    return _index(human[human[dimension].notna()], benchmark.item_keys)


def scored_items(metric: Scored, dimension: str, keys: Sequence[str]) -> pd.MultiIndex:
    """The items ``metric`` scores on ``dimension`` (a score, not NaN)."""
    scores = metric.scores[dimension]
    return _index(scores[scores["score"].notna()], keys)


def full_items(
    benchmark: Benchmark, human: pd.DataFrame, dimension: str, metrics: Sequence[Scored]
) -> pd.MultiIndex:
    """The benchmark's full items of ``dimension`` (module docstring), in the tidy table's
    order."""
    items = human_items(benchmark, human, dimension)
    protocol = benchmark.baselines.protocol_variant if benchmark.baselines else None
    scored = [
        scored_items(m, dimension, benchmark.item_keys)
        for m in metrics
        if m.kind == "baseline" and m.variant == protocol and dimension in m.scores
    ]
    if not scored:
        return items
    return items[items.isin(scored[0].append(scored[1:]) if len(scored) > 1 else scored[0])]


def full_basis(benchmark: Benchmark, n_human: int, full: pd.MultiIndex) -> str:
    """What the full items are, in words: all ``n_human`` items with a human score, or those
    of them the baselines' protocol scores (named)."""
    total = n_human
    if len(full) == total:
        return f"all {len(full)} items of {benchmark.title}"
    protocol = benchmark.baselines.protocol_variant if benchmark.baselines else "its protocol"
    return (
        f"the {len(full)} of {benchmark.title}'s {total} items that its baselines' protocol "
        f"scores ({protocol})"
    )


def restricted(metric: Scored, dimension: str, items: pd.MultiIndex, keys: Sequence[str]) -> Scored:
    """``metric`` with its scores of ``dimension`` on ``items`` only (its other dimensions
    dropped)."""
    scores = metric.scores[dimension]
    return replace(metric, scores={dimension: scores[_index(scores, keys).isin(items)]})


def _unique_names(names: list[str], members: list[list[Scored]]) -> list[str]:
    """``names``, each one shared by several sets followed by its sets' variants."""
    return [
        name if names.count(name) == 1 else f"{name} ({', '.join(m.variant for m in group)})"
        for name, group in zip(names, members, strict=True)
    ]


def rankings(
    benchmark: Benchmark, human: pd.DataFrame, dimension: str, metrics: Sequence[Scored]
) -> list[ItemSet]:
    """The full set and each partial run's sets of ``dimension`` (module docstring), the
    full set first, then by run and item count (largest first). ``metrics``: those with
    scores of ``dimension``; ``human``: the benchmark's tidy table."""
    keys = benchmark.item_keys
    full = full_items(benchmark, human, dimension, metrics)
    described = full_basis(benchmark, len(human_items(benchmark, human, dimension)), full)
    owned = [scored_items(m, dimension, keys) for m in metrics]
    covers = [bool(full.isin(own).all()) for own in owned]
    covering = [m for m, c in zip(metrics, covers, strict=True) if c]
    sets = [
        ItemSet(
            FULL,
            full,
            tuple(restricted(m, dimension, full, keys) for m in covering),
            f"full: {described}, which every metric of this ranking scores",
        )
    ]
    groups: dict[tuple[str, frozenset], tuple[pd.MultiIndex, list[Scored]]] = {}
    for metric, own, cover in zip(metrics, owned, covers, strict=True):
        if not cover:
            on = full[full.isin(own)]
            groups.setdefault((metric.metric, frozenset(on)), (on, []))[1].append(metric)
    ordered = sorted(groups.items(), key=lambda g: (g[0][0], -len(g[1][0])))
    names = [f"{PARTIAL}: {run}, {len(on)} items" for (run, _), (on, _) in ordered]
    members = [group for _, (_, group) in ordered]
    for name, ((run, _), (on, group)) in zip(_unique_names(names, members), ordered, strict=True):
        variants = ", ".join(m.variant for m in group)
        sets.append(
            ItemSet(
                name,
                on,
                tuple(restricted(m, dimension, on, keys) for m in [*covering, *group]),
                f"{name}: the {len(on)} of the {len(full)} full items ({described}) that "
                f"{run} ({variants}) scores, with the metrics that cover them restricted to "
                "them, ranked apart from the full ranking",
            )
        )
    return sets


def blocks(
    benchmark: Benchmark, human: pd.DataFrame, dimension: str, metrics: Sequence[Scored]
) -> list[ItemSet]:
    """The metrics of ``dimension`` grouped by the items with a human score that they score
    (module docstring), unrestricted: full sets first (the full items first), then the
    partial ones by run and item count (largest first)."""
    keys = benchmark.item_keys
    items = human_items(benchmark, human, dimension)
    full = full_items(benchmark, human, dimension, metrics)
    described = full_basis(benchmark, len(items), full)
    groups: dict[frozenset, tuple[pd.MultiIndex, list[Scored]]] = {}
    for metric in metrics:
        mine = items[items.isin(scored_items(metric, dimension, keys))]
        groups.setdefault(frozenset(mine), (mine, []))[1].append(metric)

    def order(group: tuple[pd.MultiIndex, list[Scored]]) -> tuple:
        on, members = group
        covering = bool(full.isin(on).all())
        return (not covering, len(on) != len(full), sorted({m.metric for m in members}), -len(on))

    ordered = sorted(groups.values(), key=order)
    names = []
    for on, members in ordered:
        if full.isin(on).all():
            names.append(FULL if len(on) == len(full) else f"{FULL}, {len(on)} items")
        else:
            runs = ", ".join(dict.fromkeys(m.metric for m in members))
            names.append(f"{PARTIAL}: {runs}, {len(on)} items")
    sets = []
    for name, (on, members) in zip(
        _unique_names(names, [g for _, g in ordered]), ordered, strict=True
    ):
        if name.startswith(PARTIAL):
            runs = ", ".join(dict.fromkeys(m.metric for m in members))
            basis = (
                f"{name}: the {len(on)} items {runs} scores, {int(on.isin(full).sum())} of "
                f"them among the full {len(full)} ({described})"
            )
        elif len(on) == len(full):
            basis = f"full: {described}"
        else:
            basis = (
                f"{name}: the full {len(full)} items ({described}) and {len(on) - len(full)} more"
            )
        sets.append(ItemSet(name, on, tuple(members), basis))
    return sets
