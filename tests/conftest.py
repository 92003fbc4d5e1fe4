"""Shared test configuration.

`pytester.runpytest()` runs a project in this process and afterwards removes every module
that run imported from `sys.modules`. numpy loads `numpy.fft` lazily, and its C extension
cannot be loaded twice in one process: if the first `numpy.fft` import happened inside such
a run (scipy imports it), the next import fails with "cannot load module more than once
per process". Loading it here, before any in-process run, keeps it out of their snapshots.
"""

import numpy.fft  # noqa: F401

pytest_plugins = ["pytester"]
