"""What a benchmark does with its figures at the end: written as JSON where `--json`
names a file, and returned (for `run.py`)."""

from __future__ import annotations

import json
from typing import Any


def save(path: str | None, figures: dict[str, Any]) -> dict[str, Any]:
    """Write `figures` to `path` as indented JSON when a path is given; `figures`."""
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return figures
