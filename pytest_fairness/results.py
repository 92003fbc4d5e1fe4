"""What a relation found: measurements against bounds, discriminatory inputs, the verdict.

The records a check hands to the report (`FairnessResult.to_dict()` is what travels to the
report, through pytest-xdist when workers run the tests). Pure: numpy only.

A result can carry typed report *sections* (`Curve`, `BarChart`, `Table`, `Clusters`): plain
frozen records of builtins that the text, HTML and JSON reports render generically, so a
new metric with a chart needs no report code. Each has `to_dict()` (JSON-ready, tagged with
its `"type"`), and `section_from_dict` reads one back.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np

from .errors import ConfigurationError
from .types import Perturbation

__all__ = [
    "CLUSTERS_TITLE",
    "LABEL_DIST_TITLE",
    "MITIGATION_TITLE",
    "SCORE_SENS_TITLE",
    "BarChart",
    "Cluster",
    "Clusters",
    "Curve",
    "FairnessResult",
    "Measurement",
    "Section",
    "Table",
    "Violation",
    "clusters_section",
    "label_dist_section",
    "mitigation_section",
    "score_sens_section",
    "section_from_dict",
]


@dataclass(frozen=True)
class Violation:
    """One discriminatory input: an original and a perturbation the relation broke on.

    Spans are (start, end) character offsets of the changed words in each text, so a report
    can mark them. Scores are the model's score (or target-class probability) of each text.
    """

    original: str
    perturbed: str
    original_spans: tuple[tuple[int, int], ...] = ()
    perturbed_spans: tuple[tuple[int, int], ...] = ()
    original_score: float | None = None
    perturbed_score: float | None = None
    original_label: str | None = None
    perturbed_label: str | None = None
    measure: float | None = None
    """How bad this input is, in the unit of the relation (score shift, log ratio, ...)."""
    kind: str | None = None
    attribute: str | None = None
    detail: str | None = None

    @classmethod
    def from_perturbation(cls, p: Perturbation, **values: Any) -> Violation:
        return cls(
            original=p.original,
            perturbed=p.perturbed,
            original_spans=tuple((s.start, s.end) for s in p.original_spans),
            perturbed_spans=tuple((s.start, s.end) for s in p.perturbed_spans),
            kind=p.kind,
            attribute=p.attribute,
            **values,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "original": self.original,
            "perturbed": self.perturbed,
            "original_spans": [list(s) for s in self.original_spans],
            "perturbed_spans": [list(s) for s in self.perturbed_spans],
            "original_score": _builtin(self.original_score),
            "perturbed_score": _builtin(self.perturbed_score),
            "original_label": self.original_label,
            "perturbed_label": self.perturbed_label,
            "measure": _builtin(self.measure),
            "kind": self.kind,
            "attribute": self.attribute,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Violation:
        values = dict(data)
        values["original_spans"] = tuple(tuple(s) for s in data.get("original_spans", ()))
        values["perturbed_spans"] = tuple(tuple(s) for s in data.get("perturbed_spans", ()))
        return cls(**values)


@dataclass(frozen=True)
class Measurement:
    """A metric value against its bound: `value <op> bound` must hold for the test to pass."""

    name: str
    value: float | None
    bound: float | None = None
    op: Literal["<=", ">=", "<", ">"] = "<="
    ci: tuple[float, float] | None = None
    """Bootstrap confidence interval of `value`, when asked for."""

    @property
    def holds(self) -> bool:
        if self.bound is None:
            return True
        if self.value is None:
            return False
        ops = {
            "<=": self.value <= self.bound,
            ">=": self.value >= self.bound,
            "<": self.value < self.bound,
            ">": self.value > self.bound,
        }
        return bool(ops[self.op])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": _builtin(self.value),
            "bound": _builtin(self.bound),
            "op": self.op,
            "ci": None if self.ci is None else [_builtin(self.ci[0]), _builtin(self.ci[1])],
            "holds": self.holds,
        }


@dataclass(frozen=True)
class FairnessResult:
    """What one assertion found; recorded for the report whether it passed or not.

    `sections` are what the report shows besides the measurements (charts, tables,
    clusters), rendered generically by the text, HTML and JSON reports. `extra` holds
    further relation-specific plain data, kept in `fairness.json`. (Results recorded before
    sections existed carried their charts in `extra` under "label_dist_curve",
    "score_sens" + "name_groups", "mitigation_curve" and "clusters"; the report still
    reads those when a result has no sections.)
    """

    relation: str
    passed: bool | None = None
    """The verdict; by default (None) every bounded measurement holds."""
    measurements: tuple[Measurement, ...] = ()
    violations: tuple[Violation, ...] = ()
    n_inputs: int = 0
    n_violations: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    sections: tuple[Section, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.relation, str) or not self.relation.strip():
            raise ConfigurationError(
                f"a FairnessResult needs a relation name (what the report calls it), got "
                f"{self.relation!r}"
            )
        measurements = tuple(self.measurements)
        for m in measurements:
            if not isinstance(m, Measurement):
                raise ConfigurationError(
                    f"FairnessResult({self.relation!r}).measurements must hold Measurement "
                    f"records, got {type(m).__name__}: Measurement(name, value, bound, op)"
                )
        object.__setattr__(self, "measurements", measurements)
        object.__setattr__(self, "violations", tuple(self.violations))
        if self.passed is None:
            object.__setattr__(self, "passed", all(m.holds for m in measurements))
        sections = tuple(self.sections)
        for s in sections:
            if not isinstance(s, Section):
                raise ConfigurationError(
                    f"FairnessResult({self.relation!r}).sections must hold report sections "
                    f"(Curve, BarChart, Table, Clusters), got {type(s).__name__}: build one, "
                    "e.g. Curve(title, series), or read a dict with section_from_dict"
                )
        object.__setattr__(self, "sections", sections)

    def to_dict(self) -> dict[str, Any]:
        return {
            "relation": self.relation,
            "passed": self.passed,
            "measurements": [m.to_dict() for m in self.measurements],
            "violations": [v.to_dict() for v in self.violations],
            "n_inputs": self.n_inputs,
            "n_violations": self.n_violations,
            "extra": self.extra,
            "sections": [s.to_dict() for s in self.sections],
        }


def _builtin(value: float | None) -> float | None:
    """A plain float (numpy scalars converted); NaN and infinities become None for JSON."""
    if value is None:
        return None
    out = float(value)
    return out if np.isfinite(out) else None


# ---------------------------------------------------------------------------------------
# Report sections
# ---------------------------------------------------------------------------------------

Point = tuple[float, float]
Cell = str | int | float | bool | None
"""A table cell: text, a number (finite), a flag, or None for an empty cell."""

_S = TypeVar("_S", bound="Section")


def _fail(where: str, problem: str, fix: str) -> ConfigurationError:
    return ConfigurationError(f"{where}: {problem}; {fix}")


def _scalar(value: Any) -> Any:
    """A numpy scalar as its Python value (duck-typed: numpy is not needed here)."""
    if not isinstance(value, str | bool | int | float) and callable(getattr(value, "item", None)):
        try:
            return value.item()
        except (TypeError, ValueError):
            return value
    return value


def _number(value: Any, where: str, what: str) -> float:
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(where, f"{what} must be a number, got {value!r}", "pass a float")
    out = float(value)
    if not math.isfinite(out):
        raise _fail(where, f"{what} is {out}, not a finite number",
                    "leave the point out or replace it before building the section")
    return out


def _text(value: Any, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"{what} must be a string, got {value!r}", "pass a str")
    return str(value)


def _optional_text(value: Any, where: str, what: str) -> str | None:
    return None if value is None else _text(value, where, what)


def _flag(value: Any, where: str, what: str) -> bool:
    value = _scalar(value)
    if not isinstance(value, bool):
        raise _fail(where, f"{what} must be True or False, got {value!r}", "pass a bool")
    return value


def _items(value: Any, where: str, what: str) -> list[Any]:
    """The items of a list-like `value` (not a string or a mapping)."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise _fail(where, f"{what} must be a sequence, got {type(value).__name__}",
                    "pass a list or tuple")
    return list(value)


def _title(value: Any, kind: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(
            f"a {kind} section needs a non-empty title, got {value!r}; pass what the section "
            "shows, e.g. 'LabelDist by threshold'"
        )
    return str(value)


def _init(section: object, **values: Any) -> None:
    for name, value in values.items():
        object.__setattr__(section, name, value)


def _required(data: Mapping[str, Any], key: str, kind: str) -> Any:
    if key not in data:
        raise ConfigurationError(
            f"a {kind!r} section dict has no {key!r}; it must be what "
            f"{kind.title().replace('_', '')}.to_dict() wrote"
        )
    return data[key]


@dataclass(frozen=True, init=False)
class Section:
    """A typed block of a result that the reports render generically.

    Subclasses: `Curve`, `BarChart`, `Table`, `Clusters`. Each is frozen and holds plain
    builtins; its constructor validates what it is given and raises `ConfigurationError`
    on a wrong shape, an empty title or a non-finite number. Within a test, sections of the
    same title merge over its results (see `pytest_fairness.report.summary`).
    """

    kind: ClassVar[str] = ""
    """The `"type"` tag of `to_dict()`."""

    title: str
    caption: str | None

    @property
    def heading(self) -> str:
        """What the reports show above the section."""
        return self.title

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready builtins: `{"type": kind, "title": ..., "caption": ..., ...}` (never a
        NaN: the constructors refuse non-finite numbers)."""
        return {"type": self.kind, "title": self.title, "caption": self.caption,
                **self._payload()}

    def _payload(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_dict(cls: type[_S], data: Mapping[str, Any]) -> _S:
        """The section `to_dict()` wrote (keys it does not know are ignored)."""
        raise NotImplementedError


@dataclass(frozen=True, init=False)
class Curve(Section):
    """One or more curves y(x) on common axes, e.g. LabelDist by threshold (psa, Figure 2).

    `series` holds the curves, each a sequence of (x, y) points (finite numbers); `labels`
    names them (empty, or one per curve). `style="chart"` draws a line chart; `"points"`
    lists the points in the text summary ("eps 0.1: 0%, eps 0.3: 2%, ...", the x label,
    x, then y), as for the mitigation curve (mt-nlp, Figure 5). `percent` shows y (a
    fraction) as a percentage.
    """

    kind: ClassVar[str] = "curve"

    series: tuple[tuple[Point, ...], ...]
    x_label: str
    y_label: str
    labels: tuple[str, ...]
    style: Literal["chart", "points"]
    percent: bool

    def __init__(
        self,
        title: str,
        series: Iterable[Iterable[Iterable[float]]],
        *,
        x_label: str = "x",
        y_label: str = "y",
        labels: Iterable[str] = (),
        caption: str | None = None,
        style: Literal["chart", "points"] = "chart",
        percent: bool = False,
    ) -> None:
        title = _title(title, "Curve")
        where = f"Curve {title!r}"
        curves: list[tuple[Point, ...]] = []
        for i, raw in enumerate(_items(series, where, "series"), 1):
            points: list[Point] = []
            for raw_point in _items(raw, where, f"curve {i} of series"):
                point = [] if isinstance(_scalar(raw_point), numbers.Number) else _items(
                    raw_point, where, f"a point of curve {i}")
                if len(point) != 2:
                    raise _fail(where, f"curve {i} has the point {raw_point!r}, not (x, y)",
                                "series is a sequence of curves, each a sequence of (x, y) "
                                "points; wrap a single curve as series=(points,)")
                points.append((_number(point[0], where, f"x of curve {i}"),
                               _number(point[1], where, f"y of curve {i}")))
            if not points:
                raise _fail(where, f"curve {i} has no points", "leave the empty curve out")
            curves.append(tuple(points))
        if not curves:
            raise _fail(where, "series is empty", "pass at least one curve of (x, y) points")
        names = tuple(_text(n, where, "a label") for n in _items(labels, where, "labels"))
        if names and len(names) != len(curves):
            raise _fail(where, f"{len(names)} labels for {len(curves)} curves",
                        "give one label per curve, or none")
        if style not in ("chart", "points"):
            raise _fail(where, f"style {style!r} is unknown", "use 'chart' or 'points'")
        _init(self, title=title, caption=_optional_text(caption, where, "caption"),
              series=tuple(curves), x_label=_text(x_label, where, "x_label"),
              y_label=_text(y_label, where, "y_label"), labels=names, style=style,
              percent=_flag(percent, where, "percent"))

    def _payload(self) -> dict[str, Any]:
        return {
            "series": [[[x, y] for x, y in curve] for curve in self.series],
            "x_label": self.x_label,
            "y_label": self.y_label,
            "labels": list(self.labels),
            "style": self.style,
            "percent": self.percent,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Curve:
        return cls(
            _required(data, "title", "curve"),
            _required(data, "series", "curve"),
            x_label=data.get("x_label", "x"),
            y_label=data.get("y_label", "y"),
            labels=data.get("labels") or (),
            caption=data.get("caption"),
            style=data.get("style", "chart"),
            percent=data.get("percent", False),
        )


@dataclass(frozen=True, init=False)
class BarChart(Section):
    """A value per label, drawn as horizontal bars diverging from 0, each with an optional
    interval (an error bar).

    `bars` are (label, value) pairs (or a {label: value} mapping). Without `groups` the
    bars keep their order. With `groups` ({label: group}; labels without a group go to an
    "other" block) the layout of psa Figure 1: one block per group (by group name, "other"
    last), each from the largest value to the smallest; the bars are stored in that order.
    `value_label` names the value axis.

    `intervals` gives each bar an interval, e.g. its bootstrap confidence interval: one
    (low, high) or None per bar, in the order of `bars`, or a {label: (low, high)} mapping
    (bars it does not name have none). low <= high is required; the value need not lie
    inside (a percentile bootstrap interval may not contain the estimate). The intervals
    are stored aligned with the stored bars, or None when no bar has one.
    """

    kind: ClassVar[str] = "bar_chart"

    bars: tuple[tuple[str, float], ...]
    groups: tuple[tuple[str, str], ...] | None
    """(label, group) pairs sorted by label, or None when the bars are not grouped."""
    value_label: str
    intervals: tuple[tuple[float, float] | None, ...] | None
    """One (low, high) or None per bar of `bars`, or None when no bar has an interval."""

    def __init__(
        self,
        title: str,
        bars: Iterable[tuple[str, float]] | Mapping[str, float],
        *,
        groups: Mapping[str, str | None] | Iterable[tuple[str, str]] | None = None,
        caption: str | None = None,
        value_label: str = "value",
        intervals: (Iterable[tuple[float, float] | None]
                    | Mapping[str, tuple[float, float] | None] | None) = None,
    ) -> None:
        title = _title(title, "BarChart")
        where = f"BarChart {title!r}"
        pairs = list(bars.items()) if isinstance(bars, Mapping) else _items(bars, where, "bars")
        out: list[tuple[str, float]] = []
        for pair in pairs:
            item = _items(pair, where, "a bar")
            if len(item) != 2:
                raise _fail(where, f"the bar {pair!r} is not (label, value)",
                            "pass (label, value) pairs or a {label: value} mapping")
            label = _text(item[0], where, "a bar's label")
            out.append((label, _number(item[1], where, f"the value of {label!r}")))
        if not out:
            raise _fail(where, "there are no bars", "pass at least one (label, value)")
        spans = _bar_intervals(intervals, [label for label, _ in out], where)
        grouping: tuple[tuple[str, str], ...] | None = None
        if groups is not None:
            raw = list(groups.items()) if isinstance(groups, Mapping) else _items(
                groups, where, "groups")
            found: dict[str, str] = {}
            for pair in raw:
                item = _items(pair, where, "a group entry")
                if len(item) != 2:
                    raise _fail(where, f"the group entry {pair!r} is not (label, group)",
                                "pass a {label: group} mapping")
                if item[1] is not None:  # no group: the "other" block
                    found[_text(item[0], where, "a grouped label")] = _text(
                        item[1], where, "a group")
            grouping = tuple(sorted(found.items()))
            order = sorted(range(len(out)), key=lambda i: (
                found.get(out[i][0], "") == "", found.get(out[i][0], ""), -out[i][1],
                out[i][0]))
            out = [out[i] for i in order]
            spans = [spans[i] for i in order]
        _init(self, title=title, caption=_optional_text(caption, where, "caption"),
              bars=tuple(out), groups=grouping,
              value_label=_text(value_label, where, "value_label"),
              intervals=tuple(spans) if any(s is not None for s in spans) else None)

    @property
    def group_of(self) -> dict[str, str]:
        """{label: group} ({} when the bars are not grouped)."""
        return dict(self.groups or ())

    @property
    def entries(self) -> tuple[tuple[str, float, tuple[float, float] | None], ...]:
        """(label, value, interval or None) per bar, in the stored order."""
        spans = self.intervals or (None,) * len(self.bars)
        return tuple((label, value, span)
                     for (label, value), span in zip(self.bars, spans, strict=True))

    def _payload(self) -> dict[str, Any]:
        return {
            "bars": [[label, value] for label, value in self.bars],
            "groups": None if self.groups is None else dict(self.groups),
            "value_label": self.value_label,
            "intervals": None if self.intervals is None else [
                None if span is None else [span[0], span[1]] for span in self.intervals],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BarChart:
        return cls(
            _required(data, "title", "bar_chart"),
            _required(data, "bars", "bar_chart"),
            groups=data.get("groups"),
            caption=data.get("caption"),
            value_label=data.get("value_label", "value"),
            intervals=data.get("intervals"),  # absent from reports written before intervals
        )


def _bar_intervals(intervals: Any, labels: list[str],
                   where: str) -> list[tuple[float, float] | None]:
    """One validated (low, high) or None per bar label (see `BarChart`)."""
    if intervals is None:
        return [None] * len(labels)
    if isinstance(intervals, Mapping):
        unknown = sorted(str(k) for k in intervals if k not in set(labels))
        if unknown:
            raise _fail(where, f"intervals names {unknown} that are not bar labels",
                        "key the intervals by the labels of the bars")
        raw = [intervals.get(label) for label in labels]
    else:
        raw = _items(intervals, where, "intervals")
        if len(raw) != len(labels):
            raise _fail(where, f"{len(raw)} intervals for {len(labels)} bars",
                        "give one (low, high) or None per bar, in the order of the bars, "
                        "or a {label: (low, high)} mapping")
    out: list[tuple[float, float] | None] = []
    for label, span in zip(labels, raw, strict=True):
        if span is None:
            out.append(None)
            continue
        item = _items(span, where, f"the interval of {label!r}")
        if len(item) != 2:
            raise _fail(where, f"the interval {span!r} of {label!r} is not (low, high)",
                        "pass a (low, high) pair, or None for a bar without one")
        low = _number(item[0], where, f"the low end of the interval of {label!r}")
        high = _number(item[1], where, f"the high end of the interval of {label!r}")
        if low > high:
            raise _fail(where, f"the interval of {label!r} is ({low}, {high}), low > high",
                        "pass (low, high) with low <= high")
        out.append((low, high))
    return out


def _cell(value: Any, where: str) -> Cell:
    value = _scalar(value)
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return _number(value, where, "a cell")
    raise _fail(where, f"the cell {value!r} is a {type(value).__name__}",
                "cells are strings, numbers, booleans or None (empty)")


@dataclass(frozen=True, init=False)
class Table(Section):
    """A small table: column names and rows of cells (strings, finite numbers, booleans,
    or None for an empty cell). Numbers are right-aligned and shown to 4 significant
    digits.

    A `detail` table (e.g. the answers of a chat model side by side) is evidence rather
    than a figure: the terminal summary shows a few of its rows, as records wrapped at
    word boundaries, and only for a relation that did not hold; the JSON and HTML reports
    show all of it."""

    kind: ClassVar[str] = "table"

    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    detail: bool

    def __init__(
        self,
        title: str,
        columns: Iterable[str],
        rows: Iterable[Iterable[Cell]],
        *,
        caption: str | None = None,
        detail: bool = False,
    ) -> None:
        title = _title(title, "Table")
        where = f"Table {title!r}"
        names = tuple(_text(c, where, "a column name") for c in _items(columns, where, "columns"))
        if not names:
            raise _fail(where, "there are no columns", "pass the column names")
        out: list[tuple[Cell, ...]] = []
        for i, row in enumerate(_items(rows, where, "rows"), 1):
            cells = tuple(_cell(c, where) for c in _items(row, where, f"row {i}"))
            if len(cells) != len(names):
                raise _fail(where, f"row {i} has {len(cells)} cells for {len(names)} columns",
                            "give every row one cell per column (None for an empty cell)")
            out.append(cells)
        if not isinstance(detail, bool):
            raise _fail(where, f"detail is {type(detail).__name__}", "pass True or False")
        _init(self, title=title, caption=_optional_text(caption, where, "caption"),
              columns=names, rows=tuple(out), detail=detail)

    def _payload(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "rows": [list(r) for r in self.rows],
                **({"detail": True} if self.detail else {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Table:
        return cls(
            _required(data, "title", "table"),
            _required(data, "columns", "table"),
            _required(data, "rows", "table"),
            caption=data.get("caption"),
            detail=data.get("detail") is True,
        )


@dataclass(frozen=True, init=False)
class Cluster:
    """One cluster of terms (cross-geographic, section 3.2): its id, its terms, its curve
    over the templates (mean score, or shift when the set is relative) and the mean
    shift of its terms from the templates' own scores, when known."""

    id: int | str
    terms: tuple[str, ...]
    curve: tuple[float, ...]
    mean_shift: float | None

    def __init__(
        self,
        id: int | str,
        terms: Iterable[str] = (),
        curve: Iterable[float] = (),
        mean_shift: float | None = None,
    ) -> None:
        where = f"Cluster {id!r}"
        ident = _scalar(id)
        if isinstance(ident, bool) or not isinstance(ident, int | str):
            raise _fail(where, "the id must be an int or a str", "number the clusters 0, 1, ...")
        _init(self, id=ident,
              terms=tuple(_text(t, where, "a term") for t in _items(terms, where, "terms")),
              curve=tuple(_number(v, where, "a curve value")
                          for v in _items(curve, where, "curve")),
              mean_shift=None if mean_shift is None else _number(mean_shift, where,
                                                                 "mean_shift"))

    def to_dict(self) -> dict[str, Any]:
        """The layout of one cluster in `TermClusters.to_dict()`."""
        return {"cluster": self.id, "terms": list(self.terms), "curve": list(self.curve),
                "mean_shift": self.mean_shift}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Cluster:
        if not isinstance(data, Mapping):
            raise _fail("a clusters section", f"a cluster is a {type(data).__name__}",
                        "give each cluster as {'cluster': id, 'terms': [...], 'curve': [...]}")
        return cls(_required(data, "cluster", "clusters"), data.get("terms") or (),
                   data.get("curve") or (), data.get("mean_shift"))


@dataclass(frozen=True, init=False)
class Clusters(Section):
    """One set of term clusters (cross-geographic, section 3.2 and Figure 3).

    `clusters` are `Cluster`s, or dicts as `TermClusters.to_dict()["clusters"]` holds
    them; `label` is what the terms were drawn for (a country, an attribute): the heading
    becomes "<title> for <label>". `template_scores` are the templates' own scores in the
    order of the curves (the x axis of the figure); `relative` says the curves are shifts
    from them rather than scores.
    """

    kind: ClassVar[str] = "clusters"

    clusters: tuple[Cluster, ...]
    label: str | None
    relative: bool
    template_scores: tuple[float, ...] | None

    def __init__(
        self,
        title: str,
        clusters: Iterable[Cluster | Mapping[str, Any]],
        *,
        label: str | None = None,
        relative: bool = False,
        template_scores: Iterable[float] | None = None,
        caption: str | None = None,
    ) -> None:
        title = _title(title, "Clusters")
        where = f"Clusters {title!r}"
        found = tuple(c if isinstance(c, Cluster) else Cluster.from_dict(c)
                      for c in _items(clusters, where, "clusters"))
        if not found:
            raise _fail(where, "there are no clusters", "pass at least one cluster")
        scores = None if template_scores is None else tuple(
            _number(v, where, "a template score")
            for v in _items(template_scores, where, "template_scores"))
        _init(self, title=title, caption=_optional_text(caption, where, "caption"),
              clusters=found, label=_optional_text(label, where, "label"),
              relative=_flag(relative, where, "relative"), template_scores=scores)

    @property
    def heading(self) -> str:
        return f"{self.title} for {self.label}" if self.label else self.title

    def _payload(self) -> dict[str, Any]:
        return {
            "clusters": [c.to_dict() for c in self.clusters],
            "label": self.label,
            "relative": self.relative,
            "template_scores": None if self.template_scores is None
            else list(self.template_scores),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Clusters:
        return cls(
            _required(data, "title", "clusters"),
            _required(data, "clusters", "clusters"),
            label=data.get("label"),
            relative=data.get("relative", False),
            template_scores=data.get("template_scores"),
            caption=data.get("caption"),
        )


_SECTION_TYPES: dict[str, type[Section]] = {
    cls.kind: cls for cls in (Curve, BarChart, Table, Clusters)
}


def section_from_dict(data: Mapping[str, Any]) -> Section | None:
    """The section a `Section.to_dict()` wrote, or None for a type this version does not
    know (so a file written by a newer pytest-fairness still opens).

    A dict of a known type that is malformed raises `ConfigurationError`.
    """
    if not isinstance(data, Mapping):
        raise ConfigurationError(
            f"a report section must be a dict, got {type(data).__name__}; pass what "
            "Section.to_dict() returns"
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ConfigurationError(
            f"a report section dict needs a string 'type', got {kind!r}; pass what "
            "Section.to_dict() returns"
        )
    cls = _SECTION_TYPES.get(kind)
    return None if cls is None else cls.from_dict(data)


# --------------------------------------------------------------------------- built-in charts
# The sections of the built-in relations, with the papers' titles and captions (a team's own
# relation builds `Curve`, `BarChart`, `Table` or `Clusters` directly). They live here, below
# both `checks` (which builds them) and `report` (which renders them).

LABEL_DIST_TITLE = "LabelDist by threshold"
SCORE_SENS_TITLE = "ScoreSens per name"
MITIGATION_TITLE = "Violations left after mitigation"
CLUSTERS_TITLE = "Term clusters"


def label_dist_section(curve: Iterable[tuple[float, float]]) -> Curve:
    """LabelDist by decision threshold, one curve of (threshold, LabelDist) points
    (psa, section 3.2 and Figure 2)."""
    return Curve(
        LABEL_DIST_TITLE,
        (tuple(curve),),
        x_label="threshold",
        y_label="LabelDist",
        caption="LabelDist (Jaccard distance of the positive sets) by threshold (psa, Figure 2)",
    )


def score_sens_section(
    score_sens: Mapping[str, float] | Iterable[tuple[str, float]],
    name_groups: Mapping[str, str | None] | None = None,
) -> BarChart:
    """ScoreSens per name, one block per group of names (female, male, ...; names without
    a group in an "other" block), sorted by value (psa, section 2 and Figure 1)."""
    return BarChart(
        SCORE_SENS_TITLE,
        score_sens,
        groups=dict(name_groups or {}),
        value_label="ScoreSens: mean f(x_n) - f(x)",
        caption="ScoreSens per name, grouped, sorted by value (psa, Figure 1)",
    )


def mitigation_section(curve: Iterable[tuple[float, float]]) -> Curve:
    """The share of discriminatory pairs left after certified smoothing, by eps
    (mt-nlp, section 4.3 and Figure 5): (eps, fraction) points, listed in the text
    summary and drawn in the HTML page."""
    return Curve(
        MITIGATION_TITLE,
        (tuple(curve),),
        x_label="eps",
        y_label="violations left",
        style="points",
        percent=True,
        caption="Violations left after certified smoothing, by eps (mt-nlp, Figure 5)",
    )


def clusters_section(data: Mapping[str, Any]) -> Clusters:
    """A set of term clusters from `TermClusters.to_dict()` (cross-geographic, section 3.2
    and Figure 3): its "clusters", "group" (the label), "relative" and "template_scores"."""
    raw_label = data.get("group") or data.get("country")
    label = str(raw_label) if raw_label else None
    return Clusters(
        CLUSTERS_TITLE,
        data.get("clusters") or (),
        label=label,
        relative=bool(data.get("relative", False)),
        template_scores=data.get("template_scores"),
        caption="Term sensitivity clusters" + (f" for {label}" if label else "")
        + " (cross-geographic, Figure 3)",
    )
