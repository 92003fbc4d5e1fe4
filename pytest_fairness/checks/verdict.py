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

A relation that judged nothing -- the model skipped every input (longer than its
`max_length`, say), or a result without a single bounded measurement that has a value --
never passes: under ``--fairness-on-empty=fail`` (the default) it raises
`NothingJudgedError` with the counts, under ``--fairness-on-empty=skip`` the test is
skipped with them (`NothingJudgedSkip`, a `unittest.SkipTest`); warn-only does not turn it
into a warning. `conclude` applies this to every result, `on_empty` to a relation that
stops before it has a result.

Every numeric option of the relations goes through `check_bound`, `check_show`,
`check_threshold`, `check_confidence` and `check_seed` (`pytest_fairness.validation`), so a
string, a bool, NaN, an infinity or a value out of range is a `ConfigurationError` naming
the option.

Outside pytest, `record` does nothing and `assert_result` still raises.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import sys
import unittest
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple, NoReturn

import numpy as np

from .. import context
from ..errors import ConfigurationError, FairnessViolation, NothingJudgedError
from ..metrics.bootstrap import BootstrapCI
from ..results import FairnessResult, Measurement, Violation
from ..runtime.printable import printable
from ..types import FloatArray
from ..validation import check_int, check_number
from .failure import DEFAULT_SHOWN, render_failure

#: The public part; the argument checks and `measured` below serve the relation modules.
__all__ = [
    "FairnessWarning",
    "NothingJudgedSkip",
    "assert_result",
    "conclude",
    "judged_nothing",
    "on_empty",
    "record",
]

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


class NothingJudgedSkip(unittest.SkipTest):
    """A relation judged nothing and the run's ``--fairness-on-empty`` is "skip": pytest
    skips the test, its reason giving the counts (a `unittest.SkipTest`, so the checks
    need no pytest)."""


# --------------------------------------------------------------------------- the run


def run_threshold() -> float:
    """The running test's `--fairness-threshold` (or marker), in [0, 1]."""
    return context.current_settings().threshold


def run_seed(seed: int | None = None) -> int:
    """`seed`, else the running test's `--fairness-seed` (or marker)."""
    return context.current_settings().seed if seed is None else seed


# --------------------------------------------------------------------------- arguments


def check_bound(value: object, name: str, *, upper: float | None = None) -> float:
    """A bound: a finite number >= 0 (and <= `upper`); a string, a bool, NaN or an
    infinity is a `ConfigurationError` naming `name` (`validation.check_number`)."""
    return check_number(value, name, minimum=0.0, maximum=upper)


def check_show(show: object) -> int:
    """How many discriminatory inputs a failure message lists: an integer >= 0."""
    return check_int(show, "show", minimum=0)


def check_threshold(threshold: object, name: str = "threshold") -> float | None:
    """A decision threshold: None (the run's) or a finite number; whether it lies in the
    model's score range is checked where the range is known (`models.thresholds`)."""
    return None if threshold is None else check_number(threshold, name)


def check_confidence(confidence: object) -> float | None:
    """A confidence level: None (no interval) or a number strictly between 0 and 1."""
    if confidence is None:
        return None
    return check_number(confidence, "confidence", above=0.0, below=1.0)


def check_seed(seed: object) -> int | None:
    """A seed: None (the run's `--fairness-seed`) or an integer >= 0."""
    return None if seed is None else check_int(seed, "seed", minimum=0)


def _score(value: object, where: str) -> None:
    """One score: a finite real number (not a bool, a string, bytes or a complex)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        fix = "; convert them first, e.g. [float(x) for x in ...]" if isinstance(
            value, (str, bytes)) else ""
        raise ConfigurationError(
            f"{where} must be a score (a number), got {type(value).__name__} "
            f"{value!r:.40}{fix}")
    if not math.isfinite(float(value)):
        raise ConfigurationError(f"{where} must be a finite score, got {float(value)!r}")


def check_scores(values: object, name: str, *, nested: bool = False) -> None:
    """`values` is a non-empty sequence of scores: finite real numbers (with `nested`,
    each item may instead be a non-empty sequence of them, several scores of one unit).
    Strings, bytes, bools, complex numbers, NaN, infinities, a mapping or a bare number
    raise `ConfigurationError` naming `name` and the item."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        arr = np.asarray(values, dtype=np.float64)
        if arr.size and not np.isfinite(arr).all():
            where = np.argwhere(~np.isfinite(arr))[0].tolist()
            raise ConfigurationError(f"{name}{where} must be a finite score, got "
                                     f"{arr[tuple(where)]!r}")
        if arr.size == 0:
            raise ConfigurationError(f"{name} is empty: pass at least one score")
        return
    if (isinstance(values, (str, bytes, bytearray, Mapping)) or values is None
            or not isinstance(values, Iterable)):
        raise ConfigurationError(
            f"{name} must be a sequence of scores (numbers), got {type(values).__name__} "
            f"{values!r:.40}")
    items = list(values)
    if not items:
        raise ConfigurationError(f"{name} is empty: pass at least one score")
    for i, item in enumerate(items):
        if nested and isinstance(item, (list, tuple, np.ndarray)):
            inner = list(np.ravel(item)) if isinstance(item, np.ndarray) else list(item)
            if not inner:
                raise ConfigurationError(f"{name}[{i}] is empty: a unit needs a score")
            for j, value in enumerate(inner):
                _score(value, f"{name}[{i}][{j}]")
        else:
            _score(item, f"{name}[{i}]")


def check_statistic(statistic: object) -> Statistic:
    """'max' (every input within the bound) or 'mean' (the average within it)."""
    if statistic not in ("max", "mean"):
        raise ConfigurationError(f"statistic must be 'max' or 'mean', got {statistic!r:.60}")
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


class StatisticVerdict(NamedTuple):
    """Per-input values judged by their max or mean (`by_statistic`)."""

    measurements: list[Measurement]
    """The judged statistic against the bound, then the other one, unbounded."""
    over: list[int]
    """The inputs whose value is over the bound, largest first."""
    listed: list[int]
    """The inputs a failure lists: those over the bound, or (a statistic over the bound
    with no single input over it) every input, largest first."""


def by_statistic(stat: Statistic, name: str, values: Sequence[float] | FloatArray,
                 maximum: float,
                 mean: float, bound: float) -> StatisticVerdict:
    """The per-input `values` named `name` judged by `stat` ("max": every input, "mean":
    the average) against `bound`, with `maximum` and `mean` their max and mean."""
    value, other, other_value = ((maximum, "mean", mean) if stat == "max"
                                 else (mean, "max", maximum))
    order = sorted(range(len(values)), key=lambda i: -values[i])
    over = [i for i in order if values[i] > bound]
    return StatisticVerdict(
        [Measurement(f"{stat} {name}", value, bound),
         Measurement(f"{other} {name}", other_value)],
        over, over if over or value <= bound else order)


def abs_interval(low: float, high: float) -> tuple[float, float]:
    """The interval of |X| from the interval (`low`, `high`) of X: the one place the
    relations judge an absolute gap on a signed statistic's interval."""
    if low >= 0:
        return low, high
    if high <= 0:
        return -high, -low
    return 0.0, max(-low, high)


def interval_note(conf: float, method: str, what: str) -> str:
    """The note of a measurement judged on a bootstrap interval's lower end (`what`: over
    what the resamples draw, e.g. "of the pairs")."""
    return (
        f"judged on the lower end of the {conf:.0%} {method} bootstrap interval "
        f"({N_RESAMPLES} resamples {what}): the test fails when the statistic is at its "
        f"bound with probability {(1 - conf) / 2:.3g}"
    )


def skipped_note(n: int, what: str) -> list[str]:
    """A note line for a failure message when `n` inputs were skipped."""
    return [f"{n} {what} skipped."] if n else []


def skipped_counts(counts: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """The `extra` entry that counts a relation's skipped inputs for the report:
    ``{"skipped": {what: n}}`` (each count > 0; reasons without one are left out). The
    summary adds them up per run ("fairness: 3 inputs skipped, not judged: ...")."""
    kept = {what: int(n) for what, n in counts.items() if n > 0}
    return {"skipped": kept} if kept else {}


# --------------------------------------------------------------------------- nothing judged

#: What to do about inputs the model skipped.
_FIX = ("pass inputs the model scores (shorter texts, or a larger max_length= for a remote "
        "scorer)")
#: The end of every message about a relation that judged nothing.
_ON_EMPTY_HINT = "or run with --fairness-on-empty=skip to skip such tests with this count"


def judged_nothing(relation: str, reason: str, fix: str | None = None) -> NothingJudgedError:
    """The error of a relation that judged nothing: `reason` says why, with the counts
    ("the model scored none of the 3 pairs: 3 skipped, ..."), `fix` what to change
    (default: give the model inputs it scores)."""
    fix = fix or _FIX
    relation, reason = printable(relation), printable(reason)  # user-named: safe to print
    return NothingJudgedError(
        f"{relation} judged nothing: {reason}. A relation cannot pass on nothing: {fix}, "
        f"{_ON_EMPTY_HINT}",
        relation=relation,
        reason=reason,
    )


def on_empty(error: NothingJudgedError) -> NoReturn:
    """Apply the run's ``--fairness-on-empty`` to a relation that judged nothing: raise
    `error` ("fail", the default and the behaviour outside pytest), or skip the test with
    its counts ("skip"). Warn-only does not apply: nothing was found to warn about."""
    __tracebackhide__ = True
    if context.current_settings().on_empty == "skip":
        raise NothingJudgedSkip(
            f"{error.relation or 'the relation'} judged nothing: {error.reason} "
            "(--fairness-on-empty=skip)"
        ) from None
    raise error


def _finite(value: object) -> bool:
    """A measured value that can be judged: a finite real number."""
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and math.isfinite(float(value)))


def _skip_counts(result: FairnessResult) -> dict[str, int]:
    """The skipped-input counts a result's `extra` holds (`skipped_counts`)."""
    found = result.extra.get("skipped") if isinstance(result.extra, Mapping) else None
    if not isinstance(found, Mapping):
        return {}
    return {str(k): int(v) for k, v in found.items()
            if isinstance(v, numbers.Integral) and not isinstance(v, bool) and int(v) > 0}


def _empty(result: FairnessResult, counts_inputs: bool) -> NothingJudgedError | None:
    """Why `result` judged nothing, as the error to raise, or None when it judged
    something: no bounded measurement has a finite value, or (for a relation that counts
    its inputs) none was judged."""
    bounded = [m for m in result.measurements if m.bound is not None]
    skipped = _skip_counts(result)
    counts = ", ".join(f"{n} {what}" for what, n in skipped.items())
    if not any(_finite(m.value) for m in bounded):
        what = ("no bounded measurement has a value (" + ", ".join(
            f"{m.name} = {m.value}" for m in bounded) + ")") if bounded else (
            "the result has no bounded measurement")
        return judged_nothing(result.relation, what + (f"; skipped: {counts}" if counts
                                                       else ""),
                              "give it a Measurement(name, value, bound) with a value")
    if counts_inputs and result.n_inputs <= 0:
        total = sum(skipped.values())
        reason = (f"0 of {total} inputs judged (skipped: {counts})" if counts
                  else "0 inputs judged: none was given")
        return judged_nothing(result.relation, reason)
    return None


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
    measure_worse: Literal["larger", "lower"] = "larger",
    notes: Sequence[str] = (),
    hint: str | None = None,
    inputs_title: str | None = None,
    stacklevel: int = 3,
    counts_inputs: bool = True,
) -> None:
    """Record `result`; then pass, warn (warn-only) or raise `FairnessViolation`.

    Warn-only still raises inside a test marked as an expected failure (``xfail``), so a
    known failure is reported as xfailed, not as an unexpected pass.
    `discrimination` is what Hypothesis maximises (larger: worse). `measure_worse` says
    which per-input measure is worse, for the reports' ordering: "larger" (magnitude, the
    default: a shift) or "lower" (a similarity). `stacklevel` points the warning at the
    line that called the assertion.

    A result that judged nothing (`counts_inputs`: `n_inputs == 0`, every input skipped;
    always: no bounded measurement with a finite value) is not recorded: `on_empty`
    fails or skips the test."""
    __tracebackhide__ = True
    empty = _empty(result, counts_inputs)
    if empty is not None:
        on_empty(empty)
    # the per-input measure's name goes with the result: the reports head its column
    context.record({**result.to_dict(), "measure_name": measure_name,
                    "measure_worse": measure_worse})
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

    A result without a bounded measurement that has a finite value judged nothing: it
    fails with `NothingJudgedError` (or is skipped under ``--fairness-on-empty=skip``),
    never passes. `n_inputs == 0` alone is fine here: a relation of your own may be judged
    on a statistic.
    """
    __tracebackhide__ = True
    if not isinstance(result, FairnessResult):
        raise ConfigurationError(
            f"assert_result() takes a FairnessResult, got {type(result).__name__}"
        )
    for name, text in (("statement", statement), ("hint", hint)):
        if text is not None and not isinstance(text, str):
            raise ConfigurationError(f"{name} must be a str or None, got "
                                     f"{type(text).__name__} {text!r:.60}")
    shown = check_show(show)
    bounded = [m for m in result.measurements if m.bound is not None and _finite(m.value)]
    discrimination = None
    if bounded:
        value, bound = float(bounded[0].value or 0.0), float(bounded[0].bound or 0.0)
        discrimination = value - bound if bounded[0].op in ("<=", "<") else bound - value
    conclude(
        result,
        statement=statement or f"{result.relation} must hold within its bounds",
        measure_name=bounded[0].name if bounded else "measure",
        discrimination=discrimination,
        show=shown,
        hint=hint,
        stacklevel=4,
        counts_inputs=False,
    )
