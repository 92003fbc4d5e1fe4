"""The `assert_*` functions: compute -> record -> raise.

Each assertion takes what users have (a model or anything `as_model` takes; texts, a
`Corpus`, a `Case`, `Perturbation`s), scores everything in batches through the model's
prediction cache (`pytest_fairness.checks.analysis`), builds a `FairnessResult`, records it for
the report (`recording.record`) whether it passes or not, and on failure raises
`FairnessViolation` (an `AssertionError`, so no pytest import is needed) whose message is
a readable table: the relation, its bound, the measured value (with a confidence interval
when asked) and the worst discriminatory inputs, original -> perturbed with the changed
words marked ``[[like this]]`` and both scores. The exception carries `.result` (the
`FairnessResult`) and `.violations` (its `Violation` records).

With `warn_only` (``--fairness-warn-only`` or ``@pytest.mark.fairness(warn_only=True)``)
a failure is recorded and emitted as a `FairnessWarning` instead.

Inside a Hypothesis ``@given`` test each assertion calls ``hypothesis.target`` with its
measured discrimination (labelled by the relation), so the search climbs toward worse
inputs, and ``hypothesis.note`` with the failure table, so the falsifying example shows
it. Hypothesis is only touched when a test is already running it.

Invalid arguments (negative bounds, eps < 0, k < 1, a threshold outside the score range,
empty inputs, a perturbation identical to its original) raise `ConfigurationError`.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from .. import context as recording
from ..errors import ConfigurationError, FairnessViolation
from ..metrics import bias_aucs, eps_k_fair, max_k_at_eps, min_eps_at_k, pairwise_log_ratio
from ..metrics._util import check_confidence
from ..metrics.bootstrap import BootstrapCI, bootstrap_psa, bootstrap_wasserstein
from ..metrics.epsk import DEFAULT_TOL
from ..metrics.wasserstein import wasserstein
from ..models.mitigation import SmoothedModel
from ..models.scoring import Scores, check_texts, coerce_model, labels_of, score_texts
from ..models.thresholds import decision_threshold
from ..perturb.coerce import coerce_cases, perturbation_from_texts, resolve_perturber
from ..report.failure import DEFAULT_SHOWN, render_failure
from ..results import FairnessResult, Measurement, Violation
from ..types import Perturbation, TextModel
from .analysis import PSARun, counterfactual, invariance, name_groups, psa_run

__all__ = [
    "FairnessWarning",
    "assert_bias_auc_above",
    "assert_counterfactual_fair",
    "assert_eps_k_fair",
    "assert_label_invariant",
    "assert_labeldist_below",
    "assert_prediction_sensitivity_below",
    "assert_scoresens_below",
    "assert_wasserstein_below",
]

#: How many violations a result records for the report (the message shows `show`).
RECORDED_VIOLATIONS = 100
#: Bootstrap resamples behind `confidence=`.
N_RESAMPLES = 1000
_AUC_METRICS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")
Statistic = Literal["max", "mean"]


class FairnessWarning(UserWarning):
    """A fairness relation does not hold, in a warn-only run: recorded, not raised."""

    def __init__(self, message: str, result: FairnessResult | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.violations: tuple[Violation, ...] = () if result is None else result.violations


# --------------------------------------------------------------------------- shared steps


def _bound(value: object, name: str, *, upper: float | None = None) -> float:
    """A bound: a finite number >= 0 (and <= `upper`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigurationError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (upper is not None and v > upper):
        span = f"in [0, {upper}]" if upper is not None else "a finite number >= 0"
        raise ConfigurationError(f"{name} must be {span}, got {value!r}")
    return v


def _show(show: int) -> int:
    if isinstance(show, bool) or not isinstance(show, int) or show < 0:
        raise ConfigurationError(f"show must be an integer >= 0 (inputs listed), got {show!r}")
    return show


def _statistic(statistic: str) -> Statistic:
    if statistic not in ("max", "mean"):
        raise ConfigurationError(f"statistic must be 'max' or 'mean', got {statistic!r}")
    return "max" if statistic == "max" else "mean"


def _measure(
    name: str,
    value: float,
    bound: float | None,
    ci: BootstrapCI | tuple[float, float] | None = None,
    op: Literal["<=", ">="] = "<=",
) -> list[Measurement]:
    """A bounded measurement; with a confidence interval the verdict uses its lower end
    (upper end for ">="), so a test fails only when the whole interval is past the bound,
    and the point estimate is reported beside it."""
    if ci is None:
        return [Measurement(name, value, bound, op)]
    low, high = (ci.low, ci.high) if isinstance(ci, BootstrapCI) else ci
    edge, side = (low, "lower") if op == "<=" else (high, "upper")
    return [
        Measurement(name, value, None, op, ci=(low, high)),
        Measurement(f"{name} ({side} CI end)", edge, bound, op, ci=(low, high)),
    ]


def _hypothesis_feedback(relation: str, value: float | None, message: str | None) -> None:
    """`target` the measured discrimination and `note` a failure, inside a Hypothesis test."""
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


def _conclude(
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

    `stacklevel` points the warning at the line that called the assertion."""
    __tracebackhide__ = True
    recording.record(result.to_dict())
    message = None
    if not result.passed:
        message = render_failure(
            result,
            statement=statement,
            measure_name=measure_name,
            shown=show,
            notes=notes,
            hint=hint,
            inputs_title=inputs_title,
        )
    _hypothesis_feedback(result.relation, discrimination, message)
    if message is None:
        return
    if recording.current_settings().warn_only:
        warnings.warn(FairnessWarning(message, result), stacklevel=stacklevel)
        return
    error = FairnessViolation(message, result=result)
    raise error


def _skipped(n: int, what: str) -> list[str]:
    return [f"{n} {what} skipped."] if n else []


# --------------------------------------------------------------------------- label invariance


def assert_label_invariant(
    model: object,
    original: object,
    perturbed: object = None,
    *,
    threshold: float | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """argmax M(x) = argmax M(x') for every perturbation x' of x (mt-nlp, section 2,
    Algorithm 1).

    `original` is a text with `perturbed` a text or a sequence of texts/`Perturbation`s,
    or (with `perturbed` None) a `Case`, a `Perturbation` or a sequence of either. The
    label of a single-score model is score >= `threshold` (in the model's score range;
    default the run's `--fairness-threshold`). Fails listing the pairs whose labels
    differ, largest score shift first; `show` of them are printed.
    """
    __tracebackhide__ = True
    shown = _show(show)
    found = invariance(model, original, perturbed, threshold=threshold)
    bad = found.discriminatory
    result = FairnessResult(
        relation="label_invariance",
        passed=not bad,
        measurements=(
            Measurement("discriminatory inputs", float(len(bad)), 0.0, "<="),
            Measurement("max |score shift|", found.max_abs_shift),
        ),
        violations=tuple(p.violation() for p in bad[:RECORDED_VIOLATIONS]),
        n_inputs=len(found.pairs),
        n_violations=len(bad),
        extra={"threshold": found.threshold, "n_cases": found.n_cases},
    )
    how = "argmax" if found.threshold is None else f"score >= {found.threshold:g}"
    _conclude(
        result,
        statement=(
            "argmax M(x) = argmax M(x') must hold for every perturbation x' "
            f"(mt-nlp, section 2, Algorithm 1; labels by {how})"
        ),
        measure_name="shift",
        discrimination=found.max_abs_shift,
        show=shown,
        notes=_skipped(found.n_skipped, "pair(s) the model did not score"),
        hint="the model's label depends on the changed words; see the mitigation in "
        "pytest_fairness.smooth, or retrain with these counterfactuals",
    )


# --------------------------------------------------------------------------- PSA


def _psa_label(run: PSARun, labels: tuple[str, ...], score: float) -> str | None:
    if len(labels) != 2:
        return None
    return labels[1] if score >= run.threshold else labels[0]


def _pair_violations(run: PSARun, labels: tuple[str, ...]) -> list[Violation]:
    out = []
    for w in run.result.worst_pairs:
        p = run.perturbation(w.index, w.name)
        out.append(
            Violation.from_perturbation(
                p,
                original_score=w.original_score,
                perturbed_score=w.perturbed_score,
                original_label=_psa_label(run, labels, w.original_score),
                perturbed_label=_psa_label(run, labels, w.perturbed_score),
                measure=w.shift,
                detail=f"name {w.name}",
            )
        )
    return out


def _flip_violations(run: PSARun, labels: tuple[str, ...]) -> list[Violation]:
    out = []
    for _, index, j, orig, pert in run.worst_flips:
        name = run.names[j]
        out.append(
            Violation.from_perturbation(
                run.perturbation(index, name),
                original_score=orig,
                perturbed_score=pert,
                original_label=_psa_label(run, labels, orig),
                perturbed_label=_psa_label(run, labels, pert),
                measure=pert - orig,
                detail=f"name {name}",
            )
        )
    return out


def _psa_extra(run: PSARun) -> dict[str, Any]:
    res = run.result
    return {
        "score_sens": dict(res.score_sens),
        "name_groups": name_groups(res.names),
        "label_dist_curve": [[t, v] for t, v in res.label_dist_curve()],
        "threshold": run.threshold,
        "n_sentences": res.n_sentences,
        "score_dev": res.score_dev,
        "score_range": res.score_range,
        "shift_correlation": res.shift_correlation,
        "worst_sentences": [w.to_dict() for w in res.worst_sentences],
    }


def _psa_notes(run: PSARun) -> list[str]:
    res = run.result
    notes = [
        f"{res.n_sentences} sentences x {len(res.names)} names; labels at threshold "
        f"{run.threshold:g}; ScoreDev {res.score_dev:.4f}, ScoreRange {res.score_range:.4f}."
    ]
    notes += _skipped(run.n_without_perturbation, "reflexive/person-noun anchor(s)")
    notes += _skipped(run.n_skipped, "sentence(s) the model did not score")
    return notes


def _abs_ci(ci: BootstrapCI) -> tuple[float, float]:
    """The interval of |X| from that of X."""
    if ci.low >= 0:
        return ci.low, ci.high
    if ci.high <= 0:
        return -ci.high, -ci.low
    return 0.0, max(-ci.low, ci.high)


def _psa_measurements(
    run: PSARun,
    bound: float,
    bounds: dict[str, float | None],
    confidence: float | None,
    seed: int | None,
) -> list[Measurement]:
    """max |ScoreSens| against `bound`, ScoreDev / ScoreRange / LabelDist against
    `bounds` (psa, section 2); with `confidence`, judged on bootstrap intervals over
    sentences (the worst name is then the one with the largest lower end of |ScoreSens|)."""
    res = run.result
    values = {
        "ScoreDev": res.score_dev,
        "ScoreRange": res.score_range,
        "LabelDist": res.label_dist(run.threshold),
    }
    worst = max(res.names, key=lambda n: (abs(res.score_sens[n]), n))
    cis: dict[str, Any] = dict.fromkeys(["ScoreSens", *values])
    if confidence is not None and run.scores is not None:
        boot = bootstrap_psa(
            run.scores[0], run.scores[1], res.names, thresholds=(run.threshold,),
            n_resamples=N_RESAMPLES, confidence=confidence,
            seed=recording.current_settings().seed if seed is None else seed,
        )
        abs_cis = {n: _abs_ci(boot.score_sens[n]) for n in res.names}
        worst = max(res.names, key=lambda n: (abs_cis[n][0], n))
        cis = {
            "ScoreSens": abs_cis[worst],
            "ScoreDev": boot.score_dev,
            "ScoreRange": boot.score_range,
            "LabelDist": boot.label_dist[run.threshold],
        }
    sens = abs(res.score_sens[worst])
    out = _measure(f"max |ScoreSens| (name {worst})", sens, bound, cis["ScoreSens"])
    for key, value in values.items():
        label = f"LabelDist at {run.threshold:g}" if key == "LabelDist" else key
        limit = bounds[key]
        out += _measure(label, value, limit, cis[key] if limit is not None else None)
    return out


def assert_scoresens_below(
    model: object,
    corpus: object,
    names: Sequence[str],
    max_abs: float,
    *,
    max_dev: float | None = None,
    max_range: float | None = None,
    max_labeldist: float | None = None,
    threshold: float | None = None,
    confidence: float | None = None,
    seed: int | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """|ScoreSens(n)| <= `max_abs` for every name n (psa, section 2), and optionally
    ScoreDev <= `max_dev`, ScoreRange <= `max_range`, LabelDist(threshold) <=
    `max_labeldist` (psa, sections 2 and 3.2).

    `corpus` is a `Corpus`, texts or `Anchor`s (see `pytest_fairness.psa`); each anchor is
    replaced by each name. `threshold` is in the model's score range (default the run's
    `--fairness-threshold`, mapped into it). With `confidence` (e.g. 0.95) each bound is
    judged on a percentile-bootstrap interval over sentences (`seed` default: the run's
    seed): the test fails only when the whole interval lies above the bound (for
    |ScoreSens|, the interval of the worst name's |ScoreSens|), so a small corpus does not
    fail on noise; the point estimates are reported beside. The inputs listed are the
    (sentence, name) pairs with the largest |f(x_n) - f(x)|.
    """
    __tracebackhide__ = True
    bound = _bound(max_abs, "max_abs")
    extra_bounds = {
        "ScoreDev": None if max_dev is None else _bound(max_dev, "max_dev"),
        "ScoreRange": None if max_range is None else _bound(max_range, "max_range"),
        "LabelDist": None if max_labeldist is None else _bound(max_labeldist, "max_labeldist"),
    }
    conf = None if confidence is None else check_confidence(confidence)
    shown = _show(show)
    m = coerce_model(model)
    run = psa_run(
        m, corpus, names, threshold=threshold, max_abs=bound, keep_scores=conf is not None,
        top_n=max(shown, 10), seed=seed,
    )
    measurements = _psa_measurements(run, bound, extra_bounds, conf, seed)
    res = run.result
    result = FairnessResult(
        relation="score_sens",
        passed=all(x.holds for x in measurements),
        measurements=tuple(measurements),
        violations=tuple(_pair_violations(run, m.labels)),
        n_inputs=res.n_sentences * len(res.names),
        n_violations=run.n_exceeding,
        extra=_psa_extra(run),
    )
    _conclude(
        result,
        statement="replacing a pronoun with a name must not move the score "
        f"(|ScoreSens| <= {bound:g}; psa, section 2)",
        measure_name="shift",
        discrimination=max(abs(v) for v in res.score_sens.values()),
        show=shown,
        notes=_psa_notes(run),
        hint="the names with the largest ScoreSens are in the report's per-name chart; "
        "averaging over names (pytest_fairness.average) is the psa paper's mitigation",
        inputs_title=f"worst {min(shown, len(result.violations))} (sentence, name) pairs; "
        f"{run.n_exceeding} of {result.n_inputs} move the score by more than {bound:g}",
    )


def assert_labeldist_below(
    model: object,
    corpus: object,
    names: Sequence[str],
    max_labeldist: float,
    *,
    threshold: float | None = None,
    seed: int | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """LabelDist at `threshold` <= `max_labeldist` (psa, sections 2 and 3.2): the mean
    over names of the Jaccard distance between the sentences labelled positive before and
    after the pronoun is replaced by the name. Fails listing the pairs whose label flips,
    largest score shift first. `threshold` is in the model's score range (default the
    run's `--fairness-threshold`, mapped into it).
    """
    __tracebackhide__ = True
    bound = _bound(max_labeldist, "max_labeldist", upper=1.0)
    shown = _show(show)
    m = coerce_model(model)
    run = psa_run(m, corpus, names, threshold=threshold, top_n=max(shown, 10), seed=seed)
    res = run.result
    value = res.label_dist(run.threshold)
    result = FairnessResult(
        relation="label_dist",
        passed=value <= bound,
        measurements=(Measurement(f"LabelDist at {run.threshold:g}", value, bound),),
        violations=tuple(_flip_violations(run, m.labels)),
        n_inputs=res.n_sentences * len(res.names),
        n_violations=run.n_flips,
        extra=_psa_extra(run),
    )
    _conclude(
        result,
        statement=f"names must not flip labels at threshold {run.threshold:g} "
        f"(LabelDist <= {bound:g}; psa, sections 2 and 3.2)",
        measure_name="shift",
        discrimination=value,
        show=shown,
        notes=_psa_notes(run),
        hint="see the LabelDist curve in the report for how this depends on the threshold",
    )


# --------------------------------------------------------------------------- (eps, k)


def _eps_k_args(eps: object, k: object) -> tuple[float, int]:
    e = _bound(eps, "eps")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigurationError(
            f"k must be an integer >= 1 (how many mutations must be eps-close), got {k!r}"
        )
    return e, int(k)


def _candidates(
    text: str, attribute: str | None, perturbations: object
) -> list[Perturbation]:
    if not isinstance(text, str):
        raise ConfigurationError(f"text must be a str, got {type(text).__name__}")
    if perturbations is not None:
        return list(coerce_cases(text, perturbations)[0].perturbations)
    found = resolve_perturber(None, attribute).one(text)
    if not found:
        raise ConfigurationError(
            f"no {attribute} perturbation of {text!r:.80}: (eps, k)-fairness compares a "
            "text with its mutations; use a text with the attribute in it, or pass "
            "perturbations=[...]"
        )
    return found


def assert_eps_k_fair(
    model: object,
    text: str,
    *,
    eps: float,
    k: int,
    attribute: str | None = None,
    perturbations: object = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """f and x0 = `text` are (eps, k)-fair (mt-nlp, Definition 3.1): some k mutations S
    have f(x) <= e^eps f(x') elementwise for all x, x' in {x0} u S.

    Decided exactly (`metrics.eps_k_fair`) over the candidate mutations, from
    `perturbations=` (texts or Perturbations of `text`) or generated for `attribute`.
    f is the model's class probabilities (`predict_proba`; a single score in [-1, 1] is
    mapped to [1 - p, p]), so outputs are non-negative as the definition requires. The
    message reports the largest k reached at eps and the smallest eps reached at k, with
    their witnesses.

    For a `SmoothedModel` (`pytest_fairness.smooth`) the check is its certificate
    (mt-nlp Theorem 1, Appendix B): the group {x0} u S of its own perturbations, each
    member smoothed over the rest, must reach eps with |S| >= k.
    """
    __tracebackhide__ = True
    e, kk = _eps_k_args(eps, k)
    shown = _show(show)
    if isinstance(model, SmoothedModel):
        _assert_certified(model, text, e, kk, attribute, perturbations, shown)
        return
    m = coerce_model(model)
    cands = _candidates(text, attribute, perturbations)
    if kk > len(cands):
        raise ConfigurationError(
            f"k={kk} but {text!r:.60} has only {len(cands)} candidate mutation(s): "
            "Definition 3.1 needs k of them; lower k or pass more perturbations"
        )
    scores = score_texts(m, [text, *(p.perturbed for p in cands)])
    orig = scores.row(text)
    rows = np.stack([scores.row(p.perturbed) for p in cands])
    decision = eps_k_fair(orig, rows, e, kk)
    violations = [] if decision.fair else _far_mutations(m, text, cands, scores, e)
    wide = max_k_at_eps(orig, rows, e)
    tight = min_eps_at_k(orig, rows, kk)
    result = FairnessResult(
        relation="eps_k_fairness",
        passed=decision.fair,
        measurements=(
            Measurement(f"largest k at eps={e:g}", float(decision.max_k), float(kk), ">="),
            Measurement(f"smallest eps at k={kk}", decision.min_eps, e, "<="),
        ),
        violations=tuple(violations[:RECORDED_VIOLATIONS]),
        n_inputs=len(cands),
        n_violations=len(violations),
        extra={
            "decision": decision.to_dict(),
            "witness_at_eps": [cands[i].perturbed for i in wide.witness],
            "witness_at_k": [cands[i].perturbed for i in tight.witness],
        },
    )
    notes = [
        f"largest k at eps={e:g}: {decision.max_k} (witness: {_quote(cands, wide.witness)})",
        f"smallest eps at k={kk}: {decision.min_eps:.4g} "
        f"(witness: {_quote(cands, tight.witness)})",
    ]
    _conclude(
        result,
        statement=f"{text!r:.80} must have {kk} mutation(s) S with f(x) <= e^{e:g} f(x') "
        "for all x, x' in {x0} u S (mt-nlp, Definition 3.1)",
        measure_name="log ratio",
        discrimination=decision.min_eps,
        show=shown,
        notes=notes,
        hint="pytest_fairness.smooth(model, ..., eps=...) certifies this bound (mt-nlp, "
        "Theorem 1)",
        inputs_title=f"mutations farther than eps={e:g} from the original (log ratio "
        "max_c |log f(x)_c - log f(x')_c|)",
    )


def _far_mutations(
    model: TextModel, text: str, cands: Sequence[Perturbation], scores: Scores, eps: float
) -> list[Violation]:
    """The mutations farther than eps from `text` (max_c |log f(x)_c - log f(x')_c|),
    farthest first: the inputs that keep a k-set from existing (Definition 3.1)."""
    labels = labels_of(
        model, scores,
        decision_threshold(model, run_threshold=recording.current_settings().threshold),
    )
    orig = scores.row(text)
    ratios = [pairwise_log_ratio(orig, scores.row(p.perturbed)) for p in cands]
    order = sorted(range(len(cands)), key=lambda i: -ratios[i])
    return [
        Violation.from_perturbation(
            cands[i],
            original_score=scores.score(text),
            perturbed_score=scores.score(cands[i].perturbed),
            original_label=labels[text],
            perturbed_label=labels[cands[i].perturbed],
            measure=ratios[i],
        )
        for i in order
        if ratios[i] > eps + DEFAULT_TOL
    ]


def _quote(cands: Sequence[Perturbation], witness: Sequence[int]) -> str:
    if not witness:
        return "none"
    shown = [repr(cands[i].perturbed[:40]) for i in witness[:3]]
    more = f" and {len(witness) - 3} more" if len(witness) > 3 else ""
    return ", ".join(shown) + more


def _assert_certified(
    model: SmoothedModel,
    text: str,
    eps: float,
    k: int,
    attribute: str | None,
    perturbations: object,
    show: int,
) -> None:
    """`assert_eps_k_fair` of a smoothed model: its certificate over its own group."""
    __tracebackhide__ = True
    if perturbations is not None:
        raise ConfigurationError(
            "a SmoothedModel is certified over its own perturbations; drop perturbations= "
            "(or pass the perturber to pytest_fairness.smooth)"
        )
    if attribute is not None and attribute != model.attribute:
        raise ConfigurationError(
            f"attribute={attribute!r} but the smoothed model perturbs "
            f"{model.attribute!r}; pass the same attribute to smooth() and here"
        )
    cert = model.certify(text)
    if cert.k < k:
        raise ConfigurationError(
            f"k={k} but the smoothed model has only {cert.k} perturbation(s) of {text!r:.60}: "
            "it certifies (eps, |S|)-fairness; lower k, or smooth with a perturber that "
            "finds more mutations"
        )
    group = model.group(text)
    reached = cert.smoothed_max_log_ratio
    passed = reached <= eps + DEFAULT_TOL
    violations: list[Violation] = []
    if not passed and cert.worst_pair is not None:
        i, j, c = cert.worst_pair
        p = _group_perturbation(model, text, group, i, j)
        smoothed = cert.smoothed
        labels = model.labels
        violations.append(
            Violation.from_perturbation(
                p,
                original_score=float(smoothed[i][c]),
                perturbed_score=float(smoothed[j][c]),
                original_label=labels[int(np.argmax(smoothed[i]))],
                perturbed_label=labels[int(np.argmax(smoothed[j]))],
                measure=reached,
                detail=f"class {labels[c] if c < len(labels) else c}",
            )
        )
    result = FairnessResult(
        relation="eps_k_fairness",
        passed=passed,
        measurements=(
            Measurement("certified k = |S|", float(cert.k), float(k), ">="),
            Measurement(f"eps reached by the smoothed group (smoothing eps={cert.eps:g})",
                        reached, eps, "<="),
            Measurement("eps of the unsmoothed model", cert.raw_max_log_ratio),
        ),
        violations=tuple(violations),
        n_inputs=cert.k,
        n_violations=len(violations),
        extra={"certificate": cert.to_dict(), "group": list(group)},
    )
    _conclude(
        result,
        statement=f"the smoothed model must be ({eps:g}, {k})-fair on {text!r:.80} over "
        "its group {x0} u S (mt-nlp, Theorem 1 and Appendix B)",
        measure_name="log ratio",
        discrimination=reached,
        show=show,
        hint="smooth with eps <= the eps asserted: the certificate holds for the smoothing eps",
        inputs_title="the pair of the group attaining the largest log ratio (smoothed "
        "probabilities of that class)",
        stacklevel=4,
    )


def _group_perturbation(
    model: SmoothedModel, text: str, group: Sequence[str], i: int, j: int
) -> Perturbation:
    if i == 0 and j > 0:
        return model.perturbations(text)[j - 1]
    return perturbation_from_texts(group[i], group[j])


# --------------------------------------------------------------------------- counterfactual


def assert_counterfactual_fair(
    model: object,
    texts: Iterable[str],
    *,
    max_gap: float,
    swap: Callable[[str], Any] | None = None,
    statistic: str = "max",
    show: int = DEFAULT_SHOWN,
) -> None:
    """Counterfactual fairness (Garg et al.; APS paper, section 6.5): CF(x) =
    ||f(x) - f(x^)||_1 <= `max_gap`, x^ the gender counterfactual of x.

    f is the vector of class probabilities (for a binary model CF is twice the change of
    the positive probability). `statistic="max"` (default) bounds every pair;
    `statistic="mean"` bounds the average over pairs, the paper's aggregate. x^ comes from
    `perturb.gender_swap` (every definitional gender word swapped) or `swap(text)`; texts
    without gendered words are skipped and counted, and none at all is an error.
    """
    __tracebackhide__ = True
    bound = _bound(max_gap, "max_gap")
    stat = _statistic(statistic)
    shown = _show(show)
    found = counterfactual(model, texts, swap=swap)
    res = found.result
    value = res.max if stat == "max" else res.mean
    order = sorted(range(len(found.pairs)), key=lambda i: -found.gaps[i])
    over = [i for i in order if found.gaps[i] > bound]
    listed = over if over or value <= bound else order
    result = FairnessResult(
        relation="counterfactual_fairness",
        passed=value <= bound,
        measurements=(
            Measurement(f"{stat} CF", value, bound),
            Measurement("mean CF" if stat == "max" else "max CF",
                        res.mean if stat == "max" else res.max),
        ),
        violations=tuple(
            found.pairs[i].violation(measure=float(found.gaps[i]))
            for i in listed[:RECORDED_VIOLATIONS]
        ),
        n_inputs=len(found.pairs),
        n_violations=len(over),
        extra={"cf_mean": res.mean, "cf_max": res.max,
               "n_without_counterfactual": found.n_without_counterfactual},
    )
    _conclude(
        result,
        statement=f"swapping gender words must not change the prediction ({stat} "
        f"||f(x) - f(x^)||_1 <= {bound:g}; APS paper, section 6.5)",
        measure_name="CF",
        discrimination=res.max,
        show=shown,
        notes=_skipped(found.n_without_counterfactual, "text(s) without gendered words")
        + _skipped(found.n_skipped, "pair(s) the model did not score"),
    )


# --------------------------------------------------------------------------- distributions


def _scores_1d(values: object, name: str) -> Any:
    arr = np.asarray(values, dtype=np.float64) if not isinstance(values, str) else None
    if arr is None or arr.ndim != 1 or arr.size == 0:
        raise ConfigurationError(f"{name} must be a non-empty 1-D sequence of scores")
    return arr


def assert_wasserstein_below(
    scores_a: object,
    scores_b: object = None,
    max_w1: float | None = None,
    *,
    confidence: float | None = None,
    seed: int | None = None,
) -> None:
    """W1(P_a, P_b) <= `max_w1` (counterfactual-sentiment-bias, section 3, eq. 1: for
    scores in [0, 1] W1 is the average demographic disparity over thresholds).

    Pass two samples of scores, or one mapping group -> scores: then every group's W1 to
    the pooled scores of all groups must be within the bound (the terms of Total Group
    Fairness, eq. 4, whose sum is reported). With `confidence` the verdict uses the
    bootstrap interval's lower end (each sample resampled on its own): the test fails
    only when the whole interval lies above the bound.
    """
    __tracebackhide__ = True
    if max_w1 is None:
        raise ConfigurationError("pass max_w1=<the largest Wasserstein-1 distance allowed>")
    bound = _bound(max_w1, "max_w1")
    conf = None if confidence is None else check_confidence(confidence)
    rng_seed = recording.current_settings().seed if seed is None else seed
    if isinstance(scores_a, Mapping):
        if scores_b is not None:
            raise ConfigurationError("pass a mapping group -> scores, or two samples, not both")
        if len(scores_a) < 2:
            raise ConfigurationError("a mapping of groups needs at least two groups to compare")
        groups = {str(g): _scores_1d(v, f"scores of group {g!r}") for g, v in scores_a.items()}
        pooled = np.concatenate(list(groups.values()))
        pairs = {f"W1({g}, all)": (v, pooled) for g, v in groups.items()}
    else:
        a = _scores_1d(scores_a, "scores_a")
        b = _scores_1d(scores_b, "scores_b")
        pairs = {"W1(a, b)": (a, b)}
    measurements: list[Measurement] = []
    values = {}
    for name, (x, y) in pairs.items():
        values[name] = wasserstein(x, y)
        ci = None
        if conf is not None:
            ci = bootstrap_wasserstein(
                x, y, n_resamples=N_RESAMPLES, confidence=conf, seed=rng_seed
            )
        measurements += _measure(name, values[name], bound, ci)
    if len(pairs) > 1:
        measurements.append(Measurement("total group fairness (sum)", sum(values.values())))
    result = FairnessResult(
        relation="wasserstein",
        passed=all(x.holds for x in measurements),
        measurements=tuple(measurements),
        n_inputs=sum(len(x) for x, _ in pairs.values()) if len(pairs) > 1 else
        sum(len(v) for v in pairs["W1(a, b)"]),
        extra={"w1": values},
    )
    _conclude(
        result,
        statement=f"score distributions must be within W1 <= {bound:g} "
        "(counterfactual-sentiment-bias, section 3)",
        measure_name="W1",
        discrimination=max(values.values()),
    )


def assert_bias_auc_above(
    scores: object,
    labels: object,
    in_subgroup: object,
    min_auc: float,
    metrics: Sequence[str] = _AUC_METRICS,
) -> None:
    """Borkan et al.'s subgroup AUC, BPSN AUC and BNSP AUC >= `min_auc`
    (cross-geographic-toxicity-bias, section 5.2).

    `scores` are the model's scores of the positive (toxic) class, `labels` the true
    labels (1/True positive) and `in_subgroup` marks the examples that mention the
    subgroup. `metrics` picks which AUCs are bounded; AEG+ and AEG- are reported.
    """
    __tracebackhide__ = True
    bound = _bound(min_auc, "min_auc", upper=1.0)
    if isinstance(metrics, str) or not metrics:
        raise ConfigurationError(
            f"metrics must be a non-empty sequence of {', '.join(_AUC_METRICS)}"
        )
    unknown = [x for x in metrics if x not in _AUC_METRICS]
    if unknown:
        raise ConfigurationError(
            f"unknown bias AUC metric(s) {unknown}; choose from {', '.join(_AUC_METRICS)}"
        )
    aucs = bias_aucs(scores, labels, in_subgroup)
    measurements = [Measurement(x, aucs[x], bound, ">=") for x in metrics]
    measurements += [Measurement(x, aucs[x]) for x in ("aeg_positive", "aeg_negative")]
    result = FairnessResult(
        relation="bias_auc",
        passed=all(x.holds for x in measurements),
        measurements=tuple(measurements),
        n_inputs=len(np.asarray(scores)),
        extra={"aucs": aucs},
    )
    _conclude(
        result,
        statement=f"the model must separate classes as well inside the subgroup as outside "
        f"(AUCs >= {bound:g}; cross-geographic-toxicity-bias, section 5.2)",
        measure_name="AUC",
        discrimination=1.0 - min(aucs[x] for x in metrics),
        hint="a low BPSN AUC means the subgroup's non-toxic examples score like toxic ones",
    )


# --------------------------------------------------------------------------- APS


def _word_spans(text: str, words: Sequence[str]) -> tuple[tuple[int, int], ...]:
    spans = []
    for word in dict.fromkeys(words):
        for found in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE):
            spans.append((found.start(), found.end()))
    return tuple(sorted(set(spans)))


def assert_prediction_sensitivity_below(
    model: object,
    texts: Iterable[str],
    max_value: float,
    variant: str = "P1",
    *,
    statistic: str = "max",
    show: int = DEFAULT_SHOWN,
    **kw: Any,
) -> None:
    """Accumulated prediction sensitivity P = w^T J v <= `max_value` (APS paper, section
    3, Definition 1; variants P1-P5 of section 6.5).

    `model` must be white-box (a torch or transformers model with its tokenizer); `kw`
    goes to `metrics.sensitivity.prediction_sensitivity` (class_weights,
    protected_model, gendered_words, batch_size, ...). `statistic="max"` (default) bounds
    every text, `"mean"` the average. The texts listed have the largest P, with the
    gendered words marked for P4/P5.
    """
    __tracebackhide__ = True
    from ..metrics.sensitivity import prediction_sensitivity

    bound = _bound(max_value, "max_value")
    stat = _statistic(statistic)
    shown = _show(show)
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to measure")
    res = prediction_sensitivity(model, items, variant, **kw)  # type: ignore[arg-type]
    values = res.values
    value = res.max if stat == "max" else res.mean
    order = sorted(range(len(values)), key=lambda i: -values[i])
    over = [i for i in order if values[i] > bound]
    listed = over if over or value <= bound else order
    violations = []
    for i in listed[:RECORDED_VIOLATIONS]:
        t = res.per_text[i]
        spans = _word_spans(t.text, t.protected_words)
        violations.append(
            Violation(
                original=t.text,
                perturbed=t.text,
                original_spans=spans,
                perturbed_spans=spans,
                measure=t.value,
                detail=f"{res.variant} over {t.n_tokens} tokens",
            )
        )
    result = FairnessResult(
        relation="prediction_sensitivity",
        passed=value <= bound,
        measurements=(
            Measurement(f"{stat} {res.variant}", value, bound),
            Measurement(f"mean {res.variant}" if stat == "max" else f"max {res.variant}",
                        res.mean if stat == "max" else res.max),
        ),
        violations=tuple(violations),
        n_inputs=len(values),
        n_violations=len(over),
        extra={"variant": res.variant, "mean": res.mean, "max": res.max},
    )
    _conclude(
        result,
        statement=f"the prediction must not depend on the input words beyond {stat} "
        f"{res.variant} <= {bound:g} (APS paper, section 3)",
        measure_name=res.variant,
        discrimination=res.max,
        show=shown,
        inputs_title="the most sensitive texts (protected words in [[...]])",
    )
