"""Progress of long work (scoring many thousands of texts), shown by the pytest plugin.

Library code wraps a long loop in `progress`, and calls the returned `advance(n)` as work
gets done::

    from pytest_fairness.runtime.progress import progress

    with progress(len(texts), "scoring texts") as advance:
        for batch in batches:
            scores.extend(model(batch))
            advance(len(batch))

Outside pytest (no sink installed), and on pytest-xdist workers, `advance` does nothing
but count. Under pytest the plugin installs a sink: on a terminal it shows a live line
(done/total, rate, time left) after `delay` seconds and erases it when the work ends; in
CI logs (not a terminal) it stays quiet and writes one final line for work that lasted at
least `delay` seconds. Nested `progress` blocks show only the outermost one, so an
assertion and the model adapter it calls can both use it. `advance` is thread-safe.

Pure: no pytest import, no global state besides the context variable the plugin sets.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Protocol

__all__ = [
    "ProgressSink",
    "format_final",
    "format_live",
    "progress",
    "reset_sink",
    "set_sink",
]


class ProgressSink(Protocol):
    """Where progress goes; the plugin's implementation writes to pytest's terminal."""

    @property
    def live(self) -> bool:
        """True to show a live, self-erasing line (a terminal); False for a final line only."""
        ...

    def update(self, text: str) -> None:
        """Show `text` as the live line, replacing the previous one."""
        ...

    def clear(self) -> None:
        """Erase the live line."""
        ...

    def final(self, text: str) -> None:
        """Write `text` as a permanent line."""
        ...


_sink: ContextVar[ProgressSink | None] = ContextVar("pytest_fairness_progress", default=None)
_depth: ContextVar[int] = ContextVar("pytest_fairness_progress_depth", default=0)


def set_sink(sink: ProgressSink | None) -> Token[ProgressSink | None]:
    """Install `sink` (the plugin does this for the session); returns a token for reset."""
    return _sink.set(sink)


def reset_sink(token: Token[ProgressSink | None]) -> None:
    _sink.reset(token)


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_live(done: int, total: int | None, elapsed: float, desc: str,
                unit: str = "texts") -> str:
    """'desc: 1,234/10,000 texts (12%), 512 texts/s, 0:17 left' (no total: no % or ETA)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    text = f"{desc}: {done:,}"
    if total:
        text += f"/{total:,} {unit} ({100 * done / total:.0f}%)"
    else:
        text += f" {unit}"
    if rate > 0:
        text += f", {rate:,.0f} {unit}/s"
        if total and done < total:
            text += f", {_duration((total - done) / rate)} left"
    return text


def format_final(done: int, elapsed: float, desc: str, unit: str = "texts") -> str:
    """'fairness: desc: 10,000 texts in 12.3 s (812 texts/s)'."""
    rate = f" ({done / elapsed:,.0f} {unit}/s)" if elapsed > 0 else ""
    return f"fairness: {desc}: {done:,} {unit} in {elapsed:.1f} s{rate}"


class _Tracker:
    def __init__(self, sink: ProgressSink | None, total: int | None, desc: str, unit: str,
                 delay: float, interval: float, clock: Callable[[], float]) -> None:
        self.sink = sink
        self.total = total
        self.desc = desc
        self.unit = unit
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.done = 0
        self.last_shown: float | None = None
        self.lock = threading.Lock()

    def advance(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
            sink = self.sink
            if sink is None or not sink.live:
                return
            now = self.clock()
            elapsed = now - self.start
            if elapsed < self.delay:
                return
            if self.last_shown is not None and now - self.last_shown < self.interval:
                return
            self.last_shown = now
            sink.update(format_live(self.done, self.total, elapsed, self.desc, self.unit))

    def finish(self) -> None:
        with self.lock:
            sink = self.sink
            if sink is None:
                return
            elapsed = self.clock() - self.start
            if sink.live:
                if self.last_shown is not None:
                    sink.clear()
            elif elapsed >= self.delay:
                sink.final(format_final(self.done, elapsed, self.desc, self.unit))


@contextmanager
def progress(
    total: int | None,
    desc: str,
    *,
    unit: str = "texts",
    delay: float = 0.5,
    interval: float = 0.1,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Callable[[int], None]]:
    """Report progress of `total` units of work; yields `advance(n)`.

    Args:
        total: units of work expected (None when unknown: no percentage or time left).
        desc: what is being done, e.g. "scoring name perturbations".
        unit: the unit's plural name.
        delay: show nothing for work shorter than this many seconds.
        interval: minimum seconds between two live updates.
        clock: monotonic clock (tests pass a fake one).
    """
    depth = _depth.get()
    sink = _sink.get() if depth == 0 else None
    tracker = _Tracker(sink, total, desc, unit, delay, interval, clock)
    token = _depth.set(depth + 1)
    try:
        yield tracker.advance
    finally:
        _depth.reset(token)
        tracker.finish()
