"""Baselines: save a run's metrics, compare a later run with them (`--fairness-compare`).

A metric is identified by (test, relation, metric name) where the name is the
measurement's without the part that names *which* group, name or term it was measured on
(`metric_identity`): "TPR: worst group 'female' vs best 'male'" is the metric "TPR: worst
group vs best" with the subject "worst 'female', best 'male'"; "max |ScoreSens| (name
Jerome)" is "max |ScoreSens|" with the subject "name Jerome". So when the worst group
changes between runs the metric is still compared (its subject shown beside it), never
reported as one new and one missing. Baseline files written before the subject was
split off are read with their names migrated the same way.

Pure: no pytest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .comparison import ChangeStatus, Comparison, MetricChange, Tolerance
from .jsondoc import BASELINE_KIND, SCHEMA_VERSION, check_document, dumps
from .summary import Summary
from .values import OPS, lower_is_better, now, number, worse

__all__ = ["baseline_doc", "compare", "load_baseline", "metric_identity", "write_baseline"]

_RATE = "violation_rate"

#: "<rate>: worst group '<a>' vs best '<b>'" (group metrics: the groups are values).
_WORST_BEST = re.compile(r"^(?P<head>.+?): worst group (?P<worst>.+?) vs best (?P<best>.+)$")
#: "<statistic> (name <x>)" or "(term <x>)", an interval-end suffix after it.
_NAMED = re.compile(r"^(?P<base>.+?) \((?P<what>name|term) (?P<who>[^()]+)\)"
                    r"(?P<rest>(?: \([^()]*\))?)$")


def metric_identity(name: str) -> tuple[str, str | None]:
    """(the metric's identity, its subject): a measurement's name without the group, name
    or term it names, which is a value of the metric (which one was worst in this run),
    not part of what the metric is. A name without a subject is its own identity.

    >>> metric_identity("TPR: worst group 'female' vs best 'male'")
    ('TPR: worst group vs best', "worst 'female', best 'male'")
    >>> metric_identity("max |ScoreSens| (name Jerome) (upper CI end)")
    ('max |ScoreSens| (upper CI end)', 'name Jerome')
    """
    found = _WORST_BEST.match(name)
    if found:
        return (f"{found['head']}: worst group vs best",
                f"worst {found['worst']}, best {found['best']}")
    found = _NAMED.match(name)
    if found:
        return f"{found['base']}{found['rest']}", f"{found['what']} {found['who']}"
    return name, None


_Key = tuple[str, str, str]
_Value = tuple[str, float | None, float | None, str | None]


def _keep_worst(out: dict[_Key, _Value], key: _Key, value: _Value) -> None:
    """Put `value` under `key`, or keep the worse of it and the one there (two names of
    one metric: its subject changed between the results of one test)."""
    old = out.get(key)
    if old is None or (value[1] is not None and (old[1] is None or worse(value[1], old[1],
                                                                          value[0]))):
        out[key] = value


def _metric_values(summary: Summary) -> dict[_Key, _Value]:
    """(nodeid, relation, metric identity) -> (op, value compared, bound, subject); the
    worst value is used (and its subject)."""
    out: dict[_Key, _Value] = {}
    for g in summary.groups:
        for m in g.metrics:
            identity, subject = metric_identity(m.name)
            _keep_worst(out, (g.nodeid, g.relation, identity), (m.op, m.worst, m.bound, subject))
        if g.n_inputs > 0 and (g.nodeid, g.relation, _RATE) not in out:
            out[(g.nodeid, g.relation, _RATE)] = ("<=", g.n_violations / g.n_inputs, None, None)
    return out


def baseline_doc(summary: Summary, *, created: str | None = None) -> dict[str, Any]:
    """The content of a `--fairness-save-baseline` file for this run.

    One entry per (test, relation, metric) holding its worst value in the run and the
    subject of that value (the worst group, name or term; `metric_identity`), plus each
    relation's violation rate (discriminatory inputs / inputs checked).
    """
    metrics = [
        {"nodeid": k[0], "relation": k[1], "metric": k[2], "op": op, "value": value,
         "bound": bound, "subject": subject}
        for k, (op, value, bound, subject) in sorted(_metric_values(summary).items())
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": BASELINE_KIND,
        "created": created or now(),
        "metrics": metrics,
    }


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
    'new', and so are those whose baseline value is missing or not a number (NaN, null:
    nothing to compare with, so never 'improved'); metrics only in the baseline are
    'missing' (a deselected test is not a regression). A metric the baseline had a value
    for and the run has none for (NaN) is 'regressed'.
    `warn_only`: regressions are reported without failing the run (`Comparison.failed`
    stays False; the plugin passes it when `--fairness-gate` leaves regressions out).
    """
    doc = check_document(dict(baseline), BASELINE_KIND, source)
    base: dict[_Key, _Value] = {}
    for entry in _metric_rows(doc, source):
        op = str(entry.get("op")) if entry.get("op") in OPS else "<="
        metric, subject = str(entry["metric"]), entry.get("subject")
        if "subject" not in entry:  # written before the subject was split off: migrate
            metric, subject = metric_identity(metric)
        key = (str(entry["nodeid"]), str(entry["relation"]), metric)
        _keep_worst(base, key, (op, number(entry.get("value")), None,
                                None if subject is None else str(subject)))
    current = _metric_values(summary)
    changes: list[MetricChange] = []
    for key in sorted(set(base) | set(current)):
        if key not in base:
            op, value, _, now_subject = current[key]
            changes.append(MetricChange(*key, op, None, value, "new",
                                        current_subject=now_subject))
            continue
        if key not in current:
            op, before, _, old_subject = base[key]
            changes.append(MetricChange(*key, op, before, None, "missing",
                                        baseline_subject=old_subject))
            continue
        op, value, _, now_subject = current[key]
        before, old_subject = base[key][1], base[key][3]
        status: ChangeStatus
        if before is None:  # no baseline value (NaN, null): nothing was compared
            status = "new"
        elif value is None:
            status = "regressed"
        else:
            allowed = tolerance.allowed(before)
            change = value - before if lower_is_better(op) else before - value
            status = ("regressed" if change > allowed
                      else "improved" if -change > allowed else "unchanged")
        changes.append(MetricChange(*key, op, before, value, status,
                                    baseline_subject=old_subject, current_subject=now_subject))
    return Comparison(baseline=source, tolerance=tolerance, changes=tuple(changes),
                      warn_only=warn_only)


def write_baseline(path: Path, summary: Summary, *, created: str | None = None) -> Path:
    """Write the baseline file for `summary` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(baseline_doc(summary, created=created)), encoding="utf-8")
    return path


def _metric_rows(doc: Mapping[str, Any], source: str) -> list[Mapping[str, Any]]:
    """The baseline's metric rows, each checked: an object with string 'nodeid',
    'relation' and 'metric' (ValueError naming the row otherwise)."""
    metrics = doc.get("metrics") or []
    if not isinstance(metrics, list):
        raise ValueError(f"{source}: 'metrics' must be a list of metric objects, got "
                         f"{type(metrics).__name__}; save a new baseline with "
                         "--fairness-save-baseline")
    for i, entry in enumerate(metrics):
        if not (isinstance(entry, Mapping) and all(
                isinstance(entry.get(k), str) for k in ("nodeid", "relation", "metric"))):
            raise ValueError(
                f"{source}: metrics[{i}] must be an object with string 'nodeid', 'relation' "
                f"and 'metric', got {entry!r:.80}; save a new baseline with "
                "--fairness-save-baseline")
    return metrics


def load_baseline(path: Path) -> dict[str, Any]:
    """Read and check a baseline file; ValueError with a readable message if it is bad."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read fairness baseline {str(path)!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"fairness baseline {str(path)!r} is not valid JSON: {exc}") from None
    source = f"fairness baseline {str(path)!r}"
    checked = check_document(doc, BASELINE_KIND, source)
    _metric_rows(checked, source)
    return checked
