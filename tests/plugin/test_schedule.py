"""Slowest fairness tests first under pytest-xdist, by the durations of the last run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness.plugin.schedule import (
    DURATIONS_KEY,
    merge_durations,
    read_durations,
    slowest_first,
)

# ---------------------------------------------------------------------------- pure logic


def test_slowest_first_by_hand() -> None:
    paths = [
        ["a.py", "a.py::t1"],
        ["a.py", "a.py::t2"],
        ["b.py", "b.py::C", "b.py::C::t3"],
        ["b.py", "b.py::C", "b.py::C::t4"],
        ["b.py", "b.py::t5"],
        ["c.py", "c.py::t6"],
    ]
    durations = {"a.py::t1": 1.0, "a.py::t2": 2.0, "b.py::C::t3": 0.5, "b.py::C::t4": 4.0,
                 "b.py::t5": 1.0, "gone.py::t": 99.0}
    # b.py (5.5 s) before a.py (3 s), c.py (untimed) last; in b.py the class C (4.5 s)
    # before t5 (1 s), and in C t4 before t3; in a.py t2 before t1
    assert slowest_first(paths, durations) == [3, 2, 4, 1, 0, 5]


def test_ties_and_untimed_siblings_keep_the_collected_order() -> None:
    paths = [["m", f"m::t{i}"] for i in range(5)]
    durations = {"m::t1": 1.0, "m::t3": 1.0, "m::t4": 2.0}
    assert slowest_first(paths, durations) == [4, 1, 3, 0, 2]
    assert slowest_first(paths, {}) == [0, 1, 2, 3, 4]


@st.composite
def collections(draw: st.DrawFn) -> tuple[list[list[str]], dict[str, float]]:
    """A collected suite: tests in modules, some in classes, grouped as pytest collects
    them; durations for some of the tests."""
    shape = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1,
                          max_size=20))
    paths = []
    for n, (module, cls) in enumerate(sorted(shape)):
        mod = f"m{module}.py"
        paths.append([mod, f"{mod}::t{n}"] if cls == 0 else
                     [mod, f"{mod}::C{cls}", f"{mod}::C{cls}::t{n}"])
    timed = draw(st.lists(st.sampled_from([p[-1] for p in paths]), unique=True))
    durations = {t: draw(st.floats(0, 100)) for t in timed}
    return paths, durations


def _contiguous(groups: list[str]) -> bool:
    seen: list[str] = []
    for g in groups:
        if seen and seen[-1] == g:
            continue
        if g in seen:
            return False
        seen.append(g)
    return True


@given(collections())
def test_slowest_first_properties(suite: tuple[list[list[str]], dict[str, float]]) -> None:
    paths, durations = suite
    order = slowest_first(paths, durations)
    assert sorted(order) == list(range(len(paths)))  # a permutation: nothing lost or doubled
    assert _contiguous([paths[i][0] for i in order])  # a module's tests stay together
    assert _contiguous([paths[i][1] for i in order if len(paths[i]) == 3])  # a class's too
    totals = {}
    for path in paths:
        if path[-1] in durations:
            totals[path[0]] = totals.get(path[0], 0.0) + durations[path[-1]]
    modules = list(dict.fromkeys(paths[i][0] for i in order))
    timed = [m for m in modules if m in totals]
    assert modules[: len(timed)] == timed  # timed modules first, by total time
    assert [totals[m] for m in timed] == sorted((totals[m] for m in timed), reverse=True)
    untimed = modules[len(timed):]
    assert untimed == [m for m in dict.fromkeys(p[0] for p in paths) if m not in totals]


def test_read_durations_keeps_only_valid_entries() -> None:
    raw = {"ok": 2.5, "int": 3, "negative": -1.0, "nan": math.nan, "inf": math.inf,
           "huge": 10**400, "text": "4", "flag": True, 7: 1.0}
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

#: Each generated test file starts with this: its tests log their names in run order.
LOG = """
def _log(name):
    with open("order.txt", "a") as handle:
        handle.write(name + "\\n")
"""

SUITE = LOG + """
import time

import pytest_fairness as pf
from pytest_fairness import checks  # loaded now, not in the first test's time


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
    time.sleep(0.1)
    pf.assert_wasserstein_below([0.1, 0.2], [0.2, 0.2], max_w1=1.0)
"""
COLLECTED = ["quick", "slow", "plain", "middle"]


def _cache_file(pytester: pytest.Pytester) -> Path:
    return pytester.path / ".pytest_cache" / "v" / DURATIONS_KEY


def _write_durations(pytester: pytest.Pytester, durations: dict[str, float]) -> None:
    _cache_file(pytester).parent.mkdir(parents=True, exist_ok=True)
    _cache_file(pytester).write_text(json.dumps(durations))


def _run_order(pytester: pytest.Pytester, *args: str, passed: int = 4) -> list[str]:
    log = pytester.path / "order.txt"
    log.unlink(missing_ok=True)
    if not (pytester.path / "conftest.py").exists() or "Randomly" not in (
            pytester.path / "conftest.py").read_text():
        args = ("-p", "no:randomly", *args)  # the real one, if installed
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=passed)
    return log.read_text().split()


def test_a_run_records_the_durations_of_its_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    assert _run_order(pytester) == COLLECTED
    durations = json.loads(_cache_file(pytester).read_text())
    assert set(durations) == {f"test_suite.py::test_{name}" for name in
                              ("quick", "slow", "no_fairness_result", "middle")}
    seconds = [durations[f"test_suite.py::test_{name}"] for name in
               ("quick", "middle", "no_fairness_result", "slow")]
    assert seconds == sorted(seconds)
    assert seconds[-1] >= 0.4
    # a later run of part of the suite updates its tests and keeps the others
    _write_durations(pytester, {**durations, "other.py::test_x": 9.0})
    pytester.runpytest_subprocess("-p", "no:randomly", "-k", "quick").assert_outcomes(
        passed=1, deselected=3)
    after = json.loads(_cache_file(pytester).read_text())
    assert after["other.py::test_x"] == 9.0
    assert after["test_suite.py::test_slow"] == durations["test_suite.py::test_slow"]


def test_xdist_workers_run_the_slowest_tests_first(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _write_durations(pytester, {"test_suite.py::test_quick": 0.01,
                                "test_suite.py::test_slow": 0.5,
                                "test_suite.py::test_middle": 0.25})
    # one worker runs every test, in the order the workers collected them
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == [
        "slow", "middle", "quick", "plain"]
    assert _run_order(pytester, "-p", "xdist", "-n", "1",
                      "--fairness-xdist-order=collected") == COLLECTED
    # a run in one process keeps the collected order
    assert _run_order(pytester) == COLLECTED


def test_workers_use_the_durations_the_controller_read(pytester: pytest.Pytester) -> None:
    """The controller reads the durations once and hands them over: a cache rewritten
    after that (another run sharing it) does not reach the workers' collection."""
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeconftest("""
import pytest

@pytest.hookimpl(trylast=True)
def pytest_configure_node(node):
    node.config.cache.set("fairness/durations", {"test_suite.py::test_quick": 99.0})
""")
    _write_durations(pytester, {"test_suite.py::test_quick": 0.01,
                                "test_suite.py::test_slow": 0.5,
                                "test_suite.py::test_middle": 0.25})
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == [
        "slow", "middle", "quick", "plain"]


def test_scope_pinning_dist_modes_keep_the_collected_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _write_durations(pytester, {"test_suite.py::test_quick": 0.01,
                                "test_suite.py::test_slow": 0.5})
    for mode in ("loadfile", "loadscope"):
        assert _run_order(pytester, "-p", "xdist", "-n", "1", "--dist", mode) == COLLECTED
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "1", "--dist", "loadfile")
    result.stdout.fnmatch_lines(["*xdist order: collected*"])


DOCTESTED = LOG + """
import pytest


@pytest.fixture(scope="module")
def shared():
    _log("SETUP")

def halve(x):
    \"\"\"
    >>> halve(4)
    2.0
    \"\"\"
    return x / 2

def test_a(shared):
    _log("a")

def test_b(shared):
    _log("b")
"""


def test_a_modules_doctests_do_not_split_its_tests(pytester: pytest.Pytester) -> None:
    """With --doctest-modules a file is two collectors of one node id (its tests and its
    doctests); each stays together, so the module fixture is set up once."""
    pytester.makepyfile(test_docs=DOCTESTED)
    _write_durations(pytester, {"test_docs.py::test_a": 0.1, "test_docs.py::test_b": 3.0,
                                "test_docs.py::test_docs.halve": 1.0})
    order = _run_order(pytester, "-p", "xdist", "-n", "1", "--doctest-modules", passed=3)
    assert order == ["SETUP", "b", "a"]


def test_the_header_says_which_order_xdist_workers_use(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "1")
    result.stdout.fnmatch_lines(["*xdist order: slowest first (no durations recorded yet)*"])
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "1")
    result.stdout.fnmatch_lines(["*xdist order: slowest first (4 timed tests)*"])
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "1",
                                           "--fairness-xdist-order=collected")
    result.stdout.fnmatch_lines(["*xdist order: collected*"])
    assert "xdist order" not in pytester.runpytest_subprocess().stdout.str()


MODULE = LOG + """
import time


def test_1():
    _log("{name}1")

def test_2():
    _log("{name}2")
"""


def test_a_modules_tests_stay_together(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a=MODULE.format(name="a"), test_b=MODULE.format(name="b"))
    _write_durations(pytester, {"test_a.py::test_1": 2.0, "test_a.py::test_2": 0.1,
                                "test_b.py::test_1": 0.5, "test_b.py::test_2": 3.0})
    # test_b.py (3.5 s) first, its slower test first; test_a.py's tests after, together
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == ["b2", "b1", "a1", "a2"]
    _run_order(pytester, "-p", "xdist", "-n", "2")  # workers agree on the order


ORDERED_ELSEWHERE = {
    "session-scoped parameters": ("""
import pytest

@pytest.fixture(scope="session", params=["x", "y"])
def model(request):
    return request.param
""", LOG + """
def test_1(model):
    _log("{name}1" + model)

def test_2(model):
    _log("{name}2" + model)
"""),
    "pytest-randomly": ("""
import pytest

class Randomly:
    pass

def pytest_addoption(parser):
    parser.addoption("--randomly-dont-reorganize", action="store_false",
                     dest="randomly_reorganize", default=True)

def pytest_configure(config):
    config.pluginmanager.register(Randomly(), "randomly")
""", MODULE),
    "order markers": ("", MODULE.replace("def test_1", "import pytest\n\n"
                                         "@pytest.mark.order(1)\ndef test_1")),
}


@pytest.mark.parametrize("case", sorted(ORDERED_ELSEWHERE))
def test_an_order_chosen_elsewhere_is_kept(pytester: pytest.Pytester, case: str) -> None:
    conftest, module = ORDERED_ELSEWHERE[case]
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_a=module.format(name="a"), test_b=module.format(name="b"))
    tests = 8 if "params" in conftest else 4
    pytest_order = _run_order(pytester, "-p", "xdist", "-n", "1",
                              "--fairness-xdist-order=collected", passed=tests)
    durations = json.loads(_cache_file(pytester).read_text())
    assert len(durations) == tests
    _write_durations(pytester, {k: 10.0 - i for i, k in enumerate(reversed(durations))})
    assert _run_order(pytester, "-p", "xdist", "-n", "1", passed=tests) == pytest_order


def test_xdist_workers_keep_the_collected_order_without_durations(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    assert _run_order(pytester, "-p", "xdist", "-n", "1", "-p", "no:cacheprovider") == (
        COLLECTED)
    _cache_file(pytester).parent.mkdir(parents=True)
    _cache_file(pytester).write_text("{not json")
    assert _run_order(pytester, "-p", "xdist", "-n", "1") == COLLECTED


def test_unknown_xdist_order_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fairness-xdist-order=fastest")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--fairness-xdist-order='fastest': choose one of slowest-first, collected*"])
