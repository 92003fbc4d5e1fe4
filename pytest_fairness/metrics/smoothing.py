"""The pure math of mitigation: certified smoothing (mt-nlp) and averaging (psa).

Ma, Wang & Liu (2020), "Metamorphic Testing and Certified Mitigation of Fairness Violations
in NLP Models" (shared/papers/mt-nlp-metamorphic-testing-certified-mitigation.txt),
section 3.2, Theorem 1 and Appendix B. The neutral layer replaces M(x) by

    f(x) = e^eps / (k + e^eps) M(x) + sum_{x' in S} 1 / (k + e^eps) M(x'),   k = |S|.   (2)

What Appendix B certifies, precisely: take a group G = {x0, x1, ..., xk} of mutations and
let *each member's smoothing set be the rest of the group*, so that (eq. 3-4)

    y^_i = ((e^eps - 1) y_i + sum_{n in G} y_n) / (k + e^eps),   y_i = M(x_i) >= 0.

Then y^_i <= e^eps y^_j elementwise for all i, j in G, i.e. f and x0 are (eps, k)-fair
with witness S = G \\ {x0} (Definition 3.1). The proof needs non-negative outputs
(f : X -> [0, b)^N) and the same group for every member: if f(x') is smoothed over a
different set (say, the mutations of x' instead of G \\ {x'}), nothing is certified.
The bound is tight: a member holding all the mass of a class against members holding none
gives exactly e^eps. With eps = 0 all members get the same output (the group mean).

The psa paper's mitigation (section 5) is simpler: average the scores over the perturbed
sentences (`average_over_perturbations`); it carries no certificate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .epsk import DEFAULT_TOL
from .validation import FloatArray, as_float_array, check_eps, clean_float

__all__ = [
    "DEFAULT_EPS_GRID",
    "Certificate",
    "MitigationCurve",
    "MitigationPoint",
    "average_over_perturbations",
    "certificate",
    "mitigation_curve",
    "smoothed_group",
    "smoothed_output",
    "smoothing_weights",
]

#: eps values of the default mitigation curve (mt-nlp Figure 5 spans eps from 0.1 to 10).
DEFAULT_EPS_GRID: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 1.8, 2.0, 5.0, 10.0)


def smoothing_weights(k: int, eps: float) -> tuple[float, float]:
    """(e^eps / (k + e^eps), 1 / (k + e^eps)): the weights of M(x) and of each M(x').

    mt-nlp Theorem 1, eq. (2). Computed as 1 / (1 + k e^-eps) and e^-eps / (1 + k e^-eps)
    so that a large eps does not overflow. The weights sum to 1.
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise ConfigurationError(f"k must be an integer >= 0, got {k!r}")
    e = check_eps(eps)
    decay = math.exp(-e)
    denom = 1.0 + k * decay
    return 1.0 / denom, decay / denom


def _outputs_2d(values: Any, name: str) -> tuple[FloatArray, bool]:
    arr = as_float_array(values, name, ndim=(1, 2))
    return (arr, False) if arr.ndim == 2 else (arr[:, None], True)


def smoothed_output(original_output: Any, perturbed_outputs: Any, eps: float) -> FloatArray:
    """f(x) of mt-nlp Theorem 1, eq. (2), for one input x and its perturbation set S.

    `original_output` is M(x) (shape (K,) or a scalar score); `perturbed_outputs` is M(x')
    for x' in S (shape (k, K) or (k,)); k = 0 returns M(x). The weighted average is defined
    for any real outputs, but the fairness guarantee needs non-negative ones (`certificate`).
    """
    orig = as_float_array(original_output, "original_output", ndim=(0, 1))
    pert = as_float_array(perturbed_outputs, "perturbed_outputs", ndim=(1, 2), allow_empty=True)
    if pert.size == 0:
        pert = pert.reshape((0, *orig.shape))
    if pert.shape[1:] != orig.shape:
        raise ConfigurationError(
            f"perturbed_outputs has shape {pert.shape}; each row must have the shape of "
            f"original_output {orig.shape}"
        )
    w0, w = smoothing_weights(int(pert.shape[0]), eps)
    return np.asarray(w0 * orig + w * pert.sum(axis=0), dtype=np.float64)


def smoothed_group(outputs: Any, eps: float) -> FloatArray:
    """Smooth every member of a group with the rest of the group (mt-nlp Appendix B, eq. 4).

    `outputs` is M(x_i) for G = {x0, ..., xk} (shape (k+1, K) or (k+1,)); row i of the result
    is y^_i = ((e^eps - 1) y_i + sum_n y_n) / (k + e^eps) = f(x_i) with S = G \\ {x_i}.
    """
    arr, flat = _outputs_2d(outputs, "outputs")
    k = arr.shape[0] - 1
    w0, w = smoothing_weights(k, eps)
    total = arr.sum(axis=0, keepdims=True)
    out = w0 * arr + w * (total - arr)
    return np.asarray(out[:, 0] if flat else out, dtype=np.float64)


@dataclass(frozen=True, eq=False)
class Certificate:
    """The outcome of checking the (eps, k) bound on a smoothed group (mt-nlp Appendix B)."""

    eps: float
    k: int
    holds: bool
    """y^_i <= e^eps y^_j elementwise for all i, j of the group (up to `tol` in log space)."""
    smoothed_max_log_ratio: float
    """max over pairs and classes of log y^_i - log y^_j: the eps the smoothed group reaches
    (evaluated in log space, so tiny outputs and large eps do not underflow)."""
    raw_max_log_ratio: float
    """The same for the unsmoothed outputs (infinity when zero patterns differ)."""
    worst_pair: tuple[int, int, int] | None
    """(i, j, class) attaining `smoothed_max_log_ratio` (0 is x0); None if nothing to compare."""
    smoothed: FloatArray

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "certified_smoothing",
            "eps": self.eps,
            "k": self.k,
            "holds": self.holds,
            "smoothed_max_log_ratio": clean_float(self.smoothed_max_log_ratio),
            "raw_max_log_ratio": clean_float(self.raw_max_log_ratio),
            "worst_pair": None if self.worst_pair is None else list(self.worst_pair),
        }


def _worst_log_gap(logs: FloatArray) -> tuple[float, tuple[int, int, int] | None]:
    """max over i, j, c of logs_ic - logs_jc, with -inf (a zero output) handled:
    a class that is zero for everyone imposes nothing; zero for some only is infinite."""
    if logs.shape[0] < 2:
        return 0.0, None
    best = 0.0
    where: tuple[int, int, int] | None = None
    for c in range(logs.shape[1]):
        col = logs[:, c]
        zero = np.isneginf(col)
        if zero.all():
            continue
        hi = int(np.argmax(col))
        if zero.any():
            return math.inf, (hi, int(np.flatnonzero(zero)[0]), c)
        lo = int(np.argmin(col))
        gap = float(col[hi] - col[lo])
        if where is None or gap > best:
            best, where = gap, (hi, lo, c)
    return best, where


def _log(values: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(values), dtype=np.float64)


def _smoothed_group_logs(group: FloatArray, eps: float) -> FloatArray:
    """log y^_i = log(w0 y_i + w sum_{n != i} y_n), evaluated in log space.

    The linear form underflows for tiny outputs or a large eps (w = e^-eps / ...), which
    would turn a certified positive output into 0 and an infinite ratio; in log space
    neither happens.
    """
    k = group.shape[0] - 1
    log1p_term = math.log1p(k * math.exp(-eps))
    log_w0 = -log1p_term
    log_w = -eps - log1p_term
    others = (np.ones((k + 1, k + 1)) - np.eye(k + 1)) @ group  # sum over n != i, no cancellation
    with np.errstate(divide="ignore"):
        return np.asarray(
            np.logaddexp(log_w0 + np.log(group), log_w + np.log(others)), dtype=np.float64
        )


def certificate(
    original_output: Any,
    perturbed_outputs: Any,
    eps: float,
    *,
    tol: float = DEFAULT_TOL,
) -> Certificate:
    """Smooth {x0} u S as in mt-nlp Appendix B and verify the (eps, k)-fairness bound.

    Args:
        original_output: M(x0), shape (K,) or a scalar score, non-negative.
        perturbed_outputs: M(x') for x' in S, shape (k, K) or (k,), non-negative.
        eps: the fairness parameter (>= 0).
        tol: absolute slack on log-ratios for floating-point rounding.
    """
    e = check_eps(eps)
    slack = check_eps(tol, "tol")
    orig = as_float_array(original_output, "original_output", ndim=(0, 1))
    pert = as_float_array(perturbed_outputs, "perturbed_outputs", ndim=(1, 2))
    if pert.shape[1:] != orig.shape:
        raise ConfigurationError(
            f"perturbed_outputs has shape {pert.shape}; each row must have the shape of "
            f"original_output {orig.shape}"
        )
    group = np.concatenate([orig[None, ...], pert], axis=0)
    if (group < 0).any():
        raise ConfigurationError(
            "certified smoothing needs non-negative outputs (mt-nlp Definition 3.1, "
            "f : X -> [0, b)^N); map scores such as sentiment in [-1, 1] to [0, 2] first"
        )
    grid = group if group.ndim == 2 else group[:, None]
    smoothed = smoothed_group(grid, e)
    reached, worst = _worst_log_gap(_smoothed_group_logs(grid, e))
    raw, _ = _worst_log_gap(_log(grid))
    return Certificate(
        eps=e,
        k=int(pert.shape[0]),
        holds=reached <= e + slack,
        smoothed_max_log_ratio=reached,
        raw_max_log_ratio=raw,
        worst_pair=worst,
        smoothed=smoothed if group.ndim == 2 else smoothed[:, 0],
    )


@dataclass(frozen=True)
class MitigationPoint:
    eps: float
    violations_before: int
    violations_after: int
    fraction: float | None
    """violations_after / violations_before (mt-nlp Figure 5); None when none before."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "eps": self.eps,
            "violations_before": self.violations_before,
            "violations_after": self.violations_after,
            "fraction": self.fraction,
        }


@dataclass(frozen=True)
class MitigationCurve:
    """Fairness violations left after smoothing, per eps (mt-nlp section 4.3, Figure 5)."""

    n_cases: int
    n_pairs: int
    points: tuple[MitigationPoint, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "mitigation_curve",
            "n_cases": self.n_cases,
            "n_pairs": self.n_pairs,
            "points": [p.to_dict() for p in self.points],
        }


def _labels(values: FloatArray, threshold: float | None) -> FloatArray:
    if values.ndim == 1:
        assert threshold is not None
        return np.asarray(values >= threshold, dtype=np.float64)
    return np.asarray(np.argmax(values, axis=1), dtype=np.float64)


def mitigation_curve(
    cases: Sequence[tuple[Any, Any]],
    eps_values: Sequence[float] = DEFAULT_EPS_GRID,
    *,
    threshold: float | None = None,
) -> MitigationCurve:
    """The share of fairness violations left after certified smoothing (mt-nlp Figure 5).

    `cases` holds (M(x0), M(S)) per input: shapes (K,) and (k, K), or a score and (k,) with
    `threshold` (label = 1[score >= threshold]). A violation is a pair (x0, x') with
    argmax M(x0) != argmax M(x') (Algorithm 1). After smoothing, each group is smoothed as
    in Appendix B (every member over the rest of its group) and the pairs (x0, x') are
    counted again. Each point's `fraction` is violations after / violations before, as in
    section 4.3; smoothing can also create violations on pairs that agreed before, and
    those count too.
    """
    if not cases:
        raise ConfigurationError("cases is empty")
    grid = [check_eps(e) for e in eps_values]
    if not grid:
        raise ConfigurationError("eps_values is empty")
    groups: list[FloatArray] = []
    scalar: bool | None = None
    for n, (orig_raw, pert_raw) in enumerate(cases):
        orig = as_float_array(orig_raw, f"cases[{n}][0]", ndim=(0, 1))
        pert = as_float_array(pert_raw, f"cases[{n}][1]", ndim=(1, 2), allow_empty=True)
        if pert.size == 0:
            continue
        if pert.shape[1:] != orig.shape:
            raise ConfigurationError(
                f"cases[{n}]: perturbed outputs have shape {pert.shape}; each row must have "
                f"the shape of the original output {orig.shape}"
            )
        this_scalar = orig.ndim == 0
        if scalar is None:
            scalar = this_scalar
        elif scalar != this_scalar:
            raise ConfigurationError("cases mix single scores and class-probability vectors")
        groups.append(np.concatenate([orig[None, ...], pert], axis=0))
    if scalar and threshold is None:
        raise ConfigurationError("single-score cases need a threshold (1[score >= threshold])")
    if scalar is False and threshold is not None:
        raise ConfigurationError("threshold applies only to single-score cases")

    n_pairs = sum(g.shape[0] - 1 for g in groups)
    before = 0
    for g in groups:
        labels = _labels(g, threshold)
        before += int((labels[1:] != labels[0]).sum())
    points = []
    for e in grid:
        after = 0
        for g in groups:
            labels = _labels(smoothed_group(g, e), threshold)
            after += int((labels[1:] != labels[0]).sum())
        points.append(
            MitigationPoint(
                eps=e,
                violations_before=before,
                violations_after=after,
                fraction=after / before if before else None,
            )
        )
    return MitigationCurve(n_cases=len(cases), n_pairs=n_pairs, points=tuple(points))


def average_over_perturbations(
    perturbed_outputs: Any,
    original_output: Any | None = None,
) -> FloatArray:
    """PSA's post-processing mitigation: average the outputs over the perturbed sentences.

    psa paper (perturbation-sensitivity-analysis), section 5: "a simple solution could use
    post-processing to return system scores as a function of perturbed sentences, such as
    by averaging scores across perturbed sentences". `perturbed_outputs` has shape (|N|,)
    for scores or (|N|, K); the mean is over axis 0. When `original_output` is given it is
    averaged in with equal weight (the paper averages the perturbed sentences only).
    """
    outs = as_float_array(perturbed_outputs, "perturbed_outputs", ndim=(1, 2))
    if original_output is not None:
        orig = as_float_array(original_output, "original_output", ndim=(0, 1))
        if orig.shape != outs.shape[1:]:
            raise ConfigurationError(
                f"original_output has shape {orig.shape}, expected {outs.shape[1:]} to match "
                "one row of perturbed_outputs"
            )
        outs = np.concatenate([orig[None, ...], outs], axis=0)
    return np.asarray(outs.mean(axis=0), dtype=np.float64)
