"""Accumulated prediction sensitivity (APS paper, section 3, Definition 1; 6.3-6.5).

`assert_prediction_sensitivity_below` bounds P = w^T J v of a white-box model over texts;
the gradients come from `pytest_fairness.models` (torch is imported only when it runs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ConfigurationError
from ..results import FairnessResult, Measurement, Violation
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_show,
    check_statistic,
    conclude,
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
    from ..analysis.gradients import prediction_sensitivity

    bound = check_bound(max_value, "max_value")
    stat = check_statistic(statistic)
    shown = check_show(show)
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
    conclude(
        result,
        statement=f"the prediction must not depend on the input words beyond {stat} "
        f"{res.variant} <= {bound:g} (APS paper, section 3)",
        measure_name=res.variant,
        discrimination=res.max,
        show=shown,
        inputs_title="the most sensitive texts (protected words in [[...]])",
    )
