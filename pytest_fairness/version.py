"""The package's version, defined once: the package metadata reads it (``pyproject.toml``,
``[tool.setuptools.dynamic]``), the facade re-exports it as `pytest_fairness.__version__`,
and the report formats stamp it on what they write (so `report/` needs no import of the
facade above it)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
