"""Run order under pytest-xdist: the slowest tests first, by the durations of the last run.

pytest-xdist hands tests to its workers in collection order (under `--dist load`, first a
block of consecutive tests to each, then more as they finish), and a worker always holds
the next test queued behind the one it runs. When a long test comes late, one worker runs
it while the others have nothing left: with 8 fairness tests of 5-12 s on 2 workers, the
collected order left one worker idle for 10 s of a 51 s run. Sending the longest work
first (the longest-processing-time rule) leaves short tests for the end, so the workers
finish close together.

The order keeps pytest's grouping: siblings (the modules of a directory, the classes and
functions of a module) are ordered by the time of everything under them, so a module's or
a class's tests stay together and their fixtures are set up no more often than in
collected order. Siblings with no recorded time keep their collected order after the
timed ones. The plugin records each test's time, set-up to teardown, in pytest's cache
(key `DURATIONS_KEY`); the xdist controller reads them once and hands them to every
worker, and every worker orders its collection with them, the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

#: pytest cache key of the durations.
DURATIONS_KEY = "fairness/durations"
#: Most durations kept; the oldest entries go first.
MAX_DURATIONS = 20_000
ORDERS = ("slowest-first", "collected")


def read_durations(raw: Any) -> dict[str, float]:
    """The valid entries of a cached durations mapping (anything else in the cache, such
    as a file edited by hand or written by another version, is ignored)."""
    if not isinstance(raw, Mapping):
        return {}
    durations: dict[str, float] = {}
    for nodeid, seconds in raw.items():
        if not isinstance(nodeid, str) or isinstance(seconds, bool):
            continue
        if not isinstance(seconds, (int, float)):
            continue
        try:
            value = float(seconds)
        except OverflowError:  # an integer too large for a float
            continue
        if math.isfinite(value) and value >= 0:
            durations[nodeid] = value
    return durations


def merge_durations(
    old: Mapping[str, float], new: Mapping[str, float], limit: int = MAX_DURATIONS
) -> dict[str, float]:
    """`old` updated with `new`; the newest `limit` entries when there are more."""
    merged = {k: v for k, v in old.items() if k not in new}
    merged.update(new)
    if len(merged) > limit:
        merged = dict(list(merged.items())[len(merged) - limit :])
    return merged


def slowest_first(paths: Sequence[Sequence[str]], durations: Mapping[str, float]) -> list[int]:
    """Positions of the tests in run order.

    `paths[i]` names test i and its collectors, outermost first: the node ids from its
    directory or module down to the test's own id, its last entry and its key in
    `durations`. At every level the siblings under one parent are ordered by the total
    recorded time under them, longest first (ties keep the collected order); siblings
    with no recorded time follow in collected order. A collector's tests stay together.
    """

    def seconds(i: int) -> float | None:
        return durations.get(paths[i][-1])

    def order(members: list[int], level: int) -> list[int]:
        # siblings at this level, in collected order: a test is keyed by its own id once
        # `level` reaches it, so tests and collectors under one parent rank together
        groups: dict[str, list[int]] = {}
        for i in members:
            groups.setdefault(paths[i][min(level, len(paths[i]) - 1)], []).append(i)
        totals = {key: [s for s in map(seconds, g) if s is not None] for key, g in groups.items()}
        timed = sorted((key for key in groups if totals[key]), key=lambda k: -sum(totals[k]))
        out: list[int] = []
        for key in timed + [key for key in groups if not totals[key]]:
            group = groups[key]
            leaves = all(level >= len(paths[i]) - 1 for i in group)
            out += group if leaves else order(group, level + 1)
        return out

    return order(list(range(len(paths))), 0)
