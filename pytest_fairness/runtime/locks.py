"""A lock between processes with a deadline: who holds it, how long we waited, what to do.

`deadline_lock(path, what=...)` takes an exclusive lock on `path` (`fcntl.flock`, or
`msvcrt.locking` on Windows), trying again every `poll` seconds. The holder writes who it
is into the lock file (process id, host, since when, what it builds), so a process that
has to wait says so on stderr at once and every `report_every` seconds ("waiting 20 s for
the lock of X, held by process 123 on host h since 01:22:03"), and gives up after
`timeout` seconds with `LockTimeoutError` naming the holder, the time waited and the ways
on: wait for that run, raise the deadline (`LOCK_TIMEOUT_ENV`), or stop a stuck holder.
The lock dies with its process (the system drops it), so a killed holder never blocks.

Pure standard library.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO

from ..errors import ConfigurationError, LockTimeoutError
from .printable import printable

__all__ = ["DEFAULT_LOCK_TIMEOUT", "LOCK_TIMEOUT_ENV", "deadline_lock", "lock_timeout"]

#: The environment variable that sets the deadline, in seconds.
LOCK_TIMEOUT_ENV = "PYTEST_FAIRNESS_LOCK_TIMEOUT"
#: Seconds waited when the variable is not set (a first build of the MiniLM word-vector
#: matrix took 278 s on a loaded 2-core machine).
DEFAULT_LOCK_TIMEOUT = 1800.0


def lock_timeout(environ: dict[str, str] | None = None) -> float:
    """The deadline in seconds: `LOCK_TIMEOUT_ENV` if set (a positive number), else
    `DEFAULT_LOCK_TIMEOUT`; anything else raises `ConfigurationError` naming the variable."""
    env = os.environ if environ is None else environ
    raw = env.get(LOCK_TIMEOUT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ConfigurationError(
            f"{LOCK_TIMEOUT_ENV}={printable(raw)!r} must be a positive number of seconds, "
            f"e.g. {LOCK_TIMEOUT_ENV}=600; unset it for the default "
            f"({DEFAULT_LOCK_TIMEOUT:g} s)"
        )
    return value


def _try_lock(handle: IO[bytes]) -> bool:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(handle: IO[bytes]) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _holder(path: Path) -> str:
    """Who holds the lock, as its holder wrote it ("" when unknown or unreadable)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(4096)
        info = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(info, dict):
        return ""
    since = info.get("since")
    when = ""
    if isinstance(since, int | float) and math.isfinite(since):
        when = (f" since {datetime.fromtimestamp(since).strftime('%H:%M:%S')} "
                f"({max(0.0, time.time() - since):.0f} s ago)")
    what = info.get("what")
    return printable(
        f"process {info.get('pid')} on {info.get('host')}{when}"
        + (f", building {what}" if isinstance(what, str) and what else ""))


@contextmanager
def deadline_lock(
    path: str | Path,
    *,
    what: str,
    timeout: float | None = None,
    poll: float = 0.1,
    report_every: float = 10.0,
    report: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block; see the module
    docstring. `what` names what the lock guards in messages; `timeout` defaults to
    `lock_timeout()`; `report` receives the waiting lines (default: stderr)."""
    deadline = lock_timeout() if timeout is None else timeout
    say = report if report is not None else _stderr
    lock = Path(path)
    shown = printable(str(lock))
    with lock.open("a+b") as handle:
        start = time.monotonic()
        next_report = start
        while not _try_lock(handle):
            waited = time.monotonic() - start
            if waited >= deadline:
                holder = _holder(lock)
                raise LockTimeoutError(
                    f"waited {waited:.1f} s for the lock {shown} of {what}, held by "
                    f"{holder or 'another process'}; that run is building it and the others "
                    "wait so it is built once. Let that run finish, then rerun; or wait "
                    f"longer: {LOCK_TIMEOUT_ENV}=SECONDS (now {deadline:g}); or, if that "
                    "process is stuck, stop it (the lock goes with it)",
                    path=str(lock), holder=holder, waited=waited,
                )
            if time.monotonic() >= next_report:
                holder = _holder(lock)
                say(f"pytest-fairness: waiting {waited:.0f} s for the lock {shown} of {what}, "
                    f"held by {holder or 'another process'} (giving up after {deadline:g} s; "
                    f"{LOCK_TIMEOUT_ENV} sets it)")
                next_report += report_every
            time.sleep(min(poll, max(0.0, deadline - waited)))
        try:
            _write_holder(handle, what)
            yield
        finally:
            _unlock(handle)


def _write_holder(handle: IO[bytes], what: str) -> None:
    """Write who holds the lock into it (best effort: a lock file that cannot be written
    still locks)."""
    info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time(),
            "what": what}
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(info).encode("utf-8"))
        handle.flush()
    except OSError:
        pass


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
