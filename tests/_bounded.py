"""Time limits for the bad-input tests: every call runs under one, so a hang is a failure
with a message, never a stuck CI job. A plain module at the top of tests/ (the test directories
are no packages), imported by any test that bounds a call and by robustness/conftest.py."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

#: Seconds any single bad-input call may take before it counts as a hang.
LIMIT = 20.0


class Hang(Exception):
    """A call ran past its time limit."""


@contextmanager
def time_limit(seconds: float = LIMIT) -> Iterator[None]:
    """Raise `Hang` in the main thread when the block runs past `seconds` (SIGALRM)."""

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds:g} s: a hang")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def refused(call: Callable[[], object], error: type[BaseException], *names: str) -> str:
    """Run `call` under the time limit; it must raise `error` whose message names every
    one of `names` (the option or input it refuses). Returns the message."""
    with time_limit(), pytest.raises(error) as info:
        call()
    message = str(info.value)
    for name in names:
        assert name in message, f"{name!r} not in the message: {message}"
    return message
