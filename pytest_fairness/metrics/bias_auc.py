"""Nuanced bias metrics of Borkan et al. (2019), as used by the cross-geographic paper.

Ghosh et al. (2021), "Detecting Cross-Geographic Biases in Toxicity Modeling on Social
Media" (shared/papers/cross-geographic-toxicity-bias.txt), section 5.2. With D_g the
examples of the subgroup (those containing the term), "background" the rest, and + / -
the toxic / non-toxic labels:

1. Subgroup AUC: AUC on D_g^- u D_g^+.
2. BPSN AUC (background positive, subgroup negative): AUC on D_bg^+ u D_g^-.
3. BNSP AUC (background negative, subgroup positive): AUC on D_bg^- u D_g^+.
4. AEG+ / AEG- (Average Equality Gap, Borkan et al. section 3.3): how the subgroup's
   positive (negative) scores compare with the background's positive (negative) scores,
   in [-1/2, 1/2], 0 meaning no gap.

Every AUC is the normalised Mann-Whitney U: P(score of a positive > score of a negative),
ties counting 1/2. Sign of AEG: AEG = MWU(D_g, D_bg) / (|D_g| |D_bg|) - 1/2, positive when
the subgroup's examples score higher than the background's (the reading of section 5.4,
"the high AEG+/- of clusters C0 and C2 indicates that both clusters, on average, score
higher than background examples").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import BoolArray, FloatArray, as_float_array

__all__ = ["bias_aucs", "mann_whitney_auc"]


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


def _bool_vector(values: Any, name: str, n: int) -> BoolArray:
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
    Raises ValueError naming the population that is empty (each metric needs subgroup
    and background examples of both labels).
    """
    s = as_float_array(scores, "scores", ndim=1)
    n = s.shape[0]
    y = _bool_vector(labels, "labels", n)
    g = _bool_vector(in_subgroup, "in_subgroup", n)
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
