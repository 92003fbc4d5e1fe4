"""The signed gap between two groups measured on the same units (paired data).

Counterfactual data come in pairs: the same sentence with "he" and with "she", the same
template filled with two attribute values (counterfactual-sentiment-bias, section 3: x and
x^ differ only in the sensitive attribute). Pairing removes what the units contribute
(one template scores high for every group, another low), which an unpaired comparison of
the pooled scores, W1 included, counts as noise: a gap of the same sign in every pair can
leave the pooled distributions close. The statistic here is the mean over pairs of
d_i = mean(scores_a[i]) - mean(scores_b[i]), signed (positive: group a scores higher), with
the sign test (Conover, "Practical Nonparametric Statistics", 3rd ed., section 3.4) on the
signs of the d_i beside it.

A unit may hold one score per group or several (say, continuations sampled for one
template cell): each cell is averaged first, so every pair weighs the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import FloatArray, as_float_array, clean_float

__all__ = ["PairedGapResult", "pair_means", "paired_gap", "sign_test"]


def pair_means(scores: Any, name: str = "scores") -> FloatArray:
    """The mean score of each unit: `scores` is a sequence of numbers (one per unit), a 2-D
    array (units x samples), or a sequence of sequences of numbers (ragged cells)."""
    if isinstance(scores, str | bytes):
        raise ConfigurationError(f"{name} must be a sequence of scores, not a string")
    try:
        arr = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.ndim in (1, 2):
        arr = as_float_array(arr, name, ndim=(1, 2))
        if arr.ndim == 2:
            if arr.shape[1] == 0:
                raise ConfigurationError(f"{name} has units without scores")
            out: FloatArray = arr.mean(axis=1)
            return out
        return arr
    if not isinstance(scores, Sequence) or len(scores) == 0:
        raise ConfigurationError(
            f"{name} must be a non-empty sequence: one score per unit, or the scores of each "
            "unit (a template cell, a counterfactual pair)"
        )
    means = []
    for i, cell in enumerate(scores):
        values = as_float_array(cell, f"{name}[{i}]", ndim=(0, 1))
        means.append(float(values.mean()))
    return np.asarray(means, dtype=np.float64)


def sign_test(n_positive: int, n_negative: int) -> float:
    """Two-sided sign test: P(a split at least this uneven) under P(+) = P(-) = 1/2, ties
    dropped (Conover, section 3.4); 1.0 when there is no non-zero difference."""
    n = n_positive + n_negative
    if n == 0:
        return 1.0
    k = min(n_positive, n_negative)
    # log of sum_{j <= k} C(n, j) / 2^n, summed stably from the largest term down
    logs = [
        math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2)
        for j in range(k + 1)
    ]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(v - top) for v in logs)
    return float(min(1.0, 2.0 * tail))


@dataclass(frozen=True)
class PairedGapResult:
    """The mean signed gap a - b over pairs, and how consistently it has that sign."""

    gap: float
    """mean_i (mean(scores_a[i]) - mean(scores_b[i])); positive: group a scores higher."""
    per_pair: tuple[float, ...]
    n_pairs: int
    n_positive: int
    """Pairs where a scores higher."""
    n_negative: int
    sign_test_p: float
    """Two-sided sign test of "a and b score higher equally often" (`sign_test`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "paired_gap",
            "gap": clean_float(self.gap),
            "per_pair": [clean_float(v) for v in self.per_pair],
            "n_pairs": self.n_pairs,
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
            "sign_test_p": clean_float(self.sign_test_p),
        }


def paired_differences(scores_a: Any, scores_b: Any) -> FloatArray:
    """d_i = mean(scores_a[i]) - mean(scores_b[i]) for each pair i (see `pair_means`)."""
    a = pair_means(scores_a, "scores_a")
    b = pair_means(scores_b, "scores_b")
    if a.shape[0] != b.shape[0]:
        raise ConfigurationError(
            f"scores_a and scores_b must hold the same units in the same order (pairs), got "
            f"{a.shape[0]} and {b.shape[0]} units; for unpaired samples use "
            "assert_wasserstein_below"
        )
    out: FloatArray = a - b
    return out


def paired_gap(scores_a: Any, scores_b: Any) -> PairedGapResult:
    """The mean signed gap between paired scores of two groups, with its sign test.

    `scores_a[i]` and `scores_b[i]` belong to the same unit (a counterfactual pair, a
    template cell filled with each group's term; counterfactual-sentiment-bias, section
    3): a number each, or several scores each (averaged per cell first).
    """
    d = paired_differences(scores_a, scores_b)
    pos = int(np.count_nonzero(d > 0))
    neg = int(np.count_nonzero(d < 0))
    return PairedGapResult(
        gap=float(d.mean()),
        per_pair=tuple(float(v) for v in d),
        n_pairs=int(d.shape[0]),
        n_positive=pos,
        n_negative=neg,
        sign_test_p=sign_test(pos, neg),
    )
