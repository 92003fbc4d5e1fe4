"""Perturbation kinds: named generators of `Perturbation`s, behind one registry.

A *kind* turns texts into their perturbations for one sensitive attribute. It is a
`PerturbationKind`: a `name`, the `attribute` it perturbs, whether it `needs_parse`
(spaCy), an optional batch hook `prepare(docs)` and `perturb(text, doc)`; the provided
`perturb_many` parses a batch once (without the entity recogniser), calls `prepare`, then
`perturb` per text. Every place that accepts an attribute or a kind by name resolves it
here: ``fst.mutations(corpus, attribute=...)``, ``pf.smooth(model, attribute=...)``,
``pf.assert_eps_k_fair(model, text, eps=, k=, attribute=...)``, and
`pytest_fairness.perturb.coerce.resolve_perturber`.

Built in:

- ``"gender"``: mt-nlp's perturbation set S for gender (mt-nlp, section 2.1,
  Algorithm 2: AnalogyMutate and ActiveMutate of person nouns) plus the definitional
  gender swap, from one shared parse (`pytest_fairness.perturb.mutations.MutationsKind`).
- ``"gender_swap"``: the definitional gender swap alone
  (`pytest_fairness.perturb.gender.GenderSwapKind`).
- ``"gender_names"``: the same swap with first names swapped too, consistently, in one
  pass: "Emily said she is applying." -> "Stanley said he is applying."
  (``GenderSwapKind("gender_names", swap_names=True)``; its name table is built on
  first use).
- ``"mt-nlp"`` (`MT_NLP`): the mt-nlp mutations of *any* attribute the knowledge graph
  knows (religion, race, nationality, ...). It is not asked for by its own name: a name
  that no kind is registered under is looked up in the graph, and when the graph knows
  subpopulations of it, this entry serves it (`MutationsKind.bind`). The graph is read
  then, on first use of such a name, never at registration. Replace the entry
  (``register_kind(MT_NLP, MutationsKind(graph=...), replace=True)``) to change the
  graph, word vectors or fluency filter of every such attribute.

Yours: `register_kind` (a `PerturbationKind` instance or class, a replacement dictionary,
or a function text -> perturbations) and `pytest_fairness.perturb.register_dictionary`.
Other installed packages register through the entry-point group
``pytest_fairness.perturbations``; an entry point names a kind instance, a kind class, or
a mapping / word pairs (a dictionary kind named after the entry point). Entry points load
the first time a name is not found, or when every name is listed (`kind_names`).

Pure: no pytest, no model library; spaCy is loaded only by `perturb_many` of a kind that
needs a parse.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..errors import ConfigurationError, ExtensionError
from ..registry import ENTRY_POINT_GROUPS, Registry, Signature, caller, guard_methods
from ..resources.nlp import disabled, parse_many
from ..types import Perturbation
from ..validation import check_bool, check_int, check_texts
from ._persons import resolve_nlp

__all__ = [
    "KIND_REGISTRY",
    "MT_NLP",
    "PerturbationKind",
    "find_kind",
    "get_kind",
    "kind_names",
    "register_kind",
]

#: The registry entry that serves every attribute of the knowledge graph (module docstring).
MT_NLP = "mt-nlp"
#: Texts parsed (and prepared) together by `PerturbationKind.perturb_many`.
DEFAULT_BATCH_SIZE = 256


def check_name(value: object, what: str) -> str:
    """`value` when it is a non-empty str without surrounding spaces, else a
    `ConfigurationError` naming `what`."""
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise ConfigurationError(
            f"{what} must be a non-empty string without surrounding spaces, got {value!r}"
        )
    return value


class PerturbationKind(ABC):
    """A named generator of perturbations for one sensitive attribute.

    Subclasses implement `perturb` and may override `prepare` (one knowledge-graph or
    vector look-up for a whole batch), `needs_parse` (True: `perturb` gets the text's
    spaCy `Doc`), `description` and `hint` (for messages). `name` and `attribute` are
    given to ``__init__`` or set as class attributes (then the class is built without
    arguments, as an entry point naming the class needs)::

        class Reverse(PerturbationKind):
            name = "reverse"
            attribute = "word_order"

            def perturb(self, text, doc):
                return [" ".join(reversed(text.split()))]

    Call a kind on one text (``kind(text)``) or use `perturb_many` for many; a kind is
    also a valid ``perturber=`` for the relations and `smooth`.
    """

    #: Whether `perturb` reads a spaCy parse of its text.
    needs_parse: bool = False
    #: Whether that parse needs the entity recogniser (left out otherwise, for speed).
    needs_entities: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A kind written outside pytest-fairness that raises in `perturb`, `prepare` or
        `perturb_many` (a bug, a wrong signature) fails as an `ExtensionError` naming it
        and where it was registered (`pytest_fairness.registry.guard_methods`)."""
        super().__init_subclass__(**kwargs)
        guard_methods(cls, lambda: KIND_REGISTRY, KIND_PROTOCOL)

    def __init__(self, name: str | None = None, attribute: str | None = None) -> None:
        if name is None:
            name = getattr(type(self), "name", None)
            if name is None:
                raise ConfigurationError(
                    f"the perturbation kind {type(self).__qualname__} has no name: pass "
                    "name= to PerturbationKind.__init__ or set the class attribute `name`"
                )
        if attribute is None:
            attribute = getattr(type(self), "attribute", None)
        self.name: str = check_name(name, "a perturbation kind's name")
        """Its name, the default name it is registered under."""
        self.attribute: str = (
            self.name if attribute is None else check_name(attribute, "attribute")
        )
        """The sensitive attribute it perturbs ("gender", "religion", ...)."""

    @property
    def description(self) -> str:
        """What it is, for messages and reprs ("the dictionary 'religion' ...")."""
        return f"the perturbation kind {self.name!r}"

    @property
    def hint(self) -> str:
        """What a text needs for this kind to perturb it, and what to do when no text
        has it (ends the message of an empty pool)."""
        return f"{self.description} found nothing to perturb: use texts it applies to"

    def prepare(self, docs: Sequence[Any]) -> None:  # noqa: B027 - optional hook
        """Called once per batch before `perturb`: `docs` are the batch's spaCy Docs (a
        kind that `needs_parse`) or its texts. Default: nothing."""

    @abstractmethod
    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        """The perturbations of `text`, each starting from `text` and differing from it;
        `doc` is its parse when the kind `needs_parse`, else None."""

    def perturb_many(
        self,
        texts: Iterable[str],
        *,
        nlp: Any = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> list[list[Perturbation]]:
        """`perturb` of each text, in order, in batches of `batch_size`.

        A kind that `needs_parse` has each batch parsed with ``nlp.pipe`` without the
        entity recogniser (`pytest_fairness.resources.nlp.disabled`) unless it
        `needs_entities`; `nlp` is a spaCy
        `Language`, a pipeline name, or None for the run's / the default English
        pipeline. Each batch goes through `prepare` once, then `perturb` per text. A text
        that is not a str, or that spaCy cannot parse (a lone surrogate, more characters
        than the pipeline's max_length: `pytest_fairness.resources.nlp.unparsable`),
        raises `ConfigurationError` naming it (``texts[i]``) before anything is parsed.
        """
        check_int(batch_size, "batch_size", minimum=1)
        items = check_texts(texts)
        pipeline = resolve_nlp(nlp) if self.needs_parse and items else None
        found: list[list[Perturbation]] = []
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            if pipeline is None:
                self.prepare(batch)
                found += [self.perturb(text, None) for text in batch]
                continue
            skipped = [] if self.needs_entities else disabled(pipeline)
            docs = list(parse_many(pipeline, batch, batch_size=batch_size,
                                   disable=skipped, first=start))
            self.prepare(docs)
            found += [self.perturb(text, doc) for text, doc in zip(batch, docs, strict=True)]
        return found

    def __call__(self, text: str) -> list[Perturbation]:
        """The perturbations of one text (`perturb_many` of ``[text]``)."""
        return self.perturb_many([text])[0]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {self.description}>"


# --------------------------------------------------------------------------- registry


def _as_kind(name: str, entry: object) -> PerturbationKind:
    """What `register_kind` or an entry point hands over, as a kind called `name`."""
    if isinstance(entry, PerturbationKind):
        return entry
    if isinstance(entry, type):
        if not issubclass(entry, PerturbationKind):
            raise ConfigurationError(
                f"the class {entry.__qualname__} registered as the perturbation kind "
                f"{name!r} is not a PerturbationKind; subclass "
                "pytest_fairness.perturb.PerturbationKind"
            )
        missing = sorted(getattr(entry, "__abstractmethods__", ()))
        if missing:
            raise ConfigurationError(
                f"the perturbation kind class {entry.__qualname__} (registered as {name!r}) "
                f"does not define {', '.join(missing)}; a kind defines "
                f"{KIND_PROTOCOL['perturb'].shown}"
            )
        build: Callable[[], PerturbationKind] = entry  # subclasses take no argument, or fail
        try:
            return build()
        except TypeError as exc:
            raise ConfigurationError(
                f"the perturbation kind class {entry.__qualname__} (registered as {name!r}) "
                f"cannot be built without arguments ({exc}); register an instance instead"
            ) from exc
    if isinstance(entry, Mapping) or (
        isinstance(entry, Sequence) and not isinstance(entry, (str, bytes))
    ):
        from .dictionary import DictionaryKind

        return DictionaryKind(name, entry)
    if callable(entry):
        from .coerce import FunctionKind

        return FunctionKind(name, entry)
    raise ConfigurationError(
        f"cannot use {type(entry).__name__} {entry!r:.60} as the perturbation kind {name!r}: "
        "register a PerturbationKind (an instance or a class), a replacement dictionary (a "
        "mapping word -> alternatives, or a list of word pairs), or a function text -> "
        "perturbations"
    )


def _builtins(registry: Registry[PerturbationKind]) -> None:
    from .gender import GENDER_NAMES, GenderSwapKind
    from .mutations import MutationsKind

    registry.register("gender", MutationsKind("gender"), origin="builtin")
    registry.register("gender_swap", GenderSwapKind(), origin="builtin")
    registry.register(MT_NLP, MutationsKind(), origin="builtin")
    registry.register(GENDER_NAMES, GenderSwapKind(GENDER_NAMES, swap_names=True),
                      origin="builtin")
    from .languages import GenderSwapFrKind

    registry.register("gender_swap_fr", GenderSwapFrKind("fr"), origin="builtin")


#: How the package calls a kind's methods (checked at registration).
KIND_PROTOCOL = {
    "perturb": Signature(2, shown="perturb(self, text, doc) -> list of perturbations"),
    "prepare": Signature(1, shown="prepare(self, docs)"),
    "perturb_many": Signature(1, ("nlp", "batch_size"),
                              shown="perturb_many(self, texts, *, nlp=None, batch_size=256)"),
}

#: Every registered perturbation kind by name. Tests swap an entry for a block with
#: ``KIND_REGISTRY.temporarily(name, kind)``.
KIND_REGISTRY: Registry[PerturbationKind] = Registry(
    "perturbation kind",
    ENTRY_POINT_GROUPS["perturbation kind"],
    coerce=_as_kind,
    builtins=_builtins,
    hint="pytest_fairness.perturb.register_kind(name, kind) or register_dictionary(name, {...})",
    protocol=KIND_PROTOCOL,
)


def register_kind(
    kind_or_name: PerturbationKind | type[PerturbationKind] | str,
    kind: object = None,
    *,
    replace: bool = False,
) -> PerturbationKind:
    """Register a perturbation kind and return it; from then on its name is accepted
    wherever an attribute or kind is (``fst.mutations``, ``pf.smooth``,
    ``pf.assert_eps_k_fair``, `resolve_perturber`).

    ``register_kind(kind)`` registers a `PerturbationKind` instance (or a class, built
    without arguments) under its own `name`; ``register_kind(name, kind)`` under `name`,
    where `kind` may also be a replacement dictionary (see
    `pytest_fairness.perturb.dictionary`) or a function text -> perturbations. A name
    already registered raises `ConfigurationError` unless `replace=True`.
    """
    if isinstance(kind_or_name, str):
        if kind is None:
            raise ConfigurationError(
                f"register_kind({kind_or_name!r}) needs the kind: "
                f"register_kind({kind_or_name!r}, <PerturbationKind, dictionary or function>)"
            )
        return KIND_REGISTRY.register(kind_or_name, kind, replace=replace)
    if kind is not None:
        raise ConfigurationError(
            "register_kind(kind, ...) takes one kind; to register it under another name, "
            "pass the name first: register_kind(name, kind)"
        )
    if not isinstance(kind_or_name, PerturbationKind) and not (
        isinstance(kind_or_name, type) and issubclass(kind_or_name, PerturbationKind)
    ):
        raise ConfigurationError(
            f"register_kind needs a PerturbationKind or a name first, got "
            f"{type(kind_or_name).__name__} {kind_or_name!r:.60}; for a dictionary use "
            "register_dictionary(name, entries) or register_kind(name, entries)"
        )
    check_bool(replace, "replace")
    where = caller()
    shown = getattr(kind_or_name, "__name__", None) or getattr(kind_or_name, "name", "kind")
    try:
        built = _as_kind(str(shown), kind_or_name)
    except ConfigurationError as exc:
        raise ExtensionError(f"cannot register the perturbation kind {shown!r} ({where}): {exc}",
                             what=KIND_REGISTRY.what, name=str(shown), origin=where) from exc
    return KIND_REGISTRY.register(built.name, built, replace=replace, where=where)


def find_kind(name: str) -> PerturbationKind | None:
    """The kind `name` resolves to, or None: the kind registered under `name` (entry
    points included), else the ``"mt-nlp"`` entry bound to `name` when the knowledge graph
    knows subpopulations of that attribute (which reads the graph)."""
    check_name(name, "a perturbation kind (or attribute) name")
    found = KIND_REGISTRY.find(name)
    if found is not None:
        return found
    from .mutations import MutationsKind

    family = KIND_REGISTRY.find(MT_NLP)
    return family.bind(name) if isinstance(family, MutationsKind) else None


def get_kind(name: str) -> PerturbationKind:
    """The kind `name` resolves to (see `find_kind`); an unknown name raises
    `ConfigurationError` listing the registered kinds."""
    found = find_kind(name)
    if found is None:
        raise ConfigurationError(
            f"no perturbation kind called {name!r}, and the knowledge graph knows no "
            f"attribute of that name. {registered_kinds_note()}"
        )
    return found


def kind_names() -> tuple[str, ...]:
    """The names of every registered kind (built-in, yours, entry points), in
    registration order. The graph's attributes served by ``"mt-nlp"`` are not listed."""
    return KIND_REGISTRY.names()


def registered_kinds_note() -> str:
    """"Registered: ..." and how to register one, for messages."""
    names = ", ".join(repr(n) for n in kind_names())
    return (
        f"Registered kinds: {names} (and through {MT_NLP!r} any attribute of the knowledge "
        "graph: religion, race, nationality, ...). Register one with "
        "pytest_fairness.perturb.register_dictionary(name, {word: [alternatives]}) or "
        f"register_kind(name, kind), or through the entry-point group {KIND_REGISTRY.group!r}"
    )

