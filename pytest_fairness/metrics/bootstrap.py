"""Seeded bootstrap confidence intervals for the metrics, by methods whose coverage holds.

Resample the units of analysis with replacement and recompute the statistic (Efron and
Tibshirani, "An Introduction to the Bootstrap", 1993). The units are sentences for PSA (the
psa paper averages over sentences), pairs for counterfactual fairness and paired gaps, and
the scores of each sample (each group) independently for Wasserstein-1 distances. Each
`BootstrapCI` says which method made it:

- ``"percentile"``: the (1 - c)/2 and (1 + c)/2 quantiles of the replicates (Efron and
  Tibshirani, section 13.3). Too narrow on small samples: its coverage of ScoreSens on 40
  sentences is 0.930 at nominal 0.95 (0.916 on 20).
- ``"bca"``: bias-corrected and accelerated percentiles (Efron 1987; Efron and
  Tibshirani, section 14.3), the acceleration from the jackknife (for several independent
  samples, the multi-sample form of Efron and Tibshirani, section 14.3, as in
  `scipy.stats.bootstrap`). Second-order accurate for smooth statistics, but as narrow as
  the percentile interval on small samples; the default of `bootstrap_ci` and what
  LabelDist (a ratio of counts) gets (coverage 0.935 on 40 sentences, 0.941 on 100; 0.917
  on 20).
- ``"studentized"``: the symmetric bootstrap-t interval of a mean, estimate +- q * se with
  q the c-quantile of |mean* - mean| / se* over the replicates and se the standard error
  with n - 1 (Hall, "The Bootstrap and Edgeworth Expansion", 1992, section 3.6). For means
  over units only (ScoreSens, ScoreDev, ScoreRange, counterfactual gaps, paired gaps); the
  default there: in the simulations of `tests/checks/test_statistics.py` it covers within
  2 points of nominal from 20 units on (ScoreSens 0.949 on 20 sentences), where percentile
  and BCa intervals do not; a mean carried by a few units (15% of the pairs moving a lot)
  needs about 100 of them (0.931 on 40, 0.960 on 100).
- ``"directional"``: for W1 only, the default there (below).

W1 is not a smooth statistic: it is the integral of |F_a - F_b|, and where F_a = F_b (two
samples of one distribution, or distributions that cross) the plug-in W1 and every
bootstrap copy of it are biased upwards, so percentile and BCa intervals lie above the true
value (two samples of 100 from one Beta(2, 5): the percentile interval excludes 0 every
time). The directional bootstrap (Fang and Santos, "Inference on Directionally
Differentiable Functions", Review of Economic Studies 86, 2019) bootstraps the empirical
processes E = (F*_a - F_a) - (F*_b - F_b) instead, and bounds W1's error through
|F_a - F_b| + E: linear, sign(F_a - F_b) * E, where the data tell the sign of F_a - F_b
(|F_a - F_b| above `CONTACT_SE` standard errors), and at most +-|E| elsewhere (the lower end
takes +|E|, the upper end -|E|, so both are conservative there). Each process is scaled by
sqrt(n / (n - 1)), the bootstrap's variance being (n - 1) / n of the sample's. The lower
end is also 0 whenever a permutation test (`metrics.permutation`, exact at any size) cannot
reject "the samples come from one distribution" at level (1 - c) / 2. So when the
distributions are the same an interval excludes 0 with probability at most (1 - c) / 2. In
1000 simulations of two samples of 100 at c = 0.95 (`tests/checks/test_statistics.py`):
one Beta(2, 5), excluded 0 in 2.1% (percentile: 100%), lay above 0.02 in 0.1%
(percentile: 31%); one shifted by 0.1, covered W1 in 95.8% and lay above it in 3.0%.

A confidence interval judged against an upper bound fails a test when its lower end is
above the bound: at confidence c that happens with probability (1 - c) / 2 when the
statistic sits on the bound (a one-sided test at level (1 - c) / 2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .paired import paired_differences
from .permutation import _group_arrays, _p_values, _pool_contrasts
from .validation import (
    FloatArray,
    SeedLike,
    as_float_array,
    as_generator,
    check_ci_method,
    check_confidence,
    check_names,
    check_positive_int,
    clean_float,
)
from .wasserstein import _Grid

__all__ = [
    "CONTACT_SE",
    "BootstrapCI",
    "PSABootstrap",
    "bootstrap_ci",
    "bootstrap_counterfactual",
    "bootstrap_group_wasserstein",
    "bootstrap_mean",
    "bootstrap_paired_gap",
    "bootstrap_psa",
    "bootstrap_wasserstein",
]

#: Where |F_a - F_b| is within this many standard errors of 0, the directional bootstrap
#: treats the sign of F_a - F_b as unknown (its contact set). 3 keeps the false-alarm rate on
#: identical distributions at or under nominal from 40 scores per sample on.
CONTACT_SE = 3.0
#: Resample x grid (or unit) cells computed at once: bounds the memory of an interval.
_CELLS = 2_000_000
_NORMAL = NormalDist()


@dataclass(frozen=True)
class BootstrapCI:
    """A point estimate with its bootstrap confidence interval, and how it was made."""

    estimate: float
    """The statistic on the original sample(s)."""
    low: float
    high: float
    confidence: float
    n_resamples: int
    method: str = "percentile"
    """"percentile", "bca", "studentized" or "directional" (see the module docstring)."""
    p_value: float | None = None
    """For W1 intervals: the permutation test's p-value of "one distribution"."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimate": clean_float(self.estimate),
            "low": clean_float(self.low),
            "high": clean_float(self.high),
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "method": self.method,
            "p_value": None if self.p_value is None else clean_float(self.p_value),
        }


# --------------------------------------------------------------------------- helpers


def _check_common(n_resamples: int, confidence: float) -> tuple[int, float]:
    return check_positive_int(n_resamples, "n_resamples"), check_confidence(confidence)


def _counts(rng: np.random.Generator, n: int, size: int) -> FloatArray:
    """`size` resamples of n units with replacement, as how often each unit is drawn."""
    draws = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    counts = np.bincount(draws.ravel(), minlength=size * n).reshape(size, n)
    out: FloatArray = counts.astype(np.float64)
    return out


def _chunks(runs: int, width: int) -> list[int]:
    """Resample counts per block, so that a block of `width` cells each stays bounded."""
    per = max(1, min(runs, _CELLS // max(1, width)))
    return [min(per, runs - start) for start in range(0, runs, per)]


def _percentile(
    estimate: float, replicates: FloatArray, confidence: float, runs: int
) -> BootstrapCI:
    finite = replicates[np.isfinite(replicates)]
    if finite.shape[0] == 0:
        return BootstrapCI(float(estimate), math.nan, math.nan, confidence, runs, "percentile")
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return BootstrapCI(float(estimate), float(low), float(high), confidence, runs, "percentile")


def _nan_quantile(values: FloatArray, level: float) -> float:
    """The `level` quantile of the finite values; inf when none is finite."""
    finite = values[np.isfinite(values)]
    return float(np.quantile(finite, level)) if finite.shape[0] else math.inf


def _acceleration(jackknives: Sequence[FloatArray]) -> float:
    """The BCa acceleration from jackknife values, one array per independent sample
    (Efron and Tibshirani, eq. 14.15; the multi-sample form sums over samples)."""
    num = 0.0
    den = 0.0
    for jack in jackknives:
        k = jack.shape[0]
        if k < 2:
            continue
        u = (k - 1) * (jack.mean() - jack)
        num += float((u**3).sum()) / k**3
        den += float((u**2).sum()) / k**2
    return num / (6.0 * den**1.5) if den > 0 else 0.0


def _bca(
    estimate: float,
    replicates: FloatArray,
    acceleration: float,
    confidence: float,
    runs: int,
) -> BootstrapCI:
    """Efron's BCa interval from the replicates and the acceleration."""
    finite = replicates[np.isfinite(replicates)]
    b = finite.shape[0]
    if b == 0:
        return BootstrapCI(float(estimate), math.nan, math.nan, confidence, runs, "bca")
    share = (np.count_nonzero(finite < estimate) + np.count_nonzero(finite <= estimate)) / (
        2.0 * b
    )
    share = min(max(share, 0.5 / b), 1.0 - 0.5 / b)
    z0 = _NORMAL.inv_cdf(share)
    alpha = (1.0 - confidence) / 2.0
    levels = []
    for q in (alpha, 1.0 - alpha):
        z = z0 + _NORMAL.inv_cdf(q)
        denominator = 1.0 - acceleration * z
        level = _NORMAL.cdf(z0 + z / denominator) if denominator > 0 else (0.0 if q < 0.5 else 1.0)
        levels.append(min(max(level, 0.0), 1.0))
    low, high = np.quantile(finite, levels)
    return BootstrapCI(float(estimate), float(low), float(high), confidence, runs, "bca")


# --------------------------------------------------------------------------- any statistic


def bootstrap_ci(
    statistic: Callable[..., float],
    *samples: Any,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    paired: bool = True,
    method: str = "bca",
) -> BootstrapCI:
    """Bootstrap CI of `statistic(*samples)`, BCa (default) or percentile.

    Each sample is an array whose first axis indexes the units. With `paired=True` all
    samples must have the same length and are resampled with the same indices (rows that
    belong together stay together); with `paired=False` each is resampled on its own (and
    BCa's acceleration sums the jackknives of the samples). Replicates where the statistic
    is not finite are dropped from the quantiles. For a mean, `bootstrap_mean` is faster
    and offers the studentized interval.
    """
    runs, conf = _check_common(n_resamples, confidence)
    how = check_ci_method(method, ("percentile", "bca"))
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
    if how == "percentile":
        return _percentile(estimate, replicates, conf, runs)
    if paired:
        keep = [np.delete(np.arange(sizes[0]), i) for i in range(sizes[0])]
        jackknives = [np.array([float(statistic(*(a[k] for a in arrays))) for k in keep])]
    else:
        jackknives = []
        for j, arr in enumerate(arrays):
            values = []
            for i in range(arr.shape[0]):
                rest = [np.delete(arr, i, axis=0) if h == j else a for h, a in enumerate(arrays)]
                values.append(float(statistic(*rest)))
            jackknives.append(np.array(values))
    jackknives = [j[np.isfinite(j)] for j in jackknives]
    return _bca(estimate, replicates, _acceleration(jackknives), conf, runs)


# --------------------------------------------------------------------------- means


@dataclass(frozen=True)
class _MeanReplicates:
    """Bootstrap replicates of the column means of per-unit values x (m, k)."""

    x: FloatArray
    means: FloatArray
    """(runs, k): the resampled means."""
    squares: FloatArray
    """(runs, k): the resampled means of x**2 (for the studentized interval)."""


def _mean_replicates(x: FloatArray, counts_blocks: Sequence[FloatArray]) -> _MeanReplicates:
    m = x.shape[0]
    means = np.concatenate([c @ x for c in counts_blocks]) / m
    squares = np.concatenate([c @ (x * x) for c in counts_blocks]) / m
    return _MeanReplicates(x, means, squares)


def _mean_cis(
    reps: _MeanReplicates,
    method: str,
    confidence: float,
    runs: int,
    joint: bool = False,
) -> list[BootstrapCI]:
    """One CI per column mean. `joint=True`: the intervals hold together, over all columns
    at once (studentized: the quantile of the largest |t| over columns; percentile and BCa:
    Bonferroni, each column at 1 - (1 - c) / k)."""
    x = reps.x
    m, k = x.shape
    estimate = x.mean(axis=0)
    if method == "studentized":
        if m < 2:  # one unit: every resample is the sample itself
            return [
                BootstrapCI(float(e), float(e), float(e), confidence, runs, "studentized")
                for e in estimate
            ]
        se = x.std(axis=0, ddof=1) / math.sqrt(m)
        var_star = reps.squares - reps.means**2
        # rounding leaves ~1e-17 where a resample repeats one value: that is no variance
        var_star = np.where(var_star > 1e-10 * (x * x).mean(axis=0), var_star, 0.0) / (m - 1)
        dev = np.abs(reps.means - estimate)
        moved = dev > 1e-12 * np.maximum(1.0, np.abs(estimate))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(moved, dev / np.sqrt(var_star), 0.0)
        # a resample of one repeated value has no standard error: dropped, like a
        # replicate whose statistic is not finite
        t = np.where(np.isfinite(t), t, np.nan)
        if joint:
            worst = t.max(axis=1)  # NaN where any column is undefined
            q = np.full(k, _nan_quantile(worst, confidence))
        else:
            q = np.array([_nan_quantile(t[:, j], confidence) for j in range(k)])
        return [
            BootstrapCI(float(e), float(e - qj * s if s > 0 else e),
                        float(e + qj * s if s > 0 else e), confidence, runs, "studentized")
            for e, qj, s in zip(estimate, q, se, strict=True)
        ]
    level = 1.0 - (1.0 - confidence) / k if joint else confidence
    out = []
    for j in range(k):
        if method == "percentile":
            ci = _percentile(float(estimate[j]), reps.means[:, j], level, runs)
        else:
            # jackknife of a mean: u_i = x_i - mean (Efron and Tibshirani, section 14.3)
            u = x[:, j] - estimate[j]
            den = float((u**2).sum())
            accel = float((u**3).sum()) / (6.0 * den**1.5) if den > 0 else 0.0
            ci = _bca(float(estimate[j]), reps.means[:, j], accel, level, runs)
        out.append(BootstrapCI(ci.estimate, ci.low, ci.high, confidence, runs, ci.method))
    return out


def bootstrap_mean(
    values: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "studentized",
) -> BootstrapCI:
    """Bootstrap CI of the mean of per-unit values: studentized (default), BCa or
    percentile (see the module docstring for what each is and how they cover)."""
    runs, conf = _check_common(n_resamples, confidence)
    how = check_ci_method(method, ("percentile", "bca", "studentized"))
    x = as_float_array(values, "values", ndim=1)[:, None]
    rng = as_generator(seed)
    blocks = [_counts(rng, x.shape[0], size) for size in _chunks(runs, x.shape[0])]
    return _mean_cis(_mean_replicates(x, blocks), how, conf, runs)[0]


# --------------------------------------------------------------------------- PSA


@dataclass(frozen=True)
class PSABootstrap:
    """Bootstrap CIs of the PSA metrics, resampling sentences (psa, section 2)."""

    score_dev: BootstrapCI
    score_range: BootstrapCI
    score_sens: dict[str, BootstrapCI]
    """Each name's ScoreSens on its own."""
    label_dist: dict[float, BootstrapCI]
    score_sens_joint: dict[str, BootstrapCI] = field(default_factory=dict)
    """Intervals that hold for all names at once (for "every name within a bound")."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "score_dev": self.score_dev.to_dict(),
            "score_range": self.score_range.to_dict(),
            "score_sens": {n: ci.to_dict() for n, ci in self.score_sens.items()},
            "score_sens_joint": {n: ci.to_dict() for n, ci in self.score_sens_joint.items()},
            "label_dist": [[t, ci.to_dict()] for t, ci in self.label_dist.items()],
        }


def _label_dist_rows(original: FloatArray, perturbed: FloatArray, c: float) -> FloatArray:
    """Per-sentence indicators (a, b_n, a & b_n) stacked, to resample and count."""
    a = (original >= c).astype(np.float64)
    b = (perturbed >= c).astype(np.float64)
    return np.concatenate([a[:, None], b, a[:, None] * b], axis=1)


def _label_dist_from_counts(counts: FloatArray, n: int) -> FloatArray:
    """LabelDist from summed indicator rows (..., 1 + 2n): mean over names of the Jaccard
    distance between the positives before and after (psa, section 2)."""
    a, b, ab = counts[..., :1], counts[..., 1 : 1 + n], counts[..., 1 + n :]
    union = a + b - ab
    dist = np.where(union > 0, 1.0 - ab / np.where(union > 0, union, 1.0), 0.0)
    out: FloatArray = dist.mean(axis=-1)
    return out


def _label_dist_ci(
    rows: FloatArray, replicates: FloatArray, n: int, method: str, conf: float, runs: int
) -> BootstrapCI:
    total = rows.sum(axis=0)
    estimate = float(_label_dist_from_counts(total, n))
    if method == "percentile":
        return _percentile(estimate, replicates, conf, runs)
    # a ratio of counts, not a mean: BCa, the jackknife leaving out one sentence at a time
    m = rows.shape[0]
    step = max(1, _CELLS // max(1, rows.shape[1]))
    jack = np.concatenate([
        _label_dist_from_counts(total - rows[i : i + step], n) for i in range(0, m, step)
    ])
    return _bca(estimate, replicates, _acceleration([jack]), conf, runs)


def bootstrap_psa(
    original_scores: Any,
    perturbed_scores: Any,
    names: Sequence[str],
    *,
    thresholds: Sequence[float] = (),
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "studentized",
) -> PSABootstrap:
    """Bootstrap CIs of ScoreDev, ScoreRange, ScoreSens per name and LabelDist.

    Sentences are resampled with replacement (psa, section 2: every metric is an average
    over the corpus X, or for LabelDist built from per-sentence labels). `thresholds` are
    the LabelDist thresholds to bracket (none by default). `method`: "studentized"
    (default) for the means ScoreDev, ScoreRange and ScoreSens, with LabelDist (a ratio of
    counts) by BCa; "bca" or "percentile" for all. `score_sens_joint` holds the
    ScoreSens intervals that cover every name at once.
    """
    runs, conf = _check_common(n_resamples, confidence)
    how = check_ci_method(method, ("percentile", "bca", "studentized"))
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
    per_sentence = np.column_stack([
        (perturbed - mins[:, None]).std(axis=1),  # ScoreDev
        perturbed.max(axis=1) - mins,  # ScoreRange
        perturbed - original[:, None],  # ScoreSens, one column per name
    ])
    grid = [float(t) for t in thresholds]
    rows = {t: _label_dist_rows(original, perturbed, t) for t in grid}
    blocks = [_counts(rng, m, size) for size in _chunks(runs, m * (n + 2))]
    reps = _mean_replicates(per_sentence, blocks)
    marginal = _mean_cis(reps, how, conf, runs)
    sens_only = _MeanReplicates(per_sentence[:, 2:], reps.means[:, 2:], reps.squares[:, 2:])
    joint = _mean_cis(sens_only, how, conf, runs, joint=True)
    label_dist = {}
    for t, rows_t in rows.items():
        replicates = _label_dist_from_counts(np.concatenate([c @ rows_t for c in blocks]), n)
        label_dist[t] = _label_dist_ci(
            rows_t, replicates, n, "percentile" if how == "percentile" else "bca", conf, runs
        )
    return PSABootstrap(
        score_dev=marginal[0],
        score_range=marginal[1],
        score_sens=dict(zip(name_tuple, marginal[2:], strict=True)),
        label_dist=label_dist,
        score_sens_joint=dict(zip(name_tuple, joint, strict=True)),
    )


# --------------------------------------------------------------------------- pairs


def bootstrap_counterfactual(
    original_outputs: Any,
    swapped_outputs: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "studentized",
) -> BootstrapCI:
    """Bootstrap CI of mean ||f(x) - f(x^)||_1 (APS paper, section 6.5), by pair;
    studentized by default (`bootstrap_mean`)."""
    from .counterfactual import counterfactual_fairness

    per_pair = counterfactual_fairness(original_outputs, swapped_outputs).per_pair
    return bootstrap_mean(
        per_pair, n_resamples=n_resamples, confidence=confidence, seed=seed, method=method
    )


def bootstrap_paired_gap(
    scores_a: Any,
    scores_b: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "studentized",
) -> BootstrapCI:
    """Bootstrap CI of the signed mean gap a - b over pairs (`metrics.paired.paired_gap`),
    resampling pairs; studentized by default."""
    d = paired_differences(scores_a, scores_b)
    return bootstrap_mean(
        d, n_resamples=n_resamples, confidence=confidence, seed=seed, method=method
    )


# --------------------------------------------------------------------------- W1


def _w1_cis(
    samples: Sequence[FloatArray],
    contrasts: FloatArray,
    *,
    runs: int,
    conf: float,
    rng: np.random.Generator,
    method: str,
    permutation_test: bool,
) -> list[BootstrapCI]:
    """CIs of W1 of each contrast sum_h c_h F_h of the samples' CDFs (a row of
    `contrasts`): F_a - F_b for two samples, F_g - pooled for a group and the pool. Every
    sample is resampled on its own, and the pool is rebuilt from the resampled samples."""
    for h, s in enumerate(samples):
        if s.shape[0] < 2:
            raise ConfigurationError(
                f"a confidence interval of W1 needs at least 2 scores per sample; sample {h} "
                f"has {s.shape[0]}"
            )
    grid = _Grid(samples)
    cdfs = np.stack(grid.cdfs)  # (k, G)
    diffs = contrasts @ cdfs  # (c, G)
    estimates = np.abs(diffs) @ grid.widths
    sizes = np.asarray(grid.sizes, dtype=np.float64)
    se = np.sqrt((contrasts**2) @ (cdfs * (1.0 - cdfs) / sizes[:, None]))
    contact = np.abs(diffs) <= CONTACT_SE * se
    sign = np.sign(diffs)
    inflate = np.sqrt(sizes / (sizes - 1.0))
    n_c, width = contrasts.shape[0], grid.widths.shape[0]
    plain: list[list[FloatArray]] = [[] for _ in range(n_c)]
    lower: list[list[FloatArray]] = [[] for _ in range(n_c)]
    upper: list[list[FloatArray]] = [[] for _ in range(n_c)]
    weights = contrasts * inflate if method == "directional" else contrasts
    k = len(samples)
    for size in _chunks(runs, width * (k + n_c + 2)):
        errors = np.stack([
            grid.resampled_cdf(h, _counts(rng, grid.sizes[h], size)) - grid.cdfs[h]
            for h in range(k)
        ])  # (k, size, G)
        combined = (weights @ errors.reshape(k, -1)).reshape(n_c, size, width)
        for c in range(n_c):
            e = combined[c]
            if method == "directional":
                linear = sign[c] * e
                lower[c].append(np.where(contact[c], np.abs(e), linear) @ grid.widths)
                upper[c].append(np.where(contact[c], -np.abs(e), linear) @ grid.widths)
            else:
                plain[c].append(np.abs(diffs[c] + e) @ grid.widths)
    p_values = (
        _p_values(grid, contrasts, estimates, runs, rng) if permutation_test
        else np.full(n_c, math.nan)
    )
    alpha = (1.0 - conf) / 2.0
    out = []
    for c in range(n_c):
        estimate = float(estimates[c])
        if method == "directional":
            lo = estimate - float(np.quantile(np.concatenate(lower[c]), 1.0 - alpha))
            hi = estimate - float(np.quantile(np.concatenate(upper[c]), alpha))
            ci = BootstrapCI(estimate, max(0.0, lo), max(0.0, hi), conf, runs, "directional")
        elif method == "percentile":
            ci = _percentile(estimate, np.concatenate(plain[c]), conf, runs)
        else:
            jack = _w1_jackknife(grid, contrasts[c], diffs[c])
            ci = _bca(estimate, np.concatenate(plain[c]), _acceleration(jack), conf, runs)
        p = float(p_values[c])
        if permutation_test and p > alpha:
            # "one distribution" is not rejected, so W1 = 0 stays in the confidence set
            ci = BootstrapCI(ci.estimate, 0.0, ci.high, conf, runs, ci.method, p)
        elif permutation_test:
            ci = BootstrapCI(ci.estimate, ci.low, ci.high, conf, runs, ci.method, p)
        out.append(ci)
    return out


def _w1_jackknife(grid: _Grid, contrast: FloatArray, diff: FloatArray) -> list[FloatArray]:
    """W1 of the contrast with one score of one sample left out, per sample."""
    out = []
    for h, n in enumerate(grid.sizes):
        if contrast[h] == 0 or n < 2:
            continue
        index = grid.index[h]
        step = max(1, _CELLS // max(1, index.shape[0]))
        values = []
        for start in range(0, n, step):
            i = np.arange(start, min(n, start + step))[:, None]
            left_out = (index[None, :] - (i < index[None, :])) / (n - 1)
            values.append(
                np.abs(diff + contrast[h] * (left_out - grid.cdfs[h])) @ grid.widths
            )
        out.append(np.concatenate(values))
    return out


def bootstrap_wasserstein(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "directional",
    permutation_test: bool = True,
) -> BootstrapCI:
    """Bootstrap CI of W1(a, b) (counterfactual-sentiment-bias, section 3, eq. 1),
    resampling each sample on its own.

    `method`: "directional" (default; see the module docstring: valid where the plug-in W1
    is biased, on identical or crossing distributions), "bca" or "percentile" (both lie
    above a true W1 near 0). With `permutation_test` (default) the lower end is 0 unless a
    permutation test rejects "one distribution" at level (1 - confidence) / 2; its p-value
    is `p_value`.
    """
    runs, conf = _check_common(n_resamples, confidence)
    how = check_ci_method(method, ("percentile", "bca", "directional"))
    x = as_float_array(a, "a", ndim=1)
    y = as_float_array(b, "b", ndim=1)
    return _w1_cis(
        [x, y], np.array([[1.0, -1.0]]), runs=runs, conf=conf, rng=as_generator(seed),
        method=how, permutation_test=permutation_test,
    )[0]


def bootstrap_group_wasserstein(
    groups: Mapping[str, Any],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "directional",
    permutation_test: bool = True,
) -> dict[str, BootstrapCI]:
    """Bootstrap CIs of each group's W1 to the pooled scores of all groups (the terms of
    Total Group Fairness, counterfactual-sentiment-bias, section 3, eq. 4).

    The groups are resampled jointly: each group on its own, and the pool made of the
    resampled groups, as the pool is made of the groups (resampling the pool apart from
    the group it contains makes the intervals about 1.5x too wide). `method` and
    `permutation_test` as in `bootstrap_wasserstein`; the permutation test reassigns the
    pooled scores to the groups.
    """
    runs, conf = _check_common(n_resamples, confidence)
    how = check_ci_method(method, ("percentile", "bca", "directional"))
    arrays = _group_arrays(groups)
    samples = list(arrays.values())
    cis = _w1_cis(
        samples, _pool_contrasts([s.shape[0] for s in samples]), runs=runs, conf=conf,
        rng=as_generator(seed), method=how, permutation_test=permutation_test,
    )
    return dict(zip(arrays, cis, strict=True))

