"""Pairwise accuracy with ties and tie calibration (Deutsch, Foster & Freitag, 2023, "Ties
Matter: Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie Calibration"; WMT23's
acc_eq and acc*_eq).

Pairs, on ``(n_systems, n_inputs)`` matrices with NaN = missing: two items whose metric and
human scores are all present (complete pairs), within a group:

- ``summary``: the systems within each input (column); the grouped-by-item variant;
- ``system``: the systems' mean scores (over the inputs where both scores are present, as in
  :mod:`geval_repro.stats.levels`), one group;
- ``global``: every present cell pooled, one group.

For a pair (i, j) let ``h = human_i - human_j`` and ``d = metric_i - metric_j``, of the
scores with each vector's ties merged by the one tie rule (:mod:`geval_repro.stats.tie_rule`;
each input's systems at the summary level, the systems' means at the system level, every
complete cell at the global level): a pair the rule ties has a difference of exactly 0.

- The humans tie when ``h = 0``; the metric ties at threshold 0 when ``d = 0``: so
  ``acc_eq`` counts the pairs the rule ties, the ties of every coefficient and tie rate, and
  is a reduction of the pair counts (:class:`geval_repro.stats.pairs.PairCounts`: ``(C +
  tied_both) / pairs``).
- A threshold ``epsilon > 0`` widens the metric's ties to ``|d| <= epsilon``, measured on a
  grid of 1e-9: the code of a difference is ``c(d) = 0`` for ``d = 0`` and ``max(1,
  round(|d| * 1e9))`` (half to even) otherwise; the metric ties at threshold ``epsilon``
  when ``c(d) <= round(epsilon * 1e9)``. The grid makes mathematically equal differences
  tie together: differences of averaged scores come out of floating point in several
  versions (a difference of 0.05 between two means of 20 integer replies is any of
  0.04999999999999982, 0.050000000000000044, 0.050000000000000266,
  0.05000000000000071), which an exact ``|d| <= epsilon`` would let the threshold search
  split, tying some of them and not the others. On the grid they share one code (they
  differ by ~1e-16, far from a half-grid point), and a fitted threshold comes out as a
  round number (0.05).
- A pair is correct when both tie, or when neither ties and ``sign(d) == sign(h)``.

Accuracy at a threshold: the share of correct pairs, at the summary level the mean over the
inputs with at least one complete pair of each input's share (an input whose humans tie
everywhere still counts: its accuracy is defined). Each pair of input ``g`` thus weighs
``1 / (n_pairs(g) * n_inputs_with_pairs)``; at the system and global levels every pair
weighs ``1 / n_pairs``. ``acc_eq`` is the accuracy at ``epsilon = 0``;
``human_tie_share`` is the share of human-tied pairs weighted the same way, which is the
accuracy of a judge that ties every pair (a constant judge).

Reference accuracies (:func:`reference_accuracies`), from the human scores alone, weighted
as above (weights summing to 1, share ``T`` of them on human-tied pairs): a constant metric
ties every pair, so its ``acc_eq`` is ``T``, and so is its ``acc*_eq`` (0 is its only
candidate threshold); a random order of the items without ties orders each untied pair right
with probability 1/2 and no tied pair, so its expected ``acc_eq`` is ``(1 - T) / 2``. No
metric's ``acc*_eq`` falls below ``T``: a threshold at its largest difference, a candidate,
ties every pair.

Tie calibration (``acc*_eq``): the maximum of the accuracy over the candidate thresholds,
0 and every pair's ``|d|`` (as codes: 0 and every ``c(d)``); ``epsilon*`` is the SMALLEST
candidate reaching it, reported as ``c / 1e9``. Where every pair weighs the same (system
and global levels, a summary level whose inputs have equal pair counts) the point estimate
compares integer counts, exactly, and so do the global level's bootstrap and the summary
level's with equal pair counts (below). Weighted accuracies (a summary level with unequal
pair counts: point estimate and bootstrap) and the system level's bootstrap are float
sums: any accuracy within ``SELECTION_ATOL`` = 1e-12 of the largest counts as reaching it
(two candidates with mathematically equal accuracies can differ in the last bits;
different accuracies differ by at least ``1 / (n_inputs * lcm(pair counts))``, far more).
This is mt-metrics-eval's ``tau_optimization`` (``KendallWithTiesOpt``, variant ``acc23``,
with ``average_by="item"`` for the summary level and ``"none"`` for the global level) on
all pairs (its ``sample_rate`` defaults to 0.1 there), except that it compares scores and
differences exactly (no tie rule; no grid).

Search, exact, O(P log P) for P pairs and without a loop over candidates: with ``w`` the
pair weights, the accuracy at threshold code ``c`` is ``sum(w, concordant) + sum(w * gain,
c(d) <= c)``, where concordant pairs (humans ordered, the metric orders them the same way
with ``c(d) >= 1``) are correct unless tied (``gain = -1``), human-tied pairs are correct
only when tied (``gain = +1``) and the others never (``gain = 0``). The accuracy only rises
at a code held by a human-tied pair, so the smallest maximizer is 0 or such a code. With
equal weights the kernel sorts the human-tied codes and the concordant codes (those up to
the largest human-tied code; the others are right at every candidate) and counts, at each
candidate, the human-tied codes up to it (its position) and the concordant ones (binary
search): no argsort, no loop. With unequal weights (the point estimate) and in the system
level's bootstrap, the human-tied and concordant pairs are argsorted by code once and their
weighted gains summed cumulatively; the last position of each run of equal codes is a
candidate.

Bootstrap (:func:`bootstrap_accuracy`): percentile intervals of ``acc_eq`` or ``acc*_eq``
with the threshold RE-FITTED in every resample, using the resampling units of
:mod:`geval_repro.stats.bootstrap` and drawing the same indices from
``numpy.random.default_rng(seed)``: ``inputs`` (columns) at the summary and system levels,
``items`` (present cells) at the global level. A resample only repeats or drops inputs
(summary) or items (global), so the pairs are coded and grouped once; a resample reweighs
them:

- summary: an input drawn ``k`` times weighs ``k`` times (its pairs ``k / n_pairs(g)``),
  the mean is over the drawn inputs with pairs, counted with repetition;
- global: a pair of distinct items drawn ``a`` and ``b`` times occurs ``a * b`` times, and
  an item drawn ``k`` times pairs with its own copies ``k (k - 1) / 2`` times. Such a pair
  has ``d = 0`` and ``h = 0``: a tie in both, correct at every threshold, which is what the
  definition gives on the resampled vector; the denominator is ``n (n - 1) / 2``.

At the system level a resample changes the system means, so its pairs are recomputed
(the means' ties merged per resample) and sorted per resample, each block of resamples one
batch of cumulative sums (a loop over blocks bounds memory). At the global level the pairs
are coded once when every subset of each vector clusters as the whole
(:func:`~geval_repro.stats.tie_rule.stable_clusters`), else recomputed per resample the
same way. Values equal recomputing the definition on each resampled matrix.

At the summary and global levels the pairs are grouped by candidate (:func:`_segments`):
segment 0 holds the pairs correct at threshold 0, and moving on to the next candidate adds
the human-tied pairs it newly ties and subtracts the concordant ones (the next segment).
Only pairs with codes up to the largest human-tied code move; a candidate whose next
segment holds no concordant pair only gains by moving on (in every resample: the weights
are never negative), so it cannot beat the next candidate and is merged into it. The count
(or weight) of correct pairs at a candidate is then a cumulative sum over the segments up
to it, for a block of resamples at once (a loop over blocks bounds memory; no loop over
resamples, pairs or candidates), and the largest over the candidates gives ``acc*_eq``
(segment 0 alone: ``acc_eq``).

The summary level (:func:`_summary_accuracies`) is a matrix product per block: with
``A[g, c]`` the correct pairs of input ``g`` at candidate ``c`` (an integer) and ``k[g]``
its draws in a resample, the accuracy at ``c`` is ``sum_g k[g] A[g, c] / n_pairs(g)`` over
``N = sum k[g]`` (drawn inputs with pairs, with repetition): ``K @ (A / n_pairs)`` for the
block's draw counts ``K``. As ``A`` is the cumulative sum over the segments of ``G[s, g]``,
the net gain of input ``g``'s pairs in segment ``s`` (a sparse matrix: a few nonzeros per
pair), ``G @ K`` and a cumulative sum over the segments give it. When every input with
pairs has the same number ``n`` of them (every matrix without missing cells), ``G`` and
``K`` are integers (int16 while ``n * n_draws`` fits, else int32 or int64): the largest
count is exact, ``acc*_eq`` is it over ``n N``, correctly rounded (bit for bit the exact
fraction of the definition), and no ``SELECTION_ATOL`` is needed. With unequal pair
counts ``G`` holds ``gain / n_pairs(g)`` (floats) and the value is the first candidate's
within ``SELECTION_ATOL`` of the largest, as in the point estimate.

The global level counts in integers (:func:`_global_accuracies`), exactly and fast. With
``c`` the draws per item, a pair occurs ``c_i c_j`` times: segment 0 counts ``sum(c_i
c_j)`` over its pairs, plus the copy pairs, and each later segment adds the occurrences of
its human-tied pairs and subtracts those of its concordant ones. Each segment is an integer
sparse product, ``sum_i c_i (G c)_i`` with ``G`` the gains, for a block of resamples at
once; cumulative sums over the segments give the counts at every candidate, and their
maximum over the pair count is ``acc*_eq``. A value is that count over ``n (n - 1) / 2``,
correctly rounded: bit for bit what a float sweep of the same integer weights gives (its
sums are exact), and no ``SELECTION_ATOL`` is needed (equal counts are equal).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.sparse

from geval_repro.stats.bootstrap import (
    CELLS_PER_BLOCK,
    check_resampling,
    check_unit,
    percentile_interval,
)
from geval_repro.stats.level import Level
from geval_repro.stats.matrix import as_score_matrix, as_score_pair
from geval_repro.stats.pairs import PairCounts, sign_sums
from geval_repro.stats.results import BootstrapResult, PairwiseAccuracy, ReferenceAccuracies
from geval_repro.stats.tie_rule import collapse_near_ties, merged_columns, stable_clusters

TIE_SCALE = 1e9  # metric differences in grid units (of 1e-9)
SELECTION_ATOL = 1e-12
#: Draws per resample below which the global bootstrap counts in int16 and sums in int32.
NARROW_DRAWS = 2**15
GLOBAL_RESAMPLES_PER_BLOCK = 128  # resamples per batch of the global sweep (cache-sized)
#: Rows x resamples per batch of the global sweep with a calibrated threshold, whose rows
#: (one per segment and item) run to hundreds of thousands for continuous scores (SFRES's
#: UniEval: 481,305): batches of the bootstrap's ``CELLS_PER_BLOCK`` there held 4 resamples,
#: and each sparse product's overhead weighed more than its work (2x slower; about 34 MB).
GLOBAL_CELLS_PER_BLOCK = 2**22
#: Resamples per batch of the summary sweep (cache-sized): integer counts, float weights.
SUMMARY_RESAMPLES_PER_BLOCK = 128
WEIGHTED_RESAMPLES_PER_BLOCK = 32
#: Cells of the resampled matrices per batch of the system-level sweep, whose per-pair arrays
#: span a batch: cache-sized (1.3-1.5x faster than the bootstrap's ``CELLS_PER_BLOCK``).
SYSTEM_CELLS_PER_BLOCK = 2**17


class PairTerms(NamedTuple):
    """Pairs of members within each group: arrays ``(n_pairs, ...)``, pairs on axis 0 and
    groups (or resamples) on the others; ``n_pairs = n_members (n_members - 1) / 2``,
    incomplete pairs included.

    ``scaled``: ``|d| * 1e9`` (NaN for an incomplete pair; :func:`difference_codes` gives
    its code); ``human_tied``: complete with ``h = 0``; ``concordant``: ``h`` and ``d``
    nonzero, of one sign. Pair ``p`` joins members ``first[p]`` and
    ``second[p]`` of :func:`_triangle`.
    """

    scaled: np.ndarray
    human_tied: np.ndarray
    concordant: np.ndarray


class SortedPairs(NamedTuple):
    """The pairs that gain or lose when tied (human-tied or concordant), sorted by code.

    ``codes``: ``(P + 1,)`` ascending with a leading 0 (the candidate 0, no pair);
    ``ends``: ``(P + 1,)`` the last position of each run of equal codes (the candidates);
    ``gain``: ``(P,)`` +1 for a human-tied pair, -1 for a concordant one; ``index``:
    ``(P,)`` each pair's flat index into the :class:`PairTerms` arrays.
    """

    codes: np.ndarray
    ends: np.ndarray
    gain: np.ndarray
    index: np.ndarray


@lru_cache(maxsize=32)
def _triangle(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Upper-triangle index pairs ``(first, second)``, ``first < second``, of ``n`` members
    in row-major order, and how many pairs each member opens (``first`` is each member
    repeated that many times)."""
    first, second = np.triu_indices(n, 1)
    return first, second, np.arange(n - 1, -1, -1)


def difference_codes(scaled: np.ndarray) -> np.ndarray:
    """Grid codes ``c(d)`` of ``|d| * 1e9`` (module docstring): 0 for a difference of 0 (a
    pair the tie rule ties), else rounded half to even and at least 1 (integer-valued
    floats; NaN stays NaN)."""
    return np.where(scaled > 0, np.maximum(np.rint(scaled), 1.0), scaled)


def _system_means(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean scores over each system's complete cells, ``(n_systems, ..., n_inputs)`` to
    ``(n_systems, ...)`` (NaN for a system without a complete cell)."""
    present = ~(np.isnan(metric) | np.isnan(human))
    counts = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        metric_means = np.where(present, metric, 0.0).sum(axis=-1) / counts
        human_means = np.where(present, human, 0.0).sum(axis=-1) / counts
    return metric_means, human_means


def _pooled(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The complete cells in row-major order (the global level's items)."""
    complete = ~(np.isnan(metric) | np.isnan(human))
    return metric[complete], human[complete]


def _grouped(
    metric: np.ndarray, human: np.ndarray, level: Level
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The level's members on axis 0, with each vector's ties merged by the tie rule over
    its complete pairs, and the complete members per group ``(n_groups,)``.

    Members: ``(n_systems, n_inputs)`` at the summary level (one group per input, NaN where
    either score is missing), ``(n_members,)`` at the system level (NaN for a system without
    a complete cell) and the global level (complete cells sorted by human score: the order
    of a group's members does not change its pairs, and in this order its human-tied pairs
    form runs, which are faster to extract).
    """
    if level is Level.SYSTEM:
        metric, human = _system_means(metric, human)
        members = np.array([np.count_nonzero(~np.isnan(human))])
        return collapse_near_ties(metric), collapse_near_ties(human), members
    if level.pooled:
        metric, human = (merged_columns(v[:, None])[:, 0] for v in _pooled(metric, human))
        order = np.argsort(human)
        return metric[order], human[order], np.array([human.size])
    missing = np.isnan(metric) | np.isnan(human)
    members = metric.shape[0] - missing.sum(axis=0)
    if missing.any():
        metric, human = np.where(missing, np.nan, metric), np.where(missing, np.nan, human)
    return merged_columns(metric), merged_columns(human), members


def _pair_terms(metric: np.ndarray, human: np.ndarray) -> PairTerms:
    """Pair terms of the groups of ``(n_members, ...)`` score arrays (ties merged; NaN in
    both where an item is incomplete): for ``first < second``, ``h = human[second] -
    human[first]`` and ``d = metric[second] - metric[first]``; concordant when ``h * d >
    0``, human-tied when ``h = 0``."""
    _, second, opened = _triangle(human.shape[0])
    gap = np.take(human, second, axis=0)
    gap -= np.repeat(human, opened, axis=0)
    scaled = np.take(metric, second, axis=0)
    scaled -= np.repeat(metric, opened, axis=0)
    scaled *= TIE_SCALE
    concordant = scaled * gap > 0
    scaled = np.abs(scaled, out=scaled)
    return PairTerms(scaled, gap == 0, concordant)


def _per_group(mask: np.ndarray) -> np.ndarray:
    """True pairs per group (column), ``(n_groups,)``; one group for a 1-D ``mask``."""
    return mask.sum(axis=0) if mask.ndim > 1 else np.array([np.count_nonzero(mask)])


def _level_terms(
    metric: np.ndarray, human: np.ndarray, level: Level | str
) -> tuple[PairTerms, np.ndarray]:
    """Pair terms of a level and its complete pairs per group ``(n_groups,)``."""
    metric, human = as_score_pair(metric, human)
    metric, human, members = _grouped(metric, human, Level(level))
    return _pair_terms(metric, human), members * (members - 1) // 2


def _group_mean(counts: np.ndarray, n_pairs: np.ndarray) -> float:
    """Mean over the groups with pairs of ``counts / n_pairs`` (NaN without any pair)."""
    kept = n_pairs > 0
    if not kept.any():
        return float("nan")
    return float((counts[kept] / n_pairs[kept]).mean())


def _result(
    value: float, epsilon: float, terms: PairTerms, n_pairs: np.ndarray
) -> PairwiseAccuracy:
    return PairwiseAccuracy(
        value=value,
        epsilon=epsilon,
        n_pairs=int(n_pairs.sum()),
        n_groups=int(np.count_nonzero(n_pairs)),
        human_tie_share=_group_mean(_per_group(terms.human_tied), n_pairs),
    )


def pairwise_accuracy(
    metric: np.ndarray, human: np.ndarray, level: Level | str, epsilon: float = 0.0
) -> PairwiseAccuracy:
    """Pairwise accuracy of ``metric`` against ``human`` at ``level`` with the metric tie
    threshold ``epsilon`` (0: ``acc_eq``, each group's pair counts reduced by
    :meth:`~geval_repro.stats.pairs.PairCounts.accuracy`); see the module docstring."""
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite threshold >= 0, got {epsilon}")
    if epsilon == 0:
        metric, human = as_score_pair(metric, human)
        grouped_metric, grouped_human, members = _grouped(metric, human, Level(level))
        counts = _group_counts(grouped_metric, grouped_human)
        n_pairs = members * (members - 1) // 2
        correct = counts.concordant + counts.tied_both
        return PairwiseAccuracy(
            value=_group_mean(correct, n_pairs),
            epsilon=0.0,
            n_pairs=int(n_pairs.sum()),
            n_groups=int(np.count_nonzero(n_pairs)),
            human_tie_share=_group_mean(counts.tied_y + counts.tied_both, n_pairs),
        )
    terms, n_pairs = _level_terms(metric, human, level)
    threshold = np.rint(epsilon * TIE_SCALE)
    codes = difference_codes(terms.scaled)
    correct = _per_group(terms.human_tied & (codes <= threshold)) + _per_group(
        terms.concordant & (codes > threshold)
    )
    return _result(_group_mean(correct, n_pairs), float(epsilon), terms, n_pairs)


def _group_counts(metric: np.ndarray, human: np.ndarray) -> PairCounts:
    """The pair counts of each group of ``(n_members, ...)`` merged scores (NaN where an
    item is incomplete), ``(n_groups,)``."""
    columns = [np.ascontiguousarray(v.reshape(v.shape[0], -1)) for v in (metric, human)]
    complete = ~(np.isnan(columns[0]) | np.isnan(columns[1]))
    return sign_sums(columns[0], columns[1], complete, counts=True).counts


def reference_accuracies(human: np.ndarray, level: Level | str) -> ReferenceAccuracies:
    """The accuracies of the two reference metrics on the present cells of ``human`` (module
    docstring): a constant metric (``acc_eq`` = ``acc*_eq`` = the weighted share ``T`` of
    human-tied pairs) and a random order without ties (expected ``acc_eq`` = ``(1 - T) /
    2``); NaN without a pair."""
    human = as_score_matrix(human, "human")
    constant = np.where(np.isnan(human), np.nan, 0.0)
    terms, n_pairs = _level_terms(constant, human, level)
    share = _group_mean(_per_group(terms.human_tied), n_pairs)
    return ReferenceAccuracies(
        constant=share,
        random=(1.0 - share) / 2.0,
        n_pairs=int(n_pairs.sum()),
        n_groups=int(np.count_nonzero(n_pairs)),
    )


def _fit_counts(terms: PairTerms) -> tuple[int, float, int]:
    """(correct pairs, code) at the smallest best threshold when every pair weighs the same,
    and the number of human-tied pairs.

    Candidates are 0 and the human-tied pairs' codes (the smallest maximizer is one of
    them). At candidate ``c``: correct = human-tied pairs with code <= c + concordant pairs
    with code > c. Concordant pairs above the largest candidate are correct at all of them:
    they are counted, not sorted.
    """
    tied = np.sort(difference_codes(np.append(terms.scaled[terms.human_tied], 0.0)))  # 0 first
    n_concordant = np.count_nonzero(terms.concordant)
    # Every code up to the largest candidate c has |d| * 1e9 <= c + 0.5 (a few codes c + 1,
    # rounded from exactly c + 0.5, may come along: harmless).
    low = terms.concordant & (terms.scaled <= tied[-1] + 0.5)
    concordant = np.sort(difference_codes(terms.scaled[low]))  # their codes (>= 1)
    ends = np.flatnonzero(np.append(tied[1:] != tied[:-1], True))
    candidates = tied[ends]
    # ``ends`` counts the human-tied pairs up to each candidate (the added 0 is no pair).
    correct = ends + (n_concordant - np.searchsorted(concordant, candidates, side="right"))
    best = int(np.argmax(correct))  # the first, i.e. the smallest, maximizer
    return int(correct[best]), float(candidates[best]), tied.size - 1


def _sorted_pairs(terms: PairTerms) -> SortedPairs:
    """The human-tied and concordant pairs of ``terms`` sorted by code (once)."""
    tied = terms.human_tied.reshape(-1)
    index = np.flatnonzero(tied | terms.concordant.reshape(-1))
    codes = difference_codes(terms.scaled.reshape(-1)[index])
    order = np.argsort(codes)
    index = index[order]
    codes = np.concatenate(([0.0], codes[order]))
    ends = np.append(codes[1:] != codes[:-1], True)
    return SortedPairs(codes, ends, np.where(tied[index], 1.0, -1.0), index)


def _first_best(accuracy: np.ndarray) -> np.ndarray:
    """Per row, the first position within ``SELECTION_ATOL`` of the row's maximum."""
    best = accuracy.max(axis=-1, keepdims=True)
    return np.argmax(accuracy >= best - SELECTION_ATOL, axis=-1)


def _sweep(
    codes: np.ndarray,
    ends: np.ndarray,
    gains: np.ndarray,
    base: np.ndarray,
    norm: np.ndarray,
    calibrate: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy, code) at the chosen threshold of each row of a batch.

    ``codes``/``ends``: ``(P + 1,)`` or ``(B, P + 1)``, ascending codes with a leading 0 and
    the candidate positions; ``gains``: ``(B, P)`` each pair's weighted gain in that order;
    ``base``: ``(B,)`` the weight correct with nothing tied; ``norm``: ``(B,)`` the
    denominator (0: undefined, NaN). Without ``calibrate`` the only candidate is 0.
    """
    totals = np.empty((gains.shape[0], gains.shape[1] + 1))
    totals[:, 0] = 0.0
    np.cumsum(gains, axis=1, out=totals[:, 1:])
    totals += base[:, None]
    candidates = ends if calibrate else ends & (codes == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(candidates, totals / norm[:, None], -np.inf)
    pick = _first_best(accuracy)
    rows = np.arange(pick.size)
    value = np.where(norm > 0, accuracy[rows, pick], np.nan)
    return value, np.broadcast_to(codes, accuracy.shape)[rows, pick]


def _summary_sweep(
    terms: PairTerms,
    n_pairs: np.ndarray,
    pairs: SortedPairs,
    multiplicity: np.ndarray,
    calibrate: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Summary level with input ``g`` drawn ``multiplicity[:, g]`` times, ``(B, n_inputs)``:
    each of its pairs weighs ``multiplicity / n_pairs(g)``; the denominator is the number
    of drawn inputs with pairs, counted with repetition. Used for the point estimate with
    unequal pair counts (one row of ones; the bootstrap: :func:`_summary_accuracies`)."""
    has_pairs = n_pairs > 0
    with np.errstate(divide="ignore"):
        per_pair = np.where(has_pairs, 1.0 / n_pairs, 0.0)
    weight = multiplicity * per_pair
    gains = weight[:, pairs.index % n_pairs.size] * pairs.gain
    base = weight @ _per_group(terms.concordant).astype(float)
    norm = multiplicity @ has_pairs.astype(float)
    return _sweep(pairs.codes, pairs.ends, gains, base, norm, calibrate)


class Segments(NamedTuple):
    """The pairs whose correctness a threshold search counts, grouped by candidate.

    Segment 0 holds the pairs correct at threshold 0 (gain +1); segment ``m >= 1`` the
    human-tied (+1) and concordant (-1) pairs with codes in ``(k[m - 1], k[m]]``, ``k`` the
    ascending human-tied codes (``k[0] = 0``), up to the largest; the pairs correct at
    candidate ``k[m]`` are then segment 0's plus the gains of segments 1 to ``m``. After
    merging (see :func:`_segments`) each segment ends at a kept candidate. ``pairs``: the
    pairs' flat indices into the :class:`PairTerms` arrays; ``segment`` and ``gain`` (int8):
    each one's segment and gain; ``n_segments``: the kept candidates.
    """

    pairs: np.ndarray
    segment: np.ndarray
    gain: np.ndarray
    n_segments: int


def _segments(terms: PairTerms, calibrate: bool) -> Segments:
    """The :class:`Segments` of ``terms`` (any shape, flattened); without ``calibrate``,
    segment 0 only.

    A candidate ``k[m]`` is dropped when segment ``m + 1`` has no concordant pair: its gains
    are then >= 0, so with nonnegative weights per pair (draw counts, their products, or
    weights per input) the accuracy at ``k[m + 1]`` is at least that at ``k[m]`` in every
    resample and the maximum is unchanged; segment ``m`` merges into the next kept one.
    """
    codes = difference_codes(terms.scaled.reshape(-1))
    tied, concordant = terms.human_tied.reshape(-1), terms.concordant.reshape(-1)
    correct = np.flatnonzero(concordant | (tied & (codes == 0)))
    rising = tied & (codes > 0)
    candidates = np.unique(codes[rising]) if calibrate else np.empty(0)
    swept = np.empty(0, dtype=np.intp)
    if candidates.size:  # concordant pairs above the largest candidate stay right
        swept = np.flatnonzero(rising | (concordant & (codes <= candidates[-1])))
    segment = np.searchsorted(candidates, codes[swept]) + 1
    lossy = np.zeros(candidates.size + 1, dtype=bool)
    lossy[segment[concordant[swept]]] = True
    kept = np.flatnonzero(np.append(lossy[1:], True))
    return Segments(
        np.concatenate((correct, swept)),
        np.searchsorted(kept, np.concatenate((np.zeros(correct.size, np.intp), segment))),
        np.concatenate((np.ones(correct.size, np.int8), np.where(tied[swept], 1, -1))).astype(
            np.int8
        ),
        kept.size,
    )


class GlobalPlan(NamedTuple):
    """The global level's pairs as integer sparse matrices, for the bootstrap.

    Pairs grouped in the :class:`Segments` of :func:`_segments`. ``spread``: ``(n_rows,
    n_items)``, a row per (segment, item) with each of its pairs' gain in the column of the
    pair's other item; ``row_item``: ``(n_rows,)`` that item; ``segments``: ``(n_segments,
    n_rows)``, 0/1, sums the rows of each segment.
    """

    spread: scipy.sparse.csr_array
    row_item: np.ndarray
    segments: scipy.sparse.csr_array


def _global_plan(terms: PairTerms, n_items: int, calibrate: bool, dtype: type) -> GlobalPlan:
    """The pairs of ``n_items`` items (``terms``) as a :class:`GlobalPlan` with gains of
    ``dtype``; without ``calibrate``, segment 0 only."""
    first, second, _ = _triangle(n_items)
    pairs, segment, gain, n_segments = _segments(terms, calibrate)
    key = segment * n_items + first[pairs]
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.append(True, key[1:] != key[:-1])) if key.size else key
    spread = scipy.sparse.csr_array(
        (gain[order].astype(dtype), second[pairs[order]], np.append(starts, key.size)),
        shape=(starts.size, n_items),
    )
    rows_per_segment = np.bincount(key[starts] // n_items, minlength=n_segments)
    segments = scipy.sparse.csr_array(
        (
            np.ones(starts.size, np.int8),
            np.arange(starts.size),
            np.concatenate(([0], np.cumsum(rows_per_segment))),
        ),
        shape=(n_segments, starts.size),
    )
    return GlobalPlan(spread, key[starts] % n_items, segments)


def _draw_counts(indices: np.ndarray, n_units: int) -> np.ndarray:
    """How often each unit is drawn in each resample: ``(n_units, n_resamples)`` (units on
    axis 0: the sparse products and gathers read whole rows)."""
    n_resamples = indices.shape[0]
    flat = indices.astype(np.intp) * n_resamples + np.arange(n_resamples)[:, None]
    counts = np.bincount(flat.ravel(), minlength=n_units * n_resamples)
    return counts.reshape(n_units, n_resamples)


def _count_type(bound: int) -> type:
    """The narrowest integer type (int16, int32, int64) holding ``-bound`` to ``bound``."""
    for dtype in (np.int16, np.int32):
        if bound <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def _summary_accuracies(
    metric: np.ndarray, human: np.ndarray, indices: np.ndarray, calibrate: bool
) -> np.ndarray:
    """Summary level: accuracy of each resample drawing the inputs ``indices`` ``(B,
    n_draws)`` of ``metric`` and ``human`` ``(n_systems, n_inputs)``.

    With ``k[g]`` how often input ``g`` is drawn and ``A[g, c]`` its correct pairs at
    candidate ``c`` (an integer), the accuracy at ``c`` is ``sum_g k[g] A[g, c] /
    n_pairs(g)`` over ``N = sum k[g]`` (inputs with pairs). ``A[:, c]`` is a cumulative sum
    over the :class:`Segments` up to ``c``: with ``G[s, g]`` the summed gains of input
    ``g``'s pairs in segment ``s`` (a sparse matrix), ``G @ k`` for a block of resamples at
    once and a cumulative sum over the segments give every candidate's count. When every
    input with pairs has ``n`` of them, ``G`` and ``k`` are integers (:func:`_count_type` of
    ``n_draws * n``, which bounds every count and partial sum): the largest count is exact
    and the value is it over ``n N``, correctly rounded. Otherwise ``G`` holds ``gain /
    n_pairs(g)`` (floats), and the chosen accuracy is the first within ``SELECTION_ATOL`` of
    the largest. NaN for a resample without a drawn input with pairs.
    """
    grouped_metric, grouped_human, members = _grouped(metric, human, Level.SUMMARY)
    n_pairs = members * (members - 1) // 2
    n_inputs = n_pairs.size
    n_resamples, n_draws = indices.shape
    counts = _draw_counts(indices, n_inputs)
    drawn = (n_pairs > 0).astype(np.int64) @ counts  # N per resample (0: undefined)
    values = np.full(n_resamples, np.nan)
    counted = n_pairs[n_pairs > 0]
    if counted.size == 0:
        return values
    pairs, segment, gain, n_segments = _segments(
        _pair_terms(grouped_metric, grouped_human), calibrate
    )
    group = pairs % n_inputs  # the pair terms are (n_pairs, n_inputs), row-major
    equal = bool((counted == counted[0]).all())
    if equal:
        dtype = _count_type(n_draws * int(counted[0]))  # bounds every count and partial sum
        weights = gain.astype(dtype)
    else:
        dtype = np.float64
        weights = gain / n_pairs[group]
    # Duplicate (segment, input) entries are summed.
    gains = scipy.sparse.csr_array((weights, (segment, group)), shape=(n_segments, n_inputs))
    per_block = SUMMARY_RESAMPLES_PER_BLOCK if equal else WEIGHTED_RESAMPLES_PER_BLOCK
    per_block = max(1, min(per_block, CELLS_PER_BLOCK // n_segments))
    for start in range(0, n_resamples, per_block):
        stop = min(start + per_block, n_resamples)
        totals = gains @ counts[:, start:stop].astype(dtype)  # (n_segments, block)
        np.cumsum(totals, axis=0, out=totals)
        norm = drawn[start:stop]
        with np.errstate(invalid="ignore", divide="ignore"):
            if equal:
                values[start:stop] = totals.max(axis=0) / (norm * int(counted[0]))
            else:
                accuracy = totals / norm
                best = accuracy.max(axis=0)
                pick = np.argmax(accuracy >= best - SELECTION_ATOL, axis=0)
                values[start:stop] = accuracy[pick, np.arange(stop - start)]
    values[drawn == 0] = np.nan
    return values


def _global_accuracies(
    metric: np.ndarray, human: np.ndarray, indices: np.ndarray, calibrate: bool
) -> np.ndarray:
    """Global level: accuracy of each resample drawing items ``indices`` ``(B, n_draws)``
    of ``metric`` and ``human`` ``(n_items,)``, in integer arithmetic.

    With ``c[i]`` how often item ``i`` is drawn, the correct pairs at a candidate are
    ``sum(c[i] * c[j] * gain)`` over the pairs of the segments up to it, plus the copy
    pairs ``c[i] (c[i] - 1) / 2``: per resample, ``spread @ c`` is each row's sum of
    ``gain * c[j]``, times ``c[item]`` and summed per segment (``segments @``), a cumulative
    sum over the segments gives the counts at the candidates, and the largest is the count
    at the best threshold. Exact: below ``NARROW_DRAWS`` draws the counts and ``spread @
    c`` (at most ``n_draws`` in size) are int16, the products and their sums (at most
    ``n_draws ** 2``) int32; int64 above. The accuracy is that integer over ``n_draws
    (n_draws - 1) / 2``.
    """
    n_resamples, n_draws = indices.shape
    if n_draws < 2:
        return np.full(n_resamples, np.nan)
    narrow = n_draws < NARROW_DRAWS
    count_type, sum_type = (np.int16, np.int32) if narrow else (np.int64, np.int64)
    plan = _global_plan(_pair_terms(metric, human), human.size, calibrate, count_type)
    # counts[i, r]: draws of item i in resample r (items on axis 0: the sparse products and
    # the gather block[row_item] read whole rows).
    counts = _draw_counts(indices, human.size)
    copies = (counts * (counts - 1) // 2).sum(axis=0)
    per_block = max(
        1, min(GLOBAL_RESAMPLES_PER_BLOCK, GLOBAL_CELLS_PER_BLOCK // max(1, plan.row_item.size))
    )
    values = np.empty(n_resamples)
    n_pairs = n_draws * (n_draws - 1) / 2
    for start in range(0, n_resamples, per_block):
        block = counts[:, start : start + per_block].astype(count_type)
        per_row = np.multiply(plan.spread @ block, block[plan.row_item], dtype=sum_type)
        totals = plan.segments @ per_row
        np.cumsum(totals, axis=0, out=totals)
        correct = totals.max(axis=0).astype(np.int64) + copies[start : start + per_block]
        values[start : start + per_block] = correct / n_pairs
    return values


def _recomputed_sweep(
    metric: np.ndarray, human: np.ndarray, calibrate: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy, code) of each resampled vector of ``(n_members, B)`` scores (NaN where a
    member has none), recomputed: each vector's ties merged by the tie rule, its pairs
    coded and sorted per resample."""
    metric, human = merged_columns(metric), merged_columns(human)
    terms = _pair_terms(metric, human)  # (n_pairs, B)
    tied, concordant = terms.human_tied.T, terms.concordant.T
    keys = np.where(tied | concordant, difference_codes(terms.scaled.T), np.inf)  # others last
    order = np.argsort(keys, axis=1)
    codes = np.concatenate(
        (np.zeros((keys.shape[0], 1)), np.take_along_axis(keys, order, axis=1)), axis=1
    )
    ends = np.isfinite(codes)
    ends[:, :-1] &= codes[:, 1:] != codes[:, :-1]
    gains = np.take_along_axis(tied.astype(float) - concordant, order, axis=1)
    members = (~np.isnan(human)).sum(axis=0)
    base = concordant.sum(axis=1).astype(float)
    return _sweep(codes, ends, gains, base, members * (members - 1) / 2.0, calibrate)


def _system_accuracies(
    metric: np.ndarray, human: np.ndarray, columns: np.ndarray, calibrate: bool
) -> np.ndarray:
    """System level: accuracy of each resample drawing the inputs ``columns`` ``(B,
    n_inputs)``; its system means and their pairs are recomputed (:func:`_recomputed_sweep`),
    a block of resamples at a time."""
    per_block = max(1, SYSTEM_CELLS_PER_BLOCK // metric.size)
    blocks = []
    for start in range(0, columns.shape[0], per_block):
        drawn = columns[start : start + per_block]
        means = _system_means(metric[:, drawn], human[:, drawn])
        blocks.append(_recomputed_sweep(*means, calibrate)[0])
    return np.concatenate(blocks)


def _pooled_accuracies(
    metric: np.ndarray, human: np.ndarray, indices: np.ndarray, calibrate: bool
) -> np.ndarray:
    """Global level: accuracy of each resample drawing items ``indices`` of the pooled
    ``metric`` and ``human`` ``(n_items,)``: :func:`_global_accuracies` on the vectors
    merged once when every subset of each clusters as the whole, else each resampled
    vector recomputed (:func:`_recomputed_sweep`)."""
    if stable_clusters(metric) is not None and stable_clusters(human) is not None:
        merged = collapse_near_ties(metric), collapse_near_ties(human)
        return _global_accuracies(*merged, indices, calibrate)
    n_pairs = max(1, indices.shape[1] * (indices.shape[1] - 1) // 2)
    per_block = max(1, SYSTEM_CELLS_PER_BLOCK // n_pairs)
    blocks = [
        _recomputed_sweep(
            metric[indices[start : start + per_block]].T,
            human[indices[start : start + per_block]].T,
            calibrate,
        )[0]
        for start in range(0, indices.shape[0], per_block)
    ]
    return np.concatenate(blocks)


def tie_calibrated_accuracy(
    metric: np.ndarray, human: np.ndarray, level: Level | str
) -> PairwiseAccuracy:
    """``acc*_eq``: the pairwise accuracy at the fitted metric tie threshold ``epsilon*``
    (the smallest candidate with the largest accuracy; see the module docstring)."""
    terms, n_pairs = _level_terms(metric, human, level)
    counted = n_pairs[n_pairs > 0]
    if counted.size == 0:
        return _result(float("nan"), 0.0, terms, n_pairs)
    if (counted == counted[0]).all():  # equal weights: integer counts
        correct, code, n_tied = _fit_counts(terms)
        total = int(counted.sum())
        return PairwiseAccuracy(
            correct / total, code / TIE_SCALE, total, counted.size, n_tied / total
        )
    ones = np.ones((1, n_pairs.size))
    values, codes = _summary_sweep(terms, n_pairs, _sorted_pairs(terms), ones, True)
    return _result(float(values[0]), float(codes[0]) / TIE_SCALE, terms, n_pairs)


def resampled_accuracies(
    metric: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    indices: np.ndarray,
    *,
    calibrate: bool,
) -> np.ndarray:
    """Accuracy (``acc*_eq`` with the threshold re-fitted, or ``acc_eq``) of each resample.

    ``indices`` ``(n_resamples, n)``: columns (inputs) drawn at the summary and system
    levels, complete cells in row-major order (items) at the global level. Returns one
    value per resample, NaN where the resample has no complete pair.
    """
    metric, human = as_score_pair(metric, human)
    level = Level(level)
    indices = np.asarray(indices)
    if level is Level.SYSTEM:
        return _system_accuracies(metric, human, indices, calibrate)
    if level.pooled:  # the items in row-major order, as the indices number them
        return _pooled_accuracies(*_pooled(metric, human), indices, calibrate)
    return _summary_accuracies(metric, human, indices, calibrate)


def bootstrap_accuracy(
    metric: np.ndarray,
    human: np.ndarray,
    level: Level | str,
    *,
    calibrate: bool,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int,
    unit: str | None = None,
) -> BootstrapResult:
    """Percentile bootstrap CI of ``acc*_eq`` (``calibrate=True``, threshold re-fitted in
    every resample) or ``acc_eq`` (``calibrate=False``).

    ``unit``: None or the level's unit (``inputs`` at the summary and system levels,
    ``items`` at the global level). Indices come from ``numpy.random.default_rng(seed)``
    as in :func:`~geval_repro.stats.bootstrap.bootstrap_ci`: ``integers(0, n_inputs,
    (n_resamples, n_inputs))`` or ``integers(0, n_items, (n_resamples, n_items))``.
    Resamples without a complete pair are dropped and counted in ``n_invalid``.
    """
    metric, human = as_score_pair(metric, human)
    level = Level(level)
    unit = check_unit(unit, level)
    if unit != level.bootstrap_unit:
        raise ValueError(
            f"bootstrap_accuracy resamples {level.bootstrap_unit!r} at the {level} level "
            f"(summary and system: 'inputs'; global: 'items'), got unit {unit!r}"
        )
    check_resampling(n_resamples, confidence)
    rng = np.random.default_rng(seed)
    if unit == "items":
        n_items = int((~(np.isnan(metric) | np.isnan(human))).sum())
        if n_items < 2:
            raise ValueError(f"item resampling needs at least 2 complete cells, got {n_items}")
        indices = rng.integers(0, n_items, size=(n_resamples, n_items))
    else:
        indices = rng.integers(0, metric.shape[1], size=(n_resamples, metric.shape[1]))
    values = resampled_accuracies(metric, human, level, indices, calibrate=calibrate)
    return percentile_interval(
        values,
        unit=unit,
        confidence=confidence,
        undefined=f"none of the {n_resamples} resamples has a complete pair at the {level} level",
    )
