"""Shared test configuration.

`pytester.runpytest()` runs a project in this process and afterwards removes every module
that run imported from `sys.modules`. Some C extensions cannot be loaded twice in one
process: numpy loads `numpy.fft` lazily ("cannot load module more than once per process"
on a second import), and spaCy imports thinc, which imports torch, whose extension fails
with "bad call flags" or crashes the interpreter when initialised again. The `pytester`
fixture below loads them before the first in-process run of a worker, so they stay out of
every run's snapshot; collection itself imports neither spaCy nor torch.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

pytest_plugins = ["pytester"]

_PRELOADED = ("numpy.fft", "spacy")


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytest's `pytester`, with the modules an in-process run must not unload loaded."""
    for name in _PRELOADED:
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)
    return pytester
