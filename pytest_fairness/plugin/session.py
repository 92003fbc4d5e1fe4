"""One `FairnessSession` per pytest run: its settings, state, results and reports.

`FairnessSession.start` (from `pytest_configure`) reads and checks the options, opens the
run's `SessionState` (the prediction caches), configures the default spaCy pipeline and,
on the controller (the one process of a plain run, or pytest-xdist's controller), installs
the progress display and registers the session as the run's reporter. `stop` (from
`pytest_unconfigure`) undoes all of it, in reverse order, exactly: pytester runs nest in
one process.

Per test, the session applies the `--fairness-gate` and the `fairness` marker, opens the
test's `TestState` (which knows whether the test is marked xfail) and attaches what the
test recorded to its call report (plain builtins, so pytest-xdist carries them from the
workers). The controller collects them with the tests' durations, and at the end writes
the report files, applies the regression gate and prints the fairness summary; whatever
the plugin fails the run for is counted in pytest's last line ("2 passed, 3 fairness
regressions in 1.2s").
"""

from __future__ import annotations

import dataclasses
import json
import unittest
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..context import SessionState, TestState, session_scope, test_scope
from ..errors import ConfigurationError, NothingJudgedError
from ..runtime import progress
from ..settings import MARKER_KEYS, Settings
from . import options, xdist

if TYPE_CHECKING:
    from ..report import Comparison, RecordedTest, Summary, Tolerance

#: The attribute a call-phase TestReport carries the test's results in (plain builtins, so
#: it survives pytest-xdist's report serialisation to the controller).
REPORT_KEY = "pytest_fairness"

#: The words pytest's last line counts the plugin's reasons to fail a run (or to doubt
#: it) under: (singular, plural); e.g. "2 passed, 3 fairness regressions in 1.2s".
REGRESSIONS = ("fairness regression", "fairness regressions")
REPORT_ERRORS = ("fairness report error", "fairness report errors")
NOT_COMPARED = ("fairness metric not compared", "fairness metrics not compared")

_SESSION = pytest.StashKey["FairnessSession"]()
_TEST_SETTINGS = pytest.StashKey[Settings]()
_TEST_RESULTS = pytest.StashKey[list[dict[str, Any]]]()


class FairnessSession:
    """The fairness side of one pytest run, kept in `config.stash` (see `of`).

    On the controller it is also a pytest plugin (registered as "fairness-reporter"):
    its `pytest_runtest_logreport`, `pytest_sessionfinish` and `pytest_terminal_summary`
    collect the tests' results and durations, write the reports and print the summary.
    """

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        """A session of `config` with `settings`, not yet started (see `start`).

        On the controller, reads the baseline options; a bad tolerance or an unreadable
        baseline file is a `pytest.UsageError`.
        """
        self.config = config
        self.settings = settings
        self.gate = options.gate(config)
        self.state = SessionState(settings=settings)
        self.controller = not hasattr(config, "workerinput")
        self.tests: list[RecordedTest] = []
        self.durations: dict[str, float] = {}  # setup + call + teardown of each test
        self.summary: Summary | None = None
        self.baseline: dict[str, Any] | None = None
        self.compare_path = options.report_option(config, "compare")
        self.save_path = options.report_option(config, "save_baseline")
        self.compare_strict = options.report_flag(config, "compare_strict")
        self.tolerance: Tolerance | None = None
        self._exit = ExitStack()
        if self.controller:
            from ..report import Tolerance, load_baseline

            try:
                self.tolerance = Tolerance.parse(
                    options.report_option(config, "compare_tolerance") or "0")
                if self.compare_path:
                    self.baseline = load_baseline(self._path(self.compare_path))
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None

    # ------------------------------------------------------------------ life cycle

    @classmethod
    def start(cls, config: pytest.Config) -> FairnessSession:
        """The run's session, started and kept in `config.stash`.

        Every option is checked before anything is changed, so a `pytest.UsageError`
        (bad ini value, progress mode, xdist order, tolerance or baseline) leaves no state
        behind.
        """
        try:
            settings = options.read_settings(config)
        except ConfigurationError as exc:
            raise pytest.UsageError(str(exc)) from None
        mode = options.progress_mode(config)
        options.xdist_order(config)
        options.gate(config)
        session = cls(config, settings)
        config.stash[_SESSION] = session  # first: `stop` undoes a partial `_open` too
        session._open(mode)
        return session

    @staticmethod
    def of(config: pytest.Config) -> FairnessSession:
        """The session `start` kept in `config`'s stash."""
        return config.stash[_SESSION]

    @staticmethod
    def stop(config: pytest.Config) -> None:
        """Undo what `start` did for `config`, in reverse order (nothing if it did not
        start)."""
        session = config.stash.get(_SESSION, None)
        if session is not None:
            session._exit.close()

    def _open(self, mode: str) -> None:
        from ..resources import nlp

        self._exit.enter_context(session_scope(self.state))
        self._exit.enter_context(nlp.default_pipeline(self.settings.spacy_model or None))
        if not self.controller:  # an xdist worker: its output is not shown anywhere
            from ..runtime.threads import share_cores

            workerinput: dict[str, Any] = getattr(self.config, "workerinput", {})
            share_cores(int(workerinput.get("workercount", 1)))
            return
        from .terminal import TerminalProgress

        sink = None if mode == "off" else TerminalProgress(self.config, mode)
        self._exit.callback(progress.reset_sink, progress.set_sink(sink))
        if sink is not None:  # it keeps pytest's rows whole (see `TerminalProgress`)
            self.config.pluginmanager.register(sink, "fairness-progress")
            self._exit.callback(self.config.pluginmanager.unregister, sink)
        self.config.pluginmanager.register(self, "fairness-reporter")
        self._exit.callback(self.config.pluginmanager.unregister, self)

    def header(self) -> str:
        """The line of pytest's report header: the settings and the run's artifacts."""
        s = self.settings
        extra = [f"{key}={value}" for key, value in (
            ("report", s.report), ("compare", self.compare_path),
            ("save-baseline", self.save_path),
            ("gate", None if self.gate == "both" else self.gate)) if value]
        if xdist.is_distributed(self.config):
            extra.append(xdist.header(self.config))
        return (
            f"fairness: model={s.model or 'fixture'}, corpus={s.corpus or 'fixture'}, "
            f"threshold={s.threshold}, seed={s.seed}, batch_size={s.batch_size or 'auto'}"
            + (", warn-only" if s.warn_only else "")
            + "".join(", " + e for e in extra)
        )

    # ------------------------------------------------------------------ each test

    @property
    def gates_bounds(self) -> bool:
        """Whether a failing fairness assertion fails its test (`--fairness-gate` 'both' or
        'bounds'); if not, every test runs warn-only unless its marker says otherwise."""
        return self.gate in ("both", "bounds")

    @property
    def gates_regressions(self) -> bool:
        """Whether a regression against `--fairness-compare` fails the run
        (`--fairness-gate` 'both' or 'regressions')."""
        return self.gate in ("both", "regressions")

    def settings_for(self, item: pytest.Item) -> Settings:
        """The settings `item` runs with: the session's (warn-only when the gate leaves
        bounds out) with its `fairness` markers' keywords applied (a bad keyword fails the
        test with the reason); kept for the test's other phases."""
        settings = self.settings
        if not self.gates_bounds and not settings.warn_only:
            settings = dataclasses.replace(settings, warn_only=True)
        for mark in item.iter_markers("fairness"):
            where = f"{item.nodeid}"
            if mark.args:
                pytest.fail(
                    f"{where}: @pytest.mark.fairness takes keyword arguments only "
                    f"({', '.join(sorted(MARKER_KEYS))}), got positional {mark.args!r}",
                    pytrace=False,
                )
            try:
                settings = settings.with_overrides(dict(mark.kwargs), where)
            except ConfigurationError as exc:
                # raised afresh, not chained: pytest would print the message twice
                # ("During handling of the above exception, another exception occurred")
                raise pytest.fail.Exception(str(exc), pytrace=False) from None
        item.stash[_TEST_SETTINGS] = settings
        return settings

    @contextmanager
    def running(self, item: pytest.Item) -> Iterator[TestState]:
        """The test's `TestState`, current while `item`'s call runs; afterwards its
        results are kept for its report, and go to JUnit XML as properties."""
        settings = item.stash.get(_TEST_SETTINGS, self.settings)

        def expects(exc: BaseException) -> bool:
            return _expects(item, exc)

        state = TestState(nodeid=item.nodeid, settings=settings, expects=expects)
        with test_scope(state):
            try:
                try:
                    yield state
                except NothingJudgedError as exc:  # from a relation or from the model:
                    from ..checks.verdict import on_empty  # --fairness-on-empty decides

                    on_empty(exc)
            except unittest.SkipTest as skip:  # verdict.NothingJudgedSkip: reported at
                raise pytest.skip.Exception(  # the test's line, not unittest support's
                    str(skip), _use_item_location=True) from None
            finally:
                item.stash[_TEST_RESULTS] = state.results
                if state.results:  # metric values as JUnit XML properties
                    from ..report import junit_properties

                    item.user_properties.extend(
                        junit_properties(state.results, warn_only=settings.warn_only))

    def attach_results(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Put what `item` recorded into its call `report`, as a `RecordedTest` payload."""
        results = item.stash.get(_TEST_RESULTS, None)
        if report.when == "call" and results:
            from ..report import RecordedTest, falsifying_example

            settings = item.stash.get(_TEST_SETTINGS, self.settings)
            hypothesis = bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
            example = (falsifying_example(report.longreprtext)
                       if hypothesis and report.failed else None)
            # JSON text, ASCII only: xdist's wire format refuses what UTF-8 cannot encode
            # (a lone surrogate from the corpus); json escapes it and reads it back as is
            report.__dict__[REPORT_KEY] = json.dumps(RecordedTest.create(
                item.nodeid, results, outcome=_outcome(report), warn_only=settings.warn_only,
                hypothesis=hypothesis, falsifying_example=example,
            ).to_payload())

    # ------------------------------------------------------------------ the controller

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect a test's results (local, or from an xdist worker) and its duration."""
        payload = report.__dict__.get(REPORT_KEY)
        if report.when == "call" and payload:
            from ..report import RecordedTest

            self.tests.append(RecordedTest.from_payload(json.loads(payload)))
        # setup, call and teardown: a module's first test carries its fixtures' set-up
        self.durations[report.nodeid] = (
            (self.durations.get(report.nodeid, 0.0) if report.when != "setup" else 0.0)
            + report.duration)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Save the durations, build the summary, apply the regression gate, write the
        baseline and report files (a failure to write fails the run). Each reason the
        plugin fails the run for, and a comparison that compared nothing, is counted in
        pytest's last line."""
        from .. import report

        xdist.save_durations(self.config, self.durations)

        summary = report.build_summary(self.tests, warn_only=self.settings.warn_only)
        if self.baseline is not None and self.compare_path and self.tolerance is not None:
            comparison = report.compare(summary, self.baseline, self.tolerance,
                                        source=self.compare_path,
                                        warn_only=not self.gates_regressions)
            summary = summary.with_comparison(comparison)
            if comparison.failed:
                self._fail_run(session, REGRESSIONS, len(comparison.regressions))
            summary = self._check_compared(session, summary, comparison)
        elif self.gate == "regressions" or (self.compare_strict and self.gate != "none"):
            summary = self._check_compared(session, summary, None)
        try:
            if self.save_path:
                report.write_baseline(self._path(self.save_path), summary)
                summary = summary.with_notes(f"fairness baseline saved to {self.save_path}")
            if self.settings.report:
                summary, written, failures = self._write_reports(summary)
                if written:
                    summary = summary.with_notes(
                        "fairness report: " + ", ".join(str(path) for path in written))
                self._fail_run(session, REPORT_ERRORS, failures)
        except OSError as exc:
            summary = summary.with_notes(_write_error(exc))
            self._fail_run(session, REPORT_ERRORS, 1)
        self.summary = summary

    def _check_compared(self, session: pytest.Session, summary: Summary,
                        comparison: Comparison | None) -> Summary:
        """`summary`, with a warning note (and a count in pytest's last line) when the
        run recorded metrics but the regression gate compared none of them: no baseline
        given under `--fairness-gate=regressions` (or `--fairness-compare-strict`), or a
        baseline that shares no metric with the run (other test ids, another suite, values
        saved as NaN). Under `--fairness-compare-strict` (unless `--fairness-gate=none`)
        this fails the run: the note says ERROR and the run exits 1."""
        from ..report import baseline_doc

        if comparison is not None and comparison.compared:
            return summary
        metrics = (comparison.count("new") if comparison is not None
                   else len(baseline_doc(summary)["metrics"]))
        if not metrics:
            return summary
        strict = self.compare_strict and self.gate != "none"
        level = "ERROR" if strict else "WARNING"
        then = ("so the run fails (--fairness-compare-strict)" if strict else
                "so nothing was gated (--fairness-compare-strict fails the run on this)")
        if comparison is None:
            flag = ("--fairness-gate=regressions" if self.gate == "regressions"
                    else "--fairness-compare-strict")
            note = (f"fairness: {level}: {flag} but no baseline to compare with: none of "
                    f"this run's {metrics} metrics was compared, {then}; pass "
                    "--fairness-compare=FILE (a file written by --fairness-save-baseline)")
        else:
            missing = comparison.count("missing")
            note = (f"fairness: {level}: the baseline {comparison.baseline} shares no metric "
                    f"with this run: 0 compared, {metrics} new, {missing} missing, {then}; "
                    "check that the baseline was saved from the same tests (same node ids) "
                    "with values (not NaN), or save a new one with --fairness-save-baseline")
        if strict:
            self._fail_run(session, NOT_COMPARED, metrics)
        else:
            self._count(NOT_COMPARED, metrics)
        return summary.with_notes(note)

    def _fail_run(self, session: pytest.Session, words: tuple[str, str], count: int) -> None:
        """Fail the run (exit code 1 unless it already has another) for `count` of
        `words`, and say so in pytest's last line."""
        if count <= 0:
            return
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self._count(words, count)

    def _count(self, words: tuple[str, str], count: int) -> None:
        """Add "<count> <words>" to pytest's last line ("2 passed, 3 fairness regressions
        in 1.2s"), through the terminal reporter's stats, which that line counts."""
        reporter: Any = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or count <= 0:
            return
        key = words[0] if count == 1 else words[1]
        entries = [_Tally(key)] * count
        add = getattr(reporter, "_add_stats", None)  # pytest's own: it updates the colour
        if callable(add):
            add(key, entries)
        else:
            reporter.stats.setdefault(key, []).extend(entries)

    def _write_reports(self, summary: Summary) -> tuple[Summary, list[Path], int]:
        """Every registered report format, one at a time: a format of a user or another
        package that fails is named in a note (and fails the run), the others are written;
        returns the summary, the files written and the number of formats that failed.
        An unwritable directory raises `OSError` for the caller."""
        from .. import report
        from ..report.formats import FORMATS

        assert self.settings.report is not None
        directory = self._path(self.settings.report)
        written: list[Path] = []
        failures = 0
        for name in FORMATS.names():
            try:
                written += report.write_reports(directory, summary, formats=[name])
            except OSError:
                raise
            except Exception as exc:  # a third-party writer: say which, keep the rest
                summary = summary.with_notes(
                    f"fairness: report format {name!r} failed: {type(exc).__name__}: {exc}")
                failures += 1
        return summary, written, failures

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Print the fairness summary (only the file notes when no fairness check ran)."""
        summary = self.summary
        if summary is None:
            return
        from ..report.values import printable

        if summary.empty:  # no fairness assertion ran: no section, just the file notes
            for note in summary.notes:
                terminalreporter.write_line(printable(note))
            return
        from ..report import render_text

        writer = self.config.get_terminal_writer()
        terminalreporter.write_sep("=", "fairness summary")
        for line in render_text(summary, width=writer.fullwidth, color=writer.hasmarkup,
                                verbosity=self.config.get_verbosity()):
            terminalreporter.write_line(line)

    def _path(self, value: str) -> Path:
        return self.config.invocation_params.dir / value


class _Tally:
    """One count in pytest's last line (an entry of the terminal reporter's stats)."""

    count_towards_summary = True

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"


def _expects(item: pytest.Item, exc: BaseException) -> bool:
    """Whether `item`'s ``xfail`` marks, as pytest evaluates them (conditions, `run=`,
    `raises=`), expect `exc`; never under ``--runxfail``."""
    if item.config.getoption("runxfail", False):
        return False
    try:
        from _pytest.skipping import evaluate_xfail_marks
    except ImportError:  # a pytest without it: any xfail mark counts
        return item.get_closest_marker("xfail") is not None
    xfailed = evaluate_xfail_marks(item)
    if xfailed is None or not xfailed.run:
        return False
    raises: Any = xfailed.raises
    if raises is None:
        return True
    if isinstance(raises, (type, tuple)):
        return isinstance(exc, raises)
    matches = getattr(raises, "matches", None)  # pytest.RaisesExc and the like
    return bool(matches(exc)) if callable(matches) else True


def _outcome(report: pytest.TestReport) -> str:
    """pytest's outcome, with expected failures told apart: "xfailed" for a test marked
    xfail that failed, "xpassed" for one that passed anyway (non-strict)."""
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    return report.outcome


def _write_error(exc: OSError) -> str:
    """The note of a report or baseline file that could not be written: the path, why,
    and the fix where the cause is a path that cannot hold it."""
    where = exc.filename
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return (f"fairness: could not write under {where}: it is a file, not a directory; "
                "choose a path whose parent folders are folders")
    if isinstance(exc, PermissionError):
        return (f"fairness: could not write {where}: permission denied; choose a writable "
                "path")
    return f"fairness: could not write {where}: {exc.strerror}"
