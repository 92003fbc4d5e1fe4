"""What fails a run, end to end with pytester: warn-only with known failures (xfail), the
`--fairness-gate` choice (bounds, regressions, both, none), and pytest's last line saying
why a run failed (regressions, report errors) or what it did not judge (a comparison that
compared nothing)."""

from __future__ import annotations

import json
import re

import pytest

PLANTED = '''
import pytest
import pytest_fairness as pf

def planted(texts):
    """Moves the score by 0.65 when the name Alice is present."""
    return [0.85 if "Alice" in t else 0.2 for t in texts]

def biased():
    pf.assert_label_invariant(planted, "He is a doctor.", "Alice is a doctor.")

def fair():
    pf.assert_label_invariant(planted, "He is a doctor.", "Bob is a doctor.")
'''

KNOWN_FAILURES = '''
import pytest
from planted import biased, fair

@pytest.mark.xfail(strict=True, reason="known bias")
def test_strict_known_bias():
    biased()

@pytest.mark.xfail(reason="known bias, not strict")
def test_known_bias():
    biased()

@pytest.mark.xfail(strict=True, reason="known bias")
@pytest.mark.fairness(warn_only=True)
def test_marked_warn_only_known_bias():
    biased()

@pytest.mark.xfail(False, reason="a condition that does not hold")
def test_condition_false():
    biased()

@pytest.mark.xfail(strict=True, reason="fixed since")
def test_fixed():
    fair()

def test_unknown_bias():
    biased()

def test_fair():
    fair()
'''


def _outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if not k.startswith("warning")}


def _statuses(pytester: pytest.Pytester, directory: str = "out") -> dict[str, tuple[str, str]]:
    """test name -> (fairness status, pytest outcome), from the run's fairness.json."""
    doc = json.loads((pytester.path / directory / "fairness.json").read_text())
    return {g["nodeid"].split("::")[1]: (g["status"], g["outcome"]) for g in doc["summary"]}


def test_warn_only_keeps_a_known_failure_an_expected_failure(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(planted=PLANTED, test_known=KNOWN_FAILURES)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-warn-only",
                                "--fairness-report=out")
    # the known failures stay xfailed; the one fixed since is a strict XPASS, as without
    # warn-only; the unknown one warns; xfail(False) does not apply
    result.assert_outcomes(passed=3, xfailed=3, failed=1, warnings=2)
    result.stdout.fnmatch_lines(["FAILED test_known.py::test_fixed*"])
    assert _statuses(pytester) == {
        "test_strict_known_bias": ("XFAIL", "xfailed"),
        "test_known_bias": ("XFAIL", "xfailed"),
        "test_marked_warn_only_known_bias": ("XFAIL", "xfailed"),
        "test_condition_false": ("WARN", "passed"),
        "test_fixed": ("PASS", "failed"),
        "test_unknown_bias": ("WARN", "passed"),
        "test_fair": ("PASS", "passed"),
    }


def test_warn_only_run_of_known_failures_exits_0(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(planted=PLANTED, test_known=KNOWN_FAILURES.replace(
        'reason="fixed since"', 'reason="fixed since", strict=False'
    ).replace("strict=True, reason=\"fixed since\", ", ""))
    pytester.makeini("[pytest]\nfairness_warn_only = true\n")
    result = pytester.runpytest("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=3, xfailed=3, xpassed=1, warnings=2)


def test_runxfail_runs_marked_tests_as_plain_warn_only_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(planted=PLANTED, test_known=KNOWN_FAILURES)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-warn-only", "--runxfail")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=7, warnings=5)


def test_an_xfail_that_expects_another_exception_is_not_an_expected_fairness_failure(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(planted=PLANTED, test_raises='''
import pytest
from planted import biased

@pytest.mark.xfail(raises=ValueError, reason="expects a ValueError only")
def test_other_exception():
    biased()

@pytest.mark.xfail(raises=AssertionError, reason="any assertion")
def test_assertion():
    biased()
''')
    result = pytester.runpytest("-p", "no:randomly", "--fairness-warn-only")
    result.assert_outcomes(xpassed=1, xfailed=1, warnings=1)


def test_hypothesis_known_failure_stays_xfailed_under_warn_only(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(planted=PLANTED, test_hyp='''
import pytest
from hypothesis import given, settings, strategies as st
import pytest_fairness as pf
from planted import planted

@pytest.mark.xfail(strict=True, reason="known name bias")
@settings(derandomize=True, database=None, max_examples=20, deadline=None)
@given(st.sampled_from(["Alice", "Bob", "Carol"]))
def test_names(name):
    pf.assert_label_invariant(planted, "He is a doctor.", f"{name} is a doctor.")
''')
    result = pytester.runpytest("-p", "no:randomly", "--fairness-warn-only")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(xfailed=1)


# --------------------------------------------------------------------------- the gate

GATE_SUITE = '''
import json
from pathlib import Path
import pytest
import pytest_fairness as pf

def check(relation, key, bound):
    value = json.loads(Path("values.json").read_text())[key]
    pf.assert_result(pf.FairnessResult(relation, measurements=[pf.Measurement("gap", value,
                                                                              bound)]))

def test_stable():
    check("stable", "a", 1.0)

def test_known_failure():
    check("known", "b", 0.1)

@pytest.mark.xfail(strict=True, reason="known bias")
def test_marked_known():
    check("marked", "c", 0.1)
'''


def _values(pytester: pytest.Pytester, a: float, b: float = 0.5, c: float = 0.5) -> None:
    pytester.path.joinpath("values.json").write_text(json.dumps({"a": a, "b": b, "c": c}))


@pytest.fixture
def gated(pytester: pytest.Pytester) -> pytest.Pytester:
    """A suite with a passing metric, a failing one and a known (xfail) failure; a
    baseline saved where a = 0.2, and a run to compare where a = 0.9 (a regression)."""
    pytester.makepyfile(test_suite=GATE_SUITE)
    _values(pytester, 0.2)
    saved = pytester.runpytest("-p", "no:randomly", "--fairness-gate=none",
                               "--fairness-save-baseline=base.json")
    assert saved.ret == pytest.ExitCode.OK
    _values(pytester, 0.9)
    return pytester


def test_gate_on_regressions_only_keeps_the_known_failures_visible(
    gated: pytest.Pytester,
) -> None:
    result = gated.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                             "--fairness-gate=regressions", "--fairness-report=out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _outcomes(result) == {"passed": 2, "xfailed": 1, "fairness": 1}
    lines = result.stdout.lines
    assert re.fullmatch(r"=+ 2 passed, 1 xfailed, 1 warning, 1 fairness regression in .*",
                        lines[-1]), lines[-1]
    assert _statuses(gated) == {"test_stable": ("PASS", "passed"),
                                "test_known_failure": ("WARN", "passed"),
                                "test_marked_known": ("XFAIL", "xfailed")}
    result.stdout.fnmatch_lines(["*test_stable*stable*gap: 0.2 -> 0.9*",
                                 "*FAIL: 1 regressed*"])
    result.stdout.fnmatch_lines(["fairness: *compare=base.json*gate=regressions*"])


def test_warn_only_does_not_turn_the_regression_gate_off(gated: pytest.Pytester) -> None:
    result = gated.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                             "--fairness-warn-only")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.stdout.lines[-1].split(" in ")[0].endswith(
        "2 passed, 1 xfailed, 1 warning, 1 fairness regression")


def test_gate_on_bounds_lists_regressions_as_warn(gated: pytest.Pytester) -> None:
    result = gated.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                             "--fairness-gate=bounds")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["*WARN: 1 regressed*"])
    assert "fairness regression" not in result.stdout.lines[-1]


def test_gate_on_both_fails_on_bounds_and_regressions(gated: pytest.Pytester) -> None:
    result = gated.runpytest("-p", "no:randomly", "--fairness-compare=base.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert re.fullmatch(r"=+ 1 failed, 1 passed, 1 xfailed, 1 fairness regression in .*",
                        result.stdout.lines[-1]), result.stdout.lines[-1]


def test_gate_none_reports_everything_and_fails_nothing(gated: pytest.Pytester) -> None:
    gated.makeini("[pytest]\nfairness_gate = none\nfairness_compare = base.json\n")
    result = gated.runpytest("-p", "no:randomly", "--fairness-report=out")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*WARN: 1 regressed*"])
    assert _statuses(gated)["test_known_failure"] == ("WARN", "passed")


def test_a_marker_can_hold_one_bound_under_the_regression_gate(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=GATE_SUITE.replace(
        "def test_known_failure", "@pytest.mark.fairness(warn_only=False)\ndef test_known_failure"))
    _values(pytester, 0.2)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-gate=regressions")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)


def test_bad_gate_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest("--fairness-gate=regression")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fairness-gate='regression': choose one of both, bounds, "
                                 "regressions, none*"])


def test_a_comparison_that_compared_nothing_says_so(gated: pytest.Pytester) -> None:
    gated.path.joinpath("base.json").write_text(
        gated.path.joinpath("base.json").read_text().replace("test_suite.py", "elsewhere.py"))
    result = gated.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                             "--fairness-gate=regressions")
    assert result.ret == pytest.ExitCode.OK  # nothing to gate on; said, not failed
    result.stdout.fnmatch_lines([
        "fairness: WARNING: the baseline base.json shares no metric with this run: "
        "0 compared, 3 new, 3 missing, so nothing was gated*",
    ])
    assert result.stdout.lines[-1].split(" in ")[0].endswith(
        "2 passed, 1 xfailed, 1 warning, 3 fairness metrics not compared")


def test_a_regression_gate_without_a_baseline_says_so(gated: pytest.Pytester) -> None:
    result = gated.runpytest("-p", "no:randomly", "--fairness-gate=regressions")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "fairness: WARNING: --fairness-gate=regressions but no baseline to compare with*"])
    assert "3 fairness metrics not compared" in result.stdout.lines[-1]


# --------------------------------------------------------------------------- other failures


def test_an_unwritable_report_fails_the_run_and_says_so_in_the_last_line(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=GATE_SUITE)
    _values(pytester, 0.2, b=0.05, c=0.5)
    pytester.path.joinpath("taken").write_text("a file where the report directory goes")
    result = pytester.runpytest("-p", "no:randomly", "--fairness-report=taken")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["fairness: could not write *taken*"])
    assert re.fullmatch(r"=+ 2 passed, 1 xfailed, 1 fairness report error in .*",
                        result.stdout.lines[-1]), result.stdout.lines[-1]


def test_a_failing_report_format_is_counted_in_the_last_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('''
import pytest_fairness as pf

def broken(summary, directory, *, created):
    raise RuntimeError("no disk for this format")

pf.register_format("broken", broken, replace=True)
''')  # in a subprocess: the registry is the process's
    pytester.makepyfile(test_suite=GATE_SUITE)
    _values(pytester, 0.2, b=0.05, c=0.5)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider",
                                           "--fairness-report=out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*report format 'broken' failed: ExtensionError: the report "
                                 "format 'broken' (registered at conftest.py:*) failed when "
                                 "called: RuntimeError: no disk*"])
    assert "1 fairness report error in" in result.stdout.lines[-1]
