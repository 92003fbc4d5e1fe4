"""One relation pipeline: resolve once -> measure -> present -> conclude.

A relation is three small parts over one driver:

- **resolve**: the relation's own function turns the user's arguments into one frozen
  value, once (the model converted, the threshold and score range resolved, the seed, the
  names split, the perturbations made) and hands it down; nothing below converts again;
- **measure** (`Relation.measure`): scores what it must through `models` and computes the
  statistic with a pure function of `metrics`;
- **present** (`Relation.present`): turns the measurement into a `Presented`: the
  measurements (bounded ones are judged), the discriminatory inputs, typed sections
  (charts, tables), notes and the failure message's statement and hint.

The driver (`Relation.check`, `Relation.result`) does the rest for every relation alike:
the `show` argument check, the nothing-judged case (a `NothingJudgedError` raised while
resolving or measuring goes through the run's ``--fairness-on-empty``), session reuse
(`Relation.reuse_key`: a measurement kept for the pytest session is served to the next
relation over the same inputs), building the `FairnessResult` and `verdict.conclude`.

The built-in relations use this class, and so can a team's own (it is public as
`pytest_fairness.Relation`)::

    class ShareOfEmpty(pf.Relation[list[str], float]):
        name = "share_of_empty"

        def measure(self, inputs):
            return sum(not t for t in inputs) / len(inputs)

        def present(self, inputs, measured, *, show):
            return pf.Presented(
                measurements=[pf.Measurement("share empty", measured, 0.1)],
                statement="at most 10% of the answers may be empty",
                n_inputs=len(inputs))

    ShareOfEmpty().check(answers)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from .. import context
from ..errors import ConfigurationError, NothingJudgedError
from ..results import FairnessResult, Measurement, Section, Violation
from .failure import DEFAULT_SHOWN
from .verdict import check_show, conclude, on_empty

__all__ = ["Presented", "Relation"]

In = TypeVar("In")
Out = TypeVar("Out")


@dataclass(frozen=True)
class Presented:
    """What a relation shows of one measurement: the `FairnessResult`'s content and the
    failure message's text.

    `measurements`: the bounded ones are judged (`passed` defaults to all of them holding);
    `statement` says what must hold (the message's first line); `measure_name` heads the
    per-input column of the message and `measure_worse` which end of it is worse
    ("larger", a shift; "lower", a similarity); `discrimination` is what a Hypothesis search
    maximises (larger: worse); `counts_inputs`: `n_inputs == 0` means nothing was judged
    (False for a relation judged on a statistic alone)."""

    measurements: Sequence[Measurement]
    statement: str
    measure_name: str = "measure"
    measure_worse: Literal["larger", "lower"] = "larger"
    discrimination: float | None = None
    violations: Sequence[Violation] = ()
    n_inputs: int = 0
    n_violations: int = 0
    sections: Sequence[Section] = ()
    notes: Sequence[str] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    hint: str | None = None
    inputs_title: str | None = None
    passed: bool | None = None
    counts_inputs: bool = True


class Relation(Generic[In, Out]):
    """A fairness relation: `measure` the resolved inputs, `present` the measurement; the
    driver (`check`, `result`) is shared by every relation, built-in or a team's own.

    Subclasses set `name` (the relation's name in the report) and define `measure` and
    `present`; `reuse_key` (default: none) lets a session keep a measurement for the next
    relation over the same inputs, and `reused` decides whether a kept one serves."""

    name: str = "relation"
    """The relation's name in the report (a class attribute, or set per instance)."""

    def measure(self, inputs: In) -> Out:
        """The measurement of the resolved `inputs` (a pure `metrics` function over what
        the model said). Raise `NothingJudgedError` when nothing could be judged."""
        raise NotImplementedError(f"{type(self).__name__} must define measure()")

    def present(self, inputs: In, measured: Out, *, show: int) -> Presented:
        """The measurements, findings, sections and notes of `measured`; `show` is how
        many discriminatory inputs the failure message lists (record at least that many)."""
        raise NotImplementedError(f"{type(self).__name__} must define present()")

    def reuse_key(self, inputs: In) -> tuple[Hashable, tuple[object, ...]] | None:
        """A key naming `inputs` within the pytest session, with the objects it names by
        identity (kept alive while the measurement is); None (the default): never reuse."""
        return None

    def reused(self, inputs: In, kept: object) -> Out | None:
        """The kept measurement `kept` (stored under this relation's key) adapted to
        `inputs`, or None when it does not serve them (it is measured again)."""
        return None

    # ------------------------------------------------------------------ the driver

    def _measured(self, inputs: In) -> Out:
        session = context.current_session()
        key = self.reuse_key(inputs) if session is not None else None
        if session is None or key is None:
            return self.measure(inputs)
        kept = session.recall(key[0])
        served = None if kept is None else self.reused(inputs, kept)
        if served is not None:
            return served
        out = self.measure(inputs)
        session.remember(key[0], out, keep=key[1])
        return out

    def presented(self, resolve: Callable[[], In], *, show: object = DEFAULT_SHOWN
                  ) -> tuple[Presented, int]:
        """Resolve, measure and present (the nothing-judged case through the run's
        ``--fairness-on-empty``); with the checked `show`."""
        __tracebackhide__ = True
        shown = check_show(show)
        if not callable(resolve):
            raise ConfigurationError(
                f"{type(self).__name__}.check() takes a function that resolves the inputs "
                f"(e.g. lambda: inputs), got {type(resolve).__name__}")
        try:
            inputs = resolve()
            measured = self._measured(inputs)
        except NothingJudgedError as exc:
            on_empty(exc)
        return self.present(inputs, measured, show=shown), shown

    def result(self, resolve: Callable[[], In], *, show: object = DEFAULT_SHOWN
               ) -> FairnessResult:
        """The `FairnessResult` of the inputs `resolve` returns, without a verdict."""
        __tracebackhide__ = True
        return self._result(self.presented(resolve, show=show)[0])

    def _result(self, p: Presented) -> FairnessResult:
        measurements = tuple(p.measurements)
        return FairnessResult(
            relation=self.name,
            passed=all(m.holds for m in measurements) if p.passed is None else p.passed,
            measurements=measurements,
            violations=tuple(p.violations),
            n_inputs=p.n_inputs,
            n_violations=p.n_violations,
            extra=dict(p.extra),
            sections=tuple(p.sections),
        )

    def check(self, resolve: Callable[[], In], *, show: object = DEFAULT_SHOWN,
              stacklevel: int = 3) -> None:
        """Resolve, measure, present, then record and pass, warn (warn-only) or raise
        `FairnessViolation` (`verdict.conclude`). `resolve` is a function returning the
        inputs (``lambda: inputs`` for inputs at hand), so that a relation that judged
        nothing while resolving fails or skips like one that judged nothing measuring.
        `stacklevel` points a warn-only warning at the caller's line (3: the line that
        called `check`; a function wrapping it passes 4)."""
        __tracebackhide__ = True
        p, shown = self.presented(resolve, show=show)
        conclude(
            self._result(p),
            statement=p.statement,
            measure_name=p.measure_name,
            measure_worse=p.measure_worse,
            discrimination=p.discrimination,
            show=shown,
            notes=p.notes,
            hint=p.hint,
            inputs_title=p.inputs_title,
            stacklevel=stacklevel,
            counts_inputs=p.counts_inputs,
        )
