"""Every row shows the statistic that was judged, labelled, with the estimate and interval
beside it; nothing is cut mid-word; the HTML page's badges, figures, inputs and navigation;
the command line reading a report directory."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from _report_samples import psa_result, violation

from pytest_fairness import report as rp

PSA_ID = ("tests/fairness/test_toxicity_names.py::"
          "test_no_name_moves_the_toxicity_of_comments_by_more_than_a_point[popular-names]")


def _m(name: str, value: float, bound: float | None = None, op: str = "<=",
       ci: tuple[float, float] | None = None) -> dict[str, Any]:
    holds = bound is None or (value <= bound if op == "<=" else value >= bound)
    return {"name": name, "value": value, "bound": bound, "op": op,
            "ci": None if ci is None else list(ci), "holds": holds}


def _interval_result(name: str, estimate: float, ci: tuple[float, float], bound: float,
                     relation: str = "score_sens", **extra: Any) -> dict[str, Any]:
    """What `checks.verdict.measured` records for a relation asked for an interval: the
    point estimate (no bound) and the lower CI end (the bound), plus a recorded one."""
    ms = [_m(name, estimate, None, ci=ci), _m(f"{name} (lower CI end)", ci[0], bound, ci=ci),
          _m("ScoreDev", 0.02741)]
    return {"relation": relation, "passed": all(m["holds"] for m in ms), "measurements": ms,
            "violations": [], "n_inputs": 1200, "n_violations": 0, "extra": {}, **extra}


def _summary(*tests: tuple[str, list[dict[str, Any]]], outcome: str = "failed") -> rp.Summary:
    return rp.build_summary([rp.RecordedTest.create(nodeid, results, outcome=outcome)
                             for nodeid, results in tests])


SCORESENS = _interval_result("max |ScoreSens| (name Jerome)", 0.0886, (0.08467, 0.0931), 0.08)
W1 = _interval_result("W1(a, b)", 0.3611, (0.1111, 0.6389), 0.4, relation="wasserstein")


# --------------------------------------------------------------------------- the rows


def test_an_estimate_and_the_interval_end_judged_are_one_row() -> None:
    (g,) = _summary((PSA_ID, [SCORESENS])).groups
    judged, recorded = g.statistics
    assert (judged.name, judged.judged, judged.value, judged.estimate, judged.ci) == (
        "max |ScoreSens| (name Jerome)", "lower CI end", 0.08467, 0.0886, (0.08467, 0.0931))
    assert (judged.bound, judged.verdict, judged.metric) == (
        0.08, "FAIL", "max |ScoreSens| (name Jerome) (lower CI end)")
    assert (recorded.name, recorded.judged, recorded.verdict) == ("ScoreDev", None, "recorded")
    assert g.headline is judged
    # a passing relation's headline is the statistic judged against a bound, not the first
    (w,) = _summary(("t.py::test_w1", [W1])).groups
    assert w.headline is not None
    assert (w.headline.judged, w.headline.value, w.headline.bound) == ("lower CI end", 0.1111,
                                                                       0.4)


def test_interval_ends_of_other_names_and_lone_ends_are_rows_too() -> None:
    from pytest_fairness.report.summary import statistic_rows

    rows = statistic_rows(rp.build_summary([rp.RecordedTest.create("t::x", [{
        "relation": "r", "measurements": [
            _m("gap (upper BCa CI end)", 0.7, 0.6, op=">=", ci=(0.5, 0.7)),
            _m("plain", 0.3, 0.5, ci=(0.2, 0.4))]}])]).groups[0].metrics)
    assert [(r.name, r.judged, r.estimate, r.verdict) for r in rows] == [
        ("gap", "upper BCa CI end", None, "PASS"), ("plain", "value", 0.3, "PASS")]


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 160, 220])
def test_the_summary_row_shows_the_judged_value_labelled_beside_the_estimate(width: int) -> None:
    s = _summary((PSA_ID, [SCORESENS]), ("t.py::test_w1", [W1]))
    lines = rp.render_text(s, width=width)
    table = lines[: lines.index("")]
    text = " ".join(" ".join(table).split())
    body = lines[: -3]  # the count lines are never wrapped (one line per count, for logs)
    assert max(len(line) for line in body) <= width
    assert "..." not in " ".join(table)  # nothing cut: names and ids wrap at word boundaries
    assert "Jerome)" in text
    assert "0.08467" in text
    assert "lower CI end" in text
    assert "0.0886" in text
    assert "[0.08467, 0.0931]" in text
    assert "0.1111" in text
    assert "<= 0.4" in text
    # the node id wraps only at its word boundaries: its lines join back into it
    if width < len(PSA_ID) + 4:
        pieces = [line.strip() for line in table if line.strip() and PSA_ID.startswith(
            line.strip().split(" [")[0][:12])]
        assert pieces, table
    assert re.search(r"Jerom(\.\.\.|$)", " ".join(table)) is None


def test_quiet_line_says_which_statistic_was_judged() -> None:
    s = _summary((PSA_ID, [SCORESENS]))
    assert rp.render_text(s, verbosity=-1, width=80)[0] == (
        f"FAIL {PSA_ID} score_sens: max |ScoreSens| (name Jerome): lower CI end 0.08467 "
        "(<= 0.08; estimate 0.0886 [0.08467, 0.0931]), 0/1200 inputs discriminatory")


def test_verbose_rows_put_the_failing_statistic_first_and_say_recorded() -> None:
    s = _summary((PSA_ID, [SCORESENS]))
    lines = rp.render_text(s, width=160, verbosity=1)
    rows = [line for line in lines if "ScoreSens" in line or "ScoreDev" in line]
    assert "FAIL" in rows[0]
    assert "recorded" in rows[1]
    assert "0.02741" in rows[1]


def test_junit_properties_name_the_judged_value() -> None:
    props = dict(rp.junit_properties([SCORESENS]))
    key = "fairness.score_sens.max |ScoreSens| (name Jerome)"
    assert props[key] == "0.08467"
    assert props[f"{key}.judged"] == "lower CI end"
    assert props[f"{key}.estimate"] == "0.0886"
    assert props[f"{key}.ci"] == "[0.08467, 0.0931]"
    assert props["fairness.score_sens.bound.max |ScoreSens| (name Jerome)"] == "<= 0.08"
    assert props["fairness.score_sens.ScoreDev"] == "0.02741"
    assert not any("(lower CI end)" in k for k in props)


# --------------------------------------------------------------------------- wrapping


def test_wrap_words_breaks_at_spaces_then_at_the_boundaries_inside_a_word() -> None:
    from pytest_fairness.report.text import shorten_words, wrap_words

    assert wrap_words("max |ScoreSens| (name Jerome)", 16) == ["max |ScoreSens|",
                                                              "(name Jerome)"]
    assert wrap_words("tests/fairness/test_toxicity.py::test_names[popular]", 20) == [
        "tests/fairness/test_", "toxicity.py::test_", "names[popular]"]
    assert wrap_words("", 5) == [""]
    assert all(len(x) <= 4 for x in wrap_words("abcdefghij", 4))  # last resort only
    assert shorten_words("the cat sat on the mat", 14) == "the cat ..."


def test_the_bar_chart_never_cuts_a_name_mid_word() -> None:
    from pytest_fairness.report.text import bar_chart

    lines = bar_chart([("Christopher-Alexander", 0.05), ("Jo", -0.01)], None, width=100)
    assert any("Christopher-Alexander" in line for line in lines)


# --------------------------------------------------------------------------- HTML


def _psa_pages() -> tuple[rp.Summary, str]:
    """Three tests recording the same PSA run (same sections and inputs), one failing on
    an interval end, and a score with a bare class index as its label."""
    shared = psa_result(0.08)
    bare = violation("He left.", "Jerome left.", (0, 2), (0, 6), 0.2, 0.8)
    bare.update(original_label="0", perturbed_label="1")
    failing = {**shared, **SCORESENS, "violations": [*shared["violations"], bare],
               "n_violations": 2, "extra": shared["extra"]}
    passing = {**psa_result(0.08, 0.1), "violations": shared["violations"], "n_violations": 1}
    s = rp.build_summary([
        rp.RecordedTest.create("tests/test_psa.py::test_a_passes", [passing]),
        rp.RecordedTest.create("tests/test_psa.py::test_b_fails", [failing], outcome="failed"),
        rp.RecordedTest.create("tests/test_psa.py::test_c_passes", [passing]),
    ])
    return s, rp.render_html(s, created="2024-01-01T00:00:00Z")


def test_html_metrics_without_a_bound_are_recorded_not_passed() -> None:
    _, page = _psa_pages()
    section = page.split('id="t1"')[1].split("</section>")[0]
    row = section.split("ScoreDev")[1].split("</tr>")[0]
    assert '<span class="badge recorded">recorded</span>' in row
    assert "PASS" not in row
    judged = section.split("(name Jerome)</td>")[1].split("</tr>")[0]
    assert "0.08467" in judged
    assert "lower CI end" in judged
    assert "0.0886 [0.08467, 0.0931]" in judged


def test_html_draws_a_shared_figure_once_and_links_to_it() -> None:
    pytest.importorskip("matplotlib")
    _, page = _psa_pages()
    # the LabelDist curve and the ScoreSens bars are the same for the three tests
    assert page.count("data:image/png;base64,") == 2
    assert page.count('class="figref"') == 4
    assert 'href="#fig1">show it</a>' in page


def test_html_lists_an_input_once_with_every_test_that_found_it() -> None:
    _, page = _psa_pages()
    inputs = page.split('<section id="inputs">')[1].split("</section>")[0]
    assert inputs.count("Maria</mark> said") == 1
    row = inputs.split("Maria</mark> said")[1].split("</tr>")[0]
    for test in ("test_a_passes", "test_b_fails", "test_c_passes"):
        assert test.replace("_", "_<wbr>") in row


def test_html_contents_and_sections_put_failing_tests_first() -> None:
    _, page = _psa_pages()
    nav = page.split('<nav id="contents">')[1].split("</nav>")[0]
    assert 'href="#summary"' in nav
    assert 'href="#inputs"' in nav
    assert nav.index("test_<wbr>b_<wbr>fails") < nav.index("passing tests")
    sections = re.findall(r'<section class="test[^"]*" id="(t\d)">\s*<h3 class="node" '
                          r'title="([^"]+)"', page)
    assert [nodeid for _, nodeid in sections] == [
        "tests/test_psa.py::test_b_fails", "tests/test_psa.py::test_a_passes",
        "tests/test_psa.py::test_c_passes"]
    assert page.index('<section id="tests">') < page.index("data:image/png") or \
        "data:image/png" not in page


def test_html_ids_wrap_at_word_boundaries_and_labels_read_as_labels() -> None:
    _, page = _psa_pages()
    assert "break-all" not in page
    assert "tests/<wbr>test_<wbr>psa.py<wbr>::test_<wbr>b_<wbr>fails" in page
    assert "0.800 label 1" in page  # a bare class index is said to be a label
    assert "0.280 ok" in page  # a label name is shown as it is


# --------------------------------------------------------------------------- CLI


def test_cli_reads_a_report_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s, _ = _psa_pages()
    rp.write_reports(tmp_path / "fr", s, formats=["json"])
    assert rp.main([str(tmp_path / "fr"), "--width", "100"]) == 0
    assert "tests/test_psa.py::test_b_fails" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    assert rp.main([str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert "directory without fairness.json" in err
    assert "Is a directory" not in err


def test_a_relation_that_judges_nothing_reads_recorded_not_pass() -> None:
    from _report_samples import result

    s = _summary(("t.py::test_clusters", [result("term_clusters", 8.46, None,
                                                 name="k-means inertia")]), outcome="passed")
    row = next(line for line in rp.render_text(s, width=120) if "k-means inertia" in line)
    assert "recorded" in row
    assert "PASS" not in row
    page = rp.render_html(s, created="2024-01-01T00:00:00Z")
    summary_row = page.split('<section id="summary">')[1].split("</tr>")[1]
    assert '<span class="badge recorded">recorded</span>' in summary_row
    assert "PASS" not in summary_row
