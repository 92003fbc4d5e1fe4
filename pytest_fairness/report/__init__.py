"""The fairness report: merge recorded results into a summary; text, JSON, HTML; baselines.

Pure: this module imports no pytest, so a report can be rebuilt and rendered from a saved
`fairness.json` without rerunning the model (`python -m pytest_fairness.report
fairness.json [--html out.html]`).

What the plugin hands over is one `RecordedTest` per test that recorded results: its node
id, its outcome, whether it ran warn-only, and its recorded results (`FairnessResult.to_dict()`
dicts, in the order they were recorded). `build_summary` groups a test's results by
relation (a Hypothesis `@given` test records one result per example; a loop over a corpus
one per text), so each group reports the value of its final result (for Hypothesis: the
shrunk failing example, which runs last) and the worst value seen across all of them.

Everything here is ordered by node id, then recording order, so a run split over
pytest-xdist workers gives the same summary, JSON and HTML as a run in one process.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..results import Violation

__all__ = [
    "BASELINE_KIND",
    "REPORT_KIND",
    "SCHEMA_VERSION",
    "Comparison",
    "DiscriminatoryInput",
    "Group",
    "MetricChange",
    "MetricSummary",
    "RecordedTest",
    "Summary",
    "Tolerance",
    "baseline_doc",
    "build_summary",
    "compare",
    "falsifying_example",
    "from_json_doc",
    "junit_properties",
    "load_json",
    "main",
    "normalize_record",
    "render_html",
    "render_text",
    "schema_path",
    "to_builtin",
    "to_json_doc",
    "write_baseline",
    "write_reports",
]

#: Version of the layout of `fairness.json` and of baseline files. Bumped on any change a
#: reader would notice; readers refuse files with a newer major version.
SCHEMA_VERSION = 1
REPORT_KIND = "pytest-fairness-report"
BASELINE_KIND = "pytest-fairness-baseline"

Status = Literal["PASS", "FAIL", "WARN", "XFAIL"]
Op = Literal["<=", ">=", "<", ">"]
_OPS: tuple[str, ...] = ("<=", ">=", "<", ">")

#: How many discriminatory inputs the HTML page lists (all of them are in the JSON).
HTML_MAX_INPUTS = 500


# ---------------------------------------------------------------------------------------
# Plain builtins
# ---------------------------------------------------------------------------------------


def to_builtin(value: Any) -> Any:
    """`value` as plain JSON-able builtins, for xdist transport and the JSON report.

    numpy scalars and arrays become Python numbers and lists (duck-typed through
    `.tolist()`, so numpy is not imported here), tuples and sets become lists, mapping
    keys become strings, NaN and infinities become None, paths and other objects their
    string form.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): to_builtin(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtin(v) for v in value]
    if isinstance(value, set | frozenset):
        return [to_builtin(v) for v in sorted(value, key=repr)]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy scalar or array
        return to_builtin(tolist())
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_builtin(to_dict())
    if isinstance(value, Path):
        return str(value)
    return str(value)


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    number = _num(value)
    return default if number is None else int(number)


def _spans(value: Any) -> list[list[int]]:
    out: list[list[int]] = []
    if isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple) and len(item) == 2:
                start, end = _int(item[0], -1), _int(item[1], -1)
                if 0 <= start <= end:
                    out.append([start, end])
    return out


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _normalize_measurement(data: Any) -> dict[str, Any]:
    m = data if isinstance(data, Mapping) else {}
    value, bound = _num(m.get("value")), _num(m.get("bound"))
    op = str(m["op"]) if m.get("op") in _OPS else "<="
    ci_raw = m.get("ci")
    ci = None
    if isinstance(ci_raw, list | tuple) and len(ci_raw) == 2:
        ci = [_num(ci_raw[0]), _num(ci_raw[1])]
    holds = m.get("holds")
    if not isinstance(holds, bool):
        holds = _holds(value, op, bound)
    return {
        "name": str(m.get("name", "value")),
        "value": value,
        "bound": bound,
        "op": op,
        "ci": ci,
        "holds": holds,
    }


def _normalize_violation(data: Any) -> dict[str, Any]:
    v = data if isinstance(data, Mapping) else {}
    return {
        "original": str(v.get("original", "")),
        "perturbed": str(v.get("perturbed", "")),
        "original_spans": _spans(v.get("original_spans")),
        "perturbed_spans": _spans(v.get("perturbed_spans")),
        "original_score": _num(v.get("original_score")),
        "perturbed_score": _num(v.get("perturbed_score")),
        "original_label": _str_or_none(v.get("original_label")),
        "perturbed_label": _str_or_none(v.get("perturbed_label")),
        "measure": _num(v.get("measure")),
        "kind": _str_or_none(v.get("kind")),
        "attribute": _str_or_none(v.get("attribute")),
        "detail": _str_or_none(v.get("detail")),
    }


def normalize_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded result in the exact layout of `FairnessResult.to_dict()`, as builtins.

    Missing keys get defaults (so a hand-built dict recorded through
    `pytest_fairness.context.record` still makes a valid report); unknown top-level keys
    are kept.
    """
    record = to_builtin(dict(data))
    measurements = [_normalize_measurement(m) for m in record.get("measurements") or []]
    violations = [_normalize_violation(v) for v in record.get("violations") or []]
    passed = record.get("passed")
    if not isinstance(passed, bool):
        passed = all(m["holds"] for m in measurements)
    extra = record.get("extra")
    out: dict[str, Any] = {
        "relation": str(record.get("relation") or "unnamed"),
        "passed": passed,
        "measurements": measurements,
        "violations": violations,
        "n_inputs": max(0, _int(record.get("n_inputs"))),
        "n_violations": max(0, _int(record.get("n_violations"), len(violations))),
        "extra": extra if isinstance(extra, dict) else {},
    }
    for key, value in record.items():
        if key not in out:
            out[key] = value
    return out


def _holds(value: float | None, op: str, bound: float | None) -> bool:
    if bound is None:
        return True
    if value is None:
        return False
    return {
        "<=": value <= bound,
        ">=": value >= bound,
        "<": value < bound,
        ">": value > bound,
    }[op]


def _lower_is_better(op: str) -> bool:
    return op in ("<=", "<")


def _worse(a: float, b: float, op: str) -> bool:
    """Is `a` worse than `b` for a metric whose bound is `value <op> bound`?"""
    return a > b if _lower_is_better(op) else a < b


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


@dataclass(frozen=True, kw_only=True)
class DiscriminatoryInput(Violation):
    """A discriminatory input (a recorded `Violation`) with the test and relation that found it."""

    nodeid: str
    relation: str

    @classmethod
    def from_violation(
        cls, nodeid: str, relation: str, v: Mapping[str, Any]
    ) -> DiscriminatoryInput:
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
    label_dist_curves: tuple[tuple[tuple[float, float], ...], ...] = ()
    """Every distinct LabelDist curve the results carried (psa, Figure 2), in order."""
    score_sens: tuple[tuple[str, float], ...] = ()
    """ScoreSens per name of the last result that had them (psa, Figure 1)."""
    name_groups: tuple[tuple[str, str], ...] = ()
    mitigation_curve: tuple[tuple[float, float], ...] = ()
    """(eps, fraction of violations left) of the last result that had one (mt-nlp, Fig. 5)."""
    clusters: tuple[dict[str, Any], ...] = ()
    """Cross-geographic term clusters (phase 2), one dict per cluster set."""

    @property
    def primary(self) -> MetricSummary | None:
        """The metric a one-line summary shows: the first failing one, else the first."""
        for m in self.metrics:
            if not m.holds:
                return m
        return self.metrics[0] if self.metrics else None

    @property
    def short_id(self) -> str:
        return f"{self.nodeid} [{self.relation}]"


@dataclass(frozen=True)
class Tolerance:
    """How much worse a metric may get before `--fairness-compare` calls it a regression.

    A change is a regression when the value moved in the bad direction (up for a `<=`
    bound, down for a `>=` bound) by more than max(absolute, relative * |baseline|).
    """

    absolute: float = 0.0
    relative: float = 0.0

    #: Float noise never counts as a change.
    EPSILON = 1e-12

    def allowed(self, baseline: float) -> float:
        return max(self.absolute, self.relative * abs(baseline), self.EPSILON)

    @classmethod
    def parse(cls, text: str) -> Tolerance:
        """Parse '0.01' (absolute), '5%' (relative), or both: '0.01,5%'.

        Also accepts 'abs=0.01', 'rel=5%' and 'rel=0.05'. Raises ValueError with a message
        naming the accepted forms.
        """
        absolute, relative = 0.0, 0.0
        parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise ValueError(_TOLERANCE_HELP.format(text=text))
        for part in parts:
            key, _, raw = part.partition("=") if "=" in part else ("", "", part)
            key = key.strip().lower()
            raw = raw.strip()
            is_percent = raw.endswith("%")
            try:
                number = float(raw[:-1] if is_percent else raw)
            except ValueError:
                raise ValueError(_TOLERANCE_HELP.format(text=text)) from None
            if not math.isfinite(number) or number < 0:
                raise ValueError(_TOLERANCE_HELP.format(text=text))
            if key in ("rel", "relative") or (not key and is_percent):
                relative = number / 100 if is_percent else number
            elif key in ("abs", "absolute", "") and not is_percent:
                absolute = number
            else:
                raise ValueError(_TOLERANCE_HELP.format(text=text))
        return cls(absolute=absolute, relative=relative)

    def describe(self) -> str:
        parts = []
        if self.absolute:
            parts.append(f"absolute {_fmt(self.absolute)}")
        if self.relative:
            parts.append(f"relative {self.relative * 100:g}%")
        return " or ".join(parts) if parts else "none"

    def to_dict(self) -> dict[str, Any]:
        return {"absolute": self.absolute, "relative": self.relative}


_TOLERANCE_HELP = (
    "bad --fairness-compare-tolerance {text!r}: give an absolute tolerance ('0.01'), a "
    "relative one ('5%' or 'rel=0.05'), or both separated by a comma ('0.01,5%'); "
    "values must be >= 0"
)

ChangeStatus = Literal["regressed", "improved", "unchanged", "new", "missing"]


@dataclass(frozen=True)
class MetricChange:
    """One metric of the current run against the baseline."""

    nodeid: str
    relation: str
    metric: str
    op: str
    baseline: float | None
    current: float | None
    status: ChangeStatus

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "relation": self.relation,
            "metric": self.metric,
            "op": self.op,
            "baseline": self.baseline,
            "current": self.current,
            "delta": self.delta,
            "status": self.status,
        }


@dataclass(frozen=True)
class Comparison:
    """The run's metrics against a saved baseline (`--fairness-compare`)."""

    baseline: str
    """Where the baseline came from (its path as given)."""
    tolerance: Tolerance
    changes: tuple[MetricChange, ...]
    warn_only: bool = False

    @property
    def regressions(self) -> tuple[MetricChange, ...]:
        return tuple(c for c in self.changes if c.status == "regressed")

    @property
    def improvements(self) -> tuple[MetricChange, ...]:
        return tuple(c for c in self.changes if c.status == "improved")

    @property
    def failed(self) -> bool:
        """True when the run must fail: a regression, and not warn-only."""
        return bool(self.regressions) and not self.warn_only

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "tolerance": self.tolerance.to_dict(),
            "warn_only": self.warn_only,
            "failed": self.failed,
            "changes": [c.to_dict() for c in self.changes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        tol = data.get("tolerance") or {}
        changes = []
        for c in data.get("changes") or []:
            status = c.get("status")
            if status not in ("regressed", "improved", "unchanged", "new", "missing"):
                continue
            changes.append(
                MetricChange(
                    nodeid=str(c["nodeid"]),
                    relation=str(c["relation"]),
                    metric=str(c["metric"]),
                    op=str(c.get("op", "<=")),
                    baseline=_num(c.get("baseline")),
                    current=_num(c.get("current")),
                    status=status,
                )
            )
        return cls(
            baseline=str(data.get("baseline", "")),
            tolerance=Tolerance(
                absolute=_num(tol.get("absolute")) or 0.0,
                relative=_num(tol.get("relative")) or 0.0,
            ),
            changes=tuple(changes),
            warn_only=bool(data.get("warn_only", False)),
        )


@dataclass(frozen=True)
class Summary:
    """Everything the reports show, computed once from the recorded tests."""

    tests: tuple[RecordedTest, ...]
    groups: tuple[Group, ...]
    inputs: tuple[DiscriminatoryInput, ...]
    """Distinct discriminatory inputs of the run, worst first."""
    comparison: Comparison | None = None
    warn_only: bool = False
    """The run as a whole was warn-only."""
    notes: tuple[str, ...] = field(default=())
    """Lines the plugin wants shown (baseline saved, report written, ...)."""

    @property
    def empty(self) -> bool:
        return not self.groups

    def count(self, status: Status) -> int:
        return sum(1 for g in self.groups if g.status == status)

    @property
    def n_violations(self) -> int:
        return sum(g.n_violations for g in self.groups)

    def totals(self) -> dict[str, int]:
        return {
            "tests": len(self.tests),
            "groups": len(self.groups),
            "results": sum(g.n_results for g in self.groups),
            "passed": self.count("PASS"),
            "failed": self.count("FAIL"),
            "warned": self.count("WARN"),
            "xfailed": self.count("XFAIL"),
            "inputs": sum(g.n_inputs for g in self.groups),
            "violations": self.n_violations,
            "distinct_violations": len(self.inputs),
        }

    def with_comparison(self, comparison: Comparison | None) -> Summary:
        return Summary(self.tests, self.groups, self.inputs, comparison, self.warn_only,
                       self.notes)

    def with_notes(self, *notes: str) -> Summary:
        return Summary(self.tests, self.groups, self.inputs, self.comparison, self.warn_only,
                       self.notes + tuple(notes))


def _pairs(value: Any) -> tuple[tuple[float, float], ...]:
    out: list[tuple[float, float]] = []
    if isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple) and len(item) >= 2:
                x, y = _num(item[0]), _num(item[1])
                if x is not None and y is not None:
                    out.append((x, y))
    return tuple(out)


def _clusters(value: Any) -> tuple[dict[str, Any], ...]:
    """Cluster sets from `extra["clusters"]`: one dict (TermClusters.to_dict()) or a list."""
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list | tuple):
        return ()
    return tuple(dict(v) for v in value if isinstance(v, Mapping) and v.get("clusters"))


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
        worst: float | None = None
        for m in ms:
            if m["value"] is not None and (worst is None or _worse(m["value"], worst, m["op"])):
                worst = m["value"]
        ci = last["ci"]
        out.append(
            MetricSummary(
                name=name,
                op=last["op"],
                bound=last["bound"],
                final=last["value"],
                worst=worst,
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
    curves: list[tuple[tuple[float, float], ...]] = []
    score_sens: tuple[tuple[str, float], ...] = ()
    name_groups: tuple[tuple[str, str], ...] = ()
    mitigation: tuple[tuple[float, float], ...] = ()
    clusters: tuple[dict[str, Any], ...] = ()
    for r in results:
        extra = r["extra"]
        curve = _pairs(extra.get("label_dist_curve"))
        if curve and curve not in curves:
            curves.append(curve)
        sens = extra.get("score_sens")
        if isinstance(sens, Mapping) and sens:
            score_sens = tuple(
                (str(k), v) for k, v in ((k, _num(v)) for k, v in sens.items()) if v is not None
            )
            groups = extra.get("name_groups")
            name_groups = tuple(
                (str(k), str(v)) for k, v in (groups or {}).items() if v is not None
            ) if isinstance(groups, Mapping) else ()
        if extra.get("mitigation_curve"):
            mitigation = _pairs(extra.get("mitigation_curve"))
        if extra.get("clusters"):
            clusters = _clusters(extra.get("clusters"))
    return Group(
        nodeid=test.nodeid,
        relation=relation,
        status=status,
        outcome=test.outcome,
        n_results=len(results),
        n_failed=n_failed,
        n_inputs=sum(r["n_inputs"] for r in results),
        n_violations=sum(r["n_violations"] for r in results),
        metrics=_merge_metrics(results),
        hypothesis=test.hypothesis,
        falsifying_example=test.falsifying_example if n_failed else None,
        final_violation=final_violation,
        label_dist_curves=tuple(curves),
        score_sens=score_sens,
        name_groups=name_groups,
        mitigation_curve=mitigation,
        clusters=clusters,
    )


def build_summary(
    tests: Iterable[RecordedTest],
    *,
    warn_only: bool = False,
    comparison: Comparison | None = None,
) -> Summary:
    """Merge recorded tests into a `Summary`: groups by (test, relation), inputs deduped.

    Tests without results are dropped; tests are ordered by node id (the last entry of a
    node id wins, e.g. after a rerun). Discriminatory inputs are deduplicated by (test,
    relation, original, perturbed), keeping the most severe, and sorted worst first.
    """
    by_id: dict[str, RecordedTest] = {}
    for t in tests:
        if t.results:
            by_id[t.nodeid] = t
    ordered = tuple(by_id[k] for k in sorted(by_id))
    groups: list[Group] = []
    inputs: dict[tuple[str, str, str, str], DiscriminatoryInput] = {}
    for t in ordered:
        per_relation: dict[str, list[dict[str, Any]]] = {}
        for r in t.results:
            per_relation.setdefault(r["relation"], []).append(r)
            for v in r["violations"]:
                d = DiscriminatoryInput.from_violation(t.nodeid, r["relation"], v)
                key = (t.nodeid, r["relation"], d.original, d.perturbed)
                if key not in inputs or d.severity > inputs[key].severity:
                    inputs[key] = d
        groups.extend(_group(t, rel, rs) for rel, rs in per_relation.items())
    ranked = sorted(
        inputs.values(),
        key=lambda d: (-d.severity, d.nodeid, d.relation, d.original, d.perturbed),
    )
    return Summary(
        tests=ordered,
        groups=tuple(groups),
        inputs=tuple(ranked),
        comparison=comparison,
        warn_only=warn_only,
    )


# ---------------------------------------------------------------------------------------
# JUnit properties and Hypothesis helpers (called by the plugin per test)
# ---------------------------------------------------------------------------------------


def junit_properties(
    results: Sequence[Mapping[str, Any]], *, warn_only: bool = False
) -> list[tuple[str, str]]:
    """(name, value) pairs for a test's `user_properties`, shown by CI JUnit viewers.

    Per relation: `fairness.<relation>.<metric>` (the final value),
    `fairness.<relation>.<metric>.worst` when the relation was checked more than once,
    `fairness.<relation>.bound.<metric>`, `fairness.<relation>.status`,
    `fairness.<relation>.discriminatory_inputs`.
    """
    test = RecordedTest.create("-", results, warn_only=warn_only)
    out: list[tuple[str, str]] = []
    for g in build_summary([test]).groups:
        prefix = f"fairness.{g.relation}"
        out.append((f"{prefix}.status", g.status))
        for m in g.metrics:
            out.append((f"{prefix}.{m.name}", _fmt_exact(m.final)))
            if m.n > 1:
                out.append((f"{prefix}.{m.name}.worst", _fmt_exact(m.worst)))
            if m.bound is not None:
                out.append((f"{prefix}.bound.{m.name}", f"{m.op} {_fmt_exact(m.bound)}"))
        out.append((f"{prefix}.discriminatory_inputs", str(g.n_violations)))
        if g.n_results > 1:
            out.append((f"{prefix}.results", str(g.n_results)))
    return out


_FALSIFYING = re.compile(
    r"^(?:E\s+)?((?:Falsifying (?:explicit )?example|Failing test case):.*)$")


def falsifying_example(text: str | None) -> str | None:
    """Hypothesis's 'Falsifying example: test(...)' block from a failure's text, if any.

    Newer Hypothesis versions write 'Failing test case: test(...)'; both are found.
    """
    if not text:
        return None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _FALSIFYING.match(line.strip())
        if not match:
            continue
        block = [match.group(1).rstrip()]
        prefix = line[: line.index(match.group(1))]  # pytest's "E   " and indentation
        if block[0].endswith("("):
            for follow in lines[i + 1 :]:
                follow = follow.rstrip()
                if follow.startswith(prefix):
                    follow = follow[len(prefix):]
                block.append(follow)
                if follow.strip() == ")" or len(block) > 60:
                    break
        return "\n".join(block)
    return None


# ---------------------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------------------

_RATE = "violation_rate"


def _metric_values(summary: Summary) -> dict[tuple[str, str, str], tuple[str, float | None,
                                                                       float | None]]:
    """(nodeid, relation, metric) -> (op, value compared, bound); the worst value is used."""
    out: dict[tuple[str, str, str], tuple[str, float | None, float | None]] = {}
    for g in summary.groups:
        for m in g.metrics:
            out[(g.nodeid, g.relation, m.name)] = (m.op, m.worst, m.bound)
        if g.n_inputs > 0 and (g.nodeid, g.relation, _RATE) not in out:
            out[(g.nodeid, g.relation, _RATE)] = ("<=", g.n_violations / g.n_inputs, None)
    return out


def baseline_doc(summary: Summary, *, created: str | None = None) -> dict[str, Any]:
    """The content of a `--fairness-save-baseline` file for this run.

    One entry per (test, relation, metric) holding its worst value in the run, plus each
    relation's violation rate (discriminatory inputs / inputs checked).
    """
    metrics = [
        {"nodeid": k[0], "relation": k[1], "metric": k[2], "op": op, "value": value,
         "bound": bound}
        for k, (op, value, bound) in sorted(_metric_values(summary).items())
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": BASELINE_KIND,
        "created": created or _now(),
        "metrics": metrics,
    }


def _check_doc(doc: Any, kind: str, where: str) -> dict[str, Any]:
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        raise ValueError(f"{where} is not a {kind} file (its 'kind' is not {kind!r})")
    version = doc.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ValueError(
            f"{where} has schema_version {version!r}; this pytest-fairness reads up to "
            f"{SCHEMA_VERSION}: upgrade pytest-fairness or save a new file"
        )
    return doc


def compare(
    summary: Summary,
    baseline: Mapping[str, Any],
    tolerance: Tolerance,
    *,
    source: str = "baseline",
    warn_only: bool = False,
) -> Comparison:
    """Compare this run's metrics with a baseline document (see `baseline_doc`).

    Lower is better for metrics bounded with `<=`/`<` (and for the violation rate), higher
    for `>=`/`>`. A metric is 'regressed' when it got worse by more than the tolerance,
    'improved' when it got better by more than the tolerance; metrics only in the run are
    'new', only in the baseline 'missing' (a deselected test is not a regression).
    """
    doc = _check_doc(dict(baseline), BASELINE_KIND, source)
    base: dict[tuple[str, str, str], tuple[str, float | None]] = {}
    for entry in doc.get("metrics") or []:
        op = entry.get("op") if entry.get("op") in _OPS else "<="
        key = (str(entry["nodeid"]), str(entry["relation"]), str(entry["metric"]))
        base[key] = (op, _num(entry.get("value")))
    current = _metric_values(summary)
    changes: list[MetricChange] = []
    for key in sorted(set(base) | set(current)):
        if key not in base:
            op, value, _ = current[key]
            changes.append(MetricChange(*key, op, None, value, "new"))
            continue
        if key not in current:
            op, before = base[key]
            changes.append(MetricChange(*key, op, before, None, "missing"))
            continue
        op, value, _ = current[key]
        before = base[key][1]
        status: ChangeStatus
        if before is None or value is None:
            status = "unchanged" if before == value else ("regressed" if value is None
                                                          else "improved")
        else:
            allowed = tolerance.allowed(before)
            change = value - before if _lower_is_better(op) else before - value
            status = ("regressed" if change > allowed
                      else "improved" if -change > allowed else "unchanged")
        changes.append(MetricChange(*key, op, before, value, status))
    return Comparison(baseline=source, tolerance=tolerance, changes=tuple(changes),
                      warn_only=warn_only)


def write_baseline(path: Path, summary: Summary, *, created: str | None = None) -> Path:
    """Write the baseline file for `summary` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_dumps(baseline_doc(summary, created=created)), encoding="utf-8")
    return path


def load_baseline(path: Path) -> dict[str, Any]:
    """Read and check a baseline file; ValueError with a readable message if it is bad."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read fairness baseline {str(path)!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"fairness baseline {str(path)!r} is not valid JSON: {exc}") from None
    return _check_doc(doc, BASELINE_KIND, f"fairness baseline {str(path)!r}")


# ---------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------


def schema_path(kind: Literal["report", "baseline"] = "report") -> Path:
    """The JSON Schema shipped for `fairness.json` (or for baseline files)."""
    name = "fairness_report.schema.json" if kind == "report" else "fairness_baseline.schema.json"
    return Path(__file__).parent.parent / "data" / name


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z"
    )


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def _group_dict(g: Group) -> dict[str, Any]:
    return {
        "nodeid": g.nodeid,
        "relation": g.relation,
        "status": g.status,
        "outcome": g.outcome,
        "n_results": g.n_results,
        "n_failed": g.n_failed,
        "n_inputs": g.n_inputs,
        "n_violations": g.n_violations,
        "metrics": [
            {"name": m.name, "op": m.op, "bound": m.bound, "final": m.final, "worst": m.worst,
             "n": m.n, "n_failed": m.n_failed}
            for m in g.metrics
        ],
    }


def to_json_doc(
    summary: Summary, *, created: str | None = None, version: str | None = None
) -> dict[str, Any]:
    """The `fairness.json` document: every result and discriminatory input, stable order.

    `tests` is the source of truth (every recorded result, by node id, in recording
    order); `summary` (per test and relation) and `discriminatory_inputs` (deduplicated,
    worst first) are derived from it and included for readers that do not want to merge.
    Keys inside results are sorted; the top-level and per-test keys have a fixed order.
    """
    if version is None:
        from .. import __version__

        version = __version__
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": REPORT_KIND,
        "generator": {"name": "pytest-fairness", "version": version},
        "created": created or _now(),
        "warn_only": summary.warn_only,
        "totals": summary.totals(),
        "tests": [
            {**{k: v for k, v in t.to_payload().items() if k != "results"},
             "results": [_sorted_keys(r) for r in t.results]}
            for t in summary.tests
        ],
        "summary": [_group_dict(g) for g in summary.groups],
        "discriminatory_inputs": [d.to_dict() for d in summary.inputs],
        "comparison": None if summary.comparison is None else summary.comparison.to_dict(),
    }


def from_json_doc(doc: Mapping[str, Any]) -> Summary:
    """Rebuild the `Summary` of a run from its `fairness.json` document."""
    checked = _check_doc(dict(doc), REPORT_KIND, "this document")
    tests = [RecordedTest.from_payload(t) for t in checked.get("tests") or []]
    comparison = checked.get("comparison")
    return build_summary(
        tests,
        warn_only=bool(checked.get("warn_only", False)),
        comparison=None if not comparison else Comparison.from_dict(comparison),
    )


def load_json(path: Path) -> Summary:
    """Rebuild the `Summary` of a run from a `fairness.json` file."""
    return from_json_doc(json.loads(Path(path).read_text(encoding="utf-8")))


def _dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_reports(
    directory: Path,
    summary: Summary,
    *,
    created: str | None = None,
    html: bool = True,
) -> list[Path]:
    """Write `fairness.json` (and `fairness.html`) into `directory`; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    created = created or _now()
    json_path = directory / "fairness.json"
    json_path.write_text(_dumps(to_json_doc(summary, created=created)), encoding="utf-8")
    paths = [json_path]
    if html:
        html_path = directory / "fairness.html"
        html_path.write_text(render_html(summary, created=created), encoding="utf-8")
        paths.append(html_path)
    return paths


# ---------------------------------------------------------------------------------------
# Rendering (text in _text.py, HTML in _html.py)
# ---------------------------------------------------------------------------------------


def _fmt(value: float | None) -> str:
    """A metric value for people: 4 significant digits, 'n/a' for a missing value."""
    if value is None:
        return "n/a"
    if value == 0:
        return "0"
    return f"{value:.4g}"


def _fmt_exact(value: float | None) -> str:
    """A metric value for machines: repr of the float, '' when missing."""
    return "" if value is None else repr(float(value))


def render_text(
    summary: Summary, *, width: int = 80, verbosity: int = 0, color: bool = False
) -> list[str]:
    """The terminal `fairness summary` as lines (ANSI colours only when `color`)."""
    from .text import render

    return render(summary, width=width, verbosity=verbosity, color=color)


def render_html(summary: Summary, *, created: str | None = None, figures: bool = True) -> str:
    """`fairness.html`: one self-contained page (figures need matplotlib, else a note)."""
    from .html import render

    return render(summary, created=created or _now(), figures=figures)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pytest_fairness.report fairness.json`: print the summary again.

    `--html OUT` writes the HTML page; `-v`/`-q` set the verbosity; `--width N`.
    """
    import argparse
    import shutil
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m pytest_fairness.report",
        description="Rebuild the fairness summary (and HTML page) from a fairness.json file.",
    )
    parser.add_argument("json", type=Path, help="a fairness.json written by --fairness-report")
    parser.add_argument("--html", type=Path, help="write the HTML page to this file")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("-q", "--quiet", action="count", default=0)
    parser.add_argument("--width", type=int, default=shutil.get_terminal_size().columns)
    args = parser.parse_args(argv)
    try:
        summary = load_json(args.json)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in render_text(summary, width=args.width, verbosity=args.verbose - args.quiet,
                            color=sys.stdout.isatty()):
        print(line)
    if args.html:
        args.html.write_text(render_html(summary), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
