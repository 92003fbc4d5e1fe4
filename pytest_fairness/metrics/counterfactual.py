"""Counterfactual fairness (CF) of Garg et al. (2019), as used by the APS paper.

"Measuring Fairness of Text Classifiers via Prediction Sensitivity"
(shared/papers/accumulated-prediction-sensitivity.txt), section 6.5, Counter-factual
Fairness (CF): the difference between the predictions on a sample and on its
counterfactual (gender-swapped) sample, measured as the L1 norm of f(x) - f(x^):

    CF(x) = || f(x) - f(x^) ||_1

and averaged over a set of (x, x^) pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import FloatArray, as_float_array, clean_float

__all__ = ["CounterfactualResult", "counterfactual_fairness", "counterfactual_gap"]


def counterfactual_gap(original_output: Any, swapped_output: Any) -> float:
    """|| f(x) - f(x^) ||_1 for one pair (APS paper, section 6.5); a score is a 1-vector."""
    a = as_float_array(original_output, "original_output", ndim=(0, 1))
    b = as_float_array(swapped_output, "swapped_output", ndim=(0, 1))
    if a.shape != b.shape:
        raise ConfigurationError(
            f"original_output has shape {a.shape} but swapped_output has shape {b.shape}"
        )
    return float(np.abs(a - b).sum())


@dataclass(frozen=True, eq=False)
class CounterfactualResult:
    """CF over a set of (x, x^) pairs (APS paper, section 6.5)."""

    mean: float
    """The average of CF(x) = ||f(x) - f(x^)||_1 over the pairs."""
    max: float
    worst_index: int
    """The pair with the largest gap (first one on ties)."""
    per_pair: FloatArray

    @property
    def n_pairs(self) -> int:
        return int(self.per_pair.shape[0])

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "counterfactual_fairness",
            "mean": clean_float(self.mean),
            "max": clean_float(self.max),
            "worst_index": self.worst_index,
            "n_pairs": self.n_pairs,
        }


def counterfactual_fairness(original_outputs: Any, swapped_outputs: Any) -> CounterfactualResult:
    """CF averaged over pairs: mean_i ||f(x_i) - f(x^_i)||_1 (APS paper, section 6.5).

    `original_outputs` and `swapped_outputs` are aligned: shape (n, K) of class
    probabilities, or (n,) of scores (where the L1 norm is |f(x) - f(x^)|). An input with
    several counterfactuals is passed as several rows, repeating f(x).
    """
    a = as_float_array(original_outputs, "original_outputs", ndim=(1, 2))
    b = as_float_array(swapped_outputs, "swapped_outputs", ndim=(1, 2))
    if a.shape != b.shape:
        raise ConfigurationError(
            f"original_outputs has shape {a.shape} but swapped_outputs has shape {b.shape}; "
            "they must be aligned pair by pair"
        )
    diff = np.abs(a - b)
    per_pair = diff if diff.ndim == 1 else diff.sum(axis=1)
    worst = int(np.argmax(per_pair))
    return CounterfactualResult(
        mean=float(per_pair.mean()),
        max=float(per_pair[worst]),
        worst_index=worst,
        per_pair=np.asarray(per_pair, dtype=np.float64),
    )
