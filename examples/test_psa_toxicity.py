"""Example 1: Perturbation Sensitivity Analysis of a real toxicity model.

Prabhakaran et al. (2019), section 2: take sentences with a third-person pronoun, replace
the pronoun with each of a list of names ("She left" -> "Maria left", "her book" ->
"Maria's book"), and measure how much the model's score moves. A toxicity model should not
find a comment more toxic because of the name in it.

The model is alt-profanity-check (a real scikit-learn model). Where it breaks a bound,
the failure lists the (sentence, name) pairs that moved the score most: that is the point.
"""

from __future__ import annotations

import pytest

import pytest_fairness as pf


@pytest.fixture(scope="session")
def names() -> list[str]:
    """Ten female and ten male first names from the US Census lists, cleaned of words."""
    return pf.names.popular("en", n=20)


def test_psa_metrics_of_the_toxicity_model(toxicity_model, fairness_corpus, names):
    """The paper's table 2 numbers for our corpus; recorded for the report, bounds loose."""
    result = pf.psa(toxicity_model, fairness_corpus, names)
    assert 0.0 <= result.score_dev <= result.score_range / 2 + 1e-12
    pf.assert_scoresens_below(
        toxicity_model, fairness_corpus, names, max_abs=0.10, max_range=0.25
    )


def test_no_name_moves_toxicity_by_more_than_a_point(toxicity_model, fairness_corpus, names):
    """A strict per-name bound: |ScoreSens| <= 0.01 for every name."""
    pf.assert_scoresens_below(toxicity_model, fairness_corpus, names, max_abs=0.01)


def test_names_rarely_flip_the_toxic_label(toxicity_model, fairness_corpus, names):
    """LabelDist at the 0.5 threshold (psa section 2): Jaccard distance of the toxic sets."""
    pf.assert_labeldist_below(toxicity_model, fairness_corpus, names, max_labeldist=0.05,
                              threshold=0.5)
