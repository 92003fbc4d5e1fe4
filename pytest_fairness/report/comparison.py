"""A run's metrics against a saved baseline: tolerance, per-metric changes, the verdict.

The records only; `baseline.py` computes them. Pure: no pytest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .values import fmt, number

__all__ = ["ChangeStatus", "Comparison", "MetricChange", "Tolerance"]

ChangeStatus = Literal["regressed", "improved", "unchanged", "new", "missing"]
_STATUSES: tuple[str, ...] = ("regressed", "improved", "unchanged", "new", "missing")

_TOLERANCE_HELP = (
    "bad --fairness-compare-tolerance {text!r}: give an absolute tolerance ('0.01'), a "
    "relative one ('5%' or 'rel=0.05'), or both separated by a comma ('0.01,5%'); "
    "values must be >= 0"
)


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
        """The largest change from `baseline` that is not a regression."""
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
                value = float(raw[:-1] if is_percent else raw)
            except ValueError:
                raise ValueError(_TOLERANCE_HELP.format(text=text)) from None
            if not math.isfinite(value) or value < 0:
                raise ValueError(_TOLERANCE_HELP.format(text=text))
            if key in ("rel", "relative") or (not key and is_percent):
                relative = value / 100 if is_percent else value
            elif key in ("abs", "absolute", "") and not is_percent:
                absolute = value
            else:
                raise ValueError(_TOLERANCE_HELP.format(text=text))
        return cls(absolute=absolute, relative=relative)

    def describe(self) -> str:
        """'absolute 0.01 or relative 5%', or 'none'."""
        parts = []
        if self.absolute:
            parts.append(f"absolute {fmt(self.absolute)}")
        if self.relative:
            parts.append(f"relative {self.relative * 100:g}%")
        return " or ".join(parts) if parts else "none"

    def to_dict(self) -> dict[str, Any]:
        return {"absolute": self.absolute, "relative": self.relative}


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
    baseline_subject: str | None = None
    """Which group, name or term the baseline's value was measured on (the worst one then;
    `baseline.metric_identity`), when the metric names one."""
    current_subject: str | None = None
    """Which one the current value was measured on."""

    @property
    def subject_text(self) -> str:
        """The subjects for a report line: "worst 'female', best 'male'", or "name A ->
        name B" when it changed; empty when the metric names none."""
        before, now = self.baseline_subject, self.current_subject
        if before is None or now is None or before == now:
            return before or now or ""
        return f"{before} -> {now}"

    @property
    def delta(self) -> float | None:
        """current - baseline, when both are known."""
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
            "baseline_subject": self.baseline_subject,
            "current_subject": self.current_subject,
        }


@dataclass(frozen=True)
class Comparison:
    """The run's metrics against a saved baseline (`--fairness-compare`)."""

    baseline: str
    """Where the baseline came from (its path as given)."""
    tolerance: Tolerance
    changes: tuple[MetricChange, ...]
    warn_only: bool = False
    """Regressions are reported (WARN) but do not fail the run: the run's
    `--fairness-gate` leaves regressions out ('bounds' or 'none')."""

    @property
    def regressions(self) -> tuple[MetricChange, ...]:
        return tuple(c for c in self.changes if c.status == "regressed")

    @property
    def improvements(self) -> tuple[MetricChange, ...]:
        return tuple(c for c in self.changes if c.status == "improved")

    @property
    def failed(self) -> bool:
        """True when the run must fail: a regression, and regressions gate the run."""
        return bool(self.regressions) and not self.warn_only

    def count(self, status: ChangeStatus) -> int:
        """How many metrics have `status`."""
        return sum(1 for c in self.changes if c.status == status)

    @property
    def compared(self) -> int:
        """Metrics found in both the run and the baseline (regressed, improved or
        unchanged): 0 means the comparison judged nothing, whatever it says."""
        return sum(1 for c in self.changes if c.status not in ("new", "missing"))

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
        """The comparison `to_dict()` wrote (changes of an unknown status are skipped)."""
        tol = data.get("tolerance") or {}
        changes = []
        for c in data.get("changes") or []:
            status = c.get("status")
            if status not in _STATUSES:
                continue
            changes.append(
                MetricChange(
                    nodeid=str(c["nodeid"]),
                    relation=str(c["relation"]),
                    metric=str(c["metric"]),
                    op=str(c.get("op", "<=")),
                    baseline=number(c.get("baseline")),
                    current=number(c.get("current")),
                    status=status,
                    baseline_subject=_subject(c.get("baseline_subject")),
                    current_subject=_subject(c.get("current_subject")),
                )
            )
        return cls(
            baseline=str(data.get("baseline", "")),
            tolerance=Tolerance(
                absolute=number(tol.get("absolute")) or 0.0,
                relative=number(tol.get("relative")) or 0.0,
            ),
            changes=tuple(changes),
            warn_only=bool(data.get("warn_only", False)),
        )


def _subject(value: Any) -> str | None:
    return None if value is None else str(value)
