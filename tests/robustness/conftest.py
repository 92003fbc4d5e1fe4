"""The bad-input tests' fixture; the time-limit helpers live in `tests/_bounded.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from _bounded import time_limit

T = TypeVar("T")


@pytest.fixture
def bounded() -> Callable[..., Any]:
    """`bounded(fn, *args)`: `fn(*args)` under the time limit."""

    def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with time_limit():
            return fn(*args, **kwargs)

    return run
