"""The records that flow through pytest-fairness.

model + corpus -> perturbations -> predictions -> metrics -> verdict -> report. Each stage
hands the next one of the plain, immutable records defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

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
    lang: str = "en"
    """The language of `text` (a code of the language registry): a name replacing an
    anchor of another language than English takes that language's agreement
    (`pytest_fairness.perturb.names`)."""

    @property
    def word(self) -> str:
        return self.span.text

    def replace(self, replacement: str) -> str:
        """The sentence with the anchor replaced by `replacement` (inserted as given)."""
        return self.text[: self.span.start] + replacement + self.text[self.span.end :]


#: The `Perturbation.kind` values of the package's own perturbations: a name swap, a
#: pronoun replacement, the gender swap, mt-nlp's analogy and active mutations, a template
#: fill, "custom" for one built from two plain texts, and "data" for a pair of rows read
#: from a data set (`pytest_fairness.corpus.pairs`). Documentation only: `kind` is a
#: plain str, so a registered kind (`pytest_fairness.perturb.register_kind`, a user's
#: dictionary) stamps its own name.
BuiltinKind = Literal[
    "name", "pronoun", "gender_swap", "analogy", "active", "template", "custom", "data"
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
    kind: str
    """Which generator made it: one of `BuiltinKind`, or a registered kind's name."""
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
