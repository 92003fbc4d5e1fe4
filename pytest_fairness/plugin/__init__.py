"""pytest entry point (`pytest11: fairness`): the hooks, each delegating in a few lines.

Where the rest lives:

- `options`: the `--fairness-*` options and `fairness_*` ini keys, read into `Settings`;
- `session`: `FairnessSession`, one per run (settings, state, per-test results, baseline,
  report files, the summary);
- `fixtures`: `fairness_settings`, `fairness_model`, `fairness_corpus`, `fairness_graph`;
- `xdist` and `schedule`: the slowest-first order of pytest-xdist workers;
- `terminal`: progress lines that leave pytest's rows whole; `loading`: model and corpus
  sources.

Everything that computes lives in modules that import no pytest. Disable the plugin with
`-p no:fairness`.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from . import options, xdist
from .fixtures import fairness_corpus, fairness_graph, fairness_model, fairness_settings
from .session import FairnessSession
from .tracebacks import hide_package_frames

#: The fixtures, imported so that pytest finds them in this (the registered) module.
__all__ = ["fairness_corpus", "fairness_graph", "fairness_model", "fairness_settings"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """The `--fairness-*` options and `fairness_*` ini keys (see `options`)."""
    options.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Declare the `fairness` marker and start the run's `FairnessSession`."""
    config.addinivalue_line(
        "markers",
        "fairness(threshold=X, seed=N, warn_only=BOOL): a fairness test; the keywords override "
        "the run's --fairness-* settings for this test (unknown keywords are an error)",
    )
    FairnessSession.start(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the persistent prediction caches and stop the run's session."""
    from ..models.classifiers.cache import close_disk_caches

    close_disk_caches()
    FairnessSession.stop(config)


def pytest_report_header(config: pytest.Config) -> str:
    """The run's fairness settings, reports and xdist order, in one header line."""
    return FairnessSession.of(config).header()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand every worker the same durations (so all collect one order)."""
    xdist.configure_node(node)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, the slowest tests first (see `schedule`)."""
    xdist.order_items(config, items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The test's settings: the run's, with its `fairness` markers applied."""
    FairnessSession.of(item.config).settings_for(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Run the test inside its `TestState`, which collects what it records."""
    with FairnessSession.of(item.config).running(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach what the test recorded to its call report (for the controller); an error
    the package raised on purpose is reported from the user's line, without its frames."""
    if call.excinfo is not None:
        hide_package_frames(item, call.excinfo)
    report = yield
    FairnessSession.of(item.config).attach_results(item, report)
    return report
