"""(eps, k)-fairness (mt-nlp, Definition 3.1) and its certificate for smoothed models.

A model f and a text x0 are (eps, k)-fair when some k mutations S of x0 have
f(x) <= e^eps f(x') elementwise for all x, x' in {x0} u S. `assert_eps_k_fair` decides it
exactly over the candidate mutations (`metrics.epsk`); for a `SmoothedModel` it checks the
certificate of mt-nlp's neutral layer (Theorem 1, Appendix B).

Both are relations of the pipeline (`checks.pipeline`): `_resolve` (the model converted
once, the candidate mutations made once), `EpsKRelation.measure` (score x0 and its
mutations, then the pure `metrics.eps_k_fair`, `max_k_at_eps`, `min_eps_at_k` and
`farther_than`), `EpsKRelation.present`; `CertifiedEpsKRelation` measures the smoothed
model's certificate instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..analysis.mitigation import SmoothedModel
from ..errors import ConfigurationError
from ..metrics import eps_k_fair, max_k_at_eps, min_eps_at_k
from ..metrics.epsk import DEFAULT_TOL, EpsKDecision, EpsKResult, farther_than
from ..metrics.smoothing import Certificate
from ..models.classifiers.scoring import Scores, coerce_model, labels_of, score_texts
from ..models.classifiers.thresholds import decision_threshold
from ..perturb.coerce import coerce_cases, perturbation_from_texts, resolve_perturber
from ..results import Measurement, Violation
from ..types import Perturbation, TextModel
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    judged_nothing,
    run_threshold,
    skipped_counts,
    skipped_note,
)

__all__ = [
    "assert_eps_k_fair",
]

# A ConfigurationError raised in a helper here is traced to the user's call, not to us.


def _eps_k_args(eps: object, k: object) -> tuple[float, int]:
    e = check_bound(eps, "eps")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigurationError(
            f"k must be an integer >= 1 (how many mutations must be eps-close), got "
            f"{type(k).__name__} {k!r:.60}"
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


@dataclass(frozen=True, eq=False)
class EpsKInputs:
    """The resolved inputs: the model converted once, x0, its candidate mutations, the
    asked (eps, k)."""

    model: TextModel
    text: str
    eps: float
    k: int
    candidates: tuple[Perturbation, ...]


@dataclass(frozen=True, eq=False)
class EpsKMeasure:
    """Definition 3.1 decided over the candidates the model scored, with the witnesses
    and the mutations farther than eps (listed only when not fair)."""

    candidates: tuple[Perturbation, ...]
    n_skipped: int
    decision: EpsKDecision
    wide: EpsKResult
    """The largest set at eps (`max_k_at_eps`)."""
    tight: EpsKResult
    """The tightest k-set (`min_eps_at_k`)."""
    far: tuple[Violation, ...]


_SKIPPED = "mutation(s) the model did not score"


class EpsKRelation(Relation[EpsKInputs, EpsKMeasure]):
    """(eps, k)-fairness of a model and a text (mt-nlp, Definition 3.1), decided exactly."""

    name = "eps_k_fairness"

    def measure(self, inputs: EpsKInputs) -> EpsKMeasure:
        text, cands, e, kk = inputs.text, inputs.candidates, inputs.eps, inputs.k
        scores = score_texts(inputs.model, [text, *(p.perturbed for p in cands)])
        if not scores.scored(text):
            raise judged_nothing(
                self.name, f"the model did not score the text itself, so none of its "
                f"{len(cands)} candidate mutation(s) was compared (skipped: 1 text the model "
                "did not score)")
        scored = tuple(p for p in cands if scores.scored(p.perturbed))
        n_skipped = len(cands) - len(scored)
        if not scored:
            raise judged_nothing(
                self.name, f"the model scored none of the {len(cands)} candidate "
                f"mutation(s) (skipped: {n_skipped} {_SKIPPED})")
        if kk > len(scored):
            raise ConfigurationError(
                f"k={kk} but the model scored only {len(scored)} of the {len(cands)} "
                f"candidate mutation(s) of {text!r:.60} ({n_skipped} skipped: not scored by "
                "the model): Definition 3.1 needs k of them; lower k, or pass inputs the "
                "model scores"
            )
        orig = scores.row(text)
        rows = np.stack([scores.row(p.perturbed) for p in scored])
        decision = eps_k_fair(orig, rows, e, kk)
        far = () if decision.fair else _far_mutations(inputs.model, text, scored, scores,
                                                      orig, rows, e)
        return EpsKMeasure(scored, n_skipped, decision, max_k_at_eps(orig, rows, e),
                           min_eps_at_k(orig, rows, kk), far)

    def present(self, inputs: EpsKInputs, measured: EpsKMeasure, *, show: int) -> Presented:
        e, kk, cands, decision = inputs.eps, inputs.k, measured.candidates, measured.decision
        wide, tight = measured.wide.witness, measured.tight.witness
        return Presented(
            measurements=[
                Measurement(f"largest k at eps={e:g}", float(decision.max_k), float(kk), ">="),
                Measurement(f"smallest eps at k={kk}", decision.min_eps, e, "<="),
            ],
            statement=f"{inputs.text!r:.80} must have {kk} mutation(s) S with f(x) <= "
            f"e^{e:g} f(x') for all x, x' in {{x0}} u S (mt-nlp, Definition 3.1)",
            measure_name="log ratio",
            discrimination=decision.min_eps,
            violations=measured.far[:RECORDED_VIOLATIONS],
            n_inputs=len(cands),
            n_violations=len(measured.far),
            notes=[
                f"largest k at eps={e:g}: {decision.max_k} (witness: {_quote(cands, wide)})",
                f"smallest eps at k={kk}: {decision.min_eps:.4g} "
                f"(witness: {_quote(cands, tight)})",
                *skipped_note(measured.n_skipped, _SKIPPED),
            ],
            extra={
                "decision": decision.to_dict(),
                "witness_at_eps": [cands[i].perturbed for i in wide],
                "witness_at_k": [cands[i].perturbed for i in tight],
                **skipped_counts({_SKIPPED: measured.n_skipped}),
            },
            hint="pytest_fairness.smooth(model, ..., eps=...) certifies this bound (mt-nlp, "
            "Theorem 1)",
            inputs_title=f"mutations farther than eps={e:g} from the original (log ratio "
            "max_c |log f(x)_c - log f(x')_c|)",
            passed=decision.fair,
        )


@dataclass(frozen=True, eq=False)
class CertifiedInputs:
    """The resolved inputs of a smoothed model's certificate."""

    model: SmoothedModel
    text: str
    eps: float
    k: int


@dataclass(frozen=True, eq=False)
class CertifiedMeasure:
    certificate: Certificate
    group: tuple[str, ...]


class CertifiedEpsKRelation(Relation[CertifiedInputs, CertifiedMeasure]):
    """(eps, k)-fairness of a `SmoothedModel` by its certificate (mt-nlp, Theorem 1 and
    Appendix B): the group {x0} u S of its own perturbations, smoothed, reaches eps."""

    name = "eps_k_fairness"

    def measure(self, inputs: CertifiedInputs) -> CertifiedMeasure:
        cert = inputs.model.certify(inputs.text)
        if cert.k < inputs.k:
            raise ConfigurationError(
                f"k={inputs.k} but the smoothed model has only {cert.k} perturbation(s) of "
                f"{inputs.text!r:.60}: it certifies (eps, |S|)-fairness; lower k, or smooth "
                "with a perturber that finds more mutations"
            )
        return CertifiedMeasure(cert, tuple(inputs.model.group(inputs.text)))

    def present(self, inputs: CertifiedInputs, measured: CertifiedMeasure, *,
                show: int) -> Presented:
        cert, eps, k = measured.certificate, inputs.eps, inputs.k
        reached = cert.smoothed_max_log_ratio
        passed = reached <= eps + DEFAULT_TOL
        violations = [] if passed else _worst_pair(inputs, measured)
        return Presented(
            measurements=[
                Measurement("certified k = |S|", float(cert.k), float(k), ">="),
                Measurement(f"eps reached by the smoothed group (smoothing eps={cert.eps:g})",
                            reached, eps, "<="),
                Measurement("eps of the unsmoothed model", cert.raw_max_log_ratio),
            ],
            statement=f"the smoothed model must be ({eps:g}, {k})-fair on "
            f"{inputs.text!r:.80} over its group {{x0}} u S (mt-nlp, Theorem 1 and "
            "Appendix B)",
            measure_name="log ratio",
            discrimination=reached,
            violations=violations,
            n_inputs=cert.k,
            n_violations=len(violations),
            extra={"certificate": cert.to_dict(), "group": list(measured.group)},
            hint="smooth with eps <= the eps asserted: the certificate holds for the "
            "smoothing eps",
            inputs_title="the pair of the group attaining the largest log ratio (smoothed "
            "probabilities of that class)",
            passed=passed,
        )


EPS_K = EpsKRelation()
CERTIFIED_EPS_K = CertifiedEpsKRelation()


def _resolve(model: object, text: str, e: float, k: int, attribute: str | None,
             perturbations: object) -> EpsKInputs:
    m = coerce_model(model)
    cands = _candidates(text, attribute, perturbations)
    if k > len(cands):
        raise ConfigurationError(
            f"k={k} but {text!r:.60} has only {len(cands)} candidate mutation(s): "
            "Definition 3.1 needs k of them; lower k or pass more perturbations"
        )
    return EpsKInputs(m, text, e, k, tuple(cands))


def _resolve_certified(model: SmoothedModel, text: str, eps: float, k: int,
                       attribute: str | None, perturbations: object) -> CertifiedInputs:
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
    return CertifiedInputs(model, text, eps, k)


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
    if isinstance(model, SmoothedModel):
        smoothed = model
        CERTIFIED_EPS_K.check(
            lambda: _resolve_certified(smoothed, text, e, kk, attribute, perturbations),
            show=show, stacklevel=4)
        return
    if perturbations is None and attribute is None:
        raise ConfigurationError(
            f"assert_eps_k_fair needs the mutations of {text!r:.60} to compare it with: pass "
            'attribute= to generate them (e.g. attribute="gender") or perturbations=[...] '
            "(texts or Perturbations of the text)"
        )
    EPS_K.check(lambda: _resolve(model, text, e, kk, attribute, perturbations),
                show=show, stacklevel=4)


def _far_mutations(
    model: TextModel, text: str, cands: Sequence[Perturbation], scores: Scores,
    orig: np.ndarray, rows: np.ndarray, eps: float,
) -> tuple[Violation, ...]:
    """The mutations farther than eps from `text` (`metrics.farther_than`), farthest
    first: the inputs that keep a k-set from existing (Definition 3.1)."""
    labels = labels_of(
        model, scores,
        decision_threshold(model, run_threshold=run_threshold()),
    )
    return tuple(
        Violation.from_perturbation(
            cands[i],
            original_score=scores.score(text),
            perturbed_score=scores.score(cands[i].perturbed),
            original_label=labels[text],
            perturbed_label=labels[cands[i].perturbed],
            measure=ratio,
        )
        for i, ratio in farther_than(orig, rows, eps)
    )


def _quote(cands: Sequence[Perturbation], witness: Sequence[int]) -> str:
    if not witness:
        return "none"
    shown = [repr(cands[i].perturbed[:40]) for i in witness[:3]]
    more = f" and {len(witness) - 3} more" if len(witness) > 3 else ""
    return ", ".join(shown) + more


def _worst_pair(inputs: CertifiedInputs, measured: CertifiedMeasure) -> list[Violation]:
    """The pair of the smoothed group attaining the largest log ratio, as a violation."""
    cert = measured.certificate
    if cert.worst_pair is None:
        return []
    i, j, c = cert.worst_pair
    p = _group_perturbation(inputs.model, inputs.text, measured.group, i, j)
    smoothed = cert.smoothed
    labels = inputs.model.labels
    return [
        Violation.from_perturbation(
            p,
            original_score=float(smoothed[i][c]),
            perturbed_score=float(smoothed[j][c]),
            original_label=labels[int(np.argmax(smoothed[i]))],
            perturbed_label=labels[int(np.argmax(smoothed[j]))],
            measure=cert.smoothed_max_log_ratio,
            detail=f"class {labels[c] if c < len(labels) else c}",
        )
    ]


def _group_perturbation(
    model: SmoothedModel, text: str, group: Sequence[str], i: int, j: int
) -> Perturbation:
    if i == 0 and j > 0:
        return model.perturbations(text)[j - 1]
    return perturbation_from_texts(group[i], group[j])
