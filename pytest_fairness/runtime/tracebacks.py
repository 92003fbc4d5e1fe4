"""Keep pytest-fairness's own frames out of the tracebacks of errors it raises on purpose.

A `FairnessError` (`ConfigurationError`, `MissingDependencyError`, ...) carries a message
that says the problem and the fix; the frames of the functions that found the problem say
nothing more to the person who called an ``assert_*`` function, and pytest prints the whole
source of the last one. pytest skips a frame whose locals or module globals hold a true
``__tracebackhide__``, and when that value is callable it asks it, with the exception
(pytest's ``ExceptionInfo``). So a module that sets

    __tracebackhide__ = hide_on_fairness_error

at module level keeps its frames out of the traceback of a `FairnessError`, and shows them
as usual for anything else (a bug is still traced to its line). ``pytest --full-trace``
shows every frame. Nothing here imports pytest.
"""

from __future__ import annotations

from ..errors import FairnessError

__all__ = ["hide_on_fairness_error"]


def hide_on_fairness_error(excinfo: object) -> bool:
    """Whether pytest should hide the frame: True when the exception it is tracing (the
    ``value`` of pytest's ``ExceptionInfo``) is a `FairnessError`, an error raised on
    purpose with a message that says the fix."""
    return isinstance(getattr(excinfo, "value", None), FairnessError)
