"""Counterfactual fairness: CF(x) = ||f(x) - f(x^)||_1 over gender counterfactuals.

Garg et al., as used in the accumulated-prediction-sensitivity paper, section 6.5: x^ is
the text with every definitional gender word swapped. `counterfactual` computes CF per
pair; `assert_counterfactual_fair` bounds its maximum or mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError, NothingJudgedError
from ..metrics.counterfactual import CounterfactualResult, counterfactual_fairness
from ..models.classifiers.scoring import ScoredPair, coerce_model, score_pairs
from ..perturb.coerce import gender_swapper
from ..results import FairnessResult, Measurement
from ..types import FloatArray
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_show,
    check_statistic,
    conclude,
    judged_nothing,
    on_empty,
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
    items, pairs, without, skipped = _scored_pairs(model, texts, swap)
    if not pairs:
        raise _none_scored(skipped, without)
    return _analysis(items, pairs, without, skipped)


def _scored_pairs(
    model: object, texts: Iterable[str], swap: Callable[[str], Any] | str | None
) -> tuple[list[str], list[ScoredPair], int, int]:
    """(texts, scored pairs, texts without a counterfactual, pairs the model skipped)."""
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to swap")
    m = coerce_model(model)
    resolved = gender_swapper(swap)
    per_text = resolved.many(items)
    flat = [p for ps in per_text for p in ps]
    without = sum(1 for ps in per_text if not ps)
    if not flat:
        raise ConfigurationError(
            f"none of the {len(items)} texts has a gender counterfactual ({resolved.describe} "
            "changed nothing): pass texts with gendered words (he, she, man, woman, ...) or "
            "a swap= callable"
        )
    pairs, _, skipped = score_pairs(m, flat)
    return items, pairs, without, skipped


def _none_scored(skipped: int, without: int) -> NothingJudgedError:
    more = f"; {without} text(s) without gendered words" if without else ""
    return judged_nothing(
        "counterfactual_fairness",
        f"the model scored none of the {skipped} counterfactual pair(s) (skipped: {skipped} "
        f"pair(s) the model did not score{more})",
    )


def _analysis(
    items: list[str], pairs: list[ScoredPair], without: int, skipped: int
) -> CounterfactualAnalysis:
    result = counterfactual_fairness(
        np.stack([p.original_output for p in pairs]), np.stack([p.perturbed_output for p in pairs])
    )
    return CounterfactualAnalysis(
        tuple(pairs), result.per_pair, result, len(items), without, skipped
    )


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
    bound = check_bound(max_gap, "max_gap")
    stat = check_statistic(statistic)
    shown = check_show(show)
    items, pairs, without, skipped = _scored_pairs(model, texts, swap)
    if not pairs:
        on_empty(_none_scored(skipped, without))
    found = _analysis(items, pairs, without, skipped)
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
               "n_without_counterfactual": found.n_without_counterfactual,
               **skipped_counts({
                   "text(s) without gendered words": found.n_without_counterfactual,
                   "pair(s) the model did not score": found.n_skipped})},
    )
    conclude(
        result,
        statement=f"swapping words by {gender_swapper(swap).describe} must not change the "
        f"prediction ({stat} "
        f"||f(x) - f(x^)||_1 <= {bound:g}; APS paper, section 6.5)",
        measure_name="CF",
        discrimination=res.max,
        show=shown,
        notes=skipped_note(found.n_without_counterfactual, "text(s) without gendered words")
        + skipped_note(found.n_skipped, "pair(s) the model did not score"),
    )
