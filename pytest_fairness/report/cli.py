"""`python -m pytest_fairness.report DIR [--html out.html]`: the summary again.

Rebuilds the terminal summary (and the HTML page) from a saved `fairness.json` (or the
report directory that holds it) without rerunning the model. The file is read safely
(`report.validate`): what is not a regular file, too large, not UTF-8 JSON, nested too
deep or not laid out as a `fairness.json` is refused with a message naming the problem
(and its JSON path) and the fix, never a traceback or a hang.

Exit status: 0 the summary was printed (and the page written); 2 the command line is wrong,
or the input cannot be read or is not a `fairness.json` (`EXIT_INPUT`); 3 the HTML page
cannot be written (`EXIT_OUTPUT`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from .jsondoc import JSON_NAME, from_json_doc
from .text import render_text
from .validate import MAX_BYTES, read_report
from .values import now, printable

__all__ = ["EXIT_INPUT", "EXIT_OUTPUT", "main", "report_file"]

#: Exit status when the command line is wrong or the input cannot be used.
EXIT_INPUT = 2
#: Exit status when the HTML page cannot be written.
EXIT_OUTPUT = 3


def report_file(path: Path) -> Path:
    """The `fairness.json` that `path` names: the file itself, or `path/fairness.json`
    when `path` is a report directory (what `--fairness-report=DIR` wrote). Raises
    `FileNotFoundError` saying what was looked for when a directory holds none."""
    if path.is_dir():
        found = path / JSON_NAME
        if not found.exists() and not found.is_symlink():
            raise FileNotFoundError(
                f"{path} is a directory without {JSON_NAME}: pass the directory given to "
                f"--fairness-report=DIR, or the {JSON_NAME} file itself")
        return found
    return path


def _html_target(path: Path) -> str | None:
    """Why the HTML page cannot be written to `path` (None when it can be tried): its
    folder must exist, and the path must be a regular file or not exist yet."""
    shown = printable(str(path))
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        parent = path.parent
        if not parent.is_dir():
            what = "does not exist" if not parent.exists() else "is not a directory"
            return (f"--html {shown}: its folder {printable(str(parent))} {what}; create the "
                    "folder first, or pass a path in an existing one")
        return None
    except OSError as exc:
        return f"--html {shown} cannot be used ({printable(exc.strerror or str(exc))})"
    if stat.S_ISDIR(info.st_mode):
        return (f"--html {shown} is a directory; pass a file path, e.g. "
                f"{printable(str(path / 'fairness.html'))}")
    if not stat.S_ISREG(info.st_mode):
        return (f"--html {shown} is not a regular file (a FIFO or a device); pass a file "
                "path")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pytest_fairness.report DIR`: print the summary again.

    DIR is a report directory (`--fairness-report=DIR`; its `fairness.json` is read) or a
    `fairness.json` file. `--html OUT` writes the HTML page; `-v`/`-q` set the verbosity;
    `--width N`; `--max-mb N` the largest input read (256). Returns the exit status (module
    docstring): 0, `EXIT_INPUT` (2) when the input cannot be used, `EXIT_OUTPUT` (3) when
    the page cannot be written; the reason goes to stderr. What it prints is `printable`
    (control characters of the data, or of a path, as escapes).
    """
    import argparse
    import shutil
    import sys
    import warnings

    parser = argparse.ArgumentParser(
        prog="python -m pytest_fairness.report",
        description="Rebuild the fairness summary (and HTML page) from a report directory "
        "or its fairness.json file.",
        epilog=f"exit status: 0 done; {EXIT_INPUT} wrong arguments, or the input cannot be "
        f"read or is not a fairness.json; {EXIT_OUTPUT} the HTML page cannot be written",
    )
    parser.add_argument("json", type=Path, metavar="DIR_OR_JSON",
                        help="a report directory written by --fairness-report=DIR, or the "
                        "fairness.json in it")
    parser.add_argument("--html", type=Path, help="write the HTML page to this file")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("-q", "--quiet", action="count", default=0)
    parser.add_argument("--width", type=int, default=shutil.get_terminal_size().columns)
    parser.add_argument("--max-mb", type=float, default=MAX_BYTES / 2**20,
                        help="largest input file read, in MiB (default %(default)g)")
    args = parser.parse_args(argv)
    if args.width < 20:
        parser.error(f"--width must be at least 20 columns, got {args.width}")
    if args.width > 10_000:
        parser.error(f"--width must be at most 10000 columns, got {args.width}")
    if not 0 < args.max_mb <= 2**20:
        parser.error(f"--max-mb must be a positive number of MiB, got {args.max_mb}")
    if args.html is not None:
        problem = _html_target(args.html)
        if problem is not None:
            print(f"error: {problem}", file=sys.stderr)
            return EXIT_OUTPUT
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            doc = read_report(report_file(args.json), max_bytes=int(args.max_mb * 2**20))
            summary = from_json_doc(doc)
        except (OSError, ValueError) as exc:  # ReportFileError is a ValueError
            print(f"error: {printable(str(exc))}", file=sys.stderr)
            return EXIT_INPUT
        lines = render_text(summary, width=args.width, verbosity=args.verbose - args.quiet,
                            color=sys.stdout.isatty())
    for warning in caught:  # e.g. a report section this version cannot read, left out
        print(f"warning: {printable(str(warning.message))}", file=sys.stderr)
    if not lines:  # the run recorded no fairness result: say so rather than print nothing
        lines = [f"fairness: no test recorded a fairness result in "
                 f"{printable(str(report_file(args.json)))}"]
    for line in lines:
        print(line)
    if args.html:
        from .html import render_html

        try:
            args.html.write_text(render_html(summary, created=now()), encoding="utf-8")
        except OSError as exc:
            print(f"error: --html {printable(str(args.html))} could not be written "
                  f"({printable(exc.strerror or str(exc))}); the summary above is complete",
                  file=sys.stderr)
            return EXIT_OUTPUT
    return 0

