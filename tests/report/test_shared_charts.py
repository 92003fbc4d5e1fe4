"""A chart that several relations recorded identically (tests sharing one PSA run) is
printed once in the terminal, as the HTML page draws its figure once (issue 30)."""

from __future__ import annotations

from _report_samples import psa_result

from pytest_fairness import report as rp
from pytest_fairness.report.summary import section_key


def _summary(*values: float) -> rp.Summary:
    tests = [rp.RecordedTest.create(f"tests/test_psa.py::test_{i}", [psa_result(v)])
             for i, v in enumerate(values)]
    return rp.build_summary(tests)


def _titles(lines: list[str], title: str) -> list[str]:
    return [line for line in lines if line.startswith(title + ":")]


def test_identical_charts_are_printed_once_with_the_tests_sharing_them() -> None:
    lines = rp.render_text(_summary(0.04, 0.04, 0.04), width=100)
    assert _titles(lines, "LabelDist by threshold") == [
        "LabelDist by threshold: tests/test_psa.py::test_0 [score_sens]"]
    assert _titles(lines, "ScoreSens per name") == [
        "ScoreSens per name: tests/test_psa.py::test_0 [score_sens]"]
    shared = [i for i, line in enumerate(lines) if line.startswith("  (the same for ")]
    assert len(shared) == 2  # under each of the two charts
    text = " ".join(" ".join(" ".join(lines[i:i + 3]).split()) for i in shared)
    assert "tests/test_psa.py::test_1 [score_sens], tests/test_psa.py::test_2" in text


def test_charts_that_differ_are_each_printed() -> None:
    """Same LabelDist curve, different ScoreSens: the curve once, the bars twice."""
    summary = _summary(0.04, 0.09, 0.04)
    lines = rp.render_text(summary, width=100)
    assert len(_titles(lines, "LabelDist by threshold")) == 1
    assert _titles(lines, "ScoreSens per name") == [
        "ScoreSens per name: tests/test_psa.py::test_0 [score_sens]",
        "ScoreSens per name: tests/test_psa.py::test_1 [score_sens]"]
    keys = {section_key(s) for g in summary.groups for s in g.sections
            if s.title == "ScoreSens per name"}
    assert len(keys) == 2


def test_the_html_page_shares_the_same_figures() -> None:
    """The page draws as many figures as the terminal prints charts: one identity."""
    summary = _summary(0.04, 0.09, 0.04)
    page = rp.render_html(summary, created="t")
    assert page.count("data:image/png;base64,") == 3  # 1 LabelDist + 2 ScoreSens
    text = rp.render_text(summary, width=100)
    assert len([x for x in text if x.startswith(("LabelDist by", "ScoreSens per"))]) == 3
