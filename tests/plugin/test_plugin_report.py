"""The reporting side of the plugin, end to end with pytester.

Small suites record hand-built results through `pytest_fairness.context.record` (and
call real `assert_*` functions on a planted-bias model), and the tests check the terminal
summary, the JSON (against its schema), the HTML (screenshot in headless Chromium), JUnit
properties, the baseline gate, progress output, and pytest-xdist equivalence.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_fairness.report import schema_path

# A helper module for the generated suites: records a result the way assert_* does (record,
# then raise, or warn under warn-only).
FAIRSAMPLE = '''
import json, warnings
from pathlib import Path
from pytest_fairness.context import current_settings, record

def check(relation, value, bound, *, name="max_shift", n_inputs=10, violations=0, extra=None):
    passed = value <= bound
    vs = [{"original": f"He is nurse {i}.", "perturbed": f"She is nurse {i}.",
           "original_spans": [[0, 2]], "perturbed_spans": [[0, 3]],
           "original_score": 0.1, "perturbed_score": 0.1 + value / (i + 1),
           "original_label": "ok", "perturbed_label": "toxic", "measure": value / (i + 1),
           "kind": "gender_swap", "attribute": "gender", "detail": None}
          for i in range(violations)]
    record({"relation": relation, "passed": passed,
            "measurements": [{"name": name, "value": value, "bound": bound, "op": "<=",
                              "ci": None, "holds": passed}],
            "violations": vs, "n_inputs": n_inputs, "n_violations": violations,
            "extra": extra or {}})
    if not passed:
        message = f"{relation}: {name} = {value} > {bound}"
        if current_settings().warn_only:
            warnings.warn(message)
        else:
            raise AssertionError(message)

def value(key):
    return json.loads(Path("values.json").read_text())[key]
'''

SUITE = '''
import pytest
from hypothesis import given, settings, strategies as st
from fairsample import check

CURVE = [[t / 10, 0.3 - abs(t / 10 - 0.5) / 2] for t in range(1, 10)]
SENS = {"Maria": 0.03, "Emma": -0.01, "John": 0.02, "Wei": -0.02}
GROUPS = {"Maria": "female", "Emma": "female", "John": "male", "Wei": "male"}

def test_names_pass():
    check("score_sens", 0.03, 0.05, name="max |ScoreSens|",
          extra={"label_dist_curve": CURVE, "score_sens": SENS, "name_groups": GROUPS})

def test_gender_fail():
    check("label_invariance", 0.8, 0.1, violations=3)

@pytest.mark.fairness(warn_only=True)
def test_gender_warn():
    check("label_invariance", 0.4, 0.1, violations=2)

@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_eps(eps):
    check("eps_k_fairness", 0.0, eps, name="violation fraction", n_inputs=5)

@settings(derandomize=True, database=None, max_examples=40, deadline=None)
@given(st.integers(0, 100))
def test_hypothesis_search(x):
    check("label_invariance", x / 100, 0.5, violations=int(x > 50), n_inputs=1)

def test_not_a_fairness_test():
    assert 1 + 1 == 2
'''


def _project(pytester: pytest.Pytester, suite: str = SUITE) -> pytest.Pytester:
    pytester.makepyfile(fairsample=FAIRSAMPLE, test_suite=suite)
    return pytester


def _validate(path: Path, kind: str = "report") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads(schema_path(kind).read_text())  # type: ignore[arg-type]
    jsonschema.Draft202012Validator(schema).validate(doc)
    return doc


# --------------------------------------------------------------------------- terminal


def test_summary_of_a_run_that_passes_fails_and_warns(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=5, failed=2, warnings=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*= fairness summary =*",
        "  test [[]relation]",
        "    statistic*judged*worst*bound*result*inputs",
        "  test_suite.py::test_eps[[]0.1] [[]eps_k_fairness]",
        "    violation fraction*0*<= 0.1*PASS*0/5",
        "  test_suite.py::test_gender_fail [[]label_invariance]",
        "    max_shift*0.8*<= 0.1*FAIL*3/10",
        "  test_suite.py::test_gender_warn [[]label_invariance]",
        "    max_shift*0.4*<= 0.1*WARN*2/10",
        "  test_suite.py::test_hypothesis_search [[]label_invariance]",
        "    max_shift*0.51*0.*<= 0.5*FAIL*",
        "  test_suite.py::test_names_pass [[]score_sens]",
        "    max |ScoreSens|*0.03*<= 0.05*PASS*0/10",
        "hypothesis: shrunk failing examples",
        "  test_suite.py::test_hypothesis_search [[]label_invariance]",
        "    * examples checked, * failed",
        "    max_shift: final (shrunk) example 0.51 (<= 0.5)",
        "      worst seen 0.* over * examples",
        "    F* test_hypothesis_search(",
        "        x=51,",
        "    )",
        "worst discriminatory inputs*",
        "   1. test_suite.py::test_hypothesis_search [[]label_invariance]",
        "         measure +0.*  (gender_swap, gender)",
        "         [[][[]He]] is nurse 0.  0.100 (ok)",
        "      -> [[][[]She]] is nurse 0.  1.0* (toxic)",
        "LabelDist by threshold: test_suite.py::test_names_pass [[]score_sens]",
        "ScoreSens per name: test_suite.py::test_names_pass [[]score_sens]",
        "  female  Maria *|#* +0.030",
        "          Emma *#|* -0.010",
        "  male    John *|#* +0.020",
        "          Wei *#|* -0.020",
        "fairness: 6 tests recorded fairness results; their pytest outcomes: 2 failed, 4 passed",
        "fairness: 6 relations checked; their verdicts: 2 FAIL, 1 WARN, 3 PASS",
        "fairness: * discriminatory inputs found (* distinct*)",
        "*short test summary info*",
    ])
    assert "test_not_a_fairness_test" not in result.stdout.str().split("fairness summary")[1]


XFAIL_SUITE = '''
import pytest
from fairsample import check

@pytest.mark.xfail(reason="known bias", strict=True)
def test_known_bias():
    check("label_invariance", 0.8, 0.1, violations=2)

@pytest.mark.xfail(reason="fixed since", strict=False)
def test_fixed_bias():
    check("label_invariance", 0.05, 0.1)

def test_real_failure():
    check("score_sens", 0.3, 0.1, name="max |ScoreSens|")
'''


def test_an_expected_failure_is_xfail_in_the_summary_and_report(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, XFAIL_SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-report=out")
    result.assert_outcomes(failed=1, xfailed=1, xpassed=1)
    result.stdout.fnmatch_lines([
        "  test_suite.py::test_known_bias [[]label_invariance]",
        "    max_shift*0.8*<= 0.1*XFAIL*2/10",
        "  test_suite.py::test_real_failure [[]score_sens]",
        "    max |ScoreSens|*0.3*<= 0.1*FAIL*",
        "fairness: 3 tests recorded fairness results; their pytest outcomes: 1 failed, "
        "1 xfailed, 1 xpassed",
        "fairness: 3 relations checked; their verdicts: 1 FAIL, 1 XFAIL, 1 PASS",
    ])
    doc = _validate(pytester.path / "out" / "fairness.json")
    assert (doc["totals"]["xfailed"], doc["totals"]["failed"]) == (1, 1)
    status = {g["nodeid"].split("::")[1]: (g["status"], g["outcome"]) for g in doc["summary"]}
    assert status == {"test_known_bias": ("XFAIL", "xfailed"),
                      "test_fixed_bias": ("PASS", "xpassed"),
                      "test_real_failure": ("FAIL", "failed")}
    assert 'class="badge XFAIL">1 xfailed' in (pytester.path / "out" / "fairness.html").read_text()


def test_no_summary_when_no_fairness_assertion_ran(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "fairness summary" not in result.stdout.str()


def test_quiet_keeps_one_line_per_failing_test(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("-q", "-p", "no:randomly")
    section = result.stdout.str().split("fairness summary")[1].splitlines()[1:5]
    assert section[0] == ("FAIL test_suite.py::test_gender_fail label_invariance: "
                          "max_shift = 0.8 (<= 0.1), 3/10 inputs discriminatory")
    assert section[1] == ("WARN test_suite.py::test_gender_warn label_invariance: "
                          "max_shift = 0.4 (<= 0.1), 2/10 inputs discriminatory")
    assert section[2].startswith("FAIL test_suite.py::test_hypothesis_search label_invariance: "
                                 "max_shift = 0.51 (<= 0.5), ")
    assert section[3].startswith("fairness: 6 tests recorded fairness results; their pytest "
                                 "outcomes: 2 failed, 4 passed")
    assert "worst discriminatory inputs" not in result.stdout.str()


def test_warn_only_run_passes_and_says_warn(pytester: pytest.Pytester) -> None:
    _project(pytester, SUITE.replace("@settings(", "@settings(phases=[], "))
    pytester.makeini("[pytest]\nfairness_warn_only = true\n")
    result = pytester.runpytest("-p", "no:randomly", "-k", "not hypothesis")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "    max_shift*0.8*<= 0.1*WARN*3/10",
        "fairness: 5 relations checked; their verdicts: 2 WARN, 3 PASS [[]warn-only]",
        "fairness: 5 discriminatory inputs found (3 distinct)",
    ])


def _subprocess(pytester: pytest.Pytester, *args: str, columns: int = 100,
                **env: str) -> pytest.RunResult:
    old = {k: os.environ.get(k) for k in ("COLUMNS", *env)}
    os.environ["COLUMNS"] = str(columns)
    os.environ.update(env)
    try:
        return pytester.runpytest_subprocess(*args)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_no_colour_codes_when_not_a_terminal(pytester: pytest.Pytester) -> None:
    _project(pytester)
    plain = _subprocess(pytester, "-p", "no:randomly", "-k", "gender")
    assert "fairness summary" in plain.stdout.str()
    assert "\x1b[" not in plain.stdout.str()
    coloured = _subprocess(pytester, "-p", "no:randomly", "-k", "gender", "--color=yes")
    summary = coloured.stdout.str().split("fairness summary")[1]
    assert "\x1b[31;1mFAIL" in summary
    assert "[[\x1b[1;33mShe\x1b[0m]]" in summary


def test_width_follows_the_terminal(pytester: pytest.Pytester) -> None:
    _project(pytester)
    wide = _subprocess(pytester, "-p", "no:randomly", "-k", "gender", columns=140)
    wide.stdout.fnmatch_lines(["  test_suite.py::test_gender_fail  label_invariance  max_shift"
                               "*0.8*<= 0.1  FAIL*3/10"])
    narrow = _subprocess(pytester, "-p", "no:randomly", "-k", "gender", columns=60)
    narrow.stdout.fnmatch_lines(["  test_suite.py::test_gender_fail [[]label_invariance]",
                                 "    max_shift*0.8*FAIL*3/10"])
    section = narrow.stdout.str().split("fairness summary")[1].split("short test summary")[0]
    assert max(len(line) for line in section.splitlines()[1:8]) <= 60


# --------------------------------------------------------------------------- files


def test_report_files_json_schema_and_html(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-report=reports/fair")
    out = pytester.path / "reports" / "fair"
    result.stdout.fnmatch_lines([f"fairness report: {out / 'fairness.json'}, "
                                 f"{out / 'fairness.html'}"])
    doc = _validate(out / "fairness.json")
    assert [t["nodeid"] for t in doc["tests"]] == sorted(t["nodeid"] for t in doc["tests"])
    assert doc["totals"]["failed"] == 2
    assert doc["totals"]["warned"] == 1
    hyp = next(t for t in doc["tests"] if t["nodeid"].endswith("test_hypothesis_search"))
    assert hyp["hypothesis"] is True
    assert len(hyp["results"]) > 5
    assert "x=51" in hyp["falsifying_example"]
    assert hyp["results"][-1]["measurements"][0]["value"] == 0.51  # the shrunk example is last
    warn = next(t for t in doc["tests"] if t["nodeid"].endswith("test_gender_warn"))
    assert warn["warn_only"] is True
    assert warn["outcome"] == "passed"
    page = (out / "fairness.html").read_text()
    assert "test_suite.py::test_gender_fail" in page
    assert "<mark class=\"pert\">She</mark>" in page


def test_report_is_written_even_without_fairness_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest("--fairness-report=out")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fairness report: *fairness.json, *fairness.html"])
    assert "fairness summary" not in result.stdout.str()
    doc = _validate(pytester.path / "out" / "fairness.json")
    assert doc["tests"] == []
    assert doc["totals"]["groups"] == 0


def test_junit_xml_carries_the_metric_values(pytester: pytest.Pytester) -> None:
    _project(pytester)
    pytester.runpytest("-p", "no:randomly", "--junitxml=junit.xml", "-k", "gender or names")
    root = ET.parse(pytester.path / "junit.xml").getroot()
    props = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }
    assert props["test_gender_fail"] == {
        "fairness.label_invariance.status": "FAIL",
        "fairness.label_invariance.max_shift": "0.8",
        "fairness.label_invariance.bound.max_shift": "<= 0.1",
        "fairness.label_invariance.discriminatory_inputs": "3",
    }
    assert props["test_gender_warn"]["fairness.label_invariance.status"] == "WARN"
    assert props["test_names_pass"]["fairness.score_sens.max |ScoreSens|"] == "0.03"


# --------------------------------------------------------------------------- baselines

BASELINE_SUITE = '''
from fairsample import check, value

def test_metric():
    check("label_invariance", value("a"), 1.0, name="max_shift")

def test_other():
    check("score_sens", value("b"), 1.0, name="max |ScoreSens|", n_inputs=4,
          violations=0)
'''


def _values(pytester: pytest.Pytester, a: float, b: float = 0.2) -> None:
    pytester.path.joinpath("values.json").write_text(json.dumps({"a": a, "b": b}))


def test_baseline_gate_fails_on_a_regression_and_passes_on_an_improvement(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, BASELINE_SUITE)
    _values(pytester, 0.3)
    saved = pytester.runpytest("--fairness-save-baseline=baselines/fair.json")
    assert saved.ret == pytest.ExitCode.OK
    saved.stdout.fnmatch_lines(["fairness baseline saved to baselines/fair.json"])
    base = _validate(pytester.path / "baselines" / "fair.json", "baseline")
    assert {(m["nodeid"], m["metric"]): m["value"] for m in base["metrics"]}[
        ("test_suite.py::test_metric", "max_shift")] == 0.3

    _values(pytester, 0.5)  # planted regression; every test still passes its own bound
    worse = pytester.runpytest("--fairness-compare=baselines/fair.json", "--fairness-report=r")
    worse.assert_outcomes(passed=2)
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines([
        "baseline comparison against baselines/fair.json (tolerance: none)",
        "  worse:",
        "    test_suite.py::test_metric [[]label_invariance] max_shift: 0.3 -> 0.5 (+0.2)",
        "  FAIL: 1 regressed, 0 improved, 3 unchanged, 0 new, 0 missing",
    ])
    comparison = _validate(pytester.path / "r" / "fairness.json")["comparison"]
    assert comparison["failed"] is True

    _values(pytester, 0.1, b=0.25)  # better on one metric, worse on the other ...
    mixed = pytester.runpytest("--fairness-compare=baselines/fair.json", "-q")
    assert mixed.ret == pytest.ExitCode.TESTS_FAILED
    mixed.stdout.fnmatch_lines(["WORSE test_suite.py::test_other score_sens: max |ScoreSens| "
                                "0.2 -> 0.25 (baseline)"])

    _values(pytester, 0.1)  # ... and only better
    better = pytester.runpytest("--fairness-compare=baselines/fair.json")
    assert better.ret == pytest.ExitCode.OK
    better.stdout.fnmatch_lines([
        "  better:",
        "    test_suite.py::test_metric [[]label_invariance] max_shift: 0.3 -> 0.1 (-0.2)",
        "  PASS: 0 regressed, 1 improved, 3 unchanged, 0 new, 0 missing",
    ])


@pytest.mark.parametrize(
    ("tolerance", "ret"),
    [("0.05", pytest.ExitCode.OK), ("10%", pytest.ExitCode.OK),
     ("5%", pytest.ExitCode.TESTS_FAILED), ("0.01,5%", pytest.ExitCode.TESTS_FAILED)],
)
def test_baseline_tolerance(pytester: pytest.Pytester, tolerance: str,
                            ret: pytest.ExitCode) -> None:
    _project(pytester, BASELINE_SUITE)
    _values(pytester, 0.3)
    pytester.runpytest("--fairness-save-baseline=base.json")
    _values(pytester, 0.32)
    result = pytester.runpytest("--fairness-compare=base.json",
                                f"--fairness-compare-tolerance={tolerance}")
    assert result.ret == ret


def test_baseline_regression_warns_only_when_the_gate_leaves_regressions_out(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, BASELINE_SUITE)
    _values(pytester, 0.3)
    pytester.runpytest("--fairness-save-baseline=base.json")
    _values(pytester, 0.9)
    # warn-only is about failing assertions; the regression gate is --fairness-gate's
    pytester.makeini("[pytest]\nfairness_compare = base.json\nfairness_warn_only = true\n")
    gated = pytester.runpytest()
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    gated.stdout.fnmatch_lines(["  FAIL: 1 regressed, *"])
    pytester.makeini("[pytest]\nfairness_compare = base.json\nfairness_gate = bounds\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["  WARN: 1 regressed, *"])


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--fairness-compare=nowhere.json"],
      "*cannot read fairness baseline '*nowhere.json': No such file or directory*"),
     (["--fairness-compare-tolerance=lots"], "*bad --fairness-compare-tolerance 'lots'*"),
     (["--fairness-progress=loud"], "*--fairness-progress='loud': choose one of auto, live*")],
)
def test_bad_report_options_are_usage_errors(pytester: pytest.Pytester, args: list[str],
                                             message: str) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_help_lists_the_report_options(pytester: pytest.Pytester) -> None:
    text = " ".join(pytester.runpytest("--help").stdout.str().split())
    for option, default in [("--fairness-save-baseline=FILE", "none"),
                            ("--fairness-compare=FILE", "none"),
                            ("--fairness-compare-tolerance=TOL", "0"),
                            ("--fairness-progress=MODE", "auto")]:
        assert option in text
        ini = "fairness_" + option.split("=")[0].removeprefix("--fairness-").replace("-", "_")
        assert f"(ini: {ini}; default: {default})" in text


# --------------------------------------------------------------------------- progress

PROGRESS_SUITE = '''
from pytest_fairness.runtime.progress import progress

def test_long_scoring():
    with progress(1000, "scoring perturbations", delay=0, interval=0) as advance:
        for _ in range(10):
            advance(100)
'''


def test_progress_final_line_in_ci_logs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PROGRESS_SUITE)
    result = pytester.runpytest("--fairness-progress=final")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fairness: scoring perturbations: 1,000 texts in * s*"])
    auto = _subprocess(pytester)  # stdout is a pipe: auto means one final line
    auto.stdout.fnmatch_lines(["fairness: scoring perturbations: 1,000 texts in * s*"])
    assert "\r" not in auto.stdout.str()
    quiet = pytester.runpytest("--fairness-progress=off")
    assert "scoring perturbations" not in quiet.stdout.str()


def test_progress_live_line_is_erased(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PROGRESS_SUITE)
    result = _subprocess(pytester, "--fairness-progress=live", columns=120)
    raw = result.stdout.str()
    assert "scoring perturbations: 1,000/1,000 texts (100%)" in raw
    assert "\x1b[K" in raw  # erase to the end of the line (each update starts with \r)
    assert "1,000 texts in" not in raw  # a terminal keeps no permanent line


# --------------------------------------------------------------------------- Hypothesis, xdist


def _report_json(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    name = "out" + "".join(a.strip("-").replace(" ", "") for a in args)
    pytester.runpytest("-p", "no:randomly", f"--fairness-report={name}", *args)
    doc = _validate(pytester.path / name / "fairness.json")
    doc.pop("created")
    return doc


def test_xdist_gives_the_same_json_as_one_process(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    _project(pytester)
    plain = _report_json(pytester, "-p", "no:xdist")
    assert plain["totals"]["tests"] == 6
    assert _report_json(pytester, "-n", "0") == plain
    assert _report_json(pytester, "-n", "2") == plain


def test_xdist_summary_and_junit_match(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    _project(pytester)
    one = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--junitxml=a.xml")
    two = pytester.runpytest("-p", "no:randomly", "-n", "2", "--junitxml=b.xml")

    def section(result: pytest.RunResult) -> list[str]:
        text = result.stdout.str().split("fairness summary =")[1]
        return text.split("short test summary")[0].splitlines()[1:]

    assert section(one) == section(two)

    def props(path: str) -> dict[str, dict[str, str | None]]:
        root = ET.parse(pytester.path / path).getroot()
        return {str(c.get("name")): {str(p.get("name")): p.get("value")
                                     for p in c.iter("property")} for c in root.iter("testcase")}

    assert props("a.xml") == props("b.xml")


def test_plugin_works_when_xdist_is_not_installed(pytester: pytest.Pytester) -> None:
    _project(pytester, SUITE.replace("from hypothesis", "import hypothesis\nfrom hypothesis"))
    blocker = pytester.mkdir("blocker").joinpath("xdist")
    blocker.mkdir()
    blocker.joinpath("__init__.py").write_text("raise ImportError('xdist is not installed')\n")
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(pytester.path / "blocker"), str(pytester.path),
                                          os.environ.get("PYTHONPATH", "")])}
    result = _subprocess(pytester, "-p", "pytest_fairness.plugin", "-p", "hypothesis",
                         "--fairness-report=out", **env)
    result.assert_outcomes(passed=5, failed=2)
    result.stdout.fnmatch_lines(["*= fairness summary =*", "fairness: 6 relations checked*"])
    _validate(pytester.path / "out" / "fairness.json")


# --------------------------------------------------------------------------- real assertions

REAL_SUITE = '''
import pytest
import pytest_fairness as pf
from pytest_fairness.checks import assert_label_invariant, assert_scoresens_below
from fairsample import check

BIASED = ("Maria", "Aisha", "She ", "she ")

def toxicity(texts):
    """A planted bias: some female names and pronouns raise the score."""
    return [0.8 if any(w in t for w in BIASED) else 0.3 for t in texts]

CORPUS = ["She said the meeting was a waste of time.", "He never answers his phone.",
          "I think she deserves the promotion.", "Nobody asked him for his opinion.",
          "She left early today.", "He stayed home all day."]
NAMES = ["Maria", "Emma", "Aisha", "Olivia", "John", "Wei", "Carlos", "Liam"]

def test_scoresens():
    assert_scoresens_below(toxicity, CORPUS, names=NAMES, max_abs=0.05)

def test_label_invariance():
    assert_label_invariant(toxicity, "He is a <nurse> & more.", ["She is a <nurse> & more.",
                                                                  "They are a <nurse> & more."])

@pytest.mark.fairness(warn_only=True)
def test_label_invariance_warn():
    assert_label_invariant(toxicity, "He cooks.", "She cooks.")

def test_mitigation_curve():
    check("eps_k_fairness", 0.0, 0.0, name="violation fraction", n_inputs=20,
          extra={"mitigation_curve": [[0.1, 0.0], [0.3, 0.05], [1.0, 0.2], [3.0, 0.55],
                                      [10.0, 0.9]]})

def test_clusters():
    clusters = {"group": "India", "template_scores": [0.05 * j for j in range(8)],
                "clusters": [{"cluster": c, "terms": [f"term{c}{i}" for i in range(4)],
                              "curve": [min(1, 0.05 * j + 0.15 * c) for j in range(8)]}
                             for c in range(4)]}
    check("term_clusters", 0.5, 1.0, name="inertia", n_inputs=16, extra={"clusters": clusters})
'''


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.slow
def test_real_assertions_html_report_screenshot(pytester: pytest.Pytester,
                                                tmp_path: Path) -> None:
    pytest.importorskip("spacy")
    pytest.importorskip("matplotlib")
    _project(pytester, REAL_SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--fairness-report=out")
    result.assert_outcomes(passed=3, failed=2, warnings=1)
    result.stdout.fnmatch_lines([
        "  test_suite.py::test_label_invariance [[]label_invariance]",
        "    discriminatory inputs*1*<= 0*FAIL*1/2",
        "  test_suite.py::test_scoresens [[]score_sens]",
        "    max |ScoreSens| (name *)*0.25*<= 0.05*FAIL*",
        "worst discriminatory inputs*",
        "LabelDist by threshold: test_suite.py::test_scoresens [[]score_sens]",
        "ScoreSens per name: test_suite.py::test_scoresens [[]score_sens]",
        "  female (US Census 1990)  Aisha *|#* +0.250",
    ])
    doc = _validate(pytester.path / "out" / "fairness.json")
    assert any(d["perturbed"] == "She is a <nurse> & more." for d in doc["discriminatory_inputs"])
    html = pytester.path / "out" / "fairness.html"
    page = html.read_text()
    assert page.count("data:image/png;base64,") == 4  # LabelDist, ScoreSens, mitigation, clusters
    assert "&lt;nurse&gt; &amp; more." in page
    assert "<nurse>" not in page

    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium): the HTML report was "
                    "checked as text but not screenshotted")
    shot = Path(os.environ.get("FAIRNESS_SCREENSHOT", tmp_path / "fairness.png"))
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp_path / 'chromium-profile'}",
         "--hide-scrollbars", "--window-size=1280,2400", f"--screenshot={shot}",
         html.as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 50_000
    image = pytest.importorskip("PIL.Image").open(shot).convert("RGB")
    assert image.size == (1280, 2400)
    colours = image.resize((64, 120)).getcolors(maxcolors=64 * 120)
    assert colours is not None
    assert len(colours) > 50
    print(f"screenshot: {shot}", file=sys.stderr)
