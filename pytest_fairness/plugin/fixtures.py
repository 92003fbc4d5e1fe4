"""The plugin's fixtures: the run's settings, model, corpus and knowledge graph.

Each is session-scoped and configured by a `--fairness-*` option or `fairness_*` ini key;
a fixture of the same name in a `conftest.py` overrides it. A fixture that is used but not
configured fails the test with `NOT_CONFIGURED`, which shows the three ways to configure
it. What the fixtures load (models, corpora, the graph) is imported on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from ..errors import ConfigurationError, MissingDependencyError
from ..settings import Settings
from .session import FairnessSession

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..resources.knowledge import KnowledgeGraph
    from ..types import TextModel

#: The failure message of a fixture that is used but not configured.
NOT_CONFIGURED = """\
the '{name}' fixture is not configured. Configure it in one of three ways:
  * on the command line:  pytest --fairness-{opt}={example}
  * in pytest.ini / pyproject.toml [tool.pytest.ini_options]:  fairness_{name_key} = {example}
  * or define your own fixture in conftest.py:

        @pytest.fixture(scope="session")
        def {name}():
            return {override}
"""


def _fail_unconfigured(name: str, opt: str, example: str, override: str) -> NoReturn:
    message = NOT_CONFIGURED.format(
        name=name, opt=opt, name_key=opt.replace("-", "_"), example=example, override=override
    )
    pytest.fail(message, pytrace=False)


def _configured(call: Callable[[], Any]) -> Any:
    """`call()`, a `ConfigurationError` or `MissingDependencyError` (with its install
    command) it raises failing the test with its message only (once: not chained to the
    error it replaces)."""
    try:
        return call()
    except (ConfigurationError, MissingDependencyError) as exc:
        message = str(exc)
    pytest.fail(message, pytrace=False)


@pytest.fixture(scope="session")
def fairness_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's effective `--fairness-*` settings (a frozen `Settings`).

    Each field comes from its command-line option, else its `fairness_*` ini key, else
    its default. A test's `@pytest.mark.fairness(...)` keywords, and a `--fairness-gate`
    that leaves bounds out (every test then runs warn-only), apply to what the checks
    read while that test runs (`pytest_fairness.context.current_settings()`), not to this
    run-wide value.
    """
    return FairnessSession.of(pytestconfig).settings


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

    def load() -> TextModel:
        from ..models import as_model
        from .loading import load_object

        if fairness_settings.executor == "ray":  # loaded once in each Ray worker
            from ..models.classifiers.distributed import ray_model

            return ray_model(functools.partial(load_object, spec, what="model",
                                               rootdir=pytestconfig.rootpath),
                             workers=fairness_settings.ray_workers,
                             address=fairness_settings.ray_address)
        obj = load_object(spec, what="model", rootdir=pytestconfig.rootpath)
        return as_model(obj)  # the run's --fairness-batch-size is read when it scores

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

    def load() -> Corpus:
        from ..corpus import Corpus
        from .loading import load_object

        obj = load_object(spec, what="corpus", rootdir=pytestconfig.rootpath)
        if isinstance(obj, Corpus):
            return obj
        return Corpus.from_source(obj, column=fairness_settings.corpus_column,
                                  encoding=fairness_settings.corpus_encoding,
                                  errors=fairness_settings.corpus_errors)

    corpus: Corpus = _configured(load)
    return corpus


@pytest.fixture(scope="session")
def fairness_graph(pytestconfig: pytest.Config, fairness_settings: Settings) -> KnowledgeGraph:
    """The knowledge graph for person and attribute look-ups (mt-nlp, section 2.1).

    The bundled graph, or the ConceptNet database named by `--fairness-conceptnet-db` /
    `fairness_conceptnet_db` (a path relative to the rootdir; never downloaded). Override
    it in `conftest.py` with a session-scoped fixture of the same name.
    """

    def load() -> KnowledgeGraph:
        from ..resources.knowledge import load_graph
        from .loading import resolve_path

        path = fairness_settings.conceptnet_db
        return load_graph(resolve_path(path, pytestconfig.rootpath) if path else None)

    graph: KnowledgeGraph = _configured(load)
    return graph
