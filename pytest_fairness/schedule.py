"""Run order under pytest-xdist: the slowest fairness tests first, by their last durations.

pytest-xdist hands tests to workers in collection order, and a worker always holds the
next test queued behind the one it runs. When a long test comes last, one worker runs it
while the other has nothing left: with 8 fairness tests of 5-12 s on 2 workers, the
collected order left one worker idle for 10 s of a 51 s run. Sending the longest tests
first (the longest-processing-time rule) leaves only short ones for the end, so the
workers finish close together.

Durations come from the previous run: the plugin records the call-phase duration of every
test that recorded a fairness result in pytest's cache (`.pytest_cache`, key
`DURATIONS_KEY`), and xdist workers order their collection by it. Tests without a
recorded duration keep their collected order after the timed ones. A run of one process
keeps the collected order.
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
    return {
        nodeid: float(seconds)
        for nodeid, seconds in raw.items()
        if isinstance(nodeid, str)
        and isinstance(seconds, (int, float))
        and not isinstance(seconds, bool)
        and math.isfinite(seconds)
        and seconds >= 0
    }


def merge_durations(
    old: Mapping[str, float], new: Mapping[str, float], limit: int = MAX_DURATIONS
) -> dict[str, float]:
    """`old` updated with `new`; the newest `limit` entries when there are more."""
    merged = {k: v for k, v in old.items() if k not in new}
    merged.update(new)
    if len(merged) > limit:
        merged = dict(list(merged.items())[len(merged) - limit :])
    return merged


def slowest_first(nodeids: Sequence[str], durations: Mapping[str, float]) -> list[int]:
    """Positions of `nodeids` in run order: those with a duration, longest first (ties in
    collected order), then the others in collected order."""
    timed = [i for i, nodeid in enumerate(nodeids) if nodeid in durations]
    timed.sort(key=lambda i: -durations[nodeids[i]])
    known = set(timed)
    return timed + [i for i in range(len(nodeids)) if i not in known]
