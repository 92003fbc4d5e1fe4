"""Read the fenced code blocks of the README and the docs site, with their markers.

A block's marker is an HTML comment above its fence (blank lines and other HTML comments
between are allowed), invisible on the rendered page:

    <!-- snippet: file=test_quickstart.py exit=1 expect="ScoreSens" -->

Keys: ``file=NAME`` writes the block under that name in the page's folder and runs
nothing (the page's next blocks run or import it: a test file, a ``conftest.py``;
``mode=append`` adds the block to that file instead); a
Python block without it runs, under pytest when it defines tests; ``exit=N`` is
the exit status the block must end with (default 0); ``expect=TEXT`` (repeatable) must
appear in its output; ``skip=REASON`` does not run it, and the suite shows the reason.

A page says where its blocks run with ``<!-- snippets: cwd=repo -->`` (the repository
root: files are still written to a fresh folder, and run from the root) or
``cwd=tmp`` (the default: a fresh empty folder, shared by the page's blocks in order).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Languages that are code a reader runs or pastes; everything else must say `text`.
RUN = {"python", "bash", "sh", "shell", "console"}
PARSE = {"ini", "toml", "yaml"}
INERT = {"text"}

_MARKER = re.compile(r"<!--\s*snippet:(.*?)-->")
_PAGE = re.compile(r"<!--\s*snippets:(.*?)-->")


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    options: dict[str, list[str]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def opt(self, key: str, default: str | None = None) -> str | None:
        values = self.options.get(key)
        return values[-1] if values else default


def _parse_options(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for token in shlex.split(text):
        key, _, value = token.partition("=")
        out.setdefault(key, []).append(value)
    return out


def pages() -> list[Path]:
    """The README and every page of the docs site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_options(path: Path) -> dict[str, list[str]]:
    match = _PAGE.search(path.read_text(encoding="utf-8"))
    return _parse_options(match.group(1)) if match else {}


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one page, in order, with their markers."""
    lines = path.read_text(encoding="utf-8").split("\n")
    rel = path.relative_to(ROOT).as_posix()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            indent = len(line) - len(stripped)
            lang = stripped[3:].strip().split(" ")[0]
            start = i
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
                i += 1
            j = start - 1
            marker = None
            # Walk up past blank lines and other HTML comments (the README's
            # test-command markers sit between a block and its snippet marker).
            while j >= 0 and (not lines[j].strip() or lines[j].strip().startswith("<!--")):
                marker = marker or _MARKER.search(lines[j])
                if marker:
                    break
                j -= 1
            options = _parse_options(marker.group(1)) if marker else {}
            found.append(Block(rel, start + 1, lang, "\n".join(body) + "\n", options))
        i += 1
    return found


def all_blocks() -> list[Block]:
    return [b for p in pages() for b in blocks(p)]
