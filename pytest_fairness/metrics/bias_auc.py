"""Nuanced bias metrics of Borkan et al. (2019), as used by the cross-geographic paper.

Ghosh et al. (2021), "Detecting Cross-Geographic Biases in Toxicity Modeling on Social
Media" (shared/papers/cross-geographic-toxicity-bias.txt), section 5.2. With D_g the
examples of the subgroup (those containing the term), "background" the rest, and + / -
the toxic / non-toxic labels:

1. Subgroup AUC: AUC on D_g^- u D_g^+. Low: inside the subgroup the model separates toxic
   from non-toxic examples poorly.
2. BPSN AUC (background positive, subgroup negative): AUC on D_bg^+ u D_g^-. Low: the
   subgroup's non-toxic examples score like the toxic ones elsewhere (false positives:
   the identity term itself is treated as toxic).
3. BNSP AUC (background negative, subgroup positive): AUC on D_bg^- u D_g^+. Low: the
   subgroup's toxic examples score like the non-toxic ones elsewhere (false negatives:
   the model misses hostility about the subgroup).
4. AEG+ / AEG- (Average Equality Gap, Borkan et al. section 3.3): how the subgroup's
   positive (negative) scores compare with the background's positive (negative) scores,
   in [-1/2, 1/2], 0 meaning no gap.

Every AUC is the normalised Mann-Whitney U: P(score of a positive > score of a negative),
ties counting 1/2.

Sign of AEG. Here AEG = MWU(D_g, D_bg) / (|D_g| |D_bg|) - 1/2 within each class, so
**AEG > 0 when the subgroup's examples score higher than the background's** (AEG+ > 0: its
toxic examples look more toxic; AEG- > 0: its non-toxic examples look more toxic, the
false-positive bias). This follows the conversationai reference code
(``compute_positive_aeg`` / ``compute_negative_aeg`` in unintended-ml-bias-analysis,
``model_bias_analysis.py``: 0.5 - MWU(background, subgroup)) and the reading of section
5.4 ("the high AEG+/- of clusters C0 and C2 indicates that both clusters, on average,
score higher than background examples"). It is the negative of Borkan et al.'s equation 4
as usually quoted (AEG = 1/2 - MWU(D_g, D_bg) / (|D_g| |D_bg|), positive when the
subgroup scores lower): flip one sign before comparing figures across the conventions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import BoolArray, FloatArray, as_float_array

__all__ = [
    "AEG_SIGN",
    "as_mask",
    "bias_aucs",
    "mann_whitney_auc",
    "misranked_examples",
    "misranked_share",
    "subgroup_bias_aucs",
]

#: The sign convention of AEG, in words (for reports and messages).
AEG_SIGN = (
    "AEG > 0 when the subgroup scores higher than the background (conversationai "
    "reference code; the negative of Borkan et al.'s equation 4 as usually quoted)"
)


def _midranks(values: FloatArray) -> FloatArray:
    """1-based ranks with ties given their average rank."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    n = values.shape[0]
    # boundaries of runs of equal values
    starts = np.flatnonzero(np.concatenate([[True], sorted_vals[1:] != sorted_vals[:-1]]))
    ends = np.concatenate([starts[1:], [n]])
    avg = (starts + ends + 1) / 2.0  # mean of ranks starts+1 .. ends
    run_of = np.repeat(np.arange(starts.shape[0]), ends - starts)
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = avg[run_of]
    return ranks


def mann_whitney_auc(positive_scores: Any, negative_scores: Any) -> float:
    """P(X > Y) + P(X = Y) / 2 for X from `positive_scores`, Y from `negative_scores`.

    The normalised Mann-Whitney U statistic U / (|X| |Y|), computed from mid-ranks.
    """
    x = as_float_array(positive_scores, "positive_scores", ndim=1)
    y = as_float_array(negative_scores, "negative_scores", ndim=1)
    ranks = _midranks(np.concatenate([x, y]))
    nx, ny = x.shape[0], y.shape[0]
    u = float(ranks[:nx].sum()) - nx * (nx + 1) / 2.0
    return float(u / (nx * ny))


def as_mask(values: Any, name: str, n: int) -> BoolArray:
    """`values` (booleans or 0/1) as a boolean vector of length `n`; `ConfigurationError`
    naming `name` on another shape or value."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ConfigurationError(f"{name} must have shape ({n},), got {arr.shape}")
    if arr.dtype == np.bool_:
        return np.asarray(arr, dtype=np.bool_)
    try:
        num = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{name} must be booleans or 0/1: {exc}") from exc
    if not np.isin(num, (0.0, 1.0)).all():
        bad = num[~np.isin(num, (0.0, 1.0))][0]
        raise ConfigurationError(f"{name} must be booleans or 0/1, found {bad!r}")
    return np.asarray(num == 1.0, dtype=np.bool_)


def bias_aucs(scores: Any, labels: Any, in_subgroup: Any) -> dict[str, float]:
    """Borkan et al.'s five bias metrics for one subgroup (cross-geographic, section 5.2).

    Args:
        scores: model scores of the target (toxic) class, shape (n,).
        labels: true labels, 1/True for toxic (positive), shape (n,).
        in_subgroup: 1/True for examples containing the subgroup term, shape (n,).

    Returns a dict with keys subgroup_auc, bpsn_auc, bnsp_auc, aeg_positive, aeg_negative.
    The AEGs are P(subgroup score > background score) - 1/2 within the toxic (positive)
    and non-toxic (negative) examples: > 0 when the subgroup scores higher (`AEG_SIGN`:
    the conversationai reference code's sign, the negative of Borkan et al.'s equation 4
    as usually quoted).
    Raises ValueError naming the population that is empty (each metric needs subgroup
    and background examples of both labels).
    """
    s = as_float_array(scores, "scores", ndim=1)
    n = s.shape[0]
    y = as_mask(labels, "labels", n)
    g = as_mask(in_subgroup, "in_subgroup", n)
    populations = {
        "subgroup positive": s[g & y],
        "subgroup negative": s[g & ~y],
        "background positive": s[~g & y],
        "background negative": s[~g & ~y],
    }
    empty = [k for k, v in populations.items() if v.shape[0] == 0]
    if empty:
        counts = ", ".join(f"{k}: {v.shape[0]}" for k, v in populations.items())
        raise ConfigurationError(
            f"bias AUCs need examples in every population; empty: {', '.join(empty)} ({counts})"
        )
    sub_pos = populations["subgroup positive"]
    sub_neg = populations["subgroup negative"]
    bg_pos = populations["background positive"]
    bg_neg = populations["background negative"]
    return {
        "subgroup_auc": mann_whitney_auc(sub_pos, sub_neg),
        "bpsn_auc": mann_whitney_auc(bg_pos, sub_neg),
        "bnsp_auc": mann_whitney_auc(sub_pos, bg_neg),
        "aeg_positive": mann_whitney_auc(sub_pos, bg_pos) - 0.5,
        "aeg_negative": mann_whitney_auc(sub_neg, bg_neg) - 0.5,
    }


def subgroup_bias_aucs(
    scores: Any, labels: Any, subgroups: Mapping[str, Any]
) -> dict[str, dict[str, float]]:
    """`bias_aucs` of every subgroup: name -> its five metrics (cross-geographic, 5.2).

    `subgroups` maps each subgroup's name to its mask over the examples (1/True for the
    examples that mention it, shape (n,)); masks may overlap, and each subgroup's
    background is every example outside its own mask, as in Borkan et al. Raises
    `ConfigurationError` naming the subgroup whose populations are incomplete.
    """
    if not isinstance(subgroups, Mapping) or not subgroups:
        raise ConfigurationError(
            "subgroups must be a non-empty mapping of subgroup name -> mask over the "
            f"examples, got {type(subgroups).__name__}"
        )
    out: dict[str, dict[str, float]] = {}
    for name, mask in subgroups.items():
        if not isinstance(name, str) or not name.strip():
            raise ConfigurationError(f"subgroup names must be non-empty strings, got {name!r}")
        try:
            out[name] = bias_aucs(scores, labels, mask)
        except ConfigurationError as exc:
            raise ConfigurationError(
                f"subgroup {name!r}: {exc}; drop the subgroup or add examples"
            ) from None
    return out


def misranked_share(examples: Any, others: Any, *, examples_positive: bool) -> FloatArray:
    """For each score of `examples`, the share of `others` (the other class) it is ranked
    wrongly against, ties counting 1/2.

    With `examples_positive` (toxic examples against non-toxic others) an other scoring
    above the example is wrong; otherwise (non-toxic examples against toxic others) one
    scoring below it is. The mean over `examples` is 1 - AUC of the two populations
    (Mann-Whitney, as in `mann_whitney_auc`), so each value is the example's part of the
    AUC's shortfall: what makes it a discriminatory input of a low BPSN AUC (a non-toxic
    subgroup example against the background's toxic ones) or BNSP AUC (a toxic subgroup
    example against the background's non-toxic ones).
    """
    x = as_float_array(examples, "examples", ndim=1, allow_empty=True)
    y = np.sort(as_float_array(others, "others", ndim=1))
    below = np.searchsorted(y, x, side="left")
    not_above = np.searchsorted(y, x, side="right")
    ties = not_above - below
    wrong = y.shape[0] - not_above if examples_positive else below
    return np.asarray((wrong + 0.5 * ties) / y.shape[0], dtype=np.float64)


def misranked_examples(
    metric: str, scores: Any, labels: Any, in_subgroup: Any
) -> list[tuple[int, float]]:
    """The subgroup's examples that pull `metric` ("subgroup_auc", "bpsn_auc" or
    "bnsp_auc") down, most first: (index, `misranked_share` of the example against the
    other class the metric compares it with), only those with a share > 0; ties: a
    non-toxic example scored higher, a toxic one scored lower, first.

    BPSN compares the subgroup's non-toxic examples with the background's toxic ones,
    BNSP its toxic examples with the background's non-toxic ones, the subgroup AUC both
    classes within the subgroup (Borkan et al.; cross-geographic-toxicity-bias, 5.2)."""
    s = as_float_array(scores, "scores", ndim=1)
    y = as_mask(labels, "labels", s.shape[0])
    g = as_mask(in_subgroup, "in_subgroup", s.shape[0])
    sub_pos, sub_neg = np.flatnonzero(g & y), np.flatnonzero(g & ~y)
    if metric == "bpsn_auc":  # non-toxic here vs toxic elsewhere
        pairs = [(sub_neg, misranked_share(s[sub_neg], s[~g & y], examples_positive=False))]
    elif metric == "bnsp_auc":  # toxic here vs non-toxic elsewhere
        pairs = [(sub_pos, misranked_share(s[sub_pos], s[~g & ~y], examples_positive=True))]
    elif metric == "subgroup_auc":  # both classes, within the subgroup
        pairs = [
            (sub_neg, misranked_share(s[sub_neg], s[sub_pos], examples_positive=False)),
            (sub_pos, misranked_share(s[sub_pos], s[sub_neg], examples_positive=True)),
        ]
    else:
        raise ConfigurationError(
            f"metric must be 'subgroup_auc', 'bpsn_auc' or 'bnsp_auc', got {metric!r:.60}")
    found = [(int(i), float(v)) for idx, share in pairs for i, v in zip(idx, share, strict=True)]
    return sorted((x for x in found if x[1] > 0),
                  key=lambda x: (-x[1], -s[x[0]] if not y[x[0]] else s[x[0]]))
