"""A table section's column that no row has a value in (the interval columns of a
relation asked for no interval) is left out of the HTML page; one with a value stays
(issue 30)."""

from __future__ import annotations

from pytest_fairness import report as rp
from pytest_fairness.results import FairnessResult, Measurement, Table


def _page(rows: list[list[object]]) -> str:
    table = Table("TPR by group", ["group", "n", "TPR", "TPR CI"], rows)
    result = FairnessResult(relation="group_gap", passed=True,
                            measurements=(Measurement("TPR gap", 0.1, 0.5),), n_inputs=20,
                            sections=(table,))
    summary = rp.build_summary([rp.RecordedTest.create("t.py::t", [result.to_dict()])])
    return rp.render_html(summary, created="t", figures=False)


def test_an_empty_interval_column_is_left_out() -> None:
    page = _page([["f", 10, 0.2, None], ["m", 10, 0.3, ""]])
    assert "TPR CI" not in page
    assert '<th class="num">TPR</th>' in page
    assert '<td class="num" data-label="TPR">0.2</td>' in page


def test_an_interval_column_with_a_value_stays() -> None:
    page = _page([["f", 10, 0.2, "[0.05, 0.52]"], ["m", 10, 0.3, None]])
    assert "<th>TPR CI</th>" in page
    assert '<td data-label="TPR CI">[0.05, 0.52]</td>' in page
    assert '<td data-label="TPR CI"></td>' in page
