"""The registry of model adapter families, and the built-in ones.

`MODEL_FAMILIES` (a `pytest_fairness.registry.Registry`, entry-point group
``pytest_fairness.models``) holds the families `as_model` tries. The built-in ones, in the
order they are tried: transformers (model, tokenizer) pairs, transformers text-classification
pipelines, transformers models with `tokenizer=`, torch modules, scikit-learn estimators,
plain callables (and remote scorers, `remote=True`). Families registered by users
(`register_model_family`) and by installed packages come first, in registration order.

Heavy libraries are never imported here: objects are recognised by duck typing and by the
module their class lives in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, cast

from ...errors import ConfigurationError
from ...registry import Signature
from ...types import TextModel
from ..checks import DEFAULT_BACKOFF, DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_RETRY_TIME
from ..defaults import run_settings
from ..family_registry import FamilyRegistry, cannot_use
from .cache import Ident
from .callables import CallableModel
from .family import FAMILY_OPTIONS, ModelFamily, ModelOptions, describe, not_accepted
from .hf import PipelineModel, TransformersModel, is_pipeline, is_transformers_model
from .remote import LengthPolicy, RemoteModel
from .scikit import SklearnModel
from .torchnn import TorchModel

__all__ = [
    "MODEL_FAMILIES",
    "CallableFamily",
    "PipelineFamily",
    "SklearnFamily",
    "TorchFamily",
    "TransformersFamily",
    "TransformersPairFamily",
    "accepted_models",
    "check_accepted",
    "family_of",
    "model_families",
    "register_model_family",
]


# --------------------------------------------------------------------------- built-ins


class TransformersPairFamily(ModelFamily):
    """`(model, tokenizer)`: an `AutoModelForSequenceClassification` and its tokenizer."""

    name = "transformers-pair"
    noun = "(model, tokenizer) pairs"
    description = (
        "a (model, tokenizer) pair of a transformers AutoModelForSequenceClassification "
        "and its tokenizer;"
    )
    libraries = ("transformers",)

    def detect(self, obj: object) -> bool:
        return isinstance(obj, tuple) and len(obj) == 2 and is_transformers_model(obj[0])

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        model, tokenizer = cast(tuple[Any, Any], obj)
        return TransformersModel(
            model,
            tokenizer,
            name=describe(model),
            config=("transformers", Ident(tokenizer)),
            **options.common(),
        )


class PipelineFamily(ModelFamily):
    """A transformers text-classification `Pipeline`."""

    name = "transformers-pipeline"
    noun = "text-classification pipelines"
    description = "a transformers text-classification pipeline;"
    libraries = ("transformers",)

    def detect(self, obj: object) -> bool:
        if not is_pipeline(obj):
            return False
        task = getattr(obj, "task", None)
        if task not in ("text-classification", "sentiment-analysis"):
            raise ConfigurationError(
                f"only text-classification pipelines are supported, got task {task!r}"
            )
        return True

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        return PipelineModel(obj, name=options.name, config=("pipeline",), **options.common())


class TransformersFamily(ModelFamily):
    """A transformers model given with `tokenizer=`."""

    name = "transformers"
    noun = "transformers models"
    description = "a transformers model with tokenizer=<its tokenizer>;"
    options = frozenset({"tokenizer"})
    libraries = ("transformers",)

    #: a transformers model (`hf.is_transformers_model`): the predicate itself
    detect = staticmethod(is_transformers_model)

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        tokenizer = _tokenizer(options)
        return TransformersModel(
            obj,
            tokenizer,
            name=options.name,
            config=("transformers", Ident(tokenizer)),
            **options.common(),
        )


class TorchFamily(ModelFamily):
    """A torch `nn.Module` with a tokenizer callable (see `TorchModel`)."""

    name = "torch"
    noun = "torch modules"
    description = (
        "a torch nn.Module with tokenizer=<callable: list of texts -> tensor or dict of "
        "tensors>;"
    )
    options = frozenset({"output", "tokenizer", "embedding"})
    libraries = ("torch",)

    def detect(self, obj: object) -> bool:
        return any(c.__module__ == "torch.nn.modules.module" for c in type(obj).__mro__)

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        output = options.output
        if output not in ("auto", "logits", "proba"):
            raise ConfigurationError(
                f'a torch module returns logits (output="auto" or "logits") or probabilities '
                f'(output="proba"), not output={output!r}'
            )
        tokenizer = _tokenizer(options)
        return TorchModel(
            obj,
            tokenizer,
            output=output,
            embedding=options.embedding,
            name=options.name,
            config=("torch", output, Ident(tokenizer), options.labels),
            **options.common(),
        )


class SklearnFamily(ModelFamily):
    """A fitted scikit-learn classifier or pipeline (`predict_proba` or
    `decision_function`, and `classes_`)."""

    name = "sklearn"
    noun = "scikit-learn estimators"
    description = (
        "a fitted scikit-learn classifier or pipeline with predict_proba or "
        "decision_function;"
    )

    def detect(self, obj: object) -> bool:
        if not (hasattr(obj, "predict_proba") or hasattr(obj, "decision_function")):
            return False
        if hasattr(obj, "classes_"):
            return True
        if type(obj).__module__.startswith("sklearn"):
            raise ConfigurationError(
                f"{describe(obj)} is not fitted (it has no classes_); fit it first"
            )
        return False

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        return SklearnModel(obj, name=options.name, config=("sklearn",), **options.common())


class CallableFamily(ModelFamily):
    """A plain callable (`CallableModel`), or with `remote=True` a remote scorer
    (`RemoteModel`)."""

    name = "callable"
    noun = "plain callables"
    description = (
        "a callable taking a list of texts and returning probabilities (n, K), one score "
        "per text, or labels (see output=); with remote=True, a remote scorer doing I/O;"
    )
    options = frozenset(FAMILY_OPTIONS) - {"tokenizer", "embedding"}

    def detect(self, obj: object) -> bool:
        return callable(obj)

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        if options.output == "logits" and options.score_range != (0.0, 1.0):
            raise ConfigurationError(
                'with output="logits" a single score is the sigmoid probability in [0, 1]; '
                "drop score_range="
            )
        fn = cast(Callable[[list[str]], Any], obj)
        config: tuple[Hashable, ...] = (
            "callable",
            options.output,
            options.score_range,
            options.labels,
        )
        if not options.remote:
            return CallableModel(
                fn,
                output=options.output,
                name=options.name,
                config=config,
                score_range=options.score_range,
                **options.common(),
            )
        policy: LengthPolicy = options.length_policy or "skip"
        length = options.length
        return RemoteModel(
            fn,
            output=options.output,
            name=options.name,
            config=(*config, options.max_length, policy, Ident(length) if length else None),
            score_range=options.score_range,
            concurrency=DEFAULT_CONCURRENCY if options.concurrency is None else options.concurrency,
            retries=DEFAULT_RETRIES if options.retries is None else options.retries,
            backoff=DEFAULT_BACKOFF if options.backoff is None else options.backoff,
            retry_time=DEFAULT_RETRY_TIME if options.retry_time is None else options.retry_time,
            max_length=options.max_length,
            length_policy=policy,
            length=length,
            seed=run_settings().seed if options.seed is None else options.seed,
            sleep=time.sleep if options.sleep is None else options.sleep,
            **options.common(),
        )


def _tokenizer(options: ModelOptions) -> Callable[[list[str]], Any]:
    if options.tokenizer is None:
        raise ConfigurationError(
            f"{options.name} is a torch module: pass tokenizer=<callable: list of texts -> "
            "tensor of token ids or dict of tensors> (or the transformers tokenizer)"
        )
    return options.tokenizer


#: The built-in families, in the order `as_model` tries them.
BUILTIN_FAMILIES: tuple[ModelFamily, ...] = (
    TransformersPairFamily(),
    PipelineFamily(),
    TransformersFamily(),
    TorchFamily(),
    SklearnFamily(),
    CallableFamily(),
)


# --------------------------------------------------------------------------- the registry


def _check_options(name: str, family: ModelFamily) -> None:
    """A family may accept only `as_model`'s family options."""
    unknown = sorted(set(family.options) - set(FAMILY_OPTIONS))
    if unknown:
        raise ConfigurationError(
            f"the model adapter family {name!r} accepts unknown option(s) {unknown}; "
            f"as_model's family options are {', '.join(FAMILY_OPTIONS)}"
        )


MODEL_FAMILIES: FamilyRegistry[ModelFamily] = FamilyRegistry(
    "model adapter family",
    base=ModelFamily,
    builtin=BUILTIN_FAMILIES,
    build=Signature(2, shown="build(self, obj, options) -> TextModel"),
    hint="pytest_fairness.models.register_model_family(MyFamily())",
    accepts="pytest_fairness.as_model",
    last=("  - anything that already implements pytest_fairness.TextModel.",),
    check=_check_options,
)


def register_model_family(
    family: ModelFamily | type[ModelFamily], *, replace: bool = False
) -> ModelFamily:
    """Add a `ModelFamily` (an instance, or a subclass instantiated without arguments) under
    its `name`, and return it. `as_model` tries it before the built-in families.

    A name already registered, a built-in one included ("torch", "callable", ...; see
    `model_families`), raises `ConfigurationError` unless `replace=True`, so a family never
    shadows another silently.
    """
    return MODEL_FAMILIES.add(family, replace=replace)


#: Every registered family in the order `as_model` tries them: the ones registered by
#: users and entry points first (in registration order), then the built-in ones.
model_families = MODEL_FAMILIES.tried

#: What `as_model` accepts, one line per family (for the "cannot use" message).
accepted_models = MODEL_FAMILIES.accepted


def family_of(obj: object, name: str | None = None) -> ModelFamily:
    """The first family (in `model_families` order) whose `detect` recognises `obj`;
    `ConfigurationError` listing what `as_model` accepts when none does."""
    return MODEL_FAMILIES.first(obj, MODEL_FAMILIES.refusal(
        cannot_use(name or describe(obj), "a model")))


def check_accepted(family: ModelFamily, options: ModelOptions) -> None:
    """`ConfigurationError` for the first family-specific option given that `family` does
    not accept, naming the families that do."""
    accepted = set(family.options)
    for option in options.given():
        if option not in accepted:
            nouns = [f.noun or f"{f.name} models" for f in model_families() if option in f.options]
            raise not_accepted(option, options, nouns)
