"""The correlation level as one type: :class:`Level`, resolved once from its name.

A level says how a (n_systems, n_inputs) score matrix is turned into one correlation
(:mod:`geval_repro.stats.levels` computes it) and, with that, what a resample draws and what
a permutation swaps:

============  =====================================  ===============  ================
level         one correlation over                   bootstrap draws  permutation swaps
============  =====================================  ===============  ================
``summary``   each input's systems, averaged over    inputs           inputs
              the inputs kept (the groups)
``system``    the systems' means over the inputs     inputs           systems
``global``    every present cell, pooled             items            items
============  =====================================  ===============  ================

The bootstrap's default unit is what its intervals are over (Deutsch et al. 2021: documents
at the summary and system levels, items when they are pooled); a permutation test's default
swap unit is the smallest unit that keeps the pairs a coefficient compares intact (a whole
document at the summary level, a whole system at the system level, one item when pooled).

A :class:`Level` is a ``str`` (``Level.SUMMARY == "summary"``), so it is written to tables
and read from configs as its name. Light on purpose (no numpy): the registry of benchmarks
names each benchmark's level with it when the workflow is parsed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Level(StrEnum):
    """One correlation level (see the module docstring)."""

    SUMMARY = "summary"
    SYSTEM = "system"
    GLOBAL = "global"

    @classmethod
    def _missing_(cls, value: object) -> Level:
        raise ValueError(f"unknown level {value!r}: use one of {[level.value for level in cls]}")

    @property
    def grouped(self) -> bool:
        """Whether the value averages one correlation per input (the summary level)."""
        return self is Level.SUMMARY

    @property
    def pooled(self) -> bool:
        """Whether every present cell enters one correlation (the global level)."""
        return self is Level.GLOBAL

    @property
    def bootstrap_unit(self) -> str:
        """What a bootstrap resample draws by default: ``inputs`` or ``items``."""
        return "items" if self.pooled else "inputs"

    @property
    def permutation_unit(self) -> str:
        """What a paired permutation test swaps by default: ``inputs``, ``systems`` or
        ``items``."""
        return {"summary": "inputs", "system": "systems", "global": "items"}[self.value]

    def paired_cells(self, complete: Any) -> int:
        """How many complete cells of a boolean ``(n_systems, n_inputs)`` matrix enter a
        pair at this level: those of inputs with at least two (summary); the systems with a
        mean (system); every one (global); 0 when fewer than two would."""
        if self.grouped:
            per_input = complete.sum(axis=0)
            return int(per_input[per_input >= 2].sum())
        present = int(complete.any(axis=1).sum()) if self is Level.SYSTEM else int(complete.sum())
        return present if present >= 2 else 0


#: Every level, in the order the tables list them.
LEVELS: tuple[Level, ...] = tuple(Level)
#: What a bootstrap may draw and a permutation test may swap (nlpstats' names); ``items``
#: only where cells are pooled.
UNITS: tuple[str, ...] = ("inputs", "systems", "both", "items")
