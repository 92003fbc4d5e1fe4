"""Tagger families: the extension point through which `as_tagger` turns what a user hands
over into a `Tagger` (issue 29, "named-entity taggers").

Every entity relation (`assert_entity_invariant`, `assert_entity_recall_parity`) takes its
model through `as_tagger`, so each accepts the same things. A `TaggerFamily` says which
objects it adapts (`detect`) and how (`build`); `TAGGER_FAMILIES` (a `FamilyRegistry`,
entry-point group ``pytest_fairness.taggers``) holds them. The built-in ones, in the order
they are tried:

- ``ready``: a `Tagger` already: used as it is;
- ``spacy``: a spaCy `Language` with an entity recogniser: ``doc.ents``;
- ``transformers``: a transformers token-classification pipeline (its model and
  tokenizer), or a ``(model, tokenizer)`` pair of an ``AutoModelForTokenClassification``:
  BIO tags aggregated to spans;
- ``callable``: any other callable ``tagger(text) -> [(start, end, label), ...]``.

Families registered by users (`register_tagger_family`) and by installed packages are
tried first. Heavy libraries are never imported here: objects are recognised by duck
typing and by the module their class lives in.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ...errors import ConfigurationError
from ...registry import Signature
from ..classifiers.hf import is_pipeline, is_transformers_model
from ..family_registry import BaseFamily, FamilyRegistry, ReadyFamily, cannot_use, of_type
from .adapters import callable_tagger, spacy_tagger, token_classifier_tagger
from .base import Tagger
from .bio import BIO_MODES, BioMode

__all__ = [
    "TAGGER_FAMILIES",
    "TaggerFamily",
    "TaggerOptions",
    "as_tagger",
    "register_tagger_family",
    "tagger_families",
]

#: What a plain callable tagger is, for messages.
PROTOCOL = "tagger(text) -> [(start, end, label), ...]"


@dataclass(frozen=True)
class TaggerOptions:
    """The options of one `as_tagger` call, as a family's `build` gets them."""

    labels: tuple[str, ...] | None = None
    label_map: Mapping[str, str] | None = None
    bio: BioMode = "strict"
    batch_size: int = 32


class TaggerFamily(BaseFamily):
    """A kind of object `as_tagger` turns into a `Tagger`: subclass it (`name`, `noun`,
    `description`; `detect(obj) -> bool`, cheap and import-free; `build(obj, options) ->
    Tagger`) and register it with `register_tagger_family`."""

    @abstractmethod
    def build(self, obj: object, options: TaggerOptions) -> Tagger:
        """The `Tagger` over `obj`."""


class ReadyTaggerFamily(ReadyFamily, TaggerFamily):
    noun = "taggers"
    description = "a Tagger (as_tagger(...)), used as it is;"
    made = Tagger


def _is_spacy(obj: object) -> bool:
    return (any(c.__module__.startswith("spacy") for c in type(obj).__mro__)
            and hasattr(obj, "pipe_names") and hasattr(obj, "pipe"))


class SpacyTaggerFamily(TaggerFamily):
    name = "spacy"
    noun = "spaCy pipelines"
    description = "a spaCy Language with an entity recogniser (doc.ents);"
    libraries = ("spacy",)

    def detect(self, obj: object) -> bool:
        return _is_spacy(obj)

    def build(self, obj: object, options: TaggerOptions) -> Tagger:
        return spacy_tagger(obj, labels=options.labels, label_map=options.label_map,
                            batch_size=options.batch_size)


def _is_token_classifier(model: object) -> bool:
    return is_transformers_model(model) and type(model).__name__.endswith(
        "ForTokenClassification")


class TransformersTaggerFamily(TaggerFamily):
    name = "transformers"
    noun = "transformers token classifiers"
    description = ("a transformers token-classification pipeline, or a (model, tokenizer) "
                   "pair of an AutoModelForTokenClassification (BIO tags to spans);")
    libraries = ("transformers",)

    def detect(self, obj: object) -> bool:
        if isinstance(obj, tuple):
            return len(obj) == 2 and is_transformers_model(obj[0])
        if is_pipeline(obj):
            return True
        return is_transformers_model(obj)

    def build(self, obj: object, options: TaggerOptions) -> Tagger:
        if isinstance(obj, tuple):
            model, tokenizer = obj
        elif is_pipeline(obj):
            task = getattr(obj, "task", None)
            if task not in ("token-classification", "ner"):
                raise ConfigurationError(
                    f"a {task!r} pipeline is not a tagger; pass a token-classification "
                    "(ner) pipeline, or use as_model for a text classifier")
            model, tokenizer = cast(Any, obj).model, cast(Any, obj).tokenizer
        else:
            raise ConfigurationError(
                f"a transformers model ({type(obj).__name__}) needs its tokenizer: pass "
                "(model, tokenizer)")
        if not _is_token_classifier(model):
            raise ConfigurationError(
                f"{type(model).__name__} is not a token classifier; load the model with "
                "AutoModelForTokenClassification, or use as_model for a text classifier")
        return token_classifier_tagger(model, tokenizer, labels=options.labels,
                                       label_map=options.label_map, bio=options.bio,
                                       batch_size=options.batch_size)


class CallableTaggerFamily(TaggerFamily):
    name = "callable"
    noun = "plain callables"
    description = f"a callable {PROTOCOL}."

    def detect(self, obj: object) -> bool:
        return callable(obj)

    def build(self, obj: object, options: TaggerOptions) -> Tagger:
        return callable_tagger(cast(Any, obj), labels=options.labels,
                               label_map=options.label_map, batch_size=options.batch_size)


#: The built-in families, in the order `as_tagger` tries them.
BUILTIN_TAGGER_FAMILIES: tuple[TaggerFamily, ...] = (
    ReadyTaggerFamily(),
    SpacyTaggerFamily(),
    TransformersTaggerFamily(),
    CallableTaggerFamily(),
)

TAGGER_FAMILIES: FamilyRegistry[TaggerFamily] = FamilyRegistry(
    "tagger family",
    base=TaggerFamily,
    shown="pytest_fairness.models.taggers.TaggerFamily",
    builtin=BUILTIN_TAGGER_FAMILIES,
    build=Signature(2, shown="build(self, obj, options) -> Tagger"),
    hint="pytest_fairness.models.taggers.register_tagger_family(MyFamily())",
    accepts="pytest_fairness.as_tagger",
)


def register_tagger_family(
    family: TaggerFamily | type[TaggerFamily], *, replace: bool = False
) -> TaggerFamily:
    """Add a `TaggerFamily` under its `name` (tried before the built-in ones); a name
    already registered raises `ConfigurationError` unless `replace=True`."""
    return TAGGER_FAMILIES.add(family, replace=replace)


#: Every registered tagger family in the order `as_tagger` tries them.
tagger_families = TAGGER_FAMILIES.tried


def as_tagger(
    model: object,
    *,
    labels: Collection[str] | None = None,
    label_map: Mapping[str, str] | None = None,
    bio: str = "strict",
    batch_size: int = 32,
    caller: str | None = None,
) -> Tagger:
    """`model` as a `Tagger` (labelled spans per text), through the first registered
    `TaggerFamily` that recognises it (see `tagger_families`): a `Tagger` as it is, a
    spaCy `Language` with an entity recogniser, a transformers token-classification
    pipeline or ``(model, tokenizer)`` pair, or a callable ``tagger(text) -> [(start,
    end, label), ...]``.

    `labels` is the declared set of labels (a span with another label is a
    `TaggerOutputError`; default: the recogniser's own labels, or any for a callable);
    `label_map` renames the model's labels first (``{"PER": "PERSON"}``); `bio` is how
    ill-formed BIO runs of a token classifier are read ("strict": an error, "lenient":
    an entity starts there). Anything else raises `ConfigurationError` listing what is
    accepted (`caller` names who asked)."""
    if bio not in BIO_MODES:
        raise ConfigurationError(f"bio must be 'strict' or 'lenient', got {bio!r:.40}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigurationError(f"batch_size must be a positive int, got {batch_size!r:.40}")
    if labels is not None and (isinstance(labels, (str, bytes))
                               or not isinstance(labels, Collection)):
        raise ConfigurationError(
            f"labels must be a collection of label names such as ['PERSON'], got "
            f"{type(labels).__name__}; wrap a single label in a list")
    options = TaggerOptions(None if labels is None else tuple(labels),
                            label_map, "strict" if bio == "strict" else "lenient", batch_size)

    tagger = cast(Tagger, TAGGER_FAMILIES.make(
        model, options, refused=lambda: cannot_use(of_type(model), "a tagger", caller),
        built=Tagger, wanted="a Tagger"))
    if labels is not None and tagger.labels is None:
        tagger.labels = options.labels
    return tagger
