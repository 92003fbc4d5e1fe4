"""Progress of long scoring on pytest's terminal: the plugin's `progress.ProgressSink`."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from typing import Any

import pytest


class TerminalProgress:
    """The `progress.ProgressSink` of a pytest run: pytest's terminal, capture suspended.

    `mode` is a checked `--fairness-progress` value other than "off": "live" (a
    self-erasing line after pytest's own text on the current line), "final" (one line when
    the work is done), or "auto" (live on a terminal, final in CI logs).
    """

    def __init__(self, config: pytest.Config, mode: str) -> None:
        self.config = config
        self.live = mode == "live" or (mode == "auto" and sys.stdout.isatty())
        self._shown = False

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

    def update(self, text: str) -> None:
        """Show `text` as the live line, cut to the room left on the terminal's line."""
        writer = self._writer()
        if writer is None:
            return
        column = writer.width_of_current_line  # the live text goes after pytest's own
        room = writer.fullwidth - column - 2
        if room < 20:
            return
        move = f"\x1b[{column}C " if column else ""  # (a zero move would still move one)
        self._raw(f"\r{move}{text[:room]}\x1b[K")
        self._shown = True

    def clear(self) -> None:
        """Erase the live line, leaving pytest's own text on it."""
        writer = self._writer()
        if self._shown and writer is not None:
            column = writer.width_of_current_line
            self._raw(f"\r\x1b[{column}C\x1b[K" if column else "\r\x1b[K")
        self._shown = False

    def final(self, text: str) -> None:
        """Write `text` as a line of its own."""
        writer = self._writer()
        if writer is None:
            return
        with self._uncaptured():
            if writer.width_of_current_line:
                writer.line()
            writer.line(text)
