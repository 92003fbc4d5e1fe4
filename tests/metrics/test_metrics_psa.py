"""PSA metrics (psa paper, sections 2 and 3.2): hand-worked values and properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pytest_fairness.metrics import PSAAccumulator, default_thresholds, psa_from_scores

NAMES = ("A", "B", "C")
# Three sentences x1..x3, toxicity in [0, 1]; columns are f(x_A), f(x_B), f(x_C).
ORIGINAL = [0.2, 0.6, 0.9]
PERTURBED = [
    [0.3, 0.1, 0.2],
    [0.6, 0.9, 0.3],
    [0.8, 0.9, 1.0],
]


def test_hand_worked_scoresens_scoredev_scorerange() -> None:
    r = psa_from_scores(ORIGINAL, PERTURBED, NAMES)
    # shifts f(x_n) - f(x):  x1: +.1 -.1 0 | x2: 0 +.3 -.3 | x3: -.1 0 +.1
    # ScoreSens A = (.1 + 0 - .1)/3 = 0; B = (-.1 + .3 + 0)/3 = .0667; C = (0 - .3 + .1)/3
    assert r.score_sens["A"] == pytest.approx(0.0, abs=1e-12)
    assert r.score_sens["B"] == pytest.approx(0.2 / 3)
    assert r.score_sens["C"] == pytest.approx(-0.2 / 3)
    # population std per sentence: x1 sqrt(.02/3), x2 sqrt(.18/3) = sqrt(.06), x3 sqrt(.02/3)
    # ScoreDev = (2 * 0.0816497 + 0.2449490) / 3 = 0.1360828
    assert r.score_dev == pytest.approx((2 * math.sqrt(0.02 / 3) + math.sqrt(0.06)) / 3)
    assert r.score_dev == pytest.approx(0.1360828, abs=1e-7)
    # ranges .2, .6, .2 -> ScoreRange = 1.0 / 3
    assert r.score_range == pytest.approx(1 / 3)
    assert r.n_sentences == 3


def test_hand_worked_label_dist() -> None:
    r = psa_from_scores(ORIGINAL, PERTURBED, NAMES)
    # c = .5: A = {x2, x3}; B_A = {x2, x3} -> 0; B_B = {x2, x3} -> 0;
    # B_C = {x3}: 1 - |{x3}| / |{x2, x3}| = .5.  LabelDist = (0 + 0 + .5) / 3 = 1/6
    assert r.label_dist_per_name(0.5) == pytest.approx({"A": 0.0, "B": 0.0, "C": 0.5})
    assert r.label_dist(0.5) == pytest.approx(1 / 6)
    # c = .95: A = {}; B_A = {} and B_B = {} (both empty -> 0); B_C = {x3} -> 1 - 0/1 = 1
    assert r.label_dist(0.95) == pytest.approx(1 / 3)
    curve = dict(r.label_dist_curve())
    assert curve[0.5] == pytest.approx(1 / 6)
    assert len(curve) == 19


def test_hand_worked_shift_correlation() -> None:
    r = psa_from_scores(ORIGINAL, PERTURBED, NAMES)
    # a = mean_n |shift| = (2/30, 6/30, 2/30); b = f(x) = (.2, .6, .9)
    # a - mean(a) = (-2/45, 4/45, -2/45); b - mean(b) = (-11/30, 1/30, 10/30)
    # cov-sum = (22 + 4 - 20)/1350 = 1/225; sum da^2 = 24/2025; sum db^2 = 222/900
    # r = (1/225) / sqrt(24/2025 * 222/900) = 6 / sqrt(5328) = 0.0821994
    assert r.shift_correlation == pytest.approx(6 / math.sqrt(5328))
    assert r.shift_correlation == pytest.approx(0.0821994, abs=1e-7)


def test_worst_sentences_and_pairs() -> None:
    r = psa_from_scores(ORIGINAL, PERTURBED, NAMES, keys=["s1", "s2", "s3"], top_n=2)
    worst = r.worst_sentences[0]
    # x2 has the largest range (.9 - .3 = .6): max at B, min at C
    assert (worst.index, worst.key, worst.max_name, worst.min_name) == (1, "s2", "B", "C")
    assert worst.score_range == pytest.approx(0.6)
    # the two largest |shift| are (x2, B) = +.3 and (x2, C) = -.3 (tie broken by name order)
    assert [(p.index, p.name) for p in r.worst_pairs] == [(1, "B"), (1, "C")]
    assert r.worst_pairs[1].shift == pytest.approx(-0.3)


def test_sentiment_range_and_default_grid() -> None:
    # psa's sentiment model lives in [-1, 1]: the default curve spans -0.9 .. 0.9
    grid = default_thresholds((-1.0, 1.0))
    assert grid[0] == pytest.approx(-0.9)
    assert grid[9] == pytest.approx(0.0)
    assert grid[-1] == pytest.approx(0.9)
    assert default_thresholds()[0] == pytest.approx(0.05)
    # sentiment: x1 f=-.5 -> names (-.3, -.7); x2 f=.4 -> (.4, -.2)
    r = psa_from_scores([-0.5, 0.4], [[-0.3, -0.7], [0.4, -0.2]], ["A", "B"],
                        score_range=(-1.0, 1.0))
    # c = 0: A = {x2}; B_A = {x2} -> 0; B_B = {} -> 1 - 0/1 = 1; LabelDist = .5
    assert r.label_dist(0.0) == pytest.approx(0.5)
    # ranges .4 and .6 -> ScoreRange .5
    assert r.score_range == pytest.approx(0.5)


def test_accumulator_threshold_outside_grid() -> None:
    acc = PSAAccumulator(NAMES, thresholds=[0.5, 0.95])
    acc.add_batch(ORIGINAL, PERTURBED)
    r = acc.result()
    assert r.label_dist(0.5) == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match=r"not in the threshold grid"):
        r.label_dist(0.33)
    kept = PSAAccumulator(NAMES, thresholds=[0.5], keep_scores=True)
    for o, p in zip(ORIGINAL, PERTURBED, strict=True):
        kept.add(o, p)
    # c = .33: A = {x2, x3}; B_A = {x2, x3} -> 0; B_B = {x2, x3} -> 0; B_C = {x3} -> .5
    assert kept.result().label_dist(0.33) == pytest.approx(1 / 6)


def test_json_report() -> None:
    acc = PSAAccumulator(NAMES, top_n=1)
    acc.add_batch(ORIGINAL, PERTURBED, keys=["a", "b", "c"])
    d = acc.result().to_dict()
    json.dumps(d)
    assert d["worst_sentences"][0]["key"] == "b"
    assert d["score_range"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"original_scores": [0.1], "perturbed_scores": [[0.1, 0.2]]}, "3 names"),
        ({"original_scores": [0.1, 0.2], "perturbed_scores": [[0.1] * 3]}, "rows"),
        ({"original_scores": [float("nan")], "perturbed_scores": [[0.1] * 3]}, "NaN"),
        ({"original_scores": [1.5], "perturbed_scores": [[0.1] * 3]}, "outside score_range"),
        ({"original_scores": [], "perturbed_scores": [[0.1] * 3]}, "empty"),
    ],
)
def test_invalid_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        psa_from_scores(names=NAMES, **kwargs)  # type: ignore[arg-type]


def test_invalid_names_and_empty_accumulator() -> None:
    with pytest.raises(ValueError, match="unique"):
        PSAAccumulator(["A", "A"])
    with pytest.raises(ValueError, match="empty"):
        PSAAccumulator([])
    with pytest.raises(ValueError, match="no sentences"):
        PSAAccumulator(NAMES).result()
    with pytest.raises(ValueError, match="score_range"):
        PSAAccumulator(NAMES, score_range=(1.0, 0.0))


def test_shift_correlation_undefined_is_none() -> None:
    # one sentence: no correlation
    assert psa_from_scores([0.5], [[0.4, 0.6]], ["A", "B"]).shift_correlation is None
    # every sentence shifts by the same amount: a is constant
    r = psa_from_scores([0.2, 0.5], [[0.3, 0.1], [0.6, 0.4]], ["A", "B"])
    assert r.shift_correlation is None


# --- properties -----------------------------------------------------------------------

GRID = st.integers(0, 20).map(lambda i: i / 20)  # scores on a grid: exact ties happen


@st.composite
def score_tables(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    m = draw(st.integers(1, 12))
    n = draw(st.integers(1, 5))
    original = draw(hnp.arrays(np.float64, m, elements=GRID))
    perturbed = draw(hnp.arrays(np.float64, (m, n), elements=GRID))
    return original, perturbed


@settings(max_examples=60, deadline=None)
@given(original=hnp.arrays(np.float64, st.integers(1, 15), elements=GRID),
       n=st.integers(1, 6))
def test_model_ignoring_names_has_zero_psa(original: np.ndarray, n: int) -> None:
    perturbed = np.repeat(original[:, None], n, axis=1)
    r = psa_from_scores(original, perturbed, [f"n{i}" for i in range(n)])
    assert all(v == 0 for v in r.score_sens.values())
    assert r.score_dev == 0
    assert r.score_range == 0
    assert all(v == 0 for _, v in r.label_dist_curve())


@settings(max_examples=60, deadline=None)
@given(table=score_tables())
def test_scorerange_at_least_twice_scoredev(table: tuple[np.ndarray, np.ndarray]) -> None:
    original, perturbed = table
    r = psa_from_scores(original, perturbed, [f"n{i}" for i in range(perturbed.shape[1])])
    assert r.score_range >= 2 * r.score_dev - 1e-12


@settings(max_examples=60, deadline=None)
@given(table=score_tables(), data=st.data())
def test_streaming_equals_batch(table: tuple[np.ndarray, np.ndarray], data: st.DataObject) -> None:
    original, perturbed = table
    names = [f"n{i}" for i in range(perturbed.shape[1])]
    top = data.draw(st.integers(0, 4))
    batch = psa_from_scores(original, perturbed, names, top_n=top)
    acc = PSAAccumulator(names, top_n=top)
    i = 0
    while i < original.shape[0]:
        size = data.draw(st.integers(1, 4))
        if size == 1:
            acc.add(original[i], perturbed[i])
        else:
            acc.add_batch(original[i : i + size], perturbed[i : i + size])
        i += size
    stream = acc.result()
    assert stream.n_sentences == batch.n_sentences
    for name in names:
        assert stream.score_sens[name] == pytest.approx(batch.score_sens[name], abs=1e-12)
    assert stream.score_dev == pytest.approx(batch.score_dev, abs=1e-12)
    assert stream.score_range == pytest.approx(batch.score_range, abs=1e-12)
    if batch.shift_correlation is None:
        assert stream.shift_correlation is None
    else:
        assert stream.shift_correlation == pytest.approx(batch.shift_correlation, abs=1e-9)
    for (t1, v1), (t2, v2) in zip(stream.label_dist_curve(), batch.label_dist_curve(),
                                  strict=True):
        assert t1 == t2
        assert v1 == pytest.approx(v2, abs=1e-15)
    assert [w.index for w in stream.worst_sentences] == [w.index for w in batch.worst_sentences]
    assert [(p.index, p.name) for p in stream.worst_pairs] == [
        (p.index, p.name) for p in batch.worst_pairs
    ]


def test_accumulator_memory_stays_bounded() -> None:
    rng = np.random.default_rng(0)
    acc = PSAAccumulator([f"n{i}" for i in range(4)], top_n=3)
    for _ in range(200):
        acc.add_batch(rng.random(50), rng.random((50, 4)))
    assert len(acc._worst_sentences) == 3
    assert len(acc._worst_pairs) == 3
    r = acc.result()
    assert r.n_sentences == 10_000
    assert not r.has_scores
    assert r.worst_sentences[0].score_range >= r.worst_sentences[-1].score_range


def test_worst_indices_name_what_the_worst_lists_hold() -> None:
    rng = np.random.default_rng(3)
    acc = PSAAccumulator(["a", "b", "c"], top_n=2)
    assert acc.worst_indices() == set()
    for _ in range(5):
        acc.add_batch(rng.uniform(0, 1, 7), rng.uniform(0, 1, (7, 3)))
    result = acc.result()
    held = {w.index for w in result.worst_sentences} | {w.index for w in result.worst_pairs}
    assert acc.worst_indices() == held
    assert 1 <= len(held) <= 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), min_size=1, max_size=60),
       st.integers(1, 70))
def test_the_top_k_by_partition_is_the_first_k_of_the_full_sort(values: list[float],
                                                                 k: int) -> None:
    """Ties and all: the partition keeps every value tied with the k-th largest, so the
    first k are those of the full lexsort the worst lists used to take."""
    from pytest_fairness.metrics.psa import _top

    arr = np.array(values)
    order = np.arange(len(arr))
    assert _top(arr, k, order).tolist() == np.lexsort((order, -arr))[:k].tolist()


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5),
       st.lists(st.sampled_from([0.0, 0.05, 0.3, 0.5, 0.5, 0.95, 1.0]), min_size=1,
                max_size=6),
       st.integers(0, 2**31))
def test_label_counts_equal_comparing_every_score_with_every_threshold(
        m: int, n: int, grid: list[float], seed: int) -> None:
    """The histogram counts (scores placed once among the sorted thresholds) equal the
    direct comparisons, ties with a threshold and unsorted, repeated thresholds included."""
    from pytest_fairness.metrics.psa import _label_counts

    rng = np.random.default_rng(seed)
    values = np.array([0.0, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0])
    original, perturbed = rng.choice(values, m), rng.choice(values, (m, n))
    thresholds = np.array(grid)
    in_a = original[None, :] >= thresholds[:, None]
    in_b = perturbed[None, :, :] >= thresholds[:, None, None]
    a, b, ab = _label_counts(original, perturbed, thresholds)
    assert a.tolist() == in_a.sum(axis=1).tolist()
    assert b.tolist() == in_b.sum(axis=1).tolist()
    assert ab.tolist() == (in_b & in_a[:, :, None]).sum(axis=1).tolist()
