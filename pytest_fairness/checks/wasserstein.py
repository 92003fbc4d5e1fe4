"""Distances and gaps between score distributions (counterfactual-sentiment-bias, section 3).

`assert_wasserstein_below` bounds W1 between two samples of scores, between every group's
scores and the pooled scores of all groups (the terms of Total Group Fairness), or between
every two groups. `assert_paired_gap_below` bounds the signed mean gap between two groups
measured on the same units (counterfactual pairs, template cells), which an unpaired
distance cannot see when the units differ more than the groups do.

Both are relations of the pipeline (`checks.pipeline`): `_resolve_w1` / `_resolve_paired`
(the options and scores checked once), `measure` (the pure `metrics.wasserstein` and
`metrics.paired_gap`, with their bootstrap intervals) and `present`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from ..metrics.bootstrap import (
    BootstrapCI,
    bootstrap_group_wasserstein,
    bootstrap_paired_gap,
    bootstrap_wasserstein,
)
from ..metrics.paired import PairedGapResult, paired_gap
from ..metrics.validation import check_ci_method
from ..metrics.wasserstein import wasserstein
from ..results import Measurement
from .pipeline import Presented, Relation
from .verdict import (
    N_RESAMPLES,
    abs_interval,
    check_bound,
    check_confidence,
    check_scores,
    check_seed,
    interval_note,
    measured,
    run_seed,
)

__all__ = [
    "assert_paired_gap_below",
    "assert_wasserstein_below",
]

#: What the mapping form of `assert_wasserstein_below` compares.
AGAINST = ("pool", "pairs")


def _scores_1d(values: object, name: str) -> Any:
    check_scores(values, name)
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ConfigurationError(f"{name} must be a non-empty 1-D sequence of scores, got "
                                 f"shape {arr.shape}")
    return arr


def assert_wasserstein_below(
    scores_a: object,
    scores_b: object = None,
    max_w1: float | None = None,
    *,
    confidence: float | None = None,
    seed: int | None = None,
    against: str = "pool",
    ci_method: str = "directional",
) -> None:
    """W1 between score distributions <= `max_w1` (counterfactual-sentiment-bias, section
    3, eq. 1: for scores in [0, 1], W1 is the gap in positive rates averaged over every
    decision threshold).

    Two samples: W1(a, b), measured as "W1(a, b)". One mapping group -> scores: by default
    (`against="pool"`) every group's W1 to the pooled scores of all groups, measured as
    "W1(<group>, pool)" (the terms of Total Group Fairness, eq. 4; their sum is recorded
    too). That is a different statistic from W1 between two groups and the same bound
    means something else for it: the pool contains the group, so for two groups
    W1(a, pool) = n_b / (n_a + n_b) * W1(a, b), half the pairwise distance at equal sizes.
    `against="pairs"` bounds W1 between every two groups instead, "W1(<g>, <h>)", where
    `max_w1` means what it means for two samples.

    With `confidence` (e.g. 0.95) each W1 is judged on the lower end of a bootstrap
    interval (`ci_method`, default "directional"; see `metrics.bootstrap`): the plug-in W1
    is above 0 even for two samples of one distribution, and so are its bootstrap copies,
    so percentile ("percentile") and BCa ("bca") intervals lie above a true 0; the
    directional bootstrap bounds W1's error instead, and the lower end is 0 unless a
    permutation test rejects "one distribution" at level (1 - confidence) / 2. A test then
    fails with probability at most (1 - confidence) / 2 when W1 is at the bound, and on
    identical distributions whatever the bound. The groups are resampled each on its own,
    the pool rebuilt from them. These rates are simulated for 100 scores per group
    (`tests/checks/test_statistics.py`); with fewer scores the intervals are wide and err
    on the side of passing. The failure message says which interval was used.
    """
    __tracebackhide__ = True
    WASSERSTEIN.check(
        lambda: _resolve_w1(scores_a, scores_b, max_w1, confidence, seed, against, ci_method),
        stacklevel=4)


@dataclass(frozen=True, eq=False)
class W1Inputs:
    """The checked samples, paired for W1 (by name), and the checked options."""

    pairs: dict[str, tuple[Any, Any]]
    groups: dict[str, Any] | None
    """The groups of the pool form (each group against the pooled scores), else None."""
    n_inputs: int
    bound: float
    conf: float | None
    seed: int
    method: str


@dataclass(frozen=True, eq=False)
class W1Measure:
    values: dict[str, float]
    cis: dict[str, BootstrapCI | None]


def _resolve_w1(scores_a: object, scores_b: object, max_w1: object, confidence: object,
                seed: object, against: object, ci_method: str) -> W1Inputs:
    if max_w1 is None:
        raise ConfigurationError("pass max_w1=<the largest Wasserstein-1 distance allowed>")
    bound = check_bound(max_w1, "max_w1")
    conf = check_confidence(confidence)
    rng_seed = run_seed(check_seed(seed))
    method = check_ci_method(ci_method, ("directional", "bca", "percentile"), "ci_method")
    if against not in AGAINST:
        raise ConfigurationError(
            f"against must be 'pool' (each group's W1 to the pooled scores) or 'pairs' (W1 "
            f"between every two groups), got {against!r}"
        )
    if not isinstance(scores_a, Mapping):
        a = _scores_1d(scores_a, "scores_a")
        b = _scores_1d(scores_b, "scores_b")
        return W1Inputs({"W1(a, b)": (a, b)}, None, len(a) + len(b), bound, conf, rng_seed,
                        method)
    if scores_b is not None:
        raise ConfigurationError(
            "scores_a is a mapping group -> scores and scores_b is given too: pass the "
            "mapping alone (scores_b=None), or two samples of scores, not both")
    if len(scores_a) < 2:
        raise ConfigurationError("a mapping of groups needs at least two groups to compare")
    groups = {str(g): _scores_1d(v, f"scores of group {g!r}") for g, v in scores_a.items()}
    if against == "pool":
        pooled = np.concatenate(list(groups.values()))
        pairs = {f"W1({g}, pool)": (v, pooled) for g, v in groups.items()}
    else:
        pairs = {f"W1({g}, {h})": (groups[g], groups[h]) for g, h in combinations(groups, 2)}
    return W1Inputs(pairs, groups if against == "pool" else None,
                    sum(len(v) for v in groups.values()), bound, conf, rng_seed, method)


class WassersteinRelation(Relation[W1Inputs, W1Measure]):
    """W1 between score distributions (counterfactual-sentiment-bias, section 3)."""

    name = "wasserstein"

    def measure(self, inputs: W1Inputs) -> W1Measure:
        values = {name: wasserstein(x, y) for name, (x, y) in inputs.pairs.items()}
        cis: dict[str, BootstrapCI | None] = dict.fromkeys(inputs.pairs)
        if inputs.conf is not None:
            options: dict[str, Any] = {"n_resamples": N_RESAMPLES, "confidence": inputs.conf,
                                       "seed": inputs.seed, "method": inputs.method}
            if inputs.groups is not None:
                by_group = bootstrap_group_wasserstein(inputs.groups, **options)
                cis = {f"W1({g}, pool)": ci for g, ci in by_group.items()}
            else:
                cis = {name: bootstrap_wasserstein(x, y, **options)
                       for name, (x, y) in inputs.pairs.items()}
        return W1Measure(values, cis)

    def present(self, inputs: W1Inputs, measured_: W1Measure, *, show: int) -> Presented:
        values, cis, conf, bound = measured_.values, measured_.cis, inputs.conf, inputs.bound
        pool_form, method = inputs.groups is not None, inputs.method
        measurements: list[Measurement] = []
        for name, value in values.items():
            measurements += measured(name, value, bound, cis[name],
                                     method=method if conf else None)
        notes = []
        if pool_form:
            measurements.append(Measurement("total group fairness (sum of W1(g, pool))",
                                            sum(values.values())))
            notes.append(
                "W1(g, pool) is each group's distance to the pooled scores of all groups "
                "(Total Group Fairness terms, eq. 4), smaller than the distance between "
                "groups: for two groups of equal size, half of it; against='pairs' bounds W1 "
                "between every two groups.")
        p_values = {name: ci.p_value for name, ci in cis.items() if ci is not None}
        if conf is not None:
            what = "of each group, the pool rebuilt from them" if pool_form else "of each sample"
            notes.append(
                interval_note(conf, method, what) + "; the lower end is 0 unless a "
                f"permutation test rejects one distribution at level {(1 - conf) / 2:.3g} "
                "(p: " + ", ".join(f"{n} {p:.3g}" for n, p in p_values.items()
                                   if p is not None) + ").")
        statement = (
            f"each group's W1 to the pooled scores of all groups must be <= {bound:g} "
            "(Total Group Fairness terms; counterfactual-sentiment-bias, section 3, eq. 4)"
        ) if pool_form else (f"score distributions must be within W1 <= {bound:g} "
                             "(counterfactual-sentiment-bias, section 3)")
        return Presented(
            measurements=measurements,
            statement=statement,
            measure_name="W1",
            discrimination=max(values.values()),
            n_inputs=inputs.n_inputs,
            notes=notes,
            extra={
                "w1": values,
                "statistic": "group_to_pool" if pool_form else "pairwise",
                **({"confidence": {"level": conf, "method": method,
                                   "n_resamples": N_RESAMPLES, "permutation_p": p_values}}
                   if conf is not None else {}),
            },
        )


WASSERSTEIN = WassersteinRelation()


def _group_names(names: Sequence[str]) -> tuple[str, str]:
    if (isinstance(names, (str, bytes)) or not isinstance(names, Sequence)
            or len(names) != 2 or not all(isinstance(n, str) for n in names)):
        raise ConfigurationError(
            f"names must be the two groups' names (strings), e.g. ('female', 'male'), got "
            f"{names!r:.60}"
        )
    a, b = names
    if not a or not b or a == b:
        raise ConfigurationError(f"names must be two different non-empty names, got {names!r}")
    return a, b


@dataclass(frozen=True, eq=False)
class PairedInputs:
    """The checked paired scores, the groups' names and the checked options."""

    scores_a: object
    scores_b: object
    names: tuple[str, str]
    bound: float
    conf: float | None
    seed: int | None
    method: str


@dataclass(frozen=True, eq=False)
class PairedMeasure:
    gap: PairedGapResult
    ci: BootstrapCI | None


def _resolve_paired(scores_a: object, scores_b: object, max_gap: object, confidence: object,
                    seed: object, ci_method: str, names: Sequence[str]) -> PairedInputs:
    bound = check_bound(max_gap, "max_gap")
    conf = check_confidence(confidence)
    rng_seed = check_seed(seed)
    method = check_ci_method(ci_method, ("studentized", "bca", "percentile"), "ci_method")
    group_names = _group_names(names)
    check_scores(scores_a, "scores_a", nested=True)
    check_scores(scores_b, "scores_b", nested=True)
    return PairedInputs(scores_a, scores_b, group_names, bound, conf, rng_seed, method)


class PairedGapRelation(Relation[PairedInputs, PairedMeasure]):
    """|mean over pairs of (score_a - score_b)| at most the bound
    (counterfactual-sentiment-bias, section 3)."""

    name = "paired_gap"

    def measure(self, inputs: PairedInputs) -> PairedMeasure:
        found = paired_gap(inputs.scores_a, inputs.scores_b)
        ci = None if inputs.conf is None else bootstrap_paired_gap(
            inputs.scores_a, inputs.scores_b, n_resamples=N_RESAMPLES,
            confidence=inputs.conf, seed=run_seed(inputs.seed), method=inputs.method,
        )
        return PairedMeasure(found, ci)

    def present(self, inputs: PairedInputs, measured_: PairedMeasure, *,
                show: int) -> Presented:
        found, ci, conf, bound, method = (measured_.gap, measured_.ci, inputs.conf,
                                          inputs.bound, inputs.method)
        name_a, name_b = inputs.names
        label = f"gap {name_a} - {name_b}"
        mean_over = f"{label} (mean over {found.n_pairs} pairs)"
        if ci is None:
            measurements = [Measurement(mean_over, found.gap),
                            Measurement(f"|{label}|", abs(found.gap), bound)]
        else:
            measurements = [
                Measurement(mean_over, found.gap, None, ci=(ci.low, ci.high)),
                *measured(f"|{label}|", abs(found.gap), bound, abs_interval(ci.low, ci.high),
                          method=method),
            ]
        notes = [
            f"{found.n_positive} of {found.n_pairs} pairs score higher for {name_a}, "
            f"{found.n_negative} for {name_b} (sign test p = {found.sign_test_p:.3g})."
        ]
        if conf is not None:
            notes.append(interval_note(conf, method, "of the pairs") + ".")
        summary = found.to_dict()
        summary.pop("per_pair")
        return Presented(
            measurements=measurements,
            statement=f"paired scores of {name_a} and {name_b} must be within |mean gap| <= "
            f"{bound:g} (gap {name_a} - {name_b} per unit; counterfactual-sentiment-bias, "
            "section 3)",
            measure_name="gap",
            discrimination=abs(found.gap) if math.isfinite(found.gap) else None,
            n_inputs=found.n_pairs,
            notes=notes,
            extra={
                **summary,
                "names": [name_a, name_b],
                **({"confidence": {"level": conf, "method": method,
                                   "n_resamples": N_RESAMPLES}}
                   if conf is not None else {}),
            },
        )


PAIRED_GAP = PairedGapRelation()


def assert_paired_gap_below(
    scores_a: object,
    scores_b: object,
    max_gap: float,
    *,
    confidence: float | None = None,
    seed: int | None = None,
    ci_method: str = "studentized",
    names: Sequence[str] = ("a", "b"),
) -> None:
    """|mean over pairs of (score_a - score_b)| <= `max_gap`, for paired scores.

    `scores_a[i]` and `scores_b[i]` belong to the same unit: a counterfactual pair (the
    same sentence with each group's term), or a template cell filled with each group's
    term (counterfactual-sentiment-bias, section 3), as one score each or as several
    (continuations sampled per cell, averaged per cell first). The gap is signed
    (positive: group a scores higher) and reported as "gap a - b", with how many pairs
    have each sign and the sign test's p-value; `names` labels the groups.

    Pairing is what an unpaired comparison lacks: when templates differ more than the
    groups do, W1 between the pooled scores (`assert_wasserstein_below`) stays small even
    if group a scores higher in every single template. With `confidence` (e.g. 0.95) the
    verdict uses the bootstrap interval of the mean gap over pairs (`ci_method`, default
    "studentized", the symmetric bootstrap-t; "bca" and "percentile" also): the test fails
    only when the whole interval lies outside [-max_gap, max_gap], with probability at
    most (1 - confidence) / 2 when the gap is at the bound. Meant for 20 or more pairs.
    """
    __tracebackhide__ = True
    PAIRED_GAP.check(
        lambda: _resolve_paired(scores_a, scores_b, max_gap, confidence, seed, ci_method,
                                names),
        stacklevel=4)
