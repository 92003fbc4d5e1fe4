"""The flip rate: at most a share of perturbations may change the predicted label.

`assert_label_invariant` (mt-nlp, section 2, Algorithm 1) fails on one flip; this relation
tolerates a share: the flip rate (`metrics.flip_rate`) with a binomial interval must stay
at most `max_rate`, judged on the interval's lower end, and the report draws the rate per
perturbation kind (or attribute, or target group) as a bar chart with its intervals.

The relation is written on the pipeline of `checks.pipeline`: `_resolve` (the model
converted once, the cases made once), `FlipRateRelation.measure` (score the pairs, then the
pure `metrics.flip_rate`), `FlipRateRelation.present` (measurements, flipped pairs, chart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import ConfigurationError
from ..metrics.flip_rate import FlipRate, flip_rate
from ..models.classifiers.scoring import ScoredPair, coerce_model, score_pairs
from ..perturb.coerce import coerce_cases
from ..results import BarChart, Measurement
from ..types import Perturbation, TextModel
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_confidence,
    check_threshold,
    judged_nothing,
    measured,
    run_threshold,
    skipped_counts,
    skipped_note,
)

__all__ = ["FlipRateRelation", "assert_flip_rate_below"]

GroupBy = Literal["kind", "attribute", "to_group"]
#: What the pairs can be grouped by: a field of each `Perturbation`.
GROUP_BY: tuple[str, ...] = ("kind", "attribute", "to_group")
#: The title of the per-group chart.
CHART_TITLE = "Flip rate per {by}"


@dataclass(frozen=True)
class FlipInputs:
    """The resolved inputs: the model (converted once), the pairs, the bound."""

    model: TextModel
    perturbations: tuple[Perturbation, ...]
    threshold: float | None
    max_rate: float
    by: GroupBy
    confidence: float | None
    interval: str


@dataclass(frozen=True)
class FlipMeasure:
    """The scored pairs and their flip rate."""

    pairs: tuple[ScoredPair, ...]
    threshold: float | None
    n_skipped: int
    rate: FlipRate


def _group(p: Perturbation, by: GroupBy) -> str:
    value = getattr(p, by)
    return "(none)" if value is None else str(value)


class FlipRateRelation(Relation[FlipInputs, FlipMeasure]):
    """The share of pairs whose predicted label flips, against a bound."""

    name = "flip_rate"

    def measure(self, inputs: FlipInputs) -> FlipMeasure:
        pairs, t, skipped = score_pairs(inputs.model, inputs.perturbations, inputs.threshold,
                                        run_threshold=run_threshold())
        if not pairs:
            raise judged_nothing("flip_rate", (
                f"the model scored none of the {len(inputs.perturbations)} pairs "
                f"({skipped} skipped)"))
        rate = flip_rate(
            [p.original_label for p in pairs], [p.perturbed_label for p in pairs],
            [_group(p.perturbation, inputs.by) for p in pairs],
            confidence=inputs.confidence or 0.95, method=inputs.interval)
        return FlipMeasure(tuple(pairs), t, skipped, rate)

    def present(self, inputs: FlipInputs, measured_: FlipMeasure, *, show: int) -> Presented:
        rate = measured_.rate
        overall = rate.overall
        ci = None if inputs.confidence is None else (overall.low, overall.high)
        flipped = sorted((p for p in measured_.pairs if p.flipped),
                         key=lambda p: -abs(p.shift))
        chart = BarChart(
            CHART_TITLE.format(by=inputs.by.replace("_", " ")),
            {g: s.rate for g, s in sorted(rate.groups.items())},
            intervals=None if inputs.confidence is None else {
                g: (s.low, s.high) for g, s in rate.groups.items()},
            value_label="share of pairs whose label flips",
            caption=(f"flips / pairs per {inputs.by}"
                     + ("" if inputs.confidence is None else
                        f", with {inputs.confidence:.0%} {rate.method} intervals")),
        )
        how = ("argmax" if measured_.threshold is None
               else f"score >= {measured_.threshold:g}")
        skipped = "pair(s) the model did not score"
        return Presented(
            measurements=[
                *measured("flip rate", overall.rate, inputs.max_rate, ci,
                          method=None if ci is None else rate.method),
                Measurement("flipped pairs", float(overall.flips)),
            ],
            statement=(f"at most {inputs.max_rate:g} of the perturbations may change the "
                       f"predicted label (labels by {how}; mt-nlp, section 2)"),
            measure_name="shift",
            discrimination=overall.rate - inputs.max_rate,
            violations=[p.violation() for p in flipped[:max(show, RECORDED_VIOLATIONS)]],
            n_inputs=overall.n,
            n_violations=overall.flips,
            sections=[chart],
            notes=skipped_note(measured_.n_skipped, skipped),
            extra={"threshold": measured_.threshold, "worst_group": rate.worst_group,
                   **skipped_counts({skipped: measured_.n_skipped})},
            hint="the chart shows which kind of perturbation flips the label most; "
            "assert_label_invariant lists every flip",
            inputs_title=f"the {min(show, len(flipped))} flips with the largest score shift",
        )


FLIP_RATE = FlipRateRelation()


def _resolve(model: object, original: object, perturbed: object, max_rate: object, by: object,
             threshold: object, confidence: object, interval: object) -> FlipInputs:
    if by not in GROUP_BY:
        raise ConfigurationError(
            f"by must be one of {', '.join(map(repr, GROUP_BY))} (a field of each "
            f"Perturbation), got {by!r:.60}")
    if interval not in ("wilson", "clopper-pearson"):
        raise ConfigurationError(
            f"interval must be 'wilson' (score interval) or 'clopper-pearson' (exact), got "
            f"{interval!r:.60}")
    bound = check_bound(max_rate, "max_rate", upper=1.0)
    conf = check_confidence(confidence)
    t = check_threshold(threshold)
    cases = coerce_cases(original, perturbed)
    flat = tuple(p for case in cases for p in case.perturbations)
    group_by: GroupBy = "kind" if by == "kind" else (
        "attribute" if by == "attribute" else "to_group")
    return FlipInputs(coerce_model(model), flat, t, bound, group_by, conf, str(interval))


def assert_flip_rate_below(
    model: object,
    original: object,
    perturbed: object = None,
    *,
    max_rate: float,
    by: str = "kind",
    threshold: float | None = None,
    confidence: float | None = 0.95,
    interval: str = "wilson",
    show: int = DEFAULT_SHOWN,
) -> None:
    """The share of perturbations x' of x with label(x') != label(x) is at most
    `max_rate` (the proportion form of mt-nlp's label invariance, section 2).

    `original` and `perturbed` are what `assert_label_invariant` takes (a text and its
    perturbed texts, `Case`s or `Perturbation`s). The label of a single-score model is
    score >= `threshold` (default the run's `--fairness-threshold`). With `confidence`
    (default 0.95; None: the point estimate) the rate is judged on the lower end of its
    `interval` ("wilson" or "clopper-pearson"), so the test fails only when the whole
    interval lies above `max_rate`. The report shows the rate per `by` ("kind",
    "attribute" or "to_group" of each perturbation) as a bar chart with intervals; the
    failure lists the `show` flips with the largest score shift. Pairs the model did not
    score are skipped and counted; when it scored none, the relation judged nothing.
    """
    __tracebackhide__ = True
    FLIP_RATE.check(
        lambda: _resolve(model, original, perturbed, max_rate, by, threshold, confidence,
                         interval),
        show=show, stacklevel=4)
