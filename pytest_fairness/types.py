"""The records that flow through pytest-fairness.

model + corpus -> perturbations -> predictions -> metrics -> verdict -> report. Each stage
hands the next one of the plain, immutable records defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Grammatical role of a pronoun anchor (psa, section 2.2), from spaCy tags and morphology.
PronounRole = Literal[
    "subject", "object", "possessive_determiner", "possessive_pronoun", "reflexive"
]
AnchorRole = Literal[
    "subject",
    "object",
    "possessive_determiner",
    "possessive_pronoun",
    "reflexive",
    "name",
    "person_noun",
]
#: How the anchor word was written: "lower" (he), "title" (He), "upper" (HE).
Casing = Literal["lower", "title", "upper"]


@dataclass(frozen=True)
class ModelStats:
    """Counters of a model adapter; see `TextModel.stats`."""

    requested: int = 0
    """Texts asked for, counting repeats."""
    cache_hits: int = 0
    """Texts answered from the prediction cache."""
    unique_scored: int = 0
    """Distinct texts sent to the underlying model."""
    calls: int = 0
    """Calls of the underlying model (one per batch, retries included)."""
    retries: int = 0
    """Calls that raised and were retried (remote scorers)."""
    skipped: int = 0
    """Texts not scored because they exceed the maximum input length."""
    truncated: int = 0
    """Texts shortened to the maximum input length before scoring."""


@runtime_checkable
class TextModel(Protocol):
    """What every metric sees of a model. Build one with `pytest_fairness.as_model`."""

    @property
    def labels(self) -> tuple[str, ...]:
        """Class labels, in the column order of `predict_proba`."""
        ...

    @property
    def stats(self) -> ModelStats:
        """Counters of calls, cache hits and unique texts scored so far."""
        ...

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        """Class probabilities, shape (n, K), rows summing to 1."""
        ...

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Score of the target class, shape (n,); for a single-score model, that score."""
        ...

    def predict(self, texts: Sequence[str]) -> list[str]:
        """The predicted label of each text."""
        ...


@dataclass(frozen=True)
class Span:
    """Characters `text[start:end]` of a sentence."""

    start: int
    end: int
    text: str

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"bad span {self.start}:{self.end}")


@dataclass(frozen=True)
class Anchor:
    """A referring expression in a sentence that a perturbation may replace (psa, section 2).

    For pronoun anchors `gender` is "female" or "male" and `role` the grammatical role;
    for person anchors `role` is "name" (a PERSON entity) or "person_noun".
    """

    text: str
    span: Span
    role: AnchorRole
    gender: str | None
    casing: Casing
    sentence_initial: bool

    @property
    def word(self) -> str:
        return self.span.text

    def replace(self, replacement: str) -> str:
        """The sentence with the anchor replaced by `replacement` (inserted as given)."""
        return self.text[: self.span.start] + replacement + self.text[self.span.end :]


PerturbationKind = Literal[
    "name", "pronoun", "gender_swap", "analogy", "active", "template", "custom"
]


@dataclass(frozen=True)
class Perturbation:
    """One perturbed sentence and exactly what changed.

    `original_spans[i]` in `original` became `perturbed_spans[i]` in `perturbed`; reports
    and failure messages mark the changed words from these spans.
    """

    original: str
    perturbed: str
    original_spans: tuple[Span, ...]
    perturbed_spans: tuple[Span, ...]
    kind: PerturbationKind
    attribute: str
    from_group: str | None = None
    to_group: str | None = None
    from_words: tuple[str, ...] = ()
    to_words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """An original sentence and the perturbations a metamorphic relation compares it with."""

    original: str
    perturbations: tuple[Perturbation, ...] = field(default_factory=tuple)

    @property
    def perturbed(self) -> tuple[str, ...]:
        return tuple(p.perturbed for p in self.perturbations)


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
