"""Simultaneous confidence bounds of the gap (max - min) and ratio (min / max) of a rate
over groups: the verdicts of the group relations, valid for any number of groups.

Why not a bootstrap. The plug-in gap of k noisy rates is biased upwards: with k groups that
share one true rate, max - min of their estimates is the range of k draws, never below 0,
and its bootstrap copies lie above it again. A verdict that fails when a bootstrap interval
of the gap lies above `max_gap` therefore fails fair models: 5 groups of 30 rows with one
true selection rate 0.40 failed ``max_gap=0.05`` 45% of the time at confidence 0.95, 10
groups of 30 rows 100% of the time (issue 25). The same holds for the ratio.

What is used instead. Every rate of `metrics.groups.RATES` is a binomial share: successes
out of a count that the data fix (TP out of the positives for a TPR, the selected rows out
of all rows for a selection rate, TP out of the predicted positives for precision); given
that count it is a binomial proportion, so intervals made for proportions hold whatever the
count. The true gap is the largest of the pairwise differences p_i - p_j over ordered
pairs of groups, and the true ratio the smallest of the pairwise ratios p_i / p_j. So

- the gap is at least ``max over pairs of L_ij``, where L_ij is a lower confidence bound of
  p_i - p_j: Newcombe's hybrid score interval (Newcombe, "Interval estimation for the
  difference between independent proportions", Statistics in Medicine 17, 1998, method
  10: Wilson score intervals of each proportion, combined by the square-and-add rule);
- the ratio is at most ``min over pairs of U_ij``, where U_ij is an upper confidence bound
  of p_i / p_j: the MOVER-R interval from the same Wilson intervals (Donner and Zou,
  "Closed-form confidence intervals for functions of the normal mean and standard
  deviation", Statistical Methods in Medical Research 21, 2012, section 3; Li, Tang and
  Wong, "Confidence intervals for ratio of two Poisson rates using the method of variance
  estimates recovery", Computational Statistics 29, 2014);

each pairwise bound at one-sided level alpha / m with m the number of ordered pairs
(k (k - 1), times 2 for equalized odds, which bounds TPR and FPR at once): Bonferroni's
inequality makes every pairwise bound hold at once with probability at least 1 - alpha,
and then the bound of the gap (of the ratio) holds too, whatever the true rates are. With
confidence c, alpha = (1 - c) / 2: the verdict "fail when the lower bound of the gap is
above `max_gap`" fails with probability at most (1 - c) / 2 whenever the true gap is at
most `max_gap`, and in particular for a fair model (every group one rate). The other end
of each interval needs no adjustment (the true gap is the difference of one fixed pair):
it is the unadjusted bound at (1 - c) / 2, so the interval covers the gap with probability
at least c.

A bias-corrected point estimate is not needed for the verdict; no test of homogeneity is
either: the simultaneous bound holds for any true rates, not only equal ones, and a fair
model is the case where it has the most room. Simulated with 2, 5 and 10 groups of 30,
100 and 1,000 rows sharing the rate 0.40 (`benchmarks/group_power.py`,
`tests/checks/test_group_verdict_simulation.py`): at most 1.7% of fair models fail
``max_gap`` 0.02, 0.05 or 0.10 or ``min_ratio`` 0.8 at the nominal 2.5%; at ``max_gap=0``,
the limit case, at most 2.9% for shared rates from 0.02 to 0.9 (4,000 simulations each;
within the noise of 2.5%).

Power. Bonferroni's price grows slowly with the groups (z = 2.24 for 2 groups, 3.45 for
10, at c = 0.95). `detectable_gap` gives the normal-approximation of the smallest true gap
above `max_gap` that the verdict detects with a given power; `benchmarks/group_power.py`
measures it by simulation (the table is in the README).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .groups import GroupMetrics, _fraction, check_gap_metric
from .validation import FloatArray, check_confidence, clean_float

__all__ = [
    "SIMULTANEOUS_METHOD",
    "GroupBound",
    "detectable_gap",
    "group_bound_ends",
    "mover_ratio",
    "newcombe_difference",
    "recommended_group_size",
    "simultaneous_group_bound",
    "wilson_interval",
]

#: How the result rows name the method.
SIMULTANEOUS_METHOD = "simultaneous score"
_NORMAL = NormalDist()


def wilson_interval(successes: Any, trials: Any, z: float) -> tuple[FloatArray, FloatArray]:
    """Wilson's score interval (Wilson 1927) of successes / trials at normal quantile `z`
    (two-sided confidence 1 - 2 (1 - Phi(z))), elementwise; NaN where trials is 0; the
    lower end exactly 0 at 0 successes and the upper exactly 1 at all."""
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        z2 = z * z
        denom = 1.0 + z2 / n
        centre = (p + z2 / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    # The ends are exactly 0 at no successes and exactly 1 at all successes; the formula
    # gives them only to rounding (2.8e-17 above a recall of 0 at 0 of 5).
    low = np.where(n > 0, np.where(x == 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
    high = np.where(n > 0, np.where(x == n, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def newcombe_difference(
    x1: Any, n1: Any, x2: Any, n2: Any, z: float
) -> tuple[FloatArray, FloatArray]:
    """Newcombe's hybrid score interval (1998, method 10) of p1 - p2, elementwise: with
    Wilson intervals (l1, u1), (l2, u2) at `z`, d - sqrt((p1 - l1)^2 + (u2 - p2)^2) and
    d + sqrt((u1 - p1)^2 + (p2 - l2)^2)."""
    p1 = np.asarray(x1, dtype=np.float64) / np.asarray(n1, dtype=np.float64)
    p2 = np.asarray(x2, dtype=np.float64) / np.asarray(n2, dtype=np.float64)
    l1, u1 = wilson_interval(x1, n1, z)
    l2, u2 = wilson_interval(x2, n2, z)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def _mover_upper(x1: Any, n1: Any, x2: Any, n2: Any, z: float) -> FloatArray:
    """The upper end of the MOVER-R interval (Donner and Zou 2012) of p1 / p2 from Wilson
    intervals at `z`: (p1 p2 + sqrt((p1 p2)^2 - u1 l2 (2 p1 - u1)(2 p2 - l2))) / (l2 (2 p2
    - l2)); +inf where p2's lower bound is 0 (nothing rules out p2 = 0)."""
    p1 = np.asarray(x1, dtype=np.float64) / np.asarray(n1, dtype=np.float64)
    p2 = np.asarray(x2, dtype=np.float64) / np.asarray(n2, dtype=np.float64)
    _, u1 = wilson_interval(x1, n1, z)
    l2, _ = wilson_interval(x2, n2, z)
    pp = p1 * p2
    den = l2 * (2.0 * p2 - l2)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.maximum(pp * pp - u1 * l2 * (2.0 * p1 - u1) * (2.0 * p2 - l2), 0.0))
        high = np.where(den > 0, (pp + root) / np.where(den > 0, den, 1.0), np.inf)
    return np.asarray(high, dtype=np.float64)


def mover_ratio(x1: Any, n1: Any, x2: Any, n2: Any, z: float) -> tuple[FloatArray, FloatArray]:
    """The MOVER-R interval (Donner and Zou 2012; Li, Tang and Wong 2014) of p1 / p2 from
    Wilson intervals at `z`, elementwise. The lower end is 1 / (the upper end of p2 / p1):
    the same value where the textbook lower formula is defined (its denominator u2 (2 p2 -
    u2) turns negative on small counts, where the reciprocal stays valid)."""
    high = _mover_upper(x1, n1, x2, n2, z)
    with np.errstate(divide="ignore"):
        low = 1.0 / _mover_upper(x2, n2, x1, n1, z)
    return np.asarray(low, dtype=np.float64), high


@dataclass(frozen=True)
class GroupBound:
    """The gap or ratio of a rate over groups with its simultaneous confidence interval.

    For a "difference", `low` is the simultaneous (Bonferroni) lower bound the verdict
    judges and `high` the plain upper bound; for a "ratio", `high` is the simultaneous
    upper bound judged and `low` the plain lower bound (see the module docstring).
    """

    statistic: str
    """"difference" (max - min) or "ratio" (min / max)."""
    metric: str
    estimate: float
    low: float
    high: float
    confidence: float
    comparisons: int
    """The ordered pairs of groups (x the parts) that the judged end is adjusted for."""
    parts: tuple[str, ...]
    """The rates judged (equalized odds: TPR and FPR, or the one that is defined)."""
    undefined_parts: tuple[str, ...] = ()
    """Rates left out because their ratio is 0 / 0 (every group's rate is 0)."""
    method: str = SIMULTANEOUS_METHOD

    @property
    def judged(self) -> float:
        """The end the verdict uses: the lower end of a gap, the upper end of a ratio."""
        return self.low if self.statistic == "difference" else self.high

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "metric": self.metric,
            "estimate": clean_float(self.estimate),
            "low": clean_float(self.low),
            "high": clean_float(self.high),
            "confidence": self.confidence,
            "comparisons": self.comparisons,
            "parts": list(self.parts),
            "undefined_parts": list(self.undefined_parts),
            "method": self.method,
        }


def _pairs(k: int) -> tuple[Any, Any]:
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    keep = i != j
    return i[keep], j[keep]


def _part_ends(
    counts: FloatArray, part: str, statistic: str, z_judged: float, z_plain: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(estimate, low, high) of one rate's gap or ratio over the groups, for counts of
    shape (..., groups, 4); the judged end at `z_judged`, the other at `z_plain`. NaN where
    a group's denominator is 0, or (ratio) every group's rate is 0."""
    num, den = _fraction(counts, part)
    x, n = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    bad = (n <= 0).any(axis=-1)
    n = np.where(n > 0, n, 1.0)
    p = x / n
    i, j = _pairs(x.shape[-1])
    xi, ni, xj, nj = x[..., i], n[..., i], x[..., j], n[..., j]
    if statistic == "difference":
        estimate = p.max(axis=-1) - p.min(axis=-1)
        low = np.clip(newcombe_difference(xi, ni, xj, nj, z_judged)[0].max(axis=-1),
                      0.0, estimate)
        high = np.clip(newcombe_difference(xi, ni, xj, nj, z_plain)[1].max(axis=-1),
                       estimate, 1.0)
    else:
        top = p.max(axis=-1)
        bad = bad | (top <= 0)
        estimate = p.min(axis=-1) / np.where(top > 0, top, 1.0)
        low = np.clip(mover_ratio(xi, ni, xj, nj, z_plain)[0].min(axis=-1), 0.0, estimate)
        high = np.clip(mover_ratio(xi, ni, xj, nj, z_judged)[1].min(axis=-1), estimate, 1.0)
    out = [np.asarray(np.where(bad, np.nan, v), dtype=np.float64) for v in (estimate, low, high)]
    return out[0], out[1], out[2]


def _z_values(confidence: float, comparisons: int) -> tuple[float, float]:
    alpha = (1.0 - confidence) / 2.0
    return _NORMAL.inv_cdf(1.0 - alpha / comparisons), _NORMAL.inv_cdf(1.0 - alpha)


def _check_statistic(statistic: object) -> str:
    if statistic not in ("difference", "ratio"):
        raise ConfigurationError(f"statistic must be 'difference' or 'ratio', got "
                                 f"{statistic!r:.40}")
    return str(statistic)


def _combine(
    found: dict[str, tuple[FloatArray, FloatArray, FloatArray]], parts: tuple[str, ...],
    counts: FloatArray, statistic: str,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The parts' (estimate, low, high) combined (the larger gap, the smaller ratio), and
    per part whether it was left out: a ratio 0 / 0 (the part 0 in every group) while
    another part is defined."""
    plain = np.maximum if statistic == "difference" else np.minimum
    left_out = np.zeros((len(parts), *found[parts[0]][0].shape), dtype=np.bool_)
    if statistic == "ratio" and len(parts) > 1:
        zero = [np.all(np.asarray(_fraction(counts, p)[0]) == 0, axis=-1) for p in parts]
        for a in range(len(parts)):
            others = np.zeros_like(zero[a])
            for b in range(len(parts)):
                if b != a:
                    others = others | np.isfinite(found[parts[b]][0])
            left_out[a] = zero[a] & ~(np.asarray(_fraction(counts, parts[a])[1]) <= 0).any(
                axis=-1) & others
    any_left = left_out.any(axis=0)
    ends = []
    for e in range(3):
        stacked = np.stack([np.where(left_out[a], np.nan, found[p][e])
                            for a, p in enumerate(parts)])
        # NaN of a left-out part is skipped; NaN of an undefined rate propagates
        with np.errstate(invalid="ignore"):
            skipping = (np.nanmax if statistic == "difference" else np.nanmin)(
                np.where(np.isnan(stacked).all(axis=0), 0.0, stacked), axis=0)
        ends.append(np.asarray(np.where(any_left, skipping, plain.reduce(stacked, axis=0)),
                               dtype=np.float64))
    return ends[0], ends[1], ends[2], left_out


def group_bound_ends(
    counts: Any, metric: str, statistic: str, *, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(estimate, low, high) of `simultaneous_group_bound` for many data sets at once:
    `counts` of shape (..., groups, 4) (TP, FP, TN, FN per group); each output has the
    leading shape. For simulations (`benchmarks/group_power.py`)."""
    name = check_gap_metric(metric)
    how = _check_statistic(statistic)
    conf = check_confidence(confidence)
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim < 2 or c.shape[-1] != 4 or c.shape[-2] < 2:
        raise ConfigurationError(
            f"the counts of at least 2 groups are an array (..., groups, 4) of TP, FP, TN, "
            f"FN; got shape {c.shape}")
    parts: tuple[str, ...] = ("tpr", "fpr") if name == "equalized_odds" else (name,)
    z_judged, z_plain = _z_values(conf, len(parts) * c.shape[-2] * (c.shape[-2] - 1))
    found = {p: _part_ends(c, p, how, z_judged, z_plain) for p in parts}
    estimate, low, high, _ = _combine(found, parts, c, how)
    return estimate, low, high


def simultaneous_group_bound(
    metrics: GroupMetrics | FloatArray,
    metric: str,
    statistic: str,
    *,
    confidence: float = 0.95,
) -> GroupBound:
    """The gap (`statistic` "difference") or ratio ("ratio") of `metric` over the groups,
    with the simultaneous score interval of the module docstring.

    `metrics` is a `GroupMetrics` or its confusion counts, an array (groups, 4) of TP, FP,
    TN, FN. For "equalized_odds" the gap is the larger of the TPR and FPR gaps and the
    ratio the smaller of their ratios; a part whose ratio is 0 / 0 (every group's FPR is
    0, say) is left out and named in `undefined_parts`, the other judged alone. A rate
    with a zero denominator in some group gives a NaN estimate and interval.
    """
    name = check_gap_metric(metric)
    how = _check_statistic(statistic)
    conf = check_confidence(confidence)
    counts = metrics.counts if isinstance(metrics, GroupMetrics) else np.asarray(
        metrics, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] != 4 or counts.shape[0] < 2:
        raise ConfigurationError(
            f"simultaneous_group_bound needs the counts of at least 2 groups as an array "
            f"(groups, 4) of TP, FP, TN, FN; got shape {counts.shape}")
    parts: tuple[str, ...] = ("tpr", "fpr") if name == "equalized_odds" else (name,)
    comparisons = len(parts) * counts.shape[0] * (counts.shape[0] - 1)
    z_judged, z_plain = _z_values(conf, comparisons)
    found = {p: _part_ends(counts, p, how, z_judged, z_plain) for p in parts}
    estimate, low, high, left_out = _combine(found, parts, counts, how)
    gone = tuple(p for a, p in enumerate(parts) if bool(left_out[a]))
    return GroupBound(how, name, float(estimate), float(low), float(high), conf, comparisons,
                      tuple(p for p in parts if p not in gone), gone)


def detectable_gap(
    sizes: Sequence[int],
    *,
    confidence: float = 0.95,
    power: float = 0.8,
    rate: float = 0.5,
    parts: int = 1,
) -> float:
    """How far above `max_gap` a true gap must lie for the verdict to detect it with
    probability `power` (normal approximation): (z_adj + z_power) * sqrt(r (1 - r) (1/n1 +
    1/n2)) for the two smallest groups `n1`, `n2` of `sizes` (the rows behind the rate:
    the positives for a TPR), z_adj the Bonferroni quantile of the module docstring, `r`
    the rate (0.5: the widest). A planning figure: `benchmarks/group_power.py` simulates
    the verdict itself."""
    n = sorted(int(s) for s in sizes)
    if len(n) < 2 or n[0] < 1:
        raise ConfigurationError(f"detectable_gap needs at least 2 group sizes >= 1, got "
                                 f"{list(sizes)!r:.60}")
    conf = check_confidence(confidence)
    if not 0.0 < power < 1.0 or not 0.0 < rate < 1.0:
        raise ConfigurationError(f"power and rate must lie strictly between 0 and 1, got "
                                 f"{power!r} and {rate!r}")
    k = len(n)
    z = _NORMAL.inv_cdf(1.0 - (1.0 - conf) / 2.0 / (parts * k * (k - 1)))
    se = math.sqrt(rate * (1.0 - rate) * (1.0 / n[0] + 1.0 / n[1]))
    return (z + _NORMAL.inv_cdf(power)) * se


def recommended_group_size(
    groups: int,
    *,
    excess: float,
    confidence: float = 0.95,
    power: float = 0.8,
    rate: float = 0.5,
    parts: int = 1,
) -> int:
    """The rows per group (the rows behind the rate) at which `detectable_gap` of
    `groups` equal groups falls to `excess`: the verdict then detects a true gap `excess`
    above `max_gap` with probability `power` (normal approximation, rate `rate`)."""
    k = int(groups)
    if k < 2 or not 0.0 < excess <= 1.0:
        raise ConfigurationError(f"recommended_group_size needs groups >= 2 and 0 < excess "
                                 f"<= 1, got {groups!r} and {excess!r}")
    conf = check_confidence(confidence)
    z = _NORMAL.inv_cdf(1.0 - (1.0 - conf) / 2.0 / (parts * k * (k - 1)))
    z_power = _NORMAL.inv_cdf(power)
    return math.ceil(2.0 * rate * (1.0 - rate) * ((z + z_power) / excess) ** 2)
