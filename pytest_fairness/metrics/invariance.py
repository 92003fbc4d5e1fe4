"""Label invariance: the metamorphic relation of MT-NLP.

Ma, Wang & Liu (2020), "Metamorphic Testing and Certified Mitigation of Fairness Violations
in NLP Models" (shared/papers/mt-nlp-metamorphic-testing-certified-mitigation.txt),
section 2 and Algorithm 1: for every mutation x' in S = P(x, A, G), the relation

    argmax M(x) = argmax M(x')

must hold; (x, x') is a pair of *discriminatory inputs* when it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import FloatArray, IntArray, as_float_array, clean_float

__all__ = [
    "DiscriminatoryPair",
    "InvarianceResult",
    "label_invariance",
    "predicted_labels",
]


@dataclass(frozen=True)
class DiscriminatoryPair:
    """One x' whose predicted label differs from that of x (Algorithm 1, line 4)."""

    index: int
    """Position of x' among the perturbed outputs."""
    original_label: str | int
    perturbed_label: str | int
    shift: float
    """Change of the score of the original's label: M(x')[y] - M(x)[y], y = argmax M(x);
    for a single-score model, s(x') - s(x)."""
    max_abs_shift: float
    """max_k |M(x')_k - M(x)_k| over classes (|s(x') - s(x)| for a single score)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "original_label": self.original_label,
            "perturbed_label": self.perturbed_label,
            "shift": clean_float(self.shift),
            "max_abs_shift": clean_float(self.max_abs_shift),
        }


@dataclass(frozen=True)
class InvarianceResult:
    """The discriminatory input set S_dis of Algorithm 1, with the label of x."""

    original_label: str | int
    n_tested: int
    violations: tuple[DiscriminatoryPair, ...]

    @property
    def holds(self) -> bool:
        """True when argmax M(x) = argmax M(x') for every x' tested."""
        return not self.violations

    @property
    def violation_rate(self) -> float:
        return len(self.violations) / self.n_tested

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "label_invariance",
            "original_label": self.original_label,
            "n_tested": self.n_tested,
            "n_violations": len(self.violations),
            "violation_rate": self.violation_rate,
            "violations": [v.to_dict() for v in self.violations],
        }


def predicted_labels(outputs: Any, *, threshold: float | None = None) -> IntArray:
    """argmax over classes of (n, K) outputs; for (n,) scores, 1[s >= threshold].

    Ties in argmax go to the first (lowest-index) class, as numpy's argmax does.
    """
    arr = as_float_array(outputs, "outputs", ndim=(1, 2))
    if arr.ndim == 2:
        if threshold is not None:
            raise ConfigurationError(
                "threshold applies to single-score outputs; got class-probability rows"
            )
        return np.asarray(np.argmax(arr, axis=1), dtype=np.int64)
    if threshold is None:
        raise ConfigurationError(
            "single-score outputs need a threshold to turn scores into labels "
            "(label = 1[score >= threshold])"
        )
    return np.asarray(arr >= float(threshold), dtype=np.int64)


def label_invariance(
    original_output: Any,
    perturbed_outputs: Any,
    *,
    threshold: float | None = None,
    labels: Sequence[str] | None = None,
) -> InvarianceResult:
    """Algorithm 1 of mt-nlp (section 2): the x' in S with argmax M(x') != argmax M(x).

    Args:
        original_output: M(x): class probabilities of shape (K,), or a scalar score.
        perturbed_outputs: M(x') for each x' in S: shape (m, K), or (m,) scores.
        threshold: for single-score models, the label is 1[score >= threshold].
        labels: class names used in the report (length K, or 2 for a single score:
            labels[0] for "below threshold", labels[1] for "at or above").
    """
    orig = as_float_array(original_output, "original_output", ndim=(0, 1))
    pert = as_float_array(perturbed_outputs, "perturbed_outputs", ndim=(1, 2))
    single = orig.ndim == 0
    if single:
        if pert.ndim != 1:
            raise ConfigurationError(
                f"original_output is a single score but perturbed_outputs has shape {pert.shape}"
                "; pass one score per perturbed input"
            )
        if threshold is None:
            raise ConfigurationError(
                "single-score outputs need a threshold (label = 1[score >= threshold])"
            )
        both: FloatArray = np.concatenate([orig[None], pert])
        n_classes = 2
    else:
        if pert.ndim != 2 or pert.shape[1] != orig.shape[0]:
            raise ConfigurationError(
                f"perturbed_outputs has shape {pert.shape}; expected (m, {orig.shape[0]}) "
                "to match original_output"
            )
        if threshold is not None:
            raise ConfigurationError("threshold applies only to single-score outputs")
        both = np.concatenate([orig[None, :], pert], axis=0)
        n_classes = orig.shape[0]
    if labels is not None and len(labels) != n_classes:
        raise ConfigurationError(f"labels has {len(labels)} entries for {n_classes} classes")

    predicted = predicted_labels(both, threshold=threshold)
    y0 = int(predicted[0])

    def name(y: int) -> str | int:
        return labels[y] if labels is not None else y

    violations = []
    for j in np.flatnonzero(predicted[1:] != y0).tolist():
        if single:
            shift = float(pert[j] - orig)
            max_abs = abs(shift)
        else:
            diff = pert[j] - orig
            shift = float(diff[y0])
            max_abs = float(np.max(np.abs(diff)))
        violations.append(
            DiscriminatoryPair(
                index=j,
                original_label=name(y0),
                perturbed_label=name(int(predicted[j + 1])),
                shift=shift,
                max_abs_shift=max_abs,
            )
        )
    return InvarianceResult(
        original_label=name(y0), n_tested=int(pert.shape[0]), violations=tuple(violations)
    )
