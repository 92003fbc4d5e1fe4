"""Example 3: accumulated prediction sensitivity of a white-box transformer sentiment model.

APS paper (section 3, Definition 1): P = w^T J v with J(k, i) = |d f_k / d x_i| over the
input embeddings: how much the class probabilities move per unit change of the input
tokens, averaged with class weights w and token weights v. Section 6.5's variants: P1
weighs every token alike; P4 only the gendered words; P2/P3 weigh tokens by how much they
move a protected-status model (here: one that tells sentences about a woman from sentences
about a man). The baseline is counterfactual fairness, CF = ||f(x) - f(x^)||_1 with x^ the
gender-swapped sentence.

The model is all-MiniLM-L6-v2 with a logistic-regression head trained on Pang & Lee's
movie-review sentences (`minilm_sentiment.py`, `scripts/train_minilm_head.py`). The bounds
below were set after measuring it on these 20 sentences (values in the comments): they
state what this model does, so a retrained head that leans more on gender fails them.
"""

from __future__ import annotations

import numpy as np
import pytest
from minilm_sentiment import head_metadata

import pytest_fairness as pf
from pytest_fairness.analysis.gradients import prediction_sensitivity
from pytest_fairness.models.whitebox.protected import train_protected_status_model


@pytest.fixture(scope="module")
def texts(fairness_corpus: pf.Corpus) -> list[str]:
    """Twenty corpus sentences, each with a gendered word (a pronoun, mostly)."""
    return list(fairness_corpus.sample(20, seed=0))


@pytest.fixture(scope="module")
def gender_model(minilm_model: pf.TextModel, fairness_corpus: pf.Corpus) -> object:
    """Protected-status model g for P2/P3: female vs male sentences of the whole corpus.

    The group of a sentence is the one its gender swap starts from; sentences that mention
    both genders ("He forgot his wife's birthday") are left out. Trained on the MiniLM
    input embeddings in well under a second.
    """
    sentences: list[str] = []
    groups: list[str] = []
    for text in fairness_corpus:
        swap = pf.perturb.gender_swap(text)
        if swap is not None and swap.from_group in ("female", "male"):
            sentences.append(text)
            groups.append(swap.from_group)
    return train_protected_status_model(minilm_model, sentences, groups, seed=0)


def test_the_head_was_trained_on_real_labelled_sentences() -> None:
    """The shipped head's held-out accuracy (0.7725 on 800 sentences, seed 0)."""
    meta = head_metadata()
    assert meta["n_test"] >= 500
    assert meta["accuracy"] >= 0.75


def test_gendered_words_are_no_more_sensitive_than_other_words(
    minilm_model: pf.TextModel, texts: list[str]
) -> None:
    """P4 (gendered tokens) against P1 (all tokens) on the same sentences.

    Measured: P1 mean 0.027, max 0.052; P4 mean 0.024, max 0.062; the per-sentence ratio
    P4/P1 has mean 0.87 and max 1.22. So the gradient says a pronoun moves this model about
    as much as an average token of its sentence. The bound is P4 <= 2 x P1 for every
    sentence: a model that singles out gendered words breaks it, this one does not.
    """
    p1 = prediction_sensitivity(minilm_model, texts, "P1")
    p4 = prediction_sensitivity(minilm_model, texts, "P4")
    ratio = np.asarray(p4.values) / np.asarray(p1.values)
    worst = int(np.argmax(ratio))
    assert ratio[worst] <= 2.0, f"P4/P1 = {ratio[worst]:.2f} on {texts[worst]!r}"
    assert p4.mean <= 1.5 * p1.mean
    # Absolute bounds, recorded in the fairness report: about 1.6-2x the measured maxima.
    pf.assert_prediction_sensitivity_below(minilm_model, texts, 0.10, "P1")
    pf.assert_prediction_sensitivity_below(minilm_model, texts, 0.10, "P4")


def test_protected_status_weighted_sensitivity(
    minilm_model: pf.TextModel, texts: list[str], gender_model: object
) -> None:
    """P2 (v from the gender classifier's input gradients) and P3 (P2 x |embeddings|).

    Measured: P2 mean 0.027, max 0.055; P3 mean 0.028, max 0.057, within 5 % of P1's mean:
    the tokens that reveal gender to g are not the ones the sentiment head leans on more.
    """
    p1 = prediction_sensitivity(minilm_model, texts, "P1")
    for variant in ("P2", "P3"):
        res = prediction_sensitivity(minilm_model, texts, variant, protected_model=gender_model)
        assert res.mean <= 1.5 * p1.mean, variant
        pf.assert_prediction_sensitivity_below(
            minilm_model, texts, 0.10, variant, protected_model=gender_model
        )


def test_gender_swaps_move_sentiment_little_on_average(
    minilm_model: pf.TextModel, texts: list[str]
) -> None:
    """Counterfactual fairness, the paper's aggregate: mean CF over the 20 swaps.

    Measured: mean CF 0.146 (the positive probability moves by 0.073 on average).
    """
    pf.assert_counterfactual_fair(minilm_model, texts, max_gap=0.25, statistic="mean")


@pytest.mark.xfail(
    strict=True,
    reason="known bias of this model: 'She is a brilliant engineer and a terrible driver.' "
    "is negative (p = 0.16), the 'He' version positive (p = 0.54): CF = 0.77",
)
def test_no_gender_swap_moves_sentiment_by_more_than_ten_points(
    minilm_model: pf.TextModel, texts: list[str]
) -> None:
    """Per-pair CF <= 0.2: the bound a team would want; this model breaks it.

    The gradient metrics above did not single out the pronouns, yet swapping one flips a
    label: P bounds the local, per-coordinate change of f (APS paper, section 5, Theorem
    2) while a swap is a finite step between two tokens, which is why the paper keeps CF
    as the baseline (section 6.5). Strict xfail: if a retrained head fixes it, it says so.
    """
    pf.assert_counterfactual_fair(minilm_model, texts, max_gap=0.2)
