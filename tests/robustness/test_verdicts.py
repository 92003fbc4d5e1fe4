"""Verdicts that are true (issue 14): no relation passes on nothing, the baseline gate says
what it compared, and every numeric option of the relations is checked.

- A relation that judged nothing (the model skipped every input, a result without a
  bounded value) fails with `NothingJudgedError` giving the counts, or under
  ``--fairness-on-empty=skip`` is skipped with them; warn-only and the regression gate do
  not turn it into a pass. Inputs skipped beside judged ones are counted in the report.
- A NaN (or null) baseline value is not an improvement: nothing was compared. A gate that
  compared nothing says so (also under ``-q``) and fails the run under
  ``--fairness-compare-strict``.
- Strings, bools, bytes, complex numbers, NaN, infinities, out-of-range values and wrong
  shapes passed as the relations' numeric options or scores are `ConfigurationError`s
  naming the option; a Hypothesis fuzz test throws arbitrary values at them.
"""

from __future__ import annotations

import json
import math
import unittest
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _bounded import refused, time_limit
from _report_samples import result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import context
from pytest_fairness import report as rp
from pytest_fairness.checks.verdict import NothingJudgedSkip
from pytest_fairness.errors import NothingJudgedError
from pytest_fairness.settings import Settings


def _score(texts: list[str]) -> list[float]:
    return [0.9 if "She" in t else 0.1 for t in texts]


def _skipping(max_length: int = 3) -> Any:
    """A remote scorer that skips every text longer than `max_length` characters."""
    return pf.as_model(_score, remote=True, max_length=max_length, labels=("neg", "pos"))


@contextmanager
def _running(**settings: Any) -> Iterator[context.TestState]:
    """Inside a test with these settings, as the plugin runs one."""
    state = context.TestState(nodeid="t.py::t", settings=Settings(**settings))
    with context.test_scope(state):
        yield state


# --------------------------------------------------------------------------- nothing judged

NOTHING = {
    "label_invariance": lambda m: pf.assert_label_invariant(
        m, "He is a doctor.", ["She is a doctor."]),
    "counterfactual_fairness": lambda m: pf.assert_counterfactual_fair(
        m, ["He is a doctor.", "She left."], max_gap=0.1),
    "eps_k_fairness": lambda m: pf.assert_eps_k_fair(
        m, "He is a doctor.", eps=0.1, k=1, perturbations=["She is a doctor."]),
    "score_sens": lambda m: pf.assert_scoresens_below(
        m, ["He is a doctor.", "She went home."], ["Alice", "Bob"], 0.1),
    "label_dist": lambda m: pf.assert_labeldist_below(
        m, ["He is a doctor.", "She went home."], ["Alice", "Bob"], 0.1),
    "lexical_shift": lambda m: pf.assert_lexical_shift_below(
        m, ["muslim", "christian"], 0.1, templates=["You are a {term}", "{term} is here"]),
}


@pytest.mark.parametrize("relation", sorted(NOTHING))
def test_a_relation_the_model_skipped_entirely_fails_with_the_counts(relation: str) -> None:
    message = refused(lambda: NOTHING[relation](_skipping()), NothingJudgedError,
                      "judged nothing", "skipped", "did not score", "--fairness-on-empty")
    assert relation in message or relation in ("score_sens", "label_dist")  # "psa judged..."


@pytest.mark.parametrize("relation", sorted(NOTHING))
def test_nothing_judged_is_a_configuration_error_never_a_violation(relation: str) -> None:
    with time_limit(), pytest.raises(pf.ConfigurationError) as info:
        NOTHING[relation](_skipping())
    assert not isinstance(info.value, pf.FairnessViolation)


@pytest.mark.parametrize("relation", sorted(NOTHING))
def test_under_on_empty_skip_the_test_is_skipped_with_the_counts(relation: str) -> None:
    with _running(on_empty="skip"), time_limit(), pytest.raises(NothingJudgedSkip) as info:
        NOTHING[relation](_skipping())
    assert isinstance(info.value, unittest.SkipTest)
    message = str(info.value)
    assert "judged nothing" in message
    assert "--fairness-on-empty=skip" in message
    assert any(ch.isdigit() for ch in message)  # the count


@pytest.mark.parametrize("relation", sorted(NOTHING))
def test_warn_only_does_not_turn_nothing_judged_into_a_warning(relation: str) -> None:
    with _running(warn_only=True), warnings.catch_warnings():
        warnings.simplefilter("error")  # a FairnessWarning would raise as an error here
        refused(lambda: NOTHING[relation](_skipping()), NothingJudgedError, "judged nothing")


def test_nothing_judged_is_not_recorded_as_a_pass() -> None:
    with _running() as state, pytest.raises(NothingJudgedError):
        NOTHING["label_invariance"](_skipping())
    assert state.results == []


def test_eps_k_with_every_mutation_skipped_judged_nothing() -> None:
    refused(lambda: pf.assert_eps_k_fair(_skipping(8), "He ran.", eps=0.1, k=1,
                                         perturbations=["She ran far away today."]),
            NothingJudgedError, "eps_k_fairness", "none of the 1 candidate mutation(s)")


def test_eps_k_with_fewer_scored_mutations_than_k_says_so() -> None:
    refused(lambda: pf.assert_eps_k_fair(_skipping(8), "He ran.", eps=0.1, k=2,
                                         perturbations=["She ran.", "She ran far away."]),
            pf.ConfigurationError, "k=2", "scored only 1 of the 2", "skipped")


def test_the_analysis_functions_raise_nothing_judged_too() -> None:
    from pytest_fairness.checks import counterfactual, lexical_scan

    refused(lambda: counterfactual(_skipping(), ["He is a doctor."]), NothingJudgedError,
            "counterfactual_fairness", "1 pair(s) the model did not score")
    refused(lambda: lexical_scan(_skipping(), ["muslim"], ["You are a {term}"]),
            NothingJudgedError, "lexical_shift", "fill(s)")
    refused(lambda: pf.psa(_skipping(), ["He is a doctor.", "She is a doctor."],
                              ["Alice", "Bob"]),
            NothingJudgedError, "sentence(s) the model did not score")


@pytest.mark.parametrize("measurements", [
    (),
    (pf.Measurement("gap", 0.1),),  # recorded, no bound
    (pf.Measurement("gap", None, 0.1),),
    (pf.Measurement("gap", math.nan, 0.1),),
    (pf.Measurement("gap", math.inf, 0.1),),
    (pf.Measurement("gap", None, 0.1), pf.Measurement("other", 0.3)),
], ids=["none", "unbounded", "no-value", "nan", "inf", "no-value+recorded"])
def test_a_custom_result_without_a_judged_value_fails(measurements: Any) -> None:
    res = pf.FairnessResult("mine", measurements=measurements)
    refused(lambda: pf.assert_result(res), NothingJudgedError, "mine", "judged nothing")


def test_a_custom_result_judged_on_a_statistic_without_inputs_is_judged() -> None:
    pf.assert_result(pf.FairnessResult("mine", measurements=(pf.Measurement("gap", 0.05,
                                                                            0.1),)))
    with pytest.raises(pf.FairnessViolation):
        pf.assert_result(pf.FairnessResult("mine", measurements=(
            pf.Measurement("gap", 0.5, 0.1),)))


def test_inputs_skipped_beside_judged_ones_are_counted_in_the_report() -> None:
    model = _skipping(20)
    with _running() as state:
        pf.assert_label_invariant(model, "He is a doctor.",
                                  ["He is a doctor!", "She is a doctor and a friend of mine."])
    assert state.results[0]["extra"]["skipped"] == {"pair(s) the model did not score": 1}
    assert state.results[0]["n_inputs"] == 1
    summary = rp.build_summary([rp.RecordedTest.create("t.py::t", state.results)])
    assert summary.skipped_inputs() == {"pair(s) the model did not score": 1}
    for verbosity in (-1, 0, 1):
        lines = rp.render_text(summary, verbosity=verbosity)
        assert ("fairness: 1 input skipped, not judged: 1 pair(s) the model did not score"
                in lines)
    page = rp.render_html(summary, created="2024-01-01T00:00:00Z")
    assert "1 input skipped, not judged" in page


def test_skipped_counts_add_up_over_the_run() -> None:
    tests = [rp.RecordedTest.create(f"t.py::{k}", [result(
        "rel", 0.0, 1.0, extra={"skipped": {"pair(s) the model did not score": n, "bad": -1,
                                            "text": "x"}})]) for k, n in (("a", 2), ("b", 3))]
    summary = rp.build_summary(tests)
    assert summary.skipped_inputs() == {"pair(s) the model did not score": 5}


NOTHING_SUITE = '''
import pytest
import pytest_fairness as pf

def score(texts):
    return [0.9 if "She" in t else 0.1 for t in texts]

MODEL = pf.as_model(score, remote=True, max_length=3, labels=("neg", "pos"))

def test_nothing():
    pf.assert_label_invariant(MODEL, "He is a doctor.", ["She is a doctor."])

def test_something():
    pf.assert_label_invariant(score, "He is a doctor.", ["He is a doctor!"])
'''


@pytest.mark.parametrize("extra", [[], ["--fairness-warn-only"], ["--fairness-gate=regressions"],
                                   ["--fairness-gate=none"]],
                         ids=["default", "warn-only", "gate-regressions", "gate-none"])
def test_a_pytest_run_fails_a_test_that_judged_nothing(pytester: pytest.Pytester,
                                                       extra: list[str]) -> None:
    pytester.makepyfile(test_suite=NOTHING_SUITE)
    res = pytester.runpytest("-p", "no:randomly", *extra)
    res.assert_outcomes(failed=1, passed=1)
    res.stdout.fnmatch_lines(["*NothingJudgedError: label_invariance judged nothing: 0 of 1 "
                              "inputs judged (skipped: 1 pair(s) the model did not score)*"])


@pytest.mark.parametrize("how", ["option", "ini", "marker"])
def test_on_empty_skip_skips_the_test_with_the_counts(pytester: pytest.Pytester,
                                                      how: str) -> None:
    suite = NOTHING_SUITE
    args = ["-p", "no:randomly", "-rs"]
    if how == "option":
        args.append("--fairness-on-empty=skip")
    elif how == "ini":
        pytester.makeini("[pytest]\nfairness_on_empty = skip\n")
    else:
        suite = suite.replace("def test_nothing", "@pytest.mark.fairness(on_empty='skip')\n"
                                                  "def test_nothing")
    pytester.makepyfile(test_suite=suite)
    res = pytester.runpytest(*args)
    res.assert_outcomes(skipped=1, passed=1)
    res.stdout.fnmatch_lines(["SKIPPED *label_invariance judged nothing: 0 of 1 inputs "
                              "judged (skipped: 1 pair(s) the model did not score) "
                              "(--fairness-on-empty=skip)"])


@pytest.mark.parametrize("value", ["maybe", "FAIL", "", "skip,fail"])
def test_a_bad_on_empty_is_a_usage_error_naming_the_option(pytester: pytest.Pytester,
                                                           value: str) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    res = pytester.runpytest(f"--fairness-on-empty={value}")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--fairness-on-empty*"])


@pytest.mark.parametrize("value", ["maybe", 1, None])
def test_a_bad_on_empty_marker_fails_the_test(pytester: pytest.Pytester, value: object) -> None:
    pytester.makepyfile(f'''
import pytest

@pytest.mark.fairness(on_empty={value!r})
def test_marked():
    pass
''')
    res = pytester.runpytest("-p", "no:randomly")
    res.assert_outcomes(errors=1)  # like every bad marker value: an error at set-up
    res.stdout.fnmatch_lines(["*on_empty*"])


# --------------------------------------------------------------------------- the gate


def _summary(**values: float) -> rp.Summary:
    return rp.build_summary([rp.RecordedTest.create(f"t.py::{k}", [result("rel", v, 1.0)])
                             for k, v in values.items()])


@pytest.mark.parametrize("saved", [math.nan, None, "nan", math.inf, -math.inf, "x", True])
def test_a_baseline_value_that_is_not_a_number_is_not_an_improvement(saved: object) -> None:
    base = rp.baseline_doc(_summary(a=0.5))
    for m in base["metrics"]:
        m["value"] = saved
    comparison = rp.compare(_summary(a=0.2), base, rp.Tolerance())
    assert comparison.improvements == ()
    assert {c.status for c in comparison.changes} == {"new"}
    assert comparison.compared == 0


def test_a_nan_in_a_baseline_file_compares_nothing(tmp_path: Path) -> None:
    base = rp.baseline_doc(_summary(a=0.5, b=0.1))
    base["metrics"][0]["value"] = math.nan
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base))  # NaN, as Python's json writes it
    comparison = rp.compare(_summary(a=0.2, b=0.1), rp.load_baseline(path), rp.Tolerance())
    status = {(c.nodeid, c.metric): c.status for c in comparison.changes}
    assert status[("t.py::a", "max_shift")] == "new"
    assert status[("t.py::b", "max_shift")] == "unchanged"


def test_a_metric_that_lost_its_value_is_a_regression() -> None:
    base = rp.baseline_doc(_summary(a=0.5))
    comparison = rp.compare(rp.build_summary([rp.RecordedTest.create(
        "t.py::a", [result("rel", None, 1.0)])]), base, rp.Tolerance())
    status = {c.metric: c.status for c in comparison.changes}
    assert status["max_shift"] == "regressed"


GATE_SUITE = '''
import json
from pathlib import Path
import pytest_fairness as pf

def test_a():
    value = json.loads(Path("values.json").read_text())["a"]
    pf.assert_result(pf.FairnessResult("rel", measurements=[pf.Measurement("gap", value, 1.0)]))
'''


@pytest.fixture
def saved(pytester: pytest.Pytester) -> pytest.Pytester:
    """A suite and its baseline (`base.json`, gap 0.2)."""
    pytester.makepyfile(test_suite=GATE_SUITE)
    pytester.path.joinpath("values.json").write_text(json.dumps({"a": 0.2}))
    res = pytester.runpytest("-p", "no:randomly", "--fairness-save-baseline=base.json")
    assert res.ret == pytest.ExitCode.OK
    return pytester


def _break(pytester: pytest.Pytester, how: str) -> None:
    path = pytester.path / "base.json"
    doc = json.loads(path.read_text())
    for m in doc["metrics"]:
        if how == "nan":
            m["value"] = math.nan
        else:
            m["nodeid"] = m["nodeid"].replace("test_suite.py", "elsewhere.py")
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("quiet", [[], ["-q"], ["-qq"]], ids=["normal", "q", "qq"])
@pytest.mark.parametrize("how", ["nan", "other-ids"])
def test_a_gate_that_compared_nothing_warns_at_every_verbosity(saved: pytest.Pytester, how: str,
                                                               quiet: list[str]) -> None:
    _break(saved, how)
    res = saved.runpytest("-p", "no:randomly", "--fairness-compare=base.json", *quiet)
    assert res.ret == pytest.ExitCode.OK
    res.stdout.fnmatch_lines(["fairness: WARNING: the baseline base.json shares no metric "
                              "with this run: 0 compared, 1 new, * so nothing was gated "
                              "(--fairness-compare-strict fails the run on this)*"])
    if quiet != ["-qq"]:  # -qq drops pytest's last line; the WARNING above stays
        assert "1 fairness metric not compared" in res.stdout.lines[-1]


@pytest.mark.parametrize("how", ["nan", "other-ids"])
@pytest.mark.parametrize("where", ["option", "ini"])
def test_compare_strict_fails_a_gate_that_compared_nothing(saved: pytest.Pytester, how: str,
                                                           where: str) -> None:
    _break(saved, how)
    args = ["-p", "no:randomly", "--fairness-compare=base.json", "-q"]
    if where == "option":
        args.append("--fairness-compare-strict")
    else:
        saved.makeini("[pytest]\nfairness_compare_strict = true\n")
    res = saved.runpytest(*args)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    res.stdout.fnmatch_lines(["fairness: ERROR: the baseline base.json shares no metric with "
                              "this run: 0 compared, 1 new, * so the run fails "
                              "(--fairness-compare-strict)*"])
    assert res.stdout.lines[-1].split(" in ")[0].endswith(
        "1 passed, 1 fairness metric not compared")


def test_compare_strict_without_a_baseline_fails(saved: pytest.Pytester) -> None:
    res = saved.runpytest("-p", "no:randomly", "--fairness-compare-strict")
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    res.stdout.fnmatch_lines(["fairness: ERROR: --fairness-compare-strict but no baseline to "
                              "compare with*so the run fails*"])


def test_compare_strict_passes_a_gate_that_compared(saved: pytest.Pytester) -> None:
    res = saved.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                          "--fairness-compare-strict")
    assert res.ret == pytest.ExitCode.OK
    assert "not compared" not in res.stdout.str()


def test_compare_strict_under_gate_none_reports_only(saved: pytest.Pytester) -> None:
    _break(saved, "nan")
    res = saved.runpytest("-p", "no:randomly", "--fairness-compare=base.json",
                          "--fairness-compare-strict", "--fairness-gate=none")
    assert res.ret == pytest.ExitCode.OK
    res.stdout.fnmatch_lines(["fairness: WARNING: the baseline base.json shares no metric*"])


def test_compare_strict_is_listed_in_the_help(pytester: pytest.Pytester) -> None:
    text = " ".join(pytester.runpytest("--help").stdout.str().split())
    assert "--fairness-compare-strict" in text
    assert "(ini: fairness_compare_strict; default: False)" in text
    assert "(ini: fairness_on_empty; default: fail)" in text


# --------------------------------------------------------------------------- numeric options

MODEL = pf.as_model(_score)
TEXT, PERTURBED = "He is a doctor.", ["She is a doctor."]
SCORES = [0.1, 0.9, 0.2, 0.8]
LABELS, GROUP = [0, 1, 0, 1], [1, 1, 0, 0]


def _generator(prompt: str, n: int, seed: int) -> list[str]:
    return ["fine"] * n


#: (option, call with the option's value, the values that are wrong beyond the common ones)
OPTIONS: list[tuple[str, str, Callable[[Any], object], list[object]]] = [
    ("label_invariance", "threshold",
     lambda v: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, threshold=v), []),
    ("label_invariance", "show",
     lambda v: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, show=v), [-1, 2.5, 10**20 * -1]),
    ("counterfactual", "max_gap",
     lambda v: pf.assert_counterfactual_fair(MODEL, [TEXT], max_gap=v), [-1, -0.001, None]),
    ("counterfactual", "show",
     lambda v: pf.assert_counterfactual_fair(MODEL, [TEXT], max_gap=0.5, show=v), [-1, 2.5]),
    ("counterfactual", "statistic",
     lambda v: pf.assert_counterfactual_fair(MODEL, [TEXT], max_gap=0.5, statistic=v),
     ["median", "MAX"]),
    ("eps_k", "eps",
     lambda v: pf.assert_eps_k_fair(MODEL, TEXT, eps=v, k=1, perturbations=PERTURBED),
     [-1, None]),
    ("eps_k", "k",
     lambda v: pf.assert_eps_k_fair(MODEL, TEXT, eps=0.1, k=v, perturbations=PERTURBED),
     [0, -1, 2.5, 1.0, None]),
    ("wasserstein", "max_w1",
     lambda v: pf.assert_wasserstein_below([0.1, 0.2], [0.3, 0.4], v), [-1]),
    ("wasserstein", "confidence",
     lambda v: pf.assert_wasserstein_below([0.1, 0.2], [0.3, 0.4], 0.5, confidence=v),
     [0, 1, 1.5, -0.5]),
    ("wasserstein", "seed",
     lambda v: pf.assert_wasserstein_below([0.1, 0.2], [0.3, 0.4], 0.5, confidence=0.9,
                                           seed=v), [-1, 2.5]),
    ("paired_gap", "max_gap",
     lambda v: pf.assert_paired_gap_below([0.1, 0.2], [0.3, 0.4], v), [-1, None]),
    ("paired_gap", "confidence",
     lambda v: pf.assert_paired_gap_below([0.1, 0.2], [0.3, 0.4], 0.5, confidence=v),
     [0, 1, 1.5]),
    ("paired_gap", "seed",
     lambda v: pf.assert_paired_gap_below([0.1, 0.2], [0.3, 0.4], 0.5, confidence=0.9,
                                          seed=v), [-1, 2.5]),
    ("paired_gap", "names",
     lambda v: pf.assert_paired_gap_below([0.1, 0.2], [0.3, 0.4], 0.5, names=v),
     [("a",), ("a", "a"), ("a", ""), "ab", (1, 2)]),
    ("bias_auc", "min_auc",
     lambda v: pf.assert_bias_auc_above(SCORES, LABELS, GROUP, v), [-0.1, 1.5, None]),
    ("bias_auc", "show",
     lambda v: pf.assert_bias_auc_above(SCORES, LABELS, GROUP, 0.1, show=v), [-1, 2.5]),
    ("subgroup_aucs", "min_auc",
     lambda v: pf.assert_subgroup_aucs_above(SCORES, LABELS, {"g": GROUP}, v), [-0.1, 1.5]),
    ("lexical", "max_shift",
     lambda v: pf.assert_lexical_shift_below(MODEL, ["x"], v, templates=["{term} is"]), [-1]),
    ("lexical", "n_clusters",
     lambda v: pf.assert_lexical_shift_below(MODEL, ["x"], 0.5, templates=["{term} is"],
                                             n_clusters=v), [0, -1, 2.5]),
    ("lexical", "seed",
     lambda v: pf.assert_lexical_shift_below(MODEL, ["x"], 0.5, templates=["{term} is"],
                                             seed=v), [-1, 2.5]),
    ("psa", "max_abs",
     lambda v: pf.assert_scoresens_below(MODEL, [TEXT], ["Alice", "Bob"], v), [-1]),
    ("psa", "max_labeldist",
     lambda v: pf.assert_labeldist_below(MODEL, [TEXT], ["Alice", "Bob"], v), [-1, 1.5]),
    ("generation", "threshold",
     lambda v: pf.generation_bias(_generator, lambda t: [0.5] * len(t), ["{term} is"],
                                  ["a", "b"], samples_per_prompt=2, threshold=v), [-0.1, 1.5]),
    ("generation", "samples_per_prompt",
     lambda v: pf.generation_bias(_generator, lambda t: [0.5] * len(t), ["{term} is"],
                                  ["a", "b"], samples_per_prompt=v), [0, -1, 2.5]),
    ("generation", "seed",
     lambda v: pf.generation_bias(_generator, lambda t: [0.5] * len(t), ["{term} is"],
                                  ["a", "b"], samples_per_prompt=2, seed=v), [-1, 2.5]),
    ("assert_result", "show",
     lambda v: pf.assert_result(pf.FairnessResult("r", measurements=(
         pf.Measurement("g", 0.1, 0.5),)), show=v), [-1, 2.5]),
]
#: Wrong for every numeric option: strings (numeric or not), bytes, bools, complex
#: numbers, NaN, infinities, containers, an object.
COMMON: list[object] = ["0.5", "x", "", b"1", True, False, 1 + 0j, math.nan, math.inf,
                        -math.inf, [0.5], {"v": 0.5}, object(), np.float64("nan")]
_TEXTUAL = {"statistic", "names"}

CASES = [
    pytest.param(call, option, value, id=f"{rel}-{option}-{value!r:.20}")
    for rel, option, call, extra in OPTIONS
    for value in ([] if option in _TEXTUAL else COMMON) + extra
]


@pytest.mark.parametrize(("call", "option", "value"), CASES)
def test_a_wrong_numeric_option_is_refused_naming_it(call: Callable[[Any], object], option: str,
                                                     value: object) -> None:
    refused(lambda: call(value), pf.ConfigurationError, option)


WRONG_SCORES: list[object] = [
    ["a", "b"], ["0.1", "0.2"], [True, False], [b"1", b"0"], [0.1, math.nan], [0.1, math.inf],
    [0.1, None], [0.1, 1 + 0j], [[0.1], [0.2]], [], "0.1", None, 0.5, {"a": 0.1},
    np.array([0.1, np.nan]), np.array([True, False]), np.array(["0.1", "0.2"]),
    np.zeros((2, 2)),
]


@pytest.mark.parametrize("scores", WRONG_SCORES, ids=lambda v: f"{v!r:.25}")
@pytest.mark.parametrize("side", ["scores_a", "scores_b"])
def test_wasserstein_refuses_scores_that_are_not_numbers(scores: object, side: str) -> None:
    args = {"scores_a": [0.1, 0.2], "scores_b": [0.3, 0.4], side: scores}
    refused(lambda: pf.assert_wasserstein_below(args["scores_a"], args["scores_b"], 0.5),
            pf.ConfigurationError, side)


@pytest.mark.parametrize("scores", [s for s in WRONG_SCORES if not (  # nested: several per pair
    (isinstance(s, list) and s and isinstance(s[0], list))
    or (isinstance(s, np.ndarray) and s.ndim == 2))] + [[[0.1], []], [[0.1], ["x"]]],
    ids=lambda v: f"{v!r:.25}")
def test_the_paired_gap_refuses_scores_that_are_not_numbers(scores: object) -> None:
    refused(lambda: pf.assert_paired_gap_below(scores, [0.3, 0.4], 0.5), pf.ConfigurationError,
            "scores_a")


@pytest.mark.parametrize("scores", [["a"] * 4, ["0.1"] * 4, [True, False] * 2, [b"1"] * 4,
                                    [0.1, math.nan, 0.2, 0.3], [0.1, None, 0.2, 0.3]],
                         ids=lambda v: f"{v!r:.25}")
def test_bias_aucs_refuse_scores_that_are_not_numbers(scores: object) -> None:
    refused(lambda: pf.assert_bias_auc_above(scores, LABELS, GROUP, 0.5), pf.ConfigurationError,
            "scores")
    refused(lambda: pf.assert_subgroup_aucs_above(scores, LABELS, {"g": GROUP}, 0.5),
            pf.ConfigurationError, "scores")


def test_the_reported_case_strings_as_scores() -> None:
    refused(lambda: pf.assert_wasserstein_below(["a"], ["b"], 0.1), pf.ConfigurationError,
            "scores_a[0]", "a number", "str")


def test_the_reported_case_a_string_threshold() -> None:
    refused(lambda: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, threshold="x"),
            pf.ConfigurationError, "threshold", "str")
    refused(lambda: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, threshold="0.5"),
            pf.ConfigurationError, "threshold=0.5")


@pytest.mark.parametrize("bad", [1, ["s"], b"x"])
@pytest.mark.parametrize("key", ["statement", "hint"])
def test_assert_result_refuses_a_statement_or_hint_that_is_not_text(key: str,
                                                                    bad: object) -> None:
    res = pf.FairnessResult("r", measurements=(pf.Measurement("g", 0.1, 0.5),))
    refused(lambda: pf.assert_result(res, **{key: bad}), pf.ConfigurationError, key)


# --------------------------------------------------------------------------- fuzzing

_ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.binary(max_size=4), st.complex_numbers(allow_nan=True),
    st.lists(st.floats(allow_nan=True), max_size=2),
)

#: (option, call, whether a value is valid)
_FUZZED: list[tuple[str, Callable[[Any], object], Callable[[Any], bool]]] = [
    ("max_w1", lambda v: pf.assert_wasserstein_below([0.1, 0.2], [0.3, 0.4], v),
     lambda v: _real(v) and v >= 0),
    ("confidence", lambda v: pf.assert_wasserstein_below([0.1, 0.2], [0.3, 0.4], 0.5,
                                                         confidence=v),
     lambda v: v is None or (_real(v) and 0 < v < 1)),
    ("max_gap", lambda v: pf.assert_counterfactual_fair(MODEL, [TEXT], max_gap=v),
     lambda v: _real(v) and v >= 0),
    ("show", lambda v: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, show=v),
     lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    ("min_auc", lambda v: pf.assert_bias_auc_above(SCORES, LABELS, GROUP, v),
     lambda v: _real(v) and 0 <= v <= 1),
    ("threshold", lambda v: pf.assert_label_invariant(MODEL, TEXT, PERTURBED, threshold=v),
     lambda v: v is None or (_real(v) and 0 <= v <= 1)),
]


def _real(v: object) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(range(len(_FUZZED))), value=_ANYTHING)
def test_fuzzed_numeric_options_are_judged_or_refused_by_name(case: int, value: Any) -> None:
    option, call, valid = _FUZZED[case]
    refusal = None
    try:
        with time_limit():
            call(value)
    except pf.FairnessViolation:
        pass  # judged: a valid value
    except pf.ConfigurationError as exc:
        refusal = str(exc)
    if refusal is None:
        assert valid(value), f"{option}={value!r} was accepted"
    else:
        assert option in refusal or valid(value), f"{option}={value!r}: {refusal}"
