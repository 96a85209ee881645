"""Judge runs of format ``geval-jsonl``: one JSON Lines file per dimension (``<dimension>.jsonl``).

Each line is one JSON object for one item of the benchmark:

- the benchmark's item keys (SummEval ``doc_id``, ``system_id``; Topical-Chat and QAGS
  ``item_id``, the tidy table's integer id; writer vs GPT-3.5 ``item_id``, its 12 hex
  digits);
- ``replies``: the sampled reply texts, in the order the API returned them;
- ``level_probs``: ``{"<rating>": p, ...}``, the probability of each valid rating of the
  dimension's judge scale (top log-probabilities after ``exp``), or ``null`` when no rating
  was read (the item is then left out of the rating scores, with a warning); ratings not
  listed have probability 0; a key that is not a rating of the scale is an error (its mass
  belongs in ``off_scale_mass``); the probabilities must be finite, >= 0 and sum to at most
  1. The field keeps the name the file format documents; it is read into the run's
  ``rating_probs`` table;
- optional ``off_scale_mass`` (probability on tokens that are not a rating),
  ``weighted_score`` (the writer's Eq. 1 score; a value that differs from the one computed
  here by more than 1e-6 is logged as a warning, the computed one is used), ``error`` (a
  non-empty string: the item could not be judged; it is left out with a warning and its
  other fields are not read) and ``scores`` (human scores, checked like the released
  format's). Other fields are ignored.

The run's config lists which of the fields ``replies`` / ``level_probs`` it reads (default:
both); every item without an ``error`` must carry each of them.

**The run's manifest** (:func:`check_against_manifest`). A folder written by ``geval-repro
judge`` holds a ``manifest.json`` that records, per dimension, the SHA-256 of the file it
wrote (``output_sha256``) and its items (``counts.items``). When the reader is given that
manifest (the pipeline gives a ``dir:`` folder's, or a ``files:`` run's ``manifest:``), a
file that differs from it (cut short, edited, or left by another run) is an error naming
the file, what differs and the fix, before anything is read: its tables would otherwise
show a partial run as if it were the whole one. A ``manifest.json`` that another tool wrote
(an object without ``dimensions``) is not checked.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load import judge_items
from geval_repro.load.schemas import rating_probs_schema, replies_schema, validate_table
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.formats import FIELD_CONTENTS
from geval_repro.stats.weighted import weighted_scores

logger = logging.getLogger(__name__)

#: The fields a run may read, and the table each is read into (its content).
FIELDS: dict[str, str] = dict(FIELD_CONTENTS)
WEIGHTED_TOLERANCE = 1e-6
PROBABILITY_TOLERANCE = 1e-6
FORMAT_FIX = (
    "a geval-jsonl file holds one JSON object per line, with the benchmark's item keys and "
    "'replies' (a list of strings) and/or 'level_probs' ({\"<rating>\": probability}) as the "
    "judge config's `reads` lists"
)


def _probability(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0.0 <= value <= 1.0 + PROBABILITY_TOLERANCE
    )


def _rating_row(probs: object, ratings: tuple[int, ...], fail, index: int) -> np.ndarray:
    """The item's probability per rating of ``ratings`` (0 where not listed), checked."""
    if not isinstance(probs, dict) or not probs:
        raise fail(
            index,
            f"has 'level_probs' {probs!r:.80}, not a non-empty object",
            'give {"<rating>": probability} for the ratings of the scale',
        )
    row = np.zeros(len(ratings))
    for token, p in probs.items():
        rating = int(token) if isinstance(token, str) and token.strip().isdigit() else None
        if rating not in ratings:
            raise fail(
                index,
                f"has level_probs key {token!r}, not a rating of the scale {ratings}",
                "keep the scale's ratings only; put other tokens' mass in 'off_scale_mass'",
            )
        if not _probability(p):
            raise fail(
                index,
                f"has level_probs[{token!r}] = {p!r}, not a probability",
                "store exp(logprob), a number in [0, 1]",
            )
        row[ratings.index(rating)] += p
    if row.sum() > 1.0 + PROBABILITY_TOLERANCE:
        raise fail(
            index,
            f"has rating probabilities summing to {row.sum():.6f} > 1",
            "store probabilities of one distribution (exp of the top logprobs)",
        )
    return row


def rating_coverage(path: str | Path) -> tuple[int, int]:
    """(items answered, items with a rating token) of one ``<dimension>.jsonl``: the lines
    without ``error``, and those of them whose ``level_probs`` is not null (the file was
    validated by :func:`load_geval_jsonl` when the run was read)."""
    answered = rated = 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("error"):
            continue
        answered += 1
        rated += record.get("level_probs") is not None
    return answered, rated


def reasoning_run(manifests: Sequence[str | Path]) -> bool:
    """Whether the run a ``manifest.json`` documents (none given: no) was a reasoning model's:
    a dimension whose ``reply_parsers`` hold ``final``, or (a manifest written before that
    field) whose ``request_fields`` say ``reasoning``. Its replies are then read with the
    ``final`` parser too (:func:`geval_repro.scoring.parse.reply_parsers`)."""
    for manifest in manifests:
        record = json.loads(Path(manifest).read_text(encoding="utf-8"))
        entries = record.get("dimensions") if isinstance(record, dict) else None
        for entry in (entries or {}).values():
            if not isinstance(entry, dict):
                continue
            fields = entry.get("request_fields")
            if "final" in (entry.get("reply_parsers") or ()) or (
                isinstance(fields, dict) and fields.get("reasoning") is True
            ):
                return True
    return False


def recorded_variant(manifest: str | Path, dimension: str) -> str | None:
    """The prompt variant a run's manifest records for ``dimension`` (None: not recorded, a
    manifest written before the field or by another tool)."""
    record = json.loads(Path(manifest).read_text(encoding="utf-8"))
    entries = record.get("dimensions") if isinstance(record, dict) else None
    entry = (entries or {}).get(dimension) if isinstance(entries, dict) else None
    return entry.get("prompt_variant") if isinstance(entry, dict) else None


def check_against_manifest(path: str | Path, dimension: str, manifest: str | Path) -> None:
    """Raise ``ValueError`` when ``path`` is not the ``<dimension>.jsonl`` that the run's
    ``manifest`` records (see the module docstring); nothing for another tool's manifest."""
    path, manifest = Path(path), Path(manifest)
    fix = (
        f"Fix: rerun the judge into {path.parent} (`geval-repro judge ... --out {path.parent}`, "
        "or the pipeline's judge job: the cache keeps every answer, nothing is requested "
        "again), or restore the file"
    )
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(
            f"{manifest}: not a readable run manifest ({error}). Fix: restore it, or rerun "
            f"the judge into {manifest.parent} to write it again"
        ) from None
    if not isinstance(record, dict):
        raise ValueError(
            f"{manifest}: a JSON {type(record).__name__}, not a run manifest (an object). "
            f"Fix: restore it, or rerun the judge into {manifest.parent} to write it again"
        )
    if "dimensions" not in record:
        return  # another tool's manifest: nothing to check against
    entry = (record["dimensions"] or {}).get(dimension)
    expected = entry.get("output_sha256") if isinstance(entry, dict) else None
    if not isinstance(expected, str):
        raise ValueError(
            f"{path}: its folder's manifest {manifest} records no run of dimension "
            f"{dimension!r}, so the file was not written by the run it documents. {fix}"
        )
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual == expected:
        return
    items = (entry.get("counts") or {}).get("items")
    lines = sum(1 for line in data.splitlines() if line.strip())
    what = (
        f"it has {lines} items where the run wrote {items} (cut short or added to)"
        if isinstance(items, int) and items != lines
        else f"its {lines} items were changed after the run"
    )
    raise ValueError(
        f"{path} does not match its manifest {manifest}: {what}; SHA-256 {actual[:12]}..., "
        f"the manifest records {expected[:12]}.... {fix}"
    )


def load_geval_jsonl(
    path: str | Path,
    judge: str,
    dimension: str,
    human: pd.DataFrame,
    benchmark: str,
    reads: Sequence[str] = tuple(FIELDS),
    manifest: str | Path | None = None,
    ratings: tuple[int, ...] | None = None,
) -> dict[str, pd.DataFrame]:
    """One dimension's JSON Lines file, its fields ``reads`` -> ``{"replies": ...,
    "rating_probs": ...}`` (each field's table, :data:`FIELDS`).

    ``replies``: the long replies table of :func:`geval_repro.load.load_released_replies`;
    ``rating_probs`` (from the field ``level_probs``): judge, benchmark, dimension, item keys,
    rating, prob, off_scale_mass (one row per item and rating of the judge scale). ``human``
    is the benchmark's tidy table. ``manifest``: the run's ``manifest.json``, checked first
    (:func:`check_against_manifest`). ``ratings``: the scale of ``level_probs`` when it is not
    the dimension's judge scale (a Yes/No prompt variant's 0 and 1). Errors name the file,
    the line, the item and the fix.
    """
    if manifest is not None:
        check_against_manifest(path, dimension, manifest)
    entry = get_benchmark(benchmark)
    unknown = sorted(set(reads) - set(FIELDS))
    if unknown or not reads:
        raise ValueError(f"judge {judge!r}: `reads` must list some of {tuple(FIELDS)}, got {reads}")
    ratings = ratings or entry.dimension(dimension).ratings
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 ({error}). Fix: {FORMAT_FIX}.") from None
    records: list[tuple[int, dict]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{path}: line {number} is not valid JSON ({error}). Fix: {FORMAT_FIX}."
            ) from None
        if not isinstance(record, dict):
            raise ValueError(
                f"{path}: line {number} is a {type(record).__name__}, not an object. "
                f"Fix: {FORMAT_FIX}."
            )
        records.append((number, record))
    if not records:
        raise ValueError(f"{path}: no items. Fix: {FORMAT_FIX}.")

    def fail(index: int, problem: str, fix: str) -> ValueError:
        number, record = records[index]
        where = judge_items.describe(record, f"line {number}", entry.item_keys)
        return ValueError(f"{path}: {where} {problem}. Fix: {fix}. Note: {FORMAT_FIX}.")

    errored = [i for i, (_, r) in enumerate(records) if r.get("error")]
    if errored:
        number, record = records[errored[0]]
        logger.warning(
            "%s: %d item(s) carry an error and are left out (first: line %d, %r)",
            path,
            len(errored),
            number,
            str(record["error"])[:200],
        )
    skipped = set(errored)
    kept = [i for i in range(len(records)) if i not in skipped]
    if not kept:
        raise ValueError(f"{path}: every item carries an error: nothing to score")

    keys, replies, probs, off_scale, carried = [], [], [], [], []
    names = entry.human_dimensions  # the human scores an item may carry (``scores``)
    for index in kept:
        record = records[index][1]
        keys.append(judge_items.item_key(record, entry, fail, index))
        for field in reads:
            if field not in record:
                raise fail(index, f"has no {field!r}", f"add it, or drop {field} from `reads`")
        if "replies" in reads:
            replies.append(judge_items.check_reply_list(record["replies"], fail, index, "replies"))
        if "level_probs" in reads and record["level_probs"] is None:
            probs.append(None)  # no rating read for this item: left out of the rating table
            off_scale.append(np.nan)
        elif "level_probs" in reads:
            probs.append(_rating_row(record["level_probs"], ratings, fail, index))
            mass = record.get("off_scale_mass")
            if mass is not None and not _probability(mass):
                raise fail(index, f"has off_scale_mass {mass!r}", "store a number in [0, 1]")
            off_scale.append(np.nan if mass is None else float(mass))
        carried.append(
            judge_items.carried_scores(record, names, names, fail, index)
            if "scores" in record
            else np.full(len(names), np.nan)
        )

    def fail_kept(position: int, problem: str, fix: str) -> ValueError:
        return fail(kept[position], problem, fix)

    key_frame = judge_items.joined_keys(keys, carried, human, entry, names, fail_kept)

    out: dict[str, pd.DataFrame] = {}
    item_columns = [*entry.item_keys]
    if "replies" in reads:
        out["replies"] = validate_table(
            judge_items.replies_frame(judge, entry, dimension, key_frame, replies),
            replies_schema(benchmark),
            path,
            [*item_columns, "reply_index"],
            fix=FORMAT_FIX,
        )
    if "level_probs" in reads:
        read = np.array([row is not None for row in probs], dtype=bool)
        if not read.any():
            raise ValueError(
                f"{path}: no item has level_probs: nothing to score. Fix: {FORMAT_FIX}."
            )
        if not read.all():
            number = records[kept[int(np.flatnonzero(~read)[0])]][0]
            logger.warning(
                "%s: %d item(s) have level_probs null (no rating read) and are left out of the "
                "rating scores (first: line %d)",
                path,
                int((~read).sum()),
                number,
            )
        matrix = np.array([row for row in probs if row is not None])
        kept_probs = [i for i, ok in zip(kept, read, strict=True) if ok]
        _check_given_weighted(path, records, kept_probs, matrix, ratings)
        rated_keys = key_frame.loc[read].reset_index(drop=True)
        off_scale = [m for m, ok in zip(off_scale, read, strict=True) if ok]
        n_ratings = len(ratings)
        table = pd.DataFrame(
            {
                "judge": judge,
                "benchmark": benchmark,
                "dimension": dimension,
                **{k: np.repeat(rated_keys[k].to_numpy(), n_ratings) for k in item_columns},
                "rating": np.tile(np.array(ratings, dtype=np.int64), len(rated_keys)),
                "prob": matrix.reshape(-1),
                "off_scale_mass": np.repeat(np.array(off_scale, dtype=float), n_ratings),
            }
        )
        out["rating_probs"] = validate_table(
            table, rating_probs_schema(benchmark), path, [*item_columns, "rating"], FORMAT_FIX
        )
    return out


def _check_given_weighted(
    path: str | Path,
    records: list[tuple[int, dict]],
    kept: list[int],
    matrix: np.ndarray,
    ratings: tuple[int, ...],
) -> None:
    """Warn where a file's own ``weighted_score`` differs from Eq. 1 on its level_probs."""
    ours = weighted_scores(matrix, ratings)
    given = np.array(
        [
            float(records[i][1]["weighted_score"])
            if isinstance(records[i][1].get("weighted_score"), int | float)
            else np.nan
            for i in kept
        ]
    )
    differs = np.abs(given - ours) > WEIGHTED_TOLERANCE  # NaN (absent) compares False
    if differs.any():
        first = int(np.flatnonzero(differs)[0])
        logger.warning(
            "%s: %d item(s) give a weighted_score that differs from Eq. 1 on their level_probs "
            "(first: line %d, given %r, computed %r); the computed score is used",
            path,
            int(differs.sum()),
            records[kept[first]][0],
            given[first],
            ours[first],
        )
