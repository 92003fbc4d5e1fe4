"""`python -m pytest_fairness.report fairness.json [--html out.html]`: the summary again.

Rebuilds the terminal summary (and the HTML page) from a saved `fairness.json` without
rerunning the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .jsondoc import load_json
from .text import render_text
from .values import now

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pytest_fairness.report fairness.json`: print the summary again.

    `--html OUT` writes the HTML page; `-v`/`-q` set the verbosity; `--width N`. Returns
    the exit status: 0, or 2 when the file cannot be read.
    """
    import argparse
    import shutil
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m pytest_fairness.report",
        description="Rebuild the fairness summary (and HTML page) from a fairness.json file.",
    )
    parser.add_argument("json", type=Path, help="a fairness.json written by --fairness-report")
    parser.add_argument("--html", type=Path, help="write the HTML page to this file")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("-q", "--quiet", action="count", default=0)
    parser.add_argument("--width", type=int, default=shutil.get_terminal_size().columns)
    args = parser.parse_args(argv)
    try:
        summary = load_json(args.json)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in render_text(summary, width=args.width, verbosity=args.verbose - args.quiet,
                            color=sys.stdout.isatty()):
        print(line)
    if args.html:
        from .html import render_html

        args.html.write_text(render_html(summary, created=now()), encoding="utf-8")
    return 0
