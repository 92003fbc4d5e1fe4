"""Wasserstein-1 distances and the counterfactual sentiment-bias metrics.

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), section 3.
S(x) is the sentiment score in [0, 1] of a continuation sampled from a language model
conditioned on x; x^ is x with its sensitive attribute value a replaced by a^.

* demographic disparity at threshold tau: |P(S(x) > tau) - P(S(x^) > tau)|;
* its average over tau ~ U[0, 1] (the deviation from *strong* demographic parity, Jiang et
  al. 2019) equals W1(P_S(x), P_S(x^)) (eq. 1);
* Average Individual Fairness (eq. 3): the mean over templates m = 1..M and unordered
  pairs {a, a^} of distinct attribute values of W1(P_S(x^m_a), P_S(x^m_a^));
* Total Group Fairness (eq. 4): sum over subgroups a of W1(P_S^a, P_S^*), P_S^a the scores
  of all sentences generated from inputs of subgroup a, P_S^* those of the whole set.

The text file of the paper lost its formulas; the definitions above are the published ones
(arXiv 1911.03064, Findings of EMNLP 2020).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import FloatArray, as_float_array, check_range, clean_float

__all__ = [
    "GroupFairnessResult",
    "IndividualFairnessResult",
    "average_individual_fairness",
    "demographic_disparity",
    "strong_demographic_disparity",
    "total_group_fairness",
    "wasserstein",
]


def _sample(values: Any, name: str) -> FloatArray:
    return as_float_array(values, name, ndim=1)


def wasserstein(a: Any, b: Any) -> float:
    """Exact Wasserstein-1 distance between the empirical distributions of two samples.

    W1 = integral |F_a(t) - F_b(t)| dt over the real line, with F the empirical CDFs
    (huang et al., section 3, eq. 1). The samples may have different sizes. For equal sizes
    this equals mean |sort(a) - sort(b)|.
    """
    x = _sample(a, "a")
    y = _sample(b, "b")
    xs = np.sort(x)
    ys = np.sort(y)
    grid = np.sort(np.concatenate([xs, ys]))
    widths = np.diff(grid)
    # CDFs are constant on [grid[i], grid[i+1]): evaluate them at the left ends.
    cdf_x = np.searchsorted(xs, grid[:-1], side="right") / xs.shape[0]
    cdf_y = np.searchsorted(ys, grid[:-1], side="right") / ys.shape[0]
    return float(np.sum(np.abs(cdf_x - cdf_y) * widths))


def demographic_disparity(a: Any, b: Any, threshold: float) -> float:
    """|P(S_a > tau) - P(S_b > tau)|: the gap in positive rates at threshold tau.

    huang et al., section 3 ("demographic disparity", Dwork et al. 2012, Prop. 3.1), with the
    binary prediction 1[S > tau].
    """
    x = _sample(a, "a")
    y = _sample(b, "b")
    tau = float(threshold)
    if not np.isfinite(tau):
        raise ConfigurationError(f"threshold must be finite, got {threshold!r}")
    return float(abs(np.mean(x > tau) - np.mean(y > tau)))


def strong_demographic_disparity(
    a: Any, b: Any, *, score_range: tuple[float, float] = (0.0, 1.0)
) -> float:
    """E_{tau ~ U[low, high]} |P(S_a > tau) - P(S_b > tau)|: deviation from strong DP.

    huang et al., section 3, eq. 1: for scores in [0, 1] this is exactly W1(P_a, P_b); for
    a score range [low, high] it is W1 / (high - low). Scores outside the range are rejected.
    """
    low, high = check_range(score_range)
    x = _sample(a, "a")
    y = _sample(b, "b")
    for arr, name in ((x, "a"), (y, "b")):
        if (arr < low).any() or (arr > high).any():
            raise ConfigurationError(
                f"{name} has scores outside score_range {(low, high)}; the average over "
                "uniform thresholds is taken over that range"
            )
    return wasserstein(x, y) / (high - low)


@dataclass(frozen=True)
class IndividualFairnessResult:
    """Average Individual Fairness (huang et al., section 3, eq. 3)."""

    value: float
    per_template: tuple[float, ...]
    """Mean W1 over unordered attribute-value pairs, for each template."""
    worst_template: int
    worst_pair: tuple[str, str]
    """The attribute values (a, a^) with the largest W1, in the worst template."""
    worst_distance: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "average_individual_fairness",
            "value": clean_float(self.value),
            "per_template": [clean_float(v) for v in self.per_template],
            "worst_template": self.worst_template,
            "worst_pair": list(self.worst_pair),
            "worst_distance": clean_float(self.worst_distance),
        }


def average_individual_fairness(
    templates: Sequence[Mapping[str, Any]],
) -> IndividualFairnessResult:
    """Average Individual Fairness (huang et al., section 3, eq. 3).

    (1 / M) sum_m (2 / (|A| (|A| - 1))) sum_{a, a^ in A, unordered, a != a^}
    W1(P_S(x^m_a), P_S(x^m_a^)).

    `templates[m]` maps each attribute value a (e.g. a country) to the sentiment scores of
    the continuations sampled for template m filled with a. Every template needs at least
    two values; templates may use different value sets.
    """
    if not templates:
        raise ConfigurationError("templates is empty")
    per_template = []
    worst = (-1.0, 0, ("", ""))
    for m, samples in enumerate(templates):
        if len(samples) < 2:
            raise ConfigurationError(
                f"template {m} has {len(samples)} attribute value(s); need at least 2 to compare"
            )
        arrays = {str(k): _sample(v, f"templates[{m}][{k!r}]") for k, v in samples.items()}
        dists = []
        for (ka, va), (kb, vb) in combinations(arrays.items(), 2):
            d = wasserstein(va, vb)
            dists.append(d)
            if d > worst[0]:
                worst = (d, m, (ka, kb))
        per_template.append(float(np.mean(dists)))
    return IndividualFairnessResult(
        value=float(np.mean(per_template)),
        per_template=tuple(per_template),
        worst_template=worst[1],
        worst_pair=worst[2],
        worst_distance=worst[0],
    )


@dataclass(frozen=True)
class GroupFairnessResult:
    """Total Group Fairness (huang et al., section 3, eq. 4)."""

    value: float
    per_group: dict[str, float]
    """W1 between each subgroup's scores and those of the whole evaluation set."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "total_group_fairness",
            "value": clean_float(self.value),
            "per_group": {k: clean_float(v) for k, v in self.per_group.items()},
        }


def total_group_fairness(
    groups: Mapping[str, Any], *, population: Any | None = None
) -> GroupFairnessResult:
    """Total Group Fairness: sum_a W1(P_S^a, P_S^*) (huang et al., section 3, eq. 4).

    `groups[a]` holds the sentiment scores of all continuations generated from inputs of
    subgroup a (pooled over templates and sensitive tokens). P_S^* is the distribution over
    the entire evaluation set: by default the pooled scores of all groups, or `population`
    when the evaluation set holds more than the groups.
    """
    if len(groups) < 1:
        raise ConfigurationError("groups is empty")
    arrays = {str(k): _sample(v, f"groups[{k!r}]") for k, v in groups.items()}
    whole = (
        np.concatenate(list(arrays.values()))
        if population is None
        else _sample(population, "population")
    )
    per_group = {k: wasserstein(v, whole) for k, v in arrays.items()}
    return GroupFairnessResult(value=float(sum(per_group.values())), per_group=per_group)


class _Grid:
    """The empirical CDFs of several samples on one grid: the pooled distinct values.

    Between two consecutive pooled values every empirical CDF is constant, so any W1 (or
    integral of |a combination of CDFs|) is `widths @ |combination at left|`. `index[h][k]`
    counts the values of sample h at or below `left[k]`, so a resample given as counts per
    sorted value has CDF `cumsum(counts)[index - 1] / n` there, and a permutation of the
    pooled values has CDF `cumsum(labels == h)[position] / n_h` at `position[k]`. Shared by
    the bootstrap and permutation tests of `metrics.bootstrap` and `metrics.permutation`.
    """

    def __init__(self, samples: Sequence[FloatArray]) -> None:
        self.sorted = [np.sort(s) for s in samples]
        self.sizes = [int(s.shape[0]) for s in self.sorted]
        self.pooled = np.sort(np.concatenate(self.sorted))
        steps = np.diff(self.pooled)
        keep = steps > 0
        self.left = self.pooled[:-1][keep]
        self.widths = steps[keep]
        self.position = np.flatnonzero(keep)
        """Index in `pooled` of the last value at or below each `left`."""
        self.index = [np.searchsorted(s, self.left, side="right") for s in self.sorted]
        self.cdfs = [i / n for i, n in zip(self.index, self.sizes, strict=True)]

    def resampled_cdf(self, h: int, counts: FloatArray) -> FloatArray:
        """The CDF of sample `h` resampled with `counts` (rows: resamples; columns: the
        sorted values of the sample) on the grid, one row per resample."""
        cum = np.cumsum(counts, axis=1)
        padded = np.concatenate([np.zeros((counts.shape[0], 1)), cum], axis=1)
        out: FloatArray = padded[:, self.index[h]] / self.sizes[h]
        return out
