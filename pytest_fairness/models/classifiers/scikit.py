"""`SklearnModel`: a fitted scikit-learn classifier or pipeline that takes raw texts.

scikit-learn is never imported: estimators are recognised by duck typing (`families`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ConfigurationError
from ..batching import Batching
from .base import ModelAdapter, Row

__all__ = ["SklearnModel"]


class SklearnModel(ModelAdapter):
    """A fitted scikit-learn classifier or pipeline taking raw texts.

    Uses `predict_proba` when the estimator has it. Otherwise `decision_function`, mapped
    to probabilities by a logistic sigmoid (binary) or a softmax (multiclass): these are
    uncalibrated, fine for comparing a text with its perturbations but not as true
    probabilities.
    """

    _hint = " (These rows come from the estimator's predict_proba.)"
    _batching: Batching = "whole"  # vectorised: one call for everything asked (models.batching)

    def __init__(self, estimator: Any, **common: Any) -> None:
        self._estimator = estimator
        self._method = (
            "predict_proba" if hasattr(estimator, "predict_proba") else "decision_function"
        )
        labels = common.pop("labels", None)
        classes = tuple(str(c) for c in estimator.classes_)
        super().__init__(
            estimator,
            kind="proba",
            labels=labels if labels is not None else classes,
            **common,
        )
        if len(self.labels) != len(classes):
            raise ConfigurationError(
                f"labels={self.labels!r} has {len(self.labels)} names but the estimator "
                f"has {len(classes)} classes {classes!r}"
            )

    def _call(self, texts: list[str]) -> Any:
        return getattr(self._estimator, self._method)(texts)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        if self._method == "predict_proba":
            return self._interpret(raw, texts, "proba")
        kind, rows = self._interpret(raw, texts, "logits")
        if kind == "score":  # binary decision_function: the score of classes_[1]
            return "proba", np.column_stack([1.0 - rows[:, 0], rows[:, 0]])
        return kind, rows

