"""Nuanced bias AUCs of Borkan et al. (cross-geographic-toxicity-bias, section 5.2).

Subgroup AUC, BPSN AUC and BNSP AUC of a model's scores against true labels, for the
examples that mention a subgroup; `assert_bias_auc_above` bounds them from below.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ConfigurationError
from ..metrics import bias_aucs
from ..results import FairnessResult, Measurement
from .verdict import (
    check_bound,
    conclude,
)

AUC_METRICS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")

__all__ = [
    "AUC_METRICS",
    "assert_bias_auc_above",
]


def assert_bias_auc_above(
    scores: object,
    labels: object,
    in_subgroup: object,
    min_auc: float,
    metrics: Sequence[str] = AUC_METRICS,
) -> None:
    """Borkan et al.'s subgroup AUC, BPSN AUC and BNSP AUC >= `min_auc`
    (cross-geographic-toxicity-bias, section 5.2).

    `scores` are the model's scores of the positive (toxic) class, `labels` the true
    labels (1/True positive) and `in_subgroup` marks the examples that mention the
    subgroup. `metrics` picks which AUCs are bounded; AEG+ and AEG- are reported.
    """
    __tracebackhide__ = True
    bound = check_bound(min_auc, "min_auc", upper=1.0)
    if isinstance(metrics, str) or not metrics:
        raise ConfigurationError(
            f"metrics must be a non-empty sequence of {', '.join(AUC_METRICS)}"
        )
    unknown = [x for x in metrics if x not in AUC_METRICS]
    if unknown:
        raise ConfigurationError(
            f"unknown bias AUC metric(s) {unknown}; choose from {', '.join(AUC_METRICS)}"
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
    conclude(
        result,
        statement=f"the model must separate classes as well inside the subgroup as outside "
        f"(AUCs >= {bound:g}; cross-geographic-toxicity-bias, section 5.2)",
        measure_name="AUC",
        discrimination=1.0 - min(aucs[x] for x in metrics),
        hint="a low BPSN AUC means the subgroup's non-toxic examples score like toxic ones",
    )
