"""Lexical bias discovery: the two phases of the cross-geographic paper.

Ghosh et al. (2021), "Detecting Cross-Geographic Biases in Toxicity Modeling on Social
Media" (shared/papers/cross-geographic-toxicity-bias.txt), section 3.

Phase 1 (section 3.1) finds terms over-represented in toxic texts of a group (a country):

* within each group, the log-odds ratio of toxic vs non-toxic texts with an informative
  Dirichlet prior, and its z-score (Monroe, Colaresi & Quinn 2008, eq. 16 and 22):
      delta_w = log((y_w^t + a_w) / (n^t + a_0 - y_w^t - a_w))
              - log((y_w^o + a_w) / (n^o + a_0 - y_w^o - a_w)),
      var(delta_w) ~ 1 / (y_w^t + a_w) + 1 / (y_w^o + a_w),   z_w = delta_w / sqrt(var);
* across groups, the multi-group test of Bamman et al. (2014) / Chang & McKeown (2019) on a
  group-balanced toxic corpus: with a non-informative Beta prior, the frequency theta_w of
  w has posterior Beta(k_w + a, N - k_w + b) (k_w: count of w in the balanced corpus, N:
  its word count); the count of w in group c (N_c words) then follows the beta-binomial
  BetaBinomial(N_c, k_w + a, N - k_w + b), and w is over-represented in c when the
  cumulative distribution at k_{w,c} reaches `level`;
* a term is a candidate for c when both tests flag it.

Phase 2 (section 3.2): each candidate term gets a vector whose i-th entry is the model's
toxicity on the i-th template (Appendix A) with "person" replaced by the term; the vectors
are clustered with k-means, and each cluster's mean vector is its behaviour curve.

The paper's text file lost its formulas and constants; the prior of the Bamman test
(Beta(1, 1) here) and the level (0.95 here) are parameters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import (
    FloatArray,
    IntArray,
    SeedLike,
    as_float_array,
    as_generator,
    check_names,
    check_positive_int,
    clean_float,
)

__all__ = [
    "KMeansResult",
    "LogOddsResult",
    "TermCandidate",
    "TermClusters",
    "beta_binomial_cdf",
    "biased_term_candidates",
    "group_overrepresentation",
    "kmeans",
    "log_odds_dirichlet",
    "template_shifts",
    "term_sensitivity_clusters",
]

# ---------------------------------------------------------------------------------------
# Phase 1: log-odds with an informative Dirichlet prior (Monroe et al. 2008)
# ---------------------------------------------------------------------------------------


def _counts(values: Any, name: str, ndim: int) -> FloatArray:
    arr = as_float_array(values, name, ndim=ndim)
    if (arr < 0).any():
        raise ConfigurationError(f"{name} must be non-negative counts")
    return arr


@dataclass(frozen=True, eq=False)
class LogOddsResult:
    """Per-term log-odds ratio delta, its approximate variance and z-score."""

    delta: FloatArray
    variance: FloatArray
    z: FloatArray

    def to_dict(self) -> dict[str, Any]:
        return {
            "delta": [clean_float(v) for v in self.delta.tolist()],
            "variance": [clean_float(v) for v in self.variance.tolist()],
            "z": [clean_float(v) for v in self.z.tolist()],
        }


def log_odds_dirichlet(
    counts_target: Any,
    counts_other: Any,
    prior: Any | None = None,
    *,
    prior_total: float | None = None,
) -> LogOddsResult:
    """Log-odds ratio with an informative Dirichlet prior and z-scores (Monroe et al. 2008).

    Used by the cross-geographic paper, section 3.1, for toxic (target) vs non-toxic (other)
    texts of one country. `counts_*` are word counts over one vocabulary, shape (V,).
    `prior` holds the prior pseudo-counts a_w (default: the pooled counts of both corpora,
    the usual informative prior); `prior_total` rescales them to sum to a_0 = prior_total.
    A positive z means over-represented in the target corpus.
    """
    yt = _counts(counts_target, "counts_target", 1)
    yo = _counts(counts_other, "counts_other", 1)
    if yt.shape != yo.shape:
        raise ConfigurationError(
            f"counts_target has shape {yt.shape} but counts_other has shape {yo.shape}"
        )
    alpha = yt + yo if prior is None else _counts(prior, "prior", 1)
    if alpha.shape != yt.shape:
        raise ConfigurationError(f"prior has shape {alpha.shape}, expected {yt.shape}")
    if prior_total is not None:
        total = float(prior_total)
        if not total > 0 or not math.isfinite(total):
            raise ConfigurationError(f"prior_total must be a positive number, got {prior_total!r}")
        alpha = alpha * (total / alpha.sum())
    if (alpha <= 0).any():
        raise ConfigurationError(
            "every prior pseudo-count a_w must be > 0 (a term with zero prior and zero counts "
            "has no log-odds); drop such terms or pass a smoothed prior"
        )
    a0 = float(alpha.sum())
    nt = float(yt.sum())
    no = float(yo.sum())
    delta = np.log((yt + alpha) / (nt + a0 - yt - alpha)) - np.log(
        (yo + alpha) / (no + a0 - yo - alpha)
    )
    variance = 1.0 / (yt + alpha) + 1.0 / (yo + alpha)
    return LogOddsResult(delta=delta, variance=variance, z=delta / np.sqrt(variance))


# ---------------------------------------------------------------------------------------
# Phase 1: multi-group over-representation (Bamman et al. 2014; Chang & McKeown 2019)
# ---------------------------------------------------------------------------------------

_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _lg(x: FloatArray) -> FloatArray:
    return np.asarray(_lgamma(x), dtype=np.float64)


def _log_pmf(j: FloatArray, n: FloatArray, a: FloatArray, b: FloatArray) -> FloatArray:
    return (
        _lg(n + 1)
        - _lg(j + 1)
        - _lg(n - j + 1)
        + _lg(j + a)
        + _lg(n - j + b)
        - _lg(n + a + b)
        - (_lg(a) + _lg(b) - _lg(a + b))
    )


def beta_binomial_cdf(k: Any, n: Any, a: Any, b: Any) -> FloatArray:
    """P(X <= k) for X ~ BetaBinomial(n, a, b), elementwise (broadcast), exact summation.

    The smaller tail is summed from k outward with the pmf ratio recursion until the terms
    are negligible (relative 1e-17), so the cost grows with the spread of the distribution
    (about sqrt(n)), not with n; this keeps large corpora (N in the millions) cheap.
    """
    kk, nn, aa, bb = np.broadcast_arrays(
        as_float_array(k, "k", allow_empty=True),
        as_float_array(n, "n", allow_empty=True),
        as_float_array(a, "a", allow_empty=True),
        as_float_array(b, "b", allow_empty=True),
    )
    kk = kk.astype(np.float64).ravel()
    nn = nn.astype(np.float64).ravel()
    aa = aa.astype(np.float64).ravel()
    bb = bb.astype(np.float64).ravel()
    if (aa <= 0).any() or (bb <= 0).any():
        raise ConfigurationError("beta-binomial parameters a and b must be > 0")
    if (nn < 0).any() or (nn != np.floor(nn)).any() or (kk != np.floor(kk)).any():
        raise ConfigurationError("n and k must be non-negative integers")
    shape = np.broadcast(np.asarray(k), np.asarray(n), np.asarray(a), np.asarray(b)).shape
    out = np.empty(kk.shape[0], dtype=np.float64)
    below = kk < 0
    above = kk >= nn
    out[below] = 0.0
    out[above & ~below] = 1.0
    inner = np.flatnonzero(~below & ~above)
    if inner.shape[0]:
        k_i, n_i, a_i, b_i = kk[inner], nn[inner], aa[inner], bb[inner]
        mean = n_i * a_i / (a_i + b_i)
        upper = k_i >= mean  # sum the upper tail P(X > k) and subtract from 1
        start = np.where(upper, k_i + 1, k_i)
        term = np.exp(_log_pmf(start, n_i, a_i, b_i))
        total = term.copy()
        j = start.copy()
        active = np.ones(inner.shape[0], dtype=bool)
        while active.any():
            idx = np.flatnonzero(active)
            jj, nj, aj, bj, up = j[idx], n_i[idx], a_i[idx], b_i[idx], upper[idx]
            ratio = np.where(
                up,
                (nj - jj) / (jj + 1) * (jj + aj) / np.maximum(nj - jj - 1 + bj, 1e-300),
                jj / (nj - jj + 1) * (nj - jj + bj) / np.maximum(jj - 1 + aj, 1e-300),
            )
            at_end = np.where(up, jj >= nj, jj <= 0)
            new_term = np.where(at_end, 0.0, term[idx] * ratio)
            term[idx] = new_term
            j[idx] = np.where(up, jj + 1, jj - 1)
            total[idx] += new_term
            done = at_end | ((new_term <= total[idx] * 1e-17) & (ratio < 1.0))
            active[idx[done]] = False
        out[inner] = np.where(upper, 1.0 - total, total)
    return np.clip(out, 0.0, 1.0).reshape(shape)


def group_overrepresentation(
    counts: Any,
    *,
    group_totals: Any | None = None,
    prior: tuple[float, float] = (1.0, 1.0),
) -> FloatArray:
    """The cumulative distribution at k_{w,c} of each term's count in each group.

    cross-geographic, section 3.1 (after Bamman et al. 2014, Chang & McKeown 2019).
    `counts[w, c]` is the count of term w in group c's part of a group-balanced corpus,
    shape (V, G); `group_totals[c]` is N_c, the word count of that part (default: the
    column sums, when `counts` covers the whole vocabulary). With k_w = sum_c k_{w,c} and
    N = sum_c N_c, the count in c follows BetaBinomial(N_c, k_w + a, N - k_w + b) for the
    prior Beta(a, b); the returned (V, G) matrix holds P(X <= k_{w,c}). Values near 1 mean
    "more than expected in c".
    """
    k = _counts(counts, "counts", 2)
    if (k != np.floor(k)).any():
        raise ConfigurationError("counts must be integers")
    totals = k.sum(axis=0) if group_totals is None else _counts(group_totals, "group_totals", 1)
    if totals.shape != (k.shape[1],):
        raise ConfigurationError(
            f"group_totals has shape {totals.shape}, expected ({k.shape[1]},) (one per group)"
        )
    if (totals < k.sum(axis=0)).any():
        raise ConfigurationError("group_totals must be at least the counts of each group")
    a, b = float(prior[0]), float(prior[1])
    if not (a > 0 and b > 0):
        raise ConfigurationError(f"prior must be two positive numbers, got {prior!r}")
    k_w = k.sum(axis=1, keepdims=True)
    n_total = float(totals.sum())
    return beta_binomial_cdf(k, totals[None, :], k_w + a, n_total - k_w + b)


@dataclass(frozen=True)
class TermCandidate:
    term: str
    group: str
    z: float
    """Monroe et al. z-score, toxic vs non-toxic within the group."""
    cdf: float
    """Bamman et al. cumulative probability of the group's toxic count."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "term": self.term,
            "group": self.group,
            "z": clean_float(self.z),
            "cdf": clean_float(self.cdf),
        }


def biased_term_candidates(
    terms: Sequence[str],
    groups: Sequence[str],
    toxic_counts: Any,
    nontoxic_counts: Any,
    *,
    balanced_toxic_counts: Any | None = None,
    group_totals: Any | None = None,
    z_threshold: float = 1.96,
    level: float = 0.95,
    prior: tuple[float, float] = (1.0, 1.0),
) -> dict[str, list[TermCandidate]]:
    """Phase 1 of the cross-geographic paper (section 3.1): biased term candidates per group.

    Args:
        terms: the vocabulary, length V.
        groups: the groups (countries), length G.
        toxic_counts, nontoxic_counts: (V, G) term counts in toxic / non-toxic texts.
        balanced_toxic_counts: (V, G) counts in a toxic corpus with the same number of texts
            per group (the paper subsamples to the smallest group); default `toxic_counts`.
        group_totals: word counts N_c of the balanced corpus parts (see
            `group_overrepresentation`).
        z_threshold: minimum Monroe et al. z-score (toxic vs non-toxic within the group).
        level: minimum cumulative probability of the Bamman et al. test.
        prior: the Beta prior of the Bamman et al. test.

    Returns, for each group, the terms flagged by both tests, highest z first.
    """
    names = check_names(terms, "terms")
    group_names = check_names(groups, "groups")
    tox = _counts(toxic_counts, "toxic_counts", 2)
    non = _counts(nontoxic_counts, "nontoxic_counts", 2)
    expected = (len(names), len(group_names))
    for arr, label in ((tox, "toxic_counts"), (non, "nontoxic_counts")):
        if arr.shape != expected:
            raise ConfigurationError(f"{label} has shape {arr.shape}, expected {expected}")
    balanced = (
        tox
        if balanced_toxic_counts is None
        else _counts(balanced_toxic_counts, "balanced_toxic_counts", 2)
    )
    if balanced.shape != expected:
        raise ConfigurationError(
            f"balanced_toxic_counts has shape {balanced.shape}, expected {expected}"
        )
    if not 0.0 < level < 1.0:
        raise ConfigurationError(f"level must be in (0, 1), got {level!r}")
    cdf = group_overrepresentation(balanced, group_totals=group_totals, prior=prior)
    out: dict[str, list[TermCandidate]] = {}
    for c, group in enumerate(group_names):
        present = (tox[:, c] + non[:, c]) > 0
        z = np.full(len(names), -np.inf)
        if present.any():
            z[present] = log_odds_dirichlet(tox[present, c], non[present, c]).z
        flagged = np.flatnonzero((z >= z_threshold) & (cdf[:, c] >= level))
        order = flagged[np.lexsort((flagged, -z[flagged]))]
        out[group] = [
            TermCandidate(term=names[w], group=group, z=float(z[w]), cdf=float(cdf[w, c]))
            for w in order.tolist()
        ]
    return out


# ---------------------------------------------------------------------------------------
# Phase 2: per-term sensitivity vectors and k-means
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KMeansResult:
    labels: IntArray
    """Cluster of each row, clusters numbered by ascending mean of their centre."""
    centers: FloatArray
    inertia: float
    """Sum of squared distances of the rows to their centres."""
    n_iter: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "labels": self.labels.tolist(),
            "centers": self.centers.tolist(),
            "inertia": clean_float(self.inertia),
            "n_iter": self.n_iter,
        }


def _plus_plus(x: FloatArray, k: int, rng: np.random.Generator) -> FloatArray:
    """k-means++ seeding (Arthur & Vassilvitskii 2007): D^2-weighted sampling."""
    n = x.shape[0]
    centers = np.empty((k, x.shape[1]), dtype=np.float64)
    centers[0] = x[rng.integers(n)]
    d2 = ((x - centers[0]) ** 2).sum(axis=1)
    for c in range(1, k):
        total = float(d2.sum())
        pick = int(rng.integers(n)) if total <= 0 else int(rng.choice(n, p=d2 / total))
        centers[c] = x[pick]
        d2 = np.minimum(d2, ((x - centers[c]) ** 2).sum(axis=1))
    return centers


def _lloyd(
    x: FloatArray, centers: FloatArray, max_iter: int, tol: float
) -> tuple[IntArray, FloatArray, float, int]:
    k = centers.shape[0]
    labels = np.zeros(x.shape[0], dtype=np.int64)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        d2 = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        labels = np.asarray(np.argmin(d2, axis=1), dtype=np.int64)
        new = np.empty_like(centers)
        own = d2[np.arange(x.shape[0]), labels]
        for c in range(k):
            members = labels == c
            if members.any():
                new[c] = x[members].mean(axis=0)
            else:  # empty cluster: move it to the point farthest from its centre
                far = int(np.argmax(own))
                new[c] = x[far]
                own[far] = -1.0
        shift = float(((new - centers) ** 2).sum())
        centers = new
        if shift <= tol:
            break
    d2 = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    labels = np.asarray(np.argmin(d2, axis=1), dtype=np.int64)
    inertia = float(d2[np.arange(x.shape[0]), labels].sum())
    return labels, centers, inertia, n_iter


def kmeans(
    data: Any,
    n_clusters: int,
    *,
    seed: SeedLike = 0,
    n_init: int = 10,
    max_iter: int = 300,
    tol: float = 1e-12,
) -> KMeansResult:
    """k-means (Lloyd's algorithm) with k-means++ seeding, best of `n_init` seeded runs.

    Deterministic for a given seed (an int or a numpy Generator). Clusters are renumbered
    by ascending mean of their centre, so cluster 0 is the least toxic curve.
    """
    x = as_float_array(data, "data", ndim=2)
    k = check_positive_int(n_clusters, "n_clusters")
    runs = check_positive_int(n_init, "n_init")
    iters = check_positive_int(max_iter, "max_iter")
    if x.shape[0] < k:
        raise ConfigurationError(f"n_clusters={k} is more than the {x.shape[0]} rows to cluster")
    rng = as_generator(seed)
    best: tuple[IntArray, FloatArray, float, int] | None = None
    for _ in range(runs):
        result = _lloyd(x, _plus_plus(x, k, rng), iters, float(tol))
        if best is None or result[2] < best[2]:
            best = result
    assert best is not None
    labels, centers, inertia, n_iter = best
    order = np.lexsort((np.arange(k), centers.mean(axis=1)))
    relabel = np.empty(k, dtype=np.int64)
    relabel[order] = np.arange(k)
    return KMeansResult(
        labels=relabel[labels], centers=centers[order], inertia=inertia, n_iter=n_iter
    )


@dataclass(frozen=True, eq=False)
class TermClusters:
    """Phase 2 of the cross-geographic paper: terms clustered by their template curves."""

    terms: tuple[str, ...]
    labels: IntArray
    curves: FloatArray
    """Mean vector of each cluster, shape (n_clusters, M), templates in `template_order`
    (score shifts from `template_scores` when `relative`)."""
    template_order: IntArray
    """Template indices in the order of the curves (ascending template score if given)."""
    inertia: float
    template_scores: FloatArray | None = None
    """Scores of the templates as written, in the order of the curves (the x axis of the
    paper's Figure 3), or None when they were not given."""
    relative: bool = False
    """True when the curves are shifts v_t - template_scores, not raw scores."""
    group: str | None = None
    """What the terms were drawn for (a country, an attribute), shown in the report."""

    def members(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {c: [] for c in range(self.curves.shape[0])}
        for term, label in zip(self.terms, self.labels.tolist(), strict=True):
            out[label].append(term)
        return out

    def mean_shifts(self) -> FloatArray | None:
        """Per cluster, the mean over templates of its curve minus the template scores
        (how much its terms move the score, on average); None without template scores."""
        if self.template_scores is None:
            return None
        if self.relative:
            return np.asarray(self.curves.mean(axis=1), dtype=np.float64)
        return np.asarray((self.curves - self.template_scores[None, :]).mean(axis=1),
                          dtype=np.float64)

    def cluster_of(self, term: str) -> int:
        """The cluster of `term`; a clear error when it was not clustered."""
        if term not in self.terms:
            raise ConfigurationError(
                f"{term!r} is not one of the {len(self.terms)} clustered terms; "
                f"pass it in `terms` to term_sensitivity_clusters"
            )
        return int(self.labels[self.terms.index(term)])

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the report: `pytest_fairness.report.charts.clusters_section(...)`
        of it is the `Clusters` section a result carries (the summary lists the clusters
        and draws their curves); older results carried it in `extra["clusters"]`."""
        shifts = self.mean_shifts()
        clusters = []
        for c, terms in self.members().items():
            entry: dict[str, Any] = {
                "cluster": c,
                "terms": terms,
                "curve": [clean_float(v) for v in self.curves[c].tolist()],
            }
            if shifts is not None:
                entry["mean_shift"] = clean_float(float(shifts[c]))
            clusters.append(entry)
        out: dict[str, Any] = {
            "metric": "term_clusters",
            "clusters": clusters,
            "template_order": self.template_order.tolist(),
            "inertia": clean_float(self.inertia),
            "relative": self.relative,
        }
        if self.template_scores is not None:
            out["template_scores"] = [clean_float(v) for v in self.template_scores.tolist()]
        if self.group is not None:
            out["group"] = self.group
        return out


def template_shifts(term_scores: Any, template_scores: Any) -> FloatArray:
    """(T, M): each term's score on each template minus the template's score as written
    (with its own reference word, "person"): how far the term moves the model there
    (cross-geographic, section 3.2; a row's mean is the term's mean shift). Non-finite
    scores (a fill the model skipped) give non-finite shifts."""
    scores = np.asarray(term_scores, dtype=np.float64)
    own = np.asarray(template_scores, dtype=np.float64)
    if scores.ndim != 2 or own.shape != (scores.shape[1],):
        raise ConfigurationError(
            f"term_scores has shape {scores.shape} and template_scores {own.shape}: pass "
            "(T, M) and (M,), one score per template")
    return np.asarray(scores - own[None, :], dtype=np.float64)


def term_sensitivity_clusters(
    terms: Sequence[str],
    term_scores: Any,
    *,
    n_clusters: int = 4,
    template_scores: Any | None = None,
    relative: bool = False,
    seed: SeedLike = 0,
    n_init: int = 10,
    group: str | None = None,
) -> TermClusters:
    """Phase 2 of the cross-geographic paper (section 3.2): cluster terms by sensitivity.

    Args:
        terms: the candidate terms, length T.
        term_scores: (T, M): the model's score on template i with "person" replaced by
            term t; row t is the term's vector v_t (the paper's representation).
        n_clusters: k of k-means (the paper found 4 natural clusters).
        template_scores: (M,) scores of the templates as written (with "person"); when
            given, the curves are ordered by ascending template score, as in the paper's
            figures.
        relative: cluster the shifts v_t - template_scores instead of raw scores.
        seed: seed of the k-means++ initialisation.
        n_init: k-means restarts; the run with the lowest inertia is kept.
        group: a label for the report ("India", "religion"), kept in `to_dict()`.

    Clusters are numbered by the ascending mean of their curve, so C0 holds the terms that
    lower the score most and the last cluster those that raise it most (the paper's names
    C0-C3 are assigned by inspection and do not follow this order).
    """
    names = check_names(terms, "terms")
    scores = as_float_array(term_scores, "term_scores", ndim=2)
    if scores.shape[0] != len(names):
        raise ConfigurationError(f"term_scores has {scores.shape[0]} rows for {len(names)} terms")
    m = scores.shape[1]
    order = np.arange(m, dtype=np.int64)
    vectors = scores
    base: FloatArray | None = None
    if template_scores is not None:
        base = as_float_array(template_scores, "template_scores", ndim=1)
        if base.shape[0] != m:
            raise ConfigurationError(
                f"template_scores has {base.shape[0]} entries for {m} templates"
            )
        order = np.asarray(np.argsort(base, kind="mergesort"), dtype=np.int64)
        if relative:
            vectors = scores - base[None, :]
    elif relative:
        raise ConfigurationError("relative=True needs template_scores")
    result = kmeans(vectors[:, order], n_clusters, seed=seed, n_init=n_init)
    return TermClusters(
        terms=names,
        labels=result.labels,
        curves=result.centers,
        template_order=order,
        inertia=result.inertia,
        template_scores=None if base is None else np.asarray(base[order], dtype=np.float64),
        relative=relative,
        group=None if group is None else str(group),
    )
