"""Lexical bias discovery (cross-geographic paper, section 3)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics import (
    beta_binomial_cdf,
    biased_term_candidates,
    group_overrepresentation,
    kmeans,
    log_odds_dirichlet,
    term_sensitivity_clusters,
)
from pytest_fairness.metrics.lexical import template_shifts


def test_template_shifts_by_hand() -> None:
    # two terms on three templates whose own scores are .1, .5, .2
    shifts = template_shifts([[0.1, 0.5, 0.2], [0.6, 0.9, 0.2]], [0.1, 0.5, 0.2])
    np.testing.assert_allclose(shifts, [[0.0, 0.0, 0.0], [0.5, 0.4, 0.0]], atol=1e-12)
    assert shifts.mean(axis=1).tolist() == pytest.approx([0.0, 0.3])
    assert math.isnan(template_shifts([[float("nan")]], [0.2])[0, 0])
    with pytest.raises(ConfigurationError, match="one score per template"):
        template_shifts([[0.1, 0.2]], [0.1])


def test_log_odds_by_hand() -> None:
    # target (10, 0), other (5, 5), prior a = (1, 1), a0 = 2, n_t = n_o = 10
    r = log_odds_dirichlet([10, 0], [5, 5], prior=[1, 1])
    # term 0: ln(11 / (10+2-10-1)) - ln(6 / (10+2-5-1)) = ln 11 - ln 1 = 2.397895
    # var = 1/11 + 1/6 = .2575758, z = 2.3978953 / .5075193 = 4.724738
    assert r.delta[0] == pytest.approx(math.log(11))
    assert r.variance[0] == pytest.approx(1 / 11 + 1 / 6)
    assert r.z[0] == pytest.approx(4.724738, abs=1e-6)
    # term 1: ln(1 / 11) - ln(6 / 6) = -2.397895; var = 1 + 1/6; z = -2.220019
    assert r.delta[1] == pytest.approx(-math.log(11))
    assert r.z[1] == pytest.approx(-2.220019, abs=1e-6)


def test_log_odds_default_prior_and_errors() -> None:
    # default prior: pooled counts (15, 5); term 0 over-represented in the target
    r = log_odds_dirichlet([10, 0], [5, 5])
    assert r.z[0] > 0 > r.z[1]
    with pytest.raises(ValueError, match="prior pseudo-count"):
        log_odds_dirichlet([1, 0], [1, 0])
    with pytest.raises(ValueError, match="non-negative"):
        log_odds_dirichlet([-1, 0], [1, 0])


def test_beta_binomial_cdf_by_hand() -> None:
    # BetaBinomial(2, 1, 1) is uniform on {0, 1, 2}
    assert beta_binomial_cdf([0, 1, 2], 2, 1, 1).tolist() == pytest.approx([1 / 3, 2 / 3, 1])
    # BetaBinomial(3, 2, 1): pmf_j = C(3,j) B(j+2, 4-j) / B(2, 1), B(2, 1) = 1/2
    #   j=0: B(2,4) = 1/20 -> .1 ; j=1: 3 B(3,3) = 3/30 -> .2 ; j=2: 3 B(4,2) = 3/20 -> .3
    #   j=3: B(5,1) = 1/5 -> .4      CDF: .1, .3, .6, 1
    assert beta_binomial_cdf([0, 1, 2, 3], 3, 2, 1).tolist() == pytest.approx(
        [0.1, 0.3, 0.6, 1.0]
    )
    assert beta_binomial_cdf(-1, 3, 2, 1) == 0.0


def test_beta_binomial_cdf_large_counts_match_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    k = np.array([0, 3, 40, 55, 80, 400, 2_000])
    n = np.array([10, 50, 1_000, 1_000, 1_000, 100_000, 100_000])
    a = np.array([1.5, 2.0, 30.0, 30.0, 30.0, 300.0, 2_000.0])
    b = np.array([3.0, 40.0, 700.0, 700.0, 700.0, 80_000.0, 99_000.0])
    expected = stats.betabinom.cdf(k, n, a, b)
    assert beta_binomial_cdf(k, n, a, b) == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_group_overrepresentation_by_hand() -> None:
    # counts: term0 (3 in g0, 0 in g1), term1 (0, 3); N_c = 3 each, N = 6
    # term0: prior Beta(1,1) -> posterior Beta(3+1, 6-3+1) = Beta(4, 4)
    #   g0: k = 3 = N_c -> CDF 1;  g1: P(X=0) = B(4, 7) / B(4, 4) = (1/840)/(1/140) = 1/6
    cdf = group_overrepresentation([[3, 0], [0, 3]])
    assert cdf[0].tolist() == pytest.approx([1.0, 1 / 6])
    assert cdf[1].tolist() == pytest.approx([1 / 6, 1.0])
    with pytest.raises(ValueError, match="integers"):
        group_overrepresentation([[0.5, 1.0]])


def test_biased_term_candidates_flags_the_group_specific_term() -> None:
    terms = ["the", "slur_a", "slur_b"]
    groups = ["A", "B"]
    # "the" is everywhere; slur_a is in toxic texts of A only; slur_b of B only
    toxic = np.array([[500, 500], [60, 0], [0, 55]])
    nontoxic = np.array([[5000, 5000], [5, 5], [5, 5]])
    out = biased_term_candidates(terms, groups, toxic, nontoxic,
                                 group_totals=[10_000, 10_000])
    assert [c.term for c in out["A"]] == ["slur_a"]
    assert [c.term for c in out["B"]] == ["slur_b"]
    json.dumps({g: [c.to_dict() for c in cs] for g, cs in out.items()})
    with pytest.raises(ValueError, match="expected"):
        biased_term_candidates(terms, groups, toxic[:2], nontoxic)


def test_kmeans_by_hand() -> None:
    x = [[0, 0], [0, 1], [10, 10], [10, 11]]
    r = kmeans(x, 2, seed=3)
    # clusters {(0,0),(0,1)} and {(10,10),(10,11)}: centres (0, .5), (10, 10.5);
    # inertia = 4 * .5^2 = 1; clusters numbered by ascending centre mean
    assert r.labels.tolist() == [0, 0, 1, 1]
    assert r.centers.tolist() == [[0.0, 0.5], [10.0, 10.5]]
    assert r.inertia == pytest.approx(1.0)


def test_kmeans_is_seeded() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((40, 3))
    a = kmeans(x, 4, seed=7)
    b = kmeans(x, 4, seed=np.random.default_rng(7))
    assert a.labels.tolist() == b.labels.tolist()
    assert a.inertia == b.inertia
    with pytest.raises(ValueError, match="more than"):
        kmeans(x[:2], 3)


def test_term_sensitivity_clusters() -> None:
    terms = ["neutral1", "neutral2", "slur1", "slur2"]
    # templates as written score (.5, .1, .8); neutral terms track them, slurs score high
    scores = [[0.5, 0.1, 0.8], [0.52, 0.12, 0.79], [0.95, 0.9, 0.99], [0.9, 0.93, 0.97]]
    r = term_sensitivity_clusters(terms, scores, n_clusters=2, template_scores=[0.5, 0.1, 0.8])
    assert r.members() == {0: ["neutral1", "neutral2"], 1: ["slur1", "slur2"]}
    # curves follow ascending template score: template order (1, 0, 2)
    assert r.template_order.tolist() == [1, 0, 2]
    # cluster 0 mean curve: ((.1+.12)/2, (.5+.52)/2, (.8+.79)/2)
    assert r.curves[0].tolist() == pytest.approx([0.11, 0.51, 0.795])
    json.dumps(r.to_dict())
    rel = term_sensitivity_clusters(terms, scores, n_clusters=2,
                                    template_scores=[0.5, 0.1, 0.8], relative=True)
    assert rel.curves[0].tolist() == pytest.approx([0.01, 0.01, -0.005])


def test_term_clusters_to_dict_carries_what_the_report_draws() -> None:
    terms = ["neutral1", "neutral2", "slur1", "slur2"]
    base = [0.5, 0.1, 0.8]
    scores = [[0.5, 0.1, 0.8], [0.52, 0.12, 0.79], [0.95, 0.9, 0.99], [0.9, 0.93, 0.97]]
    r = term_sensitivity_clusters(terms, scores, n_clusters=2, template_scores=base,
                                  group="identity")
    d = r.to_dict()
    json.dumps(d)
    assert d["group"] == "identity"
    assert d["relative"] is False
    # template scores in the order of the curves (ascending), the x axis of Figure 3
    assert d["template_scores"] == pytest.approx([0.1, 0.5, 0.8])
    # slurs: curve ((.9+.93)/2, (.95+.9)/2, (.99+.97)/2) = (.915, .925, .98);
    # minus (.1, .5, .8) -> (.815, .425, .18), mean .473333
    by_cluster = {c["cluster"]: c for c in d["clusters"]}
    assert by_cluster[1]["terms"] == ["slur1", "slur2"]
    assert by_cluster[1]["mean_shift"] == pytest.approx(0.473333, abs=1e-6)
    # neutral: (.11, .51, .795) - (.1, .5, .8) -> mean (.01 + .01 - .005) / 3 = .005
    assert by_cluster[0]["mean_shift"] == pytest.approx(0.005)
    # relative curves are already shifts: the same mean shifts
    rel = term_sensitivity_clusters(terms, scores, n_clusters=2, template_scores=base,
                                    relative=True)
    assert rel.to_dict()["relative"] is True
    assert rel.mean_shifts() == pytest.approx(r.mean_shifts())
    assert r.cluster_of("slur2") == 1
    with pytest.raises(ValueError, match="not one of the 4 clustered terms"):
        r.cluster_of("person")


def test_term_clusters_without_template_scores() -> None:
    r = term_sensitivity_clusters(["a", "b", "c"], [[0.1, 0.2], [0.1, 0.25], [0.9, 0.8]],
                                  n_clusters=2)
    d = r.to_dict()
    assert r.mean_shifts() is None
    assert "template_scores" not in d
    assert "group" not in d
    assert all("mean_shift" not in c for c in d["clusters"])
    assert [c["terms"] for c in d["clusters"]] == [["a", "b"], ["c"]]
