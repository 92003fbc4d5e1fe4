"""`python -m pytest_fairness.report fairness.json [--html out.html]` (see `cli.main`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":  # pragma: no branch
    raise SystemExit(main())
