"""Group fairness metrics of binary predictions on labelled data, with bootstrap intervals.

Every rate is computed per group from the group's confusion counts (TP, FP, TN, FN, with
the positive class given by `positive`):

| rate | definition | zero denominator |
|---|---|---|
| ``accuracy`` | (TP + TN) / n | n = 0 (never: groups are non-empty) |
| ``selection_rate`` | (TP + FP) / n, P(Yhat = 1 \\| A = a) | n = 0 |
| ``tpr`` | TP / (TP + FN), recall, P(Yhat = 1 \\| Y = 1, A = a) | no positives |
| ``fnr`` | FN / (TP + FN) = 1 - TPR | no positives |
| ``fpr`` | FP / (FP + TN), P(Yhat = 1 \\| Y = 0, A = a) | no negatives |
| ``precision`` | TP / (TP + FP), PPV, P(Y = 1 \\| Yhat = 1, A = a) | nothing predicted positive |

A rate whose denominator is 0 is NaN (undefined), never 0: scikit-learn's `recall_score`
and fairlearn's `true_positive_rate` return 0 there (with a warning), which lets a group
without positives pass an equal-opportunity bound it was never tested on. `GroupMetrics`
lists such groups (`undefined`), and the gaps over groups are NaN while one is undefined.

Between groups, as fairlearn defines them (`MetricFrame.difference()` and `.ratio()` with
``method="between_groups"``): the **difference** of a rate is max - min over the groups
(>= 0) and the **ratio** min / max (in [0, 1]; NaN when every group's rate is 0). The
named criteria:

- demographic parity (statistical parity; Calders and Verwer 2010, "Three naive Bayes
  approaches for discrimination-free classification"; Dwork et al. 2012, "Fairness
  through awareness", section 3.1): the selection rates are equal. Its ratio is the
  disparate-impact ratio of the **four-fifths rule** (US EEOC Uniform Guidelines on
  Employee Selection Procedures, 1978, 29 CFR 1607.4(D): a selection rate below 4/5 of
  the highest group's is evidence of adverse impact), so "ratio >= 0.8";
- equalized odds (Hardt, Price and Srebro 2016, "Equality of Opportunity in Supervised
  Learning", Definition 1): equal TPR and equal FPR; its difference is the larger of the
  TPR and FPR differences and its ratio the smaller of their ratios (fairlearn's
  `equalized_odds_difference` / `_ratio` with ``agg="worst_case"``); when one part is 0
  in every group (no false positive anywhere) its ratio is 0 / 0, and the ratio is the
  other part's, as fairlearn's `equalized_odds_ratio` gives it;
- equal opportunity (Hardt et al. 2016, Definition 2): equal TPR;
- predictive parity (Chouldechova 2017, "Fair prediction with disparate impact",
  section 2.1): equal PPV (precision).

Intersectional groups: several group columns give tuple groups (gender x race: one group
per combination that occurs). `min_group_size` refuses groups with fewer rows, naming each
with its size (`SmallGroupError`), unless `drop_small=True`, which leaves them out and lists
them in `GroupMetrics.dropped`.

Intervals (`bootstrap_group_metric`): rows are resampled with replacement within each
group (a stratified bootstrap: every group keeps its size; Efron and Tibshirani 1993,
section 8.5 on multi-sample problems). Since every rate depends on the rows only through
the group's confusion counts, a resample of a group is a multinomial draw of its counts,
vectorised over the resamples. BCa intervals (default; the jackknife acceleration of the
multi-sample form, as in `metrics.bootstrap`) or percentile intervals. A difference (max -
min) is not smooth where two groups' rates are equal: like W1 (`metrics.bootstrap`) its
plug-in value and its bootstrap copies are biased upwards there, so with identical rates
the interval lies above the true 0; away from ties the coverage is nominal (simulated in
`tests/metrics/test_metrics_groups.py`). So the relations do not judge these intervals:
their verdict is the simultaneous score bound of `metrics.group_bounds`.

Borkan et al.'s subgroup / BPSN / BNSP AUCs and AEGs for every group of a column at once:
`group_bias_aucs` (each group's rows against all the others, `metrics.bias_auc`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigurationError, SmallGroupError
from .bias_auc import subgroup_bias_aucs
from .bootstrap import BootstrapCI, _acceleration, _bca, _percentile
from .validation import (
    BoolArray,
    FloatArray,
    IntArray,
    SeedLike,
    as_generator,
    check_ci_method,
    check_confidence,
    check_positive_int,
    clean_float,
)

__all__ = [
    "CRITERIA",
    "GAP_METRICS",
    "RATES",
    "GroupCounts",
    "GroupIntervals",
    "GroupMetrics",
    "SmallGroupError",
    "binary_outcomes",
    "bootstrap_group_metric",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equal_opportunity_difference",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "group_bias_aucs",
    "group_keys",
    "group_label",
    "group_metrics",
    "predictive_parity_difference",
]

#: The per-group rates, by name.
RATES = ("accuracy", "selection_rate", "tpr", "fpr", "fnr", "precision")
#: What can be compared between groups: a rate, or equalized odds (TPR and FPR together).
GAP_METRICS = (*RATES, "equalized_odds")
#: The named criteria and the gap metric each compares (aliases of `GAP_METRICS`).
CRITERIA: dict[str, str] = {
    "demographic_parity": "selection_rate",
    "equal_opportunity": "tpr",
    "equalized_odds": "equalized_odds",
    "predictive_parity": "precision",
}
#: What a zero denominator of each rate means, for messages.
_DENOMINATOR: dict[str, str] = {
    "accuracy": "no rows",
    "selection_rate": "no rows",
    "tpr": "no positive rows",
    "fnr": "no positive rows",
    "fpr": "no negative rows",
    "precision": "nothing predicted positive",
}
#: Confusion cells in the order of the count arrays: TP, FP, TN, FN.
_CELLS = ("tp", "fp", "tn", "fn")


def check_gap_metric(metric: object) -> str:
    """A name of `GAP_METRICS` or of `CRITERIA` (an alias), as its `GAP_METRICS` name."""
    if isinstance(metric, str):
        if metric in GAP_METRICS:
            return metric
        if metric in CRITERIA:
            return CRITERIA[metric]
    raise ConfigurationError(
        f"metric must be one of {', '.join(GAP_METRICS)} or a criterion "
        f"({', '.join(f'{k} = {v}' for k, v in CRITERIA.items())}), got {metric!r:.60}"
    )


def group_label(key: Hashable) -> str:
    """How reports name a group: its value, or the values of an intersectional group
    joined by " & " ("female & black")."""
    if isinstance(key, tuple):
        return " & ".join(str(k) for k in key)
    return str(key)


def _missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return bool(isinstance(value, float | np.floating) and math.isnan(value))
    except TypeError:
        return False


def _column(values: object, name: str, n: int | None) -> list[Hashable]:
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise ConfigurationError(
            f"group column {name!r} must be a sequence of one value per row, got "
            f"{type(values).__name__}"
        )
    items = list(np.asarray(values, dtype=object).ravel()) if isinstance(
        values, np.ndarray) else list(values)  # type: ignore[call-overload]
    if n is not None and len(items) != n:
        raise ConfigurationError(
            f"group column {name!r} has {len(items)} values for {n} rows; give one value "
            "per row"
        )
    missing = [i for i, v in enumerate(items) if _missing(v)]
    if missing:
        raise ConfigurationError(
            f"group column {name!r} has {len(missing)} missing value(s) (None/NaN; first at "
            f"row {missing[0]}); fill them (e.g. 'unknown') or drop those rows first"
        )
    out: list[Hashable] = []
    for i, v in enumerate(items):
        v = v.item() if isinstance(v, np.generic) else v
        if not isinstance(v, Hashable):
            raise ConfigurationError(
                f"group column {name!r} row {i}: {v!r:.40} is not a group value (hashable)"
            )
        out.append(v)
    return out


def group_keys(
    groups: Mapping[str, Any] | Sequence[Hashable], n: int | None = None
) -> tuple[list[Hashable], tuple[str, ...]]:
    """Each row's group and the names of the group columns.

    `groups` is one column (a sequence of one value per row: the row's group) or a mapping
    column name -> column; several columns give intersectional groups, the tuple of the
    row's values in the mapping's order. None/NaN values raise `ConfigurationError` with
    their count (never dropped silently); so does a column of another length than `n`.
    """
    if isinstance(groups, Mapping):
        if not groups:
            raise ConfigurationError("groups is an empty mapping: give at least one column")
        names = tuple(str(k) for k in groups)
        cols = [_column(v, str(k), n) for k, v in groups.items()]
        lengths = {len(c) for c in cols}
        if len(lengths) != 1:
            raise ConfigurationError(
                "group columns differ in length: " + ", ".join(
                    f"{k}: {len(c)}" for k, c in zip(names, cols, strict=True))
            )
        if len(cols) == 1:
            return cols[0], names
        return [tuple(row) for row in zip(*cols, strict=True)], names
    return _column(groups, "group", n), ("group",)


def binary_outcomes(values: object, positive: Hashable, name: str) -> BoolArray:
    """`values == positive` per row, as booleans. NaN or None labels raise
    `ConfigurationError` with their count and first row."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise ConfigurationError(f"{name} must be a sequence of labels, got "
                                 f"{type(values).__name__}")
    items = list(np.asarray(values, dtype=object).ravel()) if isinstance(
        values, np.ndarray) else list(values)  # type: ignore[call-overload]
    if not items:
        raise ConfigurationError(f"{name} is empty")
    missing = [i for i, v in enumerate(items) if _missing(v)]
    if missing:
        raise ConfigurationError(
            f"{name} has {len(missing)} missing label(s) (None/NaN; first at row "
            f"{missing[0]}); label those rows or drop them first"
        )
    return np.array([v == positive for v in items], dtype=np.bool_)


@dataclass(frozen=True)
class GroupCounts:
    """The confusion counts of one group."""

    n: int
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def positives(self) -> int:
        """Rows whose true label is positive (TP + FN)."""
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        """Rows whose true label is negative (FP + TN)."""
        return self.fp + self.tn

    @property
    def predicted_positive(self) -> int:
        return self.tp + self.fp

    def rate(self, metric: str) -> float:
        """One of `RATES`; NaN when its denominator is 0 (see the module docstring)."""
        num, den = _fraction(np.array([self.tp, self.fp, self.tn, self.fn], dtype=np.float64),
                             metric)
        return float(num / den) if den > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn,
                **{m: clean_float(self.rate(m)) for m in RATES}}


def _fraction(c: FloatArray, metric: str) -> tuple[Any, Any]:
    """Numerator and denominator of `metric` from counts (..., 4) in the order TP FP TN FN."""
    tp, fp, tn, fn = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    n = tp + fp + tn + fn
    if metric == "accuracy":
        return tp + tn, n
    if metric == "selection_rate":
        return tp + fp, n
    if metric == "tpr":
        return tp, tp + fn
    if metric == "fnr":
        return fn, tp + fn
    if metric == "fpr":
        return fp, fp + tn
    if metric == "precision":
        return tp, tp + fp
    raise ConfigurationError(f"unknown rate {metric!r}; choose from {', '.join(RATES)}")


def _rates(c: FloatArray, metric: str) -> FloatArray:
    """`metric` of counts (..., 4); NaN where the denominator is 0."""
    num, den = _fraction(c, metric)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.asarray(out, dtype=np.float64)


def _between(rates: FloatArray, how: str) -> FloatArray:
    """Difference (max - min) or ratio (min / max) over the last axis; NaN where a group's
    rate is NaN, or (ratio) where every rate is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        hi, lo = rates.max(axis=-1), rates.min(axis=-1)  # NaN propagates
        if how == "difference":
            return np.asarray(hi - lo, dtype=np.float64)
        return np.asarray(np.where(hi > 0, lo / np.where(hi > 0, hi, 1.0), np.nan),
                          dtype=np.float64)


def _gap(c: FloatArray, metric: str, how: str) -> FloatArray:
    """The between-group `how` of `metric` from counts (..., groups, 4)."""
    if metric == "equalized_odds":
        tpr_rates, fpr_rates = _rates(c, "tpr"), _rates(c, "fpr")
        tpr, fpr = _between(tpr_rates, how), _between(fpr_rates, how)
        # worst case: the larger difference, the smaller ratio (NaN if either is NaN) ...
        if how == "difference":
            return np.asarray(np.maximum(tpr, fpr), dtype=np.float64)
        # ... except a ratio 0 / 0 (the part is 0 in every group): the other part alone
        zero_t, zero_f = (np.all(tpr_rates == 0, axis=-1), np.all(fpr_rates == 0, axis=-1))
        return np.asarray(np.where(zero_t, fpr, np.where(zero_f, tpr, np.minimum(tpr, fpr))),
                          dtype=np.float64)
    return _between(_rates(c, metric), how)


@dataclass(frozen=True)
class GroupMetrics:
    """Confusion counts and rates of every group, and the gaps between groups.

    `groups` holds the groups in sorted order (by their labels) with their counts;
    `dropped` the groups under `min_group_size` that `drop_small=True` left out, with their
    sizes; `columns` the group columns (several: intersectional, tuple groups).
    """

    groups: dict[Hashable, GroupCounts]
    columns: tuple[str, ...]
    positive: Hashable
    min_group_size: int
    dropped: dict[Hashable, int] = field(default_factory=dict)

    @property
    def counts(self) -> FloatArray:
        """(groups, 4): TP, FP, TN, FN per group, in the order of `groups`."""
        return np.array([[g.tp, g.fp, g.tn, g.fn] for g in self.groups.values()],
                        dtype=np.float64)

    @property
    def n(self) -> int:
        """Rows counted (the dropped groups' rows excluded)."""
        return sum(g.n for g in self.groups.values())

    def rates(self, metric: str) -> dict[Hashable, float]:
        """Each group's `metric` (a name of `RATES`); NaN where it is undefined."""
        if metric not in RATES:
            raise ConfigurationError(f"unknown rate {metric!r}; choose from {', '.join(RATES)}")
        return {k: g.rate(metric) for k, g in self.groups.items()}

    def fractions(self, metric: str) -> tuple[FloatArray, FloatArray]:
        """(numerators, denominators) of `metric` (a name of `RATES`) per group, in the
        order of `groups`: each rate is successes out of a count (TP out of the
        positives for a TPR)."""
        if metric not in RATES:
            raise ConfigurationError(f"unknown rate {metric!r}; choose from {', '.join(RATES)}")
        num, den = _fraction(self.counts, metric)
        return np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)

    @property
    def by_group(self) -> dict[Hashable, dict[str, float]]:
        """group -> every rate (like fairlearn's `MetricFrame.by_group`)."""
        return {k: {m: g.rate(m) for m in RATES} for k, g in self.groups.items()}

    def undefined(self, metric: str) -> dict[Hashable, str]:
        """The groups where `metric` (or for equalized odds, TPR or FPR) is undefined, each
        with why ("no positive rows", ...)."""
        metric = check_gap_metric(metric)
        parts = ("tpr", "fpr") if metric == "equalized_odds" else (metric,)
        out: dict[Hashable, str] = {}
        for k, g in self.groups.items():
            why = [f"{_DENOMINATOR[p]} for {p.upper() if p != 'precision' else p}"
                   for p in parts if math.isnan(g.rate(p))]
            if why:
                out[k] = ", ".join(why)
        return out

    def difference(self, metric: str) -> float:
        """max - min of `metric` over the groups (fairlearn's ``difference()``); for
        "equalized_odds" the larger of the TPR and FPR differences. NaN while a group's
        rate is undefined (see `undefined`)."""
        return float(_gap(self.counts, check_gap_metric(metric), "difference"))

    def ratio(self, metric: str) -> float:
        """min / max of `metric` over the groups (fairlearn's ``ratio()``); for
        "equalized_odds" the smaller of the TPR and FPR ratios (one alone when the other is
        0 in every group). NaN while a group's rate is undefined, or every rate is 0."""
        return float(_gap(self.counts, check_gap_metric(metric), "ratio"))

    def without(self, drop: Sequence[Hashable]) -> GroupMetrics:
        """The same metrics without the groups in `drop` (they are not added to
        `dropped`, which holds the small groups)."""
        keep = {k: g for k, g in self.groups.items() if k not in set(drop)}
        return GroupMetrics(keep, self.columns, self.positive, self.min_group_size,
                            dict(self.dropped))

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "positive": str(self.positive),
            "min_group_size": self.min_group_size,
            "groups": {group_label(k): g.to_dict() for k, g in self.groups.items()},
            "dropped": {group_label(k): n for k, n in self.dropped.items()},
        }


def _sort_key(key: Hashable) -> tuple[str, str]:
    return (group_label(key), repr(key))


def group_metrics(
    y_true: object,
    y_pred: object,
    groups: Mapping[str, Any] | Sequence[Hashable],
    *,
    positive: Hashable = 1,
    min_group_size: int = 1,
    drop_small: bool = False,
) -> GroupMetrics:
    """Confusion counts and rates of every group (see the module docstring for the rates).

    Args:
        y_true: the true labels, one per row.
        y_pred: the predicted labels, one per row.
        groups: one group column (a sequence) or a mapping column name -> column; several
            columns give intersectional (tuple) groups.
        positive: the positive label (in `y_true` and `y_pred` alike).
        min_group_size: the fewest rows a group may have.
        drop_small: leave smaller groups out (listed in `dropped`) instead of raising
            `SmallGroupError`, which names each small group and its size.
    """
    min_size = check_positive_int(min_group_size, "min_group_size")
    if not isinstance(drop_small, bool):
        raise ConfigurationError(f"drop_small must be True or False, got {drop_small!r:.40}")
    t = binary_outcomes(y_true, positive, "y_true")
    p = binary_outcomes(y_pred, positive, "y_pred")
    if t.shape != p.shape:
        raise ConfigurationError(
            f"y_true has {t.shape[0]} labels and y_pred {p.shape[0]}; give one of each per row"
        )
    keys, columns = group_keys(groups, t.shape[0])
    order = sorted(set(keys), key=_sort_key)
    index = {k: i for i, k in enumerate(order)}
    codes: IntArray = np.array([index[k] for k in keys], dtype=np.int64)
    cell = np.where(t, np.where(p, 0, 3), np.where(p, 1, 2))  # TP FP TN FN
    table = np.bincount(codes * 4 + cell, minlength=len(order) * 4).reshape(len(order), 4)
    found = {k: GroupCounts(int(row.sum()), *(int(x) for x in row))
             for k, row in zip(order, table, strict=True)}
    small = {k: g.n for k, g in found.items() if g.n < min_size}
    if small and not drop_small:
        listed = ", ".join(f"{group_label(k)!r}: {n}" for k, n in
                           sorted(small.items(), key=lambda x: x[1]))
        raise SmallGroupError(
            f"{len(small)} of {len(found)} groups of {' x '.join(columns)} have fewer than "
            f"min_group_size={min_size} rows ({listed}); add rows, merge those groups, lower "
            "min_group_size, or pass drop_small=True to leave them out (they are reported)",
            small,
        )
    kept = {k: g for k, g in found.items() if k not in small}
    if not kept:
        raise SmallGroupError(
            f"every group of {' x '.join(columns)} has fewer than min_group_size={min_size} "
            "rows (" + ", ".join(f"{group_label(k)!r}: {n}" for k, n in small.items())
            + "); nothing is left to compare", small)
    return GroupMetrics(kept, columns, positive, min_size, small)


def demographic_parity_difference(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """max - min of the selection rates over groups (demographic parity: Calders and Verwer
    2010; Dwork et al. 2012, section 3.1; fairlearn's `demographic_parity_difference`)."""
    return group_metrics(y_true, y_pred, groups, positive=positive).difference("selection_rate")


def demographic_parity_ratio(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """min / max of the selection rates over groups: the disparate-impact ratio of the
    four-fifths rule (29 CFR 1607.4(D); fairlearn's `demographic_parity_ratio`)."""
    return group_metrics(y_true, y_pred, groups, positive=positive).ratio("selection_rate")


def equalized_odds_difference(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """The larger of the TPR and FPR differences over groups (equalized odds: Hardt et al.
    2016, Definition 1; fairlearn's `equalized_odds_difference`). NaN when a group has no
    positive or no negative rows."""
    return group_metrics(y_true, y_pred, groups, positive=positive).difference("equalized_odds")


def equalized_odds_ratio(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """The smaller of the TPR and FPR ratios over groups (Hardt et al. 2016, Definition 1;
    fairlearn's `equalized_odds_ratio`)."""
    return group_metrics(y_true, y_pred, groups, positive=positive).ratio("equalized_odds")


def equal_opportunity_difference(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """max - min of the true positive rates over groups (equal opportunity: Hardt et al.
    2016, Definition 2). NaN when a group has no positive rows."""
    return group_metrics(y_true, y_pred, groups, positive=positive).difference("tpr")


def predictive_parity_difference(
    y_true: object, y_pred: object, groups: Mapping[str, Any] | Sequence[Hashable], *,
    positive: Hashable = 1,
) -> float:
    """max - min of the precisions (PPV) over groups (predictive parity: Chouldechova 2017,
    section 2.1). NaN when a group has nothing predicted positive."""
    return group_metrics(y_true, y_pred, groups, positive=positive).difference("precision")


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True)
class GroupIntervals:
    """Bootstrap intervals of one gap metric: per group (each rate; for equalized odds, TPR
    and FPR as "<group> TPR" / "<group> FPR"), and of the difference and the ratio."""

    metric: str
    per_group: dict[Hashable, dict[str, BootstrapCI]]
    """group -> rate name -> interval."""
    difference: BootstrapCI
    ratio: BootstrapCI

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "per_group": {group_label(k): {m: ci.to_dict() for m, ci in v.items()}
                          for k, v in self.per_group.items()},
            "difference": self.difference.to_dict(),
            "ratio": self.ratio.to_dict(),
        }


def _resample_counts(
    c: FloatArray, runs: int, rng: np.random.Generator
) -> FloatArray:
    """(runs, groups, 4): each group's rows resampled with replacement (its size kept), as
    multinomial draws of its confusion counts."""
    out = np.empty((runs, *c.shape), dtype=np.float64)
    for j, row in enumerate(c):
        n = int(row.sum())
        out[:, j, :] = rng.multinomial(n, row / n, size=runs)
    return out


def _jackknife(c: FloatArray, stat: Any) -> list[FloatArray]:
    """Per group: the statistic with one row of that group left out, one value per row
    (rows of one confusion cell give the same value, so it is computed once per cell)."""
    out: list[FloatArray] = []
    for j, row in enumerate(c):
        values: list[FloatArray] = []
        for cell in range(4):
            k = int(row[cell])
            if k == 0:
                continue
            less = c.copy()
            less[j, cell] -= 1
            values.append(np.full(k, float(stat(less))))
        out.append(np.concatenate(values) if values else np.zeros(0))
    return out


def _interval(
    c: FloatArray, stat: Any, reps: FloatArray, method: str, conf: float, runs: int
) -> BootstrapCI:
    estimate = float(stat(c))
    if method == "percentile":
        return _percentile(estimate, reps, conf, runs)
    if not math.isfinite(estimate):
        return BootstrapCI(estimate, math.nan, math.nan, conf, runs, "bca")
    jack = [j[np.isfinite(j)] for j in _jackknife(c, stat)]
    return _bca(estimate, reps, _acceleration(jack), conf, runs)


def bootstrap_group_metric(
    metrics: GroupMetrics,
    metric: str = "selection_rate",
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    method: str = "bca",
) -> GroupIntervals:
    """Stratified bootstrap intervals of `metric` per group and of its difference and ratio
    between groups (see the module docstring).

    Rows are resampled within each group (each group keeps its size), by multinomial draws
    of the group's confusion counts from a `np.random.Generator` seeded by `seed`.
    `method` is "bca" (default; BCa with the multi-sample jackknife acceleration) or
    "percentile". Resamples where a statistic is undefined (a group drawn without positive
    rows for TPR, say) are left out of its quantiles; an undefined estimate gets a NaN
    interval.
    """
    name = check_gap_metric(metric)
    runs = check_positive_int(n_resamples, "n_resamples")
    conf = check_confidence(confidence)
    how = check_ci_method(method, ("bca", "percentile"))
    if not isinstance(metrics, GroupMetrics):
        raise ConfigurationError(
            f"bootstrap_group_metric takes the GroupMetrics of group_metrics(), got "
            f"{type(metrics).__name__}")
    c = metrics.counts
    reps = _resample_counts(c, runs, as_generator(seed))
    parts = ("tpr", "fpr") if name == "equalized_odds" else (name,)
    per_group: dict[Hashable, dict[str, BootstrapCI]] = {k: {} for k in metrics.groups}
    for part in parts:
        rate_reps = _rates(reps, part)
        for j, key in enumerate(metrics.groups):
            def stat(x: FloatArray, j: int = j, part: str = part) -> float:
                return float(_rates(x[j], part))
            per_group[key][part] = _interval(c, stat, rate_reps[:, j], how, conf, runs)
    gaps = {}
    for kind in ("difference", "ratio"):
        def gap(x: FloatArray, kind: str = kind) -> float:
            return float(_gap(x, name, kind))
        gaps[kind] = _interval(c, gap, _gap(reps, name, kind), how, conf, runs)
    return GroupIntervals(name, per_group, gaps["difference"], gaps["ratio"])


# --------------------------------------------------------------------------- bias AUCs


def group_bias_aucs(
    scores: object,
    labels: object,
    groups: Mapping[str, Any] | Sequence[Hashable],
    *,
    positive: Hashable = 1,
) -> dict[str, dict[str, float]]:
    """Borkan et al.'s subgroup, BPSN and BNSP AUCs and AEG+/AEG- for every group of a
    column at once (cross-geographic-toxicity-bias, section 5.2): each group's rows
    against all the other rows, through `metrics.bias_auc.subgroup_bias_aucs`.

    `scores` are the model's scores of the positive class, `labels` the true labels
    (`positive` marks the positive ones), `groups` a column or several (intersectional);
    groups are named by `group_label`. Raises `ConfigurationError` naming a group whose
    populations are incomplete (no positive or no negative rows inside or outside it).
    """
    y = binary_outcomes(labels, positive, "labels")
    keys, _ = group_keys(groups, y.shape[0])
    order = sorted(set(keys), key=_sort_key)
    if len(order) < 2:
        raise ConfigurationError(
            f"bias AUCs compare each group with the rest: the column has only "
            f"{len(order)} group(s) ({', '.join(group_label(k) for k in order)})")
    index = {k: i for i, k in enumerate(order)}
    codes = np.array([index[k] for k in keys], dtype=np.int64)
    masks = {group_label(k): codes == i for i, k in enumerate(order)}
    return subgroup_bias_aucs(scores, y, masks)
