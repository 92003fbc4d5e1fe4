"""One registry mechanism for the two kinds of family a user can add: the model adapter
families `as_model` tries (`classifiers.families.MODEL_FAMILIES`, entry-point group
``pytest_fairness.models``) and the generator families `as_generator` tries
(`generators.families.GENERATOR_FAMILIES`, ``pytest_fairness.generators``).

A `FamilyRegistry` is a `pytest_fairness.registry.Registry` whose entries are families:
objects with a `name`, a `noun` and a `description`, a `detect(obj)` and a `build(...)`.
It registers its built-in families on first use, turns what users and entry points hand
over into an instance of the family class (`named_instance`), and answers the questions
both front doors ask: which families, in the order they are tried (`tried`); the first
that recognises an object (`first`, with the refusal message of `refusal`); what is
accepted, one line per family (`accepted`); registering one under its own name (`add`);
and the whole front door (`make`: detect, refuse the options a family does not take,
build under the registry's guard, check what was built), so that `as_model` and
`as_generator` are the same steps with their own words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast

from ..errors import ConfigurationError
from ..registry import ENTRY_POINT_GROUPS, Registry, Signature, named_instance

__all__ = ["Family", "FamilyRegistry"]


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


F = TypeVar("F", bound=Family)

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
        `ConfigurationError` whose message is `refused(the families tried)`."""
        families = self.tried()
        for family in families:
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
             accept: Callable[[F], None] | None = None) -> tuple[F, object]:
        """The first family recognising `obj` and what it builds from it: when none does,
        `ConfigurationError` `refused()` (what could not be used as what) + what is
        accepted; `accept(family)` (it raises for an option the family does not take);
        then `build(obj, *args)` under the registry's guard. The caller checks what was
        built (`not_built` words the error)."""
        family = self.first(obj, lambda families: f"{refused()}.\n{self.accepted(families)}")
        if accept is not None:
            accept(family)
        with self.guard(family, "build"):
            made = cast(Any, family).build(obj, *args)
        return family, made

    def not_built(self, family: F, made: object, *, named: str,
                  wanted: str) -> ConfigurationError:
        """The error for a family whose `build` made something that is not `wanted`
        (`named`: for what, e.g. "for model 'f'")."""
        return ConfigurationError(
            f"{self.label(family)} built {type(made).__name__} {named}, which is not "
            f"{wanted}; fix its build()")

    def accepted(self, families: tuple[F, ...] | None = None) -> str:
        """What is accepted, one line per family (for the "cannot use" message)."""
        lines = [f"{self.accepts} accepts:"]
        for family in self.tried() if families is None else families:
            lines.append(f"  - {family.description or family.noun or family.name}")
        lines.extend(self.last)
        return "\n".join(lines)
