"""The summary model: recorded results merged per test and relation, and the run's counts.

What the plugin hands over is one `RecordedTest` per test that recorded results: its node
id, its outcome, whether it ran warn-only, and its recorded results (`FairnessResult.to_dict()`
dicts, in the order they were recorded). `build_summary` groups a test's results by
relation (a Hypothesis `@given` test records one result per example; a loop over a corpus
one per text), so each group reports the value of its final result (for Hypothesis: the
shrunk failing example, which runs last), the worst value seen across all of them, and the
report sections of its results, merged (`merge_sections`).

The counts every report shows are defined here, once (README, "Reading the report"):

- a *fairness test* is a pytest test that recorded at least one result; it is counted by
  pytest's own outcome of its call (failed, passed, skipped, xfailed, xpassed), so these
  counts are pytest's, restricted to the tests that checked fairness (`Summary.outcomes`);
- a *relation* is one `Group`: what one test recorded for one relation name, however many
  results (Hypothesis examples, loop iterations) that took. Its verdict (`Group.status`)
  is PASS when every result held; otherwise XFAIL when pytest reports the test as xfailed,
  WARN when the test ran warn-only, else FAIL;
- a *discriminatory input* (a violation) is an input that breaks the relation's per-input
  condition (a label flip, a shift over the bound, ...); a result counts them in
  `n_violations`. A result may also record inputs that are not discriminatory (the largest
  shifts of a relation whose bound is on a mean, say): its recorded inputs count as
  discriminatory up to its `n_violations`, most severe first, and the rest are *reference*
  inputs (`Summary.reference`). A relation judged on a statistic (an AUC, a W1 distance, a
  mean) can fail without any discriminatory input: `Summary.statistic_only` counts those;
- *distinct* discriminatory inputs are distinct (original, perturbed) pairs, whichever tests
  found them (`Summary.distinct_inputs`).

Each relation's measurements become `StatisticRow`s (`statistic_rows`): the value that was
judged against the bound, labelled (the value itself, or the interval end a relation asked
for a confidence interval was judged on), with the point estimate and the interval beside
it. A judged interval end is recorded as the measurement "<name> (lower CI end)" (or
"upper", with a bound) next to the point estimate "<name>" (no bound), as
`checks.verdict.measured` writes them; the two become one row.

Everything here is ordered by node id, then recording order, so a run split over
pytest-xdist workers gives the same summary, JSON and HTML as a run in one process.
Pure: no pytest, no numpy.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigurationError
from ..results import Curve, Section, Violation, section_from_dict
from .comparison import Comparison
from .legacy import sections_from_extra
from .values import OPS, Status, holds, integer, number, to_builtin, worse

__all__ = [
    "OUTCOMES",
    "DiscriminatoryInput",
    "DistinctInput",
    "Group",
    "MetricSummary",
    "RecordedTest",
    "StatisticRow",
    "Summary",
    "build_summary",
    "distinct",
    "merge_sections",
    "normalize_record",
    "record_sections",
    "section_key",
    "statistic_rows",
]

#: pytest's outcomes of a test's call, in the order pytest's last line names them.
OUTCOMES: tuple[str, ...] = ("failed", "passed", "skipped", "xfailed", "xpassed")


# ---------------------------------------------------------------------------------------
# Recorded results as normalized builtins
# ---------------------------------------------------------------------------------------


def _spans(value: Any) -> list[list[int]]:
    out: list[list[int]] = []
    if isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple) and len(item) == 2:
                start, end = integer(item[0], -1), integer(item[1], -1)
                if 0 <= start <= end:
                    out.append([start, end])
    return out


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _normalize_measurement(data: Any) -> dict[str, Any]:
    m = data if isinstance(data, Mapping) else {}
    value, bound = number(m.get("value")), number(m.get("bound"))
    op = str(m["op"]) if m.get("op") in OPS else "<="
    ci_raw = m.get("ci")
    ci = None
    if isinstance(ci_raw, list | tuple) and len(ci_raw) == 2:
        ci = [number(ci_raw[0]), number(ci_raw[1])]
    verdict = m.get("holds")
    if not isinstance(verdict, bool):
        verdict = holds(value, op, bound)
    return {
        "name": str(m.get("name", "value")),
        "value": value,
        "bound": bound,
        "op": op,
        "ci": ci,
        "holds": verdict,
    }


def _normalize_violation(data: Any) -> dict[str, Any]:
    v = data if isinstance(data, Mapping) else {}
    return {
        "original": str(v.get("original", "")),
        "perturbed": str(v.get("perturbed", "")),
        "original_spans": _spans(v.get("original_spans")),
        "perturbed_spans": _spans(v.get("perturbed_spans")),
        "original_score": number(v.get("original_score")),
        "perturbed_score": number(v.get("perturbed_score")),
        "original_label": _str_or_none(v.get("original_label")),
        "perturbed_label": _str_or_none(v.get("perturbed_label")),
        "measure": number(v.get("measure")),
        "kind": _str_or_none(v.get("kind")),
        "attribute": _str_or_none(v.get("attribute")),
        "detail": _str_or_none(v.get("detail")),
    }


def _normalize_sections(value: Any, relation: str) -> list[Any]:
    """Section dicts in the layout of `Section.to_dict()`; a section of a type this version
    does not know is kept as it is; one that cannot be read is left out with a warning
    (a report is never lost to one bad section)."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[Any] = []
    for item in items:
        try:
            section = section_from_dict(item)
        except ConfigurationError as exc:
            warnings.warn(
                f"pytest-fairness: a report section of a recorded {relation!r} result is "
                f"left out: {exc}",
                RuntimeWarning,
                stacklevel=4,
            )
            continue
        out.append(item if section is None else section.to_dict())
    return out


def normalize_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded result in the exact layout of `FairnessResult.to_dict()`, as builtins.

    Missing keys get defaults (so a hand-built dict recorded through
    `pytest_fairness.context.record` still makes a valid report); unknown top-level keys
    are kept. Sections (objects or dicts) become their `to_dict()`.
    """
    record = to_builtin(dict(data))
    measurements = [_normalize_measurement(m) for m in record.get("measurements") or []]
    violations = [_normalize_violation(v) for v in record.get("violations") or []]
    passed = record.get("passed")
    if not isinstance(passed, bool):
        passed = all(m["holds"] for m in measurements)
    extra = record.get("extra")
    relation = str(record.get("relation") or "unnamed")
    out: dict[str, Any] = {
        "relation": relation,
        "passed": passed,
        "measurements": measurements,
        "violations": violations,
        "n_inputs": max(0, integer(record.get("n_inputs"))),
        "n_violations": max(0, integer(record.get("n_violations"), len(violations))),
        "extra": extra if isinstance(extra, dict) else {},
        "sections": _normalize_sections(record.get("sections"), relation),
    }
    for key, value in record.items():
        if key not in out:
            out[key] = value
    return out


def record_sections(record: Mapping[str, Any]) -> tuple[Section, ...]:
    """The report sections of a normalized record: its `sections` (those of a type this
    version knows), or, when it has none, the sections its legacy `extra` keys stand for
    (`pytest_fairness.report.legacy`)."""
    raw = record.get("sections")
    if raw:
        found = (section_from_dict(s) for s in raw)
        return tuple(s for s in found if s is not None)
    extra = record.get("extra")
    return sections_from_extra(extra) if isinstance(extra, Mapping) else ()


# ---------------------------------------------------------------------------------------
# The summary model
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedTest:
    """One test that recorded fairness results, as the plugin collected it."""

    __test__ = False  # not a pytest test class, whatever imports it

    nodeid: str
    outcome: str = "passed"
    """pytest's outcome of the test's call phase: passed, failed or skipped, or xfailed /
    xpassed for a test marked `xfail`."""
    warn_only: bool = False
    """The test ran with warn-only in effect (option, ini key or marker)."""
    results: tuple[dict[str, Any], ...] = ()
    """Normalized recorded results, in recording order."""
    hypothesis: bool = False
    """The test is a Hypothesis `@given` test (one result per example)."""
    falsifying_example: str | None = None
    """Hypothesis's 'Falsifying example: ...' text of the shrunk example, when it failed."""

    @classmethod
    def create(
        cls,
        nodeid: str,
        results: Iterable[Mapping[str, Any]],
        *,
        outcome: str = "passed",
        warn_only: bool = False,
        hypothesis: bool = False,
        falsifying_example: str | None = None,
    ) -> RecordedTest:
        """A `RecordedTest` with every result normalized to plain builtins."""
        return cls(
            nodeid=nodeid,
            outcome=outcome,
            warn_only=warn_only,
            results=tuple(normalize_record(r) for r in results),
            hypothesis=hypothesis,
            falsifying_example=falsifying_example,
        )

    def to_payload(self) -> dict[str, Any]:
        """Plain builtins, in a fixed key order (the JSON layout of one test)."""
        return {
            "nodeid": self.nodeid,
            "outcome": self.outcome,
            "warn_only": self.warn_only,
            "hypothesis": self.hypothesis,
            "falsifying_example": self.falsifying_example,
            "results": [dict(r) for r in self.results],
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> RecordedTest:
        """The test `to_payload()` wrote (its results normalized again)."""
        example = data.get("falsifying_example")
        return cls.create(
            str(data["nodeid"]),
            data.get("results") or [],
            outcome=str(data.get("outcome", "passed")),
            warn_only=bool(data.get("warn_only", False)),
            hypothesis=bool(data.get("hypothesis", False)),
            falsifying_example=None if example is None else str(example),
        )


@dataclass(frozen=True)
class MetricSummary:
    """One metric of a (test, relation) group across its recorded results."""

    name: str
    op: str
    bound: float | None
    final: float | None
    """The value in the group's last result (Hypothesis: the shrunk example)."""
    worst: float | None
    """The worst value across the group's results (by the direction of `op`)."""
    n: int
    """How many results carried this metric."""
    n_failed: int
    """How many of them did not hold."""
    ci: tuple[float | None, float | None] | None = None
    """Confidence interval of the final value, when one was computed."""

    @property
    def holds(self) -> bool:
        return self.n_failed == 0


#: A measurement that holds a judged interval end: "<name> (lower CI end)", "<name> (upper
#: BCa CI end)", ... (`checks.verdict.measured`).
_INTERVAL_END = re.compile(r"^(?P<base>.+?) \((?P<edge>(?:lower|upper)\b[^()]*\bend)\)$")


@dataclass(frozen=True)
class StatisticRow:
    """One statistic of a relation as every report shows it: the value judged against the
    bound, labelled, with the point estimate and the interval beside it.

    `judged` says what was compared with the bound: "value" (the measured value itself,
    which is the point estimate), an interval end as the relation named it ("lower CI
    end", "upper CI end", ...: the relation was asked for a confidence interval and fails
    only when the whole interval is past the bound), or None for a statistic recorded
    without a bound (the reports show it as "recorded", never as PASS).
    """

    name: str
    """The statistic, e.g. "max |ScoreSens| (name Jerome)" (without the interval-end
    suffix of the measurement it was judged on)."""
    judged: str | None
    value: float | None
    """The judged value of the final result (for a recorded statistic: its value)."""
    worst: float | None
    """The worst judged value over the relation's results (by the direction of `op`)."""
    estimate: float | None
    """The point estimate of the final result (None when only an interval end was
    recorded)."""
    ci: tuple[float | None, float | None] | None
    """The confidence interval of the final result, when one was computed."""
    op: str
    bound: float | None
    n: int
    """How many results carried the statistic."""
    n_failed: int
    """How many of them did not hold."""
    metric: str
    """The recorded measurement the judged value comes from (baselines and JUnit key
    metrics by it)."""

    @property
    def holds(self) -> bool:
        """Every result held (always, for a recorded statistic)."""
        return self.n_failed == 0

    @property
    def on_interval(self) -> bool:
        """The judged value is an interval end, not the point estimate."""
        return self.judged is not None and self.judged != "value"

    @property
    def verdict(self) -> str:
        """"PASS" or "FAIL" for a bounded statistic, "recorded" for one without a bound."""
        if self.bound is None and self.judged is None:
            return "recorded"
        return "PASS" if self.holds else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        """The JSON layout of one row (`summary[].statistics[]` in `fairness.json`)."""
        return {
            "name": self.name,
            "judged": self.judged,
            "value": self.value,
            "worst": self.worst,
            "estimate": self.estimate,
            "ci": None if self.ci is None else list(self.ci),
            "op": self.op,
            "bound": self.bound,
            "n": self.n,
            "n_failed": self.n_failed,
            "verdict": self.verdict,
            "metric": self.metric,
        }


def statistic_rows(metrics: Sequence[MetricSummary]) -> tuple[StatisticRow, ...]:
    """The rows a report shows for a relation's merged measurements, in their order.

    A bounded interval-end measurement "<name> (lower CI end)" and the unbounded point
    estimate "<name>" beside it become one row named "<name>", judged on the interval end
    with the estimate and interval beside it (at the position of the estimate). An
    interval end without its estimate is a row of its own, judged on the interval end. Any
    other bounded measurement is judged on its value; an unbounded one is recorded.
    """
    by_name = {m.name: m for m in metrics}
    ends: dict[str, tuple[MetricSummary, str]] = {}  # estimate name -> (end, edge)
    for m in metrics:
        match = _INTERVAL_END.match(m.name)
        if match is None or m.bound is None:
            continue
        base = by_name.get(match["base"])
        if base is not None and base.bound is None and base.name not in ends:
            ends[base.name] = (m, match["edge"])
    paired = {end.name for end, _ in ends.values()}
    rows: list[StatisticRow] = []
    for m in metrics:
        if m.name in paired:
            continue
        if m.name in ends:
            end, edge = ends[m.name]
            rows.append(StatisticRow(
                name=m.name, judged=edge, value=end.final, worst=end.worst,
                estimate=m.final, ci=end.ci or m.ci, op=end.op, bound=end.bound, n=end.n,
                n_failed=end.n_failed, metric=end.name))
            continue
        match = _INTERVAL_END.match(m.name)
        if match is not None and m.bound is not None:
            name, judged, estimate = match["base"], match["edge"], None
        else:
            name, judged, estimate = m.name, ("value" if m.bound is not None else None), m.final
        rows.append(StatisticRow(
            name=name, judged=judged, value=m.final, worst=m.worst, estimate=estimate,
            ci=m.ci, op=m.op, bound=m.bound, n=m.n, n_failed=m.n_failed, metric=m.name))
    return tuple(rows)


@dataclass(frozen=True, kw_only=True)
class DiscriminatoryInput(Violation):
    """A discriminatory input (a recorded `Violation`) with the test and relation that found it."""

    nodeid: str
    relation: str

    @classmethod
    def from_violation(
        cls, nodeid: str, relation: str, v: Mapping[str, Any]
    ) -> DiscriminatoryInput:
        """The input of a recorded violation dict (normalized first)."""
        n = _normalize_violation(v)
        n["original_spans"] = tuple((s[0], s[1]) for s in n["original_spans"])
        n["perturbed_spans"] = tuple((s[0], s[1]) for s in n["perturbed_spans"])
        return cls(nodeid=nodeid, relation=relation, **n)

    @property
    def severity(self) -> float:
        """|measure|, else the score shift, else 0: what 'worst' sorts by."""
        if self.measure is not None:
            return abs(self.measure)
        if self.original_score is not None and self.perturbed_score is not None:
            return abs(self.perturbed_score - self.original_score)
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "relation": self.relation,
            "original": self.original,
            "perturbed": self.perturbed,
            "original_spans": [list(s) for s in self.original_spans],
            "perturbed_spans": [list(s) for s in self.perturbed_spans],
            "original_score": self.original_score,
            "perturbed_score": self.perturbed_score,
            "original_label": self.original_label,
            "perturbed_label": self.perturbed_label,
            "measure": self.measure,
            "kind": self.kind,
            "attribute": self.attribute,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class DistinctInput:
    """One distinct input (original -> perturbed) with every test and relation that
    recorded it: the same sentence found by three tests sharing one PSA run is one input."""

    found_by: tuple[DiscriminatoryInput, ...]
    """One entry per (test, relation), most severe first."""

    @property
    def worst(self) -> DiscriminatoryInput:
        """The most severe of the entries (what the reports show the texts and scores of)."""
        return self.found_by[0]

    @property
    def severity(self) -> float:
        return self.worst.severity


def distinct(inputs: Iterable[DiscriminatoryInput]) -> tuple[DistinctInput, ...]:
    """`inputs` (worst first) grouped by (original, perturbed), in order of their worst."""
    by_text: dict[tuple[str, str], list[DiscriminatoryInput]] = {}
    for d in inputs:
        by_text.setdefault((d.original, d.perturbed), []).append(d)
    return tuple(DistinctInput(found_by=tuple(ds)) for ds in by_text.values())


@dataclass(frozen=True)
class Group:
    """The results one test recorded for one relation, merged."""

    nodeid: str
    relation: str
    status: Status
    outcome: str
    n_results: int
    n_failed: int
    """Results that did not pass."""
    n_inputs: int
    """Inputs checked, summed over the results."""
    n_violations: int
    """Discriminatory inputs found, summed over the results."""
    metrics: tuple[MetricSummary, ...]
    hypothesis: bool = False
    falsifying_example: str | None = None
    final_violation: DiscriminatoryInput | None = None
    """The worst discriminatory input of the last result (Hypothesis: the shrunk example)."""
    sections: tuple[Section, ...] = ()
    """The report sections of the results, merged by title (see `merge_sections`)."""
    statistics: tuple[StatisticRow, ...] = ()
    """The rows the reports show: `metrics` paired by `statistic_rows`."""

    @property
    def primary(self) -> MetricSummary | None:
        """The metric a one-line summary shows: the first failing one, else the first."""
        for m in self.metrics:
            if not m.holds:
                return m
        return self.metrics[0] if self.metrics else None

    @property
    def headline(self) -> StatisticRow | None:
        """The statistic a one-line summary shows: the first that did not hold, else the
        first judged against a bound, else the first recorded one."""
        for s in self.statistics:
            if not s.holds:
                return s
        for s in self.statistics:
            if s.judged is not None:
                return s
        return self.statistics[0] if self.statistics else None

    @property
    def holds(self) -> bool:
        """Every result of the relation held (its verdict is PASS)."""
        return self.n_failed == 0

    @property
    def short_id(self) -> str:
        """'node id [relation]'."""
        return f"{self.nodeid} [{self.relation}]"


@dataclass(frozen=True)
class Summary:
    """Everything the reports show, computed once from the recorded tests.

    The counts are defined in this module's docstring (and the README's "Reading the
    report"); `totals()` holds them all.
    """

    tests: tuple[RecordedTest, ...]
    groups: tuple[Group, ...]
    inputs: tuple[DiscriminatoryInput, ...]
    """The discriminatory inputs of the run, one per (test, relation, original,
    perturbed), worst first."""
    comparison: Comparison | None = None
    warn_only: bool = False
    """The run as a whole was warn-only."""
    notes: tuple[str, ...] = field(default=())
    """Lines the plugin wants shown (baseline saved, report written, ...)."""
    reference: tuple[DiscriminatoryInput, ...] = ()
    """Recorded inputs that are not discriminatory (beyond their result's `n_violations`:
    the largest shifts of a relation judged on a statistic, say), worst first."""

    @property
    def empty(self) -> bool:
        return not self.groups

    def count(self, status: Status) -> int:
        """How many relations (groups) have the verdict `status`."""
        return sum(1 for g in self.groups if g.status == status)

    def outcomes(self) -> dict[str, int]:
        """How many fairness tests pytest reported with each outcome (`OUTCOMES` order;
        an outcome of another name, from a plugin, is added after them)."""
        out = dict.fromkeys(OUTCOMES, 0)
        for t in self.tests:
            out[t.outcome] = out.get(t.outcome, 0) + 1
        return out

    @property
    def n_violations(self) -> int:
        """Discriminatory inputs found: the relations' `n_violations`, summed."""
        return sum(g.n_violations for g in self.groups)

    def skipped_inputs(self) -> dict[str, int]:
        """Inputs the relations skipped without judging them, by reason, added up over
        every recorded result (each result's ``extra["skipped"]``, `{reason: count}`, as
        `checks.verdict.skipped_counts` writes it: pairs the model did not score, texts
        without gendered words, corpus texts spaCy cannot parse, ...), in order of first
        appearance. A result that names its skipped inputs (``extra["skipped_keys"]``,
        `{reason: [key, ...]}`, as the LLM relations do with `checks.llm.prompt_key`) has
        them counted once per distinct key over the run, however many tests skip them."""
        out: dict[str, int] = {}
        keyed: dict[str, set[str]] = {}
        for t in self.tests:
            for r in t.results:
                extra = r.get("extra")
                found = extra.get("skipped") if isinstance(extra, Mapping) else None
                if not isinstance(found, Mapping):
                    continue
                keys = extra.get("skipped_keys") if isinstance(extra, Mapping) else None
                for reason, n in found.items():
                    count = integer(n)
                    if count <= 0:
                        continue
                    named = keys.get(reason) if isinstance(keys, Mapping) else None
                    out.setdefault(str(reason), 0)
                    if isinstance(named, list) and len(named) == count:
                        keyed.setdefault(str(reason), set()).update(map(str, named))
                    else:
                        out[str(reason)] += count
        for reason, seen in keyed.items():
            out[reason] += len(seen)
        return out

    def measures(self) -> dict[str, tuple[str, bool]]:
        """Each relation's per-input measure as its results recorded it (`measure_name`
        and `measure_worse`, written by `checks.verdict.conclude`): relation -> (the
        measure's name, whether a lower value is worse, as for a similarity). A relation
        recorded without one (a user's hand-built result) is absent."""
        out: dict[str, tuple[str, bool]] = {}
        for t in self.tests:
            for r in t.results:
                name = r.get("measure_name")
                if isinstance(name, str) and name.strip():
                    out.setdefault(str(r["relation"]), (name, r.get("measure_worse") == "lower"))
        return out

    def distinct_inputs(self, *, reference: bool = False) -> tuple[DistinctInput, ...]:
        """The discriminatory inputs (or, with `reference`, the reference inputs) grouped
        by (original, perturbed), worst first, each with the tests that recorded it."""
        return distinct(self.reference if reference else self.inputs)

    @property
    def statistic_only(self) -> tuple[Group, ...]:
        """The relations that did not hold without a discriminatory input: judged on a
        statistic (an AUC, a distance, a mean) alone."""
        return tuple(g for g in self.groups if g.status != "PASS" and g.n_violations == 0)

    def totals(self) -> dict[str, int]:
        """The run's counts, as the JSON report's `totals` (README, "Reading the report").

        tests: fairness tests (`tests_<outcome>`: by pytest's outcome); groups: relations
        (passed, failed, warned, xfailed: by verdict); results: recorded results; inputs:
        inputs checked; violations: discriminatory inputs found; recorded_violations: those
        the report keeps (one per test, relation and input); distinct_violations: distinct
        (original, perturbed) among them; reference_inputs: recorded inputs that are not
        discriminatory; statistic_only: relations that did not hold without a
        discriminatory input.
        """
        return {
            "tests": len(self.tests),
            **{f"tests_{outcome}": n for outcome, n in self.outcomes().items()},
            "groups": len(self.groups),
            "results": sum(g.n_results for g in self.groups),
            "passed": self.count("PASS"),
            "failed": self.count("FAIL"),
            "warned": self.count("WARN"),
            "xfailed": self.count("XFAIL"),
            "inputs": sum(g.n_inputs for g in self.groups),
            "violations": self.n_violations,
            "recorded_violations": len(self.inputs),
            "distinct_violations": len(self.distinct_inputs()),
            "reference_inputs": len(self.reference),
            "statistic_only": len(self.statistic_only),
        }

    def with_comparison(self, comparison: Comparison | None) -> Summary:
        """This summary with a baseline comparison."""
        return dataclasses.replace(self, comparison=comparison)

    def with_notes(self, *notes: str) -> Summary:
        """This summary with more lines to show."""
        return dataclasses.replace(self, notes=self.notes + tuple(notes))

    def section_titles(self) -> tuple[str, ...]:
        """The distinct section titles, in order of first appearance across the groups
        (the order the text summary shows the sections in)."""
        return tuple(dict.fromkeys(s.title for g in self.groups for s in g.sections))


# ---------------------------------------------------------------------------------------
# Merging
# ---------------------------------------------------------------------------------------


def _merge_curves(curves: Sequence[Curve]) -> Curve:
    """One curve section with the distinct series of `curves` in order (the first one's
    axes, style and caption; unnamed series named 'curve i' when others have labels)."""
    if len(curves) == 1:
        return curves[0]
    seen: list[tuple[tuple[tuple[float, float], ...], str | None]] = []
    for c in curves:
        for i, points in enumerate(c.series):
            entry = (points, c.labels[i] if c.labels else None)
            if entry not in seen:
                seen.append(entry)
    named = any(label is not None for _, label in seen)
    return dataclasses.replace(
        curves[0],
        series=tuple(points for points, _ in seen),
        labels=tuple(label or f"curve {i + 1}" for i, (_, label) in enumerate(seen))
        if named else (),
    )


def merge_sections(per_result: Iterable[Sequence[Section]]) -> tuple[Section, ...]:
    """The sections of a group of results (in recording order), merged by title.

    `Curve`s of the same title accumulate their distinct series in order (LabelDist of
    every Hypothesis example); any other section type keeps the sections of that title
    from the last result that had one. Titles keep the order they first appeared in.
    """
    merged: dict[str, list[Section]] = {}
    for sections in per_result:
        by_title: dict[str, list[Section]] = {}
        for s in sections:
            by_title.setdefault(s.title, []).append(s)
        for title, new in by_title.items():
            new_curves = [s for s in new if isinstance(s, Curve)]
            if len(new_curves) < len(new):
                merged[title] = new
                continue
            old_curves = [s for s in merged.get(title, []) if isinstance(s, Curve)]
            if len(old_curves) < len(merged.get(title, [])):
                old_curves = []  # a curve replaces a section of another type
            merged[title] = [_merge_curves([*old_curves, *new_curves])]
    return tuple(s for kept in merged.values() for s in kept)


def section_key(section: Section) -> str:
    """A section's content as one string: two sections with the same key are the same
    figure (tests that share one PSA run record identical LabelDist and ScoreSens
    sections), which the HTML page draws and the terminal prints once."""
    return json.dumps(section.to_dict(), sort_keys=True, default=str)


def _merge_metrics(results: Sequence[Mapping[str, Any]]) -> tuple[MetricSummary, ...]:
    order: list[str] = []
    seen: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        for m in r["measurements"]:
            if m["name"] not in seen:
                order.append(m["name"])
                seen[m["name"]] = []
            seen[m["name"]].append(m)
    out = []
    for name in order:
        ms = seen[name]
        last = ms[-1]
        worst_value: float | None = None
        for m in ms:
            if m["value"] is not None and (
                worst_value is None or worse(m["value"], worst_value, m["op"])
            ):
                worst_value = m["value"]
        ci = last["ci"]
        out.append(
            MetricSummary(
                name=name,
                op=last["op"],
                bound=last["bound"],
                final=last["value"],
                worst=worst_value,
                n=len(ms),
                n_failed=sum(1 for m in ms if not m["holds"]),
                ci=None if ci is None else (ci[0], ci[1]),
            )
        )
    return tuple(out)


def _group(test: RecordedTest, relation: str, results: Sequence[dict[str, Any]]) -> Group:
    n_failed = sum(1 for r in results if not r["passed"])
    status: Status = (
        "PASS" if n_failed == 0
        else "XFAIL" if test.outcome == "xfailed"  # a known failure the test marks as expected
        else "WARN" if test.warn_only
        else "FAIL"
    )
    last = results[-1]
    final_violation = None
    if last["violations"]:
        candidates = [DiscriminatoryInput.from_violation(test.nodeid, relation, v)
                      for v in last["violations"]]
        final_violation = max(candidates, key=lambda d: d.severity)
    metrics = _merge_metrics(results)
    return Group(
        nodeid=test.nodeid,
        relation=relation,
        status=status,
        outcome=test.outcome,
        n_results=len(results),
        n_failed=n_failed,
        n_inputs=sum(r["n_inputs"] for r in results),
        n_violations=sum(r["n_violations"] for r in results),
        metrics=metrics,
        statistics=statistic_rows(metrics),
        hypothesis=test.hypothesis,
        falsifying_example=test.falsifying_example if n_failed else None,
        final_violation=final_violation,
        sections=merge_sections(record_sections(r) for r in results),
    )


def build_summary(
    tests: Iterable[RecordedTest],
    *,
    warn_only: bool = False,
    comparison: Comparison | None = None,
) -> Summary:
    """Merge recorded tests into a `Summary`: groups by (test, relation), inputs deduped.

    Tests without results are dropped; tests are ordered by node id (the last entry of a
    node id wins, e.g. after a rerun). A result's recorded inputs are discriminatory up to
    its `n_violations`, most severe first; the rest are reference inputs. Both are
    deduplicated by (test, relation, original, perturbed), keeping the most severe (an
    input discriminatory in one result is not a reference input of another), and sorted
    worst first.
    """
    by_id: dict[str, RecordedTest] = {}
    for t in tests:
        if t.results:
            by_id[t.nodeid] = t
    ordered = tuple(by_id[k] for k in sorted(by_id))
    groups: list[Group] = []
    inputs: dict[tuple[str, str, str, str], DiscriminatoryInput] = {}
    reference: dict[tuple[str, str, str, str], DiscriminatoryInput] = {}
    for t in ordered:
        per_relation: dict[str, list[dict[str, Any]]] = {}
        for r in t.results:
            per_relation.setdefault(r["relation"], []).append(r)
            found = [DiscriminatoryInput.from_violation(t.nodeid, r["relation"], v)
                     for v in r["violations"]]
            flagged = set(sorted(range(len(found)), key=lambda i: -found[i].severity)
                          [: r["n_violations"]])
            for i, d in enumerate(found):
                kept = inputs if i in flagged else reference
                key = (t.nodeid, r["relation"], d.original, d.perturbed)
                if key not in kept or d.severity > kept[key].severity:
                    kept[key] = d
        groups.extend(_group(t, rel, rs) for rel, rs in per_relation.items())

    def ranked(found: Iterable[DiscriminatoryInput]) -> tuple[DiscriminatoryInput, ...]:
        return tuple(sorted(
            found, key=lambda d: (-d.severity, d.nodeid, d.relation, d.original, d.perturbed)))

    return Summary(
        tests=ordered,
        groups=tuple(groups),
        inputs=ranked(inputs.values()),
        comparison=comparison,
        warn_only=warn_only,
        reference=ranked(d for key, d in reference.items() if key not in inputs),
    )
