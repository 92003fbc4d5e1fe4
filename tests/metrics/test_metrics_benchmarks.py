"""The benchmarks' metrics against hand-worked values, scipy and simulated coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.benchmarks import (
    bbq_bias_distances,
    bbq_metric,
    binomial_interval,
    crows_pairs_metric,
    distance_from,
    paired_gaps_by_group,
    winobias_metric,
)
from pytest_fairness.metrics.bootstrap import bootstrap_paired_gap

# --------------------------------------------------------------------------- intervals


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (7, 25),
                                      (700, 1508), (1, 200)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_intervals_match_scipy_binomtest(k: int, n: int, confidence: float) -> None:
    stats = pytest.importorskip("scipy.stats")
    for ours, theirs in (("wilson", "wilson"), ("clopper-pearson", "exact")):
        got = binomial_interval(k, n, confidence=confidence, method=ours)
        want = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method=theirs)
        assert got == pytest.approx((want.low, want.high), abs=1e-9)


def test_wilson_by_hand() -> None:
    # k = 3, n = 10, z = 1.959964: centre (3 + z^2/2) / (10 + z^2), half-width
    z = 1.959963984540054
    centre = (3 + z * z / 2) / (10 + z * z)
    half = z * math.sqrt(3 * 7 / 10 + z * z / 4) / (10 + z * z)
    assert binomial_interval(3, 10) == pytest.approx((centre - half, centre + half))


def test_interval_arguments() -> None:
    assert all(math.isnan(x) for x in binomial_interval(0, 0))
    with pytest.raises(ConfigurationError, match="k must be <= n"):
        binomial_interval(3, 2)
    with pytest.raises(ConfigurationError, match="'wilson'"):
        binomial_interval(1, 2, method="wald")
    with pytest.raises(ConfigurationError, match="count"):
        binomial_interval(-1, 2)
    with pytest.raises(ConfigurationError, match="confidence"):
        binomial_interval(1, 2, confidence=1.5)


def _coverage(n: int, p: float, method: str, rng: np.random.Generator) -> float:
    table = [binomial_interval(k, n, method=method) for k in range(n + 1)]
    low = np.array([t[0] for t in table])
    high = np.array([t[1] for t in table])
    ks = rng.binomial(n, p, size=4000)
    return float(np.mean((low[ks] <= p) & (p <= high[ks])))


def test_interval_coverage_by_simulation() -> None:
    rng = np.random.default_rng(7)
    wilson = [_coverage(60, p, "wilson", rng) for p in (0.2, 0.35, 0.5, 0.65)]
    exact = [_coverage(60, p, "clopper-pearson", rng) for p in (0.2, 0.35, 0.5, 0.65)]
    # Wilson: about nominal on average; Clopper-Pearson: at least nominal (up to noise)
    assert 0.93 <= float(np.mean(wilson)) <= 0.97
    assert min(exact) >= 0.94


# --------------------------------------------------------------------------- CrowS-Pairs


def test_crows_pairs_share_ties_and_types_by_hand() -> None:
    more = [-1.0, -2.0, -3.0, -1.0, -5.0, -4.0]
    less = [-2.0, -2.0, -1.0, -3.0, -6.0, -1.0]
    types = ["gender", "gender", "gender", "age", "age", "age"]
    dirs = ["stereo", "stereo", "antistereo", "stereo", "antistereo", "stereo"]
    found = crows_pairs_metric(more, less, types, dirs)
    # margins: +1, 0 (tie), -2 | +2, +1, -3
    assert (found.overall.n, found.overall.n_more, found.overall.n_less,
            found.overall.n_ties) == (6, 3, 2, 1)
    assert found.overall.share == pytest.approx(3 / 5)
    assert found.overall.paper_score == pytest.approx(3 / 6)
    assert found.overall.ci == pytest.approx(binomial_interval(3, 5))
    g = found.by_type["gender"]
    assert (g.n_more, g.n_less, g.n_ties, g.share) == (1, 1, 1, 0.5)
    a = found.by_type["age"]
    assert (a.n_more, a.n_less, a.share) == (2, 1, pytest.approx(2 / 3))
    assert list(found.by_type) == ["gender", "age"]
    assert found.by_direction["stereo"].n_more == 2  # +1, +2; tie; -3
    assert found.by_direction["antistereo"].share == pytest.approx(1 / 2)
    assert found.to_dict()["overall"]["n_ties"] == 1


def test_crows_pairs_exact_interval_and_all_ties() -> None:
    found = crows_pairs_metric([1.0, 1.0], [1.0, 1.0], ["age", "age"],
                               interval="clopper-pearson")
    assert found.overall.n_ties == 2
    assert math.isnan(found.overall.share)
    assert found.to_dict()["overall"]["share"] is None


def test_crows_pairs_bad_input() -> None:
    with pytest.raises(ConfigurationError, match="one score per pair"):
        crows_pairs_metric([1.0], [1.0, 2.0], ["age"])
    with pytest.raises(ConfigurationError, match="bias_types has 1 entries for 2"):
        crows_pairs_metric([1.0, 2.0], [1.0, 2.0], ["age"])
    with pytest.raises(ConfigurationError, match="directions"):
        crows_pairs_metric([1.0], [2.0], ["age"], ["sideways"])
    with pytest.raises(ConfigurationError, match="NaN"):
        crows_pairs_metric([math.nan], [2.0], ["age"])


# --------------------------------------------------------------------------- BBQ


def _bbq_case() -> dict[str, object]:
    # category A, ambiguous: labels all "unknown" (2), biased answer 0
    #   predictions 2, 0, 0, 1 -> accuracy 1/4; non-unknown 3, biased 2
    #   raw bias 2 * 2/3 - 1 = 1/3; s_AMB = (1 - 1/4) * 1/3 = 1/4
    # category A, disambiguated: labels 0, 1, 0, 1; biased 0, 0, 1, 1; predictions 0, 0, 2, 1
    #   accuracy 2/4; non-unknown 3, all biased: s_DIS = 2 * 3/3 - 1 = 1
    # category B, disambiguated: one item without a target (biased -1), answered wrongly,
    #   and one answered against the bias: s_DIS = 2 * 0/1 - 1 = -1
    return {
        "predictions": [2, 0, 0, 1, 0, 0, 2, 1, 1, 0],
        "labels": [2, 2, 2, 2, 0, 1, 0, 1, 0, 0],
        "unknown": [2] * 10,
        "biased": [0, 0, 0, 0, 0, 0, 1, 1, -1, 1],
        "ambiguous": np.array([True] * 4 + [False] * 6),
        "categories": ["A"] * 8 + ["B"] * 2,
    }


def test_bbq_accuracy_and_bias_scores_by_hand() -> None:
    found = bbq_metric(**_bbq_case())  # type: ignore[arg-type]
    a = found.by_category["A"]
    assert (a.n_ambig, a.n_disambig) == (4, 4)
    assert a.accuracy_ambig == pytest.approx(0.25)
    assert a.accuracy_disambig == pytest.approx(0.5)
    assert a.s_amb == pytest.approx(0.25)
    assert a.s_dis == pytest.approx(1.0)
    assert (a.n_non_unknown_ambig, a.n_non_unknown_disambig) == (3, 3)
    lo, hi = binomial_interval(3, 3)
    assert a.s_dis_ci == pytest.approx((2 * lo - 1, 2 * hi - 1))
    assert a.accuracy_ambig_ci == pytest.approx(binomial_interval(1, 4))
    b = found.by_category["B"]
    assert b.s_dis == pytest.approx(-1.0)
    assert b.n_no_target == 1
    assert b.accuracy_disambig == pytest.approx(0.5)
    assert math.isnan(b.s_amb)
    assert math.isnan(b.accuracy_ambig)
    overall = found.overall
    # disambiguated overall: non-unknown with a target 4 (A: 3, B: 1), biased 3 -> 0.5
    assert overall.s_dis == pytest.approx(2 * 3 / 4 - 1)
    assert overall.accuracy_disambig == pytest.approx(3 / 6)
    assert overall.s_amb == pytest.approx(0.25)
    assert overall.n_no_target == 1
    low, high = a.s_amb_ci
    assert -1.0 <= low <= a.s_amb <= high <= 1.0
    assert found.to_dict()["by_category"]["B"]["s_amb"] is None


def test_bbq_bootstrap_is_seeded() -> None:
    one = bbq_metric(**_bbq_case(), seed=1)  # type: ignore[arg-type]
    assert one.overall.s_amb_ci == bbq_metric(**_bbq_case(), seed=1).overall.s_amb_ci  # type: ignore[arg-type]


def test_bbq_bias_distances_by_hand() -> None:
    found = bbq_metric(**_bbq_case())  # type: ignore[arg-type]
    # A: s_AMB 1/4, s_DIS 1; B: s_AMB undefined (no ambiguous item), s_DIS -1
    both = bbq_bias_distances(found, ("ambig", "disambig"), use_ci=False)
    assert [(n, lbl) for _, n, lbl in both] == [("A", "s_AMB"), ("A", "s_DIS"), ("B", "s_DIS")]
    assert [d for d, _, _ in both] == pytest.approx([0.25, 1.0, 1.0])
    dis = bbq_bias_distances(found, ("disambig",), use_ci=False)
    assert [(n, lbl) for _, n, lbl in dis] == [("A", "s_DIS"), ("B", "s_DIS")]
    # with the interval: the distance from 0 to its nearest end; A's s_DIS interval from
    # 3 of 3 (Wilson low .438 -> 2 * .438 - 1 = -.123) holds 0, so its distance is 0
    lo, _ = found.by_category["A"].s_dis_ci
    assert lo < 0
    assert bbq_bias_distances(found, ("disambig",), use_ci=True)[0][0] == 0.0


def test_distance_from_by_hand() -> None:
    assert distance_from(0.7, None, 0.5) == pytest.approx(0.2)
    assert distance_from(0.7, (0.6, 0.8), 0.5) == pytest.approx(0.1)
    assert distance_from(0.3, (0.2, 0.45), 0.5) == pytest.approx(0.05)
    assert distance_from(0.55, (0.4, 0.7), 0.5) == 0.0  # the interval holds the centre
    assert distance_from(-0.3, (math.nan, math.nan), 0.0) == pytest.approx(0.3)


def test_paired_gaps_by_group_by_hand() -> None:
    more = [0.9, 0.8, 0.5, 0.4, 0.6]
    less = [0.5, 0.6, 0.5, 0.6, 0.6]
    found = paired_gaps_by_group(more, less, ["age", "age", "race", "race", "age"])
    assert list(found) == ["overall", "age", "race"]
    # overall: (.4 + .2 + 0 - .2 + 0) / 5 = .08; age: (.4 + .2 + 0) / 3 = .2; race: -.1
    assert [g.gap for g, _ in found.values()] == pytest.approx([0.08, 0.2, -0.1])
    assert (found["age"][0].n_positive, found["age"][0].n_pairs) == (2, 3)
    assert all(math.isnan(lo) and math.isnan(hi) for _, (lo, hi) in found.values())
    with_ci = paired_gaps_by_group(more, less, ["age", "age", "race", "race", "age"],
                                   confidence=0.9, seed=3, n_resamples=200)
    want = bootstrap_paired_gap([0.9, 0.8, 0.6], [0.5, 0.6, 0.6], n_resamples=200,
                                confidence=0.9, seed=3, method="studentized")
    assert with_ci["age"][1] == pytest.approx((want.low, want.high))
    with pytest.raises(ConfigurationError, match="groups has 1 entries for 5"):
        paired_gaps_by_group(more, less, ["age"])


def test_bbq_bad_input() -> None:
    case = _bbq_case()
    with pytest.raises(ConfigurationError, match="answer indices 0, 1, 2"):
        bbq_metric(**{**case, "predictions": [3] * 10})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="labels must be a 1-D sequence of 10"):
        bbq_metric(**{**case, "labels": [0]})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="ambiguous must be 10 booleans"):
        bbq_metric(**{**case, "ambiguous": [1] * 10})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="empty"):
        bbq_metric([], [], [], [], np.array([], bool), [])


# --------------------------------------------------------------------------- WinoBias


def test_winobias_accuracy_gap_with_newcombe_interval() -> None:
    scores = [1, 1, 0, 1, 0, 1, 0, 0, 1, 1]
    pro = np.array([True, True, True, True, False, False, False, False, True, False])
    kinds = [1, 1, 1, 1, 1, 1, 1, 1, 2, 2]
    found = winobias_metric(scores, pro, kinds)
    t1 = found.by_type["type 1"]
    assert (t1.mean_pro, t1.mean_anti, t1.gap) == (0.75, 0.25, 0.5)
    assert t1.interval == "newcombe"
    l1, u1 = binomial_interval(3, 4)
    l2, u2 = binomial_interval(1, 4)
    assert t1.ci == pytest.approx((0.5 - math.sqrt((0.75 - l1) ** 2 + (u2 - 0.25) ** 2),
                                   0.5 + math.sqrt((u1 - 0.75) ** 2 + (0.25 - l2) ** 2)))
    t2 = found.by_type["type 2"]
    assert (t2.n_pro, t2.n_anti, t2.gap) == (1, 1, 0.0)
    assert found.overall.gap == pytest.approx(4 / 5 - 2 / 5)


def test_winobias_score_gap_with_welch_interval() -> None:
    pro_scores, anti_scores = [-1.0, -2.0, -3.0], [-4.0, -2.0]
    found = winobias_metric(pro_scores + anti_scores, np.array([True] * 3 + [False] * 2),
                            [1] * 5)
    t = found.by_type["type 1"]
    assert t.gap == pytest.approx(-2.0 - -3.0)
    assert t.interval == "welch"
    half = 1.959963984540054 * math.sqrt(np.var(pro_scores, ddof=1) / 3
                                         + np.var(anti_scores, ddof=1) / 2)
    assert t.ci == pytest.approx((1.0 - half, 1.0 + half))


def test_newcombe_coverage_by_simulation() -> None:
    rng = np.random.default_rng(11)
    n, hits = 80, 0
    p1, p2 = 0.7, 0.55
    runs = 600
    pro = np.array([True] * n + [False] * n)
    for _ in range(runs):
        scores = np.concatenate([rng.random(n) < p1, rng.random(n) < p2]).astype(float)
        ci = winobias_metric(scores, pro, [1] * (2 * n)).overall.ci
        hits += ci[0] <= p1 - p2 <= ci[1]
    assert 0.92 <= hits / runs <= 0.98


def test_winobias_bad_input() -> None:
    with pytest.raises(ConfigurationError, match="pro must be 2 booleans"):
        winobias_metric([1.0, 0.0], [1, 0], [1, 1])
    with pytest.raises(ConfigurationError, match="each 1 or 2"):
        winobias_metric([1.0, 0.0], np.array([True, False]), [1, 3])
    with pytest.raises(ConfigurationError, match="needs both kinds"):
        winobias_metric([1.0, 0.0], np.array([True, True]), [1, 1])
