"""What every relation does after it has measured: record -> judge -> pass, warn or raise.

Shared by the `checks` modules, and public for a team's own relations: `record` puts a
`FairnessResult` in the report of the running test (summary, JSON, HTML, JUnit) like a
built-in relation's, and `assert_result` records it and then fails the test when one of its
bounded measurements does not hold, exactly as the built-in `assert_*` functions do:

- the failure is a `FairnessViolation` (an `AssertionError`) whose message is a table of the
  measured values against their bounds and the worst discriminatory inputs (original ->
  perturbed, changed words marked ``[[like this]]``, both scores);
- under ``--fairness-warn-only`` (or ``@pytest.mark.fairness(warn_only=True)``, or a
  ``--fairness-gate`` without ``bounds``) it is a `FairnessWarning` instead, and the
  report says WARN; inside a test marked ``xfail`` it is still raised, so a known failure
  stays an expected failure (not a strict XPASS);
- inside a Hypothesis ``@given`` test, ``hypothesis.target`` steers the search toward the
  worst value; a warned failure's table is attached with ``hypothesis.note`` (a raised
  one is the exception's message already, printed once).

Outside pytest, `record` does nothing and `assert_result` still raises.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from .. import context
from ..errors import ConfigurationError, FairnessViolation
from ..metrics.bootstrap import BootstrapCI
from ..report.failure import DEFAULT_SHOWN, render_failure
from ..results import FairnessResult, Measurement, Violation

#: The public part; the argument checks and `measured` below serve the relation modules.
__all__ = ["FairnessWarning", "assert_result", "conclude", "record"]

#: How many violations a result records for the report (the message shows `show`).
RECORDED_VIOLATIONS = 100
#: Bootstrap resamples behind `confidence=`.
N_RESAMPLES = 1000
Statistic = Literal["max", "mean"]


class FairnessWarning(UserWarning):
    """A fairness relation does not hold, in a warn-only run: recorded, not raised."""

    def __init__(self, message: str, result: FairnessResult | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.violations: tuple[Violation, ...] = () if result is None else result.violations


# --------------------------------------------------------------------------- the run


def run_threshold() -> float:
    """The running test's `--fairness-threshold` (or marker), in [0, 1]."""
    return context.current_settings().threshold


def run_seed(seed: int | None = None) -> int:
    """`seed`, else the running test's `--fairness-seed` (or marker)."""
    return context.current_settings().seed if seed is None else seed


# --------------------------------------------------------------------------- arguments


def check_bound(value: object, name: str, *, upper: float | None = None) -> float:
    """A bound: a finite number >= 0 (and <= `upper`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigurationError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (upper is not None and v > upper):
        span = f"in [0, {upper}]" if upper is not None else "a finite number >= 0"
        raise ConfigurationError(f"{name} must be {span}, got {value!r}")
    return v


def check_show(show: int) -> int:
    """How many discriminatory inputs a failure message lists: an integer >= 0."""
    if isinstance(show, bool) or not isinstance(show, int) or show < 0:
        raise ConfigurationError(f"show must be an integer >= 0 (inputs listed), got {show!r}")
    return show


def check_statistic(statistic: str) -> Statistic:
    """'max' (every input within the bound) or 'mean' (the average within it)."""
    if statistic not in ("max", "mean"):
        raise ConfigurationError(f"statistic must be 'max' or 'mean', got {statistic!r}")
    return "max" if statistic == "max" else "mean"


def measured(
    name: str,
    value: float,
    bound: float | None,
    ci: BootstrapCI | tuple[float, float] | None = None,
    op: Literal["<=", ">="] = "<=",
    method: str | None = None,
) -> list[Measurement]:
    """A bounded measurement; with a confidence interval the verdict uses its lower end
    (upper end for ">="), so a test fails only when the whole interval is past the bound,
    and the point estimate is reported beside it. `method` names the interval's method in
    the judged measurement ("<name> (lower studentized CI end)")."""
    if ci is None:
        return [Measurement(name, value, bound, op)]
    low, high = (ci.low, ci.high) if isinstance(ci, BootstrapCI) else ci
    edge, side = (low, "lower") if op == "<=" else (high, "upper")
    side = f"{side} {method}" if method else side
    return [
        Measurement(name, value, None, op, ci=(low, high)),
        Measurement(f"{name} ({side} CI end)", edge, bound, op, ci=(low, high)),
    ]


def skipped_note(n: int, what: str) -> list[str]:
    """A note line for a failure message when `n` inputs were skipped."""
    return [f"{n} {what} skipped."] if n else []


# --------------------------------------------------------------------------- verdicts


def _hypothesis_feedback(relation: str, value: float | None, message: str | None) -> None:
    """`target` the measured discrimination and `note` `message` (a warned failure: a
    raised one carries its table in the exception), inside a Hypothesis test."""
    if "hypothesis" not in sys.modules:  # a test running Hypothesis has imported it
        return
    import hypothesis
    from hypothesis.control import currently_in_test_context
    from hypothesis.errors import InvalidArgument

    if not currently_in_test_context():
        return
    if value is not None and math.isfinite(value):
        with contextlib.suppress(InvalidArgument):  # targeted twice in one example
            hypothesis.target(float(value), label=relation)
    if message:
        hypothesis.note(message)


def record(result: FairnessResult | Mapping[str, Any]) -> None:
    """Put `result` in the fairness report of the running test; no-op outside pytest.

    A `FairnessResult` (or its `to_dict()`): its measurements, violations and typed
    sections (curves, bar charts, tables, clusters) show in the summary, the JSON and HTML
    files and the JUnit properties like a built-in relation's. Recording does not fail the
    test: use `assert_result` for a verdict.
    """
    if isinstance(result, FairnessResult):
        context.record(result.to_dict())
    elif isinstance(result, Mapping):
        context.record(dict(result))
    else:
        raise ConfigurationError(
            f"record() takes a FairnessResult, got {type(result).__name__}; build one with "
            "pytest_fairness.FairnessResult(relation=..., measurements=[...])"
        )


def conclude(
    result: FairnessResult,
    *,
    statement: str,
    measure_name: str,
    discrimination: float | None,
    show: int = DEFAULT_SHOWN,
    notes: Sequence[str] = (),
    hint: str | None = None,
    inputs_title: str | None = None,
    stacklevel: int = 3,
) -> None:
    """Record `result`; then pass, warn (warn-only) or raise `FairnessViolation`.

    Warn-only still raises inside a test marked as an expected failure (``xfail``), so a
    known failure is reported as xfailed, not as an unexpected pass.
    `discrimination` is what Hypothesis maximises (larger: worse). `stacklevel` points the
    warning at the line that called the assertion."""
    __tracebackhide__ = True
    context.record(result.to_dict())
    if result.passed:
        _hypothesis_feedback(result.relation, discrimination, None)
        return
    message = render_failure(
        result,
        statement=statement,
        measure_name=measure_name,
        shown=show,
        notes=notes,
        hint=hint,
        inputs_title=inputs_title,
    )
    violation = FairnessViolation(message, result=result)
    if context.current_settings().warn_only and not context.expected_failure(violation):
        _hypothesis_feedback(result.relation, discrimination, message)
        warnings.warn(FairnessWarning(message, result), stacklevel=stacklevel)
        return
    _hypothesis_feedback(result.relation, discrimination, None)
    raise violation


def assert_result(
    result: FairnessResult,
    *,
    statement: str | None = None,
    hint: str | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """Record `result` and fail the test unless it passed, as a built-in relation does.

    `result.passed` is the verdict (by default: every bounded measurement holds). The
    failure message states `statement` (default: the relation must hold within its
    bounds), the measurements against their bounds, and the worst `show` violations.
    Warn-only runs turn the failure into a `FairnessWarning`; inside a Hypothesis test the
    first bounded measurement is the value the search maximises.
    """
    __tracebackhide__ = True
    if not isinstance(result, FairnessResult):
        raise ConfigurationError(
            f"assert_result() takes a FairnessResult, got {type(result).__name__}"
        )
    bounded = [m for m in result.measurements if m.bound is not None and m.value is not None]
    discrimination = None
    if bounded:
        value, bound = float(bounded[0].value or 0.0), float(bounded[0].bound or 0.0)
        discrimination = value - bound if bounded[0].op in ("<=", "<") else bound - value
    conclude(
        result,
        statement=statement or f"{result.relation} must hold within its bounds",
        measure_name=bounded[0].name if bounded else "measure",
        discrimination=discrimination,
        show=check_show(show),
        hint=hint,
        stacklevel=4,
    )
