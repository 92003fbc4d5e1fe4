"""Progress of long work on pytest's terminal: the plugin's `progress.ProgressSink`.

pytest writes its rows (``test_x.py ..F.   [ 40%]``) a character at a time, and ends a
row only when the next one starts. Progress must leave those rows as they are without
the plugin:

- the live line (a terminal) is drawn after the row's text and erased back to it before
  pytest writes anything (each test's start, report and finish), so a dot always lands
  where it would have;
- a final line (CI logs: nothing can be erased there) is never written into a row: it
  waits until pytest's line is empty (a row that wrapped at the edge), the row is known
  to be complete (each test's own row under ``-v``), or the tests are over.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Generator
from contextlib import nullcontext
from typing import Any

import pytest


class TerminalProgress:
    """The `progress.ProgressSink` of a pytest run: pytest's terminal, capture suspended.

    `mode` is a checked `--fairness-progress` value other than "off": "live" (a
    self-erasing line after pytest's own text on the current line), "final" (one line per
    piece of long work, between pytest's rows), or "auto" (live on a terminal, final in CI
    logs). The session registers it as a plugin too: its hooks erase the live line before
    pytest writes, and write the waiting final lines where they break no row.
    """

    def __init__(self, config: pytest.Config, mode: str) -> None:
        """The sink of `config`'s terminal in `mode` (see the class)."""
        self.config = config
        self.live = mode == "live" or (mode == "auto" and sys.stdout.isatty())
        self._shown = False
        self._waiting: list[str] = []
        self._lock = threading.RLock()  # `advance` may run on a worker thread

    def _uncaptured(self) -> Any:
        capman = self.config.pluginmanager.getplugin("capturemanager")
        return capman.global_and_fixture_disabled() if capman else nullcontext()

    def _raw(self, text: str) -> None:
        with self._uncaptured():
            sys.stdout.write(text)
            sys.stdout.flush()

    def _writer(self) -> Any:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        return None if reporter is None else self.config.get_terminal_writer()

    # ------------------------------------------------------------------ ProgressSink

    def update(self, text: str) -> None:
        """Show `text` as the live line, cut to the room left on the terminal's line."""
        with self._lock:
            writer = self._writer()
            if writer is None:
                return
            column = writer.width_of_current_line  # the live text goes after pytest's own
            room = writer.fullwidth - column - 2
            if room < 20:
                if self._shown:
                    self.clear()
                return
            move = f"\x1b[{column}C " if column else ""  # (a zero move would still move one)
            self._raw(f"\r{move}{text[:room]}\x1b[K")
            self._shown = True

    def clear(self) -> None:
        """Erase the live line, leaving pytest's own text on it and the cursor after it."""
        with self._lock:
            writer = self._writer()
            if self._shown and writer is not None:
                column = writer.width_of_current_line
                self._raw(f"\r\x1b[{column}C\x1b[K" if column else "\r\x1b[K")
            self._shown = False

    def final(self, text: str) -> None:
        """Write `text` as a line of its own: now if pytest's line is empty, else when
        it is (see `flush`)."""
        with self._lock:
            self._waiting.append(text)
            self.flush(row_done=False)

    # ------------------------------------------------------------------ writing lines

    def flush(self, *, row_done: bool) -> None:
        """Write the waiting final lines if pytest's line is empty, or if `row_done`
        (pytest has finished the row it is on and will end it itself: the last line is
        left open for its newline)."""
        with self._lock:
            writer = self._writer()
            if not self._waiting or writer is None:
                return
            lines, self._waiting = self._waiting, []
            with self._uncaptured():
                if not writer.width_of_current_line:
                    for line in lines:
                        writer.line(line)
                elif row_done:
                    writer.write("\n" + "\n".join(lines), flush=True)
                else:
                    self._waiting = lines

    # ------------------------------------------------------------------ pytest hooks

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logstart(self) -> Generator[None, None, None]:
        """Before pytest writes a test's start: erase the live line; under ``-v`` the
        previous test's row is complete, so the waiting lines go after it."""
        self.clear()
        if self.config.get_verbosity() > 0:
            self.flush(row_done=True)
        yield
        self.flush(row_done=False)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self) -> None:
        """Before pytest writes a test's letter: erase the live line."""
        self.clear()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self) -> None:
        """After pytest wrote a test's result: the waiting lines, if its line is empty
        (a row that reached the edge)."""
        self.clear()
        self.flush(row_done=False)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtestloop(self) -> Generator[None, object, object]:
        """After the tests (and pytest's "[100%]"): whatever is still waiting."""
        try:
            return (yield)
        finally:
            self.clear()
            self.flush(row_done=True)
