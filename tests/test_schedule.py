"""Slowest fairness tests first under pytest-xdist, by the durations of the last run."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness.schedule import (
    DURATIONS_KEY,
    merge_durations,
    read_durations,
    slowest_first,
)

# ---------------------------------------------------------------------------- pure logic


def test_slowest_first_by_hand() -> None:
    ids = ["t::a", "t::b", "t::c", "t::d", "t::e"]
    durations = {"t::a": 1.0, "t::c": 7.5, "t::e": 1.0, "gone::x": 99.0}
    # c (7.5) first, then a and e (1.0 each, collected order), then b and d untimed
    assert slowest_first(ids, durations) == [2, 0, 4, 1, 3]


def test_slowest_first_without_durations_keeps_the_collected_order() -> None:
    assert slowest_first(["a", "b", "c"], {}) == [0, 1, 2]


@given(
    st.lists(st.text(min_size=1, max_size=4), unique=True, max_size=12),
    st.dictionaries(st.text(min_size=1, max_size=4), st.floats(0, 100), max_size=12),
)
def test_slowest_first_properties(ids: list[str], durations: dict[str, float]) -> None:
    order = slowest_first(ids, durations)
    assert sorted(order) == list(range(len(ids)))  # a permutation: nothing lost or doubled
    timed = [i for i in order if ids[i] in durations]
    untimed = [i for i in order if ids[i] not in durations]
    assert order == timed + untimed
    assert untimed == sorted(untimed)
    seconds = [durations[ids[i]] for i in timed]
    assert seconds == sorted(seconds, reverse=True)
    for a, b in itertools.pairwise(timed):  # ties keep the collected order
        if durations[ids[a]] == durations[ids[b]]:
            assert a < b


def test_read_durations_keeps_only_valid_entries() -> None:
    raw = {"ok": 2.5, "int": 3, "negative": -1.0, "nan": math.nan, "inf": math.inf,
           "text": "4", "flag": True, 7: 1.0}
    assert read_durations(raw) == {"ok": 2.5, "int": 3.0}
    assert read_durations(None) == {}
    assert read_durations(["ok", 2.5]) == {}


def test_merge_updates_keeps_others_and_drops_the_oldest_beyond_the_limit() -> None:
    old = {"a": 1.0, "b": 2.0, "c": 3.0}
    assert merge_durations(old, {"b": 5.0, "d": 4.0}) == {"a": 1.0, "c": 3.0, "b": 5.0,
                                                         "d": 4.0}
    assert merge_durations(old, {"b": 5.0, "d": 4.0}, limit=2) == {"b": 5.0, "d": 4.0}
    assert merge_durations(old, {}, limit=2) == {"b": 2.0, "c": 3.0}


# ---------------------------------------------------------------------------- the plugin

SUITE = """
import time

import pytest_fairness as pf

def _log(name):
    with open("order.txt", "a") as handle:
        handle.write(name + "\\n")

def test_quick():
    _log("quick")
    pf.assert_wasserstein_below([0.1, 0.2], [0.1, 0.2], max_w1=1.0)

def test_slow():
    _log("slow")
    time.sleep(0.4)
    pf.assert_wasserstein_below([0.1, 0.2], [0.1, 0.3], max_w1=1.0)

def test_no_fairness_result():
    _log("plain")
    time.sleep(0.2)

def test_middle():
    _log("middle")
    time.sleep(0.2)
    pf.assert_wasserstein_below([0.1, 0.2], [0.2, 0.2], max_w1=1.0)
"""


def _cache_file(pytester: pytest.Pytester) -> Path:
    return pytester.path / ".pytest_cache" / "v" / DURATIONS_KEY


def _run_order(pytester: pytest.Pytester, *args: str) -> list[str]:
    log = pytester.path / "order.txt"
    log.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess("-p", "no:randomly", *args)
    result.assert_outcomes(passed=4)
    return log.read_text().split()


def test_a_run_records_the_durations_of_its_fairness_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    assert _run_order(pytester) == ["quick", "slow", "plain", "middle"]
    durations = json.loads(_cache_file(pytester).read_text())
    assert set(durations) == {"test_suite.py::test_quick", "test_suite.py::test_slow",
                              "test_suite.py::test_middle"}  # not the test without results
    assert durations["test_suite.py::test_slow"] >= 0.4
    assert durations["test_suite.py::test_middle"] >= 0.2
    assert durations["test_suite.py::test_quick"] < 0.2
    # a later run of part of the suite updates its tests and keeps the others
    _cache_file(pytester).write_text(json.dumps({**durations, "other.py::test_x": 9.0}))
    pytester.runpytest_subprocess("-p", "no:randomly", "-k", "quick").assert_outcomes(
        passed=1, deselected=3)
    after = json.loads(_cache_file(pytester).read_text())
    assert after["other.py::test_x"] == 9.0
    assert after["test_suite.py::test_slow"] == durations["test_suite.py::test_slow"]


def test_xdist_workers_run_the_slowest_fairness_tests_first(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _cache_file(pytester).parent.mkdir(parents=True)
    _cache_file(pytester).write_text(json.dumps({
        "test_suite.py::test_quick": 0.01, "test_suite.py::test_slow": 0.5,
        "test_suite.py::test_middle": 0.25}))
    # one worker runs every test, in the order the workers collected them
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == [
        "slow", "middle", "quick", "plain"]
    assert _run_order(pytester, "-p", "xdist", "-n", "1",
                      "--fairness-xdist-order=collected") == [
        "quick", "slow", "plain", "middle"]
    # a run in one process keeps the collected order
    assert _run_order(pytester) == ["quick", "slow", "plain", "middle"]


def test_xdist_workers_keep_the_collected_order_without_durations(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    assert _run_order(pytester, "-p", "xdist", "-n", "1", "-p", "no:cacheprovider") == [
        "quick", "slow", "plain", "middle"]
    _cache_file(pytester).parent.mkdir(parents=True)
    _cache_file(pytester).write_text("{not json")
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == [
        "quick", "slow", "plain", "middle"]


def test_unknown_xdist_order_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fairness-xdist-order=fastest")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--fairness-xdist-order='fastest': choose one of slowest-first, collected*"])
