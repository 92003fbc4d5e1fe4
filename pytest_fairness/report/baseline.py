"""Baselines: save a run's metrics, compare a later run with them (`--fairness-compare`).

Pure: no pytest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .comparison import ChangeStatus, Comparison, MetricChange, Tolerance
from .jsondoc import BASELINE_KIND, SCHEMA_VERSION, check_document, dumps
from .summary import Summary
from .values import OPS, lower_is_better, now, number

__all__ = ["baseline_doc", "compare", "load_baseline", "write_baseline"]

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
    base: dict[tuple[str, str, str], tuple[str, float | None]] = {}
    for entry in _metric_rows(doc, source):
        op = str(entry.get("op")) if entry.get("op") in OPS else "<="
        key = (str(entry["nodeid"]), str(entry["relation"]), str(entry["metric"]))
        base[key] = (op, number(entry.get("value")))
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
        if before is None:  # no baseline value (NaN, null): nothing was compared
            status = "new"
        elif value is None:
            status = "regressed"
        else:
            allowed = tolerance.allowed(before)
            change = value - before if lower_is_better(op) else before - value
            status = ("regressed" if change > allowed
                      else "improved" if -change > allowed else "unchanged")
        changes.append(MetricChange(*key, op, before, value, status))
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
