"""pytest-xdist glue of the slowest-first order (the order itself: `schedule`).

The controller reads the last run's durations from pytest's cache once and hands them to
every worker (`configure_node`); each worker orders its collection with them the same way
(`order_items`), unless the collected order is someone else's choice (`ordered_elsewhere`).
At the end of every run the controller merges the run's durations into the cache
(`save_durations`). Nothing here runs without pytest-xdist but `save_durations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from .options import report_option
from .schedule import DURATIONS_KEY, merge_durations, read_durations, slowest_first

#: The workerinput key the xdist controller hands the durations to its workers under.
DURATIONS_INPUT = "fairness_durations"
#: Markers of plugins that order tests (pytest-order, pytest-ordering, pytest-dependency,
#: pytest-random-order): with any of them the collected order is kept.
ORDER_MARKERS = ("order", "run", "dependency", "random_order")

_DURATIONS = pytest.StashKey[dict[str, float]]()


def is_distributed(config: pytest.Config) -> bool:
    """Whether the run hands its tests to pytest-xdist workers (`-n`/`--dist`)."""
    return getattr(config.option, "dist", "no") != "no"


def controller_durations(config: pytest.Config) -> dict[str, float] | None:
    """Durations for ordering xdist workers' tests, read once from pytest's cache; None
    with `--fairness-xdist-order=collected`, without the cache plugin, when only collecting,
    and under the `--dist` modes that pin whole scopes or every test to workers (`each`,
    `loadscope`, `loadfile`, `loadgroup`: xdist orders those scopes itself, and a run keeps
    the order within a scope that users of those modes rely on)."""
    cache = getattr(config, "cache", None)
    if (report_option(config, "xdist_order") != "slowest-first"
            or cache is None or config.option.collectonly
            or getattr(config.option, "dist", "no") not in ("load", "worksteal")):
        return None
    if _DURATIONS not in config.stash:
        config.stash[_DURATIONS] = read_durations(cache.get(DURATIONS_KEY, None))
    return config.stash[_DURATIONS]


def header(config: pytest.Config) -> str:
    """The report header's note on the order workers run tests in."""
    durations = controller_durations(config)
    if durations is None:
        return "xdist order: collected"
    if durations:
        return f"xdist order: slowest first ({len(durations)} timed tests)"
    return "xdist order: slowest first (no durations recorded yet)"


def configure_node(node: Any) -> None:
    """xdist controller: hand every worker the same durations (so all collect one order)."""
    durations = controller_durations(node.config)
    if durations:
        node.workerinput[DURATIONS_INPUT] = durations


def order_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, the slowest tests first (see `schedule`), by the durations the
    controller handed them; in place. Elsewhere, and when `ordered_elsewhere`, nothing."""
    workerinput = getattr(config, "workerinput", None)
    durations = workerinput.get(DURATIONS_INPUT) if workerinput else None
    if not durations or ordered_elsewhere(config, items):
        return
    # a collector is named by its type too: with --doctest-modules a file is collected as
    # a Module and as a DoctestModule of the same node id, and each must stay together
    paths = [[f"{type(n).__name__}:{n.nodeid}" for n in item.listchain()[1:-1]] + [item.nodeid]
             for item in items]
    items[:] = [items[i] for i in slowest_first(paths, durations)]


def ordered_elsewhere(config: pytest.Config, items: list[pytest.Item]) -> bool:
    """Whether the collected order is someone's choice the schedule must keep: a plugin
    that orders tests (pytest-randomly; the markers of pytest-order, pytest-ordering,
    pytest-dependency and pytest-random-order), or a parametrized fixture wider than a
    test, whose parameters pytest runs one after the other across modules."""
    if config.pluginmanager.hasplugin("randomly") and config.getoption(
            "randomly_reorganize", True):
        return True
    for item in items:
        if any(item.get_closest_marker(name) for name in ORDER_MARKERS):
            return True
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            scopes = getattr(callspec, "_arg2scope", None)  # pytest's own; if gone, keep order
            if scopes is None or any(
                    getattr(scope, "value", scope) != "function" for scope in scopes.values()):
                return True
    return False


def save_durations(config: pytest.Config, durations: Mapping[str, float]) -> None:
    """Merge this run's `durations` (node id -> seconds, set-up to teardown) into pytest's
    cache, for the next run's `--fairness-xdist-order`."""
    cache = getattr(config, "cache", None)
    if cache is None or not durations:
        return
    old = read_durations(cache.get(DURATIONS_KEY, None))
    cache.set(DURATIONS_KEY, merge_durations(old, durations))
