"""The recipe of docs/extending.md for a new correlation coefficient, followed to the letter
on a copy of the package: Lin's concordance correlation coefficient is added by its row
function in ``stats/coefficients.py`` and one entry in the registry's ``CORRELATIONS``,
nothing else. Its table rows (every level), bootstrap intervals and permutation p-values
then equal the generic recompute path's (every resampled or swapped matrix recomputed) and
a brute force written here from the definition (plain loops over the resamples and swaps
the documented seeds draw)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO_ROOT

#: What the package's copy gets, at the places docs/extending.md names.
ROW_FUNCTION = '''

def lin_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Lin's concordance correlation coefficient per row over the complete pairs:
    ``2 cov(x, y) / (var(x) + var(y) + (mean(x) - mean(y))**2)``, moments over n."""
    x, y, present = paired(x, y)
    n = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.where(present, x, 0.0).sum(axis=-1) / n
        mean_y = np.where(present, y, 0.0).sum(axis=-1) / n
        xc = np.where(present, x - mean_x[..., None], 0.0)
        yc = np.where(present, y - mean_y[..., None], 0.0)
        spread = ((xc * xc).sum(axis=-1) + (yc * yc).sum(axis=-1)) / n
        value = 2 * (xc * yc).sum(axis=-1) / n / (spread + (mean_x - mean_y) ** 2)
    return np.where(n >= 2, value, np.nan)
'''
REGISTRY_ENTRY = """    Coefficient(
        name="lin", symbol="ρc", label="Lin ρc", rank_based=False, rows="lin_rows"
    ),
"""
#: Run in the copy: the rows, intervals and p-values of the new coefficient, and the generic
#: recompute path's on the same resamples and swaps.
SCRIPT = r"""
import json, sys
import numpy as np
from geval_repro.stats import registry
from geval_repro.stats.bootstrap import _recomputed, bootstrap_ci
from geval_repro.stats.permutation import (
    _recomputed_differences, _standardize, paired_permutation_test, permutation_pvalue,
    swap_masks)
from geval_repro.tables.rows import correlation_rows

metric, human, other = (np.array(m) for m in json.loads(sys.stdin.read()))
out = {"coefficients": list(registry.COEFFICIENTS), "symbol": registry.symbol("lin")}
for level in ("summary", "system", "global"):
    rows = correlation_rows(
        benchmark="toy", dimension="quality", metric="m", variant="v", level=level,
        metric_scores=metric, human_scores=human, n_resamples=200, seed=5)
    lin = rows[rows["coefficient"] == "lin"].iloc[0]
    boot = bootstrap_ci(metric, human, level, "lin", n_resamples=200, seed=5)
    test = paired_permutation_test(metric, other, human, level, "lin", n_resamples=200, seed=6)
    # the generic recompute path on the same draws (bootstrap: inputs; global: items)
    rng = np.random.default_rng(5)
    n_systems, n_inputs = metric.shape
    if level == "global":
        keep = ~(np.isnan(metric) | np.isnan(human))
        m, h = metric[keep][None, :], human[keep][None, :]
        columns = rng.integers(0, m.shape[1], (200, m.shape[1]))
        rows_drawn = np.zeros((200, 1), dtype=int)
    else:
        m, h = metric, human
        columns = rng.integers(0, n_inputs, (200, n_inputs))
        rows_drawn = np.broadcast_to(np.arange(n_systems), (200, n_systems))
    values = _recomputed(m, h, level, "lin", rows_drawn, columns)
    defined = values[~np.isnan(values)]
    unit = {"summary": "inputs", "system": "systems", "global": "items"}[level]
    swap = swap_masks(6, unit, 200, n_systems, n_inputs)
    differences = _recomputed_differences(
        _standardize(metric, "a"), _standardize(other, "b"), human, level, "lin", swap)
    out[level] = {
        "row": [float(lin.value), float(lin.ci_low), float(lin.ci_high), int(lin.n_items)],
        "interval": [boot.low, boot.high, boot.n_invalid],
        "generic_interval": list(np.percentile(defined, [2.5, 97.5])),
        "test": [test.statistic, test.pvalue],
        "distribution": test.distribution.tolist(),
        "generic_pvalue": permutation_pvalue(differences, test.statistic, "two-sided"),
        "generic_distribution": differences.tolist(),
    }
print(json.dumps(out))
"""


def _insert(path: Path, anchor: str, text: str) -> None:
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path}: the recipe's anchor {anchor!r} moved"
    path.write_text(source.replace(anchor, text + anchor), encoding="utf-8")


def lin(x: list[float], y: list[float]) -> float:
    """Lin's coefficient by its definition, in plain Python (NaN when undefined)."""
    n = len(x)
    if n < 2 or len(set(x)) == 1 or len(set(y)) == 1:  # the levels' constant-vector rule
        return float("nan")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / n
    sxx = sum((a - mx) ** 2 for a in x) / n
    syy = sum((b - my) ** 2 for b in y) / n
    return 2 * sxy / (sxx + syy + (mx - my) ** 2)


def brute_level(metric: np.ndarray, human: np.ndarray, level: str) -> float:
    """The level's value by loops: per input averaged over the inputs with a value
    (summary), over the systems' means (system), over the pooled cells (global)."""
    cells = [
        [(metric[s, i], human[s, i]) for i in range(metric.shape[1])]
        for s in range(metric.shape[0])
    ]
    complete = [[(m, h) for m, h in row if not (np.isnan(m) or np.isnan(h))] for row in cells]
    if level == "global":
        pooled = [c for row in complete for c in row]
        return lin([m for m, _ in pooled], [h for _, h in pooled])
    if level == "system":
        means = [(np.mean([m for m, _ in r]), np.mean([h for _, h in r])) for r in complete if r]
        return lin([m for m, _ in means], [h for _, h in means])
    values = []
    for i in range(metric.shape[1]):
        pairs = [
            (metric[s, i], human[s, i])
            for s in range(metric.shape[0])
            if not (np.isnan(metric[s, i]) or np.isnan(human[s, i]))
        ]
        value = lin([m for m, _ in pairs], [h for _, h in pairs])
        if not np.isnan(value):
            values.append(value)
    return float(np.mean(values)) if values else float("nan")


def brute_interval(metric: np.ndarray, human: np.ndarray, level: str) -> tuple[float, float]:
    """The bootstrap by a loop over the resamples ``default_rng(5)`` draws (docs: inputs,
    or the complete cells at the global level), undefined resamples dropped."""
    rng = np.random.default_rng(5)
    if level == "global":
        keep = ~(np.isnan(metric) | np.isnan(human))
        m, h = metric[keep][None, :], human[keep][None, :]
    else:
        m, h = metric, human
    draws = rng.integers(0, m.shape[1], (200, m.shape[1]))
    values = [brute_level(m[:, d], h[:, d], level) for d in draws]
    defined = [v for v in values if not np.isnan(v)]
    low, high = np.percentile(defined, [2.5, 97.5])
    return float(low), float(high)


def brute_pvalue(
    metric: np.ndarray, other: np.ndarray, human: np.ndarray, level: str
) -> tuple[float, list[float]]:
    """The permutation test by a loop over the swaps ``default_rng(6)`` draws for the
    level's unit, on the standardized scores; the statistic on the raw scores."""
    rng = np.random.default_rng(6)
    n_systems, n_inputs = metric.shape
    if level == "global":
        masks = rng.random((200, n_systems, n_inputs)) < 0.5
    elif level == "system":
        masks = np.broadcast_to(rng.random((200, n_systems, 1)) < 0.5, (200, n_systems, n_inputs))
    else:
        masks = np.broadcast_to(rng.random((200, 1, n_inputs)) < 0.5, (200, n_systems, n_inputs))
    a = (metric - np.nanmean(metric)) / np.nanstd(metric)
    b = (other - np.nanmean(other)) / np.nanstd(other)
    observed = brute_level(metric, human, level) - brute_level(other, human, level)
    permuted = [
        brute_level(np.where(s, b, a), human, level) - brute_level(np.where(s, a, b), human, level)
        for s in masks
    ]
    defined = [d for d in permuted if not np.isnan(d)]
    extreme = sum(abs(d) >= abs(observed) - 1e-12 for d in defined)
    return (1 + extreme) / (1 + len(defined)), permuted


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, tuple[np.ndarray, ...]]:
    """The recipe on a copy of the package, and the script's answers on fixture matrices."""
    root = tmp_path_factory.mktemp("coefficient")
    package = root / "geval_repro"
    shutil.copytree(
        REPO_ROOT / "geval_repro", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    # 1. its row function in stats/coefficients.py
    coefficients = package / "stats" / "coefficients.py"
    coefficients.write_text(coefficients.read_text(encoding="utf-8") + ROW_FUNCTION)
    # 2. one entry at the end of CORRELATIONS in stats/registry.py
    _insert(package / "stats" / "registry.py", ")\n#: The pairwise accuracies", REGISTRY_ENTRY)

    rng = np.random.default_rng(2)
    human = rng.integers(1, 6, (8, 14)) / 1.0  # FIXTURE ratings: many ties
    metric = np.round(0.8 * human + rng.normal(0.5, 0.9, human.shape), 1)
    other = np.round(human + rng.normal(0, 1.6, human.shape), 1)
    missing = rng.random(human.shape) < 0.1
    metric[missing] = other[missing] = np.nan
    human[rng.random(human.shape) < 0.05] = np.nan
    metric[:, 3] = 2.0  # a constant input: skipped at the summary level
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=json.dumps([m.tolist() for m in (metric, human, other)]),
        env={**os.environ, "PYTHONPATH": str(root)},
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout), (metric, human, other)


def test_the_entry_is_a_registry_coefficient(added) -> None:
    out, _ = added
    assert out["coefficients"] == ["pearson", "spearman", "kendall", "lin"]
    assert out["symbol"] == "ρc"


@pytest.mark.parametrize("level", ["summary", "system", "global"])
def test_rows_equal_the_brute_force(added, level: str) -> None:
    out, (metric, human, _) = added
    value, low, high, _ = out[level]["row"]
    assert value == pytest.approx(brute_level(metric, human, level), abs=1e-12)
    assert (low, high) == pytest.approx(out[level]["interval"][:2], abs=0)


@pytest.mark.parametrize("level", ["summary", "system", "global"])
def test_intervals_equal_the_generic_path_and_the_brute_force(added, level: str) -> None:
    out, (metric, human, _) = added
    interval = out[level]["interval"][:2]
    assert interval == pytest.approx(out[level]["generic_interval"], abs=1e-12)
    assert interval == pytest.approx(brute_interval(metric, human, level), abs=1e-12)


@pytest.mark.parametrize("level", ["summary", "system", "global"])
def test_pvalues_equal_the_generic_path_and_the_brute_force(added, level: str) -> None:
    out, (metric, human, other) = added
    statistic, pvalue = out[level]["test"]
    assert statistic == pytest.approx(
        brute_level(metric, human, level) - brute_level(other, human, level), abs=1e-12
    )
    np.testing.assert_allclose(
        out[level]["distribution"], out[level]["generic_distribution"], rtol=0, atol=1e-12
    )
    brute, permuted = brute_pvalue(metric, other, human, level)
    np.testing.assert_allclose(out[level]["distribution"], permuted, rtol=0, atol=1e-12)
    assert pvalue == out[level]["generic_pvalue"] == pytest.approx(brute, abs=0)
