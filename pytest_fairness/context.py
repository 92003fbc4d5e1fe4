"""Where results go during a test, and the per-session state (prediction caches).

The pytest plugin opens a `SessionState` for the run and a `TestState` around each test,
in context variables. Library code reads them through `current_session()` and
`current_test()`; outside pytest both are None and recording is a no-op, so every function
of the package works the same in a notebook or a script.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .settings import Settings


@dataclass
class SessionState:
    """State shared by all tests of one pytest session."""

    settings: Settings = field(default_factory=Settings)
    _caches: dict[int, tuple[object, Any]] = field(default_factory=dict)
    _memo: dict[Hashable, tuple[tuple[object, ...], Any]] = field(default_factory=dict)

    def cache_for(self, obj: object, factory: Any) -> Any:
        """The prediction cache of the underlying model `obj`, made by `factory()` once.

        Keyed by identity; the session keeps `obj` alive so an id is never reused.
        """
        entry = self._caches.get(id(obj))
        if entry is None or entry[0] is not obj:
            entry = (obj, factory())
            self._caches[id(obj)] = entry
        return entry[1]

    def recall(self, key: Hashable) -> Any:
        """What `remember` stored under `key` in this session, or None."""
        entry = self._memo.get(key)
        return None if entry is None else entry[1]

    def remember(self, key: Hashable, value: Any, keep: tuple[object, ...] = ()) -> None:
        """Keep `value` for the rest of the session under `key` (e.g. a PSA run, so that a
        second relation over the same model, corpus and names reuses it). Objects a key
        names by identity go in `keep`, so their ids are never reused while it lives."""
        self._memo[key] = (keep, value)


@dataclass
class TestState:
    """What one test records: its node id, effective settings and results.

    `expects` is how the plugin tells the checks that the test is marked as an expected
    failure (pytest's ``xfail``): called with the exception a failing relation would
    raise, it says whether the test's xfail mark expects it (see `expected_failure`).
    """

    __test__ = False  # not a pytest test class, whatever imports it

    nodeid: str
    settings: Settings
    results: list[dict[str, Any]] = field(default_factory=list)
    expects: Callable[[BaseException], bool] | None = None


_session: ContextVar[SessionState | None] = ContextVar("pytest_fairness_session", default=None)
_test: ContextVar[TestState | None] = ContextVar("pytest_fairness_test", default=None)


def current_session() -> SessionState | None:
    """The running pytest session's state; None outside pytest."""
    return _session.get()


def current_test() -> TestState | None:
    """The running test's state; None outside a test."""
    return _test.get()


def expected_failure(exc: BaseException) -> bool:
    """Whether the running test is marked to expect `exc` (an ``xfail`` the plugin
    evaluated for it); False outside pytest and for unmarked tests.

    A warn-only run still raises a failing relation's violation inside such a test, so
    that a known failure stays an expected failure instead of an unexpected pass.
    """
    test = _test.get()
    return bool(test is not None and test.expects is not None and test.expects(exc))


def current_settings() -> Settings:
    """Settings of the running test, else of the session, else the defaults."""
    test = _test.get()
    if test is not None:
        return test.settings
    session = _session.get()
    return session.settings if session is not None else Settings()


@contextmanager
def session_scope(state: SessionState) -> Iterator[SessionState]:
    """Make `state` the current session's state inside the block (the plugin's)."""
    token = _session.set(state)
    try:
        yield state
    finally:
        _session.reset(token)


@contextmanager
def test_scope(state: TestState) -> Iterator[TestState]:
    """Make `state` the running test's state inside the block (the plugin's)."""
    token = _test.set(state)
    try:
        yield state
    finally:
        _test.reset(token)


def record(result: dict[str, Any]) -> None:
    """Attach a result (plain builtins) to the running test; no-op outside pytest."""
    test = _test.get()
    if test is not None:
        test.results.append(result)
