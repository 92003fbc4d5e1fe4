"""Group fairness on labelled data: rates per group and the gaps between groups.

`group_fairness` runs the model once over a labelled data set and keeps everything (each
row's gold and predicted label, score and group; the confusion counts and rates per group:
`metrics.groups`) in a reusable `GroupAnalysis`. The relations bound what it measured:

- `assert_group_gap_below`: the difference (max - min over groups) of a rate, or of a
  criterion (demographic parity = selection rate, equal opportunity = TPR, equalized
  odds = TPR and FPR, predictive parity = precision), is at most `max_gap`;
- `assert_group_ratio_above`: the ratio (min / max over groups) is at least `min_ratio`,
  by default 0.8 on selection rates: the four-fifths rule;
- `assert_group_aucs_above`: Borkan et al.'s subgroup / BPSN / BNSP AUCs of every group of
  a column (cross-geographic-toxicity-bias, section 5.2), through
  `checks.bias_auc.assert_subgroup_aucs_above`.

The names say what is bounded and from which side, as the other relations do
(`assert_wasserstein_below`, `assert_bias_auc_above`): "gap" is the between-group
difference that fairlearn calls ``difference()``, "ratio" its ``ratio()``.

Inputs. The first argument is a model (anything `as_model` accepts), a `GroupAnalysis`
already computed, or a fairlearn `MetricFrame` (its ``by_group``, ``difference()`` and
``ratio()`` are judged as they are). Without a model, pass `predictions=` (labels) or
`scores=` (scores of the positive class, labelled at `threshold`). The rows come from
`data`, a `pytest_fairness.corpus.dataset.Dataset` (its texts, gold labels and group
columns), or from `y_true=`, `groups={"gender": [...]}` and optionally `texts=`.

What is never silent: a group with fewer than `min_group_size` rows is a `SmallGroupError`
naming each with its size (or, with `drop_small=True`, left out and reported with its
count); a group where the bounded rate is undefined (no positive rows for a TPR) is a
`ConfigurationError` naming it and why (or, with `drop_undefined=True`, left out and
reported); gold labels outside the model's label set are a `ConfigurationError` listing
both sets; rows the model skipped are counted in the report.

The verdict. Without `confidence` the point estimate is judged. With it (e.g. 0.95) the
gap is judged on the lower end of a simultaneous score interval and the ratio on the upper
end (`metrics.group_bounds`: every pair of groups, Bonferroni-adjusted), so a model whose
true gap is within the bound, a fair model among them, fails at most (1 - confidence) / 2
of the time for any number and size of groups (issue 25: the bootstrap interval of max -
min it replaces failed 10 fair groups of 30 rows every time). Groups too small for that
verdict to have useful power get a `GroupPowerWarning` with the rows to aim for.

A failure shows the per-group table (group, n, the rate, its interval) with the gap
against the bound, and example rows of the worst group that the model got wrong. The
recorded result carries a `Table` and a `BarChart` section (the rate per group, each bar
with its interval), and the gap as its first measurement, so the summary shows
the worst group gap.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np

from ..errors import ConfigurationError
from ..metrics.bootstrap import BootstrapCI
from ..metrics.group_bounds import (
    GroupBound,
    detectable_gap,
    recommended_group_size,
    simultaneous_group_bound,
    wilson_interval,
)
from ..metrics.groups import (
    RATES,
    GroupIntervals,
    GroupMetrics,
    binary_outcomes,
    bootstrap_group_metric,
    check_gap_metric,
    group_keys,
    group_label,
    group_metrics,
)
from ..metrics.validation import BoolArray, FloatArray
from ..models.classifiers.scoring import coerce_model, labels_of, score_texts
from ..models.classifiers.thresholds import decision_threshold
from ..results import BarChart, Measurement, Table, Violation
from ..runtime.optional import require
from ..runtime.printable import printable
from ..validation import check_int, check_texts
from .bias_auc import AUC_METRICS, assert_subgroup_aucs_above
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    N_RESAMPLES,
    RECORDED_VIOLATIONS,
    check_bound,
    check_confidence,
    check_seed,
    check_show,
    check_threshold,
    judged_nothing,
    measured,
    on_empty,
    run_seed,
    run_threshold,
    skipped_counts,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "MIN_GROUP_SIZE",
    "USEFUL_EXCESS",
    "GroupAnalysis",
    "GroupPowerWarning",
    "assert_group_aucs_above",
    "assert_group_gap_below",
    "assert_group_ratio_above",
    "group_fairness",
    "to_metric_frame",
]

#: The fewest rows a group may have by default: a rate over fewer rows says little.
MIN_GROUP_SIZE = 10
#: The gap verdict has useful power when it detects, 80% of the time, a true gap this far
#: above `max_gap` (rates near 0.5); smaller groups get a `GroupPowerWarning`.
USEFUL_EXCESS = 0.25
#: The per-group intervals the table can show (the verdict uses the simultaneous bound).
_CI_METHODS = ("score", "bca", "percentile")


class GroupPowerWarning(UserWarning):
    """The groups are too small for the group gap or ratio verdict to have useful power:
    it would miss a true gap `USEFUL_EXCESS` above the bound more than 20% of the time.
    A warning, not an error: the verdict stays valid (a fair model fails it at most
    (1 - confidence) / 2 of the time); the message gives the rows per group to aim for."""

#: Rates where a higher value is better for the group's members (the lowest group is the
#: worst off); for the others (error rates) the highest group is.
_HIGHER_IS_BETTER = frozenset({"accuracy", "selection_rate", "tpr", "precision"})
_SHORT = {"tpr": "TPR", "fpr": "FPR", "fnr": "FNR", "precision": "precision",
          "accuracy": "accuracy", "selection_rate": "selection rate",
          "equalized_odds": "equalized odds (TPR and FPR)"}
_REFERENCE = {
    "selection_rate": "demographic parity: Calders and Verwer 2010; Dwork et al. 2012",
    "tpr": "equal opportunity: Hardt et al. 2016, Definition 2",
    "fnr": "equal false negative rates: Hardt et al. 2016",
    "fpr": "equal false positive rates: Hardt et al. 2016, Definition 1",
    "equalized_odds": "equalized odds: Hardt et al. 2016, Definition 1",
    "precision": "predictive parity: Chouldechova 2017, section 2.1",
    "accuracy": "accuracy parity",
}


# --------------------------------------------------------------------------- the analysis


@dataclass(frozen=True, eq=False)
class GroupAnalysis:
    """One run of a model over labelled, grouped rows, with everything it measured.

    Row arrays hold the rows judged (the model's skipped rows and the rows of dropped
    groups excluded); `metrics` the confusion counts and rates per group
    (`metrics.groups.GroupMetrics`). Reuse one analysis for several bounds:
    ``a = group_fairness(...); assert_group_gap_below(a, metric="tpr", max_gap=0.1)``.
    """

    metrics: GroupMetrics
    keys: tuple[Hashable, ...]
    """Each row's group (a tuple for intersectional groups)."""
    gold: tuple[str, ...]
    """Each row's gold label, as text."""
    predicted: tuple[str, ...]
    """Each row's predicted label, as text."""
    true: BoolArray
    pred: BoolArray
    positive: str
    texts: tuple[str, ...] | None = None
    scores: FloatArray | None = None
    """The model's score of the positive class per row, when known (needed for AUCs)."""
    threshold: float | None = None
    """The score threshold labels came from (None: argmax, or given predictions)."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Rows not judged, by reason (the model skipped them; their group was too small)."""

    def __repr__(self) -> str:
        sizes = ", ".join(f"{group_label(k)}: {c.n}" for k, c in self.metrics.groups.items())
        return (f"GroupAnalysis({' x '.join(self.columns)}: {len(self.keys)} rows in "
                f"{len(self.metrics.groups)} groups ({sizes}); positive={self.positive!r}"
                f"{f', skipped={self.skipped}' if self.skipped else ''})")

    @property
    def columns(self) -> tuple[str, ...]:
        return self.metrics.columns

    def difference(self, metric: str) -> float:
        """max - min of `metric` over the groups (`GroupMetrics.difference`)."""
        return self.metrics.difference(metric)

    def ratio(self, metric: str) -> float:
        """min / max of `metric` over the groups (`GroupMetrics.ratio`)."""
        return self.metrics.ratio(metric)

    def intervals(
        self, metric: str, *, confidence: float = 0.95, seed: int = 0, method: str = "bca"
    ) -> GroupIntervals:
        """Stratified bootstrap intervals of `metric` per group and of its gap and ratio
        (`metrics.groups.bootstrap_group_metric`, `N_RESAMPLES` resamples)."""
        return bootstrap_group_metric(self.metrics, metric, n_resamples=N_RESAMPLES,
                                      confidence=confidence, seed=seed, method=method)

    def wrong_rows(self, group: Hashable, metric: str = "accuracy") -> list[int]:
        """Rows of `group` that the model got wrong in the way that lowers (or raises)
        `metric`: false negatives for TPR, FNR and selection rate, false positives for
        FPR and precision, both for accuracy and equalized odds."""
        metric = check_gap_metric(metric)
        mine = np.array([k == group for k in self.keys], dtype=np.bool_)
        fn = mine & self.true & ~self.pred
        fp = mine & ~self.true & self.pred
        if metric in ("tpr", "fnr", "selection_rate"):
            wrong = fn
        elif metric in ("fpr", "precision"):
            wrong = fp
        else:
            wrong = fn | fp
        return [int(i) for i in np.flatnonzero(wrong)]

    def to_metric_frame(self, metrics: Sequence[str] = RATES) -> Any:
        """This analysis as a fairlearn `MetricFrame` (see `to_metric_frame`)."""
        return to_metric_frame(self, metrics=metrics)

    def to_dict(self) -> dict[str, Any]:
        return {**self.metrics.to_dict(), "threshold": self.threshold,
                "skipped": dict(self.skipped)}


def _is_dataset(data: object) -> bool:
    return all(hasattr(data, a) for a in ("texts", "labels", "column", "group_columns"))


def _columns_of(group: object, available: Sequence[str], where: str) -> list[str]:
    """The group column names asked for (one, or several: intersectional)."""
    if group is None:
        if len(available) == 1:
            return [available[0]]
        raise ConfigurationError(
            f"pass group= to say which group column(s) to compare; {where} has "
            f"{len(available)}: {', '.join(map(repr, available)) or 'none'}"
        )
    names = [group] if isinstance(group, str) else list(group) if isinstance(
        group, Sequence) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ConfigurationError(
            f"group must be a column name or a sequence of them (intersectional groups), got "
            f"{group!r:.60}")
    missing = [n for n in names if n not in available]
    if missing:
        raise ConfigurationError(
            f"no group column {', '.join(map(repr, missing))} in {where}; its group columns "
            f"are {', '.join(map(repr, available)) or 'none'}")
    if len(set(names)) != len(names):
        raise ConfigurationError(f"group names a column twice: {names}")
    return names


def _rows_of(
    data: object, group: object, y_true: object, groups: object, texts: object
) -> tuple[list[Any], dict[str, Any], list[str] | None]:
    """(gold labels, {column: values}, texts or None) from a Dataset or plain arrays."""
    if data is not None:
        if any(x is not None for x in (y_true, groups)):
            raise ConfigurationError(
                "pass the rows once: a Dataset as data, or y_true= and groups=, not both")
        if not _is_dataset(data):
            raise ConfigurationError(
                f"data must be a pytest_fairness Dataset (texts, labels, group columns), got "
                f"{type(data).__name__}; or pass y_true= and groups= instead")
        d: Any = data
        labels = d.labels
        if labels is None:
            raise ConfigurationError(
                "the Dataset has no gold labels: group rates compare predictions with the "
                "true labels; load it with a label column")
        names = _columns_of(group, list(d.group_columns), "the Dataset")
        return list(labels), {n: list(d.column(n)) for n in names}, list(d.texts) if (
            texts is None) else check_texts(texts)
    if y_true is None or groups is None:
        raise ConfigurationError(
            "pass the labelled rows: data=<a Dataset>, or y_true=<gold labels> and "
            "groups=<{column: values}> (with texts= for the failure's examples)")
    if isinstance(groups, str | bytes):
        raise ConfigurationError(
            f"groups must be one value per row (a list such as ['f', 'm', ...]) or a mapping "
            f"column -> such a list, got one {type(groups).__name__} of "
            f"{len(groups)} characters; a string is not split into groups: pass "
            "list(...) of the rows' group values")
    if isinstance(groups, Mapping):
        names = _columns_of(group, [str(k) for k in groups], "groups")
        cols = {n: groups[n] for n in names}
        for n, v in cols.items():
            if isinstance(v, str | bytes):
                raise ConfigurationError(
                    f"groups[{n!r}] must be one value per row (a list), got one "
                    f"{type(v).__name__} of {len(v)} characters; a string is not split into "
                    "groups: pass a list of the rows' group values")
    else:
        if group is not None and not isinstance(group, str):
            raise ConfigurationError("groups= is one column: group= may only name it (a str)")
        cols = {group or "group": groups}
    if isinstance(y_true, str | bytes) or not hasattr(y_true, "__len__"):
        raise ConfigurationError(f"y_true must be a sequence of gold labels, got "
                                 f"{type(y_true).__name__}")
    return list(y_true), cols, None if texts is None else check_texts(texts)  # type: ignore[call-overload]


def _no_value(value: object) -> bool:
    """A missing group cell: None, NaN or a blank string (such rows are in no group)."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, float | np.floating) and math.isnan(value)


def _labelled(values: Sequence[Any]) -> list[str]:
    return [str(v) for v in values]


def _default_positive(labels: set[str], given: object) -> str:
    if given is not None:
        if isinstance(given, float) and not math.isfinite(given):
            raise ConfigurationError(f"positive must be a label, got {given!r}")
        pos = str(given)
        if pos not in labels and len(labels) > 1:
            raise ConfigurationError(
                f"positive={printable(repr(given))[:60]} is not one of the labels "
                f"{sorted(labels)}: pass the label of the positive class, one of them")
        return pos
    for candidate in ("1", "True"):
        if labels <= {candidate, "0", "False"} and candidate in labels:
            return candidate
    raise ConfigurationError(
        f"pass positive= to say which label is the positive class; the labels are "
        f"{sorted(labels)}")


def group_fairness(
    model: object = None,
    data: object = None,
    *,
    group: str | Sequence[str] | None = None,
    predictions: object = None,
    scores: object = None,
    y_true: object = None,
    groups: object = None,
    texts: object = None,
    positive: object = None,
    threshold: float | None = None,
    min_group_size: int = MIN_GROUP_SIZE,
    drop_small: bool = False,
) -> GroupAnalysis:
    """Run `model` over labelled rows and measure every group's rates (`metrics.groups`).

    Args:
        model: anything `as_model` accepts; or None with `predictions=` or `scores=`.
        data: a `Dataset` with texts, gold labels and group columns; or None with
            `y_true=` and `groups=` (one column, or a mapping column -> values).
        group: the group column, or several for intersectional groups (gender x race);
            optional when there is only one.
        predictions: the predicted label of each row, instead of a model.
        scores: each row's score of the positive class, instead of a model; labelled
            positive at score >= `threshold` (default the run's ``--fairness-threshold``).
        texts: the rows' texts (from the Dataset by default): the model's input and the
            failure's examples.
        positive: the positive label. Default: a binary model's second label (the one its
            score is of); for given labels 1 / True when the labels are 0/1 or booleans.
        threshold: a model's decision threshold (`models.thresholds.decision_threshold`).
        min_group_size: the fewest rows a group may have (`SmallGroupError` otherwise).
        drop_small: leave smaller groups out instead, reported with their counts.

    Gold labels are compared with the model's labels as text (1 matches "1"); a gold label
    outside the model's label set raises `ConfigurationError` listing both sets. Rows with
    no value in a group column (None, NaN, blank: a Dataset keeps them) and rows the model
    skipped are left out and counted in `GroupAnalysis.skipped`, which the relations
    record as skipped inputs; NaN or None gold labels are an error.
    """
    t_given = check_threshold(threshold)
    gold_raw, columns, row_texts = _rows_of(data, group, y_true, groups, texts)
    n = len(gold_raw)
    binary_outcomes(gold_raw, object(), "gold labels")  # NaN / None labels: a named error
    gold = _labelled(gold_raw)
    if row_texts is not None and len(row_texts) != n:
        raise ConfigurationError(f"texts has {len(row_texts)} items for {n} labelled rows")
    sources = [x is not None for x in (model, predictions, scores)]
    if sum(sources) != 1:
        raise ConfigurationError(
            "pass exactly one of: a model, predictions= (labels) or scores= (scores of the "
            f"positive class); got {sum(sources)}")
    skipped: dict[str, int] = {}
    keep = np.ones(n, dtype=np.bool_)
    row_scores: FloatArray | None = None
    used_threshold: float | None = None
    if model is not None:
        if row_texts is None:
            raise ConfigurationError("a model needs the rows' texts: pass texts= (or a Dataset)")
        m = coerce_model(model)
        found = score_texts(m, row_texts)
        used_threshold = decision_threshold(m, t_given, run_threshold=run_threshold())
        names = tuple(m.labels)
        outside = sorted(set(gold) - set(names))
        if outside:
            raise ConfigurationError(
                f"gold labels {outside} are not in the model's label set {list(names)}; the "
                f"gold labels are {sorted(set(gold))}: map them to the model's labels first")
        if positive is None and len(names) != 2:
            raise ConfigurationError(
                f"the model has {len(names)} labels {list(names)}: pass positive= (one of "
                "them) to say which class is positive")
        pos = names[1] if positive is None else str(positive)
        if pos not in names:
            raise ConfigurationError(f"positive={positive!r} is not one of the model's labels "
                                     f"{list(names)}")
        label_of = labels_of(m, found, used_threshold)
        scored = np.array([found.scored(t) for t in row_texts], dtype=np.bool_)
        if not scored.all():
            skipped["rows the model skipped"] = int((~scored).sum())
            keep &= scored
        predicted = [label_of[t] for t in row_texts]
        column = names.index(pos)
        proba = found.proba
        values = (proba[:, column] if proba.ndim == 2 and proba.shape[1] == len(names)
                  else found.scores)
        row_scores = np.array([values[found.index[t]] for t in row_texts], dtype=np.float64)
    elif predictions is not None:
        if isinstance(predictions, str | bytes) or not hasattr(predictions, "__len__"):
            raise ConfigurationError(f"predictions must be a sequence of labels, got "
                                     f"{type(predictions).__name__}")
        predicted = _labelled(list(predictions))  # type: ignore[call-overload]
        if len(predicted) != n:
            raise ConfigurationError(f"predictions has {len(predicted)} labels for {n} rows")
        pos = _default_positive(set(gold) | set(predicted), positive)
    else:
        from .verdict import check_scores

        check_scores(scores, "scores")
        row_scores = np.asarray(scores, dtype=np.float64)
        off = np.flatnonzero((row_scores < 0.0) | (row_scores > 1.0))
        if off.size:
            raise ConfigurationError(
                f"scores must be probabilities of the positive class in [0, 1]; "
                f"{off.size} are not (first: scores[{int(off[0])}] = "
                f"{float(row_scores[int(off[0])])!r}); rescale them (a logit x: "
                "1 / (1 + exp(-x))), or label the rows yourself and pass predictions=")
        if row_scores.ndim != 1 or row_scores.shape[0] != n:
            raise ConfigurationError(f"scores must hold one score per row ({n}), got shape "
                                     f"{row_scores.shape}")
        pos = _default_positive(set(gold), positive)
        used_threshold = run_threshold() if t_given is None else t_given
        predicted = [pos if s >= used_threshold else f"not {pos}" for s in row_scores]
    listed = {k: list(v) for k, v in columns.items()}
    for k, v in listed.items():
        if len(v) != n:
            raise ConfigurationError(f"group column {k!r} has {len(v)} values for {n} rows")
    no_group = np.array([any(_no_value(v[i]) for v in listed.values()) for i in range(n)],
                        dtype=np.bool_)
    if no_group.any():
        skipped[f"rows with no value in {' / '.join(listed)}"] = int((no_group & keep).sum())
        keep &= ~no_group
    idx = np.flatnonzero(keep)
    sub = [int(i) for i in idx]
    if not sub:
        on_empty(judged_nothing("group_fairness", "no row is left to judge (skipped: " + ", ".join(
            f"{c} {w}" for w, c in skipped.items()) + ")", "give rows with a group value "
            "that the model scores"))
    cols = {k: [v[i] for i in sub] for k, v in listed.items()}
    gm = group_metrics([gold[i] for i in sub], [predicted[i] for i in sub], cols,
                       positive=pos, min_group_size=min_group_size, drop_small=drop_small)
    keys, _ = group_keys(cols, len(sub))
    if gm.dropped:
        skipped[f"rows in groups under min_group_size={gm.min_group_size}"] = sum(
            gm.dropped.values())
        inside = [j for j, k in enumerate(keys) if k not in gm.dropped]
        sub = [sub[j] for j in inside]
        keys = [keys[j] for j in inside]
    true = np.array([gold[i] == pos for i in sub], dtype=np.bool_)
    pred = np.array([predicted[i] == pos for i in sub], dtype=np.bool_)
    return GroupAnalysis(
        metrics=gm, keys=tuple(keys), gold=tuple(gold[i] for i in sub),
        predicted=tuple(predicted[i] for i in sub), true=true, pred=pred, positive=pos,
        texts=None if row_texts is None else tuple(row_texts[i] for i in sub),
        scores=None if row_scores is None else row_scores[sub], threshold=used_threshold,
        skipped=skipped,
    )


# --------------------------------------------------------------------------- MetricFrame


def _is_metric_frame(value: object) -> bool:
    return type(value).__name__ == "MetricFrame" and type(value).__module__.startswith(
        "fairlearn")


def _rate_function(metric: str) -> Any:
    from ..metrics.groups import GroupCounts

    def rate(y_true: Any, y_pred: Any) -> float:
        t = np.asarray(y_true, dtype=np.bool_)
        p = np.asarray(y_pred, dtype=np.bool_)
        counts = GroupCounts(int(t.shape[0]), int((t & p).sum()), int((~t & p).sum()),
                             int((~t & ~p).sum()), int((t & ~p).sum()))
        return counts.rate(metric)

    rate.__name__ = metric
    return rate


def to_metric_frame(
    source: GroupAnalysis | None = None,
    *,
    y_true: object = None,
    y_pred: object = None,
    groups: object = None,
    positive: object = 1,
    metrics: Sequence[str] = RATES,
) -> Any:
    """A fairlearn `MetricFrame` of the rates `metrics` (`metrics.groups.RATES`) per group.

    From a `GroupAnalysis`, or from arrays: `y_true`, `y_pred` (labels; `positive` marks
    the positive class) and `groups` (one column, or a mapping column -> values: one
    sensitive feature each). Its ``by_group`` equals our rates, NaN where a rate is
    undefined (fairlearn's own `true_positive_rate` says 0 there). Its ``difference()``
    and ``ratio()`` equal ours while every group's rate is defined; where one is NaN they
    do not: fairlearn leaves the NaN groups out (pandas' max and min skip NaN) and gives
    the gap of the other groups, where ours is NaN (and the relations raise
    `ConfigurationError` naming the group, unless ``drop_undefined=True``, which judges the
    other groups: the frame's value). Needs the optional extra ``fairlearn``
    (`MissingDependencyError` with the install command otherwise).
    """
    fm = require("fairlearn.metrics", "to_metric_frame (fairlearn interop)")
    pd = require("pandas", "to_metric_frame (fairlearn interop)")
    if isinstance(metrics, str) or not metrics or any(m not in RATES for m in metrics):
        raise ConfigurationError(f"metrics must be a non-empty sequence of {', '.join(RATES)}, "
                                 f"got {metrics!r:.60}")
    if source is not None:
        if not isinstance(source, GroupAnalysis):
            raise ConfigurationError(
                f"to_metric_frame takes a GroupAnalysis or y_true=, y_pred=, groups=; got "
                f"{type(source).__name__}")
        true, pred = source.true, source.pred
        keys: list[Hashable] = list(source.keys)
        names = source.columns
    else:
        if y_true is None or y_pred is None or groups is None:
            raise ConfigurationError("pass a GroupAnalysis, or y_true=, y_pred= and groups=")
        true = binary_outcomes(y_true, positive, "y_true")
        pred = binary_outcomes(y_pred, positive, "y_pred")
        if true.shape != pred.shape:
            raise ConfigurationError(f"y_true has {true.shape[0]} labels and y_pred "
                                     f"{pred.shape[0]}")
        keys, names = group_keys(groups, true.shape[0])  # type: ignore[arg-type]
    if len(names) == 1:
        features = pd.DataFrame({names[0]: keys})
    else:
        features = pd.DataFrame({n: [k[i] for k in keys]  # type: ignore[index]
                                 for i, n in enumerate(names)})
    return fm.MetricFrame(metrics={m: _rate_function(m) for m in metrics}, y_true=true,
                          y_pred=pred, sensitive_features=features)


@dataclass(frozen=True)
class _Frame:
    """What a judged MetricFrame gave: per group rates (NaN: undefined), its gap."""

    metric: str
    values: dict[Hashable, float]
    difference: float
    ratio: float


def _from_frame(frame: Any, metric: str) -> _Frame:
    by_group = frame.by_group
    if hasattr(by_group, "columns"):  # several metrics: a DataFrame
        columns = [str(c) for c in by_group.columns]
        if metric not in columns:
            raise ConfigurationError(
                f"the MetricFrame has no metric {metric!r}; its metrics are {columns}: pass "
                "metric= one of them")
        series = by_group[metric]
        difference, ratio = frame.difference()[metric], frame.ratio()[metric]
    else:
        series, difference, ratio = by_group, frame.difference(), frame.ratio()
        metric = str(series.name) if series.name is not None else metric
    values: dict[Hashable, float] = {}
    for key, value in series.items():
        values[key] = float(value)
    return _Frame(metric, values, float(difference), float(ratio))


# --------------------------------------------------------------------------- relations


def _analysis(source: object, data: object, options: dict[str, Any]) -> GroupAnalysis:
    if isinstance(source, GroupAnalysis):
        given = [k for k, v in options.items() if v is not None and k not in (
            "min_group_size", "drop_small")]
        if data is not None or given:
            raise ConfigurationError(
                "a GroupAnalysis already holds its rows and predictions: pass it alone, "
                f"without data or {', '.join(given) or 'data'}")
        return source
    return group_fairness(source, data, **options)


def _fmt(value: float) -> str:
    return "undefined" if not math.isfinite(value) else f"{value:.4f}"


def _ci_text(ci: BootstrapCI | GroupBound | None) -> str:
    if ci is None or not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        return ""
    return f"[{ci.low:.3f}, {ci.high:.3f}]"


def _parts(metric: str) -> tuple[str, ...]:
    return ("tpr", "fpr") if metric == "equalized_odds" else (metric,)


#: How the table's per-group intervals were made, by `ci_method`.
_PER_GROUP = {"score": "Wilson score", "bca": "stratified BCa bootstrap",
              "percentile": "stratified percentile bootstrap"}


def _group_cis(
    gm: GroupMetrics, name: str, conf: float, how: str, seed: int | None
) -> dict[Hashable, dict[str, BootstrapCI]]:
    """Each group's interval of each part of `name`, for the table and the bars: Wilson
    score intervals ("score"), or the stratified bootstrap (`bootstrap_group_metric`)."""
    if how != "score":
        return bootstrap_group_metric(gm, name, n_resamples=N_RESAMPLES, confidence=conf,
                                      seed=run_seed(seed), method=how).per_group
    z = NormalDist().inv_cdf(0.5 + conf / 2.0)
    out: dict[Hashable, dict[str, BootstrapCI]] = {k: {} for k in gm.groups}
    for part in _parts(name):
        num, den = gm.fractions(part)
        low, high = wilson_interval(num, den, z)
        for j, key in enumerate(gm.groups):
            out[key][part] = BootstrapCI(gm.groups[key].rate(part), float(low[j]),
                                         float(high[j]), conf, 0, "wilson")
    return out


def _bound_note(found: GroupBound, word: str, how: str) -> str:
    """The note that names the verdict's method and what it guarantees."""
    pairs = found.comparisons // len(_parts(found.metric))
    rule = ("Newcombe's hybrid score interval of each pair's difference"
            if found.statistic == "difference" else "the MOVER-R interval of each pair's ratio")
    end = "lower" if found.statistic == "difference" else "upper"
    within = "at most" if found.statistic == "difference" else "at least"
    alpha = (1.0 - found.confidence) / 2.0
    return (f"interval of the {word}: {found.confidence:.0%} {found.method} bounds ({rule}, "
            f"from Wilson intervals; the {end} end Bonferroni-adjusted over "
            f"{found.comparisons} comparisons = {pairs} ordered pairs of groups"
            + (" x TPR and FPR" if found.metric == "equalized_odds" else "")
            + f"); the verdict uses its {end} end, so a model whose true {word.split()[0]} "
            f"is {within} the bound fails at most {alpha:.1%} of the time, for any number of "
            f"groups; per-group intervals: {found.confidence:.0%} {_PER_GROUP[how]}")


def _warn_if_underpowered(
    gm: GroupMetrics, found: GroupBound, kind: str, conf: float | None, stacklevel: int = 4
) -> None:
    """A `GroupPowerWarning` when the rows behind the rate are too few for the verdict to
    detect a gap `USEFUL_EXCESS` above the bound 80% of the time."""
    level = 0.95 if conf is None else conf
    worst: tuple[float, str, int] | None = None
    for part in found.parts:
        den = gm.fractions(part)[1]
        if den.shape[0] < 2 or (den < 1).any():
            continue
        excess = detectable_gap([int(d) for d in den], confidence=level,
                                parts=len(found.parts))
        if worst is None or excess > worst[0]:
            worst = (excess, part, int(den.min()))
    if worst is None or worst[0] <= USEFUL_EXCESS:
        return
    excess, part, smallest = worst
    k = len(gm.groups)
    need = recommended_group_size(k, excess=USEFUL_EXCESS, confidence=level,
                                  parts=len(found.parts))
    rows = "rows" if part in ("selection_rate", "accuracy") else _ROWS_OF[part]
    what = "gap" if kind == "difference" else "ratio"
    message = (
        f"the smallest of {k} groups has {smallest} {rows} behind its {_SHORT[part]}: at "
        f"confidence {level:g} the {what} verdict detects (80% of the time) a difference "
        f"between two groups of that size only when it exceeds what the bound allows by "
        f"about {excess:.2f} (rates near 0.5); to detect an excess of {USEFUL_EXCESS:g} that "
        f"often, give each group at least {need} such rows, or merge groups")
    if conf is None:
        message += (f"; without confidence= the point estimate is judged, and the max - min "
                    f"of {k} noisy rates is biased upwards: a fair model fails it often; pass "
                    "confidence=0.95 so that one fails at most 2.5% of the time")
    warnings.warn(GroupPowerWarning(printable(message)), stacklevel=stacklevel)


#: What rows lie behind each rate (its denominator), for the warning.
_ROWS_OF = {"tpr": "positive rows", "fnr": "positive rows", "fpr": "negative rows",
            "precision": "rows predicted positive"}


def _worst(values: Mapping[Hashable, float], part: str) -> Hashable:
    finite = {k: v for k, v in values.items() if math.isfinite(v)}
    pick = min if part in _HIGHER_IS_BETTER else max
    return pick(finite, key=lambda k: finite[k])



def _wrong_examples(analysis: GroupAnalysis, group: Hashable, part: str) -> list[Violation]:
    """The rows of `group` the model got wrong for `part`, each text once, the most
    confidently wrong first (a missed positive with the lowest score, a false positive with
    the highest), as violations whose measure is the score of the positive class."""
    if analysis.texts is None:
        return []
    rows = analysis.wrong_rows(group, part)
    if analysis.scores is not None:
        s = analysis.scores
        rows.sort(key=lambda i: (s[i] if analysis.true[i] else -s[i]))
    seen: set[str] = set()
    out: list[Violation] = []
    for i in rows:
        text = analysis.texts[i]
        if text in seen:
            continue
        seen.add(text)
        out.append(Violation(
            original=text, perturbed=text,
            measure=None if analysis.scores is None else float(analysis.scores[i]),
            attribute=" x ".join(analysis.columns),
            detail=f"group {group_label(group)!r}: labelled {analysis.gold[i]!r}, predicted "
            f"{analysis.predicted[i]!r}"))
        if len(out) >= RECORDED_VIOLATIONS:
            break
    return out


class GroupOptions(TypedDict, total=False):
    """The options of the group-comparison relation, `assert_group_gap_below` and
    `assert_group_ratio_above` (one relation, two configurations): `group` (None),
    `metric` ("selection_rate"), `confidence` (None), `seed` (None), `ci_method`
    ("score"), `min_group_size` (`MIN_GROUP_SIZE`), `drop_small` (False),
    `drop_undefined` (False), `show` (5); the rows as `group_fairness` takes them:
    `positive`, `threshold`, `predictions`, `scores`, `y_true`, `groups`, `texts`
    (None each)."""

    group: str | Sequence[str] | None
    metric: str
    confidence: float | None
    seed: int | None
    ci_method: str
    min_group_size: int
    drop_small: bool
    drop_undefined: bool
    positive: object
    threshold: float | None
    predictions: object
    scores: object
    y_true: object
    groups: object
    texts: object
    show: int


Comparison = Literal["difference", "ratio"]


@dataclass(frozen=True, eq=False)
class GroupInputs:
    """The resolved inputs of a group comparison: the statistic, the checked options and
    the rows (a `GroupAnalysis`, the model run once) or a fairlearn MetricFrame's values."""

    kind: Comparison
    name: str
    bound: float
    how: str
    conf: float | None
    seed: int | None
    drop_undefined: bool
    frame: _Frame | None
    analysis: GroupAnalysis | None

    @property
    def op(self) -> Literal["<=", ">="]:
        return "<=" if self.kind == "difference" else ">="

    @property
    def word(self) -> str:
        return "gap (max - min)" if self.kind == "difference" else "ratio (min / max)"


@dataclass(frozen=True, eq=False)
class GroupMeasure:
    """The rates per group and the judged statistic (with its interval)."""

    value: float
    label: str
    parts: tuple[str, ...]
    per_group: dict[Hashable, dict[str, float]]
    sizes: dict[Hashable, int | None]
    cis: dict[Hashable, dict[str, BootstrapCI]]
    gap_ci: GroupBound | None
    bad: dict[Hashable, str]
    notes: list[str]
    skipped: dict[str, int]


def _resolve_groups(kind: Comparison, fn: str, source: object, data: object, bound: float,
                    options: GroupOptions) -> GroupInputs:
    """Check every option (in the order the relation always has) and resolve the rows."""
    unknown = sorted(set(options) - set(GroupOptions.__annotations__))
    if unknown:
        raise TypeError(f"{fn}() got an unexpected keyword argument {unknown[0]!r}")
    o = options
    check_show(o.get("show", DEFAULT_SHOWN))
    rows = _options(o.get("group"), o.get("predictions"), o.get("scores"), o.get("y_true"),
                    o.get("groups"), o.get("texts"), o.get("positive"), o.get("threshold"),
                    o.get("min_group_size", MIN_GROUP_SIZE), o.get("drop_small", False))
    metric, ci_method = o.get("metric", "selection_rate"), o.get("ci_method", "score")
    name = check_gap_metric(metric)
    drop_undefined = o.get("drop_undefined", False)
    if not isinstance(drop_undefined, bool):
        raise ConfigurationError(f"drop_undefined must be True or False, got "
                                 f"{drop_undefined!r:.40}")
    if ci_method not in _CI_METHODS:
        raise ConfigurationError(
            f"ci_method must be one of {', '.join(map(repr, _CI_METHODS))} (the intervals "
            f"of each group's rate), got {ci_method!r:.60}")
    if _is_metric_frame(source):
        if data is not None or any(v is not None for k, v in rows.items()
                                   if k not in ("min_group_size", "drop_small")):
            raise ConfigurationError("a MetricFrame holds its own rows: pass it alone")
        return GroupInputs(kind, name, bound, str(ci_method), None, None, drop_undefined,
                           _from_frame(source, metric), None)
    conf = check_confidence(o.get("confidence"))
    seed = check_seed(o.get("seed"))
    return GroupInputs(kind, name, bound, str(ci_method), conf, seed, drop_undefined, None,
                       _analysis(source, data, rows))


def _measure_frame(inputs: GroupInputs, frame: _Frame) -> GroupMeasure:
    """The statistic of a fairlearn MetricFrame: its by_group values, difference(),
    ratio()."""
    bad: dict[Hashable, str] = {k: "undefined (NaN) in the MetricFrame"
                                for k, v in frame.values.items() if not math.isfinite(v)}
    values = {k: v for k, v in frame.values.items() if k not in bad}
    if bad and not inputs.drop_undefined:
        raise ConfigurationError(
            f"{frame.metric} is undefined for {len(bad)} group(s): "
            + ", ".join(map(group_label, bad)) + "; fix the data, or pass "
            "drop_undefined=True to judge the other groups (the left-out groups are "
            "reported)")
    skipped: dict[str, int] = {}
    if bad:
        skipped[f"groups with undefined {frame.metric}"] = len(bad)
        rates = np.array(list(values.values()), dtype=np.float64)
        hi, lo = (float(rates.max()), float(rates.min())) if rates.size else (0.0, 0.0)
        value = hi - lo if inputs.kind == "difference" else (lo / hi if hi > 0 else math.nan)
    else:
        value = frame.difference if inputs.kind == "difference" else frame.ratio
    label = frame.metric
    return GroupMeasure(
        value, label, (label,), {k: {label: v} for k, v in values.items()},
        dict.fromkeys(values), {}, None, bad,
        ["judged from a fairlearn MetricFrame: its by_group values, difference() and "
         "ratio(); no intervals or example rows"], skipped)


def _measure_rows(inputs: GroupInputs, analysis: GroupAnalysis) -> GroupMeasure:
    """The statistic of the rows: every group's rate and the simultaneous bound of the
    gap or ratio (`metrics.group_bounds`)."""
    name, gm = inputs.name, analysis.metrics
    skipped = dict(analysis.skipped)
    bad = gm.undefined(name)
    if bad and not inputs.drop_undefined:
        raise ConfigurationError(
            f"{_SHORT[name]} is undefined for {len(bad)} of {len(gm.groups)} group(s): "
            + "; ".join(f"{group_label(k)!r} (n={gm.groups[k].n}): {why}"
                        for k, why in bad.items())
            + ". A rate over no rows is not 0: add rows, or pass drop_undefined=True to "
            "judge the other groups (the left-out groups are reported)")
    if bad:
        skipped[f"rows in groups with undefined {_SHORT[name]}"] = sum(
            gm.groups[k].n for k in bad)
        gm = gm.without(list(bad))
    if len(gm.groups) < 2:
        raise judged_nothing(
            GROUP_RELATIONS[inputs.kind].name,
            f"{len(gm.groups)} group(s) left to compare (skipped: "
            + ", ".join(f"{n} {w}" for w, n in skipped.items()) + ")",
            "give the data at least two groups with a defined rate")
    found = simultaneous_group_bound(gm, name, inputs.kind, confidence=inputs.conf or 0.95)
    parts = _parts(name)
    notes = []
    if found.undefined_parts:
        gone = ", ".join(_SHORT[p] for p in found.undefined_parts)
        notes.append(
            f"{gone} is 0 in every group: its ratio is 0/0 (undefined), so equalized "
            f"odds is judged on {', '.join(_SHORT[p] for p in found.parts)} alone")
    cis: dict[Hashable, dict[str, BootstrapCI]] = {}
    if inputs.conf is not None:
        cis = _group_cis(gm, name, inputs.conf, inputs.how, inputs.seed)
        notes.append(_bound_note(found, inputs.word, inputs.how))
    # the warning points at the line that called the assert_* function
    _warn_if_underpowered(gm, found, inputs.kind, inputs.conf, stacklevel=9)
    if analysis.metrics.dropped:
        notes.append("left out, under min_group_size="
                     f"{analysis.metrics.min_group_size}: " + ", ".join(
                         f"{group_label(k)!r} ({n} rows)"
                         for k, n in analysis.metrics.dropped.items()))
    return GroupMeasure(
        found.estimate, _SHORT[name], parts,
        {k: {p: g.rate(p) for p in parts} for k, g in gm.groups.items()},
        {k: g.n for k, g in gm.groups.items()}, cis,
        found if inputs.conf is not None else None, bad, notes, skipped)


def _text_table(m: GroupMeasure, rows: list[list[Any]], word: str, op: str,
                bound: float) -> list[str]:
    """The per-group table of the failure message (the report draws `Table`)."""
    width = max(5, *(len(str(r[0])) for r in rows))
    lines = [f"per group ({len(rows)}, worst first):",
             "  " + f"{'group':<{width}}  {'n':>6}  " + "  ".join(
                 f"{_SHORT.get(p, p):>14}  {'interval':<16}" for p in m.parts).rstrip()]
    for r in rows:
        n_text = "" if r[1] is None else str(r[1])
        cells = "  ".join(f"{_fmt(r[2 + 2 * i]):>14}  {(r[3 + 2 * i] or ''):<16}"
                          for i in range(len(m.parts)))
        lines.append(f"  {r[0]!s:<{width}}  {n_text:>6}  {cells}".rstrip())
    lines.append(f"{m.label} {word} = {_fmt(m.value)}"
                 + (f" {_ci_text(m.gap_ci)}" if m.gap_ci else "")
                 + f" (bound {op} {bound:g})")
    return lines


def _group_chart(m: GroupMeasure, order: list[Hashable]) -> BarChart:
    bars: list[tuple[str, float]] = []
    spans: list[tuple[float, float] | None] = []
    for k in order:
        for p in m.parts:
            bar = f"{group_label(k)} {_SHORT.get(p, p)}" if len(m.parts) > 1 else group_label(k)
            ci = m.cis.get(k, {}).get(p)
            bars.append((bar, m.per_group[k][p]))
            spans.append((ci.low, ci.high) if ci is not None and _ci_text(ci)
                         and ci.low <= ci.high else None)
    return BarChart(f"{m.label} by group", bars, value_label=m.label, intervals=spans,
                    caption="the rate per group" + (", with its interval" if m.cis else ""))


def _group_measurements(inputs: GroupInputs, m: GroupMeasure
                        ) -> tuple[list[Measurement], dict[str, Hashable]]:
    """The judged statistic and each part's worst group against its best."""
    per_group = m.per_group
    measurements: list[Measurement] = measured(
        f"{m.label} {inputs.word} over {len(per_group)} groups", m.value, inputs.bound,
        None if m.gap_ci is None else (m.gap_ci.low, m.gap_ci.high), op=inputs.op,
        method=m.gap_ci.method if m.gap_ci is not None else None)
    worst_parts = {p: _worst({k: v[p] for k, v in per_group.items()}, p) for p in m.parts
                   if any(math.isfinite(v[p]) for v in per_group.values())}
    for p, k in worst_parts.items():
        best = (max if p in _HIGHER_IS_BETTER else min)(
            (x for x in per_group if math.isfinite(per_group[x][p])),
            key=lambda x: per_group[x][p])
        measurements.append(Measurement(
            f"{_SHORT.get(p, p)}: worst group {group_label(k)!r} vs best {group_label(best)!r}",
            per_group[k][p], None, ">=" if p in _HIGHER_IS_BETTER else "<="))  # its direction
    return measurements, worst_parts


class GroupComparison(Relation[GroupInputs, GroupMeasure]):
    """A rate compared between groups: the gap (max - min, `assert_group_gap_below`) or
    the ratio (min / max, `assert_group_ratio_above`) of one relation."""

    def __init__(self, kind: Comparison) -> None:
        self.kind = kind
        self.name = "group_gap" if kind == "difference" else "group_ratio"

    def measure(self, inputs: GroupInputs) -> GroupMeasure:
        if inputs.frame is not None:
            return _measure_frame(inputs, inputs.frame)
        assert inputs.analysis is not None
        return _measure_rows(inputs, inputs.analysis)

    def present(self, inputs: GroupInputs, measured_: GroupMeasure, *, show: int
                ) -> Presented:
        m, analysis, op, bound, word = (measured_, inputs.analysis, inputs.op, inputs.bound,
                                        inputs.word)
        notes = list(m.notes)
        if m.bad:
            notes.append("left out, rate undefined: " + "; ".join(
                f"{group_label(k)!r}: {why}" for k, why in m.bad.items()))
        first = m.parts[0]  # the table: groups by their (first part's) rate, worst first
        order = sorted(m.per_group, key=lambda k: m.per_group[k][first],
                       reverse=first not in _HIGHER_IS_BETTER)
        columns = ["group", "n"]
        for p in m.parts:
            columns += [_SHORT.get(p, p), f"{_SHORT.get(p, p)} CI"]
        rows: list[list[Any]] = [
            [group_label(k), m.sizes[k], *(x for p in m.parts for x in (
                round(m.per_group[k][p], 4), _ci_text(m.cis.get(k, {}).get(p)) or None))]
            for k in order]
        measurements, worst_parts = _group_measurements(inputs, m)
        passed = all(x.holds for x in measurements)
        table = Table(
            f"{m.label} by group ({word} {op} {bound:g})", columns, rows,
            caption=f"{_REFERENCE.get(inputs.name, m.label)}; worst group first"
            + (f"; {m.gap_ci.confidence:.0%} intervals ({_PER_GROUP[inputs.how]} per group, "
               f"{m.gap_ci.method} for the {word.split()[0]})" if m.gap_ci else ""))
        violations: list[Violation] = []
        if not passed and analysis is not None and analysis.texts is not None and worst_parts:
            # the examples of the part with the larger gap (equalized odds: TPR or FPR)
            p = max(worst_parts, key=lambda x: analysis.metrics.difference(x))
            violations = _wrong_examples(analysis, worst_parts[p], p)
        skipped = m.skipped
        source = _REFERENCE.get(inputs.name, m.label) if analysis is not None else "fairlearn"
        return Presented(
            measurements=measurements,
            statement=f"the {m.label} {word} between groups must be {op} {bound:g} ({source})",
            measure_name=f"P({analysis.positive if analysis is not None else 'positive'})",
            discrimination=(m.value - bound if op == "<=" else bound - m.value)
            if math.isfinite(m.value) else None,
            violations=violations,
            n_inputs=sum(n or 0 for n in m.sizes.values()) if analysis is not None
            else len(m.per_group),
            n_violations=len(violations),
            sections=(table, _group_chart(m, order)),
            notes=[*_text_table(m, rows, word, op, bound), *notes,
                   *([f"skipped: {', '.join(f'{n} {w}' for w, n in skipped.items())}"]
                     if skipped else [])],
            extra={
                "metric": inputs.name if analysis is not None else m.label,
                "statistic": inputs.kind,
                **({"interval": m.gap_ci.to_dict()} if m.gap_ci is not None else {}),
                "by_group": {group_label(k): {p: (v if math.isfinite(v) else None)
                                              for p, v in m.per_group[k].items()}
                             for k in order},
                **({"groups": analysis.to_dict()} if analysis is not None else {}),
                **skipped_counts(skipped),
            },
            inputs_title=("rows of the worst group that the model got wrong" if violations
                          else None),
            passed=passed,
        )


GROUP_RELATIONS: dict[Comparison, GroupComparison] = {
    kind: GroupComparison(kind) for kind in ("difference", "ratio")}


def _compare(kind: Comparison, fn: str, source: object, data: object, bound: float,
             options: GroupOptions) -> None:
    __tracebackhide__ = True
    GROUP_RELATIONS[kind].check(
        lambda: _resolve_groups(kind, fn, source, data, bound, options),
        show=options.get("show", DEFAULT_SHOWN), stacklevel=5)


def assert_group_gap_below(
    model: object = None, data: object = None, *, max_gap: float,
    **options: Unpack[GroupOptions],
) -> None:
    """The difference of `metric` between groups (max - min over the groups) <= `max_gap`.

    `metric` is a rate of `metrics.groups.RATES` ("selection_rate", "tpr", "fpr", "fnr",
    "precision", "accuracy"), "equalized_odds" (the larger of the TPR and FPR
    differences; Hardt et al. 2016, Definition 1), or a criterion: "demographic_parity"
    (selection rate; Calders and Verwer 2010, Dwork et al. 2012), "equal_opportunity"
    (TPR; Hardt et al. 2016, Definition 2), "predictive_parity" (precision; Chouldechova
    2017). The difference is fairlearn's ``MetricFrame.difference()``.

    `model` is a model, a `GroupAnalysis` or a fairlearn `MetricFrame`; the other inputs
    are those of `group_fairness`.

    Without `confidence` the point estimate is judged: the max - min of noisy rates, which
    is biased upwards (a fair model's gap over 10 groups of 30 rows is about 0.27 on
    average). With `confidence` (e.g. 0.95) the verdict uses the lower end of a
    simultaneous score interval of the gap (`metrics.group_bounds`: Newcombe's interval
    of every pair of groups, Bonferroni-adjusted over the pairs): the test fails only when
    the data show the true gap is above `max_gap`, which happens to a model whose true gap
    is within `max_gap` (a fair model among them) at most (1 - confidence) / 2 of the time,
    for any number of groups and any group size. `ci_method` picks the per-group intervals
    shown in the table: "score" (Wilson, default), "bca" or "percentile" (stratified
    bootstrap, seeded by `seed`); it does not change the verdict. Groups too small for the
    verdict to have useful power get a `GroupPowerWarning` (see the README for the
    recommended sizes).

    A group whose rate is undefined (a TPR without positive rows) raises
    `ConfigurationError`, or with `drop_undefined=True` is left out and reported.
    """
    __tracebackhide__ = True
    _compare("difference", "assert_group_gap_below", model, data,
             check_bound(max_gap, "max_gap", upper=1.0), options)


def assert_group_ratio_above(
    model: object = None, data: object = None, *, min_ratio: float = 0.8,
    **options: Unpack[GroupOptions],
) -> None:
    """The ratio of `metric` between groups (min / max over the groups) >= `min_ratio`.

    By default the four-fifths rule: every group's selection rate is at least 0.8 of the
    highest group's (US EEOC Uniform Guidelines, 29 CFR 1607.4(D); demographic parity
    ratio). `metric` and the inputs are those of `assert_group_gap_below`; for
    "equalized_odds" the ratio is the smaller of the TPR and FPR ratios (fairlearn's
    `equalized_odds_ratio`); when one of them is 0 / 0 (every group's FPR is 0, say) the
    other is judged alone, and the notes say so. With `confidence` the verdict uses the
    upper end of a simultaneous score interval of the ratio (MOVER-R intervals of every
    pair of groups, Bonferroni-adjusted; `metrics.group_bounds`): the test fails only when
    the data show the true ratio is below `min_ratio`, which happens to a model whose true
    ratio is at least `min_ratio` at most (1 - confidence) / 2 of the time.
    """
    __tracebackhide__ = True
    _compare("ratio", "assert_group_ratio_above", model, data,
             check_bound(min_ratio, "min_ratio", upper=1.0), options)


def _options(
    group: object, predictions: object, scores: object, y_true: object, groups: object,
    texts: object, positive: object, threshold: object, min_group_size: object,
    drop_small: object,
) -> dict[str, Any]:
    return {"group": group, "predictions": predictions, "scores": scores, "y_true": y_true,
            "groups": groups, "texts": texts, "positive": positive, "threshold": threshold,
            "min_group_size": check_int(min_group_size, "min_group_size", minimum=1),
            "drop_small": drop_small}


def assert_group_aucs_above(
    model: object = None,
    data: object = None,
    *,
    min_auc: float,
    group: str | Sequence[str] | None = None,
    metrics: Sequence[str] = AUC_METRICS,
    min_group_size: int = MIN_GROUP_SIZE,
    drop_small: bool = False,
    positive: object = None,
    scores: object = None,
    y_true: object = None,
    groups: object = None,
    texts: object = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """Borkan et al.'s subgroup, BPSN and BNSP AUCs >= `min_auc` for every group of a
    column at once (cross-geographic-toxicity-bias, section 5.2): each group's rows
    against all the others, as `checks.bias_auc.assert_subgroup_aucs_above` judges them
    (one result, the table of every group x AUC, worst first).

    `model` is a model (its score of the positive class) or a `GroupAnalysis` with
    scores; or pass `scores=`. The rows are those of `group_fairness`; `group` may name
    several columns (intersectional groups, named "a & b").
    """
    __tracebackhide__ = True
    options = _options(group, None, scores, y_true, groups, texts, positive, None,
                       min_group_size, drop_small)
    analysis = _analysis(model, data, options)
    if analysis.scores is None:
        raise ConfigurationError(
            "bias AUCs rank the rows by score: pass a model or scores=, not predictions=")
    masks: dict[str, BoolArray] = {}
    for key in analysis.metrics.groups:
        masks[group_label(key)] = np.array([k == key for k in analysis.keys], dtype=np.bool_)
    assert_subgroup_aucs_above(
        analysis.scores, analysis.true, masks, min_auc, metrics,
        texts=None if analysis.texts is None else list(analysis.texts), show=show)
