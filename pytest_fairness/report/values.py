"""Plain values for the report: builtins for JSON, numbers read leniently, formatting.

Pure: no pytest, no numpy (numpy values are converted duck-typed, through `.tolist()`).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ..runtime.printable import printable, unsafe

__all__ = [
    "OPS",
    "Op",
    "Status",
    "file_escaped",
    "fmt",
    "fmt_exact",
    "holds",
    "integer",
    "lower_is_better",
    "now",
    "number",
    "printable",
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

#: The colour sequences (SGR, ``ESC[...m``) the text summary adds itself.
_SGR = re.compile(r"\x1b\[[0-9;]*m")


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


#: Every character but tab, newline, carriage return and printable ASCII: the candidates
#: `file_escaped` asks `runtime.printable.unsafe` about.
_NOT_PLAIN = re.compile("[^\t\n\r\x20-\x7e]")


def _file_escape(match: re.Match[str]) -> str:
    ch = match.group()
    if not unsafe(ch):
        return ch
    code = ord(ch)
    if code > 0xFFFF:  # JSON's escape of a code point beyond the BMP: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def file_escaped(text: str) -> str:
    """`text` with each character a terminal would act on (`runtime.printable.unsafe`:
    controls, lone surrogates, format and bidirectional characters; not tab, newline or
    carriage return) written as its escape (``\\ud800``, ``\\u001b``), so a report
    file can be written as UTF-8 and printed safely: in JSON (whose strings are the only
    place such characters occur) the escape reads back as the same code point; in HTML
    it shows as the escape."""
    return _NOT_PLAIN.sub(_file_escape, text)
