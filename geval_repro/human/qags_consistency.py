"""QAGS human consistency derived from the MTurk originals, and the workers' agreement.

QAGS (Wang et al., 2020, sec. 4.2) asked three crowd workers per summary sentence whether
the sentence is supported by the article ("yes"/"no"), took the majority answer per
sentence, and scored a summary by the share of its sentences judged consistent:

    consistency(summary) = #{sentences with more "yes" than "no"} / #sentences

:func:`summary_consistency` recomputes that from :func:`geval_repro.load.qags.load_qags_mturk`;
:func:`compare_with_unieval` checks it item by item against UniEval's converted files.
Matching: an MTurk summary is the concatenation of its sentences (joined by a space); it
matches the UniEval row of the same subset whose ``summary`` has the same normalized text,
where normalization lowercases and drops every character outside ``[a-z0-9]``. UniEval
re-tokenized the texts ("nutrition, but" became "nutrition , but"), so only letters and
digits are compared; a summary with no match, or with several, is reported, not guessed.

:func:`worker_agreement`: Krippendorff's alpha (nominal) per subset over the units
(summary sentences) x coders (workers, by worker_id) matrix with the ``krippendorff``
package; nominal alpha depends only on which answers share a unit, not on who gave them.
"""

from __future__ import annotations

import re

import krippendorff
import numpy as np
import pandas as pd

ANSWERS = {"no": 0, "yes": 1}
SENTENCE_KEYS = ["subset", "summary_index", "sentence_index"]
NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]")


def normalize_text(text: str) -> str:
    """Lowercase ``text`` and keep only ``[a-z0-9]`` (the matching key of this module)."""
    return NON_ALPHANUMERIC.sub("", text.lower())


def _answers(mturk: pd.DataFrame) -> pd.Series:
    """The responses as 1 ("yes") / 0 ("no"); any other value is an error naming the row."""
    coded = mturk["response"].map(ANSWERS)
    bad = coded.isna()
    if bad.any():
        row = mturk.loc[bad].iloc[0]
        raise ValueError(
            f"{int(bad.sum())} MTurk response(s) are neither 'yes' nor 'no', e.g. "
            f"{row['response']!r} (subset {row['subset']!r}, summary {row['summary_index']}, "
            f"sentence {row['sentence_index']}, worker {row['worker_id']!r})"
        )
    return coded.astype(int)


def sentence_majority(mturk: pd.DataFrame) -> pd.DataFrame:
    """One row per summary sentence: n_workers, n_yes and the majority label.

    Columns: subset, summary_index, sentence_index, sentence, n_workers, n_yes, consistent
    (``n_yes > n_workers / 2``). An even split has no majority and raises a ValueError
    naming the sentence (QAGS used three workers, so it cannot happen on its data).
    """
    table = mturk.assign(yes=_answers(mturk))
    grouped = table.groupby(SENTENCE_KEYS, sort=True)
    sentences = grouped.agg(
        sentence=("sentence", "first"), n_workers=("yes", "size"), n_yes=("yes", "sum")
    ).reset_index()
    tied = sentences["n_yes"] * 2 == sentences["n_workers"]
    if tied.any():
        row = sentences.loc[tied].iloc[0]
        raise ValueError(
            f"{int(tied.sum())} sentence(s) split evenly between 'yes' and 'no', e.g. subset "
            f"{row['subset']!r}, summary {row['summary_index']}, sentence "
            f"{row['sentence_index']} ({row['n_yes']} of {row['n_workers']}): no majority"
        )
    sentences["consistent"] = sentences["n_yes"] * 2 > sentences["n_workers"]
    return sentences


def summary_consistency(mturk: pd.DataFrame) -> pd.DataFrame:
    """QAGS consistency per summary (module docstring), one row per summary.

    Columns: subset, summary_index, summary (the sentences joined by a space, in order),
    n_sentences, n_consistent, consistency (= n_consistent / n_sentences).
    """
    sentences = sentence_majority(mturk)
    summaries = (
        sentences.groupby(["subset", "summary_index"], sort=True)
        .agg(
            summary=("sentence", " ".join),
            n_sentences=("consistent", "size"),
            n_consistent=("consistent", "sum"),
        )
        .reset_index()
    )
    summaries["consistency"] = summaries["n_consistent"] / summaries["n_sentences"]
    return summaries


def compare_with_unieval(derived: pd.DataFrame, unieval: pd.DataFrame) -> pd.DataFrame:
    """Item-by-item check of derived consistency against UniEval's conversion.

    ``derived``: :func:`summary_consistency`; ``unieval``: rows of
    :func:`geval_repro.load.qags.load_qags` (subset, item_id, summary, consistency), one or
    both subsets. One row per derived summary: subset, summary_index, item_id (matched
    UniEval row, NA when none), n_candidates (UniEval rows with the same normalized text),
    same_position (item_id == summary_index), derived, unieval (UniEval's consistency),
    abs_diff, match (a unique text match and ``abs_diff <= 1e-9``).
    """
    left = derived.assign(key=derived["summary"].map(normalize_text))
    right = unieval.assign(key=unieval["summary"].map(normalize_text))[
        ["subset", "key", "item_id", "consistency"]
    ].rename(columns={"consistency": "unieval"})
    counts = right.groupby(["subset", "key"]).size().rename("n_candidates").reset_index()
    unique = right.merge(counts, on=["subset", "key"]).query("n_candidates == 1")
    merged = left.merge(counts, on=["subset", "key"], how="left").merge(
        unique.drop(columns="n_candidates"), on=["subset", "key"], how="left"
    )
    merged["n_candidates"] = merged["n_candidates"].fillna(0).astype(int)
    merged["item_id"] = merged["item_id"].astype("Int64")
    merged["same_position"] = (merged["item_id"] == merged["summary_index"]).fillna(False)
    merged = merged.rename(columns={"consistency": "derived"})
    merged["abs_diff"] = (merged["derived"] - merged["unieval"]).abs()
    merged["match"] = (merged["n_candidates"] == 1) & (merged["abs_diff"] <= 1e-9)
    return merged[
        [
            "subset",
            "summary_index",
            "item_id",
            "n_candidates",
            "same_position",
            "derived",
            "unieval",
            "abs_diff",
            "match",
        ]
    ].reset_index(drop=True)


def worker_agreement(mturk: pd.DataFrame) -> pd.DataFrame:
    """Inter-annotator agreement of the MTurk workers, one row per subset.

    Columns: subset, n_sentences (units), n_workers (distinct worker_id), n_answers,
    alpha_nominal (Krippendorff's alpha over the worker x sentence matrix, NaN = not
    answered), unanimous_share (sentences whose answers are all equal), yes_share.
    """
    coded = mturk.assign(yes=_answers(mturk))
    rows = []
    for subset, part in coded.groupby("subset", sort=True):
        units = part.groupby(SENTENCE_KEYS[1:]).ngroup().to_numpy()
        workers, coder = np.unique(part["worker_id"].to_numpy(), return_inverse=True)
        matrix = np.full((len(workers), units.max() + 1), np.nan)
        matrix[coder, units] = part["yes"].to_numpy(dtype=float)
        per_unit = part.groupby(SENTENCE_KEYS[1:])["yes"]
        rows.append(
            {
                "subset": subset,
                "n_sentences": matrix.shape[1],
                "n_workers": len(workers),
                "n_answers": len(part),
                "alpha_nominal": krippendorff.alpha(
                    reliability_data=matrix, level_of_measurement="nominal"
                ),
                "unanimous_share": float((per_unit.nunique() == 1).mean()),
                "yes_share": float(part["yes"].mean()),
            }
        )
    return pd.DataFrame(rows)
