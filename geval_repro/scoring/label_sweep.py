"""Replies-per-item sweep on binary human labels (SummEdits): ROC AUC and balanced accuracy,
averaged over domains, against the number of replies per item.

The same subsets of replies as the correlation sweep (:mod:`geval_repro.scoring.sweep`): for
each run (judge, benchmark, dimension), parser and n = 1..n_max,

- ``first``: each item's score is the mean of its first n replies in released order;
- ``random``: ``draws`` draws, each giving every item its own uniformly random n-subset of
  its replies (the first n of one random permutation per draw and item, so the subsets of
  one draw are nested across n), from the generator the correlation sweep seeds
  (:func:`~geval_repro.scoring.sweep.run_seed`: the config's seed and the run's names).

An item's mean follows the parser's counting rule and rounding, so at n = n_max the ``first``
scores equal the run's item scores (:func:`geval_repro.scoring.item_scores.item_scores`) and
its values equal the binary-label table's (:mod:`geval_repro.tables.binary_labels`) for the
run's mean of replies.

Each statistic of :data:`geval_repro.stats.registry.BINARY_STATISTICS` is computed as the
binary-label table computes it: in each domain on the scored items of the tested split, a
thresholded one with its threshold fitted on the same scores of the domain's threshold
split (re-fitted for every n and draw); no value in a domain with fewer than
:data:`~geval_repro.stats.binary.MIN_ITEMS` scored tested items or with one class among them
(or, thresholded, one class among the scored threshold items); the mean over the domains
only when every domain has a value. ``value`` is that mean (``random``: the mean over the
draws, ``band_low``/``band_high`` their 2.5 / 97.5 percentiles; a draw without a mean makes
all three NaN rather than being dropped). ``tie_rate`` is the share of (positive, negative)
pairs of scored tested items within a domain whose two scores are equal, pooled over the
domains (and the draws): ROC AUC counts each such pair as one half. ``gain_share`` is
:func:`~geval_repro.scoring.sweep.gain_share`; ``epsilon``, ``se_target`` and
``replies_used`` are empty (no tie threshold, no adaptive rule: its rows are the correlation
sweep's only). Columns: :data:`~geval_repro.scoring.sweep.SWEEP_COLUMNS`, ``coefficient``
naming the statistic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark, BinaryLabels, get_benchmark
from geval_repro.scoring.item_scores import check_replies_table
from geval_repro.scoring.parse import Parser
from geval_repro.scoring.sweep import (
    BAND_PERCENTILES,
    DEFAULT_DRAWS,
    RUN_KEYS,
    SWEEP_COLUMNS,
    fixed_reply_count,
    gain_share,
    mean_table,
    prefix_means,
    random_permutations,
    reply_values,
    run_seed,
)
from geval_repro.stats.binary import MIN_ITEMS, pair_counts
from geval_repro.stats.registry import BINARY_STATISTICS


class DomainItems(NamedTuple):
    """The items of one run in one domain: the positions (in the run's item order) and labels
    of its threshold split's items and of its tested split's items."""

    fit: np.ndarray
    tested: np.ndarray
    fit_labels: np.ndarray
    tested_labels: np.ndarray


def domain_items(items: pd.DataFrame, labels: BinaryLabels) -> list[DomainItems]:
    """Each domain's :class:`DomainItems` of the run's ``items`` (rows of the benchmark's
    tidy table, in the run's item order) under the benchmark's ``labels``."""
    truth = items[labels.column].to_numpy().astype(int)
    split = items[labels.split_key].to_numpy()
    out = []
    for domain in labels.domains:
        in_domain = (items[labels.domain_key] == domain).to_numpy()
        fit = np.flatnonzero(in_domain & (split == labels.threshold_split))
        tested = np.flatnonzero(in_domain & (split == labels.tested_split))
        out.append(DomainItems(fit, tested, truth[fit], truth[tested]))
    return out


def domain_means(
    scores: np.ndarray, domains: list[DomainItems]
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Per statistic, the mean over ``domains`` of each row of ``scores`` ``(rows, items)``
    (NaN: unscored; NaN unless every domain has a value, module docstring); and the tied and
    all (positive, negative) pairs of scored tested items per row, summed over the domains."""
    per_domain: dict[str, list[np.ndarray]] = {name: [] for name in BINARY_STATISTICS}
    tied = np.zeros(len(scores), dtype=np.int64)
    pairs = np.zeros(len(scores), dtype=np.int64)
    for domain in domains:
        tested, fit = scores[:, domain.tested], scores[:, domain.fit]
        enough = (~np.isnan(tested)).sum(axis=1) >= MIN_ITEMS
        _, ties, counted = pair_counts(tested, domain.tested_labels)
        tied += ties
        pairs += counted
        for name, entry in BINARY_STATISTICS.items():
            value = entry.compute_rows()(tested, domain.tested_labels, fit, domain.fit_labels)
            per_domain[name].append(np.where(enough, value, np.nan))
    means = {name: np.mean(values, axis=0) for name, values in per_domain.items()}
    return means, tied, pairs


def _run_items(run: pd.DataFrame, table: pd.DataFrame, benchmark: Benchmark) -> pd.DataFrame:
    """The tidy table's rows of the run's items, in the run's item order (sorted keys); raise
    naming the items the table lacks."""
    keys = list(benchmark.item_keys)
    items = run.loc[run["reply_index"] == 0, keys].sort_values(keys, kind="stable")
    found = items.merge(table, on=keys, how="left", validate="one_to_one", indicator=True)
    missing = found["_merge"] != "both"
    if missing.any():
        listed = ", ".join(map(str, found.loc[missing, keys[0]].head(5)))
        raise ValueError(
            f"{int(missing.sum())} item(s) of the run are not in the {benchmark.title} table, "
            f"e.g. {listed}. Fix: pass the table of the benchmark the replies belong to"
        )
    return found.drop(columns="_merge")


def _curve_point(
    values: np.ndarray, tied: np.ndarray, pairs: np.ndarray, mode: str
) -> dict[str, float]:
    """One sweep row's value, band and tie rate from the row values of one n (``first``:
    one row; ``random``: one per draw)."""
    rate = float(tied.sum() / pairs.sum()) if pairs.sum() else float("nan")
    if mode == "first":
        return {
            "value": float(values[0]),
            "band_low": np.nan,
            "band_high": np.nan,
            "tie_rate": rate,
        }
    if np.isnan(values).any():
        return {"value": np.nan, "band_low": np.nan, "band_high": np.nan, "tie_rate": rate}
    low, high = np.percentile(values, BAND_PERCENTILES)
    return {"value": float(values.mean()), "band_low": low, "band_high": high, "tie_rate": rate}


def _steps(
    values: np.ndarray, top: int, taken: np.ndarray | None
) -> Iterator[tuple[str, int, np.ndarray]]:
    """(mode, n, scores ``(rows, items)``) of every step of one parser's ``values``
    ``(items, R)``: the first-n means (one row), then each draw's means of its n-subset."""
    coding = mean_table(values)
    first = prefix_means(values.T, coding)  # (R, items)
    for n in range(1, top + 1):
        yield "first", n, first[n - 1][None, :]
    if taken is not None:  # (draws, items, top) reply positions
        drawn = np.take_along_axis(values[None, :, :], taken, axis=2)  # (draws, items, top)
        means = prefix_means(np.moveaxis(drawn, 2, 0), coding)  # (top, draws, items)
        for n in range(1, top + 1):
            yield "random", n, means[n - 1]


def label_sweep(
    replies: pd.DataFrame,
    table: pd.DataFrame,
    *,
    seed: int,
    parsers: Iterable[Parser],
    draws: int = DEFAULT_DRAWS,
    n_max: int | None = None,
) -> pd.DataFrame:
    """The replies-per-item sweep on binary labels of every run in ``replies`` (the long
    replies table of one benchmark of binary labels; ``table``: its tidy table), under each of
    ``parsers`` (module docstring), for n = 1 up to ``n_max`` or the run's replies per item,
    whichever is fewer (default: all of them). Returns the columns of
    :data:`~geval_repro.scoring.sweep.SWEEP_COLUMNS`, sorted by judge, dimension, parser,
    mode, coefficient and n."""
    parsers = tuple(parsers)
    if draws < 1 or (n_max is not None and n_max < 1):
        raise ValueError(f"draws and n_max must be >= 1, got {draws} and {n_max}")
    check_replies_table(replies)
    if len(replies) == 0:
        raise ValueError("empty replies table: nothing to sweep")
    frames = []
    for (judge, name, dimension), run in replies.groupby(list(RUN_KEYS), sort=True):
        benchmark = get_benchmark(str(name))
        if benchmark.labels is None:
            raise ValueError(
                f"{benchmark.title} has no binary labels: sweep run {judge!r} with "
                "geval_repro.scoring.sweep.sweep (correlations)"
            )
        count = fixed_reply_count(run)
        top = count if n_max is None else min(n_max, count)
        keys = list(benchmark.item_keys)
        ordered = run.sort_values([*keys, "reply_index"], kind="stable")
        domains = domain_items(_run_items(run, table, benchmark), benchmark.labels)
        n_items = len(ordered) // count
        sequence = run_seed(seed, str(judge), str(name), str(dimension))
        taken = random_permutations(n_items, count, draws, sequence)[..., :top]
        records = []
        parsed = reply_values(ordered, str(dimension), benchmark, parsers, count)
        for parser, values in parsed.items():
            for mode, n, scores in _steps(values, top, taken):
                means, tied, pairs = domain_means(scores, domains)
                for coefficient, row_values in means.items():
                    records.append(
                        {
                            "parser": parser,
                            "mode": mode,
                            "n": n,
                            "coefficient": coefficient,
                            **_curve_point(row_values, tied, pairs, mode),
                        }
                    )
        frames.append(pd.DataFrame.from_records(records).assign(judge=judge, dimension=dimension))
    out = pd.concat(frames, ignore_index=True)
    out["gain_share"] = gain_share(out)
    for column in ("epsilon", "se_target", "replies_used"):
        out[column] = np.nan
    order = ["judge", "dimension", "parser", "mode", "coefficient", "n"]
    return out.loc[:, list(SWEEP_COLUMNS)].sort_values(order, ignore_index=True)
