"""Keep pytest-fairness's own frames out of the tracebacks of errors it raises on purpose.

A `FairnessError` (`ConfigurationError`, `MissingDependencyError`, ...) carries a message
that says the problem and the fix; the frames of the package's functions that found the
problem say nothing more to the person who called it, and pytest would print the whole
source of the last one. So for such an error the traceback keeps only the frames outside
the package (the test's own call, its fixtures): the message appears once, under the
user's line. Anything else (a bug) keeps every frame, and ``pytest --full-trace`` shows
every frame of everything.

A frame of code with no file of its own (``<string>``: the ``__init__`` that
`dataclasses` generates for the package's option classes, whose arguments pytest would
print as a ``self = ModelOptions(...)`` dump) belongs to the side of its caller: called
from the package, it is the package's and is hidden too.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from types import TracebackType

import pytest
from _pytest._code.code import Traceback

from ..errors import FairnessError

__all__ = ["hide_package_frames"]

_PACKAGE = str(Path(__file__).resolve().parent.parent)


def _synthetic(frame_file: str) -> bool:
    """Code compiled from a string (``<string>``, ``<dataclass ...>``): no file to show."""
    return frame_file.startswith("<") and frame_file.endswith(">")


def _outside_package(frame_file: str) -> bool:
    try:
        return not str(Path(frame_file).resolve()).startswith(_PACKAGE)
    except (OSError, ValueError):
        return True


def hide_package_frames(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Drop the package's frames from the traceback of a `FairnessError` (unless
    ``--full-trace``): the raw traceback is relinked around them, so every view of it
    (pytest's cut to the test function, the report's sections) shows only the frames
    outside the package. Left whole when its first frame is the package's own."""
    if not isinstance(excinfo.value, FairnessError) or item.config.getoption("fulltrace"):
        return
    kept: list[TracebackType] = []
    current: TracebackType | None = excinfo.tb
    outside = True  # the side of the caller, for a frame without a file
    while current is not None:
        filename = current.tb_frame.f_code.co_filename
        if not _synthetic(filename):
            outside = _outside_package(filename)
        if outside:
            kept.append(current)
        current = current.tb_next
    if not kept or kept[0] is not excinfo.tb or len(kept) == len(Traceback(excinfo.tb)):
        return
    for before, after in itertools.pairwise(kept):
        before.tb_next = after
    kept[-1].tb_next = None
    excinfo.traceback = Traceback(excinfo.tb)
