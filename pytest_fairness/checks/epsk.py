"""(eps, k)-fairness (mt-nlp, Definition 3.1) and its certificate for smoothed models.

A model f and a text x0 are (eps, k)-fair when some k mutations S of x0 have
f(x) <= e^eps f(x') elementwise for all x, x' in {x0} u S. `assert_eps_k_fair` decides it
exactly over the candidate mutations (`metrics.epsk`); for a `SmoothedModel` it checks the
certificate of mt-nlp's neutral layer (Theorem 1, Appendix B).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..analysis.mitigation import SmoothedModel
from ..errors import ConfigurationError
from ..metrics import eps_k_fair, max_k_at_eps, min_eps_at_k, pairwise_log_ratio
from ..metrics.epsk import DEFAULT_TOL
from ..models.classifiers.scoring import Scores, coerce_model, labels_of, score_texts
from ..models.classifiers.thresholds import decision_threshold
from ..perturb.coerce import coerce_cases, perturbation_from_texts, resolve_perturber
from ..results import FairnessResult, Measurement, Violation
from ..types import Perturbation, TextModel
from .failure import DEFAULT_SHOWN
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_show,
    conclude,
    judged_nothing,
    on_empty,
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
    shown = check_show(show)
    if perturbations is None and attribute is None and not isinstance(model, SmoothedModel):
        raise ConfigurationError(
            f"assert_eps_k_fair needs the mutations of {text!r:.60} to compare it with: pass "
            'attribute= to generate them (e.g. attribute="gender") or perturbations=[...] '
            "(texts or Perturbations of the text)"
        )
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
    if not scores.scored(text):
        on_empty(judged_nothing(
            "eps_k_fairness", f"the model did not score the text itself, so none of its "
            f"{len(cands)} candidate mutation(s) was compared (skipped: 1 text the model did "
            "not score)"))
    scored = [p for p in cands if scores.scored(p.perturbed)]
    n_skipped = len(cands) - len(scored)
    if not scored:
        on_empty(judged_nothing(
            "eps_k_fairness", f"the model scored none of the {len(cands)} candidate "
            f"mutation(s) (skipped: {n_skipped} mutation(s) the model did not score)"))
    if kk > len(scored):
        raise ConfigurationError(
            f"k={kk} but the model scored only {len(scored)} of the {len(cands)} candidate "
            f"mutation(s) of {text!r:.60} ({n_skipped} skipped: not scored by the model): "
            "Definition 3.1 needs k of them; lower k, or pass inputs the model scores"
        )
    cands = scored
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
            **skipped_counts({"mutation(s) the model did not score": n_skipped}),
        },
    )
    notes = [
        f"largest k at eps={e:g}: {decision.max_k} (witness: {_quote(cands, wide.witness)})",
        f"smallest eps at k={kk}: {decision.min_eps:.4g} "
        f"(witness: {_quote(cands, tight.witness)})",
        *skipped_note(n_skipped, "mutation(s) the model did not score"),
    ]
    conclude(
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
        decision_threshold(model, run_threshold=run_threshold()),
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
    conclude(
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
