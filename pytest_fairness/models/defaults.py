"""The run's defaults as the model layer sees them: the one place models/ reads the context.

An adapter's own options (`as_model(batch_size=..., threshold=...)`) win; what it was not
given comes from the running test's settings (`--fairness-batch-size`, the `fairness`
marker, ...), else the session's, else `Settings()`. Outside pytest these are the defaults,
so every adapter works the same in a notebook. Read at call time, never at construction:
one adapter may serve tests with different settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .. import context
from ..settings import Settings

__all__ = ["run_settings", "session_cache"]

C = TypeVar("C")


def run_settings() -> Settings:
    """The settings of the running test, else of the session, else the defaults (batch
    size, cache size and directory, `no_cache`, threshold, seed)."""
    return context.current_settings()


def session_cache(underlying: object, make: Callable[[], C]) -> C | None:
    """The session's prediction cache of the model object `underlying` (made by `make()`
    on first use and shared by every adapter over that object), or None outside a pytest
    session."""
    session = context.current_session()
    if session is None:
        return None
    cache: C = session.cache_for(underlying, make)
    return cache
