"""The run's counts, defined once (report.summary; README "Reading the report"), against
pytest's own counts in a real run.

Fairness tests are counted by pytest's outcome (so those counts are pytest's, for the tests
that recorded results); relations by verdict; discriminatory inputs by what the relations
counted, with a relation that failed on a statistic alone said as such (never "0
violations"), and the inputs a relation recorded beyond its count kept apart.
"""

from __future__ import annotations

import json
import re

import pytest

# Every test records like a relation does (record, then raise, or warn under warn-only);
# inputs "He is nurse i." -> "She is nurse i." are shared between tests.
COUNT_SUITE = '''
import warnings
import pytest
from pytest_fairness.context import current_settings, record

def rec(relation, value, bound, *, op="<=", n_inputs=10, violations=0, listed=None):
    passed = value <= bound if op == "<=" else value >= bound
    vs = [{"original": f"He is nurse {i}.", "perturbed": f"She is nurse {i}.",
           "original_spans": [[0, 2]], "perturbed_spans": [[0, 3]],
           "original_score": 0.1, "perturbed_score": 0.5 + i / 100, "measure": 0.4 + i / 100}
          for i in range(violations if listed is None else listed)]
    record({"relation": relation, "passed": passed,
            "measurements": [{"name": "m", "value": value, "bound": bound, "op": op}],
            "violations": vs, "n_inputs": n_inputs, "n_violations": violations})
    if not passed:
        if current_settings().warn_only:
            warnings.warn(f"{relation} does not hold")
        else:
            raise AssertionError(f"{relation} does not hold")

def test_pass():
    rec("invariance", 0.1, 0.5)

def test_fail_on_inputs():
    rec("invariance", 0.9, 0.5, violations=3)

def test_fail_on_a_statistic():
    rec("bias_auc", 0.3, 0.5, op=">=", n_inputs=0)

@pytest.mark.fairness(warn_only=True)
def test_warn():
    rec("invariance", 0.9, 0.5, violations=2)

@pytest.mark.xfail(reason="known", strict=True)
def test_known_failure():
    rec("invariance", 0.9, 0.5, violations=1)

@pytest.mark.xfail(reason="fixed since", strict=False)
def test_fixed():
    rec("invariance", 0.1, 0.5)

def test_skipped_after_recording():
    rec("invariance", 0.1, 0.5)
    pytest.skip("no GPU for the rest")

def test_passing_relation_listing_its_largest_shifts():
    rec("score_sens", 0.1, 0.5, violations=0, listed=4)

def test_two_relations():
    rec("invariance", 0.1, 0.5)
    rec("score_sens", 0.1, 0.5)

def test_not_a_fairness_test():
    assert True
'''

OUTCOME_LINE = re.compile(
    r"^fairness: (\d+) tests? recorded fairness results; (?:its|their) pytest outcomes?: (.*)$")
VERDICT_LINE = re.compile(r"^fairness: (\d+) relations? checked; (?:its|their) verdicts?: (.*)$")


def _counts(text: str) -> dict[str, int]:
    """'2 failed, 4 passed [warn-only]' -> {'failed': 2, 'passed': 4}."""
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", text)}


def _line(lines: list[str], pattern: re.Pattern[str]) -> re.Match[str]:
    found = [m for m in map(pattern.match, lines) if m]
    assert len(found) == 1, "\n".join(lines)
    return found[0]


def test_counts_match_pytests_own_and_say_what_was_judged(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=COUNT_SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-report=out")
    pytest_counts = result.parseoutcomes()
    assert {k: v for k, v in pytest_counts.items() if k != "warnings"} == {
        "failed": 2, "passed": 5, "skipped": 1, "xfailed": 1, "xpassed": 1}
    lines = result.stdout.str().split("fairness summary")[1].splitlines()

    # tests: pytest's counts, restricted to the tests that recorded results
    tests = _line(lines, OUTCOME_LINE)
    assert int(tests[1]) == sum(pytest_counts[k] for k in ("failed", "passed", "skipped",
                                                           "xfailed", "xpassed")) - 1
    fairness_outcomes = _counts(tests[2])
    for outcome in ("failed", "skipped", "xfailed", "xpassed"):
        assert fairness_outcomes[outcome] == pytest_counts[outcome]
    assert fairness_outcomes["passed"] == pytest_counts["passed"] - 1  # the plain test

    # relations: one per test and relation name, by verdict
    relations = _line(lines, VERDICT_LINE)
    assert int(relations[1]) == 10
    assert _counts(relations[2]) == {"FAIL": 2, "WARN": 1, "XFAIL": 1, "PASS": 6}

    # discriminatory inputs: 3 + 2 + 1 counted; 3 distinct texts; the failing AUC relation
    # has none and is said to be judged on a statistic; the 4 largest shifts of a passing
    # relation are not counted
    inputs = next(line for line in lines if "discriminatory input" in line
                  and line.startswith("fairness: "))
    assert inputs == ("fairness: 6 discriminatory inputs found (3 distinct); 1 of the 4 "
                      "relations that did not hold was judged on a statistic alone (no "
                      "input-level finding)")
    text = result.stdout.str()
    assert not re.search(r"\b0 (violations|discriminatory)", text)
    result.stdout.fnmatch_lines(["  test_suite.py::test_fail_on_a_statistic [[]bias_auc]",
                                 "    m*0.3*>= 0.5*FAIL*-"])

    doc = json.loads((pytester.path / "out" / "fairness.json").read_text())
    totals = doc["totals"]
    assert {o: totals[f"tests_{o}"] for o in fairness_outcomes} == fairness_outcomes
    assert (totals["tests"], totals["groups"]) == (9, 10)
    assert (totals["failed"], totals["warned"], totals["xfailed"], totals["passed"]) == (
        2, 1, 1, 6)
    assert (totals["violations"], totals["recorded_violations"],
            totals["distinct_violations"], totals["reference_inputs"],
            totals["statistic_only"]) == (6, 6, 3, 4, 1)
    assert len(doc["discriminatory_inputs"]) == 6
    assert len(doc["reference_inputs"]) == 4
    status = {g["nodeid"].split("::")[1]: g["status"] for g in doc["summary"]}
    assert sum(1 for s in status.values() if s == "PASS") + 1 == 6  # test_two_relations: 2

    quiet = pytester.runpytest("-p", "no:randomly", "-q")
    quiet.stdout.fnmatch_lines([
        "FAIL test_suite.py::test_fail_on_a_statistic bias_auc: m = 0.3 (>= 0.5), judged on "
        "the statistic (no inputs counted)",
        "FAIL test_suite.py::test_fail_on_inputs invariance: m = 0.9 (<= 0.5), 3/10 inputs "
        "discriminatory",
    ])
    html = (pytester.path / "out" / "fairness.html").read_text()
    assert '<span class="badge FAIL">2 failed</span>' in html
    assert '<span class="badge XFAIL">1 xfailed</span>' in html
    assert "6 discriminatory inputs found (3 distinct)" in html
