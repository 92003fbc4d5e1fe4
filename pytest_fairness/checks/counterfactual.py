"""Counterfactual fairness: CF(x) = ||f(x) - f(x^)||_1 over gender counterfactuals.

Garg et al., as used in the accumulated-prediction-sensitivity paper, section 6.5: x^ is
the text with every definitional gender word swapped. `counterfactual` computes CF per
pair; `assert_counterfactual_fair` bounds its maximum or mean.

Both run the relation pipeline's parts (`checks.pipeline`): `_resolve` (the texts checked,
the model converted and the swap resolved once, the counterfactuals made once), `_measure`
(score the pairs, then the pure `metrics.counterfactual_fairness`), and
`CounterfactualRelation.present`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import ConfigurationError, NothingJudgedError
from ..metrics.counterfactual import CounterfactualResult, counterfactual_fairness
from ..models.classifiers.scoring import ScoredPair, coerce_model, score_pairs
from ..perturb.coerce import gender_swapper
from ..types import FloatArray, Perturbation, TextModel
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    Statistic,
    by_statistic,
    check_bound,
    check_statistic,
    judged_nothing,
    skipped_counts,
    skipped_note,
)

__all__ = [
    "CounterfactualAnalysis",
    "assert_counterfactual_fair",
    "counterfactual",
]


# --------------------------------------------------------------------------- counterfactual


@dataclass(frozen=True, eq=False)
class CounterfactualAnalysis:
    """CF = ||f(x) - f(x^)||_1 per gender counterfactual (APS paper, section 6.5)."""

    pairs: tuple[ScoredPair, ...]
    gaps: FloatArray
    """CF of each pair, over the class probabilities."""
    result: CounterfactualResult
    n_texts: int
    n_without_counterfactual: int
    """Texts the swap left unchanged (no gendered word), skipped."""
    n_skipped: int
    """Pairs the model did not score (too long for a remote scorer)."""


def counterfactual(
    model: object, texts: Iterable[str], *, swap: Callable[[str], Any] | str | None = None
) -> CounterfactualAnalysis:
    """Counterfactual fairness of Garg et al. as in the APS paper, section 6.5.

    x^ is the gender counterfactual of x: `perturb.gender_swap` by default (every
    definitional gender word swapped), or `swap(text)` returning a text, a Perturbation,
    several, or None. CF(x) = ||f(x) - f(x^)||_1 over the class probabilities
    (`predict_proba`; for a binary model twice the change of the positive probability).
    Texts without a counterfactual are skipped and counted; none at all raises
    `ConfigurationError`. Pairs the model did not score are skipped and counted; none
    scored raises `NothingJudgedError`.
    """
    return _measure(_resolve(model, texts, swap))


@dataclass(frozen=True, eq=False)
class CounterfactualInputs:
    """The resolved inputs: the model converted once, the counterfactual pairs made once,
    the swap's description, and (for the assertion) the bound and statistic."""

    model: TextModel
    n_texts: int
    perturbations: tuple[Perturbation, ...]
    n_without: int
    describe: str
    bound: float = 0.0
    stat: Statistic = "max"


def _resolve(model: object, texts: Iterable[str], swap: Callable[[str], Any] | str | None,
             ) -> CounterfactualInputs:
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to swap")
    m = coerce_model(model)
    resolved = gender_swapper(swap)
    per_text = resolved.many(items)
    flat = tuple(p for ps in per_text for p in ps)
    if not flat:
        raise ConfigurationError(
            f"none of the {len(items)} texts has a gender counterfactual ({resolved.describe} "
            "changed nothing): pass texts with gendered words (he, she, man, woman, ...) or "
            "a swap= callable"
        )
    return CounterfactualInputs(m, len(items), flat, sum(1 for ps in per_text if not ps),
                                resolved.describe)


def _none_scored(skipped: int, without: int) -> NothingJudgedError:
    more = f"; {without} text(s) without gendered words" if without else ""
    return judged_nothing(
        "counterfactual_fairness",
        f"the model scored none of the {skipped} counterfactual pair(s) (skipped: {skipped} "
        f"pair(s) the model did not score{more})",
    )


def _measure(inputs: CounterfactualInputs) -> CounterfactualAnalysis:
    """Score the pairs, then CF per pair (`metrics.counterfactual_fairness`)."""
    pairs, _, skipped = score_pairs(inputs.model, inputs.perturbations)
    if not pairs:
        raise _none_scored(skipped, inputs.n_without)
    result = counterfactual_fairness(
        np.stack([p.original_output for p in pairs]), np.stack([p.perturbed_output for p in pairs])
    )
    return CounterfactualAnalysis(
        tuple(pairs), result.per_pair, result, inputs.n_texts, inputs.n_without, skipped
    )


class CounterfactualRelation(Relation[CounterfactualInputs, CounterfactualAnalysis]):
    """Counterfactual fairness (Garg et al.; APS paper, section 6.5): the max or mean CF
    over the pairs is at most the bound."""

    name = "counterfactual_fairness"

    def measure(self, inputs: CounterfactualInputs) -> CounterfactualAnalysis:
        return _measure(inputs)

    def present(self, inputs: CounterfactualInputs, measured: CounterfactualAnalysis, *,
                show: int) -> Presented:
        res, gaps, bound, stat = measured.result, measured.gaps, inputs.bound, inputs.stat
        judged = by_statistic(stat, "CF", gaps, res.max, res.mean, bound)
        without = "text(s) without gendered words"
        unscored = "pair(s) the model did not score"
        return Presented(
            measurements=judged.measurements,
            statement=f"swapping words by {inputs.describe} must not change the "
            f"prediction ({stat} "
            f"||f(x) - f(x^)||_1 <= {bound:g}; APS paper, section 6.5)",
            measure_name="CF",
            discrimination=res.max,
            violations=[measured.pairs[i].violation(measure=float(gaps[i]))
                        for i in judged.listed[:RECORDED_VIOLATIONS]],
            n_inputs=len(measured.pairs),
            n_violations=len(judged.over),
            notes=skipped_note(measured.n_without_counterfactual, without)
            + skipped_note(measured.n_skipped, unscored),
            extra={"cf_mean": res.mean, "cf_max": res.max,
                   "n_without_counterfactual": measured.n_without_counterfactual,
                   **skipped_counts({without: measured.n_without_counterfactual,
                                     unscored: measured.n_skipped})},
        )


COUNTERFACTUAL = CounterfactualRelation()


def _resolve_bounded(model: object, texts: Iterable[str], max_gap: object,
                     swap: Callable[[str], Any] | str | None, statistic: object,
                     ) -> CounterfactualInputs:
    bound = check_bound(max_gap, "max_gap")
    stat = check_statistic(statistic)
    return replace(_resolve(model, texts, swap), bound=bound, stat=stat)


def assert_counterfactual_fair(
    model: object,
    texts: Iterable[str],
    *,
    max_gap: float,
    swap: Callable[[str], Any] | str | None = None,
    statistic: str = "max",
    show: int = DEFAULT_SHOWN,
) -> None:
    """Counterfactual fairness (Garg et al.; APS paper, section 6.5): CF(x) =
    ||f(x) - f(x^)||_1 <= `max_gap`, x^ the gender counterfactual of x.

    f is the vector of class probabilities (for a binary model CF is twice the change of
    the positive probability). `statistic="max"` (default) bounds every pair;
    `statistic="mean"` bounds the average over pairs, the paper's aggregate. x^ comes from
    `perturb.gender_swap` (every definitional gender word swapped), `swap(text)`, or the
    registered perturbation kind `swap` names (``swap="religion_words"``); texts
    without gendered words are skipped and counted, and none at all is an error; so are
    pairs the model did not score, and when it scored none the relation judged nothing
    and fails (`--fairness-on-empty`).
    """
    __tracebackhide__ = True
    COUNTERFACTUAL.check(
        lambda: _resolve_bounded(model, texts, max_gap, swap, statistic),
        show=show, stacklevel=4)
