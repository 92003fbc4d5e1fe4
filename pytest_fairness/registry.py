"""Named extension points: perturbation kinds, model adapter families, generator families,
report formats.

Each extension point is a `Registry`: the package registers its built-in entries, users
register theirs in a ``conftest.py`` (``pf.perturb.register_kind(...)``, ...), and other
installed packages register through an entry-point group named after the registry
(``[project.entry-points."pytest_fairness.perturbations"]`` in their ``pyproject.toml``).
Entry points are loaded lazily, the first time a registry is asked for a name it does not
have or for all of its names, so an installed extension costs nothing until it is used.

Extensions fail in their own words, never as a bare traceback of someone else's code: every
registration remembers where it came from (the file and line of the ``register`` call, or
the entry point and its package: `Registry.where`), and an extension that is malformed at
registration (a class that cannot be built without arguments, a family without ``build``,
a method or writer of the wrong signature, a name that is not a string) or that raises
when called (`guard`, `guard_methods`) becomes an `ExtensionError` naming the registry, the
extension's name and where it was registered, with its own exception chained.

Pure: no pytest, no model library.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any, Generic, TypeVar

from .errors import ConfigurationError, ExtensionError, FairnessError, FairnessViolation
from .runtime.printable import printable
from .validation import check_bool

__all__ = ["BUILTIN", "ENTRY_POINT_GROUPS", "Registry", "Signature", "caller", "guard_methods",
           "named_instance"]

T = TypeVar("T")

#: The entry-point group of each registry, by what it holds.
ENTRY_POINT_GROUPS: dict[str, str] = {
    "perturbation kind": "pytest_fairness.perturbations",
    "model adapter family": "pytest_fairness.models",
    "generator family": "pytest_fairness.generators",
    "tagger family": "pytest_fairness.taggers",
    "report format": "pytest_fairness.reports",
    "language": "pytest_fairness.languages",
    "QA model family": "pytest_fairness.qa_models",
}


#: Where a built-in entry comes from (`Registry.where`).
BUILTIN = "built into pytest-fairness"
_PACKAGE_DIR = str(Path(__file__).resolve().parent) + os.sep


class Signature:
    """How an extension point calls one method of its entries: `positional` arguments
    and `keywords`, shown to users as `shown` ("perturb(self, text, doc)"). `Registry`
    checks at registration that each entry's method accepts such a call, so a wrong
    signature is named then, not as a TypeError from deep inside a run."""

    def __init__(self, positional: int, keywords: tuple[str, ...] = (), *, shown: str) -> None:
        self.positional = positional
        self.keywords = keywords
        self.shown = shown

    def accepts(self, function: Callable[..., Any]) -> str | None:
        """None when `function` can be called this way (or has no signature to read),
        else the reason it cannot, as `inspect` words it."""
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):  # a builtin without a signature: trust it
            return None
        try:
            signature.bind(*range(self.positional), **dict.fromkeys(self.keywords))
        except TypeError as exc:
            return str(exc)
        return None


class Registry(Generic[T]):
    """Entries of one extension point, by name, in registration order.

    `what` names the entries in messages ("perturbation kind"); `group` is the
    entry-point group other packages register through; `coerce` turns what an entry point
    (or `register`) hands over into an entry, raising `ConfigurationError` when it cannot
    (e.g. a class into an instance, a mapping into a dictionary kind); `builtins` registers
    the package's own entries, called once, on first use; `hint` says how users register
    one (shown when a name is unknown). `protocol` maps each method the package calls on
    an entry ("perturb"; "__call__" for an entry that is itself the function) to its
    `Signature`: checked at registration for entries that are not the package's own, and
    shown when a call fails with a `TypeError`.
    """

    def __init__(
        self,
        what: str,
        group: str,
        *,
        coerce: Callable[[str, object], T] | None = None,
        builtins: Callable[[Registry[T]], None] | None = None,
        hint: str = "",
        protocol: Mapping[str, Signature] | None = None,
    ) -> None:
        self.what = what
        self.hint = hint
        self.group = group
        self.protocol: dict[str, Signature] = dict(protocol or {})
        self._coerce = coerce
        self._builtins = builtins
        self._entries: dict[str, T] = {}
        self._origin: dict[str, str] = {}
        self._where: dict[str, str] = {}
        self._ready = builtins is None
        self._entry_points_loaded = False

    # ------------------------------------------------------------------ registering

    def register(self, name: str, entry: object, *, replace: bool = False,
                 origin: str = "user", where: str | None = None) -> T:
        """Add `entry` under `name` and return it (after `coerce`).

        A name already taken raises `ConfigurationError` unless `replace=True` (True or
        False: a string such as "no" is refused), so two extensions cannot silently
        shadow each other. `where` says where it was registered (default: the file and
        line of the first caller outside pytest-fairness; `Registry.where`). A malformed
        entry raises `ExtensionError` naming it and `where`.
        """
        check_bool(replace, "replace")
        self._prepare()
        return self._add(name, entry, replace=replace, origin=origin,
                         where=where or (BUILTIN if origin == "builtin" else caller()))

    def unregister(self, name: str) -> None:
        """Remove `name` (a `ConfigurationError` when it is not registered)."""
        self._prepare()
        if name not in self._entries:
            raise self._unknown(name)
        del self._entries[name]
        del self._origin[name]
        self._where.pop(name, None)

    @contextmanager
    def temporarily(self, name: str, entry: object) -> Iterator[T]:
        """Register `entry` under `name` for the duration of a ``with`` block (tests),
        restoring what was there before."""
        self._prepare()
        before = self._entries.get(name)
        origin = self._origin.get(name)
        where = self._where.get(name)
        added = self._add(name, entry, replace=True, origin="temporary", where=caller())
        try:
            yield added
        finally:
            if before is None:
                self._entries.pop(name, None)
                self._origin.pop(name, None)
                self._where.pop(name, None)
            else:
                self._entries[name] = before
                self._origin[name] = origin or "user"
                self._where[name] = where or "unknown"

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

    def where(self, name: str) -> str:
        """Where `name` was registered, for messages: "registered at conftest.py:12" (the
        register call), "entry point 'pkg.mod:Obj' of the package pkg", or `BUILTIN`."""
        self.get(name)
        return self._where.get(name, "unknown")

    def label(self, entry: object) -> str:
        """How messages name `entry`: "the perturbation kind 'x' (registered at
        conftest.py:12)"; an entry used without being registered (a kind passed to a
        relation directly) by its own name, "(not registered)"."""
        name = self._name_of(entry)
        if name is not None:
            return f"the {self.what} {name!r} ({self._where.get(name, 'unknown')})"
        own = getattr(entry, "name", None)
        shown = own if isinstance(own, str) and own else type(entry).__qualname__
        return f"the {self.what} {printable(repr(shown))} (not registered: used directly)"

    def failure(self, entry: object, action: str, exc: BaseException) -> ExtensionError:
        """The `ExtensionError` for `entry` raising `exc` in `action` (a method name, or
        "__call__"): names the registry, the entry and where it was registered, the
        exception, and, for a `TypeError`, the signature the package calls it with.
        Raise it ``from exc``."""
        label = self.label(entry)
        called = "when called" if action == "__call__" else f"in {action}()"
        expected = self.protocol.get(action)
        signature = (f" (a {self.what} is called as {expected.shown}: check its signature)"
                     if expected is not None and isinstance(exc, TypeError) else "")
        found = self._name_of(entry) or ""
        return ExtensionError(
            f"{label} failed {called}: {type(exc).__name__}: {printable(str(exc))}"
            f"{signature}. The error is in the extension, not in pytest-fairness: fix the "
            f"{self.what} (its own exception is chained as the cause), or stop using it",
            what=self.what, name=found or str(getattr(entry, "name", "")),
            origin=self._where.get(found, "not registered"))

    @contextmanager
    def guard(self, entry: object, action: str) -> Iterator[None]:
        """Run a call into `entry` (its method `action`): an exception other than the
        package's own named errors leaves as `failure` (the cause chained)."""
        try:
            yield
        except (FairnessError, FairnessViolation):
            raise
        except Exception as exc:
            name = self._name_of(entry)
            if name is not None and self._origin.get(name) == "builtin":
                raise  # the package's own entries raise the package's own errors
            raise self.failure(entry, action, exc) from exc

    def _name_of(self, entry: object) -> str | None:
        return next((n for n, v in self._entries.items() if v is entry), None)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._entries)} entries)"

    # ------------------------------------------------------------------ internals

    def _add(self, name: str, entry: object, *, replace: bool, origin: str, where: str) -> T:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ExtensionError(
                f"a {self.what} needs a non-empty name without surrounding spaces, got "
                f"{type(name).__name__} {printable(repr(name)):.60} ({where}); give it a "
                "name such as 'my-extension' (for a class: the class attribute `name`)",
                what=self.what, origin=where)
        if name in self._entries and not replace:
            raise ConfigurationError(
                f"a {self.what} called {name!r} is already registered ({self._origin[name]}); "
                "pick another name, or pass replace=True to replace it"
            )
        try:
            value = self._coerce(name, entry) if self._coerce is not None else entry
        except Exception as exc:
            shown = str(exc) if isinstance(exc, FairnessError) else (
                f"{type(exc).__name__}: {printable(str(exc))}")
            raise ExtensionError(f"cannot register the {self.what} {name!r} ({where}): {shown}",
                                 what=self.what, name=name, origin=where) from exc
        if origin != "builtin":
            self._check_protocol(name, value, where)
        self._entries[name] = value  # type: ignore[assignment]
        self._origin[name] = origin
        self._where[name] = where
        return value  # type: ignore[return-value]

    def _check_protocol(self, name: str, value: object, where: str) -> None:
        """Each method of `protocol` that `value` defines accepts the package's call."""
        for action, signature in self.protocol.items():
            method = value if action == "__call__" else getattr(value, action, None)
            if not callable(method):
                continue
            owner = getattr(method, "__module__", None) or ""
            if owner.split(".")[0] == __name__.split(".")[0] and action != "__call__":
                continue  # the package's own method (a base class's default)
            problem = signature.accepts(method)
            if problem is not None:
                raise ExtensionError(
                    f"the {self.what} {name!r} ({where}) cannot be called as "
                    f"{signature.shown}: {problem}; give it that signature",
                    what=self.what, name=name, origin=where)

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
            package = f" of the package {dist.name}" if dist is not None else ""
            self._add(point.name, loaded, replace=False, origin=source,
                      where=f"entry point {point.value!r}{package} "
                            f"(group {self.group}, name {point.name!r})")

    def _unknown(self, name: str) -> ConfigurationError:
        known = ", ".join(repr(n) for n in self._entries) or "none"
        return ConfigurationError(
            f"no {self.what} called {name!r}; registered: {known}. "
            + (f"Register one with {self.hint}, or" if self.hint else "Register one")
            + f" through the entry-point group {self.group!r}"
        )


def caller() -> str:
    """"registered at <file>:<line>" of the innermost frame outside pytest-fairness (the
    user's ``conftest.py`` or module that called ``register_*``); the path relative to
    the working directory when it is under it."""
    frame = sys._getframe(1)
    while frame is not None and (
            frame.f_code.co_filename.startswith(_PACKAGE_DIR)
            or frame.f_code.co_filename.startswith("<frozen ")
            or os.sep + "contextlib.py" in frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "registered by pytest-fairness"
    path = frame.f_code.co_filename
    try:
        shown = os.path.relpath(path)
        if shown.startswith(os.pardir):
            shown = path
    except ValueError:  # another drive (Windows)
        shown = path
    return f"registered at {printable(shown)}:{frame.f_lineno}"


def guard_methods(cls: type, registry: Callable[[], Registry[Any]],
                  methods: Iterable[str]) -> None:
    """Wrap each of `methods` that `cls` defines itself in `Registry.guard`, for the base
    classes' ``__init_subclass__``: a subclass written outside pytest-fairness that raises
    (a bug, a wrong signature) surfaces as an `ExtensionError` naming it, wherever the
    package calls it. `registry` returns the registry (it may be defined after the base
    class). The package's own subclasses raise the package's own errors: left as they are."""
    if cls.__module__.split(".")[0] == __name__.split(".")[0]:
        return
    for action in methods:
        function = cls.__dict__.get(action)
        if inspect.isfunction(function) and not getattr(function, "_fairness_guarded", False):
            setattr(cls, action, _guarded(function, registry, action))


def _guarded(function: Callable[..., Any], registry: Callable[[], Registry[Any]],
             action: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def method(self: object, *args: Any, **kwargs: Any) -> Any:
        with registry().guard(self, action):
            return function(self, *args, **kwargs)

    method._fairness_guarded = True  # type: ignore[attr-defined]
    return method


def named_instance(base: type, name: str, entry: object, *, what: str, needs: str,
                   shown: str | None = None) -> object:
    """An instance of `base` from what `register` or an entry point hands over for `name`
    (the instance, or a subclass, instantiated without arguments), whose `name` attribute
    must be `name`: the `coerce` of a registry of families. `what` names the entries in
    messages ("generator family"), `needs` the methods a subclass defines, `shown` the
    dotted path users import `base` from (default: its module's package and its name). A
    subclass that leaves one of them out, or that cannot be built without arguments, raises
    `ConfigurationError` saying so."""
    made = entry
    if isinstance(entry, type) and issubclass(entry, base):
        missing = sorted(getattr(entry, "__abstractmethods__", ()))
        if missing:
            raise ConfigurationError(
                f"the {what} class {entry.__qualname__} does not define "
                f"{', '.join(missing)}; a {what} defines {needs}")
        try:
            made = entry()
        except TypeError as exc:
            raise ConfigurationError(
                f"the {what} class {entry.__qualname__} cannot be built without arguments "
                f"({printable(str(exc))}); register an instance instead, built with its "
                "arguments") from exc
    if not isinstance(made, base):
        raise ConfigurationError(
            f"the {what} {name!r} must be a "
            f"{shown or base.__module__.rsplit('.', 1)[0] + '.' + base.__name__} "
            f"subclass or instance (with {needs}), got "
            f"{type(entry).__name__}")
    called = getattr(made, "name", None)
    if called != name:
        raise ConfigurationError(
            f"the {what} registered as {name!r} is called {called!r}; give them the same "
            "name (the class attribute `name`, and the entry point's name)")
    return made
