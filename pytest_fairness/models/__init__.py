"""Models: one adapter layer between the models people ship and the metrics, split by
what a user brings.

Every metric sees a `TextModel` (`labels`, `stats`, `predict_proba`, `score`, `predict`),
whatever the model is; `as_model` makes one. The subpackages:

- `classifiers/`: models that score or label texts. `adapt.as_model` validates its options
  (`family.ModelOptions`), finds the model's family (`families`: the `ModelFamily`
  registry, entry-point group ``pytest_fairness.models``, and the built-in families) and
  lets it build the adapter: `callables`, `remote`, `scikit`, `hf`, `torchnn`,
  `distributed` (Ray); `base.ModelAdapter` is what they share (batching, deduplication,
  caches, validation of outputs, counters) with `outputs` and `cache` (the in-memory and
  on-disk prediction caches); `thresholds` is the one threshold resolver; `scoring`
  scores texts and pairs for the relations;
- `generators/`: models that write text. `base`: the `TextGenerator` protocol,
  `hf_generator` and `sample_continuations`; `families`: `as_generator` and the
  `GeneratorFamily` registry (entry-point group ``pytest_fairness.generators``);
- `llm/`: chat and completion models behind an OpenAI-compatible API: the client
  (`openai_api`, with `http_deadline`), what client and server share (`endpoint`), a
  server process on this machine (`local_server`, `serving`), the generation cache
  (`generation_cache`), a chat model as a classifier (`chat_classifier`), answer scorers
  (`answers`);
- `taggers/`: token-level models that mark labelled spans (named-entity recognisers):
  `as_tagger` and the `TaggerFamily` registry (entry-point group
  ``pytest_fairness.taggers``) over a spaCy entity recogniser, a transformers token
  classifier (BIO tags to spans) or a callable; `Tagger` checks every span;
- `whitebox/`: models with their internals open: `base.WhiteBoxModel` (gradients w.r.t.
  the input embeddings), `protected` (the protected-status model of accumulated
  prediction sensitivity), `likelihood` (causal and masked LM likelihoods).

Shared by all: `batching` (batch-size policies), `checks` (the option checks), `defaults`
(the run's defaults, the one place this package reads the context) and `family_registry`
(the one registry mechanism behind both kinds of family). The analyses that also need
perturbations and the metrics' formulas (prediction sensitivity, smoothing and averaging)
live in `pytest_fairness.analysis`, after this layer.

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
