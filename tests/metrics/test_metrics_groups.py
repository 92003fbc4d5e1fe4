"""Group fairness metrics (metrics/groups.py): hand-worked values, agreement with fairlearn
and scikit-learn, Hypothesis properties, bootstrap coverage, and every error path."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics import groups as G
from pytest_fairness.metrics.bias_auc import bias_aucs

# ------------------------------------------------------------------ hand-worked example
#
# group a: rows (true, pred) = (1,1) (1,0) (0,1) (0,0) (0,0)  -> TP 1, FN 1, FP 1, TN 2
# group b: rows (1,1) (1,1) (1,0) (0,0)                       -> TP 2, FN 1, FP 0, TN 1
Y_TRUE = [1, 1, 0, 0, 0, 1, 1, 1, 0]
Y_PRED = [1, 0, 1, 0, 0, 1, 1, 0, 0]
GROUP = ["a"] * 5 + ["b"] * 4


def test_hand_worked_rates() -> None:
    gm = G.group_metrics(Y_TRUE, Y_PRED, GROUP)
    a, b = gm.groups["a"], gm.groups["b"]
    assert (a.n, a.tp, a.fp, a.tn, a.fn) == (5, 1, 1, 2, 1)
    assert (b.n, b.tp, b.fp, b.tn, b.fn) == (4, 2, 0, 1, 1)
    assert gm.rates("accuracy") == {"a": 3 / 5, "b": 3 / 4}
    assert gm.rates("selection_rate") == {"a": 2 / 5, "b": 2 / 4}
    assert gm.rates("tpr") == {"a": 1 / 2, "b": 2 / 3}
    assert gm.rates("fnr") == {"a": 1 / 2, "b": 1 / 3}
    assert gm.rates("fpr") == {"a": 1 / 3, "b": 0.0}
    assert gm.rates("precision") == {"a": 1 / 2, "b": 1.0}
    assert gm.difference("selection_rate") == pytest.approx(0.1)
    assert gm.ratio("selection_rate") == pytest.approx(0.8)
    assert gm.difference("tpr") == pytest.approx(1 / 6)
    # equalized odds: max(TPR diff 1/6, FPR diff 1/3); ratio: min(3/4, 0/(1/3) = 0)
    assert gm.difference("equalized_odds") == pytest.approx(1 / 3)
    assert gm.ratio("equalized_odds") == 0.0
    assert G.demographic_parity_difference(Y_TRUE, Y_PRED, GROUP) == pytest.approx(0.1)
    assert G.demographic_parity_ratio(Y_TRUE, Y_PRED, GROUP) == pytest.approx(0.8)
    assert G.equalized_odds_difference(Y_TRUE, Y_PRED, GROUP) == pytest.approx(1 / 3)
    assert G.equalized_odds_ratio(Y_TRUE, Y_PRED, GROUP) == 0.0
    assert G.equal_opportunity_difference(Y_TRUE, Y_PRED, GROUP) == pytest.approx(1 / 6)
    assert G.predictive_parity_difference(Y_TRUE, Y_PRED, GROUP) == pytest.approx(0.5)
    assert gm.n == 9
    assert gm.columns == ("group",)
    assert gm.to_dict()["groups"]["a"]["tpr"] == 0.5


def test_string_labels_with_a_positive_label() -> None:
    yt = ["toxic" if y else "ok" for y in Y_TRUE]
    yp = ["toxic" if y else "ok" for y in Y_PRED]
    gm = G.group_metrics(yt, yp, GROUP, positive="toxic")
    assert gm.difference("selection_rate") == pytest.approx(0.1)
    flipped = G.group_metrics(yt, yp, GROUP, positive="ok")
    assert flipped.rates("selection_rate") == {"a": 3 / 5, "b": 2 / 4}


def test_criteria_are_aliases() -> None:
    gm = G.group_metrics(Y_TRUE, Y_PRED, GROUP)
    assert gm.difference("demographic_parity") == gm.difference("selection_rate")
    assert gm.difference("equal_opportunity") == gm.difference("tpr")
    assert gm.difference("predictive_parity") == gm.difference("precision")


def test_a_zero_denominator_is_nan_and_reported_never_zero() -> None:
    # group b has no positive rows: its TPR is undefined, so is the TPR difference
    gm = G.group_metrics([1, 0, 0, 0], [1, 0, 1, 0], ["a", "a", "b", "b"])
    assert math.isnan(gm.rates("tpr")["b"])
    assert math.isnan(gm.difference("tpr"))
    assert math.isnan(gm.ratio("equal_opportunity"))
    assert math.isnan(gm.difference("equalized_odds"))
    assert gm.undefined("tpr") == {"b": "no positive rows for TPR"}
    assert gm.undefined("selection_rate") == {}
    assert math.isnan(G.equal_opportunity_difference([1, 0, 0, 0], [1, 0, 1, 0],
                                                      ["a", "a", "b", "b"]))
    # nothing predicted positive: precision undefined
    gm = G.group_metrics([1, 0, 1, 0], [0, 0, 1, 0], ["a", "a", "b", "b"])
    assert gm.undefined("predictive_parity") == {"a": "nothing predicted positive for precision"}
    # every selection rate 0: the ratio is 0/0
    gm = G.group_metrics([1, 0, 1, 0], [0, 0, 0, 0], ["a", "a", "b", "b"])
    assert gm.difference("selection_rate") == 0.0
    assert math.isnan(gm.ratio("selection_rate"))


def test_intersectional_groups_are_tuples() -> None:
    gender = ["f", "f", "m", "m", "f", "m"]
    race = ["x", "y", "x", "y", "x", "x"]
    gm = G.group_metrics([1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 0, 1], {"gender": gender, "race": race})
    assert gm.columns == ("gender", "race")
    assert list(gm.groups) == [("f", "x"), ("f", "y"), ("m", "x"), ("m", "y")]
    assert gm.groups[("f", "x")].n == 2
    assert gm.rates("selection_rate")[("m", "x")] == 0.5
    assert G.group_label(("f", "x")) == "f & x"
    assert "f & x" in gm.to_dict()["groups"]


def test_small_groups_are_named_with_their_sizes() -> None:
    groups = ["a"] * 5 + ["b"] * 2 + ["c"]
    with pytest.raises(G.SmallGroupError) as info:
        G.group_metrics([1] * 8, [1] * 8, groups, min_group_size=3)
    message = str(info.value)
    assert "2 of 3 groups" in message
    assert "'c': 1" in message
    assert "'b': 2" in message
    assert "drop_small=True" in message
    assert info.value.sizes == {"b": 2, "c": 1}
    gm = G.group_metrics([1] * 8, [1] * 8, groups, min_group_size=3, drop_small=True)
    assert list(gm.groups) == ["a"]
    assert gm.dropped == {"b": 2, "c": 1}
    with pytest.raises(G.SmallGroupError, match="every group"):
        G.group_metrics([1] * 8, [1] * 8, groups, min_group_size=6, drop_small=True)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: G.group_metrics([1, None], [1, 0], ["a", "b"]), "y_true has 1 missing label"),
        (lambda: G.group_metrics([1, 0], [1, float("nan")], ["a", "b"]), "y_pred has 1 missing"),
        (lambda: G.group_metrics([1, 0], [1, 0, 1], ["a", "b"]), "y_true has 2 labels"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a"]), "has 1 values for 2 rows"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a", None]), "1 missing value"),
        (lambda: G.group_metrics([1, 0], [1, 0], {}), "empty mapping"),
        (lambda: G.group_metrics([1, 0], [1, 0], "ab"), "sequence of one value per row"),
        (lambda: G.group_metrics([1, 0], [1, 0], [["a"], ["b"]]), "not a group value"),
        (lambda: G.group_metrics([], [], []), "y_true is empty"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a", "b"], min_group_size=0),
         "min_group_size must be >= 1"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a", "b"], drop_small="yes"), "drop_small"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a", "b"]).difference("auc"), "metric must"),
        (lambda: G.group_metrics([1, 0], [1, 0], ["a", "b"]).rates("equalized_odds"),
         "unknown rate"),
        (lambda: G.bootstrap_group_metric("x", "tpr"), "takes the GroupMetrics"),  # type: ignore[arg-type]
        (lambda: G.group_bias_aucs([0.1, 0.2], [1, 0], ["a", "a"]), "only 1 group"),
    ],
)
def test_bad_input_raises_a_named_error(call: object, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        call()  # type: ignore[operator]


# ------------------------------------------------------------------ fairlearn and sklearn


def _random(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    h = rng.choice(["x", "y"], n)
    yt = rng.integers(0, 2, n)
    yp = np.where(rng.random(n) < 0.7, yt, 1 - yt)
    return yt, yp, g, h


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_fairlearn(seed: int) -> None:
    fm = pytest.importorskip("fairlearn.metrics")
    import pandas as pd

    yt, yp, g, h = _random(seed)
    gm = G.group_metrics(yt, yp, g)
    ours = {
        "demographic_parity_difference": gm.difference("selection_rate"),
        "demographic_parity_ratio": gm.ratio("selection_rate"),
        "equalized_odds_difference": gm.difference("equalized_odds"),
        "equalized_odds_ratio": gm.ratio("equalized_odds"),
    }
    for name, value in ours.items():
        assert value == pytest.approx(getattr(fm, name)(yt, yp, sensitive_features=g)), name
    theirs = fm.MetricFrame(
        metrics={"accuracy": _accuracy, "selection_rate": fm.selection_rate,
                 "tpr": fm.true_positive_rate, "fpr": fm.false_positive_rate,
                 "fnr": fm.false_negative_rate, "precision": _precision},
        y_true=yt, y_pred=yp, sensitive_features=pd.DataFrame({"g": g, "h": h}),
    )
    inter = G.group_metrics(yt, yp, {"g": g, "h": h})
    for metric in G.RATES:
        for key, value in inter.rates(metric).items():
            assert value == pytest.approx(theirs.by_group[metric][key]), (metric, key)
        assert inter.difference(metric) == pytest.approx(theirs.difference()[metric])
        assert inter.ratio(metric) == pytest.approx(theirs.ratio()[metric])


def _accuracy(y_true: object, y_pred: object) -> float:
    from sklearn.metrics import accuracy_score

    return float(accuracy_score(y_true, y_pred))


def _precision(y_true: object, y_pred: object) -> float:
    from sklearn.metrics import precision_score

    return float(precision_score(y_true, y_pred, zero_division=np.nan))


@pytest.mark.parametrize("seed", range(3))
def test_per_group_rates_agree_with_sklearn(seed: int) -> None:
    skm = pytest.importorskip("sklearn.metrics")
    yt, yp, g, _ = _random(seed, 200)
    gm = G.group_metrics(yt, yp, g)
    for key in gm.groups:
        m = g == key
        t, p = yt[m], yp[m]
        assert gm.rates("tpr")[key] == pytest.approx(skm.recall_score(t, p))
        assert gm.rates("fnr")[key] == pytest.approx(1 - skm.recall_score(t, p))
        assert gm.rates("fpr")[key] == pytest.approx(1 - skm.recall_score(t, p, pos_label=0))
        assert gm.rates("precision")[key] == pytest.approx(skm.precision_score(t, p))
        assert gm.rates("accuracy")[key] == pytest.approx(skm.accuracy_score(t, p))
        tn, fp, fn, tp = skm.confusion_matrix(t, p, labels=[0, 1]).ravel()
        c = gm.groups[key]
        assert (c.tp, c.fp, c.tn, c.fn) == (tp, fp, tn, fn)


def test_sklearn_says_zero_where_we_say_undefined() -> None:
    skm = pytest.importorskip("sklearn.metrics")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert skm.recall_score([0, 0], [1, 0]) == 0.0
    assert math.isnan(G.group_metrics([0, 0], [1, 0], ["a", "a"]).rates("tpr")["a"])


def test_group_bias_aucs_match_bias_aucs_per_group() -> None:
    rng = np.random.default_rng(3)
    n = 120
    scores = rng.random(n)
    labels = rng.integers(0, 2, n)
    g = rng.choice(["x", "y", "z"], n)
    found = G.group_bias_aucs(scores, labels, g)
    assert set(found) == {"x", "y", "z"}
    for key in found:
        assert found[key] == pytest.approx(bias_aucs(scores, labels, g == key))
    inter = G.group_bias_aucs(scores, ["t" if y else "n" for y in labels],
                              {"g": g, "h": rng.choice(["p", "q"], n)}, positive="t")
    assert "x & p" in inter


# ------------------------------------------------------------------ properties

_rows = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.sampled_from("abc")),
                 min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(_rows, st.randoms(use_true_random=False))
def test_gap_and_ratio_bounds_and_row_order(rows: list[tuple[int, int, str]], rnd: object) -> None:
    yt, yp, g = (list(x) for x in zip(*rows, strict=True))
    gm = G.group_metrics(yt, yp, g)
    shuffled = list(rows)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    st_, sp, sg = (list(x) for x in zip(*shuffled, strict=True))
    other = G.group_metrics(st_, sp, sg)
    for metric in G.GAP_METRICS:
        d, r = gm.difference(metric), gm.ratio(metric)
        assert math.isnan(d) or d >= 0
        assert math.isnan(r) or 0 <= r <= 1
        assert d == pytest.approx(other.difference(metric), nan_ok=True)
        assert r == pytest.approx(other.ratio(metric), nan_ok=True)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=30),
       st.integers(2, 4))
def test_identical_copies_have_no_gap(rows: list[tuple[int, int]], copies: int) -> None:
    yt = [t for _ in range(copies) for t, _p in rows]
    yp = [p for _ in range(copies) for _t, p in rows]
    g = [f"g{c}" for c in range(copies) for _ in rows]
    gm = G.group_metrics(yt, yp, g)
    for metric in G.GAP_METRICS:
        d, r = gm.difference(metric), gm.ratio(metric)
        if not gm.undefined(metric):
            assert d == 0.0
            assert math.isnan(r) or r == 1.0


# ------------------------------------------------------------------ bootstrap


def test_bootstrap_intervals_contain_the_estimates_and_are_seeded() -> None:
    yt, yp, g, _ = _random(0, 300)
    gm = G.group_metrics(yt, yp, g)
    for method in ("bca", "percentile"):
        iv = G.bootstrap_group_metric(gm, "equalized_odds", seed=5, method=method)
        assert iv.difference.low <= iv.difference.estimate <= iv.difference.high
        assert iv.ratio.low <= iv.ratio.estimate <= iv.ratio.high
        assert iv.difference.estimate == pytest.approx(gm.difference("equalized_odds"))
        assert set(iv.per_group["a"]) == {"tpr", "fpr"}
        ci = iv.per_group["b"]["tpr"]
        assert ci.low <= gm.rates("tpr")["b"] <= ci.high
        assert ci.method == method
        again = G.bootstrap_group_metric(gm, "equalized_odds", seed=5, method=method)
        assert again == iv
    assert G.bootstrap_group_metric(gm, "tpr", seed=6) != G.bootstrap_group_metric(gm, "tpr")
    assert G.bootstrap_group_metric(gm, "selection_rate").to_dict()["metric"] == "selection_rate"


def test_bootstrap_of_an_undefined_gap_is_nan() -> None:
    gm = G.group_metrics([1, 0, 0, 0, 1, 1], [1, 0, 1, 0, 1, 0], ["a", "a", "b", "b", "a", "a"])
    iv = G.bootstrap_group_metric(gm, "tpr", n_resamples=50)
    assert math.isnan(iv.difference.estimate)
    assert math.isnan(iv.difference.low)


def test_the_95_interval_of_a_gap_covers_the_true_gap_about_95_percent() -> None:
    """500 data sets of two groups of 200 rows with selection rates 0.30 and 0.45 (gap
    0.15): the share of BCa intervals covering 0.15 is 0.95 within 3 binomial SEs."""
    rng = np.random.default_rng(2024)
    sims, n, true_gap = 500, 200, 0.15
    covered = 0
    g = ["a"] * n + ["b"] * n
    for _ in range(sims):
        yp = np.concatenate([rng.random(n) < 0.30, rng.random(n) < 0.45]).astype(int)
        yt = rng.integers(0, 2, 2 * n)
        gm = G.group_metrics(yt, yp, g)
        ci = G.bootstrap_group_metric(gm, "selection_rate", n_resamples=400, seed=rng).difference
        covered += ci.low <= true_gap <= ci.high
    share = covered / sims
    se = math.sqrt(0.95 * 0.05 / sims)
    assert abs(share - 0.95) <= 3 * se, share


def test_fractions_are_each_rates_successes_and_count() -> None:
    gm = G.group_metrics([1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 1], ["a"] * 4 + ["b"] * 2)
    num, den = gm.fractions("tpr")
    assert num.tolist() == [1.0, 1.0]
    assert den.tolist() == [2.0, 1.0]
    num, den = gm.fractions("precision")
    assert (num / den).tolist() == [gm.groups["a"].rate("precision"),
                                    gm.groups["b"].rate("precision")]
    with pytest.raises(ConfigurationError, match="unknown rate 'auc'"):
        gm.fractions("auc")
