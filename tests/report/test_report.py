"""The pure report layer: merging, baselines, JSON (against its schema), text and HTML."""

from __future__ import annotations

import fnmatch
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from _report_samples import cluster_result, mitigation_result, psa_result, result, violation

from pytest_fairness import report as rp
from pytest_fairness.report.text import bar_chart, line_chart, segments
from pytest_fairness.runtime import progress as prog


def _validator(kind: str = "report") -> jsonschema.protocols.Validator:
    schema = json.loads(rp.schema_path(kind).read_text())  # type: ignore[arg-type]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _summary(**kwargs: Any) -> rp.Summary:
    v1 = violation("He is a nurse.", "She is a nurse.", (0, 2), (0, 3), 0.1, 0.7)
    v2 = violation("He is a nurse.", "She is a nurse.", (0, 2), (0, 3), 0.1, 0.9)
    tests = [
        rp.RecordedTest.create("tests/test_b.py::test_psa", [psa_result(0.08)],
                               outcome="failed"),
        rp.RecordedTest.create("tests/test_a.py::test_pass", [psa_result(0.02)]),
        rp.RecordedTest.create("tests/test_c.py::test_warn",
                               [result("label_invariance", 2.0, 0.0, violations=[v1])],
                               warn_only=True),
        rp.RecordedTest.create("tests/test_d.py::test_hyp", [
            result("label_invariance", 0.0, 0.0),
            result("label_invariance", 3.0, 0.0, violations=[v2]),
            result("label_invariance", 1.0, 0.0, violations=[v1]),
        ], outcome="failed", hypothesis=True,
            falsifying_example="Falsifying example: test_hyp(\n    case='x',\n)"),
        rp.RecordedTest.create("tests/test_e.py::test_smooth", [mitigation_result()]),
        rp.RecordedTest.create("tests/test_f.py::test_clusters", [cluster_result()]),
        rp.RecordedTest.create("tests/test_g.py::test_nothing_recorded", []),
    ]
    return rp.build_summary(tests, **kwargs)


def html_section(page: str, nodeid: str) -> str:
    """The section of test `nodeid` in an HTML report (its heading's title is the id)."""
    from html import escape

    start = page.index(f'title="{escape(nodeid)}"')
    return page[start:].split("</section>")[0]


def _match(lines: list[str], patterns: list[str]) -> None:
    """Every pattern matches some line, in order (like pytester's fnmatch_lines)."""
    i = 0
    for pattern in patterns:
        while i < len(lines) and not fnmatch.fnmatch(lines[i], pattern):
            i += 1
        assert i < len(lines), f"no line after the previous match matches {pattern!r}:\n" + \
            "\n".join(lines)
        i += 1


# --------------------------------------------------------------------------- builtins


def test_to_builtin_converts_numpy_and_non_finite_values() -> None:
    data = {1: np.float64(0.5), "a": (np.int64(3), np.array([1.0, np.nan])), "b": math.inf,
            "c": np.bool_(True), "d": {2, 1}, "p": Path("x/y")}
    out = rp.to_builtin(data)
    assert out == {"1": 0.5, "a": [3, [1.0, None]], "b": None, "c": True, "d": [1, 2],
                   "p": "x/y"}
    assert type(out["1"]) is float
    assert type(out["a"][0]) is int
    assert type(out["c"]) is bool
    json.dumps(out, allow_nan=False)


def test_normalize_record_fills_defaults_and_keeps_unknown_keys() -> None:
    r = rp.normalize_record({"relation": "x", "measurements": [{"name": "m", "value": 2,
                                                                 "bound": 1}],
                             "custom": np.float32(1.5)})
    assert r["passed"] is False
    assert r["measurements"][0] == {"name": "m", "value": 2.0, "bound": 1.0, "op": "<=",
                                    "ci": None, "holds": False}
    assert r["violations"] == []
    assert r["n_inputs"] == 0
    assert r["extra"] == {}
    assert r["custom"] == 1.5


# --------------------------------------------------------------------------- merging


def test_groups_are_ordered_by_nodeid_and_tests_without_results_dropped() -> None:
    s = _summary()
    assert [g.nodeid for g in s.groups] == sorted(g.nodeid for g in s.groups)
    assert "tests/test_g.py::test_nothing_recorded" not in {t.nodeid for t in s.tests}
    assert {g.nodeid: g.status for g in s.groups} == {
        "tests/test_a.py::test_pass": "PASS",
        "tests/test_b.py::test_psa": "FAIL",
        "tests/test_c.py::test_warn": "WARN",
        "tests/test_d.py::test_hyp": "FAIL",
        "tests/test_e.py::test_smooth": "PASS",
        "tests/test_f.py::test_clusters": "PASS",
    }


def test_many_results_of_one_relation_keep_final_and_worst() -> None:
    g = next(g for g in _summary().groups if g.nodeid.endswith("test_hyp"))
    m = g.metrics[0]
    assert (g.n_results, g.n_failed, m.n, m.n_failed) == (3, 2, 3, 2)
    assert (m.final, m.worst) == (1.0, 3.0)  # last example vs worst seen during the search
    assert g.final_violation is not None
    assert g.final_violation.perturbed_score == 0.7
    assert g.falsifying_example is not None
    assert "case='x'" in g.falsifying_example


def test_worst_follows_the_direction_of_the_bound() -> None:
    rs = [result("auc", v, 0.8, op=">=", name="bpsn_auc") for v in (0.9, 0.7, 0.85)]
    g = rp.build_summary([rp.RecordedTest.create("t::x", rs)]).groups[0]
    assert (g.metrics[0].final, g.metrics[0].worst) == (0.85, 0.7)


def test_relations_of_one_test_are_separate_groups() -> None:
    t = rp.RecordedTest.create("t::x", [result("a", 1, 2), result("b", 3, 2), result("a", 4, 2)])
    groups = rp.build_summary([t]).groups
    assert [(g.relation, g.n_results, g.status) for g in groups] == [("a", 2, "FAIL"),
                                                                     ("b", 1, "FAIL")]


def test_inputs_are_deduplicated_and_sorted_worst_first() -> None:
    s = _summary()
    severities = [d.severity for d in s.inputs]
    assert severities == sorted(severities, reverse=True)
    keys = [(d.nodeid, d.relation, d.original, d.perturbed) for d in s.inputs]
    assert len(keys) == len(set(keys))
    hyp = [d for d in s.inputs if d.nodeid.endswith("test_hyp")]
    assert len(hyp) == 1
    assert hyp[0].perturbed_score == 0.9


def test_a_later_report_of_the_same_test_replaces_the_earlier() -> None:
    first = rp.RecordedTest.create("t::x", [result("a", 5, 1)])
    rerun = rp.RecordedTest.create("t::x", [result("a", 0, 1)])
    assert rp.build_summary([first, rerun]).groups[0].status == "PASS"


# --------------------------------------------------------------------------- baselines


@pytest.mark.parametrize(
    ("text", "absolute", "relative"),
    [("0", 0.0, 0.0), ("0.01", 0.01, 0.0), ("5%", 0.0, 0.05), ("0.01,5%", 0.01, 0.05),
     ("abs=0.2, rel=0.1", 0.2, 0.1), ("rel=10%", 0.0, 0.1)],
)
def test_tolerance_parse(text: str, absolute: float, relative: float) -> None:
    tol = rp.Tolerance.parse(text)
    assert (tol.absolute, tol.relative) == pytest.approx((absolute, relative))


@pytest.mark.parametrize("text", ["", "-1", "x", "abs=5%", "nan", "foo=1"])
def test_bad_tolerance_names_the_accepted_forms(text: str) -> None:
    with pytest.raises(ValueError, match="give an absolute tolerance"):
        rp.Tolerance.parse(text)


def test_tolerance_allows_the_larger_of_absolute_and_relative() -> None:
    tol = rp.Tolerance(absolute=0.01, relative=0.1)
    assert tol.allowed(0.05) == pytest.approx(0.01)
    assert tol.allowed(1.0) == pytest.approx(0.1)


def _run(values: dict[str, float], auc: float = 0.9) -> rp.Summary:
    tests = [rp.RecordedTest.create(f"t.py::{k}", [result("rel", v, 1.0, n_inputs=10,
                                                          n_violations=int(v * 10))])
             for k, v in values.items()]
    tests.append(rp.RecordedTest.create("t.py::auc", [result("bias_auc", auc, 0.5, op=">=",
                                                             name="bpsn_auc")]))
    return rp.build_summary(tests)


def test_baseline_doc_is_valid_and_compares_equal_to_itself() -> None:
    base = rp.baseline_doc(_run({"a": 0.2, "b": 0.5}))
    _validator("baseline").validate(base)
    assert [(m["nodeid"], m["metric"]) for m in base["metrics"]] == [
        ("t.py::a", "max_shift"), ("t.py::a", "violation_rate"), ("t.py::auc", "bpsn_auc"),
        ("t.py::auc", "violation_rate"), ("t.py::b", "max_shift"), ("t.py::b", "violation_rate")]
    c = rp.compare(_run({"a": 0.2, "b": 0.5}), base, rp.Tolerance())
    assert not c.failed
    assert {x.status for x in c.changes} == {"unchanged"}


def test_compare_finds_regressions_improvements_new_and_missing() -> None:
    base = rp.baseline_doc(_run({"a": 0.2, "b": 0.5, "gone": 0.1}, auc=0.9))
    c = rp.compare(_run({"a": 0.4, "b": 0.3, "new": 0.1}, auc=0.8), base, rp.Tolerance())
    status = {(x.nodeid, x.metric): x.status for x in c.changes}
    assert status[("t.py::a", "max_shift")] == "regressed"
    assert status[("t.py::b", "max_shift")] == "improved"
    assert status[("t.py::auc", "bpsn_auc")] == "regressed"  # >= bound: lower is worse
    assert status[("t.py::gone", "max_shift")] == "missing"
    assert status[("t.py::new", "max_shift")] == "new"
    assert c.failed
    assert not rp.compare(_run({"a": 0.4}), base, rp.Tolerance(), warn_only=True).failed


def test_compare_tolerance_absorbs_small_changes() -> None:
    base = rp.baseline_doc(_run({"a": 0.20}))
    assert not rp.compare(_run({"a": 0.205}), base, rp.Tolerance(absolute=0.01)).failed
    assert not rp.compare(_run({"a": 0.21}), base, rp.Tolerance(relative=0.06)).regressions
    assert rp.compare(_run({"a": 0.23}), base, rp.Tolerance(absolute=0.01, relative=0.1)).failed


def test_compare_refuses_other_files_and_newer_schemas(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a pytest-fairness-baseline"):
        rp.compare(_run({"a": 0.2}), {"kind": "other"}, rp.Tolerance())
    newer = {"kind": rp.BASELINE_KIND, "schema_version": rp.SCHEMA_VERSION + 1, "metrics": []}
    with pytest.raises(ValueError, match="upgrade pytest-fairness"):
        rp.compare(_run({"a": 0.2}), newer, rp.Tolerance())
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        rp.load_baseline(bad)
    with pytest.raises(ValueError, match="cannot read"):
        rp.load_baseline(tmp_path / "missing.json")


# --------------------------------------------------------------------------- JSON


def test_json_doc_validates_against_the_shipped_schema() -> None:
    s = _summary()
    s = s.with_comparison(rp.compare(s, rp.baseline_doc(s), rp.Tolerance()))
    doc = rp.to_json_doc(s, created="2024-01-01T00:00:00Z")
    _validator().validate(doc)
    assert list(doc)[:3] == ["schema_version", "kind", "generator"]
    assert doc["totals"]["tests"] == 6
    # every recorded result and every discriminatory input is in the file
    assert sum(len(t["results"]) for t in doc["tests"]) == 8
    assert len(doc["discriminatory_inputs"]) == len(s.inputs)


def test_json_schema_rejects_a_broken_document() -> None:
    doc = rp.to_json_doc(_summary(), created="x")
    doc["tests"][0]["results"][0]["passed"] = "yes"
    assert not _validator().is_valid(doc)
    doc = rp.to_json_doc(_summary(), created="x")
    doc["schema_version"] = 2
    assert not _validator().is_valid(doc)


def test_json_is_stable_and_rebuilds_the_same_summary(tmp_path: Path) -> None:
    s = _summary()
    paths = rp.write_reports(tmp_path, s, created="2024-01-01T00:00:00Z",
                             formats=["json"])
    text = paths[0].read_text()
    again = rp.to_json_doc(rp.load_json(paths[0]), created="2024-01-01T00:00:00Z")
    assert json.dumps(again, indent=2, ensure_ascii=False) + "\n" == text
    rebuilt = rp.load_json(paths[0])
    for verbosity in (-1, 0, 1):
        assert rp.render_text(rebuilt, verbosity=verbosity) == rp.render_text(
            s, verbosity=verbosity)
    assert "NaN" not in text
    assert "Infinity" not in text


def test_cli_prints_the_summary_and_writes_html(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (json_path,) = rp.write_reports(tmp_path, _summary(), formats=["json"])
    assert rp.main([str(json_path), "--html", str(tmp_path / "x.html"), "--width", "120"]) == 0
    out = capsys.readouterr().out
    assert "tests/test_b.py::test_psa" in out
    assert "fairness: 6 relations checked; their verdicts: 2 FAIL, 1 WARN, 3 PASS" in out
    assert (tmp_path / "x.html").read_text().startswith("<!DOCTYPE html>")
    assert rp.main([str(tmp_path / "missing.json")]) == 2


# --------------------------------------------------------------------------- text


def test_text_summary_default_verbosity() -> None:
    lines = rp.render_text(_summary(), width=120)
    _match(lines, [
        "  test*relation*statistic*judged*worst*bound*result*inputs",
        "  tests/test_a.py::test_pass*score_sens*max |ScoreSens|*0.02*<= 0.05*PASS*0/32",
        "  tests/test_b.py::test_psa*score_sens*max |ScoreSens|*0.08*<= 0.05*FAIL*1/32",
        "  tests/test_c.py::test_warn*label_invariance*max_shift*2*<= 0*WARN*1/10",
        "  tests/test_d.py::test_hyp*label_invariance*max_shift*1*3*<= 0*FAIL*2/30",
        "hypothesis: shrunk failing examples",
        "  tests/test_d.py::test_hyp [[]label_invariance]",
        "    3 examples checked, 2 failed",
        "    max_shift: final (shrunk) example 1 (<= 0)",
        "      worst seen 3 over 3 examples",
        "    Falsifying example: test_hyp(",
        "        case='x',",
        "worst discriminatory inputs*",
        "   1. tests/test_d.py::test_hyp [[]label_invariance]  measure +0.8  (name, gender)",
        "         [[][[]He]] is a nurse.  0.100 (ok)",
        "      -> [[][[]She]] is a nurse.  0.900 (toxic)",
        "LabelDist by threshold: tests/test_a.py::test_pass [[]score_sens]",
        "  LabelDist",
        "*0.5 |*",
        "*+-----*",
        "*0.1 * 0.5 * 0.9  threshold",
        "ScoreSens per name: tests/test_a.py::test_pass [[]score_sens]",
        "  female  Aisha *|###* +0.040",
        "  male    John *#|* -0.010",
        "Violations left after mitigation: tests/test_e.py::test_smooth [[]eps_k_fairness]",
        "  eps 0.1: 0%, eps 0.3: 2%, eps 1: 20%, eps 3: 60%, eps 10: 90%",
        "Term clusters for India: tests/test_f.py::test_clusters [[]term_clusters]",
        "  C0 (3 terms, curve 0 -> 0.25): term00, term01, term02",
        "fairness: 6 tests recorded fairness results; their pytest outcomes: 2 failed, 4 passed",
        "fairness: 6 relations checked; their verdicts: 2 FAIL, 1 WARN, 3 PASS",
        "fairness: 4 discriminatory inputs found (2 distinct among the 3 recorded)",
    ])
    assert not any("\x1b" in line for line in lines)


def test_scoresens_chart_groups_names_and_sorts_by_value() -> None:
    lines = bar_chart([("b", 0.01), ("a", -0.02), ("c", 0.03), ("x", 0.0), ("m", 0.02)],
                      {"a": "female", "b": "female", "c": "female", "m": "male"}, width=80)
    names = [line.split()[1] if line.startswith(("  female", "  male", "  other"))
             else line.split()[0] for line in lines[1:]]
    assert names == ["c", "b", "a", "m", "x"]  # female block, male block, ungrouped last
    assert lines[-1].startswith("  other")
    assert "+0.000" in lines[-1]
    assert max(len(line) for line in lines) <= 80
    # the largest |value| fills its half of the axis
    c_line = lines[1]
    assert c_line.count("#") > 2 * lines[2].count("#")


def test_scoresens_chart_limit_keeps_top_and_bottom_names() -> None:
    values = [(f"n{i:02d}", i / 100) for i in range(30)]
    lines = bar_chart(values, {}, width=80, limit=6)
    assert any("... 24 more names" in line for line in lines)
    assert "n29" in lines[1]
    assert "n00" in lines[-1]


def test_line_chart_draws_every_curve_within_the_width() -> None:
    lines = line_chart([[(0.0, 0.0), (1.0, 1.0)], [(0.0, 1.0), (1.0, 0.0)]], width=50,
                       height=6, x_label="t", y_label="v")
    assert lines[0] == "  v"
    assert any("*" in line for line in lines)
    assert any("o" in line for line in lines)
    assert max(len(line) for line in lines) <= 50
    assert line_chart([], width=50) == []


def test_quiet_keeps_one_line_per_failing_relation() -> None:
    lines = rp.render_text(_summary(), width=80, verbosity=-1)
    assert lines == [
        "FAIL tests/test_b.py::test_psa score_sens: max |ScoreSens| = 0.08 (<= 0.05), "
        "1/32 inputs discriminatory",
        "WARN tests/test_c.py::test_warn label_invariance: max_shift = 2 (<= 0), "
        "1/10 inputs discriminatory",
        "FAIL tests/test_d.py::test_hyp label_invariance: max_shift = 1 (<= 0), "
        "2/30 inputs discriminatory",
        "fairness: 6 tests recorded fairness results; their pytest outcomes: 2 failed, 4 passed",
        "fairness: 6 relations checked; their verdicts: 2 FAIL, 1 WARN, 3 PASS",
        "fairness: 4 discriminatory inputs found (2 distinct among the 3 recorded)",
    ]


def test_verbose_shows_every_metric_and_more_inputs() -> None:
    more = [{"name": "LabelDist", "value": 0.1, "bound": 0.2, "op": "<=", "ci": [0.05, 0.15],
             "holds": True}]
    inputs = [violation(f"He {i}.", f"She {i}.", (0, 2), (0, 3), 0.1, 0.1 + i / 100)
              for i in range(30)]
    t = rp.RecordedTest.create("t.py::x", [result("r", 1, 0, more=more, violations=inputs)])
    s = rp.build_summary([t])
    default, verbose, very = (rp.render_text(s, width=120, verbosity=v) for v in (0, 1, 2))
    assert not any("LabelDist" in line for line in default)
    _match(verbose, ["*max_shift*1*<= 0*FAIL*",
                     "*LabelDist*0.1*<= 0.2*ok*[[]0.05, 0.15]*"])
    assert sum("->" in line for line in default) == 5
    assert sum("->" in line for line in verbose) == 20
    assert sum("->" in line for line in very) == 30
    _match(default, ["worst discriminatory inputs (5 of 30; -v shows more)"])


@pytest.mark.parametrize("width", [40, 60, 80, 100, 160])
def test_table_adapts_to_the_width(width: int) -> None:
    lines = rp.render_text(_summary(), width=width)
    table = lines[: lines.index("")]
    assert max(len(line) for line in table) <= width
    # node ids are never cut while there is room for them on their own line
    if width >= 40:
        assert any(line.strip() == "tests/test_d.py::test_hyp" or
                   line.strip().startswith("tests/test_d.py::test_hyp ") for line in table)


def test_colour_only_when_asked() -> None:
    plain = rp.render_text(_summary(), width=100)
    coloured = rp.render_text(_summary(), width=100, color=True)
    assert not any("\x1b[" in line for line in plain)
    assert any("\x1b[31;1mFAIL" in line for line in coloured)
    assert any("[[\x1b[1;33mShe\x1b[0m]]" in line for line in coloured)


def test_changed_words_are_marked_and_wrapped() -> None:
    assert segments("abcdef", [(4, 10), (1, 2), (2, 3), (5, 5)]) == [
        ("a", False), ("bc", True), ("d", False), ("ef", True)]
    assert segments("", []) == [("", False)]
    d = rp.DiscriminatoryInput(nodeid="t::x", relation="r", original="word " * 30 + "She left.",
                               perturbed="word " * 30 + "Wei left.", original_spans=((150, 153),),
                               perturbed_spans=((150, 153),), original_score=0.1,
                               perturbed_score=0.9)
    s = rp.Summary(tests=(), groups=(), inputs=(d,))
    from pytest_fairness.report.text import _inputs_section, _Style

    lines = _inputs_section(s, 60, 0, _Style(False))
    assert max(len(line) for line in lines) <= 60
    assert any("[[She]] left." in line for line in lines)
    assert any("[[Wei]] left.  0.900" in line for line in lines)


def test_empty_summary_renders_nothing() -> None:
    assert rp.render_text(rp.build_summary([]), width=80) == []


# --------------------------------------------------------------------------- HTML


def test_html_is_self_contained_escaped_and_has_figures() -> None:
    pytest.importorskip("matplotlib")
    evil = violation("<script>alert(1)</script> she", "<script>alert(1)</script> Wei",
                     (26, 29), (26, 29), 0.1, 0.9)
    t = rp.RecordedTest.create("t.py::x<y>", [result("r&s", 1, 0, violations=[evil])])
    s = rp.build_summary([*_summary().tests, t])
    page = rp.render_html(s, created="2024-01-01T00:00:00Z")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark class=\"pert\">Wei</mark>" in page
    assert "t.py::x&lt;y&gt;" in page
    assert "r&amp;s" in page
    assert "http://" not in page
    assert "https://" not in page
    assert "<link" not in page
    # LabelDist once (two tests recorded the same curve), ScoreSens for two tests, the
    # mitigation curve, the clusters
    assert page.count("data:image/png;base64,") == 5
    for caption in ("psa, Figure 2", "psa, Figure 1", "mt-nlp, Figure 5",
                    "cross-geographic, Figure 3"):
        assert caption in page


def test_html_without_matplotlib_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    page = rp.render_html(_summary())
    assert "data:image/png" not in page
    assert "matplotlib is not installed" in page
    assert "pip install matplotlib" in page
    assert "tests/test_b.py::test_psa" in page


def test_importing_the_report_layer_is_light() -> None:
    code = ("import sys, pytest_fairness.report, pytest_fairness.runtime.progress, "
            "pytest_fairness.plugin\n"
            "print(sorted(m for m in ('matplotlib', 'jsonschema', 'xdist', "
            "'pytest_fairness.report.html') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- helpers


def test_junit_properties() -> None:
    props = dict(rp.junit_properties([result("r", 0.5, 1.0, n_violations=0),
                                       result("r", 2.0, 1.0, n_violations=3)]))
    assert props == {"fairness.r.status": "FAIL", "fairness.r.max_shift": "2.0",
                     "fairness.r.max_shift.worst": "2.0", "fairness.r.bound.max_shift": "<= 1.0",
                     "fairness.r.discriminatory_inputs": "3", "fairness.r.results": "2"}
    warn = dict(rp.junit_properties([result("r", 2.0, 1.0)], warn_only=True))
    assert warn["fairness.r.status"] == "WARN"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("E   AssertionError: x\nE   Falsifying example: test_x(\nE       a=1,\nE   )\nmore",
         "Falsifying example: test_x(\n    a=1,\n)"),
        ("E               Failing test case: test_h(\nE                   x=1.0,\n"
         "E               )\nE               Explanation:", "Failing test case: test_h(\n"
         "    x=1.0,\n)"),
        ("Falsifying explicit example: test_y(x=2)", "Falsifying explicit example: test_y(x=2)"),
        ("AssertionError: nothing here", None),
        (None, None),
    ],
)
def test_falsifying_example(text: str | None, expected: str | None) -> None:
    assert rp.falsifying_example(text) == expected


# --------------------------------------------------------------------------- progress


class FakeSink:
    def __init__(self, live: bool) -> None:
        self.live = live
        self.events: list[tuple[str, str]] = []

    def update(self, text: str) -> None:
        self.events.append(("update", text))

    def clear(self) -> None:
        self.events.append(("clear", ""))

    def final(self, text: str) -> None:
        self.events.append(("final", text))


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _drive(sink: FakeSink | None, steps: int = 10, step_seconds: float = 0.3) -> int:
    clock = FakeClock()
    token = prog.set_sink(sink)
    try:
        with prog.progress(1000, "scoring", clock=clock) as advance:
            for _ in range(steps):
                clock.now += step_seconds
                advance(100)
            clock.now += 0.05
    finally:
        prog.reset_sink(token)
    return 0


def test_progress_live_on_a_terminal_then_erased() -> None:
    sink = FakeSink(live=True)
    _drive(sink)
    updates = [t for e, t in sink.events if e == "update"]
    assert updates[0] == "scoring: 200/1,000 texts (20%), 333 texts/s, 0:02 left"
    assert updates[-1].startswith("scoring: 1,000/1,000 texts (100%)")
    assert sink.events[-1] == ("clear", "")
    assert not any(e == "final" for e, _ in sink.events)


def test_progress_in_ci_logs_is_one_final_line() -> None:
    sink = FakeSink(live=False)
    _drive(sink)
    assert sink.events == [("final", "fairness: scoring: 1,000 texts in 3.0 s (328 texts/s)")]
    quick = FakeSink(live=False)
    _drive(quick, steps=1, step_seconds=0.1)  # shorter than the delay: quiet
    assert quick.events == []


def test_progress_is_a_no_op_without_a_sink_and_nested_blocks_are_silent() -> None:
    _drive(None)
    sink = FakeSink(live=False)
    token = prog.set_sink(sink)
    try:
        with prog.progress(2, "outer", delay=0) as outer:
            with prog.progress(5, "inner", delay=0) as inner:
                inner(5)
            outer(2)
    finally:
        prog.reset_sink(token)
    assert [t.split(":")[1].strip() for _, t in sink.events] == ["outer"]


def test_progress_formats() -> None:
    assert prog.format_live(50, None, 2.0, "x", "rows") == "x: 50 rows, 25 rows/s"
    assert prog.format_live(0, 10, 0.0, "x") == "x: 0/10 texts (0%)"
    assert prog.format_live(1, 10_000, 1.0, "x").endswith("2:46:39 left")


# --------------------------------------------------------------------------- term clusters


def _cluster_summary(relative: bool = False) -> rp.Summary:
    """A summary with the clusters `term_sensitivity_clusters` makes for 14 terms."""
    from pytest_fairness.metrics import term_sensitivity_clusters

    base = [0.1, 0.5, 0.9]
    neutral = [f"neutral{i}" for i in range(10)]
    terms = [*neutral, "slur1", "slur2", "slur3", "<b>x</b>"]
    scores = [[0.1 + 0.001 * i, 0.5, 0.9] for i in range(10)] + [[0.95, 0.97, 0.99]] * 4
    clusters = term_sensitivity_clusters(terms, scores, n_clusters=2, template_scores=base,
                                         relative=relative, group="identity")
    recorded = result("term_clusters", None, None, name="inertia", n_inputs=42,
                      extra={"clusters": clusters.to_dict()})
    return rp.build_summary([rp.RecordedTest.create("t.py::test_terms", [recorded])])


def test_text_summary_lists_cluster_terms_with_their_shift() -> None:
    lines = rp.render_text(_cluster_summary(), width=100)
    _match(lines, [
        "Term clusters for identity: t.py::test_terms [[]term_clusters]",
        # 10 neutral terms: shift (.0045 + 0 + 0) / 3 = .0015; the line stops at the width
        "  C0 (10 terms, mean shift +0.002): neutral0, *, +* more",
        # slurs: ((.85) + (.47) + (.09)) / 3 = .47
        "  C1 (4 terms, mean shift +0.470): slur1, slur2, slur3, <b>x</b>",
    ])
    assert all(len(line) <= 100 for line in lines)
    c0 = next(line for line in lines if line.startswith("  C0"))
    shown = c0.split("): ")[1].split(", +")[0].split(", ")
    assert c0.endswith(f"+{10 - len(shown)} more")
    # at -v every term is listed, wrapped under the cluster
    verbose = rp.render_text(_cluster_summary(), width=60, verbosity=1)
    _match(verbose, ["  C0 (10 terms, mean shift +0.002, curve 0.1045 -> 0.9):*"])
    text = " ".join(line.strip() for line in verbose)
    assert all(f"neutral{i}" in text for i in range(10))
    assert "more" not in text.split("Term clusters")[1]


def test_text_summary_of_relative_clusters_says_shift() -> None:
    lines = rp.render_text(_cluster_summary(relative=True), width=100, verbosity=1)
    _match(lines, ["  C1 (4 terms, mean shift +0.470, shift 0.85 -> 0.09): slur1*"])


def test_html_lists_every_cluster_term_even_without_matplotlib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    page = rp.render_html(_cluster_summary(), created="2024-01-01T00:00:00Z")
    section = html_section(page, "t.py::test_terms")
    assert "<h4>Term clusters for identity</h4>" in section
    assert ", ".join(f"neutral{i}" for i in range(10)) in section
    assert "slur1, slur2, slur3, &lt;b&gt;x&lt;/b&gt;" in section
    assert "<b>x</b>" not in section
    assert "+0.470" in section
    assert "+0.002" in section


def test_html_cluster_figure_is_drawn_for_relative_curves() -> None:
    pytest.importorskip("matplotlib")
    page = rp.render_html(_cluster_summary(relative=True), created="2024-01-01T00:00:00Z")
    assert page.count("data:image/png;base64,") == 1
    assert "cross-geographic, Figure 3" in page
