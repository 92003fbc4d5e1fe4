"""A baseline's metric identity is stable across runs (issue 30): the group, name or term
a metric was measured on is a value of the metric (its subject), not part of its name, so
when the worst group changes the metric is compared, not shown as 1 new + 1 missing. Old
baseline files (subjects inside the names) are read with their names migrated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from _report_samples import result
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness import report as rp
from pytest_fairness.report.baseline import metric_identity

NODE = "tests/test_groups.py::test_tpr"


def _run(worst: str, best: str, tpr: float, *, sens_name: str = "Maria",
         sens: float = 0.02) -> rp.Summary:
    group = result("group_gap", 0.3, 0.5, name="TPR gap (max - min) over 2 groups",
                   more=[{"name": f"TPR: worst group {worst!r} vs best {best!r}",
                          "value": tpr, "bound": None, "op": ">=", "ci": None,
                          "holds": True}])
    psa = result("score_sens", sens, 0.05, name=f"max |ScoreSens| (name {sens_name})")
    return rp.build_summary([rp.RecordedTest.create(NODE, [group]),
                             rp.RecordedTest.create("tests/test_psa.py::test_names", [psa])])


def _validate(doc: dict[str, Any], kind: str) -> None:
    schema = json.loads(rp.schema_path(kind).read_text())  # type: ignore[arg-type]
    jsonschema.Draft202012Validator(schema).validate(doc)


@pytest.mark.parametrize(("name", "identity", "subject"), [
    ("TPR: worst group 'female' vs best 'male'", "TPR: worst group vs best",
     "worst 'female', best 'male'"),
    ("FPR: worst group 'f & x' vs best 'm & y'", "FPR: worst group vs best",
     "worst 'f & x', best 'm & y'"),
    ("max |ScoreSens| (name Jerome)", "max |ScoreSens|", "name Jerome"),
    ("max |ScoreSens| (name Jerome) (upper CI end)", "max |ScoreSens| (upper CI end)",
     "name Jerome"),
    ("max mean shift (term Mumbai)", "max mean shift", "term Mumbai"),
    ("TPR gap (max - min) over 2 groups", "TPR gap (max - min) over 2 groups", None),
    ("violation_rate", "violation_rate", None),
    ("mean CF", "mean CF", None),
])
def test_metric_identity(name: str, identity: str, subject: str | None) -> None:
    assert metric_identity(name) == (identity, subject)


def test_a_changed_worst_group_is_compared_not_new_and_missing() -> None:
    doc = rp.baseline_doc(_run("female", "male", 0.6), created="t")
    _validate(doc, "baseline")
    rows = {r["metric"]: r for r in doc["metrics"] if r["nodeid"] == NODE}
    assert rows["TPR: worst group vs best"]["subject"] == "worst 'female', best 'male'"
    comparison = rp.compare(_run("male", "female", 0.5, sens_name="Aisha"), doc,
                            rp.Tolerance(absolute=0.01))
    assert comparison.count("new") == 0
    assert comparison.count("missing") == 0
    tpr = next(c for c in comparison.changes if c.metric == "TPR: worst group vs best")
    assert tpr.status == "regressed"  # a TPR: lower is worse
    assert tpr.subject_text == "worst 'female', best 'male' -> worst 'male', best 'female'"
    sens = next(c for c in comparison.changes if c.metric == "max |ScoreSens|")
    assert sens.status == "unchanged"
    assert sens.subject_text == "name Maria -> name Aisha"
    summary = _run("male", "female", 0.5).with_comparison(comparison)
    text = "\n".join(rp.render_text(summary, width=200, verbosity=1))
    assert ("tests/test_groups.py::test_tpr [group_gap] TPR: worst group vs best (worst "
            "'female', best 'male' -> worst 'male', best 'female'): 0.6 -> 0.5 (-0.1)") in text
    assert "new:" not in text
    assert "missing:" not in text
    page = rp.render_html(summary, created="t", figures=False)
    assert "worst &#x27;female&#x27;, best &#x27;male&#x27; -&gt; worst &#x27;male&#x27;" in page
    _validate(json.loads(json.dumps(rp.to_json_doc(summary, created="t"))), "report")


def test_an_old_baseline_file_is_read_with_its_names_migrated(tmp_path: Path) -> None:
    old = {"schema_version": 1, "kind": "pytest-fairness-baseline", "created": "t",
           "metrics": [
               {"nodeid": NODE, "relation": "group_gap",
                "metric": "TPR: worst group 'female' vs best 'male'", "op": ">=",
                "value": 0.6, "bound": None},
               {"nodeid": "tests/test_psa.py::test_names", "relation": "score_sens",
                "metric": "max |ScoreSens| (name Maria)", "op": "<=", "value": 0.02,
                "bound": 0.05}]}
    _validate(old, "baseline")  # files of earlier versions still validate
    path = tmp_path / "base.json"
    path.write_text(json.dumps(old))
    comparison = rp.compare(_run("male", "female", 0.7, sens_name="Aisha", sens=0.01),
                            rp.load_baseline(path), rp.Tolerance())
    by_metric = {c.metric: c for c in comparison.changes}
    assert by_metric["TPR: worst group vs best"].status == "improved"
    assert by_metric["TPR: worst group vs best"].baseline_subject == "worst 'female', best 'male'"
    assert by_metric["max |ScoreSens|"].status == "improved"
    assert by_metric["max |ScoreSens|"].subject_text == "name Maria -> name Aisha"
    assert "TPR: worst group 'female' vs best 'male'" not in by_metric


def test_comparison_round_trips_its_subjects() -> None:
    doc = rp.baseline_doc(_run("female", "male", 0.6))
    comparison = rp.compare(_run("male", "female", 0.5), doc, rp.Tolerance())
    again = rp.Comparison.from_dict(json.loads(json.dumps(comparison.to_dict())))
    assert again == comparison


def test_two_names_of_one_metric_in_one_run_keep_the_worst() -> None:
    """Two results of one test (Hypothesis examples) whose worst name differed: one
    metric, its worst value and that value's subject."""
    a = result("score_sens", 0.02, 0.05, name="max |ScoreSens| (name Maria)")
    b = result("score_sens", 0.04, 0.05, name="max |ScoreSens| (name Wei)")
    summary = rp.build_summary([rp.RecordedTest.create("t.py::t", [a, b])])
    rows = [r for r in rp.baseline_doc(summary)["metrics"] if r["metric"] != "violation_rate"]
    assert rows == [{"nodeid": "t.py::t", "relation": "score_sens", "metric": "max |ScoreSens|",
                     "op": "<=", "value": 0.04, "bound": 0.05, "subject": "name Wei"}]


@given(worst=st.text(min_size=1), best=st.text(min_size=1), rate=st.sampled_from(
    ["TPR", "FPR", "selection rate", "accuracy"]))
def test_any_group_labels_give_one_identity(worst: str, best: str, rate: str) -> None:
    """Whatever the groups are called (any Unicode, quotes, ' vs best ' inside), the
    metric's identity is the same and the subject holds both labels."""
    identity, subject = metric_identity(f"{rate}: worst group {worst!r} vs best {best!r}")
    assert identity == f"{rate}: worst group vs best"
    if " vs best " not in worst + best:  # else where one label ends is ambiguous
        assert subject == f"worst {worst!r}, best {best!r}"
    assert metric_identity(identity) == (identity, None)
