"""One registry mechanism for every kind of family a user can add: the model adapter
families `as_model` tries (`classifiers.families.MODEL_FAMILIES`, entry-point group
``pytest_fairness.models``), the generator families `as_generator` tries
(`generators.families.GENERATOR_FAMILIES`, ``pytest_fairness.generators``), the tagger
families of `as_tagger` (`taggers.families.TAGGER_FAMILIES`) and the QA families of
`as_qa_model` (`qa.families.QA_FAMILIES`).

A `FamilyRegistry` is a `pytest_fairness.registry.Registry` whose entries are families:
objects with a `name`, a `noun` and a `description`, a `detect(obj)` and a `build(...)`.
It registers its built-in families on first use, turns what users and entry points hand
over into an instance of the family class (`named_instance`), and answers the questions
every front door asks: which families, in the order they are tried (`tried`); the first
that recognises an object (`first`, with the refusal message of `refusal`); what is
accepted, one line per family (`accepted`); registering one under its own name (`add`);
and the whole front door (`make`: detect, refuse the options a family does not take,
build under the registry's guard, check what was built), so that `as_model`,
`as_generator`, `as_tagger` and `as_qa_model` are the same steps with their own words.
`BaseFamily` is what every kind's family class shares (`name`, `noun`, `description`,
`detect`), `ReadyFamily` the family of what is of the kind already, and `cannot_use`
words the first line of every refusal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, cast

from ..errors import ConfigurationError
from ..registry import ENTRY_POINT_GROUPS, Registry, Signature, named_instance

__all__ = ["BaseFamily", "Family", "FamilyRegistry", "ReadyFamily", "cannot_use", "of_type"]


class Family(Protocol):
    """What a `FamilyRegistry` reads of its entries (besides `build`, whose signature
    differs between model and generator families)."""

    @property
    def name(self) -> str: ...

    @property
    def noun(self) -> str: ...

    @property
    def description(self) -> str: ...

    def detect(self, obj: object) -> bool: ...


class BaseFamily(ABC):
    """What every kind of family class shares (`ModelFamily`, `GeneratorFamily`,
    `TaggerFamily`, `QAFamily` add their own abstract `build`): the class attributes
    `name` (its name in the registry; an entry point registering it must have the same
    name), `noun` (what it adapts, in the plural, for messages) and `description` (one
    line for the list of what the front door accepts), `libraries` (which objects
    `detect` is asked about), and `detect(obj)`."""

    name: ClassVar[str] = ""
    noun: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: The libraries the family's objects come from, as module-name prefixes
    #: (``("transformers",)``): when given, the registry asks `detect` only about an
    #: object one of whose classes (or, for a pair, one of whose two items' classes) lives
    #: in a module starting with one of them; empty (the default), about every object.
    libraries: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def detect(self, obj: object) -> bool:
        """Whether `obj` is of this family."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class ReadyFamily(BaseFamily):
    """The family of what is of the kind already (an instance of `made`): used as it is.
    A kind's ready family is this and its own family class, with its own words
    (``class ReadyTaggerFamily(ReadyFamily, TaggerFamily)``)."""

    name = "ready"
    #: what the front door makes (`Tagger`, `QAModel`)
    made: ClassVar[type]

    def detect(self, obj: object) -> bool:
        return isinstance(obj, self.made)

    def build(self, obj: object, *options: Any) -> Any:
        return obj


def of_type(obj: object) -> str:
    """How messages name an object that could not be used: "an object of type 'str'"
    (never its value, which may hold a secret such as a URL with a key)."""
    return f"an object of type {type(obj).__name__!r}"


def cannot_use(what: str, wanted: str, caller: str | None = None) -> str:
    """The first line of a front door's refusal: "cannot use <what> as <wanted>", or
    "<caller> needs <wanted>, got <what>" when `caller` names who asked."""
    return f"{caller} needs {wanted}, got {what}" if caller else f"cannot use {what} as {wanted}"


F = TypeVar("F", bound=Family)


def _modules(*classes: type) -> frozenset[str]:
    """The modules of `classes` and of their bases."""
    return frozenset(c.__module__ for cls in classes for c in cls.__mro__)

#: How every family's `detect` is called.
DETECT = Signature(1, shown="detect(self, obj) -> bool")


class FamilyRegistry(Registry[F]):
    """The registry of one kind of family.

    `what` names the kind ("model adapter family"; its entry-point group is
    `ENTRY_POINT_GROUPS[what]`); `base` is the family class an entry must be an instance
    (or a subclass) of, `shown` the path users import it from (default
    ``pytest_fairness.models.<base>``), and `needs` what it must define (default: detect
    and build as `build` shows it), all three for the message when it is not; `builtin`
    are the package's families, in the order they are tried after the added ones;
    `build` is how `build` is called; `hint` says how users register one; `accepts`
    heads the list of what is accepted ("pytest_fairness.as_model") and `last` ends it;
    `check(name, family)` refuses a family the kind cannot use, raising
    `ConfigurationError`.
    """

    def __init__(
        self,
        what: str,
        *,
        base: type,
        builtin: Sequence[F],
        build: Signature,
        hint: str,
        accepts: str,
        last: Sequence[str] = (),
        check: Callable[[str, F], None] | None = None,
        shown: str | None = None,
        needs: str | None = None,
    ) -> None:
        self.base = base
        self.shown = shown or f"pytest_fairness.models.{base.__name__}"
        called = (build.shown or "build(obj)").split(" -> ")[0].replace("self, ", "")
        self.needs = needs or f"detect(obj) and {called}"
        self.builtin = tuple(builtin)
        self.accepts = accepts
        self.last = tuple(last)
        self._check_family = check
        super().__init__(
            what,
            ENTRY_POINT_GROUPS[what],
            coerce=self._family,
            builtins=self._register_builtin,
            hint=hint,
            protocol={"detect": DETECT, "build": build},
        )

    def _family(self, name: str, entry: object) -> F:
        """A family instance from what `register` or an entry point hands over."""
        family = cast(F, named_instance(self.base, name, entry, what=self.what,
                                        needs=self.needs, shown=self.shown))
        libraries = getattr(family, "libraries", ())
        if not (isinstance(libraries, tuple) and all(isinstance(x, str) and x
                                                     for x in libraries)):
            raise ConfigurationError(
                f"the {self.what} {name!r} declares libraries={libraries!r:.80}: give a "
                "tuple of module-name prefixes such as ('torch',), or leave it out")
        if self._check_family is not None:
            self._check_family(name, family)
        return family

    def _register_builtin(self, registry: Registry[F]) -> None:
        for family in self.builtin:
            registry.register(family.name, family, origin="builtin")

    def add(self, family: F | type[F], *, replace: bool = False) -> F:
        """Register `family` (an instance, or a subclass instantiated without arguments)
        under its `name` and return it; a name already taken raises `ConfigurationError`
        unless `replace=True`."""
        return self.register(getattr(family, "name", None), family,  # type: ignore[arg-type]
                             replace=replace)

    def tried(self) -> tuple[F, ...]:
        """Every family in the order they are tried: added ones first (in registration
        order), then the built-in ones."""
        return self.added_first()

    def first(self, obj: object, refused: Callable[[tuple[F, ...]], str]) -> F:
        """The first family (in `tried` order) whose `detect` recognises `obj`; else a
        `ConfigurationError` whose message is `refused(the families tried)`. A family
        declaring `libraries` is asked only when a module of `obj`'s classes (for a pair,
        of its items' classes) starts with one of them; those modules are read once."""
        families = self.tried()
        modules: frozenset[str] | None = None
        for family in families:
            libraries: tuple[str, ...] = getattr(family, "libraries", ())
            if libraries:
                if modules is None:
                    modules = _modules(*(map(type, obj) if isinstance(obj, tuple)
                                         and len(obj) == 2 else (type(obj),)))
                if not any(module.startswith(libraries) for module in modules):
                    continue
            with self.guard(family, "detect"):
                found = family.detect(obj)
            if found:
                return family
        raise ConfigurationError(refused(families))

    def refusal(self, head: str) -> Callable[[tuple[F, ...]], str]:
        """The message `first` raises when no family recognises an object: `head` (what
        could not be used as what), then what is accepted by the families tried."""
        return lambda families: f"{head}.\n{self.accepted(families)}"

    def make(self, obj: object, *args: object, refused: Callable[[], str],
             built: type | tuple[type, ...] | Callable[[object], bool], wanted: str,
             named: Callable[[], str] | None = None,
             accept: Callable[[F], None] | None = None) -> object:
        """What the first family recognising `obj` builds from it: when none does,
        `ConfigurationError` `refused()` (what could not be used as what, `cannot_use`) +
        what is accepted; `accept(family)` (it raises for an option the family does not
        take); then `build(obj, *args)` under the registry's guard. What a family other
        than the package's own (`builtin`, type-checked) built must be an instance of
        `built` (a class or a tuple of classes) or pass it (a predicate), else
        `ConfigurationError` naming the family and what it built (`named()`: for what,
        e.g. "for model 'f'"), which is not `wanted`."""
        family = self.first(obj, lambda families: f"{refused()}.\n{self.accepted(families)}")
        if accept is not None:
            accept(family)
        with self.guard(family, "build"):
            made = cast(Any, family).build(obj, *args)
        if family in self.builtin or (isinstance(made, built) if isinstance(
                built, (type, tuple)) else built(made)):
            return made
        raise ConfigurationError(
            f"{self.label(family)} built {type(made).__name__}"
            f"{' ' + named() if named else ''}, which is not {wanted}; fix its build()")

    def accepted(self, families: tuple[F, ...] | None = None) -> str:
        """What is accepted, one line per family (for the "cannot use" message)."""
        lines = [f"{self.accepts} accepts:"]
        for family in self.tried() if families is None else families:
            lines.append(f"  - {family.description or family.noun or family.name}")
        lines.extend(self.last)
        return "\n".join(lines)
