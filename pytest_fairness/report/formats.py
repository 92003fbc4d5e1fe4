"""Report formats behind a registry: a format is a name and a writer.

A writer is `write(summary, directory, *, created) -> Path`: it writes one file for the
run's `Summary` into `directory` (which exists) and returns its path; `created` is the run's
UTC time (ISO 8601), the same for every format. Built in: "json" (`fairness.json`) and
"html" (`fairness.html`). A new format is one function and one registration, in a
``conftest.py``::

    from pytest_fairness.report import register_format

    def write_markdown(summary, directory, *, created):
        path = directory / "fairness.md"
        path.write_text(...)
        return path

    register_format("markdown", write_markdown)

or, from another package, an entry point in the group ``pytest_fairness.reports``
(loaded on first use). Pure: no pytest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, cast

from ..errors import ConfigurationError
from ..registry import ENTRY_POINT_GROUPS, Registry, Signature
from ..runtime.printable import printable
from .jsondoc import write_json
from .summary import Summary
from .values import now

__all__ = ["FORMATS", "HTML_NAME", "ReportWriter", "register_format", "write_html",
           "write_reports"]

#: The file name `write_html` writes in a report directory.
HTML_NAME = "fairness.html"


class ReportWriter(Protocol):
    """Writes one report file for a run into a directory and returns its path."""

    def __call__(self, summary: Summary, directory: Path, *, created: str) -> Path: ...


def write_html(summary: Summary, directory: Path, *, created: str) -> Path:
    """Write `fairness.html` into `directory` (the "html" report format; figures need
    matplotlib, else the page says how to get them)."""
    from .html import render_html

    path = Path(directory) / HTML_NAME
    path.write_text(render_html(summary, created=created), encoding="utf-8")
    return path


def _coerce(name: str, entry: object) -> ReportWriter:
    if not callable(entry):
        raise ConfigurationError(
            f"the report format {name!r} must be a writer function "
            f"write(summary, directory, *, created) -> Path, got {type(entry).__name__}"
        )
    return cast(ReportWriter, entry)


def _builtins(registry: Registry[ReportWriter]) -> None:
    registry.register("json", write_json, origin="builtin")
    registry.register("html", write_html, origin="builtin")


#: The registered report formats, by name: the built-ins, then users' and entry points'.
FORMATS: Registry[ReportWriter] = Registry(
    "report format",
    ENTRY_POINT_GROUPS["report format"],
    coerce=_coerce,
    builtins=_builtins,
    hint="pytest_fairness.report.register_format(name, writer)",
    protocol={"__call__": Signature(2, ("created",),
                                    shown="write(summary, directory, *, created) -> Path")},
)


def register_format(name: str, writer: ReportWriter, *, replace: bool = False) -> ReportWriter:
    """Register `writer` as the report format `name` (see the module docstring).

    A name already taken raises `ConfigurationError` unless `replace=True`; a writer that
    cannot be called as ``write(summary, directory, *, created)`` raises `ExtensionError`
    here, and one that raises when the reports are written, `ExtensionError` naming the
    format and where it was registered (its own exception chained).
    """
    return FORMATS.register(name, writer, replace=replace)


def write_reports(
    directory: Path,
    summary: Summary,
    *,
    created: str | None = None,
    formats: Iterable[str] | None = None,
) -> list[Path]:
    """Write the run's reports into `directory` (created) and return their paths.

    `formats` names the formats to write, in order; by default every registered one: the
    built-in "json" and "html", then those registered by users and by installed packages.
    An unknown name raises `ConfigurationError` before any file is written.
    """
    if formats is None:
        names: tuple[str, ...] = FORMATS.names()
    else:
        names = tuple(dict.fromkeys([formats] if isinstance(formats, str) else formats))
    writers = [(name, FORMATS.get(name)) for name in names]
    if not writers:
        return []
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    created = created or now()
    paths: list[Path] = []
    for _name, writer in writers:
        with FORMATS.guard(writer, "__call__"):
            path: object = writer(summary, directory, created=created)
        if not isinstance(path, str | os.PathLike):
            raise ConfigurationError(
                f"{FORMATS.label(writer)} returned {printable(repr(path)):.80}; a writer "
                "returns the path of the file it wrote"
            )
        paths.append(Path(path))
    return paths
