"""The checks every public argument goes through: one helper per kind of value.

Every public function of every layer validates what it is given here, so a wrong value is
refused the same way everywhere: a `ConfigurationError` naming the option (or input), what
it got, and what it takes. Numbers are checked for type (a bool, a string or a complex
number is not a number), finiteness (NaN and infinities are refused unless the option says
otherwise) and range; integers must be integral (2.5 is refused, never rounded); texts must
be `str`. Pure: no numpy needed by the callers, no pytest.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from .errors import ConfigurationError

__all__ = ["check_bool", "check_int", "check_number", "check_text", "check_texts"]


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_number(
    value: object,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
    below: float | None = None,
    finite: bool = True,
) -> float:
    """`value` as a float: a real number (not a bool, a string or a complex number),
    finite unless `finite=False`, with `minimum <= value <= maximum` and `above < value <
    below` where given; anything else raises `ConfigurationError` naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigurationError(
            f"{name} must be a number, got {type(value).__name__} {_shown(value)}"
            + (f"; pass {name}={value.strip()}" if isinstance(value, str)
               and _parses(value) else "")
        )
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)):
        raise ConfigurationError(f"{name} must be a finite number, got {number!r}")
    if minimum is not None and number < minimum:
        raise ConfigurationError(f"{name} must be >= {minimum:g}, got {_shown(value)}")
    if maximum is not None and number > maximum:
        raise ConfigurationError(f"{name} must be <= {maximum:g}, got {_shown(value)}")
    if above is not None and not number > above:
        raise ConfigurationError(f"{name} must be > {above:g}, got {_shown(value)}")
    if below is not None and not number < below:
        raise ConfigurationError(f"{name} must be < {below:g}, got {_shown(value)}")
    return number


def _parses(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_int(
    value: object, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """`value` as an int: an integer (numpy integers too; not a bool, a float such as 2.5
    or 2.0, or a string), with `minimum <= value <= maximum` where given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        hint = ""
        if isinstance(value, numbers.Real) and math.isfinite(float(value)):
            hint = f"; a count is a whole number, e.g. {name}={math.floor(float(value))}"
        elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            hint = f"; pass {name}={value.strip()}"
        raise ConfigurationError(
            f"{name} must be an integer, got {type(value).__name__} {_shown(value)}{hint}"
        )
    number = int(value)
    if minimum is not None and number < minimum:
        raise ConfigurationError(f"{name} must be >= {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ConfigurationError(f"{name} must be <= {maximum}, got {number}")
    return number


def check_text(value: object, name: str = "text") -> str:
    """`value` when it is a `str` (bytes and None are refused, with the fix)."""
    if isinstance(value, str):
        return value
    fix = "; decode it first, e.g. text.decode('utf-8')" if isinstance(
        value, (bytes, bytearray)) else ""
    raise ConfigurationError(f"{name} must be a str, got {type(value).__name__} "
                             f"{_shown(value)}{fix}")


def check_texts(texts: object, what: str = "texts") -> list[str]:
    """`texts` as a list of str, the one check every layer applies to the texts it is
    given: a single string or a non-text item raises `ConfigurationError` saying the fix."""
    if isinstance(texts, str):
        raise ConfigurationError(
            f"{what} must be a list of texts, not one string (a single string is one text); "
            f"wrap it: [{texts!r:.60}]"
        )
    if isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Iterable):
        raise ConfigurationError(
            f"{what} must be a list of texts, got {type(texts).__name__} {_shown(texts)}"
        )
    out: list[Any] = list(texts)
    if set(map(type, out)) <= {str}:  # the common case, at C speed
        return out
    for i, text in enumerate(out):
        if not isinstance(text, str):
            fix = " (decode bytes first)" if isinstance(text, (bytes, bytearray)) else ""
            raise ConfigurationError(
                f"{what} must be strings; item {i} is {type(text).__name__} {text!r:.60}{fix}"
            )
    return out


def check_bool(value: object, name: str) -> bool:
    """`value` when it is True or False; anything else (1, "false", None) raises
    `ConfigurationError` naming `name` (a string such as "false" would read as true)."""
    if isinstance(value, bool):
        return value
    raise ConfigurationError(f"{name} must be True or False, got {type(value).__name__} "
                             f"{_shown(value)}")
