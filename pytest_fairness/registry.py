"""Named extension points: perturbation kinds, model adapter families, generator families,
report formats.

Each extension point is a `Registry`: the package registers its built-in entries, users
register theirs in a ``conftest.py`` (``pf.perturb.register_kind(...)``, ...), and other
installed packages register through an entry-point group named after the registry
(``[project.entry-points."pytest_fairness.perturbations"]`` in their ``pyproject.toml``).
Entry points are loaded lazily, the first time a registry is asked for a name it does not
have or for all of its names, so an installed extension costs nothing until it is used.

Pure: no pytest, no model library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from typing import Generic, TypeVar

from .errors import ConfigurationError

__all__ = ["ENTRY_POINT_GROUPS", "Registry", "named_instance"]

T = TypeVar("T")

#: The entry-point group of each registry, by what it holds.
ENTRY_POINT_GROUPS: dict[str, str] = {
    "perturbation kind": "pytest_fairness.perturbations",
    "model adapter family": "pytest_fairness.models",
    "generator family": "pytest_fairness.generators",
    "report format": "pytest_fairness.reports",
}


class Registry(Generic[T]):
    """Entries of one extension point, by name, in registration order.

    `what` names the entries in messages ("perturbation kind"); `group` is the
    entry-point group other packages register through; `coerce` turns what an entry point
    (or `register`) hands over into an entry, raising `ConfigurationError` when it cannot
    (e.g. a class into an instance, a mapping into a dictionary kind); `builtins` registers
    the package's own entries, called once, on first use; `hint` says how users register
    one (shown when a name is unknown).
    """

    def __init__(
        self,
        what: str,
        group: str,
        *,
        coerce: Callable[[str, object], T] | None = None,
        builtins: Callable[[Registry[T]], None] | None = None,
        hint: str = "",
    ) -> None:
        self.what = what
        self.hint = hint
        self.group = group
        self._coerce = coerce
        self._builtins = builtins
        self._entries: dict[str, T] = {}
        self._origin: dict[str, str] = {}
        self._ready = builtins is None
        self._entry_points_loaded = False

    # ------------------------------------------------------------------ registering

    def register(self, name: str, entry: object, *, replace: bool = False,
                 origin: str = "user") -> T:
        """Add `entry` under `name` and return it (after `coerce`).

        A name already taken raises `ConfigurationError` unless `replace=True`, so two
        extensions cannot silently shadow each other.
        """
        self._prepare()
        return self._add(name, entry, replace=replace, origin=origin)

    def unregister(self, name: str) -> None:
        """Remove `name` (a `ConfigurationError` when it is not registered)."""
        self._prepare()
        if name not in self._entries:
            raise self._unknown(name)
        del self._entries[name]
        del self._origin[name]

    @contextmanager
    def temporarily(self, name: str, entry: object) -> Iterator[T]:
        """Register `entry` under `name` for the duration of a ``with`` block (tests),
        restoring what was there before."""
        self._prepare()
        before = self._entries.get(name)
        origin = self._origin.get(name)
        added = self._add(name, entry, replace=True, origin="temporary")
        try:
            yield added
        finally:
            if before is None:
                self._entries.pop(name, None)
                self._origin.pop(name, None)
            else:
                self._entries[name] = before
                self._origin[name] = origin or "user"

    # ------------------------------------------------------------------ looking up

    def get(self, name: str) -> T:
        """The entry called `name`; unknown names raise `ConfigurationError` listing the
        known ones (entry points are loaded first)."""
        self._prepare()
        if name not in self._entries:
            self._load_entry_points()
        if name not in self._entries:
            raise self._unknown(name)
        return self._entries[name]

    def find(self, name: str) -> T | None:
        """The entry called `name`, or None."""
        self._prepare()
        if name not in self._entries:
            self._load_entry_points()
        return self._entries.get(name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, entry points included, in registration order."""
        self._prepare()
        self._load_entry_points()
        return tuple(self._entries)

    def added_first(self) -> tuple[T, ...]:
        """Every entry, those registered by users and entry points first (in registration
        order), then the built-in ones: the order in which families are tried, so an
        extension is asked before the built-in catch-alls."""
        names = self.names()
        builtin = [n for n in names if self._origin[n] == "builtin"]
        added = [n for n in names if n not in builtin]
        return tuple(self._entries[n] for n in (*added, *builtin))

    def origin(self, name: str) -> str:
        """Where `name` came from: "builtin", "user", "temporary", or the entry point
        ("entry point <dist>:<name>")."""
        self.get(name)
        return self._origin[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._entries)} entries)"

    # ------------------------------------------------------------------ internals

    def _add(self, name: str, entry: object, *, replace: bool, origin: str) -> T:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ConfigurationError(
                f"a {self.what} needs a non-empty name without surrounding spaces, got {name!r}"
            )
        if name in self._entries and not replace:
            raise ConfigurationError(
                f"a {self.what} called {name!r} is already registered ({self._origin[name]}); "
                "pick another name, or pass replace=True to replace it"
            )
        value = self._coerce(name, entry) if self._coerce is not None else entry
        self._entries[name] = value  # type: ignore[assignment]
        self._origin[name] = origin
        return value  # type: ignore[return-value]

    def _prepare(self) -> None:
        if not self._ready:
            self._ready = True  # first, so that a builtin registering through us does not loop
            assert self._builtins is not None
            self._builtins(self)

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        for point in sorted(metadata.entry_points(group=self.group), key=lambda p: p.name):
            if point.name in self._entries:
                continue
            where = f"entry point {point.value!r} ({self.group}: {point.name})"
            try:
                loaded = point.load()
            except Exception as exc:  # a broken extension must say which one it is
                raise ConfigurationError(
                    f"could not load the {self.what} {point.name!r} from {where}: "
                    f"{type(exc).__name__}: {exc}. Fix or uninstall the package providing it"
                ) from exc
            dist = getattr(point, "dist", None)
            source = f"entry point {dist.name if dist is not None else point.value}"
            self._add(point.name, loaded, replace=False, origin=source)

    def _unknown(self, name: str) -> ConfigurationError:
        known = ", ".join(repr(n) for n in self._entries) or "none"
        return ConfigurationError(
            f"no {self.what} called {name!r}; registered: {known}. "
            + (f"Register one with {self.hint}, or" if self.hint else "Register one")
            + f" through the entry-point group {self.group!r}"
        )


def named_instance(base: type, name: str, entry: object, *, what: str, needs: str) -> object:
    """An instance of `base` from what `register` or an entry point hands over for `name`
    (the instance, or a subclass, instantiated without arguments), whose `name` attribute
    must be `name`: the `coerce` of a registry of families. `what` names the entries in
    messages ("generator family"), `needs` the methods a subclass defines."""
    made = entry() if isinstance(entry, type) and issubclass(entry, base) else entry
    if not isinstance(made, base):
        raise ConfigurationError(
            f"the {what} {name!r} must be a {base.__module__.rsplit('.', 1)[0]}."
            f"{base.__name__} subclass or instance (with {needs}), got "
            f"{type(entry).__name__}")
    called = getattr(made, "name", None)
    if called != name:
        raise ConfigurationError(
            f"the {what} registered as {name!r} is called {called!r}; give them the same "
            "name (the class attribute `name`, and the entry point's name)")
    return made
