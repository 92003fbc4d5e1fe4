"""Shared test configuration.

`pytester.runpytest()` runs a project in this process and afterwards removes every module
that run imported from `sys.modules`. Some C extensions cannot be loaded twice in one
process: numpy loads `numpy.fft` lazily ("cannot load module more than once per process"
on a second import), and spaCy imports thinc, which imports torch, whose extension fails
with "bad call flags" or crashes the interpreter when initialised again. When the tests
to run include one using `pytester`, these modules are loaded once collection is done,
before any test (and so before any in-process run): they stay out of every run's
snapshot, and collecting imports neither spaCy nor torch.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

pytest_plugins = ["pytester"]

_PRELOADED = ("numpy.fft", "spacy")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if any("pytester" in getattr(item, "fixturenames", ()) for item in items):
        for name in _PRELOADED:
            if importlib.util.find_spec(name.split(".")[0]) is not None:
                importlib.import_module(name)
