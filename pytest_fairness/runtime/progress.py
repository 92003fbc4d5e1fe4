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
assertion and the model adapter it calls can both use it. A block opened with
`count_nested=True` hands a part of its work to a callee that reports finer steps: the
callee's nested block of the same `unit` also advances it, and `advance.to(n)` counts the
part once whether the callee reported it or not::

    with progress(len(prompts) * n, "generating continuations", unit="samples",
                  count_nested=True) as advance:
        target = 0
        for group in groups:
            generator.generate_many(group, n, seed)   # may report its own batches
            target += len(group) * n
            advance.to(target)

`advance` is thread-safe.

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
    "Advance",
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
_current: ContextVar[_Tracker | None] = ContextVar("pytest_fairness_progress_block",
                                                    default=None)


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


def _whole(done: float) -> int:
    """Units done, shown whole (a block may count parts of a unit)."""
    return int(done + 1e-9)


def format_live(done: float, total: int | None, elapsed: float, desc: str,
                unit: str = "texts") -> str:
    """'desc: 1,234/10,000 texts (12%), 512 texts/s, 0:17 left' (no total: no % or ETA)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    text = f"{desc}: {_whole(done):,}"
    if total:
        text += f"/{total:,} {unit} ({100 * done / total:.0f}%)"
    else:
        text += f" {unit}"
    if rate > 0:
        text += f", {rate:,.0f} {unit}/s"
        if total and done < total:
            text += f", {_duration((total - done) / rate)} left"
    return text


def format_final(done: float, elapsed: float, desc: str, unit: str = "texts") -> str:
    """'fairness: desc: 10,000 texts in 12.3 s (812 texts/s)'."""
    rate = f" ({done / elapsed:,.0f} {unit}/s)" if elapsed > 0 else ""
    return f"fairness: {desc}: {_whole(done):,} {unit} in {elapsed:.1f} s{rate}"


class Advance(Protocol):
    """What a `progress` block yields: `advance(n)` counts `n` more units done (a part
    of a unit too, e.g. one token step of a batch of samples)."""

    def __call__(self, n: float = 1) -> None:
        """Count `n` more units done."""
        ...

    def to(self, done: float) -> None:
        """Count the work done so far as at least `done` units (what a callee did not
        report itself)."""
        ...

    @property
    def done(self) -> float:
        """Units counted so far."""
        ...


class _Tracker:
    def __init__(self, sink: ProgressSink | None, total: int | None, desc: str, unit: str,
                 delay: float, interval: float, clock: Callable[[], float],
                 outer: _Tracker | None = None, count_nested: bool = False) -> None:
        self.outer = outer
        self.count_nested = count_nested
        self.sink = sink
        self.total = total
        self.desc = desc
        self.unit = unit
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.done: float = 0
        self.last_shown: float | None = None
        self.lock = threading.Lock()

    def __call__(self, n: float = 1) -> None:
        self.advance(n)

    def counts(self, unit: str) -> bool:
        """Whether a block nested in this one and counting `unit` advances it."""
        return self.count_nested and unit == self.unit

    def to(self, done: float) -> None:
        with self.lock:
            missing = done - self.done
        if missing > 1e-9:
            self.advance(missing)

    def advance(self, n: float = 1) -> None:
        if self.outer is not None:
            self.outer.advance(n)
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
    count_nested: bool = False,
) -> Iterator[Advance]:
    """Report progress of `total` units of work; yields `advance` (see `Advance`).

    Only the outermost block is shown.

    Args:
        total: units of work expected (None when unknown: no percentage or time left).
        desc: what is being done, e.g. "scoring name perturbations".
        unit: the unit's plural name.
        delay: show nothing for work shorter than this many seconds.
        interval: minimum seconds between two live updates.
        clock: monotonic clock (tests pass a fake one).
        count_nested: blocks opened inside this one with the same `unit` (a callee
            telling the same work at a finer step) also advance this one.
    """
    depth = _depth.get()
    sink = _sink.get() if depth == 0 else None
    around = _current.get()
    outer = around if around is not None and around.counts(unit) else None
    tracker = _Tracker(sink, total, desc, unit, delay, interval, clock, outer, count_nested)
    token = _depth.set(depth + 1)
    block = _current.set(tracker)
    try:
        yield tracker
    finally:
        _current.reset(block)
        _depth.reset(token)
        tracker.finish()
