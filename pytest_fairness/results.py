"""What a relation found: measurements against bounds, discriminatory inputs, the verdict.

The records a check hands to the report (`FairnessResult.to_dict()` is what travels to the
report, through pytest-xdist when workers run the tests). Pure: numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .types import Perturbation

__all__ = ["FairnessResult", "Measurement", "Violation"]


@dataclass(frozen=True)
class Violation:
    """One discriminatory input: an original and a perturbation the relation broke on.

    Spans are (start, end) character offsets of the changed words in each text, so a report
    can mark them. Scores are the model's score (or target-class probability) of each text.
    """

    original: str
    perturbed: str
    original_spans: tuple[tuple[int, int], ...] = ()
    perturbed_spans: tuple[tuple[int, int], ...] = ()
    original_score: float | None = None
    perturbed_score: float | None = None
    original_label: str | None = None
    perturbed_label: str | None = None
    measure: float | None = None
    """How bad this input is, in the unit of the relation (score shift, log ratio, ...)."""
    kind: str | None = None
    attribute: str | None = None
    detail: str | None = None

    @classmethod
    def from_perturbation(cls, p: Perturbation, **values: Any) -> Violation:
        return cls(
            original=p.original,
            perturbed=p.perturbed,
            original_spans=tuple((s.start, s.end) for s in p.original_spans),
            perturbed_spans=tuple((s.start, s.end) for s in p.perturbed_spans),
            kind=p.kind,
            attribute=p.attribute,
            **values,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "original": self.original,
            "perturbed": self.perturbed,
            "original_spans": [list(s) for s in self.original_spans],
            "perturbed_spans": [list(s) for s in self.perturbed_spans],
            "original_score": _builtin(self.original_score),
            "perturbed_score": _builtin(self.perturbed_score),
            "original_label": self.original_label,
            "perturbed_label": self.perturbed_label,
            "measure": _builtin(self.measure),
            "kind": self.kind,
            "attribute": self.attribute,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Violation:
        values = dict(data)
        values["original_spans"] = tuple(tuple(s) for s in data.get("original_spans", ()))
        values["perturbed_spans"] = tuple(tuple(s) for s in data.get("perturbed_spans", ()))
        return cls(**values)


@dataclass(frozen=True)
class Measurement:
    """A metric value against its bound: `value <op> bound` must hold for the test to pass."""

    name: str
    value: float | None
    bound: float | None = None
    op: Literal["<=", ">=", "<", ">"] = "<="
    ci: tuple[float, float] | None = None
    """Bootstrap confidence interval of `value`, when asked for."""

    @property
    def holds(self) -> bool:
        if self.bound is None:
            return True
        if self.value is None:
            return False
        ops = {
            "<=": self.value <= self.bound,
            ">=": self.value >= self.bound,
            "<": self.value < self.bound,
            ">": self.value > self.bound,
        }
        return bool(ops[self.op])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": _builtin(self.value),
            "bound": _builtin(self.bound),
            "op": self.op,
            "ci": None if self.ci is None else [_builtin(self.ci[0]), _builtin(self.ci[1])],
            "holds": self.holds,
        }


@dataclass(frozen=True)
class FairnessResult:
    """What one assertion found; recorded for the report whether it passed or not.

    `extra` holds relation-specific plain data for the report: "label_dist_curve" as
    [[threshold, value], ...], "score_sens" as {name: value}, "name_groups" as
    {name: group}, "mitigation_curve" as [[eps, fraction], ...], and so on.
    """

    relation: str
    passed: bool
    measurements: tuple[Measurement, ...] = ()
    violations: tuple[Violation, ...] = ()
    n_inputs: int = 0
    n_violations: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "relation": self.relation,
            "passed": self.passed,
            "measurements": [m.to_dict() for m in self.measurements],
            "violations": [v.to_dict() for v in self.violations],
            "n_inputs": self.n_inputs,
            "n_violations": self.n_violations,
            "extra": self.extra,
        }


def _builtin(value: float | None) -> float | None:
    """A plain float (numpy scalars converted); NaN and infinities become None for JSON."""
    if value is None:
        return None
    out = float(value)
    return out if np.isfinite(out) else None
