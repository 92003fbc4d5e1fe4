"""pytest-fairness: fairness tests for NLP models, written and run like any other test.

The data flows one way: model + corpus -> perturbations -> predictions -> metrics ->
verdict -> report. This module is the public facade; heavy parts load on first use, so
`import pytest_fairness` imports no torch, transformers, spaCy or conceptnet-lite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    ConfigurationError,
    FairnessError,
    FairnessViolation,
    MissingDependencyError,
    ModelCallError,
    ModelOutputError,
)
from .settings import Settings
from .types import Anchor, Case, ModelStats, Perturbation, Span, TextModel

if TYPE_CHECKING:
    from . import knowledge, metrics, names, perturb, strategies
    from .analysis import psa
    from .assertions import (
        FairnessWarning,
        assert_bias_auc_above,
        assert_counterfactual_fair,
        assert_eps_k_fair,
        assert_label_invariant,
        assert_labeldist_below,
        assert_prediction_sensitivity_below,
        assert_scoresens_below,
        assert_wasserstein_below,
    )
    from .corpus import Corpus
    from .mitigation import AveragedModel, SmoothedModel, average, mitigation_curve, smooth
    from .models import as_model

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first access (PEP 562).
_LAZY: dict[str, str] = {
    "as_model": "models",
    "Corpus": "corpus",
    "psa": "analysis",
    "FairnessWarning": "assertions",
    "assert_label_invariant": "assertions",
    "assert_scoresens_below": "assertions",
    "assert_labeldist_below": "assertions",
    "assert_eps_k_fair": "assertions",
    "assert_counterfactual_fair": "assertions",
    "assert_wasserstein_below": "assertions",
    "assert_bias_auc_above": "assertions",
    "assert_prediction_sensitivity_below": "assertions",
    "smooth": "mitigation",
    "average": "mitigation",
    "mitigation_curve": "mitigation",
    "SmoothedModel": "mitigation",
    "AveragedModel": "mitigation",
}
_SUBMODULES = ("metrics", "names", "perturb", "strategies", "knowledge")

__all__ = [
    "Anchor",
    "AveragedModel",
    "Case",
    "ConfigurationError",
    "Corpus",
    "FairnessError",
    "FairnessViolation",
    "FairnessWarning",
    "MissingDependencyError",
    "ModelCallError",
    "ModelOutputError",
    "ModelStats",
    "Perturbation",
    "Settings",
    "SmoothedModel",
    "Span",
    "TextModel",
    "as_model",
    "assert_bias_auc_above",
    "assert_counterfactual_fair",
    "assert_eps_k_fair",
    "assert_label_invariant",
    "assert_labeldist_below",
    "assert_prediction_sensitivity_below",
    "assert_scoresens_below",
    "assert_wasserstein_below",
    "average",
    "knowledge",
    "metrics",
    "mitigation_curve",
    "names",
    "perturb",
    "psa",
    "smooth",
    "strategies",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'pytest_fairness' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
