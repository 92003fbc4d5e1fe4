"""Recording a relation's result inside a test, away from the session's fairness summary:
the check tests fail relations on purpose. Import `capture` and the fixture
`keep_out_of_the_session_report`, and use it (`pytestmark = pytest.mark.usefixtures(...)`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pytest_fairness import context as recording
from pytest_fairness.settings import Settings

CAPTURED = "captured-by-test"


@contextmanager
def capture(**settings: Any) -> Iterator[recording.TestState]:
    """Record into a test state of our own (inside the test body: the plugin opens its
    own scope around each test call)."""
    with recording.test_scope(recording.TestState(CAPTURED, Settings(**settings))) as s:
        yield s


@pytest.fixture
def keep_out_of_the_session_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record only into `capture()` states, not into the fairness summary of the session
    running these tests."""
    real = recording.record

    def record(result: dict[str, Any]) -> None:
        test = recording.current_test()
        if test is not None and test.nodeid == CAPTURED:
            real(result)

    monkeypatch.setattr(recording, "record", record)
