"""Example 2: metamorphic fairness testing of a sentiment model, then certified smoothing.

mt-nlp (section 2, Algorithm 1): a perturbation of a sensitive attribute must not change
the predicted label, argmax M(x) = argmax M(x'). Hypothesis draws sentences from the
corpus with their gender counterfactuals ("He fixed his fence" -> "She fixed her fence")
and shrinks a failure to the shortest sentence that breaks the relation.

Then the mitigation of section 3.2: smoothing the model over each input's perturbation set
gives outputs certified (eps, k)-fair (Theorem 1); the mitigation curve (the paper's
Figure 5) shows how many violations are left for each eps.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings

import pytest_fairness as pf
from pytest_fairness import strategies as fst

CORPUS = Path(__file__).parent / "data" / "comments.txt"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=fst.gender_counterfactuals(CORPUS))
def test_gender_counterfactuals_keep_the_sentiment_label(vader_model, case):
    pf.assert_label_invariant(vader_model, case)


def test_gender_swaps_barely_move_the_sentiment_score(vader_model, fairness_corpus):
    """Counterfactual fairness (Garg et al., as in the APS paper section 6.5): L1 gap."""
    pf.assert_counterfactual_fair(vader_model, fairness_corpus.sample(60, seed=0), max_gap=0.05)


def test_smoothed_toxicity_model_is_certified(toxicity_model, fairness_corpus):
    """Theorem 1: each smoothed group {x} u S is (eps, k)-fair by construction."""
    smoothed = pf.smooth(toxicity_model, attribute="gender", eps=0.1)
    for text in fairness_corpus.sample(10, seed=0):
        if smoothed.perturbations(text):
            pf.assert_eps_k_fair(smoothed, text, eps=0.1, k=1)


def test_mitigation_curve_of_the_toxicity_model(toxicity_model, fairness_corpus):
    """Figure 5: the fraction of label violations left after smoothing, for each eps."""
    curve = pf.mitigation_curve(toxicity_model, fairness_corpus.sample(30, seed=0),
                                attribute="gender")
    strongest = min(curve.points, key=lambda point: point.eps)
    # the smallest eps pulls each group's outputs together: violations can only go down
    assert strongest.violations_after <= strongest.violations_before
