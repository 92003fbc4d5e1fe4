"""Borkan et al. bias AUCs (cross-geographic paper, section 5.2)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics import bias_aucs, mann_whitney_auc
from pytest_fairness.metrics.bias_auc import misranked_examples

# (score, toxic label, in subgroup)
ROWS = [
    (0.9, 1, 1), (0.6, 1, 1),  # subgroup positive
    (0.7, 0, 1), (0.2, 0, 1),  # subgroup negative
    (0.8, 1, 0), (0.5, 1, 0),  # background positive
    (0.3, 0, 0), (0.1, 0, 0),  # background negative
]


def test_misranked_examples_by_hand() -> None:
    scores, labels, groups = zip(*ROWS, strict=True)
    # BPSN: subgroup non-toxic .7 (index 2) outranks background toxic .5 -> 1/2; .2 none
    assert misranked_examples("bpsn_auc", scores, labels, groups) == [(2, 0.5)]
    # BNSP: subgroup toxic {.9, .6} above every background non-toxic one
    assert misranked_examples("bnsp_auc", scores, labels, groups) == []
    # within the subgroup: .7 (non-toxic) above .6 (toxic), each 1/2; the tie puts the
    # higher-scored non-toxic example first
    assert misranked_examples("subgroup_auc", scores, labels, groups) == [(2, 0.5), (1, 0.5)]
    # the shares average to 1 - AUC over the compared examples
    bpsn = bias_aucs(scores, labels, groups)["bpsn_auc"]
    assert sum(v for _, v in misranked_examples("bpsn_auc", scores, labels, groups)) / 2 \
        == pytest.approx(1 - bpsn)
    with pytest.raises(ConfigurationError, match="metric must be"):
        misranked_examples("aeg_positive", scores, labels, groups)


def test_bias_aucs_by_hand() -> None:
    scores, labels, groups = zip(*ROWS, strict=True)
    r = bias_aucs(scores, labels, groups)
    # subgroup AUC: {.9,.6} vs {.7,.2}: .9>.7 .9>.2 .6>.2 (not .6>.7) -> 3/4
    assert r["subgroup_auc"] == pytest.approx(0.75)
    # BPSN: bg pos {.8,.5} vs sub neg {.7,.2}: .8>.7 .8>.2 .5>.2 -> 3/4
    assert r["bpsn_auc"] == pytest.approx(0.75)
    # BNSP: sub pos {.9,.6} vs bg neg {.3,.1}: all four -> 1
    assert r["bnsp_auc"] == pytest.approx(1.0)
    # AEG+: P(sub pos > bg pos) = (.9>.8, .9>.5, .6>.5) 3/4 -> 3/4 - 1/2 = .25
    assert r["aeg_positive"] == pytest.approx(0.25)
    # AEG-: P(sub neg > bg neg) = (.7>.3, .7>.1, .2>.1) 3/4 -> .25
    assert r["aeg_negative"] == pytest.approx(0.25)
    assert set(r) == {"subgroup_auc", "bpsn_auc", "bnsp_auc", "aeg_positive", "aeg_negative"}


def test_ties_count_half() -> None:
    # (.5 vs .5) = 1/2, (.5 > .3), (.7 > .5), (.7 > .3) -> 3.5 / 4
    assert mann_whitney_auc([0.5, 0.7], [0.5, 0.3]) == pytest.approx(0.875)
    assert mann_whitney_auc([0.4, 0.4], [0.4]) == pytest.approx(0.5)


def test_empty_population_is_named() -> None:
    with pytest.raises(ValueError, match="subgroup positive"):
        bias_aucs([0.1, 0.2, 0.3], [0, 1, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="0/1"):
        bias_aucs([0.1, 0.2], [0, 2], [1, 0])
    with pytest.raises(ValueError, match="shape"):
        bias_aucs([0.1, 0.2], [0, 1], [1])


SCORE = st.integers(0, 10).map(lambda i: i / 10)  # a coarse grid makes ties common


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(SCORE, st.booleans(), st.booleans()), min_size=4, max_size=30))
def test_aucs_in_unit_interval(rows: list[tuple[float, bool, bool]]) -> None:
    scores, labels, groups = (np.array(c) for c in zip(*rows, strict=True))
    pops = [(groups & labels), (groups & ~labels), (~groups & labels), (~groups & ~labels)]
    if not all(p.any() for p in pops):
        with pytest.raises(ValueError, match="empty"):
            bias_aucs(scores, labels, groups)
        return
    r = bias_aucs(scores, labels, groups)
    for key in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        assert 0.0 <= r[key] <= 1.0
    for key in ("aeg_positive", "aeg_negative"):
        assert -0.5 <= r[key] <= 0.5


@settings(max_examples=100, deadline=None)
@given(x=st.lists(SCORE, min_size=1, max_size=12), y=st.lists(SCORE, min_size=1, max_size=12))
def test_mann_whitney_matches_pair_count(x: list[float], y: list[float]) -> None:
    pairs = [1.0 if a > b else 0.5 if a == b else 0.0 for a, b in itertools.product(x, y)]
    assert mann_whitney_auc(x, y) == pytest.approx(sum(pairs) / len(pairs), abs=1e-12)
