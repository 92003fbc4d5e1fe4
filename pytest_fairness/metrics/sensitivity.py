"""Accumulated prediction sensitivity: how much a classifier's output moves with the
embeddings of its input words.

"Measuring Fairness of Text Classifiers via Prediction Sensitivity"
(shared/papers/accumulated-prediction-sensitivity.txt), section 3, Definition 1:

    P = w^T J v,   J(k, i) = |d f_k(x) / d x_i|

for a K-class classifier f whose input features x are the word embeddings of the text
(section 6.3: D-dimensional embeddings of N words, so J is K x DN and i runs over every
coordinate of every word's embedding). w and v are stochastic vectors (non-negative,
summing to one): w weighs the classes (uniform 1/K in the paper, section 6.3), v the input
coordinates (section 6.4/6.5):

- P1: uniform, 1/(DN);
- P4: the gendered words only, 1/(N_g D) on their coordinates (section 6.4.1);
- P5: P4 multiplied element-wise by the embedding values (section 6.4.3);
- P2: from a protected-status model (PSM) g: v_i = sum_m |d g_m / d x_i| (section 6.4.2);
- P3: P2 multiplied element-wise by the embedding values (section 6.4.3).

Choices where the paper leaves room, all documented on
`analysis.gradients.prediction_sensitivity`:

- "Words" are the model's tokens: N counts the text's real tokens (padding excluded) and
  N_g the tokens that belong to a gendered word (a word split into word pieces counts
  once per piece), so that v stays stochastic. Special tokens a tokenizer adds around
  every text ([CLS], [SEP], <s>, ...) are not words of x and are excluded by default
  (``include_special_tokens=True`` counts them).
- P3/P5 multiply by the *absolute* embedding values and renormalise v to sum to one, so
  that v stays stochastic as Definition 1 requires (embedding values may be negative).
- When v has no mass (no gendered word in the text for P4/P5, a PSM with zero gradient
  for P2/P3), P is 0: the model cannot be sensitive to protected words that are absent
  (Theorem 1's reading of an all-zero v).
- The PSM is evaluated on the task model's own input embeddings, so both Jacobians are
  taken w.r.t. the same x; a user-supplied PSM must tokenize the texts identically.

This module holds the variants and the result records; the computation (torch: Jacobians
over the input embeddings of a white-box model) is `analysis.gradients.prediction_sensitivity`,
the protected-status model of P2/P3 `models.whitebox.protected`. Pure: no model library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .validation import clean_float

__all__ = [
    "VARIANTS",
    "SensitivityResult",
    "TextSensitivity",
    "Variant",
]

Variant = Literal["P1", "P2", "P3", "P4", "P5"]
#: The variants of accumulated prediction sensitivity (APS paper, section 6.5).
VARIANTS: tuple[Variant, ...] = ("P1", "P2", "P3", "P4", "P5")
_DESCRIPTIONS = {
    "P1": "uniform v = 1/(DN)",
    "P2": "v from a protected-status model's Jacobian",
    "P3": "v from a protected-status model's Jacobian x |embedding values|",
    "P4": "v = 1/(N_g D) on gendered words",
    "P5": "v on gendered words x |embedding values|",
}
#: Texts whose tokenization reveals the special tokens a tokenizer adds to every text.


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class TextSensitivity:
    """Accumulated prediction sensitivity of one text (APS paper, section 3, eq. 1)."""

    text: str
    value: float
    """P = w^T J v for this text."""
    n_tokens: int
    """N: the tokens counted as words of x (padding, and by default special tokens, out)."""
    n_weighted: int
    """Tokens that v gives weight to (N_g, the gendered tokens, for P4/P5)."""
    positions: tuple[int, ...]
    """Position of each counted token in the model's tokenization."""
    token_ids: tuple[int, ...]
    token_sensitivity: tuple[float, ...]
    """Per counted token, the mean over its D coordinates of w^T J (Table 2, top rows)."""
    token_weight: tuple[float, ...]
    """Per counted token, the sum over its D coordinates of v (Table 2, bottom rows)."""
    protected_words: tuple[str, ...] = ()
    """The gendered words found in the text (P4/P5), in order of appearance."""
    unaligned_words: tuple[str, ...] = ()
    """Gendered words whose tokens could not be located in the tokenization (e.g. cut off
    by truncation); they get no weight."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "value": clean_float(self.value),
            "n_tokens": self.n_tokens,
            "n_weighted": self.n_weighted,
            "positions": list(self.positions),
            "token_ids": list(self.token_ids),
            "token_sensitivity": [clean_float(v) for v in self.token_sensitivity],
            "token_weight": [clean_float(v) for v in self.token_weight],
            "protected_words": list(self.protected_words),
            "unaligned_words": list(self.unaligned_words),
        }


@dataclass(frozen=True)
class SensitivityResult:
    """Accumulated prediction sensitivity of a set of texts (APS paper, sections 3, 6.5).

    `mean` is the average of the per-text values P (lower is fairer: Theorems 1 and 2).
    """

    variant: Variant
    mean: float
    per_text: tuple[TextSensitivity, ...]
    labels: tuple[str, ...]
    """Class labels, in the order of `class_weights`."""
    class_weights: tuple[float, ...]
    """w, normalised to sum to one."""
    include_special_tokens: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    """Plain data merged into `to_dict()`: the protected-status model's training summary."""

    @property
    def values(self) -> tuple[float, ...]:
        """P of each text, in input order."""
        return tuple(t.value for t in self.per_text)

    @property
    def max(self) -> float:
        return max(self.values)

    @property
    def worst_index(self) -> int:
        """The text with the largest P (the first one on ties)."""
        values = self.values
        return values.index(max(values))

    def to_dict(self, *, tokens: bool = False) -> dict[str, Any]:
        """Plain data for the report; `tokens=True` adds the per-token detail."""
        per_text: list[dict[str, Any]] = []
        for t in self.per_text:
            item = t.to_dict()
            if not tokens:
                for key in ("positions", "token_ids", "token_sensitivity", "token_weight"):
                    item.pop(key)
            per_text.append(item)
        return {
            "metric": "prediction_sensitivity",
            "variant": self.variant,
            "description": _DESCRIPTIONS[self.variant],
            "mean": clean_float(self.mean),
            "max": clean_float(self.max),
            "worst_index": self.worst_index,
            "n_texts": len(self.per_text),
            "labels": list(self.labels),
            "class_weights": [clean_float(w) for w in self.class_weights],
            "include_special_tokens": self.include_special_tokens,
            "per_text": per_text,
            **self.extra,
        }
