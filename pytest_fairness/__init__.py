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
    from . import metrics, perturb, strategies
    from .checks import (
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
    from .checks.psa import psa
    from .corpus import Corpus
    from .models import as_model
    from .models.mitigation import AveragedModel, SmoothedModel, average, mitigation_curve, smooth
    from .resources import knowledge, names

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first access (PEP 562).
_LAZY: dict[str, str] = {
    "as_model": "models",
    "Corpus": "corpus",
    "psa": "checks.psa",
    "FairnessWarning": "checks",
    "assert_label_invariant": "checks",
    "assert_scoresens_below": "checks",
    "assert_labeldist_below": "checks",
    "assert_eps_k_fair": "checks",
    "assert_counterfactual_fair": "checks",
    "assert_wasserstein_below": "checks",
    "assert_bias_auc_above": "checks",
    "assert_prediction_sensitivity_below": "checks",
    "smooth": "models.mitigation",
    "average": "models.mitigation",
    "mitigation_curve": "models.mitigation",
    "SmoothedModel": "models.mitigation",
    "AveragedModel": "models.mitigation",
    "ModelFamily": "models",
    "register_model_family": "models",
    "hf_generator": "models.generators",
    "prediction_sensitivity": "models.gradients",
    "train_protected_status_model": "models.protected",
    "generation_bias": "checks.generation",
    "rescore": "checks.generation",
}
_SUBMODULES = {
    "metrics": "metrics",
    "names": "resources.names",
    "perturb": "perturb",
    "strategies": "strategies",
    "knowledge": "resources.knowledge",
}

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
    "ModelFamily",
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
    "generation_bias",
    "hf_generator",
    "knowledge",
    "metrics",
    "mitigation_curve",
    "names",
    "perturb",
    "prediction_sensitivity",
    "psa",
    "register_model_family",
    "rescore",
    "smooth",
    "strategies",
    "train_protected_status_model",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{_SUBMODULES[name]}", __name__)
    else:
        raise AttributeError(f"module 'pytest_fairness' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
