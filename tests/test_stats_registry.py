"""The coefficient registry (geval_repro.stats.registry): every entry's functions resolve,
an unknown name is an error wherever a coefficient is named, and nothing outside the
registry branches on a coefficient's name (read from the package's source)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geval_repro.registry.benchmarks import BENCHMARKS
from geval_repro.scoring.sweep import sweep
from geval_repro.stats import registry
from geval_repro.stats.bootstrap import bootstrap_ci
from geval_repro.stats.invariance import order_only
from geval_repro.stats.levels import correlate
from geval_repro.stats.permutation import paired_permutation_test
from geval_repro.stats.registry import CORRELATIONS, STATISTICS, Coefficient
from geval_repro.tables.rows import correlation_rows
from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "geval_repro"
#: Places that name a coefficient in a comparison for a reason of their own, not to branch
#: on it: a check that SummEval's Table 2 file prints Kendall's tau only, as the paper does.
NAMED_ON_PURPOSE = {"geval_repro/registry/summeval_paper.py": ["kendall"]}


@pytest.mark.parametrize("entry", CORRELATIONS, ids=lambda e: e.name)
def test_every_entrys_functions_resolve(entry: Coefficient) -> None:
    for hook in ("rows", "signs", "codes", "swaps"):
        function = entry.function(hook)
        assert (function is None) == (getattr(entry, hook) is None)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 3, 9))
    assert entry.function()(x, y).shape == (3,)


def test_an_unknown_name_is_an_error_everywhere() -> None:
    metric = np.arange(12.0).reshape(3, 4)
    human = metric[::-1].copy()
    calls = [
        lambda: registry.statistic("tau"),
        lambda: registry.coefficient("acc_eq"),  # an accuracy, not a correlation
        lambda: registry.symbol("tau"),
        lambda: correlate(metric, human, "summary", "tau"),
        lambda: bootstrap_ci(metric, human, "global", "tau", n_resamples=5, seed=0),
        lambda: paired_permutation_test(metric, human, human, "global", "tau", seed=0),
        lambda: order_only("summary", "tau"),
        lambda: correlation_rows(
            benchmark="summeval",
            dimension="coherence",
            metric="m",
            variant="v",
            level="summary",
            metric_scores=metric,
            human_scores=human,
            coefficients=("tau",),
            n_resamples=0,
            seed=0,
        ),
        lambda: sweep(pd.DataFrame(), pd.DataFrame(), seed=0, coefficients=("tau",)),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"unknown coefficient|not a correlation"):
            call()


def test_the_benchmarks_printed_coefficients_are_registry_coefficients() -> None:
    for benchmark in BENCHMARKS.values():
        for name in benchmark.printed_coefficients:
            registry.coefficient(name)


def _names_in_branches(path: Path) -> list[str]:
    """Each coefficient name a comparison or a dict key of ``path`` holds: code that
    branches on a coefficient's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        constants: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                constants += list(ast.walk(side))
        elif isinstance(node, ast.Dict):
            constants += [key for key in node.keys if key is not None]
        found += [
            c.value for c in constants if isinstance(c, ast.Constant) and c.value in STATISTICS
        ]
    return found


def test_nothing_outside_the_registry_branches_on_a_coefficients_name() -> None:
    """No ``coefficient == "kendall"``, ``in ("spearman", "kendall")`` or per-name dict
    (symbols, functions) anywhere in the package but the registry."""
    offenders = {
        str(path.relative_to(REPO_ROOT)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "stats" / "registry.py" and (names := _names_in_branches(path))
    }
    assert offenders == NAMED_ON_PURPOSE
