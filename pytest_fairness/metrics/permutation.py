"""Permutation tests of "no difference" between score distributions, by Wasserstein-1.

Under the hypothesis that the samples come from one distribution, every assignment of the
pooled scores to the samples (keeping their sizes) is equally likely, so the share of
random assignments whose statistic reaches the observed one is an exact p-value (Good,
"Permutation, Parametric and Bootstrap Tests of Hypotheses", 2005, chapter 3): the test
rejects at level alpha with probability at most alpha when the distributions are the same,
whatever they are and however small the samples. The statistic is W1 between the two
samples (counterfactual-sentiment-bias, section 3, eq. 1), or each group's W1 to the pooled
scores of all groups (the terms of Total Group Fairness, eq. 4; the pool does not change
under a permutation).

The p-value counts the observed assignment among the permutations,
(1 + #{W1 of a permutation >= observed}) / (1 + n_resamples), so it is never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import (
    FloatArray,
    SeedLike,
    as_float_array,
    as_generator,
    check_positive_int,
    clean_float,
)
from .wasserstein import _Grid

__all__ = [
    "PermutationTest",
    "permutation_test_group_wasserstein",
    "permutation_test_wasserstein",
]

#: Grid cells (resamples x grid points) computed at once; bounds the memory of a test.
_CELLS = 2_000_000


@dataclass(frozen=True)
class PermutationTest:
    """The observed statistic and its permutation p-value."""

    statistic: float
    p_value: float
    """(1 + #{permuted statistic >= observed}) / (1 + n_resamples)."""
    n_resamples: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": clean_float(self.statistic),
            "p_value": clean_float(self.p_value),
            "n_resamples": self.n_resamples,
        }


def _p_values(
    grid: _Grid, contrasts: FloatArray, observed: FloatArray, runs: int, rng: np.random.Generator
) -> FloatArray:
    """p-values of W1 of each contrast of the group CDFs (rows of `contrasts`), with the
    pooled values assigned to the groups at random `runs` times."""
    base = np.repeat(np.arange(len(grid.sizes)), grid.sizes)
    k, n_c, n_grid = len(grid.sizes), contrasts.shape[0], grid.widths.shape[0]
    width = max(1, grid.pooled.shape[0] * (k + n_c + 1))
    chunk = max(1, min(runs, _CELLS // width))
    tolerance = 1e-9 * np.maximum(1.0, np.abs(observed))
    exceed = np.zeros(contrasts.shape[0])
    done = 0
    while done < runs:
        size = min(chunk, runs - done)
        labels = rng.permuted(np.tile(base, (size, 1)), axis=1)
        cdfs = np.stack([
            np.cumsum(labels == h, axis=1, dtype=np.int32)[:, grid.position] / n
            for h, n in enumerate(grid.sizes)
        ])  # (k, size, G)
        combined = (contrasts @ cdfs.reshape(k, -1)).reshape(n_c, size, n_grid)
        stats = np.abs(combined) @ grid.widths  # (n_c, size)
        exceed += np.count_nonzero(stats >= (observed - tolerance)[:, None], axis=1)
        done += size
    out: FloatArray = (1.0 + exceed) / (1.0 + runs)
    return out


def _observed(grid: _Grid, contrasts: FloatArray) -> FloatArray:
    cdfs = np.stack(grid.cdfs)
    out: FloatArray = np.abs(contrasts @ cdfs) @ grid.widths
    return out


def permutation_test_wasserstein(
    a: Any, b: Any, *, n_resamples: int = 1000, seed: SeedLike = 0
) -> PermutationTest:
    """Permutation test of "a and b come from one distribution", by W1(a, b).

    Exact at any sample size: with identical distributions, P(p_value <= alpha) <= alpha.
    Large W1 is evidence against it (a one-sided test; W1 >= 0).
    """
    runs = check_positive_int(n_resamples, "n_resamples")
    x = as_float_array(a, "a", ndim=1)
    y = as_float_array(b, "b", ndim=1)
    grid = _Grid([x, y])
    contrasts = np.array([[1.0, -1.0]])
    observed = _observed(grid, contrasts)
    p = _p_values(grid, contrasts, observed, runs, as_generator(seed))
    return PermutationTest(float(observed[0]), float(p[0]), runs)


def _group_arrays(groups: Mapping[str, Any]) -> dict[str, FloatArray]:
    if not isinstance(groups, Mapping) or len(groups) < 2:
        raise ConfigurationError(
            "groups must map at least two group names to their scores, e.g. "
            "{'women': [...], 'men': [...]}"
        )
    return {str(k): as_float_array(v, f"groups[{k!r}]", ndim=1) for k, v in groups.items()}


def _pool_contrasts(sizes: list[int]) -> FloatArray:
    """Rows c with sum_h c_h F_h = F_g - pooled CDF, one per group g (the pool weighs each
    group by its size)."""
    weights = np.asarray(sizes, dtype=np.float64) / float(sum(sizes))
    out: FloatArray = np.eye(len(sizes)) - weights[None, :]
    return out


def permutation_test_group_wasserstein(
    groups: Mapping[str, Any], *, n_resamples: int = 1000, seed: SeedLike = 0
) -> dict[str, PermutationTest]:
    """Permutation test of "every group comes from one distribution", by each group's W1
    to the pooled scores of all groups; one p-value per group, from the same permutations.
    """
    runs = check_positive_int(n_resamples, "n_resamples")
    arrays = _group_arrays(groups)
    grid = _Grid(list(arrays.values()))
    contrasts = _pool_contrasts(grid.sizes)
    observed = _observed(grid, contrasts)
    p = _p_values(grid, contrasts, observed, runs, as_generator(seed))
    return {
        name: PermutationTest(float(observed[i]), float(p[i]), runs)
        for i, name in enumerate(arrays)
    }
