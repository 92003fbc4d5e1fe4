"""Generator families: the extension point through which `as_generator` turns what a user
hands over into a `TextGenerator` (issue 18, "generators as first-class models").

Every relation on generated text (`generation_bias`, `llm_counterfactuals` and its
`assert_*` relations, `chat_classifier`, `judge_scorer`) takes its generator through
`as_generator`, so each accepts the same things. A `GeneratorFamily` says which objects it
adapts (`detect`) and how (`build`); `GENERATOR_FAMILIES` (a
`pytest_fairness.registry.Registry`, entry-point group ``pytest_fairness.generators``)
holds them. The built-in ones, in the order they are tried:

- ``ready``: a generator already (`HFGenerator`, `OpenAIGenerator`, `CachedGenerator`, or
  anything with a `generate_many(prompts, n, seed)` method): used as it is;
- ``transformers``: a transformers text-generation pipeline, or a ``(model, tokenizer)``
  pair of a causal language model: `hf_generator(obj)` with its defaults;
- ``local-server``: a `LocalServer` (`local_server(...)`): `openai_generator(server)`,
  which starts the server on its first request;
- ``callable``: any other callable ``generator(prompt, n, seed) -> list of n strings``.

Families registered by users (`register_generator_family`) and by installed packages are
tried first, in registration order, then the built-in ones (as for `as_model`'s model
families). Heavy libraries are never imported here: transformers objects are recognised by
duck typing and by the module their class lives in.
"""

from __future__ import annotations

import weakref
from abc import abstractmethod
from typing import cast

from ...registry import Signature
from ..classifiers.hf import is_transformers_model, is_transformers_object
from ..family_registry import BaseFamily, FamilyRegistry, cannot_use, of_type
from ..llm.local_server import LocalServer
from ..llm.openai_api import OpenAIGenerator, openai_generator
from .base import TextGenerator, hf_generator

__all__ = [
    "BUILTIN_GENERATOR_FAMILIES",
    "GENERATOR_FAMILIES",
    "CallableGeneratorFamily",
    "GeneratorFamily",
    "LocalServerFamily",
    "ReadyGeneratorFamily",
    "TransformersGeneratorFamily",
    "accepted_generators",
    "as_generator",
    "generator_families",
    "generator_family_of",
    "register_generator_family",
]

#: What a text generator is, for messages.
PROTOCOL = "generator(prompt, n, seed) -> list of n continuations"


class GeneratorFamily(BaseFamily):
    """A kind of object `as_generator` turns into a `TextGenerator`: subclass it to let
    every generator relation accept a new kind of language model directly.

    Its class attributes and `detect` are those of every family (see `ModelFamily`):
    `name` ("vllm"), `noun` ("vLLM engines"), `description` (one line for the list of
    what `as_generator` accepts), optionally `libraries` (("vllm",)), and `detect(obj)`,
    cheap and import-free, run for every `as_generator` call until a family says yes (it
    may raise `ConfigurationError` for an object of its family that cannot be used). Its
    own method:

    - `build(obj) -> TextGenerator`: the generator: a callable ``generator(prompt, n,
      seed)`` returning `n` continuation strings, the same ones for the same seed
      (optionally with `generate_many(prompts, n, seed)` for batches, and a `fingerprint`
      so that `cached_generator` can key its answers).
    """

    @abstractmethod
    def build(self, obj: object) -> TextGenerator:
        """The `TextGenerator` over `obj`."""


# --------------------------------------------------------------------------- built-ins


class ReadyGeneratorFamily(GeneratorFamily):
    """A generator already: an `HFGenerator`, `OpenAIGenerator`, `CachedGenerator`, or
    any object with a `generate_many(prompts, n, seed)` method. Used as it is."""

    name = "ready"
    noun = "text generators"
    description = (
        "a text generator: hf_generator(...), openai_generator(...), cached_generator(...), "
        "or an object with generate_many(prompts, n, seed);"
    )

    def detect(self, obj: object) -> bool:
        # HFGenerator, OpenAIGenerator and CachedGenerator all have generate_many
        return callable(getattr(obj, "generate_many", None))

    def build(self, obj: object) -> TextGenerator:
        return cast(TextGenerator, obj)


class TransformersGeneratorFamily(GeneratorFamily):
    """A transformers text-generation pipeline, or a ``(model, tokenizer)`` pair of a
    causal language model: `hf_generator(obj)` with its defaults (50 new tokens,
    temperature 1, unfinished sentences cut; call `hf_generator` yourself for others).
    A pipeline of another task, or a transformers model without its tokenizer, is
    recognised too, so that `hf_generator` says what to pass instead."""

    name = "transformers"
    noun = "transformers language models"
    description = (
        "a transformers text-generation pipeline, or a (model, tokenizer) pair of a causal "
        "language model (AutoModelForCausalLM), sampled by hf_generator with its defaults;"
    )
    libraries = ("transformers",)

    def detect(self, obj: object) -> bool:
        if isinstance(obj, tuple):
            return len(obj) == 2 and is_transformers_model(obj[0])
        return is_transformers_object(obj)

    def build(self, obj: object) -> TextGenerator:
        return hf_generator(obj)


class LocalServerFamily(GeneratorFamily):
    """A `LocalServer`: `openai_generator(server)` (chat completions, the server's model,
    started on the first request), one per server for as long as the server lives, so
    every relation on it shares one HTTP client and one set of counters."""

    _built: weakref.WeakKeyDictionary[LocalServer, OpenAIGenerator]

    name = "local-server"
    noun = "local servers"
    description = (
        "a LocalServer (local_server(...)), asked through openai_generator(server) with its "
        "defaults;"
    )

    def detect(self, obj: object) -> bool:
        return isinstance(obj, LocalServer)

    def __init__(self) -> None:
        self._built = weakref.WeakKeyDictionary()

    def build(self, obj: object) -> TextGenerator:
        server = cast(LocalServer, obj)
        generator = self._built.get(server)
        if generator is None:
            generator = self._built[server] = openai_generator(server)
        return generator


class CallableGeneratorFamily(GeneratorFamily):
    """Any other callable: ``generator(prompt, n, seed) -> list of n strings``."""

    name = "callable"
    noun = "plain callables"
    description = f"a callable {PROTOCOL} (the same ones for the same seed)."

    def detect(self, obj: object) -> bool:
        return callable(obj)

    def build(self, obj: object) -> TextGenerator:
        return cast(TextGenerator, obj)


#: The built-in families, in the order `as_generator` tries them.
BUILTIN_GENERATOR_FAMILIES: tuple[GeneratorFamily, ...] = (
    ReadyGeneratorFamily(),
    TransformersGeneratorFamily(),
    LocalServerFamily(),
    CallableGeneratorFamily(),
)


# --------------------------------------------------------------------------- the registry


GENERATOR_FAMILIES: FamilyRegistry[GeneratorFamily] = FamilyRegistry(
    "generator family",
    base=GeneratorFamily,
    builtin=BUILTIN_GENERATOR_FAMILIES,
    build=Signature(1, shown="build(self, obj) -> TextGenerator"),
    hint="pytest_fairness.register_generator_family(MyFamily())",
    accepts="pytest_fairness.as_generator",
)


def register_generator_family(
    family: GeneratorFamily | type[GeneratorFamily], *, replace: bool = False
) -> GeneratorFamily:
    """Add a `GeneratorFamily` (an instance, or a subclass instantiated without arguments)
    under its `name`, and return it. `as_generator` (so every generator relation) tries it
    before the built-in families.

    A name already registered, a built-in one included ("ready", "transformers",
    "local-server", "callable"; see `generator_families`), raises `ConfigurationError`
    unless `replace=True`, so a family never shadows another silently.
    """
    return GENERATOR_FAMILIES.add(family, replace=replace)


#: Every registered generator family in the order `as_generator` tries them: the ones
#: registered by users and entry points first (in registration order), then the built-in
#: ones.
generator_families = GENERATOR_FAMILIES.tried

#: What `as_generator` accepts, one line per family (for the "cannot use" message).
accepted_generators = GENERATOR_FAMILIES.accepted


def _refused_head(obj: object, caller: str | None) -> str:
    return cannot_use(of_type(obj), f"a text generator (a TextGenerator: {PROTOCOL})", caller)


def generator_family_of(obj: object, caller: str | None = None) -> GeneratorFamily:
    """The first family (in `generator_families` order) whose `detect` recognises `obj`;
    `ConfigurationError` listing what `as_generator` accepts when none does (`caller`
    names the function that needed a generator)."""
    return GENERATOR_FAMILIES.first(obj, GENERATOR_FAMILIES.refusal(_refused_head(obj, caller)))


def as_generator(obj: object, *, caller: str | None = None) -> TextGenerator:
    """`obj` as a `TextGenerator` (counterfactual-sentiment-bias, section 3 and Appendix B:
    `n` continuations per prompt, the same ones for the same seed), through the first
    registered `GeneratorFamily` that recognises it (see `generator_families`).

    Built in: a ready generator (`hf_generator`, `openai_generator`, `cached_generator`,
    or anything with `generate_many`) is returned as it is; a transformers text-generation
    pipeline or a ``(model, tokenizer)`` pair of a causal LM becomes `hf_generator(obj)`;
    a `LocalServer` becomes `openai_generator(server)`; any other callable
    ``generator(prompt, n, seed)`` is returned as it is. Anything else raises
    `ConfigurationError` listing what is accepted (`caller`, e.g. "generation_bias",
    names who asked). Every relation on generated text calls it, so each accepts the same
    things.
    """
    return cast(TextGenerator, GENERATOR_FAMILIES.make(
        obj, refused=lambda: _refused_head(obj, caller),
        built=lambda made: callable(made) or callable(getattr(made, "generate_many", None)),
        wanted=f"a text generator ({PROTOCOL})", named=lambda: f"from {of_type(obj)}"))
