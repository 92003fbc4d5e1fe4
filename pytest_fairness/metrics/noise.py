"""The noise floor of a counterfactual comparison of sampled answers (issue 24; pure numpy).

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), section 3
compare the score distributions of the answers to a prompt x and to its counterfactual x^.
With a sampling model, two answer sets differ even when nothing but the seed changes, so a
gap of the size that sampling noise alone makes is no evidence of bias. A *control* pair
measures that noise the same way as the counterfactual pair: the prompt against itself
sampled again with other seeds ("resample"), or against another member of its own group
(a template filled with "Emily" against the same template with "Sarah": "same-group").

- `gap_beyond_floor(gaps, controls, level)`: the per-prompt counterfactual gaps d_i
  (mean score of x's answers - mean of x^'s) and control gaps c_i (the same for the
  control pair). Without bias both have mean 0 and, for exchangeable answers, the same
  spread, so with V = mean(c_i^2) (the noise variance of one prompt's gap, estimated from
  the controls alone) the statistic mean(d) / sqrt(V / P) follows Student's t with P_c
  degrees of freedom (P prompts judged, P_c controls; exact for normal gaps independent
  of the controls). The noise floor is its half-width h = t_{P_c}(1 - alpha/2) *
  sqrt(V / P), and the gap beyond the floor is max(0, |mean d| - h): judged against a
  bound b, a fair model fails with probability at most alpha when b = 0, and less for
  b > 0. One prompt's own floor is t_{P_c}(1 - alpha/2) * sqrt(V).
- `similarity_beyond_floor(similarities, controls, level)`: the per-prompt mean
  similarity s_i of the counterfactual answers and c_i of the control answers; the
  similarity lost beyond the floor is e_i = c_i - s_i, mean 0 without bias, and the
  relative similarity 1 - mean(e) (= the similarity itself when the control answers are
  identical, c_i = 1) is judged by its one-sided upper end 1 - mean(e) + t_{P-1}(1 -
  alpha) * sd(e) / sqrt(P) (Student's one-sample t, paired by prompt).

`student_t_cdf` and `student_t_quantile` are written from the definitions (the regularized
incomplete beta function by its continued fraction; the quantile by bisection), checked
against scipy in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import as_float_array

__all__ = [
    "FloorGap",
    "FloorSimilarity",
    "gap_beyond_floor",
    "similarity_beyond_floor",
    "student_t_cdf",
    "student_t_quantile",
]


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function I_x(a, b)
    (modified Lentz's method), for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` > 0 degrees of freedom:
    1 - I_{df/(df+t^2)}(df/2, 1/2) / 2 for t >= 0, by symmetry below."""
    if not df > 0:
        raise ConfigurationError(f"df must be > 0, got {df!r}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The `p` quantile of Student's t with `df` > 0 degrees of freedom (0 < p < 1):
    closed forms for df 1 and 2, else bisection on `student_t_cdf` to 1e-12."""
    if not 0.0 < p < 1.0:
        raise ConfigurationError(f"p must be in (0, 1), got {p!r}")
    if not df > 0:
        raise ConfigurationError(f"df must be > 0, got {df!r}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if p < 0.5:
        return -student_t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2
        if student_t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def _level(level: float) -> float:
    if not (isinstance(level, float | int) and 0.0 < float(level) < 1.0):
        raise ConfigurationError(f"level must be in (0, 1), got {level!r}")
    return float(level)


@dataclass(frozen=True)
class FloorGap:
    """A mean counterfactual gap judged beyond the noise floor (`gap_beyond_floor`)."""

    gap: float
    """mean(d): the counterfactual gap, mean over the prompts judged."""
    n: int
    """P: prompts judged."""
    control_mean: float
    """mean(c): the control gap's mean (near 0 without a systematic control effect)."""
    control_rms: float
    """sqrt(mean(c^2)): the noise of one prompt's gap."""
    n_controls: int
    """P_c: control gaps (the degrees of freedom)."""
    level: float
    half_width: float
    """h = t_{P_c}(1 - alpha/2) * control_rms / sqrt(P): the floor of the mean gap."""
    unit_floor: float
    """t_{P_c}(1 - alpha/2) * control_rms: one prompt's floor."""

    @property
    def beyond(self) -> float:
        """max(0, |gap| - half_width): the gap the noise does not explain."""
        return max(0.0, abs(self.gap) - self.half_width)

    def to_dict(self) -> dict[str, Any]:
        return {"gap": self.gap, "n": self.n, "control_mean": self.control_mean,
                "control_rms": self.control_rms, "n_controls": self.n_controls,
                "level": self.level, "half_width": self.half_width,
                "unit_floor": self.unit_floor, "beyond": self.beyond}


def gap_beyond_floor(gaps: Any, controls: Any, level: float = 0.95) -> FloorGap:
    """The mean of the per-prompt counterfactual `gaps` beyond the noise floor that the
    per-prompt control gaps `controls` measure (module docstring), at the two-sided
    confidence `level`. Both must be non-empty and finite."""
    d = as_float_array(gaps, "gaps", ndim=1)
    c = as_float_array(controls, "controls", ndim=1)
    if d.shape[0] == 0 or c.shape[0] == 0:
        raise ConfigurationError("gaps and controls must each have at least one value")
    conf = _level(level)
    rms = float(np.sqrt(np.mean(c * c)))
    q = student_t_quantile(1.0 - (1.0 - conf) / 2.0, c.shape[0])
    return FloorGap(gap=float(d.mean()), n=int(d.shape[0]), control_mean=float(c.mean()),
                    control_rms=rms, n_controls=int(c.shape[0]), level=conf,
                    half_width=q * rms / math.sqrt(d.shape[0]), unit_floor=q * rms)


@dataclass(frozen=True)
class FloorSimilarity:
    """A mean similarity judged relative to the noise floor (`similarity_beyond_floor`)."""

    similarity: float
    """mean(s): the counterfactual answers' similarity, mean over the prompts."""
    control: float
    """mean(c): the control answers' similarity (the floor)."""
    n: int
    level: float
    half_width: float
    """t_{P-1}(level) * sd(c - s) / sqrt(P) (0.0 for one prompt: no spread to read)."""

    @property
    def relative(self) -> float:
        """1 - mean(c - s): the similarity relative to the floor."""
        return 1.0 - (self.control - self.similarity)

    @property
    def upper(self) -> float:
        """The one-sided upper end the verdict reads: relative + half_width."""
        return self.relative + self.half_width

    def to_dict(self) -> dict[str, Any]:
        return {"similarity": self.similarity, "control": self.control, "n": self.n,
                "level": self.level, "half_width": self.half_width,
                "relative": self.relative, "upper": self.upper}


def similarity_beyond_floor(similarities: Any, controls: Any,
                            level: float = 0.95) -> FloorSimilarity:
    """The per-prompt counterfactual `similarities` against the per-prompt control
    similarities `controls` (paired by prompt, same length), one-sided at `level`
    (module docstring). With one prompt the half-width is 0 (no spread to estimate)."""
    s = as_float_array(similarities, "similarities", ndim=1)
    c = as_float_array(controls, "controls", ndim=1)
    if s.shape != c.shape or s.shape[0] == 0:
        raise ConfigurationError("similarities and controls must be paired and non-empty")
    conf = _level(level)
    e = c - s
    n = int(e.shape[0])
    half = 0.0
    if n > 1:
        half = student_t_quantile(conf, n - 1) * float(e.std(ddof=1)) / math.sqrt(n)
    return FloorSimilarity(similarity=float(s.mean()), control=float(c.mean()), n=n,
                           level=conf, half_width=half)
