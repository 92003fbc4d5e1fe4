"""Accumulated prediction sensitivity (APS paper, section 3, Definition 1; 6.3-6.5).

`assert_prediction_sensitivity_below` bounds P = w^T J v of a white-box model over texts;
the gradients come from `pytest_fairness.analysis.gradients` (torch is imported only when
it runs). The relation is on the pipeline of `checks.pipeline`: `_resolve` (the bound,
statistic and texts checked once), `SensitivityRelation.measure` (P per text) and
`SensitivityRelation.present`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError
from ..metrics.sensitivity import SensitivityResult
from ..results import Violation
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    Statistic,
    by_statistic,
    check_bound,
    check_statistic,
)

__all__ = [
    "assert_prediction_sensitivity_below",
]


def _word_spans(text: str, words: Sequence[str]) -> tuple[tuple[int, int], ...]:
    spans = []
    for word in dict.fromkeys(words):
        for found in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE):
            spans.append((found.start(), found.end()))
    return tuple(sorted(set(spans)))


@dataclass(frozen=True, eq=False)
class SensitivityInputs:
    """The checked inputs: the model (converted by the gradient analysis), the texts, the
    variant and its options, the bound and statistic."""

    model: object
    texts: tuple[str, ...]
    variant: str
    options: Mapping[str, Any]
    bound: float
    stat: Statistic


class SensitivityRelation(Relation[SensitivityInputs, SensitivityResult]):
    """Accumulated prediction sensitivity P = w^T J v (APS paper, section 3, Definition 1)
    of each text, its max or mean at most the bound."""

    name = "prediction_sensitivity"

    def measure(self, inputs: SensitivityInputs) -> SensitivityResult:
        from ..analysis.gradients import prediction_sensitivity

        return prediction_sensitivity(inputs.model, list(inputs.texts),
                                      inputs.variant,  # type: ignore[arg-type]
                                      **inputs.options)

    def present(self, inputs: SensitivityInputs, measured: SensitivityResult, *,
                show: int) -> Presented:
        res, bound, stat = measured, inputs.bound, inputs.stat
        judged = by_statistic(stat, res.variant, res.values, res.max, res.mean, bound)
        violations = []
        for i in judged.listed[:RECORDED_VIOLATIONS]:
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
        return Presented(
            measurements=judged.measurements,
            statement=f"the prediction must not depend on the input words beyond {stat} "
            f"{res.variant} <= {bound:g} (APS paper, section 3)",
            measure_name=res.variant,
            discrimination=res.max,
            violations=violations,
            n_inputs=len(res.values),
            n_violations=len(judged.over),
            extra={"variant": res.variant, "mean": res.mean, "max": res.max},
            inputs_title="the most sensitive texts (protected words in [[...]])",
        )


SENSITIVITY = SensitivityRelation()


def _resolve(model: object, texts: Iterable[str], max_value: object, variant: str,
             statistic: object, options: Mapping[str, Any]) -> SensitivityInputs:
    bound = check_bound(max_value, "max_value")
    stat = check_statistic(statistic)
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to measure")
    return SensitivityInputs(model, tuple(items), variant, dict(options), bound, stat)


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
    goes to `pytest_fairness.prediction_sensitivity` (class_weights,
    protected_model, gendered_words, batch_size, ...). `statistic="max"` (default) bounds
    every text, `"mean"` the average. The texts listed have the largest P, with the
    gendered words marked for P4/P5.
    """
    __tracebackhide__ = True
    SENSITIVITY.check(lambda: _resolve(model, texts, max_value, variant, statistic, kw),
                      show=show, stacklevel=4)
