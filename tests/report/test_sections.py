"""Typed report sections (pytest_fairness.results): validation, to_dict/section_from_dict."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.results import (
    BarChart,
    Cluster,
    Clusters,
    Curve,
    FairnessResult,
    Section,
    Table,
    section_from_dict,
)

# --------------------------------------------------------------------------- strategies

titles = st.text(min_size=1, max_size=20).filter(lambda s: bool(s.strip()))
texts = st.text(max_size=12)
numbers = st.floats(allow_nan=False, allow_infinity=False)
captions = st.none() | texts
points = st.tuples(numbers, numbers)


@st.composite
def curves(draw: st.DrawFn) -> Curve:
    series = draw(st.lists(st.lists(points, min_size=1, max_size=6), min_size=1, max_size=4))
    labels = draw(st.just(()) | st.lists(texts, min_size=len(series), max_size=len(series)))
    return Curve(draw(titles), series, x_label=draw(texts), y_label=draw(texts), labels=labels,
                 caption=draw(captions), style=draw(st.sampled_from(["chart", "points"])),
                 percent=draw(st.booleans()))


@st.composite
def bar_charts(draw: st.DrawFn) -> BarChart:
    bars = draw(st.lists(st.tuples(texts, numbers), min_size=1, max_size=8))
    groups = draw(st.none() | st.dictionaries(
        st.sampled_from([b[0] for b in bars]) | texts, st.none() | texts, max_size=8))
    interval = st.tuples(numbers, numbers).map(lambda lh: (min(lh), max(lh)))
    intervals = draw(st.none() | st.lists(st.none() | interval, min_size=len(bars),
                                          max_size=len(bars)))
    return BarChart(draw(titles), bars, groups=groups, caption=draw(captions),
                    value_label=draw(texts), intervals=intervals)


cells = st.none() | texts | st.integers() | numbers | st.booleans()


@st.composite
def tables(draw: st.DrawFn) -> Table:
    columns = draw(st.lists(texts, min_size=1, max_size=4))
    rows = draw(st.lists(st.lists(cells, min_size=len(columns), max_size=len(columns)),
                         max_size=5))
    return Table(draw(titles), columns, rows, caption=draw(captions))


clusters_ = st.builds(Cluster, st.integers(0, 50) | texts, st.lists(texts, max_size=4),
                      st.lists(numbers, max_size=5), st.none() | numbers)


@st.composite
def cluster_sets(draw: st.DrawFn) -> Clusters:
    return Clusters(draw(titles), draw(st.lists(clusters_, min_size=1, max_size=4)),
                    label=draw(st.none() | texts), relative=draw(st.booleans()),
                    template_scores=draw(st.none() | st.lists(numbers, max_size=5)),
                    caption=draw(captions))


sections = st.one_of(curves(), bar_charts(), tables(), cluster_sets())


# --------------------------------------------------------------------------- round trips


@given(sections)
def test_any_valid_section_survives_json(section: Section) -> None:
    data = json.loads(json.dumps(section.to_dict(), allow_nan=False))
    assert data["type"] == section.kind
    assert section_from_dict(data) == section


@pytest.mark.parametrize(
    "section",
    [
        Curve("LabelDist by threshold", [[(0.1, 0.2), (0.5, 0.3)], [[0.1, 0.1]]],
              x_label="threshold", y_label="LabelDist", labels=["a", "b"]),
        Curve("left", ([(0.1, 0.0), (1, 0.5)],), style="points", percent=True, caption="c"),
        BarChart("ScoreSens per name", {"Maria": 0.04, "John": -0.01},
                 groups={"Maria": "female", "John": "male"}, value_label="ScoreSens"),
        BarChart("plain", [("b", 1.0), ("a", 2.0)]),
        BarChart("with intervals", [("b", 1.0), ("a", 2.0), ("c", 0.5)],
                 groups={"a": "x", "b": "y"}, intervals=[(0.5, 1.5), None, (0.6, 0.9)]),
        Table("t", ["name", "n", "rate", "ok"], [["x", 3, 0.5, True], ["y", None, -1.25, False]]),
        Clusters("Term clusters", [{"cluster": 0, "terms": ["a", "b"], "curve": [0.1, 0.2],
                                    "mean_shift": 0.05}], label="India", relative=True,
                 template_scores=[0.0, 0.1]),
    ],
    ids=["curve", "points", "bars", "plain-bars", "interval-bars", "table", "clusters"],
)
def test_each_section_type_round_trips(section: Section) -> None:
    data = section.to_dict()
    assert data["title"] == section.title
    assert section_from_dict(data) == section
    assert hash(section_from_dict(data)) == hash(section)


def test_sections_hold_plain_builtins() -> None:
    c = Curve("x", [np.array([[0, 1], [2, 3]])], labels=(np.str_("a"),))
    assert c.series == (((0.0, 1.0), (2.0, 3.0)),)
    assert all(type(v) is float for p in c.series[0] for v in p)
    b = BarChart("b", {"n": np.float32(0.5)})  # type: ignore[arg-type]
    assert type(b.bars[0][1]) is float
    row: list[Any] = [np.int64(2), np.float64(0.25), np.bool_(True)]
    t = Table("t", ["a", "b", "c"], [row])
    assert [type(v) for v in t.rows[0]] == [int, float, bool]
    assert json.dumps(t.to_dict(), allow_nan=False)


def test_grouped_bars_are_kept_in_the_order_they_are_shown() -> None:
    b = BarChart("b", [("x", 0.1), ("a", -0.2), ("m", 0.3), ("c", 0.4)],
                 groups={"a": "female", "c": "female", "m": "male", "x": None})
    assert [name for name, _ in b.bars] == ["c", "a", "m", "x"]  # female, male, other last
    assert b.groups == (("a", "female"), ("c", "female"), ("m", "male"))
    assert b.group_of == {"a": "female", "c": "female", "m": "male"}
    ungrouped = BarChart("b", [("x", 0.1), ("a", -0.2)])
    assert [name for name, _ in ungrouped.bars] == ["x", "a"]
    assert ungrouped.groups is None
    assert ungrouped.to_dict()["groups"] is None


def test_bar_intervals_stay_with_their_bars_when_groups_reorder_them() -> None:
    b = BarChart("b", [("x", 0.1), ("a", -0.2), ("m", 0.3), ("c", 0.4)],
                 groups={"a": "female", "c": "female", "m": "male", "x": None},
                 intervals=[(0.0, 0.2), (-0.3, -0.1), None, (0.35, 0.5)])
    assert [name for name, _ in b.bars] == ["c", "a", "m", "x"]
    assert b.intervals == ((0.35, 0.5), (-0.3, -0.1), None, (0.0, 0.2))
    assert b.entries == (("c", 0.4, (0.35, 0.5)), ("a", -0.2, (-0.3, -0.1)),
                         ("m", 0.3, None), ("x", 0.1, (0.0, 0.2)))
    assert b.to_dict()["intervals"] == [[0.35, 0.5], [-0.3, -0.1], None, [0.0, 0.2]]


def test_bar_intervals_by_label_and_in_plain_builtins() -> None:
    by_label = BarChart("b", {"a": 1.0, "b": 2.0},
                        intervals={"b": (np.float64(1.5), np.float32(2.5))})
    assert by_label.intervals == (None, (1.5, 2.5))
    assert all(type(v) is float for v in by_label.intervals[1] or ())
    assert by_label == BarChart("b", {"a": 1.0, "b": 2.0}, intervals=[None, [1.5, 2.5]])
    # an estimate outside its (bootstrap) interval is allowed; a point interval too
    outside = BarChart("b", {"a": 1.0}, intervals=[(1.2, 1.2)])
    assert outside.intervals == ((1.2, 1.2),)


def test_bars_without_intervals_have_none() -> None:
    plain = BarChart("b", {"a": 1.0, "b": 2.0})
    assert plain.intervals is None
    assert plain.entries == (("a", 1.0, None), ("b", 2.0, None))
    assert plain.to_dict()["intervals"] is None
    assert BarChart("b", {"a": 1.0, "b": 2.0}, intervals=[None, None]) == plain
    assert BarChart("b", {"a": 1.0, "b": 2.0}, intervals={}) == plain


def test_a_bar_chart_written_before_intervals_still_reads() -> None:
    old = {"type": "bar_chart", "title": "b", "caption": None, "bars": [["a", 1.0]],
           "groups": None, "value_label": "AUC"}
    chart = section_from_dict(old)
    assert isinstance(chart, BarChart)
    assert chart.intervals is None
    assert chart == BarChart("b", {"a": 1.0}, value_label="AUC")


def test_clusters_heading_names_the_label() -> None:
    c = Clusters("Term clusters", [Cluster(0, ["a"])], label="India")
    assert c.heading == "Term clusters for India"
    assert Clusters("Term clusters", [Cluster(0, ["a"])]).heading == "Term clusters"
    assert c.to_dict()["clusters"] == [{"cluster": 0, "terms": ["a"], "curve": [],
                                        "mean_shift": None}]


def test_unknown_section_types_are_skipped() -> None:
    assert section_from_dict({"type": "sankey", "title": "from the future"}) is None


def test_from_dict_ignores_keys_it_does_not_know() -> None:
    data = {**Curve("c", [[(0, 1)]]).to_dict(), "added_later": 1}
    assert section_from_dict(data) == Curve("c", [[(0, 1)]])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Curve("", [[(0, 1)]]), "non-empty title"),
        (lambda: Curve("   ", [[(0, 1)]]), "non-empty title"),
        (lambda: Curve("c", []), "series is empty"),
        (lambda: Curve("c", [[]]), "curve 1 has no points"),
        (lambda: Curve("c", [(0.1, 0.2), (0.3, 0.4)]),  # type: ignore[list-item]
         "wrap a single curve"),
        (lambda: Curve("c", [[(0.1, 0.2, 0.3)]]), r"not \(x, y\)"),
        (lambda: Curve("c", [[(0.1, math.nan)]]), "not a finite number"),
        (lambda: Curve("c", [[(math.inf, 1)]]), "not a finite number"),
        (lambda: Curve("c", [[(0.1, "high")]]), "must be a number"),  # type: ignore[list-item]
        (lambda: Curve("c", [[(0.1, True)]]), "must be a number"),
        (lambda: Curve("c", [[(0, 1)]], labels=["a", "b"]), "2 labels for 1 curves"),
        (lambda: Curve("c", [[(0, 1)]], style="bars"), "use 'chart' or 'points'"),  # type: ignore[arg-type]
        (lambda: Curve("c", [[(0, 1)]], percent="yes"), "True or False"),  # type: ignore[arg-type]
        (lambda: Curve("c", "text"), "must be a sequence"),  # type: ignore[arg-type]
        (lambda: BarChart("b", []), "no bars"),
        (lambda: BarChart("b", [("a", math.nan)]), "not a finite number"),
        (lambda: BarChart("b", [("a", 1, 2)]), r"not \(label, value\)"),  # type: ignore[list-item]
        (lambda: BarChart("b", [(1, 2.0)]), "must be a string"),  # type: ignore[list-item]
        (lambda: BarChart("b", {"a": 1.0}, groups={"a": 3}),  # type: ignore[arg-type]
         "must be a string"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[(0.9, 0.8)]),
         r"interval of 'a' is \(0.9, 0.8\), low > high; pass \(low, high\) with low <= high"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[(math.nan, 1.0)]),
         "low end of the interval of 'a' is nan, not a finite number"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[(0.0, math.inf)]),
         "high end of the interval of 'a' is inf, not a finite number"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[(0.0, "1")]),  # type: ignore[list-item]
         "high end of the interval of 'a' must be a number"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[(0.0, 0.5, 1.0)]),  # type: ignore[list-item]
         r"interval \(0.0, 0.5, 1.0\) of 'a' is not \(low, high\)"),
        (lambda: BarChart("b", {"a": 1.0}, intervals=[0.5]),  # type: ignore[list-item]
         "the interval of 'a' must be a sequence"),
        (lambda: BarChart("b", {"a": 1.0, "b": 2.0}, intervals=[(0.0, 1.0)]),
         "1 intervals for 2 bars; give one"),
        (lambda: BarChart("b", {"a": 1.0}, intervals={"A": (0.0, 1.0)}),
         r"intervals names \['A'\] that are not bar labels"),
        (lambda: BarChart("b", {"a": 1.0}, intervals="0-1"),  # type: ignore[arg-type]
         "intervals must be a sequence"),
        (lambda: Table("t", [], []), "no columns"),
        (lambda: Table("t", ["a", "b"], [[1]]), "row 1 has 1 cells for 2 columns"),
        (lambda: Table("t", ["a"], [[math.nan]]), "not a finite number"),
        (lambda: Table("t", ["a"], [[{"x": 1}]]), "cells are strings, numbers"),  # type: ignore[list-item]
        (lambda: Clusters("k", []), "no clusters"),
        (lambda: Clusters("k", [{"terms": ["a"]}]), "has no 'cluster'"),
        (lambda: Clusters("k", [Cluster(0, ["a"], [math.inf])]), "not a finite number"),
        (lambda: Clusters("k", [Cluster(0, "abc")]), "must be a sequence"),
        (lambda: Clusters("k", [Cluster(0)], template_scores=[math.nan]), "not a finite"),
        (lambda: Cluster(None), "int or a str"),  # type: ignore[arg-type]
    ],
)
def test_bad_section_input_is_a_configuration_error(build: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        build()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "must be a dict"),
        ({"title": "no type"}, "needs a string 'type'"),
        ({"type": "curve", "title": "c"}, "has no 'series'"),
        ({"type": "bar_chart", "title": "b", "bars": [["a", None]]}, "must be a number"),
        ({"type": "bar_chart", "title": "b", "bars": [["a", 1.0]], "intervals": [[2.0, 1.0]]},
         "low > high"),
        ({"type": "bar_chart", "title": "b", "bars": [["a", 1.0]], "intervals": [[None, 1.0]]},
         "low end of the interval of 'a' must be a number"),
        ({"type": "table", "columns": ["a"], "rows": []}, "has no 'title'"),
    ],
)
def test_malformed_dicts_of_known_types_are_configuration_errors(data: Any,
                                                                 message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        section_from_dict(data)


# --------------------------------------------------------------------------- results


def test_fairness_result_serialises_its_sections() -> None:
    curve = Curve("c", [[(0, 1)]])
    r = FairnessResult("own", True, sections=[curve])  # type: ignore[arg-type]
    assert r.sections == (curve,)
    data = r.to_dict()
    assert data["sections"] == [curve.to_dict()]
    json.dumps(data, allow_nan=False)
    assert FairnessResult("own", True).to_dict()["sections"] == []


def test_fairness_result_refuses_what_is_not_a_section() -> None:
    with pytest.raises(ConfigurationError, match="must hold report sections"):
        FairnessResult("own", True, sections=({"type": "curve"},))  # type: ignore[arg-type]
