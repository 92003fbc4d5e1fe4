"""The package's version, defined once: the package metadata reads it (``pyproject.toml``,
``[tool.setuptools.dynamic]``), and the facade and the reports import it from here."""

__version__ = "0.1.0"
