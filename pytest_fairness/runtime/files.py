"""Opening a file the user named: a regular file, or a named error; never a hang.

Every reader of a user's path (data sets, corpora, benchmark copies) opens it here, so one
mechanism refuses what is not a regular file before a byte is read:

- a named pipe (FIFO) would block the open, or the read, until some other process writes:
  the file is opened with ``O_NONBLOCK`` (which never waits) and refused on its type;
- a device (``/dev/zero``, ``/dev/urandom``, a terminal) never ends: refused;
- a directory opens on Linux and fails on the first read: refused as a directory, not as
  a file that "does not exist";
- a symbolic link is followed, and the message names where it points.

A regular file is finite, so a whole read of it is bounded by its size. `text_encoding`
checks an ``encoding=`` option names a *text* encoding (``'rot13'``, ``'base64'``,
``'zlib'`` are codecs Python knows that do not decode bytes to text). `shown_path` is a
path as messages print it: control characters escaped (`printable`).
"""

from __future__ import annotations

import codecs
import io
import os
import stat
from pathlib import Path
from typing import BinaryIO, TextIO

from ..errors import ConfigurationError
from .printable import printable

__all__ = ["open_binary", "open_text", "regular_file", "shown_path", "text_encoding"]

#: Encodings suggested in messages.
_SUGGESTED = "'utf-8', 'utf-8-sig', 'latin-1', 'cp1252' or 'utf-16'"


def shown_path(path: str | os.PathLike[str]) -> str:
    """`path` as a message prints it: every control or format character escaped."""
    return printable(os.fspath(path))


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _link_note(path: Path) -> str:
    try:
        if path.is_symlink():
            return f" (a symbolic link to '{shown_path(os.readlink(path))}')"
    except OSError:
        pass
    return ""


def _looked_for(path: Path) -> str:
    """Where a relative path was looked for: its absolute path, read from the current
    directory (empty for an absolute path, which says it already)."""
    if path.is_absolute():
        return ""
    cwd = Path.cwd()
    return (f" (looked for '{shown_path(cwd / path)}': a relative path is read from the "
            f"current directory '{shown_path(cwd)}')")


def _refusal(path: Path, what: str, kind: str) -> str:
    shown = f"{what} '{shown_path(path)}'{_link_note(path)}"
    if kind == "a directory":
        return (f"{shown} is a directory, not a file; pass the path of the file itself "
                "(one inside that directory)")
    return (f"{shown} is {kind}, not a regular file: reading it could wait forever or "
            "never end. Save the data to a regular file and pass that path")


def open_binary(
    path: str | os.PathLike[str],
    what: str,
    *,
    error: type[ConfigurationError] = ConfigurationError,
    hint: str = "",
) -> BinaryIO:
    """The regular file at `path`, open for reading bytes.

    `what` names the input in messages ("data file", "corpus file"); `error` is the class
    raised (a `ConfigurationError`); `hint` is appended to the message for a missing file.
    A missing file, a directory, a FIFO, a device or socket, an unreadable file: `error`
    saying which and what to pass instead. Never blocks (a FIFO is opened non-blocking and
    refused on its type).
    """
    file = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file, flags)
    except FileNotFoundError:
        dangling = _link_note(file)
        raise error(f"{what} '{shown_path(file)}'{dangling} does not exist{_looked_for(file)}; "
                    f"pass the path of an existing file{hint}") from None
    except IsADirectoryError:  # where a directory cannot be opened at all
        raise error(_refusal(file, what, "a directory")) from None
    except ValueError:  # a NUL character: no file system has such a name
        raise error(f"{what} '{shown_path(file)}' holds a NUL character, which no file name "
                    "can; pass the path without it") from None
    except OSError as exc:
        raise error(f"{what} '{shown_path(file)}' cannot be opened ({exc.strerror}); check "
                    "its permissions, or pass another path") from None
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise error(_refusal(file, what, kind))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def regular_file(
    path: str | os.PathLike[str],
    what: str,
    *,
    error: type[ConfigurationError] = ConfigurationError,
    hint: str = "",
) -> Path:
    """`path` as a `Path` when it is a readable regular file (checked by opening it, as
    `open_binary` does); else `error`, as `open_binary` raises it."""
    open_binary(path, what, error=error, hint=hint).close()
    return Path(path)


def text_encoding(
    encoding: object,
    option: str = "encoding",
    *,
    error: type[ConfigurationError] = ConfigurationError,
) -> str:
    """`encoding` when it names a text encoding Python knows (bytes to str); else `error`
    naming `option`. ``'rot13'``, ``'base64'``, ``'hex'``, ``'zlib'`` and other codecs that
    do not turn bytes into text are refused as well as unknown names."""
    if not isinstance(encoding, str):
        raise error(f"{option} must be the name of a text encoding such as 'utf-8', got "
                    f"{type(encoding).__name__} {printable(repr(encoding))[:60]}")
    try:
        info = codecs.lookup(encoding)
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise error(f"{option}={printable(repr(encoding))[:60]} is not a text encoding Python "
                    f"knows; pass one such as {_SUGGESTED}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise error(f"{option}={encoding!r} names the codec {info.name!r}, which does not "
                    f"decode bytes to text; pass a text encoding such as {_SUGGESTED}")
    return encoding


def open_text(
    path: str | os.PathLike[str],
    what: str,
    *,
    encoding: str,
    errors: str = "strict",
    newline: str | None = None,
    error: type[ConfigurationError] = ConfigurationError,
    hint: str = "",
) -> TextIO:
    """The regular file at `path` open for reading text (as `open_binary`, then decoded
    with `encoding`, checked by `text_encoding`, and `errors`)."""
    checked = text_encoding(encoding, error=error)
    binary = open_binary(path, what, error=error, hint=hint)
    try:
        return io.TextIOWrapper(binary, encoding=checked, errors=errors, newline=newline)
    except BaseException:
        binary.close()
        raise
