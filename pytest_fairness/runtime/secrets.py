"""Secrets as a type: a credential (an API key) held in an object that never shows it.

A pytest failure prints the arguments of the frames of its traceback (``--tb=long``, and at
the default for the first and last frame), ``-l`` prints every local variable, and JUnit
files and CI logs keep both. A key passed around as a ``str`` is printed there. So the key
lives in a `Secret`: its ``repr``, ``str`` and ``format`` are masked (``Secret($NAME=***)``),
it cannot be pickled (so it reaches no cache or worker process), and the raw value is taken
out with `Secret.reveal()` only at the last moment, inside an expression that puts it on
the wire (the client's bearer ``auth``), never into a variable.

Text that may echo a key (a server's error body, an exception's text, a server's log) goes
through `scrub` before it is cut or shown: every piece of a known secret at least
`MIN_ECHO` characters long is masked, in any letter case, raw or percent-encoded.

`looks_secret(name, value)` is the rule that keeps credentials out of a child process's
environment (`models.llm.local_server`): a variable whose name holds KEY, TOKEN, SECRET,
PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, AUTH, COOKIE or PRIVATE (any case), or whose
value is a URL with a password (``scheme://user:pass@host``).

Pure standard library, importable from every layer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping

from ..errors import ConfigurationError

__all__ = ["MIN_ECHO", "Environment", "Secret", "looks_secret", "scrub", "secret_values"]

#: The shortest piece of a secret that `scrub` masks: any run of this many characters of
#: the secret (a secret shorter than this is masked whole).
MIN_ECHO = 8
#: What a masked piece of text reads as.
MASK = "***"

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|PRIVATE",
    re.IGNORECASE)
_URL_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*:[^/@\s]*@", re.IGNORECASE)
_HEX = frozenset("0123456789abcdefABCDEF")


class Secret:
    """A credential that no ``repr``, ``str``, f-string, pickle or traceback shows.

    `name` says where it came from (the environment variable) and is the only thing shown:
    ``Secret(OPENAI_API_KEY=***)``. `reveal()` returns the value (for the one expression
    that sends it); `scrub(text)` masks its echoes in `text` (see `scrub`)."""

    __slots__ = ("_value", "name")

    def __init__(self, value: str, name: str = "secret") -> None:
        if not isinstance(value, str) or not value:
            raise ConfigurationError(
                f"a secret must be a non-empty string, got {type(value).__name__}; pass the "
                "credential's text")
        self._value = value
        self.name = str(name)

    @classmethod
    def from_env(cls, variable: str, environ: Mapping[str, str] | None = None) -> Secret | None:
        """The secret held by the environment variable `variable` (None when it is unset
        or empty)."""
        found = (os.environ if environ is None else environ).get(variable)
        return cls(found, variable) if found else None

    def reveal(self) -> str:
        """The raw value. Use it inside the expression that sends it (a header), never
        store it in a variable, an attribute or a message."""
        return self._value

    def is_token(self) -> bool:
        """Whether the value can go into an HTTP header as it is (visible ASCII, no
        space), which the check of a key says without showing it."""
        return all("!" <= ch <= "~" for ch in self._value)

    def scrub(self, text: str) -> str:
        """`text` with every echo of this secret masked (`scrub`)."""
        return scrub(text, (self._value,))

    def __repr__(self) -> str:
        return f"Secret({self.name}={MASK})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __reduce_ex__(self, protocol: object) -> tuple[object, ...]:
        raise TypeError(f"{self!r} is never pickled: a secret is read from its environment "
                        "variable where it is used, not stored or sent to another process")


class Environment(Mapping[str, str]):
    """A read-only view of an environment (a process's variables) whose ``repr`` shows
    how many variables it has, never their values: what a function holding a whole
    environment keeps in its arguments or locals, so that a traceback printing them
    (``pytest --full-trace -l``) shows no credential among them."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, str]) -> None:
        self._data = data

    def __getitem__(self, name: str) -> str:
        return self._data[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Environment({len(self._data)} variables, values not shown)"

    __str__ = __repr__


def looks_secret(name: str, value: str = "") -> bool:
    """Whether an environment variable looks like a credential: its name holds KEY, TOKEN,
    SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, AUTH, COOKIE or PRIVATE (any case),
    or its value is a URL carrying a password (``scheme://user:pass@host``)."""
    return bool(_SECRET_NAME.search(name) or _URL_PASSWORD.match(value))


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The values of the variables of `environ` that look like credentials (`looks_secret`)
    and are long enough to be one (at least `MIN_ECHO` characters, not a file path): what
    `scrub` masks in a server's log."""
    return sorted({value for name, value in environ.items()
                   if len(value) >= MIN_ECHO and not value.startswith(("/", "~"))
                   and looks_secret(name, value)})


def scrub(text: str, secrets: Iterable[str | Secret], *, min_echo: int = MIN_ECHO) -> str:
    """`text` with every echo of each secret replaced by ``***``: the whole secret and any
    run of at least `min_echo` of its characters (a secret shorter than that: only whole),
    in any letter case, written as it is or percent-encoded (``sk%2Dabc``), so an echo cut
    short, upper-cased or URL-encoded by a server is masked too. Scrub a message before
    cutting it: an echo that straddles the cut is then masked whole."""
    values = [s.reveal() if isinstance(s, Secret) else s for s in secrets]
    values = [v for v in values if isinstance(v, str) and v]
    if not values or not text:
        return text
    masked = [False] * len(text)
    plain = _lower(text)
    for value in values:
        width = min(min_echo, len(value))
        low = _lower(value)
        pieces = {low[i:i + width] for i in range(len(low) - width + 1)}
        _mark(plain, pieces, width, [(i, i + 1) for i in range(len(text))], masked)
        if "%" in text:
            decoded, spans = _percent_decoded(text)
            _mark(_lower(decoded), pieces, width, spans, masked)
    if not any(masked):
        return text
    out: list[str] = []
    previous = False
    for ch, hidden in zip(text, masked, strict=True):
        if hidden and not previous:
            out.append(MASK)
        elif not hidden:
            out.append(ch)
        previous = hidden
    return "".join(out)


def _lower(text: str) -> str:
    """`text` lower-cased character by character (its length kept)."""
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def _mark(view: str, pieces: set[str], width: int, spans: list[tuple[int, int]],
          masked: list[bool]) -> None:
    """Mark in `masked` the characters of the original text (`spans`: each character of
    `view` -> its span there) covered by a piece of a secret found in `view`."""
    for i in range(len(view) - width + 1):
        if view[i:i + width] in pieces:
            for k in range(spans[i][0], spans[i + width - 1][1]):
                masked[k] = True


def _percent_decoded(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`text` with each ``%XX`` decoded to one character, and where each character of the
    result came from in `text`."""
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) and text[i + 1] in _HEX \
                and text[i + 2] in _HEX:
            chars.append(chr(int(text[i + 1:i + 3], 16)))
            spans.append((i, i + 3))
            i += 3
        else:
            chars.append(text[i])
            spans.append((i, i + 1))
            i += 1
    return "".join(chars), spans
