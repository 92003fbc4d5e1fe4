"""Models: one adapter layer between the models people ship and the metrics.

Every metric sees a `TextModel` (`labels`, `stats`, `predict_proba`, `score`, `predict`),
whatever the model is; `as_model` makes one. The modules, in the order a prediction flows:

- `adapt`: `as_model`: validates its options (`family.ModelOptions`), finds the model's
  family and lets it build the adapter;
- `family`, `families`: the `ModelFamily` extension point and its registry (entry-point
  group ``pytest_fairness.models``), and the built-in families: transformers pairs,
  pipelines and models, torch modules, scikit-learn estimators, plain callables and
  remote scorers. `register_model_family` adds one; a new framework is one module;
- `generator_families`: `as_generator` and the `GeneratorFamily` extension point (entry-point
  group ``pytest_fairness.generators``): what every relation on generated text accepts as a
  generator (ready generators, transformers pipelines and (model, tokenizer) pairs, local
  servers, callables). `register_generator_family` adds one;
- `base`: `ModelAdapter`, what every adapter shares: batching, deduplication, caches,
  validation of outputs, counters;
- `callables`, `remote`, `scikit`, `hf`, `torchnn`: the adapters, by framework;
- `cache`: the in-memory and on-disk prediction caches; `defaults`: the run's defaults,
  the one place this package reads the context; `thresholds`: the one threshold resolver;
- `whitebox`, `gradients`, `protected`: white-box models and accumulated prediction
  sensitivity (torch); `generators`: text generators (transformers);
- `scoring`: scoring texts and pairs for the relations; `mitigation`: smoothing and
  averaging wrappers.

Heavy libraries (torch, transformers, scikit-learn) are never imported at module level:
model types are recognised by duck typing and by the module their class lives in.
"""

from __future__ import annotations

from .classifiers.adapt import as_model
from .classifiers.base import SKIPPED_LABEL, SUM_TOLERANCE, Kind, ModelAdapter, Output
from .classifiers.cache import DEFAULT_CACHE_SIZE
from .classifiers.callables import CallableModel
from .classifiers.families import (
    MODEL_FAMILIES,
    accepted_models,
    family_of,
    model_families,
    register_model_family,
)
from .classifiers.family import COMMON_OPTIONS, FAMILY_OPTIONS, ModelFamily, ModelOptions
from .classifiers.hf import PipelineModel, TransformersModel
from .classifiers.remote import LengthPolicy, RemoteModel
from .classifiers.scikit import SklearnModel
from .classifiers.torchnn import TorchModel
from .generators.families import (
    GENERATOR_FAMILIES,
    GeneratorFamily,
    as_generator,
    generator_families,
    register_generator_family,
)
from .whitebox.base import WhiteBoxModel

__all__ = [
    "COMMON_OPTIONS",
    "DEFAULT_CACHE_SIZE",
    "FAMILY_OPTIONS",
    "GENERATOR_FAMILIES",
    "MODEL_FAMILIES",
    "SKIPPED_LABEL",
    "SUM_TOLERANCE",
    "CallableModel",
    "GeneratorFamily",
    "Kind",
    "LengthPolicy",
    "ModelAdapter",
    "ModelFamily",
    "ModelOptions",
    "Output",
    "PipelineModel",
    "RemoteModel",
    "SklearnModel",
    "TorchModel",
    "TransformersModel",
    "WhiteBoxModel",
    "accepted_models",
    "as_generator",
    "as_model",
    "family_of",
    "generator_families",
    "model_families",
    "register_generator_family",
    "register_model_family",
]
