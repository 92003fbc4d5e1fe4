"""Text made safe to print: the one escaping every message and report line goes through.

Pure standard library, importable from every layer: the models put a model's own error
text into `ModelCallError`, the checks put relation names into their messages, and the
report prints corpus text; each passes it through `printable` first.
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable", "unsafe"]

#: Categories a terminal acts on instead of showing, or shows as nothing: control
#: characters (C0, DEL, C1: ESC, BEL, NUL, backspace, CSI, ...), lone surrogates
#: (unencodable), line and paragraph separators, and format characters (Cf: the
#: bidirectional overrides and isolates that reorder text, the zero-width space, the
#: byte-order mark, the soft hyphen, ...), which can hide or reorder text.
_UNSAFE_CATEGORIES = frozenset(("Cc", "Cs", "Zl", "Zp", "Cf"))
#: Format characters that are part of how a script or an emoji is written (the
#: zero-width joiner and non-joiner): kept.
_KEPT = frozenset("\u200c\u200d")


def unsafe(ch: str) -> bool:
    """Whether the character `ch` must not reach a terminal or a report file as it is
    (`printable`, `pytest_fairness.report.values.file_escaped`)."""
    return ch not in _KEPT and unicodedata.category(ch) in _UNSAFE_CATEGORIES


def _escaped(ch: str) -> str:
    return repr(ch)[1:-1] if unsafe(ch) else ch


def printable(text: str) -> str:
    """`text` with every character a terminal would act on instead of showing -- control
    characters (ESC, BEL, NUL, backspace, carriage return, DEL, the C1 range), lone
    surrogates, line and paragraph separators, bidirectional overrides and isolates,
    invisible format characters (zero-width space, byte-order mark) -- shown as a visible
    escape, as `repr` writes it (``\\x1b``, ``\\u202e``); every other character is kept.
    Every line the package prints from recorded or user data goes through it: failure
    messages, warnings, the fairness summary, the report CLI. (The HTML page escapes for
    HTML instead.) Idempotent: an escape is printable."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(_escaped(ch) for ch in text)
