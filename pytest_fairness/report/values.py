"""Plain values for the report: builtins for JSON, numbers read leniently, formatting.

Pure: no pytest, no numpy (numpy values are converted duck-typed, through `.tolist()`).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "OPS",
    "Op",
    "Status",
    "fmt",
    "fmt_exact",
    "holds",
    "integer",
    "lower_is_better",
    "now",
    "number",
    "printable",
    "surrogates_escaped",
    "terminal_line",
    "to_builtin",
    "worse",
]

Status = Literal["PASS", "FAIL", "WARN", "XFAIL"]
Op = Literal["<=", ">=", "<", ">"]
OPS: tuple[str, ...] = ("<=", ">=", "<", ">")


def to_builtin(value: Any) -> Any:
    """`value` as plain JSON-able builtins, for xdist transport and the JSON report.

    numpy scalars and arrays become Python numbers and lists (duck-typed through
    `.tolist()`, so numpy is not imported here), tuples and sets become lists, mapping
    keys become strings, NaN and infinities become None, objects with a `to_dict()` (report
    sections, results) their dict, paths and other objects their string form.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): to_builtin(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtin(v) for v in value]
    if isinstance(value, set | frozenset):
        return [to_builtin(v) for v in sorted(value, key=repr)]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy scalar or array
        return to_builtin(tolist())
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_builtin(to_dict())
    if isinstance(value, Path):
        return str(value)
    return str(value)


def number(value: Any) -> float | None:
    """`value` as a finite float, or None (missing, not a number, NaN, infinite, a bool)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def integer(value: Any, default: int = 0) -> int:
    """`value` as an int (floats truncated), or `default` when it is not a number."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    out = number(value)
    return default if out is None else int(out)


def holds(value: float | None, op: str, bound: float | None) -> bool:
    """Does `value <op> bound` hold? No bound: yes; no value (but a bound): no."""
    if bound is None:
        return True
    if value is None:
        return False
    return {
        "<=": value <= bound,
        ">=": value >= bound,
        "<": value < bound,
        ">": value > bound,
    }[op]


def lower_is_better(op: str) -> bool:
    """A metric bounded with `<=`/`<` gets better as it goes down."""
    return op in ("<=", "<")


def worse(a: float, b: float, op: str) -> bool:
    """Is `a` worse than `b` for a metric whose bound is `value <op> bound`?"""
    return a > b if lower_is_better(op) else a < b


def fmt(value: float | None) -> str:
    """A metric value for people: 4 significant digits, 'n/a' for a missing value."""
    if value is None:
        return "n/a"
    if value == 0:
        return "0"
    return f"{value:.4g}"


def fmt_exact(value: float | None) -> str:
    """A metric value for machines: repr of the float, '' when missing."""
    return "" if value is None else repr(float(value))


def now() -> str:
    """The current UTC time, ISO 8601 to the second ('2024-01-01T00:00:00Z')."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z"
    )


# ---------------------------------------------------------------------------------------
# Terminal safety: the one helper everything printed goes through
# ---------------------------------------------------------------------------------------

#: Characters that reorder the text around them on a terminal (Unicode Bidi_Control):
#: shown as escapes like control characters.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069")
#: Categories a terminal acts on instead of showing: control characters (C0, DEL, C1:
#: ESC, BEL, NUL, backspace, CSI, ...), lone surrogates (unencodable), line and
#: paragraph separators.
_UNSAFE_CATEGORIES = frozenset(("Cc", "Cs", "Zl", "Zp"))
#: The colour sequences (SGR, ``ESC[...m``) the text summary adds itself.
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _escaped(ch: str) -> str:
    if ch in _BIDI_CONTROLS or unicodedata.category(ch) in _UNSAFE_CATEGORIES:
        return repr(ch)[1:-1]
    return ch


def printable(text: str) -> str:
    """`text` with every character a terminal would act on instead of showing -- control
    characters (ESC, BEL, NUL, backspace, carriage return, DEL, the C1 range), lone
    surrogates, line and paragraph separators, bidirectional overrides and isolates --
    shown as a visible escape, as `repr` writes it (``\\x1b``, ``\\u202e``); every
    other character is kept. Every line the package prints from recorded or user data goes
    through it: failure messages, warnings, the fairness summary, the report CLI. (The HTML
    page escapes for HTML instead.) Idempotent: an escape is printable."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(_escaped(ch) for ch in text)


def terminal_line(line: str, *, color: bool = False) -> str:
    """`line` made safe for a terminal: `printable`, keeping the colour sequences (SGR,
    ``ESC[...m``) when `color` -- the summary's own; a sequence that does anything else
    (clear the screen, move the cursor, set the window title) is escaped."""
    if not color:
        return printable(line)
    pieces = _SGR.split(line)
    codes = _SGR.findall(line)
    out = [printable(pieces[0])]
    for code, piece in zip(codes, pieces[1:], strict=True):
        out += [code, printable(piece)]
    return "".join(out)


#: A lone surrogate: a code point UTF-8 cannot encode (from text decoded with
#: ``errors="surrogateescape"``, or built by hand).
_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogates_escaped(text: str) -> str:
    """`text` with each lone surrogate written as its escape (``\\ud800``), so a file
    can be written as UTF-8: in JSON the escape reads back as the same code point; in HTML
    it shows as the escape. Every other character is kept."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
