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
    from . import metrics, names, perturb
    from .corpus import Corpus
    from .models import as_model

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first access (PEP 562).
_LAZY: dict[str, str] = {
    "as_model": "models",
    "Corpus": "corpus",
}
_SUBMODULES = ("metrics", "names", "perturb", "strategies", "knowledge")

__all__ = [
    "Anchor",
    "Case",
    "ConfigurationError",
    "Corpus",
    "FairnessError",
    "FairnessViolation",
    "MissingDependencyError",
    "ModelCallError",
    "ModelOutputError",
    "ModelStats",
    "Perturbation",
    "Settings",
    "Span",
    "TextModel",
    "as_model",
    "metrics",
    "names",
    "perturb",
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
