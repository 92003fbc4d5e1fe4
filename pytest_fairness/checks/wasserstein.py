"""Distances between score distributions (counterfactual-sentiment-bias, section 3).

`assert_wasserstein_below` bounds W1 between two samples of scores, or between every
group's scores and the pooled scores of all groups (the terms of Total Group Fairness).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from ..metrics.bootstrap import bootstrap_wasserstein
from ..metrics.validation import check_confidence
from ..metrics.wasserstein import wasserstein
from ..results import FairnessResult, Measurement
from .verdict import (
    N_RESAMPLES,
    check_bound,
    conclude,
    measured,
    run_seed,
)

__all__ = [
    "assert_wasserstein_below",
]


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
    bound = check_bound(max_w1, "max_w1")
    conf = None if confidence is None else check_confidence(confidence)
    rng_seed = run_seed(seed)
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
        measurements += measured(name, values[name], bound, ci)
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
    conclude(
        result,
        statement=f"score distributions must be within W1 <= {bound:g} "
        "(counterfactual-sentiment-bias, section 3)",
        measure_name="W1",
        discrimination=max(values.values()),
    )
