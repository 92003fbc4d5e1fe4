"""`python -m pytest_fairness.report DIR [--html out.html]`: the summary again.

Rebuilds the terminal summary (and the HTML page) from a saved `fairness.json` (or the
report directory that holds it) without rerunning the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .jsondoc import JSON_NAME, load_json
from .text import render_text
from .values import now, printable

__all__ = ["main", "report_file"]


def report_file(path: Path) -> Path:
    """The `fairness.json` that `path` names: the file itself, or `path/fairness.json`
    when `path` is a report directory (what `--fairness-report=DIR` wrote). Raises
    `FileNotFoundError` saying what was looked for when a directory holds none."""
    if path.is_dir():
        found = path / JSON_NAME
        if not found.is_file():
            raise FileNotFoundError(
                f"{path} is a directory without {JSON_NAME}: pass the directory given to "
                f"--fairness-report=DIR, or the {JSON_NAME} file itself")
        return found
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pytest_fairness.report DIR`: print the summary again.

    DIR is a report directory (`--fairness-report=DIR`; its `fairness.json` is read) or a
    `fairness.json` file. `--html OUT` writes the HTML page; `-v`/`-q` set the verbosity;
    `--width N`. Returns the exit status: 0, or 2 when the file cannot be read. What it
    prints is `printable` (control characters of the data, or of a path, as escapes).
    """
    import argparse
    import shutil
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m pytest_fairness.report",
        description="Rebuild the fairness summary (and HTML page) from a report directory "
        "or its fairness.json file.",
    )
    parser.add_argument("json", type=Path, metavar="DIR_OR_JSON",
                        help="a report directory written by --fairness-report=DIR, or the "
                        "fairness.json in it")
    parser.add_argument("--html", type=Path, help="write the HTML page to this file")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("-q", "--quiet", action="count", default=0)
    parser.add_argument("--width", type=int, default=shutil.get_terminal_size().columns)
    args = parser.parse_args(argv)
    if args.width < 20:
        parser.error(f"--width must be at least 20 columns, got {args.width}")
    try:
        summary = load_json(report_file(args.json))
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return 2
    for line in render_text(summary, width=args.width, verbosity=args.verbose - args.quiet,
                            color=sys.stdout.isatty()):
        print(line)
    if args.html:
        from .html import render_html

        args.html.write_text(render_html(summary, created=now()), encoding="utf-8")
    return 0
