"""Report sections through the summary, text, JSON and HTML, with no report code knowing
them; legacy `extra` keys rendering exactly like the equivalent sections."""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import jsonschema
import pytest
from _report_samples import (
    cluster_result,
    mitigation_result,
    own_sections_result,
    psa_result,
    result,
)
from test_report import html_section

from pytest_fairness import report as rp
from pytest_fairness.report.charts import (
    clusters_section,
    label_dist_section,
    mitigation_section,
    score_sens_section,
)
from pytest_fairness.report.legacy import sections_from_extra
from pytest_fairness.report.summary import merge_sections
from pytest_fairness.results import BarChart, Cluster, Clusters, Curve, Section, Table


def _match(lines: list[str], patterns: list[str]) -> None:
    """Every pattern matches some line, in order."""
    i = 0
    for pattern in patterns:
        while i < len(lines) and not fnmatch.fnmatch(lines[i], pattern):
            i += 1
        assert i < len(lines), f"no line matches {pattern!r} in order:\n" + "\n".join(lines)
        i += 1


def _own_summary() -> rp.Summary:
    return rp.build_summary([rp.RecordedTest.create("tests/test_own.py::test_gap",
                                                    [own_sections_result()])])


def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(rp.schema_path().read_text())
    return jsonschema.Draft202012Validator(schema)


# --------------------------------------------------------------------------- summary


def test_sections_survive_build_summary_and_the_json_file(tmp_path: Path) -> None:
    s = _own_summary()
    (g,) = s.groups
    assert [type(x) for x in g.sections] == [Curve, BarChart, Table, Clusters]
    (path,) = rp.write_reports(tmp_path, s, created="2024-01-01T00:00:00Z", formats=["json"])
    doc = json.loads(path.read_text())
    _validator().validate(doc)
    assert [x["type"] for x in doc["summary"][0]["sections"]] == [
        "curve", "bar_chart", "table", "clusters"]
    assert rp.load_json(path).groups[0].sections == g.sections


def test_users_own_sections_render_in_text() -> None:
    lines = rp.render_text(_own_summary(), width=100)
    _match(lines, [
        "Accuracy gap by <length>: tests/test_own.py::test_gap [[]own_check]",
        "  gap",
        "*+-----*",
        "*10*40  tokens",
        "AUC per subgroup: tests/test_own.py::test_gap [[]own_check]",
        "  women *|* +0.810",   # ungrouped: the order given, no group column
        "  men *|* +0.860",
        "  <nb> *|* +0.740",
        "Confusion by group: tests/test_own.py::test_gap [[]own_check]",
        "  group    TPR   FPR    n",
        "  women    0.8   0.1  120",
        "  men      0.9  0.05   80",
        "  <other>  * 0",
        "Word groups for Kenya: tests/test_own.py::test_gap [[]own_check]",
        "  C0 (2 terms, mean shift +0.050): alpha, beta",
        "  C1 (1 term, mean shift +0.400): gamma",
    ])
    assert not any(line.startswith("  other") for line in lines)  # bars are not grouped


def test_a_long_or_wide_table_stays_readable() -> None:
    rows = [[f"row {i}", "x" * 60, i / 7] for i in range(30)]
    t = rp.RecordedTest.create("t::x", [result("r", 0, 1) | {"sections": [
        Table("big", ["name", "text", "value"], rows).to_dict()]}])
    s = rp.build_summary([t])
    lines = rp.render_text(s, width=50)
    table = lines[lines.index("big: t::x [r]") + 1:]
    assert all(len(line) <= 50 for line in table[:21])
    assert sum(line.startswith("  row ") for line in table) == 20
    assert "  ... 10 more rows (-v shows them)" in table
    verbose = rp.render_text(s, width=50, verbosity=1)
    assert sum(line.startswith("  row ") for line in verbose) == 30


def test_users_own_sections_render_in_html() -> None:
    pytest.importorskip("matplotlib")
    page = rp.render_html(_own_summary(), created="2024-01-01T00:00:00Z")
    assert page.count("data:image/png;base64,") == 3  # curve, bars, clusters
    assert "<figcaption>Gap &amp; length (own check)</figcaption>" in page
    assert "<figcaption>AUC per subgroup</figcaption>" in page
    assert "<figcaption>Word groups for Kenya</figcaption>" in page
    tables = html_section(page, "tests/test_own.py::test_gap")
    assert "<h4>Confusion by group</h4>" in tables
    assert '<th>group</th><th class="num">TPR</th>' in tables
    assert ('<tr><td data-label="group">&lt;other&gt;</td><td class="num" data-label="TPR">'
            '</td>') not in tables  # an empty cell is not a number
    assert re.search(r'<tr><td data-label="group">&lt;other&gt;</td>(<td data-label="[^"]+">'
                     r'</td>){2}<td class="num" data-label="[^"]+">0</td></tr>', tables)
    assert "Rates at threshold 0.5" in tables
    clusters = tables.split("<h4>Word groups for Kenya</h4>")[1]
    assert "alpha, beta" in clusters
    assert "<nb>" not in page
    assert "<length>" not in page


def test_a_figure_that_cannot_be_drawn_is_a_note_not_a_lost_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("matplotlib")
    from pytest_fairness.report import html

    def broken(self: object, width: float, height: float) -> None:
        raise RuntimeError("image of <huge> size")

    monkeypatch.setattr(html._Figures, "new", broken)
    page = rp.render_html(_own_summary())
    assert ('The figure "AUC per subgroup" could not be drawn: RuntimeError: image of '
            "&lt;huge&gt; size") in page
    assert page.count("could not be drawn") == 3
    assert "data:image/png" not in page
    assert "<h4>Confusion by group</h4>" in page


def test_html_without_matplotlib_still_has_tables_and_names_the_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    page = rp.render_html(_own_summary())
    assert "data:image/png" not in page
    assert "the figures (Accuracy gap by &lt;length&gt;, AUC per subgroup, Word groups)" in page
    assert "<h4>Confusion by group</h4>" in page


# --------------------------------------------------------------------------- merging


def _curve(title: str, *points: list[tuple[float, float]]) -> Curve:
    return Curve(title, points, x_label="t", y_label="v")


def test_curves_of_a_hypothesis_group_accumulate_distinct_series() -> None:
    a, b, c = [(0.0, 0.1), (1.0, 0.2)], [(0.0, 0.3), (1.0, 0.1)], [(0.0, 0.0), (1.0, 0.4)]
    bars1, bars2 = BarChart("bars", {"x": 1.0}), BarChart("bars", {"y": 2.0})
    results = [
        result("r", 0.0, 1.0, extra={}) | {"sections": [_curve("loss", a).to_dict(),
                                                      bars1.to_dict()]},
        result("r", 2.0, 1.0, extra={}) | {"sections": [_curve("loss", b).to_dict()]},
        result("r", 0.5, 1.0, extra={}) | {"sections": [_curve("loss", a, c).to_dict(),
                                                      bars2.to_dict()]},
    ]
    t = rp.RecordedTest.create("t.py::test_h", results, hypothesis=True, outcome="failed")
    (g,) = rp.build_summary([t]).groups
    loss, bars = g.sections
    assert isinstance(loss, Curve)
    assert loss.series == (tuple(a), tuple(b), tuple(c))  # distinct, in order
    assert bars == bars2  # other types: the last result that had one
    _match(rp.render_text(rp.build_summary([t]), width=80), [
        "loss: t.py::test_h [[]r]", "  * curve 1  o curve 2  + curve 3"])


def test_merge_keeps_labels_and_names_unlabelled_series() -> None:
    first = Curve("c", [[(0, 1)]], labels=["women"])
    second = Curve("c", [[(0, 2)], [(0, 1)]])
    (merged,) = merge_sections([[first], [second]])
    assert isinstance(merged, Curve)
    assert merged.labels == ("women", "curve 2", "curve 3")
    assert merge_sections([[Curve("c", [[(0, 1)]])], [Curve("c", [[(0, 1)]])]]) == (
        Curve("c", [[(0, 1)]]),)


def test_sections_are_ordered_by_title_then_group() -> None:
    t1 = rp.RecordedTest.create("a::x", [result("r", 0, 1) | {"sections": [
        _curve("second", [(0, 1)]).to_dict()]}])
    t2 = rp.RecordedTest.create("b::y", [result("r", 0, 1) | {"sections": [
        _curve("first", [(0, 1)]).to_dict(), _curve("second", [(0, 2)]).to_dict()]}])
    s = rp.build_summary([t2, t1])
    assert s.section_titles() == ("second", "first")
    heads = [line for line in rp.render_text(s, width=80) if line.startswith(("first", "second"))]
    assert heads == ["second: a::x [r]", "second: b::y [r]", "first: b::y [r]"]


# --------------------------------------------------------------------------- legacy


def _as_sections(record: dict[str, object]) -> dict[str, object]:
    extra = dict(record["extra"])  # type: ignore[call-overload]
    converted: list[Section] = []
    if "label_dist_curve" in extra:
        converted.append(label_dist_section(extra.pop("label_dist_curve")))
    if "score_sens" in extra:
        converted.append(score_sens_section(extra.pop("score_sens"), extra.pop("name_groups")))
    if "mitigation_curve" in extra:
        converted.append(mitigation_section(extra.pop("mitigation_curve")))
    if "clusters" in extra:
        converted.append(clusters_section(extra.pop("clusters")))
    return {**record, "extra": extra, "sections": [s.to_dict() for s in converted]}


@pytest.mark.parametrize("verbosity", [-1, 0, 1, 2])
def test_legacy_extras_render_the_same_text_as_the_sections(verbosity: int) -> None:
    records = {"t.py::psa": [psa_result(0.08), psa_result(0.02)],
               "t.py::smooth": [mitigation_result()], "t.py::clusters": [cluster_result()]}
    legacy = rp.build_summary([rp.RecordedTest.create(k, rs) for k, rs in records.items()])
    typed = rp.build_summary([rp.RecordedTest.create(k, [_as_sections(r) for r in rs])
                              for k, rs in records.items()])
    assert [g.sections for g in typed.groups] == [g.sections for g in legacy.groups]
    for width in (60, 100):
        assert rp.render_text(typed, width=width, verbosity=verbosity) == rp.render_text(
            legacy, width=width, verbosity=verbosity)


def test_sections_win_over_legacy_extras() -> None:
    record = psa_result() | {"sections": [Curve("own", [[(0, 1)]]).to_dict()]}
    (g,) = rp.build_summary([rp.RecordedTest.create("t::x", [record])]).groups
    assert [s.title for s in g.sections] == ["own"]


def test_legacy_conversion_is_lenient_like_earlier_versions() -> None:
    extra = {"label_dist_curve": [[0.1, None], [0.2, 0.3], "x"],
             "score_sens": {"a": None, "b": 0.1}, "name_groups": "not a mapping",
             "mitigation_curve": [],
             "clusters": [{"clusters": []}, {"country": "USA", "clusters": [
                 "junk", {"terms": "ab", "curve": [0.1, None, True], "mean_shift": True}]}]}
    ld, ss, cl = sections_from_extra(extra)
    assert isinstance(ld, Curve)
    assert ld.series == (((0.2, 0.3),),)
    assert isinstance(ss, BarChart)
    assert (ss.bars, ss.groups) == ((("b", 0.1),), ())
    assert isinstance(cl, Clusters)
    assert (cl.heading, cl.clusters[0].id, cl.clusters[0].terms) == ("Term clusters for USA",
                                                                    1, ())
    assert cl.clusters[0].curve == (0.1,)
    assert sections_from_extra({}) == ()


# --------------------------------------------------------------------------- bad records


def test_a_malformed_section_is_left_out_with_a_warning_and_the_report_still_renders() -> None:
    record = result("r", 0, 1) | {"sections": [{"type": "curve", "title": "broken"},
                                               Curve("fine", [[(0, 1)]]).to_dict()]}
    with pytest.warns(RuntimeWarning, match="section of a recorded 'r' result is left out.*"
                                            "has no 'series'"):
        t = rp.RecordedTest.create("t::x", [record])
    assert [s["title"] for s in t.results[0]["sections"]] == ["fine"]
    assert any(line.startswith("fine: t::x") for line in rp.render_text(rp.build_summary([t])))


def test_sections_of_a_newer_version_are_kept_in_the_file_and_skipped_in_the_report(
    tmp_path: Path,
) -> None:
    future = {"type": "sankey", "title": "flows", "links": [[0, 1]]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = rp.RecordedTest.create("t::x", [result("r", 0, 1) | {"sections": [future]}])
    s = rp.build_summary([t])
    assert s.groups[0].sections == ()
    (path,) = rp.write_reports(tmp_path, s, formats=["json"])
    doc = json.loads(path.read_text())
    _validator().validate(doc)
    assert doc["tests"][0]["results"][0]["sections"] == [future]
    assert rp.render_text(rp.load_json(path)) == rp.render_text(s)


def test_section_objects_recorded_in_a_hand_built_dict_are_serialised() -> None:
    t = rp.RecordedTest.create("t::x", [result("r", 0, 1) | {"sections": [
        Table("t", ["a"], [[1]])]}])
    assert t.results[0]["sections"] == [Table("t", ["a"], [[1]]).to_dict()]


def test_a_version_1_file_without_sections_still_opens(tmp_path: Path) -> None:
    s = rp.build_summary([rp.RecordedTest.create("t::x", [psa_result()])])
    doc = rp.to_json_doc(s, created="2024-01-01T00:00:00Z")
    for t in doc["tests"]:
        for r in t["results"]:
            del r["sections"]
    for g in doc["summary"]:
        del g["sections"]
    _validator().validate(doc)
    assert rp.render_text(rp.from_json_doc(doc)) == rp.render_text(s)


def test_python_m_report_prints_the_sections(tmp_path: Path) -> None:
    (path,) = rp.write_reports(tmp_path, _own_summary(), formats=["json"])
    out = subprocess.run([sys.executable, "-W", "error", "-m", "pytest_fairness.report",
                          str(path), "--width", "100"], capture_output=True, text=True,
                         check=True)
    assert "Confusion by group: tests/test_own.py::test_gap [own_check]" in out.stdout
    assert out.stderr == ""


# --------------------------------------------------------------------------- hostile text


def _hostile_summary() -> rp.Summary:
    sections = [
        Curve("cost $a$ and $\\frac{ \x1b[31m", [[(1, 2), (2, 3)]], labels=["$x^$"],
              x_label="$_", y_label="$$"),
        BarChart("$^", {"$a$\x07": 1.0, "$\\b$": 2.0}, groups={"$a$\x07": "$g$\n"},
                 value_label="$"),
        Table("t\r", ["a\x1b"], [["x\x00y"]]),
        Clusters("$k$", [Cluster(0, ["$\\q$\x1b[2J", "b"], [1, 2])], label="$"),
    ]
    t = rp.RecordedTest.create("t::x", [result("r", 0, 1) | {"sections": [
        s.to_dict() for s in sections]}])
    return rp.build_summary([t])


def test_section_text_reaches_the_terminal_without_control_characters() -> None:
    lines = rp.render_text(_hostile_summary(), width=100)
    assert not any(ch in line for line in lines for ch in "\x1b\x07\x00\r\n")
    text = "\n".join(lines)
    assert "cost $a$ and $\\frac{ \\x1b[31m: t::x [r]" in text
    assert "x\\x00y" in text
    assert "$\\q$\\x1b[2J, b" in text


def test_dollar_signs_in_section_text_are_not_parsed_as_math() -> None:
    pytest.importorskip("matplotlib")
    page = rp.render_html(_hostile_summary())
    assert page.count("data:image/png;base64,") == 3


def test_rows_of_a_data_set_are_listed_without_marks_or_arrows() -> None:
    """A violation that is one row of a data set (the same text, no changed words, no second
    score) is not announced with "changed words" or "original -> perturbed"; a perturbation
    still is."""
    from pytest_fairness.report.failure import render_violations
    from pytest_fairness.results import Violation

    row = Violation(original="A gay man taught my daughter to swim.",
                    perturbed="A gay man taught my daughter to swim.", measure=0.67,
                    detail="group 'gay': labelled '0', predicted '1'")
    lines = render_violations([row], 1, "P(1)", 5)
    assert lines[0] == "worst 1 of 1 discriminatory input(s):"
    assert "score (label)" in lines[1]
    assert "->" not in lines[1]
    pair = Violation(original="He is here.", perturbed="She is here.",
                     original_spans=((0, 2),), perturbed_spans=((0, 3),),
                     original_score=0.1, perturbed_score=0.8, measure=0.7)
    lines = render_violations([row, pair], 2, "shift", 5)
    assert "changed words in [[...]]" in lines[0]
    assert "original -> perturbed" in lines[1]


# --------------------------------------------------------------------------- bar intervals


def _interval_chart() -> BarChart:
    return BarChart("Rate by group", [("women", 0.30), ("men", 0.55), ("nb", 0.10)],
                    groups={"women": "gender", "men": "gender"}, value_label="rate",
                    intervals=[(0.20, 0.42), (0.50, 0.61), None], caption="95% bootstrap")


def _interval_summary(*charts: BarChart) -> rp.Summary:
    t = rp.RecordedTest.create("t.py::test_rates", [result("group_rates", 0, 1) | {
        "sections": [c.to_dict() for c in charts or (_interval_chart(),)]}])
    return rp.build_summary([t])


def test_bar_intervals_reach_the_json_file_and_validate(tmp_path: Path) -> None:
    s = _interval_summary()
    (path,) = rp.write_reports(tmp_path, s, created="2024-01-01T00:00:00Z", formats=["json"])
    doc = json.loads(path.read_text())
    _validator().validate(doc)
    (chart,) = doc["summary"][0]["sections"]
    assert chart["bars"] == [["men", 0.55], ["women", 0.3], ["nb", 0.1]]
    assert chart["intervals"] == [[0.5, 0.61], [0.2, 0.42], None]
    assert rp.load_json(path).groups[0].sections == (_interval_chart(),)


def test_the_schema_keeps_reports_without_intervals_valid_and_refuses_bad_ones() -> None:
    doc = rp.to_json_doc(_interval_summary(), created="2024-01-01T00:00:00Z")
    chart = doc["summary"][0]["sections"][0]
    _validator().validate(doc)
    chart["intervals"] = None
    _validator().validate(doc)
    del chart["intervals"]  # a report written before bars had intervals
    _validator().validate(doc)
    for bad in ([[0.1]], [0.1, 0.2], [["a", "b"]], "0.1-0.2", []):
        chart["intervals"] = bad
        with pytest.raises(jsonschema.ValidationError):
            _validator().validate(doc)


def test_the_text_report_shows_each_interval_after_its_value() -> None:
    lines = rp.render_text(_interval_summary(), width=100)
    _match(lines, [
        "Rate by group: t.py::test_rates [[]group_rates]",
        "  gender  men  *|#* +0.550 [[]+0.500, +0.610]",
        "          women  *|#* +0.300 [[]+0.200, +0.420]",
        "  other   nb  *|#* +0.100",
    ])
    start = lines.index("Rate by group: t.py::test_rates [group_rates]")
    chart = lines[start + 1:start + 5]
    assert chart[-1].endswith("+0.100")  # a bar without an interval shows none
    assert all(len(line) <= 100 for line in chart)
    narrow = rp.render_text(_interval_summary(), width=60)
    start = narrow.index("Rate by group: t.py::test_rates [group_rates]")
    assert all(len(line) <= 60 for line in narrow[start + 1:start + 5])
    plain = rp.render_text(_interval_summary(BarChart("Rate by group", {"men": 0.55})), width=100)
    assert not any("[+" in line for line in plain)


def _drawn_figures(monkeypatch: pytest.MonkeyPatch, summary: rp.Summary) -> list[object]:
    """The matplotlib figures the HTML report draws (not encoded)."""
    pytest.importorskip("matplotlib")
    from pytest_fairness.report import html

    figures: list[object] = []

    def keep(fig: object) -> str:
        figures.append(fig)
        return "cG5n"

    monkeypatch.setattr(html._Figures, "png", staticmethod(keep))
    page = rp.render_html(summary)
    assert page.count("data:image/png;base64,cG5n") == len(figures)
    return figures


def test_the_html_report_draws_intervals_as_error_bars(monkeypatch: pytest.MonkeyPatch) -> None:
    (fig,) = _drawn_figures(monkeypatch, _interval_summary())
    (ax,) = fig.axes  # type: ignore[attr-defined]
    (bars, errors) = ax.containers
    assert [round(b.get_width(), 3) for b in bars] == [0.55, 0.3, 0.1]  # shown top down
    (lines,) = errors.lines[2]
    spans = sorted((round(a[0], 3), round(b[0], 3), round(a[1], 3))
                   for a, b in lines.get_segments())
    assert spans == [(0.2, 0.42, 1.0), (0.5, 0.61, 2.0)]  # y: women 1, men 2 (top)


def test_an_interval_need_not_contain_its_value_in_the_figure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chart = BarChart("Bootstrap", {"a": 0.5}, intervals=[(0.6, 0.9)])
    (fig,) = _drawn_figures(monkeypatch, _interval_summary(chart))
    (_, errors) = fig.axes[0].containers  # type: ignore[attr-defined]
    ((low, high),) = errors.lines[2][0].get_segments()
    assert (round(low[0], 3), round(high[0], 3)) == (0.6, 0.9)


def test_the_html_report_draws_no_error_bars_without_intervals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (fig,) = _drawn_figures(monkeypatch, _interval_summary(BarChart("plain", {"a": 1.0})))
    assert len(fig.axes[0].containers) == 1  # type: ignore[attr-defined]  # the bars only


def test_html_without_matplotlib_lists_the_bars_with_their_intervals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    page = rp.render_html(_interval_summary())
    assert "data:image/png" not in page
    section = html_section(page, "t.py::test_rates")
    assert "<h4>Rate by group</h4>" in section
    assert ('<th>label</th><th>group</th><th class="num">rate</th><th>interval</th>'
            in section)
    assert ('<tr><td data-label="label">men</td><td data-label="group">gender</td>'
            '<td class="num" data-label="rate">0.55</td>'
            '<td data-label="interval">[0.5, 0.61]</td></tr>') in section
    assert ('<tr><td data-label="label">nb</td><td data-label="group">other</td>'
            '<td class="num" data-label="rate">0.1</td><td data-label="interval"></td></tr>'
            ) in section
    assert '<p class="small">95% bootstrap</p>' in section
    plain = rp.render_html(_interval_summary(BarChart("plain", {"a": 1.0})))
    assert '<th>label</th><th class="num">value</th></tr>' in plain


INTERVAL_SUITE = """
import pytest_fairness as pf
from pytest_fairness.results import BarChart, FairnessResult, Measurement


def test_rates():
    chart = BarChart("Rate by group", [("women", 0.3), ("men", 0.55)],
                     groups={"women": "gender", "men": "gender"},
                     intervals={"women": (0.2, 0.42)})
    pf.record(FairnessResult("group_rates", True, measurements=(Measurement("gap", 0.25),),
                             n_inputs=20, sections=(chart,)))


def test_other():
    pf.record(FairnessResult("group_rates", True, n_inputs=1,
                             sections=(BarChart("plain", {"a": 1.0}),)))
"""


def test_bar_intervals_cross_xdist_workers(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_rates=INTERVAL_SUITE)
    docs = []
    for name, args in (("one", ("-p", "no:xdist")), ("two", ("-n", "2"))):
        run = pytester.runpytest("-p", "no:randomly", f"--fairness-report={name}", *args)
        run.assert_outcomes(passed=2)
        doc = json.loads((pytester.path / name / "fairness.json").read_text())
        _validator().validate(doc)
        doc.pop("created")
        docs.append(doc)
    assert docs[0] == docs[1]
    by_title = {s["title"]: s for g in docs[1]["summary"] for s in g["sections"]}
    assert by_title["Rate by group"]["intervals"] == [None, [0.2, 0.42]]  # men, women
    assert by_title["plain"]["intervals"] is None


def test_a_long_bar_chart_keeps_the_intervals_of_the_bars_it_shows() -> None:
    from pytest_fairness.errors import ConfigurationError
    from pytest_fairness.report.text import bar_chart

    values = [(f"n{i:02d}", i / 100) for i in range(30)]
    spans = [(i / 100 - 0.01, i / 100 + 0.01) for i in range(30)]
    lines = bar_chart(values, {}, width=80, limit=6, intervals=spans)
    assert any("... 24 more names" in line for line in lines)
    assert lines[1].endswith("+0.290 [+0.280, +0.300]")
    assert lines[-1].endswith("+0.000 [-0.010, +0.010]")
    assert max(len(line) for line in lines) <= 80
    with pytest.raises(ConfigurationError, match="1 intervals for 30 values"):
        bar_chart(values, {}, width=80, intervals=spans[:1])
