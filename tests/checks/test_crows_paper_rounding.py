"""CrowS-Pairs with ``paper_rounding=True`` (issue 25): the authors' metric.py rounds both
scores to 3 decimals and counts a rounded tie as not stereotyped; the default (unrounded,
ties apart) is unchanged. Hand-worked on five pairs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks.benchmarks import assert_crows_pairs_below, crows_pairs_score
from pytest_fairness.corpus.benchmarks import CrowsPair
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.benchmarks import crows_pairs_metric

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

# score(more), score(less) per pair, and by hand:
#   unrounded margin        rounded to 3 decimals          paper (rounded)
#   -0.0003  less wins       -10.000 vs -10.000  tie         not stereotyped
#   +0.0002  more wins       -5.123  vs -5.124   more wins   stereotyped
#    0       tie             -3.000  vs -3.000   tie         not stereotyped
#   +0.0003  more wins       -2.000  vs -2.000   tie         not stereotyped
#   +0.5     more wins       -7.000  vs -7.500   more wins   stereotyped
MORE = [-10.0004, -5.1234, -3.0, -2.0001, -7.0]
LESS = [-10.0001, -5.1236, -3.0, -2.0004, -7.5]
TYPES = ["race", "race", "gender", "gender", "gender"]


def test_default_is_unchanged_and_paper_rounding_gives_the_authors_metric() -> None:
    plain = crows_pairs_metric(MORE, LESS, TYPES)
    assert (plain.overall.n_more, plain.overall.n_less, plain.overall.n_ties) == (3, 1, 1)
    assert plain.overall.share == pytest.approx(3 / 4)
    assert plain.overall.paper_score == pytest.approx(3 / 5)
    assert not plain.paper_rounding
    paper = crows_pairs_metric(MORE, LESS, TYPES, paper_rounding=True)
    assert (paper.overall.n_more, paper.overall.n_less, paper.overall.n_ties) == (2, 0, 3)
    assert paper.overall.share == pytest.approx(2 / 5)  # metric.py: 40.0
    assert paper.overall.paper_score == paper.overall.share
    assert paper.by_type["race"].share == pytest.approx(1 / 2)
    assert paper.by_type["gender"].share == pytest.approx(1 / 3)
    # the interval is over all five pairs, not the two decided ones
    from pytest_fairness.metrics.benchmarks import binomial_interval

    assert paper.overall.ci == pytest.approx(binomial_interval(2, 5))
    assert paper.to_dict()["paper_rounding"] is True


def test_rounding_is_pythons_round_to_three_decimals() -> None:
    # 1.0005 is stored as 1.00049999999999994...: metric.py's round() gives 1.0, so this
    # pair ties; 2.0005 is 2.00050000000000016...: round() gives 2.001 > 2.0
    paper = crows_pairs_metric([1.0005, 2.0005], [1.0, 2.0], ["a", "a"],
                               paper_rounding=True)
    assert (paper.overall.n_more, paper.overall.n_ties) == (1, 1)
    assert [round(x, 3) for x in (1.0005, 2.0005)] == [1.0, 2.001]


def test_paper_rounding_must_be_a_bool() -> None:
    with pytest.raises(ConfigurationError, match="paper_rounding must be True or False"):
        crows_pairs_metric(MORE, LESS, TYPES, paper_rounding="yes")  # type: ignore[arg-type]


class TableLM:
    """log P(text) from a fixed table: a real object with the LikelihoodModel method."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.scores[t] for t in texts])


def _pairs() -> tuple[list[CrowsPair], TableLM]:
    pairs, table = [], {}
    for i, (m, s, t) in enumerate(zip(MORE, LESS, TYPES, strict=True)):
        more, less = f"pair {i} more", f"pair {i} less"
        table[more], table[less] = m, s
        pairs.append(CrowsPair(i, more, less, "stereo", t))
    return pairs, TableLM(table)


def test_the_relation_judges_the_authors_metric_when_asked() -> None:
    pairs, lm = _pairs()
    assert crows_pairs_score(lm, pairs, paper_rounding=True).overall.share == pytest.approx(0.4)
    # unrounded: 0.75, 0.25 from 50%; with the paper's rounding: 0.40, 0.10 from 50%
    with pytest.raises(pf.FairnessViolation):
        assert_crows_pairs_below(lm, pairs, max_deviation=0.2)
    with capture() as state:
        assert_crows_pairs_below(lm, pairs, max_deviation=0.2, paper_rounding=True)
    recorded = state.results[0]
    assert recorded["passed"]
    assert recorded["measurements"][0]["value"] == pytest.approx(0.4)
    assert recorded["extra"]["paper_rounding"] is True
    with pytest.raises(pf.FairnessViolation) as exc:
        assert_crows_pairs_below(lm, pairs, max_deviation=0.05, paper_rounding=True)
    message = str(exc.value)
    assert "3 tie(s) of 5 pairs (equal after rounding to 3 decimals) counted as not " \
           "stereotyped" in message
    assert exc.value.result.n_violations == 2
