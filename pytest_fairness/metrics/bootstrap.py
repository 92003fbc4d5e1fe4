"""Seeded percentile-bootstrap confidence intervals for the metrics.

Efron's percentile bootstrap: resample the units of analysis with replacement, recompute
the statistic, and take the (1 - c)/2 and (1 + c)/2 quantiles of the replicates (numpy's
default linear interpolation between order statistics). The units are sentences for PSA
(the psa paper averages over sentences), pairs for counterfactual fairness, and each
sample independently for a Wasserstein-1 distance between two samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import (
    FloatArray,
    SeedLike,
    as_float_array,
    as_generator,
    check_confidence,
    check_names,
    check_positive_int,
    clean_float,
)
from .wasserstein import wasserstein

__all__ = [
    "BootstrapCI",
    "PSABootstrap",
    "bootstrap_ci",
    "bootstrap_counterfactual",
    "bootstrap_psa",
    "bootstrap_wasserstein",
]


@dataclass(frozen=True)
class BootstrapCI:
    """A point estimate with its percentile-bootstrap confidence interval."""

    estimate: float
    """The statistic on the original sample(s)."""
    low: float
    high: float
    confidence: float
    n_resamples: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimate": clean_float(self.estimate),
            "low": clean_float(self.low),
            "high": clean_float(self.high),
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
        }


def _interval(
    estimate: float, replicates: FloatArray, confidence: float, n_resamples: int
) -> BootstrapCI:
    finite = replicates[np.isfinite(replicates)]
    if finite.shape[0] == 0:
        return BootstrapCI(estimate, math.nan, math.nan, confidence, n_resamples)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return BootstrapCI(float(estimate), float(low), float(high), confidence, n_resamples)


def _check_common(n_resamples: int, confidence: float) -> tuple[int, float]:
    return check_positive_int(n_resamples, "n_resamples"), check_confidence(confidence)


def bootstrap_ci(
    statistic: Callable[..., float],
    *samples: Any,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    paired: bool = True,
) -> BootstrapCI:
    """Percentile-bootstrap CI of `statistic(*samples)`.

    Each sample is an array whose first axis indexes the units. With `paired=True` all
    samples must have the same length and are resampled with the same indices (rows that
    belong together stay together); with `paired=False` each is resampled on its own.
    Replicates where the statistic is not finite are dropped from the quantiles.
    """
    runs, conf = _check_common(n_resamples, confidence)
    if not samples:
        raise ConfigurationError("bootstrap_ci needs at least one sample")
    arrays = [as_float_array(s, f"samples[{i}]") for i, s in enumerate(samples)]
    for i, arr in enumerate(arrays):
        if arr.ndim == 0:
            raise ConfigurationError(f"samples[{i}] must be an array with units on axis 0")
    sizes = [a.shape[0] for a in arrays]
    if paired and len(set(sizes)) != 1:
        raise ConfigurationError(
            f"paired samples must have the same length on axis 0, got {sizes}; "
            "use paired=False for independent samples"
        )
    rng = as_generator(seed)
    estimate = float(statistic(*arrays))
    replicates = np.empty(runs, dtype=np.float64)
    for r in range(runs):
        if paired:
            idx = rng.integers(0, sizes[0], size=sizes[0])
            replicates[r] = float(statistic(*(a[idx] for a in arrays)))
        else:
            replicates[r] = float(
                statistic(*(a[rng.integers(0, a.shape[0], size=a.shape[0])] for a in arrays))
            )
    return _interval(estimate, replicates, conf, runs)


@dataclass(frozen=True)
class PSABootstrap:
    """Bootstrap CIs of the PSA metrics, resampling sentences (psa, section 2)."""

    score_dev: BootstrapCI
    score_range: BootstrapCI
    score_sens: dict[str, BootstrapCI]
    label_dist: dict[float, BootstrapCI]

    def to_dict(self) -> dict[str, Any]:
        return {
            "score_dev": self.score_dev.to_dict(),
            "score_range": self.score_range.to_dict(),
            "score_sens": {n: ci.to_dict() for n, ci in self.score_sens.items()},
            "label_dist": [[t, ci.to_dict()] for t, ci in self.label_dist.items()],
        }


def _label_dist_rows(original: FloatArray, perturbed: FloatArray, c: float) -> FloatArray:
    """Per-sentence indicators (a, b_n, a & b_n) stacked, to resample and count."""
    a = (original >= c).astype(np.float64)
    b = (perturbed >= c).astype(np.float64)
    return np.concatenate([a[:, None], b, a[:, None] * b], axis=1)


def _label_dist_from_counts(counts: FloatArray, n: int) -> float:
    a, b, ab = counts[0], counts[1 : 1 + n], counts[1 + n :]
    union = a + b - ab
    dist = np.where(union > 0, 1.0 - ab / np.where(union > 0, union, 1.0), 0.0)
    return float(dist.mean())


def bootstrap_psa(
    original_scores: Any,
    perturbed_scores: Any,
    names: Sequence[str],
    *,
    thresholds: Sequence[float] = (),
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> PSABootstrap:
    """Percentile-bootstrap CIs of ScoreDev, ScoreRange, ScoreSens per name and LabelDist.

    Sentences are resampled with replacement (psa, section 2: every metric is an average
    over the corpus X, or for LabelDist built from per-sentence labels). `thresholds` are
    the LabelDist thresholds to bracket (none by default).
    """
    runs, conf = _check_common(n_resamples, confidence)
    name_tuple = check_names(names)
    original = as_float_array(original_scores, "original_scores", ndim=1)
    perturbed = as_float_array(perturbed_scores, "perturbed_scores", ndim=2)
    m, n = perturbed.shape
    if n != len(name_tuple) or original.shape[0] != m:
        raise ConfigurationError(
            f"expected original_scores (m,) and perturbed_scores (m, {len(name_tuple)}), got "
            f"{original.shape} and {perturbed.shape}"
        )
    rng = as_generator(seed)
    mins = perturbed.min(axis=1)
    stds = (perturbed - mins[:, None]).std(axis=1)
    ranges = perturbed.max(axis=1) - mins
    shifts = perturbed - original[:, None]
    grid = [float(t) for t in thresholds]
    rows = {t: _label_dist_rows(original, perturbed, t) for t in grid}

    rep_dev = np.empty(runs, dtype=np.float64)
    rep_range = np.empty(runs, dtype=np.float64)
    rep_sens = np.empty((runs, n), dtype=np.float64)
    rep_ld = {t: np.empty(runs, dtype=np.float64) for t in grid}
    for r in range(runs):
        # how often each sentence is drawn: weighted sums equal sums over the resample
        weight = np.bincount(rng.integers(0, m, size=m), minlength=m).astype(np.float64)
        rep_dev[r] = weight @ stds / m
        rep_range[r] = weight @ ranges / m
        rep_sens[r] = weight @ shifts / m
        for t, rows_t in rows.items():
            rep_ld[t][r] = _label_dist_from_counts(weight @ rows_t, n)
    sens_est = shifts.mean(axis=0)
    return PSABootstrap(
        score_dev=_interval(float(stds.mean()), rep_dev, conf, runs),
        score_range=_interval(float(ranges.mean()), rep_range, conf, runs),
        score_sens={
            name: _interval(float(sens_est[j]), rep_sens[:, j], conf, runs)
            for j, name in enumerate(name_tuple)
        },
        label_dist={
            t: _interval(_label_dist_from_counts(rows[t].sum(axis=0), n), rep_ld[t], conf, runs)
            for t in grid
        },
    )


def bootstrap_counterfactual(
    original_outputs: Any,
    swapped_outputs: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> BootstrapCI:
    """Percentile-bootstrap CI of mean ||f(x) - f(x^)||_1 (APS paper, section 6.5), by pair."""
    from .counterfactual import counterfactual_fairness

    per_pair = counterfactual_fairness(original_outputs, swapped_outputs).per_pair
    return bootstrap_ci(
        lambda v: float(v.mean()),
        per_pair,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )


def bootstrap_wasserstein(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> BootstrapCI:
    """Percentile-bootstrap CI of W1(a, b), resampling each sample independently.

    Note that the plug-in W1 is biased upwards (two samples of one distribution have W1 > 0),
    and so are its bootstrap replicates; read a CI that excludes 0 with that in mind.
    """
    return bootstrap_ci(
        wasserstein,
        as_float_array(a, "a", ndim=1),
        as_float_array(b, "b", ndim=1),
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        paired=False,
    )
